"""Benchmark: the offline mapper next to the LLMs of the BLINKG paper, task by task.

Usage::

    python -m pipeline.bench.paper [--blinkg DIR] [--scenario scenario3] [--case 1 ...]
                                   [--llm-tables EVALUATION_DIR] [--write-rescored FILE] [--out FILE]

For each scenario it runs the offline mapper on every case, scores the table
against the gold table with our mapping-layer scorer (post-processed setting,
macro over runs, mean over cases; :mod:`pipeline.scoring.mapping`) and prints
it next to two references:

* **published**: the F1 per task that the BLINKG repository publishes for six
  LLMs in three settings (expert-based, raw, post-processed), shipped in
  ``blinkg_published.yaml`` with the file and commit each block comes from.
  Those automatic scores come from the BLINKG scripts, which are more lenient
  than ours (a wrong cell is a false negative only, unmatched gold rows are not
  counted, precision is 1.0 almost everywhere), so they favour the LLMs.
* **rescored**: the LLMs' own tables scored with *our* scorer, the like-for-like
  comparison. They live in the BLINKG repository's ``evaluation/`` folder
  (``<scenario>_clean/<case>/<model>/<model>_<run>.md``: cleaned tables, scored
  post-processed; ``<scenario>_no_clean/...``: raw tables, scored raw), which
  the benchmark copy here does not hold: pass ``--llm-tables`` to a checkout of
  it. Without it the last snapshot (``blinkg_rescored.yaml``, written with
  ``--write-rescored``) is shown, labelled with its date.

A benchmark, not a test: it prints numbers and a verdict, and asserts nothing.
"""
from __future__ import annotations

import datetime as _dt
import logging
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from .. import __version__
from ..blinkg import blinkg_cases
from ..errors import InputError, TableParseError
from ..manifest import Case
from ..ontology import load_ontology
from ..scoring.mapping import ScoringConfig, scenario_task_scores, score_case
from ..scoring.mapping.report import CaseReport
from ..table.formats import read_table
from ..table.markdown import parse_markdown
from ..table.model import TASK_COLUMNS, MappingTable
from . import bench_parser, bench_root

__all__ = ["SCENARIOS", "PUBLISHED", "RESCORED", "PublishedTable", "load_published", "model_name", "mean_over",
           "offline_reports", "llm_reports", "rescore", "load_rescored", "write_rescored", "Comparison",
           "compare", "comparison_markdown", "main"]

log = logging.getLogger(__name__)

PUBLISHED = Path(__file__).with_name("blinkg_published.yaml")
RESCORED = Path(__file__).with_name("blinkg_rescored.yaml")
#: folder suffix in BLINKG's evaluation/ -> the setting its tables are scored in
_LLM_FOLDERS = {"_clean": "post-processed", "_no_clean": "raw"}
_BLOCK_KEYS = ("scenario", "setting", "file", "commit", "columns", "rows")
_MODEL_NAMES = (("deepseek", "DeepSeek-R1"), ("gemini", "Gemini 2.5 Pro"), ("gpt4o", "GPT-4o"),
                ("gpt-4o", "GPT-4o"), ("llama", "Llama 3.3 70B"), ("mixtral", "Mixtral 8x22B"),
                ("o3", "OpenAI o3"), ("o1", "OpenAI o1"))


@dataclass
class PublishedTable:
    """One published block: F1 per task of each model in one scenario and setting.

    Attributes:
        scenario: ``scenario1`` ... ``scenario3``.
        setting: ``expert``, ``raw`` or ``post-processed``.
        source: ``file@commit`` in the BLINKG repository.
        scores: model -> task -> F1 (``None`` where the file leaves the cell empty).
    """

    scenario: str
    setting: str
    source: str
    scores: dict[str, dict[str, float | None]] = field(default_factory=dict)


