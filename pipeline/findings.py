"""Findings: what a stage noticed about its input, with location and a fix candidate.

Every stage that checks something (XML repair, the table audit, the
materializer's guards) reports :class:`Finding` objects instead of raising,
so a run keeps going and the report lists everything that was wrong.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Finding", "SEVERITIES"]

#: ``error``: the item was dropped; ``warning``: kept after a repair or with a
#: known risk; ``info``: worth knowing, nothing changed.
SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One problem found in an input.

    Attributes:
        stage: the stage that found it (``audit``, ``xml-repair``, ``materialize`` ...).
        file: the file concerned.
        line: 1-based line (table row line, N-Triples line), ``None`` if unknown.
        column: table column / key concerned (``ontology_property`` ...).
        value: the offending value as written.
        expected: what would have been valid.
        candidate: the closest valid value found, if any.
        severity: one of :data:`SEVERITIES`.
        message: one-line human explanation.
    """

    stage: str
    file: str
    message: str
    line: int | None = None
    column: str | None = None
    value: str | None = None
    expected: str | None = None
    candidate: str | None = None
    severity: str = "error"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of all fields."""
        return asdict(self)

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        col = f" [{self.column}]" if self.column else ""
        cand = f" (closest valid: {self.candidate})" if self.candidate else ""
        return f"{self.severity}: {where}{col}: {self.message}{cand}"
