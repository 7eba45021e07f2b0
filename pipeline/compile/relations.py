"""Relations of the plan: object properties between TriplesMaps.

Same record (the parent's subject map evaluated on the child's record), join conditions
across files (one or several equalities, ``or`` alternatives), a join condition found on
another row connecting the same files, link files holding two foreign keys (subject and
object rewritten onto the link file's columns), and parents minted by the table's own IRI
convention for classes no row generates.
"""
from __future__ import annotations

import re

from rdflib import URIRef

from pipeline.compile.audit import closest_reference
from pipeline.compile.context import PlanContext
from pipeline.compile.parts import is_position, position_beside_other_part
from pipeline.compile.model import ObjectSpec, PredicateObject, Term, TriplesMapPlan, term_references
from pipeline.compile.subjects import classes_of, subject_term, triples_map
from pipeline.materialize.views.view import template_references
from pipeline.sources.columns import ColumnRecords
from pipeline.sources.load import SourceData
from pipeline.table import JoinPair, MappingRow, parse_join_condition, split_class_alternatives

__all__ = ["relation_objects", "join_twin", "link_file"]


def relation_objects(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan) -> list[ObjectSpec] | None:
    """The objects of a relation row on ``tm``: the subject map of the related class's TriplesMap (same
    record), or that TriplesMap with join conditions, one object map per ``or`` alternative. ``None``,
    with a finding, when no TriplesMap makes the class or no join connects the two sources."""
    target = ctx.onto.expand(split_class_alternatives(row.related_entity_class)[0])
    src = tm.source
    parents = [p for p in ctx.tms.values() if target in p.classes]
    parents.sort(key=lambda p: p.source is not src)
    alternatives = _conditions(ctx, row.join_condition)
    # a join of a column with itself links a record only to itself when the column is a key;
    # on any other column (cars.color==cars.color) it links every record sharing the value
    identity = all(pr.child_ref == pr.parent_ref and pr.child_source == pr.parent_source
                   for alt in alternatives for pr in alt) and \
        all(_identifies_records(src, [pr.child_ref for pr in alt]) for alt in alternatives)
    if not parents:
        # same record: a join condition naming a column beyond the record's own key (dc:creator/@ref
        # beside @m:id) says the related entity is identified by its columns, so they key its IRIs (as
        # the join columns of another file do below), not the record's key alone
        own = set(re.findall(r"(?<!\\)\{([^{}]+)\}", tm.template)) | set(term_references(tm.subject))
        joined = [pr.child_ref for alt in alternatives[:1] for pr in alt if src.has_reference(pr.child_ref)]
        keys = list(dict.fromkeys(joined)) if any(r not in own for r in joined) else []
        parent = _conventional_parent(ctx, row, tm, target, [] if identity else alternatives,
                                      keys if identity else [])
        if parent is None:
            # a misspelt join column is said too: it, not the missing class, may be what the user must fix
            for m, c in _missing_join_columns(ctx, [pr for alt in alternatives for pr in alt], [src]):
                ctx.find(row, "join_condition", f"join condition names no such column: {m}",
                         "child.column==parent.column", c)
            left = [r.line for r in ctx.audit.dropped if r.entity_class and target is not None
                    and ctx.onto.expand(split_class_alternatives(r.entity_class)[0]) == target]
            many = len(left) > 1
            why = (f"line{'s' * many} {', '.join(map(str, left))}, the row{'s' * many} with it as entity class, "
                   f"{'are' if many else 'is'} left out: see {'their' if many else 'its'} errors"
                   if left else "no row has it as entity class")
            ctx.find(row, "related_entity_class", f"no TriplesMap generates {row.related_entity_class} ({why})",
                     "a class with a subject template in the table")
            return None
        parents = [parent]
    parent = parents[0]
    if alternatives and not identity and len(parents) > 1:
        # several TriplesMaps make the class (a source's rows typed with it too): the join condition says
        # which one it means, the first whose source it connects with the row's
        parent = next((p for p in parents if all(_orient(alt, src, p.source) is not None for alt in alternatives)),
                      parent)
    if parent.source is src and (not alternatives or identity):
        return [ObjectSpec(term=Term(parent.subject.kind, parent.subject.value, parent.subject.call, "iri"))]
    if not alternatives:
        alternatives = _join_elsewhere(ctx, row, src, parent.source)
        if not alternatives:
            ctx.find(row, "join_condition", f"{src.source.path.name} and {parent.source.path.name} are "
                     "different sources but the row has no join condition", "a join condition")
            return None
    objects = []
    for alt in alternatives:
        joins = _orient(alt, src, parent.source)
        if joins is None:
            missing = _missing_join_columns(ctx, alt, [src, parent.source])
            why = f"; no such column: {', '.join(m for m, _ in missing)}" if missing else ""
            ctx.find(row, "join_condition", f"join condition does not connect {src.source.path.name} "
                     f"and {parent.source.path.name} with existing columns{why}",
                     "child.column==parent.column", ", ".join(c for _, c in missing if c) or None)
            return None
        target_tm = join_twin(ctx, parent) if parent.source is src and all(c == p for c, p in joins) else parent
        objects.append(ObjectSpec(parent=target_tm.id, joins=joins))
    return objects


