"""Replay mapper: return a saved table (a gold ``expected_table.md`` or a user's file)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.errors import InputError
from pipeline.table import read_table
from pipeline.mappers.contract import MapInput, MapResult
from pipeline.mappers.registry import register

__all__ = ["ReplayMapper"]


@register("replay")
class ReplayMapper:
    """Replays a saved mapping table.

    ``map(inputs, table=path)`` reads ``path``; without ``table`` it replays the
    case's gold table. Formats: ``.md``, ``.csv``, ``.json``.
    """

    name = "replay"

    def map(self, inputs: MapInput, table: str | Path | None = None, **_: Any) -> MapResult:
        """Read the table to replay (the loaded ontology and sources are not needed).

        Raises:
            InputError: no table given and the case has no gold table, or the file is unreadable.
        """
        case = inputs.case
        path = Path(table) if table else case.gold_table
        if path is None:
            raise InputError(f"replay mapper: case {case.name!r} has no gold table; give the table to replay "
                             "with --table FILE", path=case.manifest, key="gold.table")
        t0 = time.perf_counter()
        result = read_table(path)
        return MapResult(result, {"mapper": "replay", "version": __version__, "table": str(path),
                                  "latency_s": round(time.perf_counter() - t0, 4)})