def load_published(path: str | Path = PUBLISHED) -> list[PublishedTable]:
    """Read the published BLINKG figures (``blinkg_published.yaml`` layout).

    Raises:
        InputError: the file is missing or not YAML, a block lacks a key, names a task we do not
            know, or a model's row length differs from its ``columns`` (message names the block
            and the model).
    """
    p = Path(path)
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the published BLINKG figures: {exc}", path=p) from exc
    out = []
    for k, block in enumerate((doc or {}).get("tables") or [], start=1):
        if not isinstance(block, dict):
            raise InputError(f"block {k}: expected a mapping with keys {', '.join(_BLOCK_KEYS)}", path=p)
        where = f"block {k} ({block.get('scenario', '?')}, {block.get('setting', '?')})"
        missing = [key for key in _BLOCK_KEYS if key not in block]
        if missing or not isinstance(block["rows"], dict):
            raise InputError(f"{where}: expected keys {', '.join(_BLOCK_KEYS)} with rows as model: [values] "
                             f"({', '.join(missing) or 'rows'} missing or malformed)", path=p)
        scenario, setting, columns, rows = block["scenario"], block["setting"], list(block["columns"]), block["rows"]
        source = f"{block['file']}@{str(block['commit'])[:7]}"
        unknown = [c for c in columns if c not in TASK_COLUMNS]
        if unknown:
            raise InputError(f"{where}: unknown task column(s) {unknown}; expected names from "
                             f"{list(TASK_COLUMNS)}", path=p)
        table = PublishedTable(scenario, setting, source)
        for model, values in rows.items():
            if not isinstance(values, list) or len(values) != len(columns):
                raise InputError(f"{where}: model {model!r} has {len(values) if isinstance(values, list) else 0} "
                                 f"value(s) for {len(columns)} column(s)", path=p, key=str(model))
            table.scores[str(model)] = {c: None if v is None else float(v) for c, v in zip(columns, values)}
        out.append(table)
    return out


def model_name(folder: str) -> str:
    """Display name of an LLM from a BLINKG results folder name (``o3_clean`` -> ``OpenAI o3``)."""
    key = folder.lower().removesuffix("_clean").removesuffix("_hf")
    for prefix, name in _MODEL_NAMES:
        if key == prefix or key.startswith(prefix + "_") or key.startswith(prefix + "."):
            return name
    return folder


def mean_over(scores: Mapping[str, float | None], tasks: Iterable[str]) -> float | None:
    """Unweighted mean of ``scores`` over ``tasks`` (``None`` values and absent tasks skipped)."""
    vals = [scores[t] for t in tasks if scores.get(t) is not None]
    return statistics.fmean(vals) if vals else None


def _case_inputs(case: Case) -> tuple[MappingTable, Any]:
    if case.gold_table is None:
        raise InputError(f"case {case.scenario}/{case.name} has no gold table (expected_table.md)")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    return read_table(case.gold_table), ontology


def _cases(root: Path, scenario: str, names: Iterable[str] | None = None) -> list[Case]:
    wanted = set(names or [])
    cases, _ = blinkg_cases(root)
    return [c for c in cases if c.scenario == scenario and c.gold_table is not None
            and (not wanted or c.name in wanted)]


def offline_reports(root: Path, scenario: str, names: Iterable[str] | None = None,
                    config: ScoringConfig | None = None) -> list[CaseReport]:
    """Run the offline mapper on the cases of ``scenario`` and score each table against its gold.

    Args:
        root: the BLINKG folder.
        scenario: ``scenario1`` (CSV inputs), ``scenario2`` or ``scenario3``.
        names: only these case names (all cases with a gold table when empty).
        config: scoring configuration (default :class:`ScoringConfig`).
    Returns:
        One :class:`CaseReport` per case (one run each: the offline mapper is deterministic).
    Raises:
        InputError / OntologyError: a case's inputs cannot be read.
    """
    from ..mappers import get_mapper

    mapper = get_mapper("offline")
    reports = []
    for case in _cases(root, scenario, names):
        gold, ontology = _case_inputs(case)
        with tempfile.TemporaryDirectory(prefix="bench-paper-") as tmp:
            table = mapper.map(case, workdir=Path(tmp)).table
        reports.append(score_case([table], gold, ontology, case=case.name, scenario=scenario, config=config))
    return reports


def _read_llm_table(path: Path, notes: list[str]) -> MappingTable:
    try:
        table = parse_markdown(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, TableParseError) as exc:
        # a run that produced no usable table still counts as a run, with nothing predicted
        notes.append(f"{path}: no table read ({exc}); scored as an empty table")
        return MappingTable(source=str(path))
    notes.extend(f"{path}: {n}" for n in table.notes)
    return table


