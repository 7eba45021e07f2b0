"""Per-element pairing of an XML literal: a value and what qualifies it, read from one element.

An RML engine evaluates each reference of a term map on the iteration by itself and combines the
results as a cross product. Under an iterator at ``cat:dataset``, the object ``dc:title`` with the
language map ``dc:title/@xml:lang`` gives every title with every tag: two titles in English and
French make four literals, two of them false. The value and its own ``xml:lang`` (or the unit in
``concat(price, price/@currency)``) belong to one element, so they must be read per element.

:func:`pair_per_element` moves such a literal to a TriplesMap with the owner's subjects that iterates
the occurrences of that element through a logical view on the owner's logical source
(:func:`pipeline.compile.nesting.per_occurrence`, the one mechanism of nested iteration): an
iterable field at ``dc:title`` whose fields are ``.`` and ``@xml:lang``, beside the owner's key. A
JSON literal whose references lie in one array of objects (``concat(prices.amount, prices.currency)``)
is read per occurrence the same way. A language tag that still has several values per iteration
(it is read from another repeated element than the value) has no correct reading; the row is refused.
"""
from __future__ import annotations

from pipeline.compile.context import PlanContext
from pipeline.compile.model import Term, TriplesMapPlan, term_references
from pipeline.compile.nesting import part_of, per_occurrence
from pipeline.compile.parts import common_element, is_position, member_of
from pipeline.table import MappingRow

__all__ = ["pair_per_element", "per_iteration_count"]


def per_iteration_count(tm: TriplesMapPlan, ref: str) -> int:
    """Largest number of values ``ref`` selects in one iteration of ``tm`` (XML; 0 when the expression
    cannot be evaluated). A member of the part ``tm``'s view iterates has one value per iteration's
    element, counted within one occurrence."""
    if tm.view is not None and (member := member_of(tm.source, tm.view.part, ref)) is not None:
        if member in (".", "#"):
            return 1
        return tm.source.max_per_record(member, f"{(tm.iterator or '').rstrip('/')}/{tm.view.part}")
    return tm.source.max_per_record(ref, tm.iterator)


def pair_per_element(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan,
                     term: Term) -> tuple[TriplesMapPlan, Term] | None:
    """Where the object ``term`` of ``row`` on ``tm`` (a literal, or an IRI the Datatype cell asks for)
    is read: ``(tm, term)`` unchanged, or the TriplesMap with ``tm``'s subjects that iterates the
    occurrences of the element (XML) or array of objects (JSON) its references share.

    XML: the references (the value's, and the language map's) are moved when there are at least two
    of them and they share an element below the iterator (``dc:title`` and ``dc:title/@xml:lang``
    share ``dc:title``), whatever the data: another file may repeat an element this one does not.
    JSON: when there are at least two and one lies in an array of objects of the data.

    Returns:
        The TriplesMap and term to use, or ``None`` (with an error finding on the Language Tag
        cell) when the language tag has several values in one iteration: a literal has one tag and
        no reading pairs them with the values.
    """
    fmt = tm.source.source.format
    if fmt not in ("xml", "json") or not tm.iterator:
        return tm, term
    refs = list(dict.fromkeys(term_references(term) + ([term.language_ref] if term.language_ref else [])))
    part = common_element(refs) if fmt == "xml" else (part_of(tm.source, tm.iterator, refs) if len(refs) >= 2 else None)
    positions = [r for r in refs if is_position(tm.source, r, tm.iterator)]
    if positions:  # an occurrence's position exists only where the part is iterated
        part = part_of(tm.source, tm.iterator, positions)
    if part and tm.view is None:  # a TriplesMap that already iterates a part reads it per occurrence
        tm = per_occurrence(ctx, tm, part)
        shown = part.split("/")[-1] if fmt == "xml" else part
        ctx.find(row, "data_reference", f"{' and '.join(repr(r) for r in refs)} read per {shown} "
                 f"{'element' if fmt == 'xml' else 'occurrence'} (TriplesMap {tm.id}, over a logical view "
                 f"iterating {tm.view.part_iterator}), so that each value keeps what its own "
                 f"{'element' if fmt == 'xml' else 'object'} says", severity="info")
    if term.language_ref and (n := per_iteration_count(tm, term.language_ref)) > 1:
        value = ", ".join(repr(r) for r in term_references(term)) or "the value"
        ctx.find(row, "language_tag", f"language tag reference {term.language_ref!r} has up to {n} values per "
                 f"{tm.iterator} element and is not read from the element of {value}: each value would take "
                 "every tag (a cross product), so the row is left out",
                 "the xml:lang (or tag attribute) of the value's own element, e.g. {title/@xml:lang} for title")
        return None
    return tm, term