def _missing_join_columns(ctx: PlanContext, pairs: list[JoinPair],
                          sources: list[SourceData]) -> list[tuple[str, str | None]]:
    """The sides of ``pairs`` naming a column that is in none of the files they may mean, each as
    ``("<file>.<column>", closest valid or None)``, sorted. A side is looked up in the file its prefix
    names (``people.orgg``: people.csv, among every source of the case), else in ``sources``; its
    closest valid is that file's column most like it (:func:`pipeline.compile.audit.closest_reference`),
    written as the side is (``people.org``)."""
    by_stem = {s.source.stem.lower(): s for s in [*ctx.audit.row_sources.values(), *ctx.sources]}
    out = set()
    for name, ref in {(p.child_source, p.child_ref) for p in pairs} | {(p.parent_source, p.parent_ref) for p in pairs}:
        named = by_stem.get((name or "").lower())
        files = [named] if named is not None else sources
        if any(f.has_reference(ref) for f in files):
            continue
        options = [r for f in files for r in f.references]
        near = closest_reference(ref, options)
        out.add((f"{name or '?'}.{ref}", f"{name}.{near}" if near and name else near))
    return sorted(out)


def join_twin(ctx: PlanContext, parent: TriplesMapPlan) -> TriplesMapPlan:
    """The parent TriplesMap of a join within one source, on an equivalent logical source.

    Morph-KGC 2.10 rewrites a join whose parent has the same logical source and iterator as
    the child, and whose conditions each join a reference with itself, into the child's own
    subject (morph-kgc#209, ``_remove_self_joins_no_condition``), so ``cars.color==cars.color``
    would link each car only to itself. The twin has the
    parent's subject map, no class and no predicate-object map (it asserts nothing), and
    names the same file as ``<folder>/./<file>``: every engine reads the same records, and
    the engine joins for real.
    """
    twin = ctx.twins.get(parent.id)
    if twin is None:
        path = parent.source.path
        twin = TriplesMapPlan(f"{parent.id}_joinParent", parent.source, parent.iterator, parent.subject,
                              parent.template, source_path=f"{path.parent}/./{path.name}")
        ctx.twins[parent.id] = twin
    return twin


def _conventional_parent(ctx: PlanContext, row: MappingRow, tm: TriplesMapPlan, target: URIRef | None,
                         joins: list, keys: list[str] | None = None) -> TriplesMapPlan | None:
    """Mint IRIs of a class no row generates by the table's own convention.

    Same record (no join): the subject template of ``row`` with its class slug swapped
    for the target's; when the row's join condition names columns of the record beyond those its
    subject reads (``keys``: the condition's columns), they key the target instead
    (``artist/{@m:id}_{dc:creator/@ref}`` for ``@m:id==@m:id, dc:creator/@ref==dc:creator/@ref``), else
    the record's own key does, which the warning says (one target entity per record). With a join to
    another file: that file's join columns form the key, ``<template up to the class slug,
    swapped>/{col}``, on that file. Nothing is minted when the convention or the join's other file
    cannot be told.
    """
    entity = ctx.onto.expand(split_class_alternatives(row.entity_class)[0])
    if target is None or entity is None:
        return None
    stated = _stated_by_marked_row(ctx, target, _join_target(ctx, joins[0], tm.source) if joins else (tm.source, []))
    if stated is not None:
        ctx.find(row, "related_entity_class", f"no asserted row generates {row.related_entity_class}; its IRIs "
                 f"follow the subject template of the row marked for review that has it: {stated.template} on "
                 f"{stated.source.source.path.name}", "a row with the class as entity class", severity="info")
        return stated
    old, new = _slug(entity), _slug(target)
    m = re.search(rf"/{re.escape(old)}/", tm.template, re.I)
    if not m:
        return None
    source, template = tm.source, tm.template[:m.start()] + f"/{new}/" + tm.template[m.end():]
    if keys:
        template = tm.template[:m.start()] + f"/{new}/" + "_".join("{" + c + "}" for c in keys)
    if joins:
        other = _join_target(ctx, joins[0], tm.source)
        if other is None:
            return None
        source, columns = other
        template = tm.template[:m.start()] + f"/{new}/" + "_".join("{" + c + "}" for c in columns)
    parent = triples_map(ctx, row, template, source, [target])
    if parent is not None:
        same_key = not joins and not keys
        ctx.find(row, "related_entity_class", f"no row generates {row.related_entity_class}; its IRIs follow "
                 f"the table's convention: {template} on {source.source.path.name}" + (
                     f", keyed by the {row.entity_class} record's own key: one {row.related_entity_class} per "
                     f"{row.entity_class}, whatever the data says (name the related entity's key in the join "
                     "condition, or add a row for the class)" if same_key else ""),
                 "a row with the class as entity class", None if same_key else template, severity="warning")
    return parent


