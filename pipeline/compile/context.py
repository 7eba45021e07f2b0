"""What the passes of the plan share: the audited rows, the TriplesMaps made so far, the findings, and
each source's iterator with the references written relative to it.

The passes (:mod:`.subjects`, :mod:`.objects`, :mod:`.relations`, driven by :mod:`.plan`) are
functions of one :class:`PlanContext`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.compile.audit import AuditResult, data_references
from pipeline.compile.model import Plan, TriplesMapPlan, ViewPlan
from pipeline.compile.parts import bound
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow
from pipeline.table.template import Segment, expand_template_prefix, parse_template

__all__ = ["PlanContext"]


@dataclass
class PlanContext:
    """The state of planning one audited table.

    Attributes:
        rows: the rows to plan (the audit's ``kept`` rows, in table order).
        audit: the audit of the table (``row_sources``: the source each row reads).
        onto: the case's ontology and SKOS (prefixes, class and property IRIs).
        case: the case (base IRI).
        file: the table's path, as findings name it.
        sources: every loaded source (a join may name a file no row reads).
        plan: the plan being built (its findings and compiled/dropped lines).
        tms: TriplesMaps by ``(id(source), subject template)``, in the order they were made.
        twins: the join parents made for self-joins, by the id of the TriplesMap they copy
            (:func:`pipeline.compile.relations.join_twin`).
        elements: the TriplesMaps reading a repeating part of another one's records, by
            ``(owner id, part)`` (:mod:`pipeline.compile.nesting`).
        views: the logical views iterating a repeating part, by ``(id(source), iterator, part)``.
    """

    rows: list[MappingRow]
    audit: AuditResult
    onto: Ontology
    case: Case
    file: str
    sources: list[SourceData] = field(default_factory=list)
    plan: Plan = field(default_factory=Plan, init=False)
    tms: dict[tuple[int, str], TriplesMapPlan] = field(default_factory=dict, init=False)
    twins: dict[str, TriplesMapPlan] = field(default_factory=dict, init=False)
    elements: dict[tuple[str, str], TriplesMapPlan] = field(default_factory=dict, init=False)
    views: dict[tuple[int, str | None, str], ViewPlan] = field(default_factory=dict, init=False)
    _iterators: dict[int, str | None] = field(default_factory=dict, init=False, repr=False)

    def find(self, row: MappingRow, column: str, message: str, expected: str | None = None,
             candidate: str | None = None, severity: str = "error") -> None:
        """Add a ``compile`` finding on ``row``'s cell ``column`` (its value quoted)."""
        self.plan.findings.append(Finding("compile", self.file, message, row.line, column,
                                          getattr(row, column, None), expected, candidate, severity))

    def source_of(self, row: MappingRow) -> SourceData:
        """The source ``row`` reads (the audit resolved it)."""
        return self.audit.row_sources[id(row)]

    def segments(self, template: str | None) -> list[Segment]:
        """The segments of a subject template, its prefixed names expanded with the ontology's prefixes."""
        return parse_template(expand_template_prefix(template or "", self.onto.prefixes))

    def iterator(self, src: SourceData) -> str | None:
        """The iterator of ``src``'s logical source, decided once per source."""
        key = id(src)
        if key not in self._iterators:
            self._iterators[key] = self._choose_iterator(src)
        return self._iterators[key]

    def _choose_iterator(self, src: SourceData) -> str | None:
        """The source's own iterator, except for an XML source without a stated one: the deepest element
        every absolute path of the table's rows on it shares (never the leaf a reference reads)."""
        if src.source.format == "csv":
            return None
        if src.source.iterator or src.source.format != "xml":
            return src.iterator
        paths = []
        for row in self.rows:
            if self.audit.row_sources.get(id(row)) is not src:
                continue
            refs = data_references(row)
            refs += [r for s in self.segments(row.subject_template) for r in s.references()]
            paths += [src.bind(r) for r in refs if r.startswith("/")]
        if not paths:
            return src.iterator
        split = [re.split(r"/(?![^\[]*\])", p.strip("/")) for p in paths]
        common = []
        for parts in zip(*split):
            if len(set(parts)) != 1 or "[" in parts[0]:
                break
            common.append(parts[0])
        # the iterator selects elements: never the leaf a reference reads
        if len(common) == min(len(s) for s in split):
            common = common[:-1]
        return "/" + "/".join(common) if common else src.iterator

    def relative(self, ref: str, src: SourceData, row: MappingRow, column: str) -> str | None:
        """``ref`` as the logical source reads it: an absolute XPath or JSONPath made relative to the
        iterator; ``None`` (with a finding on ``column``) for an XPath outside the iterator."""
        it = self.iterator(src)
        ref = bound(src, ref)  # unprefixed names of a default-namespace document: bound prefix (sources.load)
        if src.source.format == "xml" and ref.startswith("/"):
            if it and ref.startswith(it.rstrip("/") + "/"):
                return ref[len(it.rstrip("/")) + 1:]
            self.find(row, column, f"XPath {ref!r} is outside the iterator {it!r} of {src.source.path.name}",
                      f"a path below {it}")
            return None
        if src.source.format == "json" and ref.startswith("$") and ref not in src.references:
            # a key of the records that starts with '$' ("$price") is a member name, not a root path
            prefix = (it or "$").replace("[*]", "")
            # a path from the document root outside the iterator: drop the root step only ($.a.b -> a.b;
            # lstrip would eat every leading '$' and '.', turning $..a, a recursive descent, into a)
            return ref[len(prefix):].lstrip(".") if ref.startswith(prefix) else ref.removeprefix("$").removeprefix(".")
        return ref
