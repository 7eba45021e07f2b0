"""Figures of the paper benchmark: the offline mapper's and the LLMs' task F1 per scenario.

The published BLINKG figures (``blinkg_published.yaml``), the offline mapper's tables scored
against the gold tables, the LLM tables of BLINKG's ``evaluation/`` folder scored with the same
scorer (:mod:`pipeline.scoring.mapping`), and the rescored snapshot (``blinkg_rescored.yaml``).
How they are compared and printed is in :mod:`.paper_compare`; the command in :mod:`.paper`.
"""
from __future__ import annotations

import datetime as _dt
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import yaml

from pipeline import __version__
from pipeline.bench.blinkg import blinkg_cases
from pipeline.errors import InputError, TableParseError
from pipeline.manifest import Case
from pipeline.mappers import get_mapper, load_inputs
from pipeline.ontology import load_ontology
from pipeline.scoring.mapping import ScoringConfig, scenario_task_scores, score_case
from pipeline.scoring.mapping.report import CaseReport
from pipeline.table.formats import read_table
from pipeline.table.markdown import parse_markdown
from pipeline.table.model import TASK_COLUMNS, MappingTable

__all__ = ["PUBLISHED", "RESCORED", "PublishedTable", "load_published", "model_name", "LLM_FOLDERS",
           "gold_cases", "offline_reports", "llm_reports", "rescore", "rescored_cases", "load_rescored", "write_rescored"]

PUBLISHED = Path(__file__).with_name("blinkg_published.yaml")
RESCORED = Path(__file__).with_name("blinkg_rescored.yaml")
#: folder suffix in BLINKG's evaluation/ -> the setting its tables are scored in
LLM_FOLDERS = {"_clean": "post-processed", "_no_clean": "raw"}
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


def _case_inputs(case: Case) -> tuple[MappingTable, Any]:
    if case.gold_table is None:
        raise InputError(f"case {case.scenario}/{case.name} has no gold table (expected_table.md)")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    return read_table(case.gold_table), ontology


def gold_cases(root: Path, scenario: str, names: Iterable[str] | None = None) -> list[Case]:
    """The benchmark cases of ``scenario`` that have a gold table (only ``names`` when given)."""
    wanted = set(names or [])
    cases, _ = blinkg_cases(root)
    return [c for c in cases if c.scenario == scenario and c.gold_table is not None
            and (not wanted or c.name in wanted)]


def offline_reports(root: Path, scenario: str, names: Iterable[str] | None = None,
                    config: ScoringConfig | None = None,
                    progress: Callable[[str], None] | None = None) -> list[CaseReport]:
    """Run the offline mapper on the cases of ``scenario`` and score each table against its gold.

    Args:
        root: the BLINKG folder.
        scenario: ``scenario1`` (CSV inputs), ``scenario2`` or ``scenario3``.
        names: only these case names (all cases with a gold table when empty).
        config: scoring configuration (default :class:`ScoringConfig`).
        progress: called with one line per case as it is done (case, rows, seconds).
    Returns:
        One :class:`CaseReport` per case (one run each: the offline mapper is deterministic).
    Raises:
        InputError / OntologyError: a case's inputs cannot be read.
    """
    mapper = get_mapper("offline")
    reports = []
    cases = gold_cases(root, scenario, names)
    for k, case in enumerate(cases, start=1):
        t0 = time.perf_counter()
        gold = read_table(case.gold_table)
        with tempfile.TemporaryDirectory(prefix="bench-paper-") as tmp:
            inputs = load_inputs(case, Path(tmp))
            table = mapper.map(inputs).table
        reports.append(score_case([table], gold, inputs.ontology, case=case.name, scenario=scenario, config=config))
        if progress is not None:
            progress(f"{scenario}/{case.name} ({k} of {len(cases)}): offline mapper, {len(table)} rows, mapped and "
                     f"scored in {time.perf_counter() - t0:.1f} s")
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
                config: ScoringConfig | None = None, progress: Callable[[str], None] | None = None
                ) -> tuple[dict[str, dict[str, list[CaseReport]]], list[str]]:
    """Score the LLM tables of BLINKG's ``evaluation/`` folder with our scorer.

    Layout read: ``eval_dir/<scenario>_clean/<case>/<model folder>/*.md`` (cleaned tables) and
    ``eval_dir/<scenario>_no_clean/<case>/<model folder>/*.md`` (raw tables); each ``.md`` other
    than ``expected_table.md`` is one run. The gold table and ontology are the case's own from
    ``root`` (the benchmark folder), so LLM and offline tables meet the same gold.

    ``progress`` is called with one line per case, model and setting as it is scored.

    Returns:
        ``({setting: {model: [CaseReport per case]}}, notes)``: setting ``post-processed`` for
        the cleaned tables, ``raw`` for the raw ones; notes list unreadable tables, parse notes and
        case folders with no matching benchmark case.
    Raises:
        InputError: ``eval_dir`` holds neither folder for ``scenario``.
    """
    cases = {c.name: c for c in gold_cases(root, scenario, names)}
    folders = {setting: eval_dir / f"{scenario}{suffix}" for suffix, setting in LLM_FOLDERS.items()
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
                t0 = time.perf_counter()
                report = score_case(runs, gold, ontology, case=case.name, scenario=scenario, config=config)
                out.setdefault(setting, {}).setdefault(model_name(model_dir.name), []).append(report)
                if progress is not None:
                    progress(f"{scenario}/{case.name}: {model_name(model_dir.name)} ({setting}), {len(runs)} table(s) "
                             f"scored in {time.perf_counter() - t0:.1f} s")
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


def rescored_cases(reports: Mapping[str, Mapping[str, list[CaseReport]]]) -> set[str]:
    """The case names every rescored model has tables for, in every setting (the cases a like-for-like
    comparison with the offline mapper may run over)."""
    sets = [{r.case for r in case_reports} for models in reports.values() for case_reports in models.values()]
    return set.intersection(*sets) if sets else set()


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