def _stated_by_marked_row(ctx: PlanContext, target: URIRef, where: tuple[SourceData, list[str]] | None
                          ) -> TriplesMapPlan | None:
    """The TriplesMap of ``target``'s entities as a row marked for review states them: a row whose
    entity class is ``target`` on the source the relation reaches (``where``: the join's other file,
    or the record's own) has the table's subject template for them, though the row itself is not
    asserted. The TriplesMap types its subjects and states nothing else; ``None`` when no such row."""
    if where is None:
        return None
    source = where[0]
    for marked in ctx.audit.review:
        if not marked.subject_template or ctx.audit.row_sources.get(id(marked)) is not source:
            continue
        if ctx.onto.expand(split_class_alternatives(marked.entity_class)[0]) == target:
            if position_beside_other_part(source, template_references(marked.subject_template)):
                continue  # a position and another repeated part: no TriplesMap reads both (compile.parts)
            return triples_map(ctx, marked, marked.subject_template, source, [target])
    return None



def _conditions(ctx: PlanContext, cell: str | None) -> list[list[JoinPair]]:
    """The join condition ``cell`` parsed with the case's source stems, so a side naming a file
    whose name holds dots (``books.v2.author_id`` for ``books.v2.csv``) is split after the name."""
    stems = {s.source.stem for s in ctx.sources} | {s.source.stem for s in ctx.audit.row_sources.values()}
    return parse_join_condition(cell, stems)


def _join_target(ctx: PlanContext, pairs, child: SourceData) -> tuple[SourceData, list[str]] | None:
    """The other file of a join (named in it, not ``child``) and its join columns there."""
    sources = {s.source.stem.lower(): s for s in ctx.audit.row_sources.values()}
    sources.update({s.source.stem.lower(): s for s in ctx.sources})
    for p in pairs:
        for name, ref in ((p.parent_source, p.parent_ref), (p.child_source, p.child_ref)):
            other = sources.get((name or "").lower())
            if other is not None and other is not child and other.has_reference(ref):
                cols = [q.parent_ref if (q.parent_source or "").lower() == name.lower() else q.child_ref
                        for q in pairs]
                return other, cols
    return None


def _join_elsewhere(ctx: PlanContext, row: MappingRow, a: SourceData, b: SourceData):
    for other in ctx.rows:
        for alt in _conditions(ctx, other.join_condition):
            if _orient(alt, a, b) is not None:
                ctx.find(row, "join_condition", f"join condition taken from line {other.line}, which connects "
                         "the same sources", "a join condition on this row", other.join_condition,
                         severity="warning")
                return [alt]
    return []


def _orient(pairs, child: SourceData, parent: SourceData) -> list[tuple[str, str]] | None:
    def named(name, src):
        return name is None or name.lower() in src.source.stem.lower() or src.source.stem.lower() in name.lower()

    joins = []
    for p in (_stem_qualified(p, (child, parent)) for p in pairs):
        if named(p.child_source, child) and named(p.parent_source, parent) and \
                child.has_reference(p.child_ref) and parent.has_reference(p.parent_ref):
            joins.append((p.child_ref, p.parent_ref))
        elif named(p.parent_source, child) and named(p.child_source, parent) and \
                child.has_reference(p.parent_ref) and parent.has_reference(p.child_ref):
            joins.append((p.parent_ref, p.child_ref))
        else:
            return None
    return joins