def llm_reports(eval_dir: Path, root: Path, scenario: str, names: Iterable[str] | None = None,
                config: ScoringConfig | None = None) -> tuple[dict[str, dict[str, list[CaseReport]]], list[str]]:
    """Score the LLM tables of BLINKG's ``evaluation/`` folder with our scorer.

    Layout read: ``eval_dir/<scenario>_clean/<case>/<model folder>/*.md`` (cleaned tables) and
    ``eval_dir/<scenario>_no_clean/<case>/<model folder>/*.md`` (raw tables); each ``.md`` other
    than ``expected_table.md`` is one run. The gold table and ontology are the case's own from
    ``root`` (the benchmark folder), so LLM and offline tables meet the same gold.

    Returns:
        ``({setting: {model: [CaseReport per case]}}, notes)``: setting ``post-processed`` for
        the cleaned tables, ``raw`` for the raw ones; notes list unreadable tables, parse notes and
        case folders with no matching benchmark case.
    Raises:
        InputError: ``eval_dir`` holds neither folder for ``scenario``.
    """
    cases = {c.name: c for c in _cases(root, scenario, names)}
    folders = {setting: eval_dir / f"{scenario}{suffix}" for suffix, setting in _LLM_FOLDERS.items()
               if (eval_dir / f"{scenario}{suffix}").is_dir()}
    if not folders:
        raise InputError(f"no LLM tables for {scenario}: expected a folder {scenario}_clean or "
                         f"{scenario}_no_clean (BLINKG's evaluation/ layout)", path=eval_dir)
    out: dict[str, dict[str, list[CaseReport]]] = {}
    notes: list[str] = []
    inputs: dict[str, tuple[MappingTable, Any]] = {}
    for setting, folder in folders.items():
        for case_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
            case = cases.get(case_dir.name)
            if case is None:
                if not names:
                    notes.append(f"{case_dir}: no benchmark case {scenario}/{case_dir.name}; skipped")
                continue
            if case.name not in inputs:
                inputs[case.name] = _case_inputs(case)
            gold, ontology = inputs[case.name]
            for model_dir in sorted(p for p in case_dir.iterdir() if p.is_dir()):
                runs = [_read_llm_table(f, notes) for f in sorted(model_dir.glob("*.md"))
                        if f.name != "expected_table.md"]
                if not runs:
                    continue
                report = score_case(runs, gold, ontology, case=case.name, scenario=scenario, config=config)
                out.setdefault(setting, {}).setdefault(model_name(model_dir.name), []).append(report)
    return out, notes


