"""Validate-and-repair for any mapper's table, on top of :func:`pipeline.compile.audit.audit_table`.

For every error the audit reports, try a near-miss repair of that cell:

* ontology property: the closest property (normalised Levenshtein ratio on
  local names, :meth:`Ontology.closest`) among those whose domain fits the
  row's class and whose kind fits the row (object property when a related
  class is given, else datatype property);
* entity / related class: the closest class, preferring classes in the
  property's domain / range;
* data reference and subject-template variables: the closest reference of
  the row's source (rapidfuzz ``ratio``, case-insensitive);
* datatype: the audit's candidate (the nearest XSD or RDF datatype by spelling, else the property's XSD range);
* a missing entity class: the property's ``rdfs:domain`` when it is one class (RDFS 1.1, 3.2: every
  subject of the property is an instance of its domain);
* a missing subject template: the one template the table's other rows give that entity class, when
  every variable of it is a reference of the row's source (the table's own convention, checked on the data).

A repair is accepted when the similarity reaches :data:`MIN_SIMILARITY`
(0.75 for terms, 0.7 for references) and it does not create an error of its
own: a repaired data reference (or a repaired property, through its XSD range)
must yield values that are valid lexical forms of the row's datatype
(:func:`pipeline.validation.terms.check_literal` on up to :data:`VALUE_SAMPLE`
values; a row with a transformation function is exempt, its function makes
the values). A date path "repaired" to a code path that would give
``"2"^^xsd:date`` is rejected and reported (:attr:`RepairResult.rejected`).
The table is audited again; rows that still have errors are dropped with the reasons (each cell,
its value, why and the closest valid value). Both the raw and the repaired table are kept (BLINKG's
raw versus post-processed results); :func:`repair_findings` turns the outcome into ``repair``
findings citing the raw table as written (``table.raw.md``).
"""
from __future__ import annotations

import copy
import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from rapidfuzz import fuzz, process, utils
from rdflib.namespace import XSD

from pipeline.compile.audit import AuditResult, audit_table
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow, MappingTable
from pipeline.table.template import TemplateError, parse_template
from pipeline.validation.terms import check_literal

__all__ = ["Repair", "RepairResult", "repair_table", "repair_findings", "MIN_SIMILARITY"]

log = logging.getLogger(__name__)

#: Least similarity in [0, 1] for a repair: ontology terms, data references.
MIN_SIMILARITY = {"term": 0.75, "reference": 0.7}
#: Values of a data reference checked against the row's datatype before a repair is accepted.
VALUE_SAMPLE = 200


@dataclass(frozen=True)
class Repair:
    """One cell changed: where, from what, to what, how similar and why."""

    line: int
    column: str
    old: str | None
    new: str
    similarity: float
    reason: str


