"""Mapping-layer scoring: BLINKG task metrics and mapping-level checks (issue 4)."""
from __future__ import annotations

from .align import Alignment, align_rows, alignment_scores
from .postprocess import clean_table
from .similarity import DEFAULT_TAU, CellSimilarity
from .tasks import MacroScore, ScoringConfig, TableScore, TaskScore, macro_over_runs, score_table

__all__ = [
    "DEFAULT_TAU", "CellSimilarity", "Alignment", "align_rows", "alignment_scores", "clean_table",
    "ScoringConfig", "TaskScore", "TableScore", "MacroScore", "score_table", "macro_over_runs",
]
