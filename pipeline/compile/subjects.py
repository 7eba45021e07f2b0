"""Subjects pass of the plan: TriplesMaps by (logical source, subject template), their subject maps
and classes, and term maps built from template segments (subjects, and ``concat`` literals).

A template of references only becomes an ``rml:template``; one holding a function (``$(f(x))``)
becomes nested FnO calls (``concat``, ``percentEncode`` for IRIs). A relative subject template
is resolved against the case's base IRI, except a template of one reference alone whose every value
is an absolute IRI (a JSON-LD ``@id``: ``{properties.@id}``), which is the subject IRI as written.
"""
from __future__ import annotations

import re

from rdflib import URIRef

from pipeline.compile.context import PlanContext
from pipeline.compile.model import Call, Term, TriplesMapPlan, term_references
from pipeline.compile.nesting import part_of, view_for
from pipeline.materialize.views.view import escape
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow, split_class_alternatives
from pipeline.table.template import Segment, is_absolute_iri

__all__ = ["subject_term", "segments_term", "triples_map", "classes_of"]

_SCHEME = r"^[A-Za-z][\w+.\-]*:"


def subject_term(ctx: PlanContext, template: str, src: SourceData, row: MappingRow) -> Term | None:
    """The subject map of ``template`` on ``src`` (an IRI term map); ``None``, with a finding, when it
    cannot be built (a relative template and no base IRI, a reference outside the iterator)."""
    segs = ctx.segments(template)
    whole = _iri_reference(ctx, segs, src)
    if whole is not None:
        # the value is an IRI already: an R2RML template would percent-encode it after the base IRI
        # (http://example.com/base/http%3A%2F%2F...), naming nothing; a reference-valued IRI term map
        # (RML-Core, R2RML 7.3) takes it as it is
        rel = ctx.relative(whole, src, row, "subject_template")
        if rel is None:
            return None
        ctx.find(row, "subject_template", f"every value of {whole!r} is an absolute IRI: the subject is the value "
                 "itself (rml:reference), not the value percent-encoded after the base IRI", severity="info")
        return Term("reference", rel, term_type="iri")
    if segs and not (segs[0].kind == "const" and re.match(_SCHEME, segs[0].value)):
        # a template that starts with a variable ('{id}') is as relative as 'person/{id}': its values
        # are percent-encoded (R2RML 7.3), so they can never supply a scheme; resolve both alike
        base = ctx.case.base_iri or ""
        if not re.match(_SCHEME, base):
            ctx.find(row, "subject_template", "subject template is a relative IRI and the case has no base "
                     "IRI to resolve it against: every subject would be dropped",
                     "an absolute IRI template, or base_iri in the manifest")
            return None
        glued = "" if base.endswith(("/", "#")) else (
            f"; the base IRI {base!r} ends in neither '/' nor '#', so its last segment and the template's first "
            f"are glued together ({base + template!r}): end base_iri with '/' if that is not meant")
        # RML-Core and R2RML make an IRI from a relative one by concatenating the base, not by RFC 3986 resolution
        ctx.find(row, "subject_template", "subject template is a relative IRI; the base IRI is prefixed to it "
                 f"(RML concatenates){glued}", "an absolute IRI template", None if glued else base + template,
                 severity="warning")
        if segs[0].kind == "const":
            segs[0] = Segment("const", base + segs[0].value)
        else:
            segs.insert(0, Segment("const", base))
    term = segments_term(ctx, segs, src, row, "subject_template", "iri")
    if term is not None and term.kind == "call":
        _inputs_as_templates(term)
    return term


def _iri_reference(ctx: PlanContext, segs: list[Segment], src: SourceData) -> str | None:
    """The reference of a template made of one reference alone (``{properties.@id}``) whose values, at least
    one, are all absolute IRIs (:func:`pipeline.table.template.is_absolute_iri`), else ``None``."""
    if len(segs) != 1 or segs[0].kind != "ref":
        return None
    ref = segs[0].value
    values = src.values(ref)
    if not values and src.source.format == "xml":
        it = (ctx.iterator(src) or "").rstrip("/")
        values = src.xpath(ref if ref.startswith("/") or not it else f"{it}/{ref}")
    values = [str(v).strip() for v in values if str(v).strip()]
    return ref if values and all(is_absolute_iri(v) for v in values) else None