def rescore(reports: Mapping[str, Mapping[str, list[CaseReport]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Scenario F1 per task of each model, per setting: ``{setting: {model: {"cases", "runs", "tasks"}}}``.

    ``tasks`` maps task -> F1 in the setting the tables were scored in (mean over cases of the
    macro over runs; ``None`` where not applicable).
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for setting, models in reports.items():
        for model, case_reports in sorted(models.items()):
            out.setdefault(setting, {})[model] = {
                "cases": len(case_reports),
                "runs": sum(r.provenance.get("runs", 0) for r in case_reports),
                "tasks": scenario_task_scores(case_reports, setting)}
    return out


def write_rescored(path: str | Path, rescored: Mapping[str, Mapping[str, Any]], source: str,
                   config: ScoringConfig | None = None) -> Path:
    """Write a rescored snapshot: ``{scenario: rescore(...)}`` plus date, version and scorer settings."""
    p = Path(path)
    doc = {"generated": _dt.date.today().isoformat(), "pipeline_version": __version__,
           "scorer": (config or ScoringConfig()).to_dict(), "llm_tables": source,
           "scenarios": {sc: {st: {m: {**v, "tasks": {t: None if f is None else round(f, 6)
                                                      for t, f in v["tasks"].items()}}
                                   for m, v in models.items()} for st, models in settings.items()}
                         for sc, settings in rescored.items()}}
    header = ("# LLM tables of BLINKG's evaluation/ folder scored with our mapping-layer scorer.\n"
              "# Written by: python -m pipeline.bench.paper --llm-tables DIR --write-rescored FILE\n")
    p.write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return p


def load_rescored(path: str | Path = RESCORED) -> tuple[dict[str, Any], str]:
    """Read a rescored snapshot: ``({scenario: {setting: {model: {...}}}}, label)``; empty if absent.

    Raises:
        InputError: the file exists but is not YAML of the written layout.
    """
    p = Path(path)
    if not p.is_file():
        return {}, ""
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        scenarios = dict(doc.get("scenarios") or {})
    except (OSError, yaml.YAMLError, AttributeError, TypeError, ValueError) as exc:
        raise InputError(f"cannot read the rescored snapshot: {exc}", path=p) from exc
    return scenarios, (f"snapshot of {doc.get('generated', '?')} (pipeline {doc.get('pipeline_version', '?')}) "
                       f"of the LLM tables in {doc.get('llm_tables', '?')}")


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


SCENARIOS = ("scenario1", "scenario2", "scenario3")


def _check_outputs(*paths: str | None) -> str | None:
    """Why an output file cannot be written (its folder is missing), or ``None``."""
    for path in paths:
        if path and not Path(path).absolute().parent.is_dir():
            return f"{path}: cannot write here (folder {Path(path).absolute().parent} does not exist)"
    return None


def _llm_folder_error(folder: Path, scenarios: Iterable[str]) -> str | None:
    """Why ``folder`` holds no LLM tables for any of ``scenarios``, or ``None``."""
    if not folder.is_dir():
        return f"{folder}: --llm-tables folder not found (expected BLINKG's evaluation/ folder)"
    if not any((folder / f"{sc}{suffix}").is_dir() for sc in scenarios for suffix in _LLM_FOLDERS):
        wanted = ", ".join(f"{sc}_clean" for sc in scenarios)
        return f"{folder}: no LLM tables for {', '.join(scenarios)} (expected folders such as {wanted})"
    return None


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns 0, or 2 on bad input (missing or unusable folders, unknown scenario,
    an output file that cannot be written); every error is one line on stderr."""
    ap = bench_parser("bench-paper", __doc__)
    ap.add_argument("--case", action="append", default=None, help="only this case (repeatable)")
    ap.add_argument("--llm-tables", default=None, help="BLINKG's evaluation/ folder: rescore the LLM tables")
    ap.add_argument("--llm-source", default=None,
                    help="where the LLM tables come from, recorded in the snapshot (default: the --llm-tables path)")
    ap.add_argument("--write-rescored", default=None, help="write the rescored figures to this YAML file")
    ap.add_argument("--out", default=None, help="also write the Markdown comparison to this file")
    args = ap.parse_args(argv)
    if args.scenario and args.scenario not in SCENARIOS:
        print(f"bench-paper: unknown scenario {args.scenario!r} (expected one of {', '.join(SCENARIOS)})",
              file=sys.stderr)
        return 2
    scenarios = [args.scenario] if args.scenario else list(SCENARIOS)
    problem = _check_outputs(args.write_rescored, args.out) or (
        _llm_folder_error(Path(args.llm_tables), scenarios) if args.llm_tables else None)
    if problem:
        print(f"bench-paper: {problem}", file=sys.stderr)
        return 2
    root = bench_root(args, "bench-paper")
    if root is None:
        return 2
    try:
        published = load_published()
        snapshot, snap_label = load_rescored()
        fresh: dict[str, Any] = {}
        parts = []
        for scenario in scenarios:
            reports = offline_reports(root, scenario, args.case)
            if not reports:
                print(f"bench-paper: {scenario}: no case with a gold table"
                      + (f" among {args.case}" if args.case else ""), file=sys.stderr)
                continue
            offline = scenario_task_scores(reports)
            rescored, label = (snapshot.get(scenario), snap_label) if not args.case else (None, "")
            if args.llm_tables:
                try:
                    tables, notes = llm_reports(Path(args.llm_tables), root, scenario, args.case)
                except InputError as exc:  # tables for other scenarios only: this one keeps the snapshot
                    print(f"bench-paper: note: {exc}", file=sys.stderr)
                    tables, notes = {}, []
                for note in notes:
                    print(f"bench-paper: note: {note}", file=sys.stderr)
                if tables:
                    fresh[scenario] = rescore(tables)
                    rescored, label = fresh[scenario], f"LLM tables from {args.llm_tables}, scored now"
            comp = compare(scenario, offline, published, rescored, cases=len(reports))
            parts.append(comparison_markdown(comp, label if rescored else ""))
            print(parts[-1], flush=True)
    except InputError as exc:
        print(f"bench-paper: {exc}", file=sys.stderr)
        return 2
    try:
        if args.write_rescored and fresh:
            written = write_rescored(args.write_rescored, fresh, args.llm_source or str(args.llm_tables))
            print(f"rescored figures written to {written}")
        if args.out:
            Path(args.out).write_text("\n".join(parts), encoding="utf-8")
            print(f"comparison written to {args.out}")
    except OSError as exc:
        print(f"bench-paper: cannot write the output: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    raise SystemExit(main())
