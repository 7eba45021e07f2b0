"""Nested iteration of the plan: TriplesMaps that read a repeating part of a record once per occurrence,
through an RML-LV logical view (https://w3id.org/rml/lv/spec) on the owner's logical source.

An RML engine evaluates each reference of a TriplesMap on the whole record and combines the results
as a cross product: under an iterator at a book, ``{authors.name}_{authors.born}`` gives every name
with every year, and ``dc:title`` with ``dc:title/@xml:lang`` every title with every tag. A TriplesMap
whose terms read a repeating part (:mod:`.parts`) iterates instead over a logical view

* on the owner's logical source (same file, same iterator: one iteration per record);
* with an expression field per record-level reference it reads (the owner's key: ``isbn``, ``@id``);
* with an iterable field at the part (``$.authors[*]``, ``dc:title``), whose expression fields are
  the members it reads (``name``; ``.``, ``@xml:lang``); the field's index ``<field>.#`` is the
  position of the occurrence in its record (or, for a part nested in another part the view iterates,
  in the enclosing occurrence: :mod:`.views` lays the fields out).

Each view iteration is one occurrence with its record's values beside it, so the relation to the
owner follows the nesting (no join on content), and an occurrence without an identifier is keyed by
its owner's key plus its position. The plan keeps terms in the table's references; :func:`bind`
rewrites them to the view's field names when the RML is written (:mod:`.rml`).
"""
from __future__ import annotations

import re
from typing import Callable

from pipeline.compile.context import PlanContext
from pipeline.compile.model import Call, Term, TriplesMapPlan, ViewPlan, term_references
from pipeline.compile.parts import member_of, repeating_part, values_reference
from pipeline.compile.views import bind_key, field_name, last_step
from pipeline.compile.parts import part_iterator as part_iterator_of
from pipeline.materialize.views.view import PLACEHOLDER, escape, unescape
from pipeline.sources.load import SourceData

__all__ = ["view_for", "part_of", "per_occurrence", "bind", "values_of_arrays", "rewrite_references"]


def part_of(src: SourceData, iterator: str | None, refs: list[str]) -> str | None:
    """The repeating part the first of ``refs`` that lies in one lies in (``None``: none does)."""
    if src.source.format not in ("json", "xml"):
        return None
    for r in refs:
        part = repeating_part(src, iterator, r)
        if part is not None:
            return part
    return None


def view_for(ctx: PlanContext, src: SourceData, iterator: str | None, part: str) -> ViewPlan:
    """The view over ``src`` (records at ``iterator``) iterating ``part``, made once and shared by every
    TriplesMap that reads the part."""
    key = (id(src), iterator, part)
    view = ctx.views.get(key)
    if view is None:
        name, part_iterator = field_name(last_step(src, part)), part_iterator_of(src, iterator, part)
        slug = re.sub(r"\W+", "_", f"{src.source.stem}_{name}").strip("_")
        view = ViewPlan(f"view{len(ctx.views) + 1}_{slug}"[:100], src, iterator, part, name, part_iterator)
        ctx.views[key] = view
    return view


def per_occurrence(ctx: PlanContext, owner: TriplesMapPlan, part: str) -> TriplesMapPlan:
    """The TriplesMap with ``owner``'s subjects that iterates the occurrences of ``part`` in ``owner``'s
    records (made once per owner and part; no class: the owner types its subjects)."""
    key = (owner.id, part)
    tm = ctx.elements.get(key)
    if tm is None:
        view = view_for(ctx, owner.source, owner.iterator, part)
        tm = TriplesMapPlan(f"{owner.id}_{view.name}_{len(ctx.elements) + 1}"[:100], owner.source, owner.iterator,
                            owner.subject, owner.template, owner=owner.id, view=view)
        ctx.elements[key] = tm
    return tm


def bind(view: ViewPlan, term: Term) -> Term:
    """``term`` (written in references relative to the view's records) with each reference replaced by
    the key of the view that holds its value (:func:`pipeline.compile.views.bind_key`), the fields it
    needs added to ``view``."""
    return rewrite_references(term, lambda ref: bind_key(view, ref), language=True)


def values_of_arrays(tm_source: SourceData, iterator: str | None, term: Term) -> Term:
    """``term`` read directly from a JSON source, each reference through an array written with
    ``[*]`` (:func:`pipeline.compile.parts.values_reference`): the array's values, not the array."""
    return rewrite_references(term, lambda ref: values_reference(tm_source, iterator, ref), language=False)


def rewrite_references(term: Term, new: Callable[[str], str], language: bool) -> Term:
    """``term`` with each reference ``r`` (a reference, a template's placeholders, a call's
    arguments at any depth; the language reference too when ``language``) written ``new(r)``."""
    out = Term(term.kind, term.value, term.call, term.term_type, term.datatype, term.language,
               new(term.language_ref) if language and term.language_ref else term.language_ref)
    if term.kind == "reference":
        out.value = new(term.value)
    elif term.kind == "template":
        out.value = PLACEHOLDER.sub(lambda m: "{" + escape(new(unescape(m.group(1)))) + "}", term.value)
    elif term.kind == "call" and term.call is not None:
        out.call = Call(term.call.function, [rewrite_references(a, new, language) if isinstance(a, Term) else a
                                             for a in term.call.args])
    return out


def references_in(view: ViewPlan, term: Term) -> list[str]:
    """The references of ``term`` that lie in the view's part."""
    return [r for r in term_references(term) if member_of(view.source, view.part, r) is not None]