def segments_term(ctx: PlanContext, segs: list[Segment], src: SourceData, row: MappingRow, column: str,
                  term_type: str) -> Term | None:
    """A term map of ``term_type`` (``iri`` or ``literal``) for template segments: an ``rml:template``
    when every segment is a constant or a reference, else ``concat`` calls over the parts (each
    reference of an IRI percent-encoded). References are made relative to the source's iterator;
    ``None`` when one cannot be (the finding is on ``column``)."""
    rel: list[Segment] = []
    for s in segs:
        if s.kind == "const":
            rel.append(s)
            continue
        r = ctx.relative(s.value, src, row, column)
        if r is None:
            return None
        rel.append(Segment(s.kind, r, s.function, s.args))
    if all(s.kind in ("const", "ref") for s in rel):
        text = "".join(escape(s.value) if s.kind == "const" else "{" + escape(s.value) + "}" for s in rel)
        return Term("template", text, term_type=term_type)
    parts: list = []
    for s in rel:
        if s.kind == "const":
            parts.append(s.value)
            continue
        value = Term("reference", s.value)
        if s.kind == "call":
            value = Term("call", call=Call(s.function, [value, *s.args]))
        parts.append(Term("call", call=Call("percentEncode", [value])) if term_type == "iri" else value)
    expr = parts[-1]
    for p in reversed(parts[:-1]):
        expr = Term("call", call=Call("concat", [p, expr]))
    if isinstance(expr, str):
        return Term("constant", expr, term_type=term_type)
    expr.term_type = term_type
    return expr


def triples_map(ctx: PlanContext, row: MappingRow, template: str, src: SourceData,
                classes: list[URIRef]) -> TriplesMapPlan | None:
    """The TriplesMap of ``template`` on ``src``, made on first use (ids ``TM<n>_<slug>`` in order of
    making), with ``classes`` added to its subject map; ``None`` when its subject map cannot be built.
    A template that reads a repeating part of the records (``{isbn}_{authors.#}``) makes one subject
    per occurrence: the TriplesMap iterates a logical view on the part (:mod:`.nesting`)."""
    key = (id(src), template)
    tm = ctx.tms.get(key)
    if tm is None:
        subject = subject_term(ctx, template, src, row)
        if subject is None:
            return None
        slug = re.sub(r"\W+", "_", f"{src.source.stem}_{_template_slug(template)}").strip("_")
        tm_id = f"TM{len(ctx.tms) + 1}_{slug}"[:80]
        tm = TriplesMapPlan(tm_id, src, ctx.iterator(src), subject, template)
        part = part_of(src, tm.iterator, term_references(subject))
        if part is not None:  # one subject per occurrence of a repeating part: iterate it (.nesting)
            tm.view = view_for(ctx, src, tm.iterator, part)
        ctx.tms[key] = tm
    for c in classes:
        if c not in tm.classes:
            tm.classes.append(c)
    return tm


def classes_of(ctx: PlanContext, row: MappingRow) -> list[URIRef]:
    """The class the row's subjects are typed with: the first of alternatives ``a / b`` (a warning
    says so), none when the cell does not expand to an IRI."""
    alts = split_class_alternatives(row.entity_class)
    if len(alts) > 1:
        ctx.find(row, "entity_class", f"{len(alts)} alternative classes; subjects typed with the first only",
                 "one class", alts[0], severity="warning")
    iri = ctx.onto.expand(alts[0]) if alts else None
    return [iri] if iri is not None else []


def _inputs_as_templates(term: Term) -> None:
    """Write the references a subject's function reads as templates ``{ref}`` (termType literal:
    the same value, unencoded), in place.

    Morph-KGC 2.10 escapes a literal function result through a column that only a template
    evaluation creates (``materializer._materialize_fnml_execution``); a TriplesMap whose subject
    is a function of plain references and whose object is a function (``$(replace(name,..))``
    with ``toUpperCase``) stops with ``KeyError: 'reference_results'``. A template input creates
    that column while the subject is built, so the mapping runs in the engine as it is.
    """
    for i, arg in enumerate(term.call.args if term.call else []):
        if isinstance(arg, Term) and arg.kind == "reference":
            term.call.args[i] = Term("template", "{" + escape(arg.value) + "}")
        elif isinstance(arg, Term) and arg.kind == "call":
            _inputs_as_templates(arg)


def _template_slug(template: str) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z0-9]+", re.sub(r"\$\(.*", "", template.split("//", 1)[-1]))
    return words[-1] if words else "tm"
