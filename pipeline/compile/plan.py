"""Plan pass of the compiler: audited table rows -> TriplesMap plans (:mod:`.model`).

:func:`plan_mapping` runs a chain of passes over one :class:`~pipeline.compile.context.PlanContext`:

1. subjects: rows grouped into TriplesMaps by (logical source, subject template), with their
   subject maps and classes (:mod:`.subjects`); a link-file row waits for the second pass;
2. predicate-object maps: one per row, a literal or a value map (code -> SKOS concept, through
   an FnO function) in :mod:`.objects`, or a relation to another TriplesMap, through a join or a
   link file, in :mod:`.relations`; an XML literal whose value and language tag (or concatenated
   parts) are read from one element goes to a TriplesMap iterating at that element
   (:mod:`.elements`), so that they stay paired;
3. the TriplesMaps that assert something, those iterating at elements, then the join parents of
   self-joins;
4. logical views (:mod:`.views`): each group of term maps gets a view with only the fields it reads,
   the repeated parts it reads together nested as in the data; predicate-object maps that read other
   repeated members move to TriplesMaps of their own with the same subjects;
5. a warning for each XML TriplesMap whose references combine as a cross product;
6. a warning for each TriplesMap whose subject merges records it cannot give back, or leaves records
   with mapped values without a subject (:mod:`.subject_keys`).

Anything a pass cannot resolve becomes a finding and the row is left out.
:mod:`pipeline.compile.rml` then emits the plans as an RML graph.
"""
from __future__ import annotations

from rdflib.namespace import SKOS

from pipeline.compile.audit import AuditResult
from pipeline.compile.context import PlanContext
from pipeline.compile.elements import pair_per_element
from pipeline.compile.model import ObjectSpec, Plan, PredicateObject, TriplesMapPlan, term_references
from pipeline.compile.nesting import part_of, per_occurrence
from pipeline.compile.parts import is_position
from pipeline.compile.objects import literal_object, value_map_object
from pipeline.compile.relations import link_file, relation_objects
from pipeline.compile.subject_keys import subject_key_findings
from pipeline.compile.subjects import classes_of, triples_map
from pipeline.compile.views import layout_views, pom_references, values_per_iteration
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow, parse_value_map, split_class_alternatives
from pipeline.table.cells import IRI_MARKERS

__all__ = ["plan_mapping"]


def plan_mapping(audit: AuditResult, ontology: Ontology, case: Case, table_file: str = "<table>",
                 sources: list[SourceData] | None = None) -> Plan:
    """Group the audited rows into TriplesMap plans.

    Args:
        audit: the audit of the table (its ``kept`` rows and their sources).
        ontology: for prefixes and class IRIs.
        case: the case (base IRI).
        table_file: table path used in findings.
        sources: every loaded source (a join may name a file no row reads).
    Returns:
        A :class:`Plan`; rows that cannot be compiled are in ``dropped_lines`` with findings.
    """
    ctx = PlanContext(audit.kept, audit, ontology, case, table_file, list(sources or []))
    pending = _subjects(ctx)
    for row, tm in pending:
        ok = _predicate_object(ctx, row, tm)
        (ctx.plan.compiled_lines if ok else ctx.plan.dropped_lines).append(row.line)
    ctx.plan.triples_maps = layout_views([t for t in ctx.tms.values() if _asserts(ctx, t, pending)] +
                                         list(ctx.elements.values()) + list(ctx.twins.values()))
    for tm in ctx.plan.triples_maps:
        _warn_cross_product(ctx, tm)
    ctx.plan.findings += subject_key_findings(ctx.plan, table_file)
    return ctx.plan


def _asserts(ctx: PlanContext, tm: TriplesMapPlan, pending: list[tuple[MappingRow, TriplesMapPlan | None]]) -> bool:
    """Pass 3: whether ``tm`` is written: it has predicate-object maps, is the parent of a relation, or
    types its subjects for a row that compiled (the classes of rows left out are not asserted: a
    table none of whose rows compiles writes nothing)."""
    if tm.poms:
        return True
    if any(o.parent == tm.id for t in ctx.tms.values() for p in t.poms for o in p.objects):
        return True
    rows = [row.line for row, t in pending if t is tm]
    compiled = set(ctx.plan.compiled_lines)
    return bool(tm.classes) and (not rows or any(line in compiled for line in rows))


def _subjects(ctx: PlanContext) -> list[tuple[MappingRow, TriplesMapPlan | None]]:
    """Pass 1: the TriplesMap of each row, in table order; ``None`` for a link-file row (a relation
    row whose subject template reads columns its own file lacks: its subject lives in another file).
    A row whose subject map cannot be built is dropped here."""
    pending: list[tuple[MappingRow, TriplesMapPlan | None]] = []
    for row in ctx.rows:
        tvars = [r for seg in ctx.segments(row.subject_template) for r in seg.references()]
        src = ctx.source_of(row)
        if row.related_entity_class and not all(src.has_reference(v) or is_position(src, v) for v in tvars):
            pending.append((row, None))
            continue
        tm = triples_map(ctx, row, row.subject_template, ctx.source_of(row), classes_of(ctx, row))
        if tm is None:
            ctx.plan.dropped_lines.append(row.line)
            continue
        pending.append((row, tm))
    return pending


