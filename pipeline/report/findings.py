"""The findings a report shows: errors first, one line for many findings of one kind, the gold's apart.

84 "column X of input.xml is not mapped" warnings are one kind of finding with 84 values; a
reader needs the kind once, its count and the values, not 84 lines that push the errors out of
sight. Findings are of one kind when they share severity, stage, file, table column and what
was expected (``expected``); without ``expected``, when their messages are equal.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

__all__ = ["SEVERITY_ORDER", "group_findings", "split_findings"]

#: Severities in the order a report lists them.
SEVERITY_ORDER = {"fatal": 0, "error": 1, "warning": 2, "info": 3}


def split_findings(findings: Iterable[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(own, gold)``: the case's own findings and those about its gold table or gold graph (stage ``gold``)."""
    own, gold = [], []
    for f in findings:
        (gold if f.get("stage") == "gold" else own).append(f)
    return own, gold


def _kind(f: Mapping[str, Any]) -> tuple:
    base = (f.get("severity"), f.get("stage"), Path(str(f.get("file") or "")).name, str(f.get("column") or ""))
    return base + ((f.get("expected"),) if f.get("expected") else (f.get("message"),))


def group_findings(findings: Iterable[Mapping[str, Any]], top: int | None = None,
                   values: int = 12) -> list[dict[str, Any]]:
    """Findings grouped by kind (module docstring): rows marked for review first, then errors, then the
    largest groups.

    Args:
        findings: ``Finding.to_dict()`` dicts. top: groups kept (``None``: all).
        values: values listed per group.
    Returns:
        ``[{"severity", "stage", "file", "line", "column", "message", "candidate", "count", "listed",
        "more_listed"}]``: ``message``, ``line`` and ``candidate`` are the first finding's; ``listed``
        the distinct values (``value``, else ``location``) of the group, at most ``values`` of them.
    """
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for f in findings:
        groups.setdefault(_kind(f), []).append(f)
    out = []
    for members in groups.values():
        first = members[0]
        vals = list(dict.fromkeys(str(v) for v in (m.get("value") or m.get("location") for m in members) if v))
        out.append({"severity": first.get("severity"), "stage": first.get("stage") or "", "file": first.get("file") or "",
                    "line": first.get("line") if len(members) == 1 else None, "column": first.get("column"),
                    "message": first.get("message"), "candidate": first.get("candidate") if len(members) == 1 else None,
                    "count": len(members), "listed": vals[:values] if len(members) > 1 else [],
                    "more_listed": max(0, len(vals) - values) if len(members) > 1 else 0})
    # rows marked for review first (a person's decision is asked), then by severity, largest first
    out.sort(key=lambda g: (g["column"] != "review", SEVERITY_ORDER.get(g["severity"], 9), -g["count"]))
    return out if top is None else out[:top]
