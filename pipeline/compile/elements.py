"""Per-element pairing of an XML literal: a value and what qualifies it, read from one element.

An RML engine evaluates each reference of a term map on the iteration by itself and combines the
results as a cross product. Under an iterator at ``cat:dataset``, the object ``dc:title`` with the
language map ``dc:title/@xml:lang`` gives every title with every tag: two titles in English and
French make four literals, two of them false. The value and its own ``xml:lang`` (or the unit in
``concat(price, price/@currency)``) belong to one element, so they must be read per element.

:func:`pair_per_element` moves such a literal to a TriplesMap whose iterator is that element
(``/cat:catalog/cat:dataset/dc:title``), with the owner's subject map read upwards from it
(``{../@id}``; XPath's parent axis, which engines with full XPath read and ``kgc materialize``
reads through a derived source, see docs/methods/rml-modules.md) and no class (the owner types its
subjects). A language tag that still has several values per iteration (it is read from another
repeated element than the value) has no correct reading; the row is refused.
"""
from __future__ import annotations

import re

from pipeline.compile.context import PlanContext
from pipeline.compile.model import Call, Term, TriplesMapPlan, term_references
from pipeline.table import MappingRow

__all__ = ["pair_per_element", "per_iteration_count"]

#: one plain element step: a (prefixed) name with optional predicates (``cbc:ID[@schemeName='x']``)
_ELEMENT = re.compile(r"[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?(?:\[[^\]]*\])*")
#: a last step that reads the element it follows: an attribute, its text, the element itself
_LEAF = re.compile(r"@[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?|text\(\)|\.")


def _steps(ref: str) -> list[str]:
    """``ref`` split on the ``/`` that separate steps (never one inside a predicate)."""
    return re.split(r"/(?![^\[]*\])", ref)


def _element_path(ref: str) -> list[str] | None:
    """The element steps of a relative XPath whose last step may read an attribute or the text
    (``dc:title/@xml:lang`` -> ``['dc:title']``); ``None`` for any other form (absolute, ``..``,
    ``//``, functions, wildcards), whose pairing is not decided here."""
    if not ref or ref.startswith("/") or "//" in ref:
        return None
    steps = _steps(ref)
    if _LEAF.fullmatch(steps[-1]):
        steps = steps[:-1]
    return steps if all(_ELEMENT.fullmatch(s) for s in steps) else None


def per_iteration_count(tm: TriplesMapPlan, ref: str) -> int:
    """Largest number of values ``ref`` selects in one iteration of ``tm``'s iterator (XML; 0 when
    the expression cannot be evaluated)."""
    return tm.source.max_per_record(ref, tm.iterator)


def _upward(term: Term, depth: int) -> Term:
    """``term`` with each relative reference read ``depth`` elements up (``@id`` -> ``../@id``)."""
    def up(ref: str) -> str:
        return ref if ref.startswith("/") else "../" * depth + ref

    if term.kind == "reference":
        return Term("reference", up(term.value), term_type=term.term_type)
    if term.kind == "template":
        value = re.sub(r"(?<!\\)\{((?:[^{}\\]|\\.)*)\}", lambda m: "{" + up(m.group(1)) + "}", term.value)
        return Term("template", value, term_type=term.term_type)
    if term.kind == "call" and term.call is not None:
        args = [_upward(a, depth) if isinstance(a, Term) else a for a in term.call.args]
        return Term("call", call=Call(term.call.function, args), term_type=term.term_type)
    return term


def _below(ref: str, depth: int) -> str:
    """``ref`` made relative to the element ``depth`` steps below the iterator (``dc:title`` -> ``.``)."""
    rest = _steps(ref)[depth:]
    return "/".join(rest) if rest else "."


def _rebased(term: Term, depth: int) -> Term:
    """``term`` with its references (and its language map's) read from the element ``depth`` steps down."""
    out = Term(term.kind, term.value, term.call, term.term_type, term.datatype, term.language,
               _below(term.language_ref, depth) if term.language_ref else None)
    if term.kind == "reference":
        out.value = _below(term.value, depth)
    elif term.kind == "template":
        out.value = re.sub(r"(?<!\\)\{((?:[^{}\\]|\\.)*)\}", lambda m: "{" + _below(m.group(1), depth) + "}",
                           term.value)
    elif term.kind == "call" and term.call is not None:
        out.call = Call(term.call.function,
                        [_rebased(a, depth) if isinstance(a, Term) else a for a in term.call.args])
    return out


def _element_tm(ctx: PlanContext, owner: TriplesMapPlan, common: list[str]) -> TriplesMapPlan:
    """The TriplesMap iterating at ``owner``'s element ``common`` (made once per owner and element)."""
    iterator = f"{owner.iterator.rstrip('/')}/{'/'.join(common)}"
    key = (owner.id, iterator)
    tm = ctx.elements.get(key)
    if tm is None:
        slug = re.sub(r"\W+", "_", common[-1].split(":")[-1].split("[")[0]).strip("_")
        tm = TriplesMapPlan(f"{owner.id}_{slug}_{len(ctx.elements) + 1}"[:100], owner.source, iterator,
                            _upward(owner.subject, len(common)), owner.template, owner=owner.id)
        ctx.elements[key] = tm
    return tm


def pair_per_element(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan,
                     term: Term) -> tuple[TriplesMapPlan, Term] | None:
    """Where the object ``term`` of ``row`` on ``tm`` (a literal, or an IRI the Datatype cell asks for)
    is read: ``(tm, term)`` unchanged, or a TriplesMap iterating at the element its references share,
    with ``term`` relative to it.

    The references (the value's, and the language map's) are moved when there are at least two of
    them and they share an element below the iterator (``dc:title`` and ``dc:title/@xml:lang``
    share ``dc:title``), whatever the data: another file may repeat an element this one does not.

    Returns:
        The TriplesMap and term to use, or ``None`` (with an error finding on the Language Tag
        cell) when the language tag has several values in one iteration: a literal has one tag and
        no reading pairs them with the values.
    """
    if tm.source.source.format != "xml" or not tm.iterator:
        return tm, term
    refs = list(dict.fromkeys(term_references(term) + ([term.language_ref] if term.language_ref else [])))
    paths = [_element_path(r) for r in refs]
    if len(refs) >= 2 and all(p is not None for p in paths):
        common: list[str] = []
        for steps in zip(*paths):
            if len(set(steps)) != 1:
                break
            common.append(steps[0])
        if common:
            tm, term = _element_tm(ctx, tm, common), _rebased(term, len(common))
            ctx.find(row, "data_reference", f"{' and '.join(repr(r) for r in refs)} read per {common[-1]} element "
                     f"(TriplesMap {tm.id}, iterator {tm.iterator}), so that each value keeps what its own "
                     "element says", severity="info")
    if term.language_ref and (n := per_iteration_count(tm, term.language_ref)) > 1:
        value = ", ".join(repr(r) for r in term_references(term)) or "the value"
        ctx.find(row, "language_tag", f"language tag reference {term.language_ref!r} has up to {n} values per "
                 f"{tm.iterator} element and is not read from the element of {value}: each value would take "
                 "every tag (a cross product), so the row is left out",
                 "the xml:lang (or tag attribute) of the value's own element, e.g. {title/@xml:lang} for title")
        return None
    return tm, term
