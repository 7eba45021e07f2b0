"""The mapper's rows a knowledge engineer should check first, read from a run's ``table.json``.

Rows the mapper marked ``review`` when it marks any; otherwise, for a mapper that states its
confidence (offline, LLM), the rows it is least sure of, with the evidence it gave. A hand-made
table (``replay``) states no confidence and gives none.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["rows_to_check"]

_CELLS = ("data_reference", "source_file", "ontology_property", "entity_class", "related_entity_class")


def rows_to_check(table_json: str | Path, top: int = 5) -> dict[str, Any] | None:
    """The rows to check first.

    Args:
        table_json: a run's ``table.json``. top: rows listed when chosen by confidence.
    Returns:
        ``{"why": "marked for review" | "lowest confidence", "n_rows", "rows": [{"line", <cells>,
        "confidence", "evidence": [str]}]}`` (every marked row; else the ``top`` least confident,
        least first), or ``None`` when the file is missing or no row has a mark or a confidence.
    """
    try:
        rows = json.loads(Path(table_json).read_text(encoding="utf-8")).get("rows") or []
    except (OSError, ValueError, AttributeError):
        return None

    def show(r: dict[str, Any]) -> dict[str, Any]:
        return {"line": r.get("line"), **{k: r.get(k) for k in _CELLS}, "confidence": r.get("confidence"),
                "evidence": [str(e) for e in r.get("evidence") or []][:3], "review": r.get("review")}

    marked = [r for r in rows if r.get("review")]
    if marked:
        return {"why": "marked for review", "n_rows": len(rows), "rows": [show(r) for r in marked]}
    rated = sorted((r for r in rows if isinstance(r.get("confidence"), (int, float))),
                   key=lambda r: (r["confidence"], r.get("line") or 0))
    if not rated:
        return None
    return {"why": "lowest confidence", "n_rows": len(rows), "rows": [show(r) for r in rated[:top]]}
