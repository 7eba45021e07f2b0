"""BLINKG task scores: precision, recall and F1 per mapping-table column.

Tasks (BLINKG section 3.2) and the field each one reads are
:data:`pipeline.table.model.TASK_COLUMNS`. For one task with field ``c``,
after aligning rows (:mod:`.align`):

* **gold items** ``G``: gold rows whose cell ``c`` is non-empty;
* **predictions** ``P``: predicted rows whose cell ``c`` is non-empty, in any
  row (aligned or not); an empty predicted cell is no prediction;
* **true positive**: an aligned pair whose two cells are both non-empty and
  similar: ``sim >= tau`` (:class:`~.similarity.CellSimilarity`, BLINKG
  section 3.3; for Entity Class the best of the gold ``a/b`` alternatives);
  for Subject Generation the two templates must also reference the same
  columns/paths (:mod:`.subject`: a template is judged by what it identifies);
* ``FP = |P| - TP`` (a wrong value, a value where gold has none, a value in
  an unaligned row) and ``FN = |G| - TP`` (a wrong value, an empty cell where
  gold has one, a gold row with no partner). A wrong value in an aligned pair
  therefore counts once as FP and once as FN.
* ``precision = TP / |P|``, ``recall = TP / |G|``, ``F1 = 2PR / (P + R)``.

A task with ``|G| = 0`` is *not applicable*: precision, recall and F1 are
``None`` (never 0 or 1); its predictions are still counted in ``fp``. With
``|G| > 0`` and ``|P| = 0``, precision is 0.0 (scikit-learn's
``zero_division=0`` convention), as are recall and F1.

This counting differs from the BLINKG scripts, which count a mismatching
aligned cell as FN only and an unaligned predicted cell as FP only when it
resembles some gold cell; here every non-empty predicted cell is a
prediction and every non-empty gold cell an item, so P and R keep their
textbook meaning.

Several runs of one prompt: BLINKG reports the macro average over runs,
``P_macro = (1/n) Σ_k P_k`` (likewise R and F1; F1 is averaged, not
recomputed from the averages); :func:`macro_over_runs` adds the spread
(sample standard deviation, min, max). Runs where a task is not applicable
are left out of its average.
"""
from __future__ import annotations

import logging
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from pipeline.findings import Finding
from pipeline.ontology import Ontology
from pipeline.table.cells import split_class_alternatives
from pipeline.table.model import TASK_COLUMNS, MappingTable
from pipeline.scoring.mapping.align import Alignment, align_rows
from pipeline.scoring.mapping.postprocess import clean_table
from pipeline.scoring.mapping.similarity import DEFAULT_TAU, CellSimilarity
from pipeline.scoring.mapping.subject import references_agree

__all__ = ["TERM_TASKS", "ScoringConfig", "TaskScore", "TableScore", "MacroScore", "score_table",
           "macro_over_runs"]

log = logging.getLogger(__name__)

#: Tasks whose cells are ontology terms (similarity adds the verbalised component).
TERM_TASKS = frozenset({"Ontology Property", "Entity Class", "Related Entity Class", "Datatype"})