def link_file(ctx: PlanContext, row: MappingRow) -> bool:
    """Link files (BLINKG scenario 1F): a row on a file holding two foreign keys. Subject and
    object templates are rewritten onto the link file's columns; no join is needed.

    Returns:
        ``True`` when the row was planned so (its TriplesMap on the link file holds the
        predicate-object map), ``False`` when it is no link-file row or its classes' TriplesMaps
        cannot be reached through the join condition.
    """
    link = ctx.source_of(row)
    alts = _conditions(ctx, row.join_condition)
    if not alts or not row.related_entity_class:
        return False
    tvars = [r for s in ctx.segments(row.subject_template) for r in s.references()]
    if all(link.has_reference(v) or is_position(link, v) for v in tvars):
        return False
    rename: dict[str, dict[str, str]] = {}
    for p in alts[0]:
        for mine, mref, other, oref in ((p.child_source, p.child_ref, p.parent_source, p.parent_ref),
                                        (p.parent_source, p.parent_ref, p.child_source, p.child_ref)):
            if mine and mine.lower() == link.source.stem.lower() and other:
                rename.setdefault(other.lower(), {})[oref] = mref
    entity = classes_of(ctx, row)
    target = ctx.onto.expand(split_class_alternatives(row.related_entity_class)[0])

    def rewrite(tm: TriplesMapPlan) -> str | None:
        names = rename.get(tm.source.source.stem.lower(), {})
        segs = ctx.segments(tm.template)
        if any(s.kind != "const" and s.value not in names for s in segs):
            return None
        return "".join(s.value if s.kind == "const" else "{" + names[s.value] + "}" for s in segs)

    def joined(cls: URIRef) -> str | None:
        # of several TriplesMaps of a class, the one whose subject template the join condition
        # reaches (its source and key columns are the ones the link file's foreign keys name),
        # not merely the first: another source may hold a stray TriplesMap of the same class
        return next((t for t in (rewrite(p) for p in ctx.tms.values() if cls in p.classes) if t), None)

    if not entity:
        return False
    subj, obj = joined(entity[0]), joined(target)
    if subj is None or obj is None:
        return False
    tm = triples_map(ctx, row, subj, link, [])
    obj_term = subject_term(ctx, obj, link, row) if tm else None
    if tm is None or obj_term is None:
        return False
    pred = ctx.onto.expand(row.ontology_property)
    tm.poms.append(PredicateObject(pred, [ObjectSpec(term=obj_term)], row.line))
    tm.lines.append(row.line)
    ctx.find(row, "join_condition", f"link file {link.source.path.name}: subject {subj} and object {obj} "
             "built from its foreign keys", severity="info")
    return True



def _identifies_records(src: SourceData, refs: list[str]) -> bool:
    """True when the values of ``refs`` differ from record to record (records without them
    left out). A reference the loaded records do not hold (an absolute XPath) is taken as a key:
    nothing in the data says otherwise."""
    if not all(r in src.references for r in refs):
        return True
    if isinstance(src.records, ColumnRecords):  # CSV: the columns themselves, no per-record dicts
        keys = [k for k in zip(*(src.records.column(r) for r in refs)) if all(k)]
    else:
        keys = [tuple(tuple(rec.get(r, ())) for r in refs) for rec in src.records]
        keys = [k for k in keys if all(k)]
    return len(set(keys)) == len(keys)


def _slug(iri: URIRef) -> str:
    local = re.split(r"[#/]", str(iri))[-1]
    return local[:1].lower() + local[1:]


def _stem_qualified(pair: JoinPair, sources: tuple[SourceData, ...]) -> JoinPair:
    """Split ``stem.path`` sides that the cell parser kept whole.

    ``parse_join_condition`` does not split a side holding a ``/`` (an XPath may hold dots),
    so ``artworks.d:artist/@ref`` reaches here as one reference. When it starts with the stem
    of one of the two sources plus a dot and the rest is a reference of that source, it is
    read as that source's reference.

    Args:
        pair: one equality of the join condition.
        sources: the child and parent sources.
    Returns:
        The pair, with such sides split into (stem, reference); else unchanged.
    """
    def split(name: str | None, ref: str) -> tuple[str | None, str]:
        if name is None:
            for src in sources:
                stem = src.source.stem
                if ref.lower().startswith(stem.lower() + ".") and src.has_reference(ref[len(stem) + 1:]):
                    return stem, ref[len(stem) + 1:]
        return name, ref

    cs, cr = split(pair.child_source, pair.child_ref)
    ps, pr = split(pair.parent_source, pair.parent_ref)
    return pair if (cs, cr, ps, pr) == (pair.child_source, pair.child_ref, pair.parent_source, pair.parent_ref) \
        else JoinPair(cs, cr, ps, pr)
