"""Mapping-level report of one case and of a scenario: JSON, Markdown, console lines.

:func:`score_case` runs every mapping-level measure on one case: BLINKG task
scores of each run, raw and post-processed, macro-averaged over runs with
their spread, plus the mapping-level checks SV1, CS1, CM1 (per run) and CN4
(when generation events are given). :func:`write_case_json` and
:func:`write_scenario_markdown` write the outputs into a run folder.
"""
from __future__ import annotations

import json
import logging
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Hashable, Iterable, Mapping, Sequence

from pipeline import embeddings
from pipeline.ontology import Ontology
from pipeline.table.model import TASK_COLUMNS, MappingTable
from pipeline.findings import Finding
from pipeline.scoring.mapping.consistency import check_cs1
from pipeline.scoring.mapping.gold_columns import absent_columns_finding, absent_gold_columns, ignored_gold_columns
from pipeline.scoring.mapping.redundancy import check_cn4
from pipeline.scoring.mapping.similarity import CellSimilarity
from pipeline.scoring.mapping.tasks import MacroScore, ScoringConfig, TableScore, macro_over_runs, score_table
from pipeline.scoring.mapping.validity import check_cm1, check_sv1

__all__ = ["SETTINGS", "CaseReport", "score_case", "write_case_json", "scenario_task_scores",
           "scenario_markdown", "write_scenario_markdown", "summary_lines"]

log = logging.getLogger(__name__)

#: The two scoring settings (BLINKG section 4.2).
SETTINGS = ("raw", "post-processed")


@dataclass
class CaseReport:
    """Everything mapping-level about one case.

    Attributes:
        case / scenario: names.
        config: the :class:`ScoringConfig` used.
        runs: per setting, one :class:`TableScore` per run.
        macro: per setting, task -> :class:`MacroScore` over the runs.
        checks: per run, ``{"SV1": ..., "CS1": ..., "CM1": ..., "CN4": ...}`` result dicts
            (``CN4`` only when events were given for that run).
        check_summary: headline value of each check averaged over runs (``None`` if never computed).
        provenance: embedding model, similarity used, elapsed seconds.
        unscored_tasks: task -> why the gold gives it no value although it was meant to (a gold
            header near a task's column but not read as it), or gives it none while the scored table
            does (a column the gold's header does not have); the mean task F1 is then against a
            partial gold.
        gold_findings: the gold table's own findings about its header (:mod:`.gold_columns`).
    """

    case: str
    scenario: str
    config: ScoringConfig
    runs: dict[str, list[TableScore]] = field(default_factory=dict)
    macro: dict[str, dict[str, MacroScore]] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    check_summary: dict[str, float | None] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    unscored_tasks: dict[str, str] = field(default_factory=dict)
    gold_findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the document :func:`write_case_json` writes)."""
        return {"case": self.case, "scenario": self.scenario, "config": self.config.to_dict(),
                "macro": {s: {t: m.to_dict() for t, m in tasks.items()} for s, tasks in self.macro.items()},
                "runs": {s: [r.to_dict() for r in rs] for s, rs in self.runs.items()},
                "checks": self.checks, "check_summary": self.check_summary, "provenance": self.provenance,
                **({"unscored_tasks": self.unscored_tasks} if self.unscored_tasks else {}),
                **({"gold_findings": [f.to_dict() for f in self.gold_findings]} if self.gold_findings else {})}


_HEADLINES = {"SV1": "rate_raw", "SV1_similar": "rate_similar", "CS1": "rate_compatible", "CM1": "micro",
              "CN4": "rate"}


def score_case(predicted_runs: Sequence[MappingTable], gold: MappingTable, ontology: Ontology | None, *,
               case: str = "", scenario: str = "", config: ScoringConfig | None = None,
               available_references: Mapping[str, Iterable[str]] | None = None,
               generation_events: Sequence[Iterable[tuple[str, Iterable[Hashable]]] | None] | None = None
               ) -> CaseReport:
    """Score all runs of one case against its gold table, raw and post-processed, plus the checks.

    Args:
        predicted_runs: one predicted table per run of the same prompt (n >= 1; 0 gives empty results).
        gold: the gold mapping table.
        ontology: the case's ontology; ``None`` skips SV1/CS1 and the verbalised similarity.
        case / scenario: names for the report.
        config: threshold, embeddings and alignment method.
        available_references: source file name -> references, for SV1's data-reference criterion.
        generation_events: per run, the CN4 input ``[(event_id, statements), ...]`` (or ``None``).
    Returns:
        A :class:`CaseReport`; never raises on messy tables.
    """
    start = time.perf_counter()
    config = config or ScoringConfig()
    sim = CellSimilarity(ontology, tau=config.tau, use_embeddings=config.use_embeddings)
    report = CaseReport(case=case, scenario=scenario, config=config)
    ignored, report.gold_findings = ignored_gold_columns(gold)
    report.unscored_tasks = {c.task: f"the gold's header {c.header!r} (line {c.line}) is probably {c.probable!r} "
                             "but is no mapping-table column: its cells were not read"
                             for c in ignored if c.task}
    absent = absent_gold_columns(gold)
    unjudged = {t: max(sum(1 for r in p.rows if getattr(r, TASK_COLUMNS[t])) for p in predicted_runs)
                for t in absent} if predicted_runs else {}
    for task, n in unjudged.items():
        if n:
            report.unscored_tasks[task] = (f"the gold table has no {absent[task]!r} column: the table's {n} "
                                           "value(s) there are judged by nothing")
    missing = absent_columns_finding(gold, unjudged)
    if missing is not None:
        report.gold_findings.append(missing)
    for setting in SETTINGS:
        report.runs[setting] = [score_table(p, gold, ontology, config=config, setting=setting, similarity=sim)
                                for p in predicted_runs]
        report.macro[setting] = macro_over_runs(report.runs[setting])
    events = list(generation_events or [])
    for k, table in enumerate(predicted_runs):
        checks: dict[str, Any] = {"CM1": check_cm1(table, gold).to_dict()}
        if ontology is not None:
            checks["SV1"] = check_sv1(table, ontology, available_references=available_references,
                                      similarity=sim).to_dict()
            checks["CS1"] = check_cs1(table, ontology).to_dict()
        if k < len(events) and events[k] is not None:
            checks["CN4"] = check_cn4(events[k]).to_dict()
        report.checks.append(checks)
    for key, metric in _HEADLINES.items():
        name = key.split("_")[0]
        vals = [c[name][metric] for c in report.checks if name in c and c[name].get(metric) is not None]
        report.check_summary[key] = statistics.fmean(vals) if vals else None
    report.provenance = {"similarity": sim.method, "embedding_model": embeddings.model_info(),
                         "runs": len(predicted_runs), "gold": gold.source,
                         "elapsed_seconds": round(time.perf_counter() - start, 3)}
    log.info("case %s: scored %d run(s) in %.1f s", case or "?", len(predicted_runs),
             report.provenance["elapsed_seconds"])
    return report


def write_case_json(report: CaseReport, folder: str | Path, name: str | None = None) -> Path:
    """Write ``report.to_dict()`` as ``<folder>/<name or case>.mapping-scores.json``; returns the path.

    Raises:
        OSError: the folder cannot be created or written.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name or report.case or 'case'}.mapping-scores.json"
    path.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.fmean(vals) if vals else None


