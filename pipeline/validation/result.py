"""The one result type every graph-layer validator and scorer returns.

A validator or scorer never raises on bad data: it returns a :class:`Result`
whose ``status`` says whether the value could be computed (``ok``), whether
the measure does not apply (``not_applicable``: no gold, nothing to score),
or whether the tool behind it failed (``failed``) or ran out of time
(``timeout``). Individual problems are :class:`pipeline.findings.Finding` objects that carry a
location (file line/column, a node IRI, a shape IRI, a CQ file ...) and no stage.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pipeline.findings import Finding

__all__ = ["Result", "STATUSES", "ratio", "f1", "prf"]

#: The values ``Result.status`` may take.
STATUSES = ("ok", "not_applicable", "not_run", "failed", "timeout")


@dataclass
class Result:
    """The outcome of one validator or scorer on one KG.

    Attributes:
        name: the measure's identifier (``SV2``, ``CS2-owlrl``, ``SA2-type-exact`` ...).
        value: the headline value: a float in [0, 1] for scores, ``True``/``False``
            for validity checks, ``None`` when not applicable or not computed.
        higher_is_better: how to read ``value`` (``True`` for scores and validity).
        status: one of ``ok``, ``not_applicable`` (the measure does not apply), ``not_run``
            (it applies but could not run on this input, e.g. the KG does not parse),
            ``failed``, ``timeout``.
        findings: diagnostics with locations.
        details: further numbers (absolute counts, per-class breakdowns,
            precision/recall next to F1 ...), JSON-ready.
        elapsed_s: wall-clock seconds spent computing it.
    """

    name: str
    value: float | bool | None
    higher_is_better: bool = True
    status: str = "ok"
    findings: list[Finding] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def applicable(self) -> bool:
        """``True`` when the value was computed (status ``ok``)."""
        return self.status == "ok"

    def count(self, severity: str) -> int:
        """Number of findings with the given severity."""
        return sum(1 for f in self.findings if f.severity == severity)

    def to_dict(self, max_findings: int | None = 200) -> dict[str, Any]:
        """The result as a JSON-ready dict; at most ``max_findings`` findings listed
        (``None``: all), with ``n_findings`` giving the full number."""
        # most severe first, then by position: the same list whatever order a checker (pySHACL's
        # result graph, set iteration) gave them in, and the cap keeps the errors
        ordered = sorted(self.findings, key=_finding_order)
        fs = ordered if max_findings is None else ordered[:max_findings]
        value = self.value
        if isinstance(value, float) and math.isnan(value):
            value = None
        return {"name": self.name, "value": value, "higher_is_better": self.higher_is_better,
                "status": self.status, "details": self.details, "elapsed_s": round(self.elapsed_s, 3),
                "n_findings": len(self.findings), "findings": [f.to_dict() for f in fs]}

    @classmethod
    def not_applicable(cls, name: str, reason: str, higher_is_better: bool = True) -> "Result":
        """A result for a measure that does not apply (no gold, no items); ``value`` is ``None``."""
        return cls(name=name, value=None, higher_is_better=higher_is_better, status="not_applicable",
                   findings=[Finding(severity="info", message=reason, code="not-applicable")])


#: Rank of a severity in the listed findings (fatal first).
_SEVERITY_RANK = {"fatal": 0, "error": 1, "warning": 2, "info": 3}


def _finding_order(f: Finding) -> tuple:
    return (_SEVERITY_RANK.get(f.severity, len(_SEVERITY_RANK)), f.line is None, f.line or 0, str(f.location or ""),
            str(f.message), str(f.term or ""))


def ratio(num: float, den: float) -> float | None:
    """``num / den``, or ``None`` when ``den`` is 0 (not applicable, never 0 or 1)."""
    return None if den == 0 else num / den


def f1(p: float | None, r: float | None) -> float | None:
    """Harmonic mean of precision and recall; ``None`` if either is ``None``; 0.0 if both are 0."""
    if p is None or r is None:
        return None
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def prf(tp: float, n_pred: int, n_gold: int) -> tuple[float | None, float | None, float | None]:
    """Precision ``tp/n_pred``, recall ``tp/n_gold`` and their F1.

    ``tp`` may be fractional (hierarchy-aware credit). When one side is empty the
    corresponding ratio is ``None`` and so is F1 - except that an empty
    prediction against a non-empty gold gives P=None, R=0.0, F1=0.0 (nothing
    found), and a non-empty prediction against an empty gold gives P=0.0,
    R=None, F1=0.0 (everything spurious).
    """
    p = ratio(tp, n_pred)
    r = ratio(tp, n_gold)
    if n_pred == 0 and n_gold == 0:
        return None, None, None
    if n_pred == 0 or n_gold == 0:
        return p if p is not None else (0.0 if n_gold == 0 else None), r if r is not None else None, 0.0
    return p, r, f1(p, r)
