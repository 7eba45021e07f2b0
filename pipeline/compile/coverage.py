"""Coverage of the sources by a compiled mapping: what of each source reaches the KG.

Per source (``run.json`` ``coverage``): its columns/paths with a value, those a
TriplesMap reads (subject template, object references, language maps, function
inputs, join children), its records, and the records that get a subject (every reference of
the subject map of at least one of its TriplesMaps has a value in the record; a
record without one produces no triple, R2RML section 7). Columns and sources
left out are listed by name so a report can show them.
"""
from __future__ import annotations

import re
from typing import Any

from lxml import etree

from pipeline.sources.columns import ColumnRecords
from pipeline.compile.parts import is_position
from pipeline.manifest import SELECTION
from pipeline.compile.model import ObjectSpec, Plan, Term, TriplesMapPlan
from pipeline.sources.load import SourceData

__all__ = ["term_references", "source_coverage"]


def term_references(term: Term | None) -> list[str]:
    """References a term map reads: template variables, references, function-call inputs."""
    if term is None:
        return []
    if term.kind == "reference" and term.value:
        return [term.value]
    if term.kind == "template" and term.value:
        return [m.replace("\\", "") for m in re.findall(r"(?<!\\)\{((?:\\.|[^{}])+)\}", term.value)]
    if term.kind == "call" and term.call is not None:
        return [r for a in term.call.args if isinstance(a, Term) for r in term_references(a)]
    return []


def _object_refs(obj: ObjectSpec) -> list[str]:
    if obj.parent:
        return [c for c, _ in obj.joins]
    lang = [obj.term.language_ref] if obj.term is not None and obj.term.language_ref else []
    return term_references(obj.term) + lang  # a language map reads its column too


def _absolute(src: SourceData, iterator: str | None, ref: str) -> str:
    if src.source.format != "xml" or ref.startswith("/") or not iterator:
        return ref
    steps = iterator.rstrip("/").split("/")
    for step in ref.split("/"):  # '.' and '..' of a TriplesMap iterating at an element (compile.elements)
        if step == "..":
            steps = steps[:-1]
        elif step != ".":
            steps.append(step)
    return "/".join(steps)


def _count_with_values(src: SourceData, refs: list[str]) -> int:
    """Records holding a non-blank value for every one of ``refs`` (CSV: read on the columns)."""
    if isinstance(src.records, ColumnRecords):
        cols = [src.records.column(r) for r in refs]
        if any(c is None for c in cols):
            return 0 if refs else len(src.records)
        return sum(1 for cells in zip(*cols) if all(c.strip() for c in cells)) if cols else len(src.records)
    return sum(1 for rec in src.records if all(any(v.strip() for v in rec.get(r, [])) for r in refs))


def _records_with_subject(src: SourceData, tms: list[TriplesMapPlan]) -> int:
    best = 0
    for tm in tms:
        if tm.owner:  # iterates at elements inside another TriplesMap's records: its subjects are the owner's
            continue
        # an occurrence's position (<part>.#) is no value of the record: the part's members are
        refs = [r for r in term_references(tm.subject) if not is_position(src, r, tm.iterator)]
        if src.source.format == "xml" and src._tree is not None and tm.iterator:
            try:
                elements = src._tree.xpath(tm.iterator, namespaces=src.namespaces)
                n = sum(1 for e in elements if all(_has_value(e.xpath(r, namespaces=src.namespaces)) for r in refs))
            except etree.XPathError:
                continue
        else:
            n = _count_with_values(src, refs)
        best = max(best, n)
    return best


def _has_value(hits: Any) -> bool:
    if not isinstance(hits, list):
        return bool(str(hits).strip())
    return any((h.text if isinstance(h, etree._Element) else str(h)).strip() for h in hits
               if h is not None and (not isinstance(h, etree._Element) or h.text))


def source_coverage(plan: Plan, sources: list[SourceData]) -> dict[str, dict[str, Any]]:
    """Per source file name: columns and records that reach the KG.

    Returns:
        ``{file name: {"columns": n with a value, "columns_mapped": n read by a TriplesMap,
        "unmapped_columns": [names], "records": n, "records_with_subject": n,
        "triples_maps": n}}``; a source no TriplesMap reads has ``triples_maps`` 0. A source whose records
        the table reads through selections by kind (``file.json[?(@.type=="x")]``) counts what they read:
        their columns (and the member their filters compare) are its columns mapped, their records with a
        subject its own, their TriplesMaps its own, and ``"selections"`` says how many there are; read through
        selections alone, its ``records`` are the selections' records and ``"records_in_file"`` all of them.
    """
    out: dict[str, dict[str, Any]] = {}
    listed = {id(src) for src in sources}
    for src in sources:
        tms = [tm for tm in plan.triples_maps if tm.source is src]
        # a selection of this file's records by kind (pipeline.sources.selection): its own SourceData, the same
        # file and format; its records are a part of this source's, its references some of this source's
        selections: dict[int, tuple[SourceData, list[TriplesMapPlan]]] = {}
        for tm in plan.triples_maps:
            if id(tm.source) not in listed and tm.source.path == src.path \
                    and tm.source.source.format == src.source.format:
                selections.setdefault(id(tm.source), (tm.source, []))[1].append(tm)
        used: set[str] = set()
        for tm in tms + [tm for _, part in selections.values() for tm in part]:
            refs = term_references(tm.subject) + [r for pom in tm.poms for o in pom.objects for r in _object_refs(o)]
            used |= {_absolute(src, tm.iterator, r) for r in refs}
        # the member a selection's filter reads decides which TriplesMaps (classes) its records get
        used |= {m.group("member") for sel, _ in selections.values()
                 if (m := SELECTION.fullmatch(sel.source.name or ""))}
        cols = [r for r in src.references if any(v.strip() for v in src.values(r))]
        unmapped = [c for c in cols if _absolute(src, src.iterator, c) not in used and c not in used]
        # selections keep disjoint records (one value of one member each), so their counts add up
        with_subject = max(_records_with_subject(src, tms),
                           sum(_records_with_subject(sel, part) for sel, part in selections.values()))
        # a file read through selections alone: its records are those the selections iterate (the table
        # chose the kinds it maps; the file's other records are no records of a logical source)
        records = sum(len(sel.records) for sel, _ in selections.values()) if selections and not tms \
            else len(src.records)
        out[src.source.name or src.source.path.name] = {  # named sources may share one file
            "columns": len(cols), "columns_mapped": len(cols) - len(unmapped), "unmapped_columns": unmapped,
            "records": records, "records_with_subject": min(with_subject, records),
            "triples_maps": len(tms) + sum(len(part) for _, part in selections.values()),
            **({"selections": len(selections)} if selections else {}),
            **({"records_in_file": len(src.records)} if selections and not tms else {})}
    return out