def _predicate_object(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan | None) -> bool:
    """Pass 2: the row's predicate-object map on ``tm`` (a link-file row makes its own TriplesMap);
    ``False`` when the row is left out (the findings say why)."""
    pred = ctx.onto.expand(row.ontology_property)
    has_map = bool(parse_value_map(row.function_output))
    # skos:Concept as the related class means codes turned into concepts by a value map, unless a join condition
    # names the source whose entities the concepts are (a thesaurus' own records: parentID -> skos:broader)
    is_relation = bool(row.related_entity_class) and not has_map and (
        ctx.onto.expand(split_class_alternatives(row.related_entity_class)[0]) != SKOS.Concept or bool(row.join_condition))
    if is_relation:
        _unapplied_relation_cells(ctx, row)
    if tm is None:
        if link_file(ctx, row):
            return True
        ctx.find(row, "subject_template", "subject template variables are not in the row's source and no "
                 "link-file join resolves them", "variables of the row's source file")
        return False
    if row.class_only:  # the subject map's class is the row's whole statement (pass 3 keeps tm for it)
        tm.lines.append(row.line)
        return True
    if is_relation:
        objects = relation_objects(ctx, row, tm)
        tm = _per_occurrence_relation(ctx, row, tm, objects or [])
    elif has_map:
        term = value_map_object(ctx, row, tm.source)
        objects = [ObjectSpec(term=term)] if term else None
    elif row.data_reference:
        if row.join_condition:
            ctx.find(row, "join_condition", "join condition on a literal-valued row is ignored", severity="info")
        term = literal_object(ctx, row, tm.source)
        if term is not None:
            paired = pair_per_element(ctx, row, tm, term)
            if paired is None:
                return False
            tm, term = paired
        objects = [ObjectSpec(term=term)] if term else None
    else:
        ctx.find(row, "data_reference", "row has neither a data reference nor a related entity class",
                 "a data reference, or a related class with a join")
        objects = None
    if not objects or pred is None:
        return False
    tm.poms.append(PredicateObject(pred, objects, row.line))
    tm.lines.append(row.line)
    return True


def _unapplied_relation_cells(ctx: PlanContext, row: MappingRow) -> None:
    """A warning per cell of a relation row that the compiler cannot apply: its objects are the related
    entity's IRIs (made by that entity's subject template, or a join to its records), so a Function Name
    has no value to change, and a Language Tag or a literal Datatype has no literal to mark (RDF 1.1
    Concepts 3.3: only literals carry them; R2RML 7.3/7.4: rr:language and rr:datatype apply to term type
    Literal alone). A Datatype saying IRI is what such a row writes and is not warned of."""
    objects = f"the row's objects are the IRIs of {row.related_entity_class} (the related entity's subject " \
              "template)"
    if row.function_name:
        ctx.find(row, "function_name", f"{row.function_name!r} is not applied: {objects}, which no function of this "
                 "row changes", "no function on a relation row", severity="warning")
    if row.language_tag:
        ctx.find(row, "language_tag", f"{row.language_tag!r} is not applied: {objects}, and an IRI has no language "
                 "tag", "no language tag on a relation row", severity="warning")
    if row.datatype and row.datatype.strip().lower() not in IRI_MARKERS:
        ctx.find(row, "datatype", f"{row.datatype!r} is not applied: {objects}, and an IRI has no datatype",
                 "IRI (or no datatype) on a relation row", severity="warning")


def _per_occurrence_relation(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan,
                             objects: list[ObjectSpec]) -> TriplesMapPlan:
    """The TriplesMap a relation row's objects are read on: ``tm``, or, when an object's IRI reads a
    repeating part of ``tm``'s records that ``tm`` does not iterate (a book's authors), the
    TriplesMap with ``tm``'s subjects that iterates that part, so that each record links to its own
    occurrences (the nesting, not a join on content)."""
    if tm.view is not None:
        return tm
    refs = [r for o in objects if o.term is not None for r in term_references(o.term)]
    part = part_of(tm.source, tm.iterator, refs)
    if part is None:
        return tm
    out = per_occurrence(ctx, tm, part)
    ctx.find(row, "related_entity_class", f"each record links to the {row.related_entity_class} of its own "
             f"occurrences of {part} (TriplesMap {out.id}, over a logical view iterating {out.view.part_iterator})", severity="info")
    return out


def _warn_cross_product(ctx: PlanContext, tm: TriplesMapPlan) -> None:
    """Pass 5: references of one triple (the subject map and one predicate-object map) with several
    values per iteration are paired value by value by no RML engine: each combination becomes a
    triple. Say so rather than hide it (once per TriplesMap)."""
    if tm.source.source.format != "xml":
        return
    subject = term_references(tm.subject)
    multi: set[str] = set()
    for refs in [subject] + [subject + pom_references(p) for p in tm.poms]:
        several = {r for r in dict.fromkeys(refs) if values_per_iteration(tm, r) > 1}
        if len(several) > 1:
            multi |= several
    if multi:
        where = f"{tm.view.id} under iterator {tm.iterator}" if tm.view is not None else f"iterator {tm.iterator}"
        ctx.plan.findings.append(Finding(
            "compile", ctx.file, f"TriplesMap {tm.id}: references {', '.join(sorted(multi))} each have several values "
            f"per iteration of {where}; the values a term map and its subject read together are combined as a "
            "cross product", tm.lines[0] if tm.lines else None, "subject_template", ", ".join(sorted(multi)),
            "an iterator at the repeated element they share", severity="warning"))
