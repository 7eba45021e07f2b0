"""Findings: what a stage or a check noticed, with its location and, for an input, a fix candidate.

Every stage that checks its input (XML repair, the table audit, the compiler, the
materializer's guards) reports :class:`Finding` objects instead of raising, so a run keeps
going and the report lists everything that was wrong. The graph-layer validators and scorers
(:mod:`pipeline.validation`, :mod:`pipeline.scoring`) list the same objects in their
``Result``, located in the KG (a line and column of the N-Triples file, a node IRI, a shape).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Finding", "SEVERITIES", "INPUT_KEYS", "CHECK_KEYS", "UNREAD_RECORDS"]

#: ``fatal``: the file cannot be read as what it should be (a line that is no N-Triples statement);
#: ``error``: the item was dropped, or the KG breaks the rule checked; ``warning``: kept after a
#: repair or with a known risk; ``info``: worth knowing, nothing changed.
SEVERITIES = ("fatal", "error", "warning", "info")

#: Keys of :meth:`Finding.to_dict` for a finding about an input (one with a ``stage``):
#: ``audit.json``, the mapping scores.
INPUT_KEYS = ("stage", "file", "message", "line", "column", "value", "expected", "candidate", "severity")
#: Keys of :meth:`Finding.to_dict` for a finding of a KG check or a graph-level scorer (no ``stage``):
#: ``graph_validation.json``, ``graph_scores.json``.
CHECK_KEYS = ("severity", "message", "location", "line", "column", "term", "code")

#: ``code`` of a loader's finding on arrays of records a JSON source does not read (the loader writes
#: it, :mod:`pipeline.validation.loss` counts it for the KG's verdict)
UNREAD_RECORDS = "unread-records"


@dataclass(frozen=True)
class Finding:
    """One problem found in an input or in a KG.

    A stage's finding names its ``stage`` and ``file`` and, for a table cell, the value, what
    would have been valid and the closest valid value. A KG check's finding (SV2, CS2, SHACL, a
    graph scorer) has no stage; it says where in the KG (``location``, ``line``, ``column``),
    the offending ``term`` and a ``code``.

    Attributes:
        stage: the stage that found it (``audit``, ``xml-repair``, ``materialize`` ...); ``""``
            for a KG check's finding.
        file: the file concerned.
        message: one-line human explanation.
        line: 1-based line (table row line, N-Triples line), ``None`` if unknown.
        column: the table column / key concerned (``ontology_property`` ...), or for a KG file
            the 1-based column in characters of the offending term in its line.
        value: the offending value as written.
        expected: what would have been valid.
        candidate: the closest valid value found, if any.
        severity: one of :data:`SEVERITIES` (SHACL results map ``sh:Violation`` -> ``error``,
            ``sh:Warning`` -> ``warning``, ``sh:Info`` -> ``info``).
        location: where in a KG, as text (``"line 3, column 7"``, a node IRI, a shape IRI, a
            CQ file); ``""`` when not bound to a place.
        term: the offending RDF term or value as written (N-Triples form).
        code: a short stable identifier of the kind of finding (``bad-iri``,
            ``ill-typed-literal``, ``disjoint-classes`` ...).
    """

    stage: str = ""
    file: str = ""
    message: str = ""
    line: int | None = None
    column: str | int | None = None
    value: str | None = None
    expected: str | None = None
    candidate: str | None = None
    severity: str = "error"
    location: str = ""
    term: str | None = None
    code: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, ``None`` fields kept: the :data:`INPUT_KEYS` of a stage's finding (and its
        ``code`` when it has one: a reader such as the run's loss count selects by it), the
        :data:`CHECK_KEYS` of a KG check's (no ``stage``)."""
        out = {key: getattr(self, key) for key in (INPUT_KEYS if self.stage else CHECK_KEYS)}
        if self.stage and self.code:
            out["code"] = self.code
        return out

    def __str__(self) -> str:
        if self.stage:
            where = self.file + (f":{self.line}" if self.line else "") + (f" [{self.column}]" if self.column else "")
        else:
            where = self.location
        cand = f" (closest valid: {self.candidate})" if self.candidate else ""
        return f"{self.severity}: {where}: {self.message}{cand}"
