"""Comparison of the paper benchmark: the offline task F1 next to every LLM's, and its Markdown.

Columns per published and rescored setting, means over the tasks each column reports, losses
per task and the verdict. The figures come from :mod:`.paper_scores`; the command is :mod:`.paper`.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pipeline.bench.paper_scores import PublishedTable
from pipeline.table.model import TASK_COLUMNS

__all__ = ["Comparison", "compare", "comparison_markdown", "mean_over", "agreement_markdown"]


def mean_over(scores: Mapping[str, float | None], tasks: Iterable[str]) -> float | None:
    """Unweighted mean of ``scores`` over ``tasks`` (``None`` values and absent tasks skipped)."""
    vals = [scores[t] for t in tasks if scores.get(t) is not None]
    return statistics.fmean(vals) if vals else None


@dataclass
class Comparison:
    """Offline mapper vs LLMs in one scenario.

    Attributes:
        scenario: scenario name.
        offline: task -> offline F1 (post-processed; ``None`` where not applicable).
        columns: column label -> model -> task -> F1 (published settings, then rescored ones).
        means: column label -> ``{"tasks": [...], "offline": mean, "models": {model: mean},
            "best": (mean, model)}``, means over the tasks applicable to the offline table and reported
            in that column (``best`` is ``(None, None)`` when no model has one).
        losses: ``(column, task, model, llm F1, offline F1)`` wherever an LLM scores higher.
        beats_mean: the offline mean exceeds every model's mean in every column.
        partial: ``(column, model, cases with tables, cases of the offline run)`` of rescored models
            left out because their tables cover fewer cases.
    """

    scenario: str
    offline: dict[str, float | None]
    columns: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)
    means: dict[str, dict[str, Any]] = field(default_factory=dict)
    losses: list[tuple[str, str, str, float, float]] = field(default_factory=list)
    beats_mean: bool = False
    partial: list[tuple[str, str, int, int | None]] = field(default_factory=list)


def compare(scenario: str, offline: Mapping[str, float | None], published: Iterable[PublishedTable],
            rescored: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
            cases: int | None = None) -> Comparison:
    """Put the offline task F1 next to every LLM's, column by column.

    Columns: one per published setting of ``scenario`` (``"published expert"`` ...) and one per
    rescored setting (``"rescored post-processed"`` ...). A column's mean runs over the tasks that
    are applicable to the offline table (F1 not ``None``) and that the column reports; each model's
    mean skips its empty cells. Ties are not losses. A rescored model with tables for fewer than
    ``cases`` cases (the offline mapper's) is not compared, since its mean covers other cases; it is
    listed in :attr:`Comparison.partial`.
    """
    comp = Comparison(scenario, dict(offline))
    for table in published:
        if table.scenario == scenario:
            comp.columns[f"published {table.setting}"] = table.scores
    for setting, models in (rescored or {}).items():
        label = f"rescored {setting}"
        comp.partial += [(label, m, int(v.get("cases", 0)), cases) for m, v in sorted(models.items())
                         if cases is not None and int(v.get("cases", 0)) < cases]
        full = {m: dict(v["tasks"]) for m, v in models.items() if cases is None or int(v.get("cases", 0)) >= cases}
        if full:
            comp.columns[label] = full
    applicable = [t for t in TASK_COLUMNS if offline.get(t) is not None]
    beats = bool(comp.columns)
    for label, models in comp.columns.items():
        tasks = [t for t in applicable if any(t in s and s[t] is not None for s in models.values())]
        model_means = {m: mean_over(s, tasks) for m, s in models.items()}
        own = mean_over(offline, tasks)
        best = max(((v, m) for m, v in model_means.items() if v is not None), default=(None, None))
        comp.means[label] = {"tasks": tasks, "offline": own, "models": model_means, "best": best}
        beats = beats and own is not None and (best[0] is None or own > best[0])
        for task in tasks:
            for model, scores in models.items():
                v = scores.get(task)
                if v is not None and v > offline[task]:
                    comp.losses.append((label, task, model, v, offline[task]))
    comp.beats_mean = beats
    return comp


def _f(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _best(models: Mapping[str, Mapping[str, float | None]], task: str) -> tuple[str | None, float | None]:
    """The best model on ``task`` (``"A, B"`` or ``"n tied"`` on a tie) and its F1."""
    got = {m: v for m, s in models.items() if (v := s.get(task)) is not None}
    if not got:
        return None, None
    top = max(got.values())
    names = sorted(m for m, v in got.items() if v == top)
    return (", ".join(names) if len(names) <= 2 else f"{len(names)} tied"), top


def comparison_markdown(comp: Comparison, rescored_label: str = "") -> str:
    """Markdown: best LLM per task and column, mean over tasks per model and column, the verdict."""
    labels = list(comp.columns)
    lines = [f"## {comp.scenario}: offline mapper vs the LLMs of the BLINKG paper (task F1)", ""]
    if rescored_label:
        lines += [f"Rescored columns: {rescored_label}.", ""]
    lines += ["| Task | offline | " + " | ".join(f"best LLM, {l}" for l in labels) + " |",
              "|---|---:|" + "---|" * len(labels)]
    for task in TASK_COLUMNS:
        if comp.offline.get(task) is None:
            continue
        cells = []
        for label in labels:
            model, v = _best(comp.columns[label], task)
            cells.append("n/a" if model is None else f"{v:.3f} ({model})")
        lines.append(f"| {task} | {_f(comp.offline[task])} | " + " | ".join(cells) + " |")
    models = sorted({m for cols in comp.columns.values() for m in cols})
    lines += ["", "Mean F1 over the tasks each column reports (and the offline table is scored on):", "",
              "| | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels),
              "| tasks | " + " | ".join(str(len(comp.means[l]["tasks"])) for l in labels) + " |",
              "| **offline** | " + " | ".join(f"**{_f(comp.means[l]['offline'])}**" for l in labels) + " |"]
    for model in models:
        lines.append(f"| {model} | " + " | ".join(_f(comp.means[l]["models"].get(model)) for l in labels) + " |")
    lines.append("")
    if comp.partial:
        lines += ["Not compared (tables for fewer cases than the offline run): " + "; ".join(
            f"{m} ({label}, {k} of {n} cases)" for label, m, k, n in comp.partial) + ".", ""]
    if not labels:
        lines.append("Verdict: no LLM figures for this scenario.")
    else:
        best = {l: comp.means[l]["best"] for l in labels}
        lines.append("Verdict: the offline mapper's mean task F1 is "
                     + ("above" if comp.beats_mean else "**not** above")
                     + " every LLM's in every column ("
                     + "; ".join(f"{l}: {_f(comp.means[l]['offline'])} vs {_f(best[l][0])} {best[l][1] or ''}".rstrip()
                                 for l in labels) + ").")
        if comp.losses:
            lines += ["", "Where an LLM scores higher on a task:", ""]
            lines += [f"- {task}, {label}: {model} {v:.3f} vs offline {own:.3f}"
                      for label, task, model, v, own in comp.losses]
    return "\n".join(lines) + "\n"


def agreement_markdown(scenario: str, published: Iterable[PublishedTable],
                       rules: Mapping[str, Mapping[str, Mapping[str, float]]], tolerance: float = 0.02) -> str:
    """Markdown: the published F1 of each model next to its tables rescored with BLINKG's own rules.

    Per setting and model, the mean over the tasks both report, the difference, and whether it is
    within ``tolerance``; a model or setting with no published block is listed as such.
    """
    lines = [f"## {scenario}: published figures vs the same tables rescored with BLINKG's rules", "",
             "| setting | model | tasks | published | rescored (BLINKG's rules) | difference | within "
             f"{tolerance:g} |", "|---|---|---:|---:|---:|---:|---|"]
    blocks = {t.setting: t.scores for t in published if t.scenario == scenario}
    for setting, models in rules.items():
        pub = blocks.get(setting, {})
        for model, scores in sorted(models.items()):
            ours = {t: v for t, v in scores.items() if v is not None}
            theirs = {t: v for t, v in (pub.get(model) or {}).items() if v is not None}
            tasks = [t for t in TASK_COLUMNS if t in ours and t in theirs]
            if not tasks:
                lines.append(f"| {setting} | {model} | 0 | n/a | {_f(mean_over(ours, ours))} | n/a | no published figure |")
                continue
            a, b = mean_over(theirs, tasks), mean_over(ours, tasks)
            lines.append(f"| {setting} | {model} | {len(tasks)} | {_f(a)} | {_f(b)} | {b - a:+.3f} | "
                         f"{'yes' if abs(b - a) <= tolerance else 'no'} |")
    return "\n".join(lines) + "\n"