@dataclass(frozen=True)
class ScoringConfig:
    """Settings of mapping-level scoring (one per run).

    Attributes:
        tau: cell-correctness threshold in [0, 1] (BLINKG section 3.3; default 0.8).
        use_embeddings: use sentence embeddings when installed (else Levenshtein only).
        alignment: ``"hungarian"`` (default) or ``"greedy"`` (BLINKG's first-come rule).
    """

    tau: float = DEFAULT_TAU
    use_embeddings: bool = True
    alignment: str = "hungarian"

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.tau) <= 1.0:
            raise ValueError(f"tau must be in [0, 1], found {self.tau!r}")
        if self.alignment not in ("hungarian", "greedy"):
            raise ValueError(f"alignment must be 'hungarian' or 'greedy', found {self.alignment!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the settings."""
        return asdict(self)


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


@dataclass
class TaskScore:
    """Counts and P/R/F1 of one task on one table (formulas in the module docstring).

    Attributes:
        task: BLINKG task name (``"Entity Class"``).
        field: mapping-row field scored (``"entity_class"``).
        tp, fp, fn: counts of cells.
        n_predicted: ``|P|``, non-empty predicted cells.
        n_gold: ``|G|``, non-empty gold cells.
        precision, recall, f1: in [0, 1], or ``None`` when not applicable.
        findings: one per FP/FN cell, with the table line of the predicted or gold row.
    """

    task: str
    field: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    n_predicted: int = 0
    n_gold: int = 0
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def applicable(self) -> bool:
        """True when the gold table has at least one item for this task."""
        return self.n_gold > 0

    def finish(self) -> "TaskScore":
        """Fill ``fp``, ``fn`` and P/R/F1 from ``tp``, ``n_predicted``, ``n_gold``; returns self."""
        self.fp = self.n_predicted - self.tp
        self.fn = self.n_gold - self.tp
        if not self.applicable:
            self.precision = self.recall = self.f1 = None
            return self
        p, r = _ratio(self.tp, self.n_predicted), _ratio(self.tp, self.n_gold)
        self.precision, self.recall = p, r
        self.f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
        return self

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; P/R/F1 are ``null`` when not applicable."""
        return {"task": self.task, "field": self.field, "applicable": self.applicable, "tp": self.tp,
                "fp": self.fp, "fn": self.fn, "n_predicted": self.n_predicted, "n_gold": self.n_gold,
                "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "findings": [f.to_dict() for f in self.findings]}


@dataclass
class TableScore:
    """All task scores of one predicted table against the gold table, in one setting.

    Attributes:
        setting: ``"raw"`` or ``"post-processed"``.
        tasks: task name -> :class:`TaskScore`, in :data:`TASK_COLUMNS` order.
        alignment: the row alignment used.
        tau: threshold used.
        similarity: description of the similarity actually used.
    """

    setting: str
    tasks: dict[str, TaskScore]
    alignment: Alignment
    tau: float
    similarity: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"setting": self.setting, "tau": self.tau, "similarity": self.similarity,
                "alignment": self.alignment.to_dict(),
                "tasks": {k: v.to_dict() for k, v in self.tasks.items()}}


def _gold_alternatives(task: str, value: str | None) -> list[str | None]:
    if task == "Entity Class":
        return list(split_class_alternatives(value))
    return [value]


def score_table(predicted: MappingTable, gold: MappingTable, ontology: Ontology | None = None, *,
                config: ScoringConfig | None = None, setting: str = "raw",
                similarity: CellSimilarity | None = None) -> TableScore:
    """Score one predicted table against the gold table, task by task.

    Args:
        predicted: the mapping table to score.
        gold: the gold mapping table.
        ontology: used to verbalise terms and, in the post-processed setting, for prefixes.
        config: threshold, embeddings, alignment method (default :class:`ScoringConfig`).
        setting: ``"raw"`` (tables as parsed) or ``"post-processed"`` (both tables through
            :func:`~.postprocess.clean_table` first; BLINKG section 4.2).
        similarity: a shared :class:`CellSimilarity` (caches); built from ``config`` if ``None``.
    Returns:
        A :class:`TableScore`. Never raises on messy cells; raises ``ValueError`` only for
        an unknown ``setting``.
    """
    if setting not in ("raw", "post-processed"):
        raise ValueError(f"setting must be 'raw' or 'post-processed', found {setting!r}")
    config = config or ScoringConfig()
    sim = similarity or CellSimilarity(ontology, tau=config.tau, use_embeddings=config.use_embeddings)
    if setting == "post-processed":
        predicted, gold = clean_table(predicted, ontology), clean_table(gold, ontology)
    alignment = align_rows(predicted, gold, sim, method=config.alignment)
    tasks: dict[str, TaskScore] = {}
    for task, fld in TASK_COLUMNS.items():
        score = TaskScore(task=task, field=fld)
        score.n_predicted = sum(1 for r in predicted.rows if getattr(r, fld))
        score.n_gold = sum(1 for r in gold.rows if getattr(r, fld))
        pfile, gfile = predicted.source or "<predicted>", gold.source or "<gold>"
        both = [(i, j) for i, j in alignment.pairs
                if getattr(predicted.rows[i], fld) and getattr(gold.rows[j], fld)]
        sims = dict(zip(both, sim.best_many(
            [(getattr(predicted.rows[i], fld), _gold_alternatives(task, getattr(gold.rows[j], fld)))
             for i, j in both], terms=task in TERM_TASKS)))
        for i, j in alignment.pairs:
            pv, gv = getattr(predicted.rows[i], fld), getattr(gold.rows[j], fld)
            if not pv or not gv:
                if pv or gv:
                    score.findings.append(Finding(
                        stage="mapping-score", file=pfile, line=predicted.rows[i].line, column=fld, value=pv,
                        expected=gv, severity="info",
                        message=f"{task}: " + ("value where the gold row has none" if pv
                                               else "empty cell where the gold row has a value")))
                continue
            s = sims[(i, j)]
            agree, why = (references_agree(pv, gv) if task == "Subject Generation" and s >= sim.tau
                          else (None, ""))
            if agree is False:
                score.findings.append(Finding(
                    stage="mapping-score", file=pfile, line=predicted.rows[i].line, column=fld, value=pv,
                    expected=gv, severity="info",
                    message=f"{task}: {why} (similarity {s:.3f} >= {sim.tau}, but the subject differs)"))
            elif s >= sim.tau:
                score.tp += 1
            else:
                score.findings.append(Finding(
                    stage="mapping-score", file=pfile, line=predicted.rows[i].line,
                    column=fld, value=pv, expected=gv, severity="info",
                    message=f"{task}: predicted value differs from gold (similarity {s:.3f} < {sim.tau})"))
        for i in alignment.unmatched_predicted:
            row = predicted.rows[i]
            if getattr(row, fld):
                score.findings.append(Finding(
                    stage="mapping-score", file=pfile, line=row.line, column=fld,
                    value=getattr(row, fld), severity="info",
                    message=f"{task}: value in a predicted row aligned to no gold row"))
        for j in alignment.unmatched_gold:
            if getattr(gold.rows[j], fld):
                score.findings.append(Finding(
                    stage="mapping-score", file=gfile, line=gold.rows[j].line, column=fld,
                    expected=getattr(gold.rows[j], fld), severity="info",
                    message=f"{task}: gold row has no predicted partner"))
        tasks[task] = score.finish()
    log.info("scored %d predicted vs %d gold rows (%s): %d aligned", len(predicted), len(gold), setting,
             len(alignment.pairs))
    return TableScore(setting=setting, tasks=tasks, alignment=alignment, tau=sim.tau, similarity=sim.method)


@dataclass
class MacroScore:
    """Macro P/R/F1 of one task over ``n`` runs, with spread.

    Attributes:
        task: task name.
        runs: number of runs in which the task was applicable.
        precision, recall, f1: means over those runs (``None`` when none).
        spread: per metric ``{"std": sample std (0.0 for one run), "min", "max"}``.
        per_run: per-run ``{"precision", "recall", "f1"}`` (``None`` entries for n/a runs).
    """

    task: str
    runs: int
    precision: float | None
    recall: float | None
    f1: float | None
    spread: dict[str, dict[str, float]] = field(default_factory=dict)
    per_run: list[dict[str, float | None]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def macro_over_runs(scores: Sequence[TableScore]) -> dict[str, MacroScore]:
    """Macro-average each task over several runs of the same prompt (BLINKG, mean of per-run values).

    Args:
        scores: one :class:`TableScore` per run, same setting.
    Returns:
        task name -> :class:`MacroScore`; an empty input gives tasks with ``runs == 0`` and ``None`` values.
    """
    out: dict[str, MacroScore] = {}
    for task in TASK_COLUMNS:
        per_run = [{"precision": s.tasks[task].precision, "recall": s.tasks[task].recall,
                    "f1": s.tasks[task].f1} for s in scores if task in s.tasks]
        used = [r for r in per_run if r["f1"] is not None]
        means: dict[str, float | None] = {}
        spread: dict[str, dict[str, float]] = {}
        for metric in ("precision", "recall", "f1"):
            vals = [float(r[metric]) for r in used if r[metric] is not None]
            means[metric] = statistics.fmean(vals) if vals else None
            if vals:
                spread[metric] = {"std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
                                  "min": min(vals), "max": max(vals)}
        out[task] = MacroScore(task=task, runs=len(used), precision=means["precision"], recall=means["recall"],
                               f1=means["f1"], spread=spread, per_run=per_run)
    return out