def scenario_task_scores(reports: Sequence[CaseReport], setting: str = "post-processed",
                         metric: str = "f1") -> dict[str, float | None]:
    """Scenario value of each task: the mean over cases of the case's macro value over runs.

    Args:
        reports: one :class:`CaseReport` per case.
        setting: ``"raw"`` or ``"post-processed"``.
        metric: ``"precision"``, ``"recall"`` or ``"f1"``.
    Returns:
        task name -> mean over the cases where the task is applicable (``None`` where it is in none).
    """
    return {task: _mean([getattr(r.macro.get(setting, {}).get(task), metric, None) for r in reports])
            for task in TASK_COLUMNS}


def scenario_markdown(reports: Sequence[CaseReport], scenario: str = "") -> str:
    """Markdown: tasks x P/R/F1 (raw and post-processed) averaged over the cases, then F1 per case.

    The scenario value of a task is the mean over cases where it is applicable (``n/a`` if none).
    """
    name = scenario or (reports[0].scenario if reports else "")
    lines = [f"# Mapping-level scores: {name}", "",
             f"Cases: {', '.join(r.case for r in reports) or 'none'}. Macro over runs, then mean over cases "
             "where the task is applicable.", "",
             "| Task | P raw | R raw | F1 raw | P post | R post | F1 post |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    values = {(setting, metric): scenario_task_scores(reports, setting, metric)
              for setting in SETTINGS for metric in ("precision", "recall", "f1")}
    for task in TASK_COLUMNS:
        cells = [_fmt(values[setting, metric][task]) for setting in SETTINGS
                 for metric in ("precision", "recall", "f1")]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    lines += ["", "F1 per case (raw / post-processed):", "",
              "| Task | " + " | ".join(r.case for r in reports) + " |",
              "|---|" + "---:|" * len(reports)]
    for task in TASK_COLUMNS:
        cells = [f"{_fmt(getattr(r.macro.get('raw', {}).get(task), 'f1', None))} / "
                 f"{_fmt(getattr(r.macro.get('post-processed', {}).get(task), 'f1', None))}" for r in reports]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    lines += ["", "| Check | " + " | ".join(r.case for r in reports) + " |", "|---|" + "---:|" * len(reports)]
    for key in _HEADLINES:
        lines.append(f"| {key} | " + " | ".join(_fmt(r.check_summary.get(key)) for r in reports) + " |")
    return "\n".join(lines) + "\n"


def write_scenario_markdown(reports: Sequence[CaseReport], folder: str | Path, scenario: str = "") -> Path:
    """Write :func:`scenario_markdown` as ``<folder>/<scenario>.mapping-scores.md``; returns the path.

    Raises:
        OSError: the folder cannot be created or written.
    """
    name = scenario or (reports[0].scenario if reports else "scenario")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name or 'scenario'}.mapping-scores.md"
    path.write_text(scenario_markdown(reports, name), encoding="utf-8")
    return path


def summary_lines(report: CaseReport) -> list[str]:
    """Short console summary of one case: F1 raw/post per applicable task, then the checks."""
    out = [f"{report.scenario}/{report.case}: mapping-level (tau {report.config.tau}, "
           f"{len(report.runs.get('raw', []))} run(s))"]
    for task in TASK_COLUMNS:
        raw = report.macro.get("raw", {}).get(task)
        post = report.macro.get("post-processed", {}).get(task)
        if raw is None or raw.f1 is None:
            continue
        out.append(f"  {task:<22} F1 {_fmt(raw.f1)} raw, {_fmt(post.f1 if post else None)} post-processed")
    checks = ", ".join(f"{k} {_fmt(v)}" for k, v in report.check_summary.items() if v is not None)
    if checks:
        out.append(f"  checks: {checks}")
    return out