@dataclass
class RepairResult:
    """Outcome of :func:`repair_table`.

    Attributes:
        table: repaired table holding only rows without errors.
        raw: deep copy of the input table.
        repairs: every accepted repair in order.
        dropped: ``(row, reasons)`` for rows that could not be repaired.
        rejected: near-miss repairs refused because the new cell does not fit the row's
            datatype and data (``{"line", "column", "value", "reason"}``; ``value`` is the refused cell).
        audit: the final audit of the repaired rows.
        errors: per dropped row (by ``id``), its error findings (cell, value, why, closest valid).
        positions: line of each row of the audited table -> its 1-based position in the raw table.
    """

    table: MappingTable
    raw: MappingTable
    repairs: list[Repair] = field(default_factory=list)
    dropped: list[tuple[MappingRow, list[str]]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    audit: AuditResult | None = None
    errors: dict[int, list[Finding]] = field(default_factory=dict)
    positions: dict[int, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """JSON-ready: counts, the repairs, the rejected repairs and the dropped rows with reasons;
        each dropped row with ``row`` (its position in the raw table), the cells as the repair left
        them and ``errors`` (``{"column", "value", "message", "expected", "candidate"}`` each); every
        repair, rejected repair and dropped row with ``row``, its 1-based position in the raw table."""
        return {"rows_raw": len(self.raw), "rows_kept": len(self.table),
                "repairs": [{**asdict(r), "row": self.positions.get(r.line, 0)} for r in self.repairs],
                "rejected": [{**r, "row": self.positions.get(r["line"], 0)} for r in self.rejected],
                "dropped": [{"line": r.line, "row": self.positions.get(r.line, 0), "property": r.ontology_property,
                             "data_reference": r.data_reference, "reasons": why,
                             "errors": [{"column": f.column, "value": f.value, "message": f.message,
                                         "expected": f.expected, "candidate": f.candidate}
                                        for f in self.errors.get(id(r), [])]}
                            for r, why in self.dropped]}


#: Lines before the first row of a Markdown table as written (:func:`pipeline.table.write_table`):
#: the header and the separator.
_MD_HEADER_LINES = 2


def repair_findings(summary: dict[str, Any], file: str) -> list[Finding]:
    """The ``repair`` findings of a :meth:`RepairResult.summary`, citing the raw table written as Markdown.

    Args:
        summary: :meth:`RepairResult.summary` (from a mapper's provenance).
        file: the raw table as written (``table.raw.md``): a row's line is its position + 2.
    Returns:
        One ``info`` per repair made, one ``warning`` per repair refused (the data do not fit it) and
        one ``error`` per row dropped (left out of the table: its cells, values, why and the closest
        valid values), in row order.
    """
    def line(entry: dict[str, Any]) -> int | None:
        return entry["row"] + _MD_HEADER_LINES if entry.get("row") else entry.get("line")

    out: list[tuple[int, Finding]] = []
    for r in summary.get("repairs", []):
        out.append((r.get("row") or 0, Finding(
            "repair", file, (f"{r['column']} {r['old']!r} repaired to {r['new']!r} (similarity {r['similarity']:.2f})"
                             if r["old"] else f"empty {r['column']} set to {r['new']!r}") + f": {r['reason']}", line=line(r), column=r["column"], value=r["old"], severity="info")))
    for r in summary.get("rejected", []):
        out.append((r.get("row") or 0, Finding("repair", file, r["reason"], line=line(r), column=r.get("column"),
                                               value=r.get("value"), severity="warning")))
    for d in summary.get("dropped", []):
        errors = d.get("errors") or [{"column": None, "value": None, "message": m, "expected": None, "candidate": None}
                                     for m in d.get("reasons", [])]
        said = "; ".join(f"[{e['column']}] {e['message']}" + (f" (closest valid: {e['candidate']})" if e["candidate"]
                                                               else "") for e in errors)
        what = " -> ".join(repr(v) for v in (d.get("data_reference"), d.get("property")) if v)
        first = errors[0] if errors else {}
        out.append((d.get("row") or 0, Finding(
            "repair", file, f"row{f' {what}' if what else ''} dropped: validate-and-repair could not repair it: {said}",
            line=line(d), column=first.get("column"), value=first.get("value"), expected=first.get("expected"),
            severity="error")))  # each cell's closest valid value is in the message
    return [f for _, f in sorted(out, key=lambda x: x[0])]


def _local(text: str) -> str:
    return re.split(r"[#/:]", text.strip("<>").rstrip("/#"))[-1]


def _fix_property(row: MappingRow, ont: Ontology) -> tuple[str, float] | None:
    cls = ont.expand(row.entity_class or "")
    wants_object = bool(row.related_entity_class)
    pool = [p for p in ont.properties
            if (p in ont.object_properties) == wants_object or p not in ont.object_properties | ont.datatype_properties]
    if cls is not None and cls in ont.classes:
        sup = ont.superclasses(cls)
        fitting = [p for p in pool if not ont.domains(p) or ont.domains(p) & sup]
        pool = fitting or pool
    iri, score = ont.closest(row.ontology_property or "", pool, MIN_SIMILARITY["term"])
    return (ont.compact(iri), score) if iri is not None else None


def _fix_class(row: MappingRow, column: str, ont: Ontology) -> tuple | None:
    value = getattr(row, column) or ""
    prop = ont.expand(row.ontology_property or "")
    if not value.strip():  # no class given: the property's domain names it, when it is one class
        domains = [c for c in (ont.domains(prop) if prop is not None and column == "entity_class" else ())
                   if c in ont.classes]
        return (ont.compact(domains[0]), 1.0, f"the domain of {ont.compact(prop)}") if len(domains) == 1 else None
    preferred: set = set()
    if prop is not None:
        preferred = ont.domains(prop) if column == "entity_class" else ont.ranges(prop)
    for pool in ([c for c in preferred if c in ont.classes], list(ont.classes)):
        iri, score = ont.closest(value, pool, MIN_SIMILARITY["term"])
        if iri is not None:
            return ont.compact(iri), score
    return None


def _fix_reference(value: str, src: SourceData | None) -> tuple[str, float] | None:
    if src is None or not src.references:
        return None
    best = process.extractOne(value, src.references, scorer=fuzz.ratio, processor=utils.default_process)
    if best and best[1] / 100 >= MIN_SIMILARITY["reference"]:
        return best[0], best[1] / 100
    return None


def _fix_template(row: MappingRow, table: MappingTable, src: SourceData | None) -> tuple | None:
    """A missing subject template: the single template the table's other rows give the row's entity
    class, when each of its variables is a reference of the row's source."""
    if src is None or not row.entity_class:
        return None
    given = {r.subject_template for r in table.rows
             if r is not row and r.subject_template and r.entity_class == row.entity_class}
    if len(given) != 1:
        return None
    template = next(iter(given))
    try:
        refs = [seg.value for seg in parse_template(template) if seg.kind == "ref"]
    except TemplateError:
        return None
    return ((template, 1.0, f"the template of the table's other {row.entity_class} rows")
            if refs and all(src.has_reference(r) for r in refs) else None)


def _reference_values(src: SourceData, reference: str) -> list[str]:
    """The first values of ``reference`` over every record (:meth:`SourceData.reference_values` for a path
    that is no reference of the records)."""
    values = src.values(reference) if reference in src.references else src.reference_values(reference)
    return values[:VALUE_SAMPLE]


def _misfit(row: MappingRow, ont: Ontology, src: SourceData | None) -> str | None:
    """Why the row's data would be ill-typed after a repair, or ``None`` when it fits (or cannot be told).

    The datatype is the row's own, else the XSD range of its property. Rows with a
    transformation function are not checked: the function makes the values.
    """
    if src is None or row.function_name or not row.data_reference:
        return None
    dtype = ont.expand(row.datatype) if row.datatype else None
    if dtype is None:
        prop = ont.expand(row.ontology_property or "")
        ranges = [r for r in (ont.datatype_ranges(prop) if prop is not None else ()) if str(r).startswith(str(XSD))]
        dtype = ranges[0] if len(ranges) == 1 else None
    if dtype is None or not str(dtype).startswith(str(XSD)):
        return None
    values = [v for v in _reference_values(src, row.data_reference) if v.strip()]
    bad = [v for v in values if any(sev == "error" for sev, _, _ in check_literal(v.strip(), str(dtype)))]
    if not bad:
        return None
    return (f"{len(bad)} of {len(values)} value(s) of {row.data_reference!r} are not valid {ont.compact(dtype)} "
            f"(e.g. {bad[0]!r})")


def _repair_row(row: MappingRow, findings, ont: Ontology, src: SourceData | None,
                rejected: list[dict[str, Any]], table: MappingTable) -> list[Repair]:
    done: list[Repair] = []
    for f in findings:
        if f.severity != "error" or f.column is None:
            continue
        old = getattr(row, f.column, None)
        fix: tuple | None = None  # (new value, similarity in [0, 1][, why, when not the finding's message])
        if f.column == "ontology_property":
            fix = _fix_property(row, ont)
        elif f.column in ("entity_class", "related_entity_class"):
            fix = _fix_class(row, f.column, ont)
        elif f.column == "datatype" and f.candidate:
            fix = (f.candidate, 1.0)
        elif f.column == "data_reference" and f.value:
            bad = re.search(r"data reference '([^']+)'", f.message)
            ref = bad.group(1) if bad else old or ""
            got = _fix_reference(ref, src)
            if got:
                fix = ((old or "").replace(ref, got[0]), got[1])
        elif f.column == "subject_template" and not old:
            fix = _fix_template(row, table, src)
        elif f.column == "subject_template" and old:
            bad = re.search(r"template variable '([^']+)'", f.message)
            got = _fix_reference(bad.group(1), src) if bad else None
            if got:
                fix = (old.replace("{" + bad.group(1) + "}", "{" + got[0] + "}"), got[1])
        if fix is None or fix[0] == old:
            continue
        setattr(row, f.column, fix[0])
        if f.column in ("data_reference", "ontology_property", "datatype"):
            why = _misfit(row, ont, src)
            if why is not None:  # the repair would turn a missing value into a wrong one
                setattr(row, f.column, old)
                reason = f"repair of {f.column} {old!r} -> {fix[0]!r} rejected: {why}"
                log.info("line %d: %s", row.line, reason)
                rejected.append({"line": row.line, "column": f.column, "value": fix[0], "reason": reason})
                continue
        rep = Repair(row.line, f.column, old, fix[0], round(fix[1], 3),
                     f"{f.message}; {fix[2]}" if len(fix) > 2 else f.message)
        log.info("repair line %d [%s]: %r -> %r (similarity %.2f)", row.line, f.column, old, fix[0], fix[1])
        row.evidence = list(row.evidence) + [f"repaired {f.column}: {old!r} -> {fix[0]!r} ({fix[1]:.2f})"]
        done.append(rep)
    return done


def repair_table(table: MappingTable, ontology: Ontology, case: Case, sources: list[SourceData]) -> RepairResult:
    """Audit ``table``, repair near misses, drop what cannot be repaired.

    Args:
        table: a mapper's table (not modified).
        ontology: ontology plus SKOS of the case.
        case: the case. sources: its loaded sources (see :func:`pipeline.sources.load.load_source`).
    Returns:
        :class:`RepairResult` with the repaired table, the raw copy, the repairs and the dropped rows.
    """
    raw = copy.deepcopy(table)
    work = copy.deepcopy(table)
    if len({r.line for r in work.rows}) != len(work.rows):  # merged parts: make lines unique
        for i, row in enumerate(work.rows, 1):
            row.line = i
    first = audit_table(work, ontology, case, sources)
    by_line: dict[int, list] = {}
    for f in first.findings:
        by_line.setdefault(f.line or 0, []).append(f)
    repairs: list[Repair] = []
    rejected: list[dict[str, Any]] = []
    positions = {row.line: i for i, row in enumerate(work.rows, 1)}  # lines are unique by now
    for row in work.rows:
        errors = [f for f in by_line.get(row.line, []) if f.severity == "error"]
        if errors:
            repairs += _repair_row(row, errors, ontology, first.row_sources.get(id(row)), rejected, work)
    final = audit_table(work, ontology, case, sources)
    reasons: dict[int, list[str]] = {}
    errors_at: dict[int, list[Finding]] = {}
    for f in final.findings:
        if f.severity == "error":
            reasons.setdefault(f.line or 0, []).append(str(f))
            errors_at.setdefault(f.line or 0, []).append(f)
    dropped = [(r, reasons.get(r.line, ["audit error"])) for r in final.dropped]
    for r, why in dropped:
        log.info("dropped line %d (%s): %s", r.line, r.ontology_property, "; ".join(why))
    out = MappingTable(rows=list(final.kept), source=f"{table.source} (repaired)", notes=list(table.notes))
    log.info("repair: %d rows in, %d repairs, %d dropped, %d kept", len(raw), len(repairs), len(dropped), len(out))
    return RepairResult(out, raw, repairs, dropped, rejected, final,
                        {id(r): errors_at.get(r.line, []) for r, _ in dropped}, positions)
