"""Mapping-layer scoring: BLINKG task metrics and the mapping-level checks.

Entry points:

* :func:`score_case` - every run of one case, raw and post-processed, plus SV1/CS1/CM1/CN4;
  :func:`write_case_json`, :func:`write_scenario_markdown`, :func:`summary_lines` for output.
* :func:`score_table` - one predicted table vs the gold table in one setting.
* :func:`check_sv1`, :func:`check_cs1`, :func:`check_cm1`, :func:`check_cn4` - the checks alone.
"""
from __future__ import annotations

from pipeline.scoring.mapping.align import ALIGNMENT_METHODS, Alignment, align_rows, alignment_scores
from pipeline.scoring.mapping.consistency import ConsistencyResult, check_cs1
from pipeline.scoring.mapping.postprocess import clean_table
from pipeline.scoring.mapping.redundancy import RedundancyResult, check_cn4
from pipeline.scoring.mapping.report import (CaseReport, scenario_markdown, scenario_task_scores, score_case, summary_lines, write_case_json,
                     write_scenario_markdown)
from pipeline.scoring.mapping.similarity import DEFAULT_TAU, CellSimilarity
from pipeline.scoring.mapping.tasks import MacroScore, ScoringConfig, TableScore, TaskScore, macro_over_runs, score_table
from pipeline.scoring.mapping.validity import CompletenessResult, ValidityResult, check_cm1, check_sv1

__all__ = [
    "DEFAULT_TAU", "CellSimilarity", "ALIGNMENT_METHODS", "Alignment", "align_rows", "alignment_scores",
    "clean_table", "ScoringConfig", "TaskScore", "TableScore", "MacroScore", "score_table", "macro_over_runs",
    "ValidityResult", "CompletenessResult", "check_sv1", "check_cm1", "ConsistencyResult", "check_cs1",
    "RedundancyResult", "check_cn4", "CaseReport", "score_case", "write_case_json", "scenario_markdown",
    "scenario_task_scores",
    "write_scenario_markdown", "summary_lines",
]
