"""Run the pipeline for one case: map -> compile -> materialize -> check, writing every artifact.

Output folder ``<out>/<scenario>/<case>/``:

* ``table.md`` / ``table.csv`` / ``table.json`` - the mapping table as mapped (parsed, for replay);
* ``audit.json`` / ``audit.md`` - findings on the table, the inputs and the output;
* ``inputs/`` - repaired input copies (XML with undeclared namespaces);
* ``mapping.rml.ttl`` - the RML document (absolute source paths); ``morph-kgc.ini`` - a ready
  Morph-KGC configuration for it (``udfs`` entry for our FnO functions; writes ``morph-kgc.nt``);
  ``mapping.morph-kgc.ttl`` - the engine copy the run itself uses;
* ``kg.nt`` - the knowledge graph (N-Triples, sorted);
* ``expected_graph.json`` - comparison with the case's gold KG, when it has one;
* ``run.json`` - status, counts, per-stage timings (seconds), versions, provenance.

A failing stage never loses the artifacts of the stages before it: the error
goes into ``run.json`` (``status: failed``, ``failed_stage``) and the report.

A new run of a case replaces the case's earlier folder only when it ends: the earlier folder is
moved aside to ``<case>.previous/`` while the run writes a fresh ``<case>/`` (the artifacts name
their own absolute paths, so they are written where they stay), and is deleted when the run ends.
A run stopped by Ctrl-C (:class:`RunInterrupted`) writes its ``run.json`` (``status:
interrupted``) and audit, is moved to ``<case>.interrupted/`` with its stages and LLM transcripts
so far, and the earlier run comes back to ``<case>/``. A run that was killed outright leaves
``<case>.previous/`` behind; the next run of the case keeps the killed run's folder as
``<case>.interrupted/`` and treats ``<case>.previous/`` as the earlier run. A run that fails (bad
input, exit 2: a source, ontology or table that does not load; or a stage that cannot go on, exit 1:
an LLM server that cannot be reached, a model it does not know, a crash) is moved to
``<case>.failed/`` and the earlier run comes back too: nothing a user had, an edited ``table.md``
included, is lost to a run that wrote no KG of its own.

The model and artifact writing are in :mod:`pipeline.run.case`, the stages in :mod:`pipeline.run.stages`;
this module runs the stages in order (once per mapper run with ``LLM_RUNS`` > 1).
"""
from __future__ import annotations

import dataclasses
import logging
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from pipeline.errors import InputError, PipelineError
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.outfolder import aside, begin, carry, replace, signals_held
from pipeline.run.case import CaseRun, RunConfig, finish, versions
from pipeline.run.evaluate import mapping_scores
from pipeline.run.stages import (STAGES, State, compare_graphs, gold_diff, graph_counts, is_self_replay, mapping_level,
                                 use_result)
from pipeline.table import read_table

__all__ = ["RunConfig", "CaseRun", "RunInterrupted", "run_case", "versions", "graph_counts", "compare_graphs",
           "gold_diff"]

LOGGER = logging.getLogger(__name__)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a case run; the message says where this run's files and the earlier run are.

    Attributes:
        run: the interrupted :class:`CaseRun` (its ``folder`` is the ``.interrupted`` one).
    """

    def __init__(self, message: str, run: CaseRun) -> None:
        super().__init__(message)
        self.run = run


def _interrupted(run: CaseRun, previous: Path | None, stage: str) -> RunInterrupted:
    """Close an interrupted run: its run.json and audit, its folder moved aside, the earlier run back."""
    folder = run.folder
    run.status, run.failed_stage, run.error, run.error_kind = "interrupted", stage, "interrupted (Ctrl-C)", "interrupted"
    try:
        finish(run)
    except Exception:  # the interrupt came while writing: the files of the stages so far are what is kept
        LOGGER.exception("%s/%s: run.json of the interrupted run not written", run.case.scenario, run.case.name)
    kept = aside(folder, ".interrupted")
    replace(folder, kept)
    back = ""
    if previous is not None:
        previous.rename(folder)
        back = f"; the earlier run is back in {folder}"
    return RunInterrupted(f"{run.case.scenario}/{run.case.name} interrupted at {stage}: this run's stages and LLM "
                          f"transcripts so far are in {kept}{back}", run)


def _stages(run: CaseRun, state: State, config: RunConfig, stages, progress, where: dict | None = None) -> bool:
    """Run ``stages`` in order until one fails; returns ``True`` when all succeeded. ``where["stage"]``
    names the stage running (for a Ctrl-C)."""
    for name, stage in stages:
        if name in ("validate", "score") and not config.evaluate:
            continue
        if progress is not None:
            progress(name)
        if where is not None:
            where["stage"] = name
        t0 = time.perf_counter()
        n_findings = len(run.findings)
        try:
            stage(run, state, config)
        except PipelineError as exc:
            run.status, run.failed_stage, run.error = "failed", name, str(exc)
            run.error_kind = "input" if isinstance(exc, InputError) else "pipeline"
            if not any(f.severity == "error" for f in run.findings[n_findings:]):
                # e.g. an unparsable ontology: the audit must say why the case stopped, not be empty
                where = getattr(exc, "path", None)
                msg = str(exc).removeprefix(f"{where}:{exc.line}: " if getattr(exc, "line", None) else f"{where}: ")
                run.findings.append(Finding(name, Path(where).name if where else "", msg,
                                            line=getattr(exc, "line", None)))
            # the case's summary line says it (FAILED at <stage>: <error>): logged again, a user reads it twice
            LOGGER.debug("%s/%s failed at %s: %s", run.case.scenario, run.case.name, name, exc)
        except Exception as exc:  # keep artifacts and report, whatever broke
            run.status, run.failed_stage, run.error = "failed", name, f"{type(exc).__name__}: {exc}"
            run.error_kind = "internal"
            LOGGER.exception("%s/%s failed at %s", run.case.scenario, run.case.name, name)
        finally:
            run.timings[name] = run.timings.get(name, 0.0) + time.perf_counter() - t0
        if run.status != "ok":
            return False
    return True


def _after_failure(run: CaseRun, state: State, config: RunConfig) -> None:
    """A case that failed after the map stage still gets its mapping-level scores."""
    if run.status == "ok" or not config.evaluate or state.table is None:
        return
    try:
        mapping_level(run, state, config)
    except Exception:  # the scores are a bonus of a failed run; the failure is what is reported
        LOGGER.exception("%s/%s: mapping-level scores after the failure could not be computed",
                         run.case.scenario, run.case.name)


def _values_over_runs(dicts: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Per key: the mean of the numeric values over runs (``[min, max]`` apart); booleans: ``False``
    when any run is ``False``, ``True`` when all are ``True``, else ``None``."""
    means: dict[str, Any] = {}
    ranges: dict[str, list[float]] = {}
    for key in dict.fromkeys(k for d in dicts for k in d):
        vals = [d.get(key) for d in dicts]
        if any(isinstance(v, bool) for v in vals):
            means[key] = False if False in vals else True if all(v is True for v in vals) else None
            continue
        nums = [float(v) for v in vals if isinstance(v, (int, float))]
        means[key] = sum(nums) / len(nums) if nums else None
        if nums:
            ranges[key] = [min(nums), max(nums)]
    return means, ranges


def _run_many(run: CaseRun, state: State, config: RunConfig, progress, where: dict | None = None) -> None:
    """LLM_RUNS > 1: compile, materialize, validate and score each run in ``runs/<i>/``; the case's
    scores are the macro average over runs (BLINKG), with min and max."""
    children: list[CaseRun] = []
    for i, result in enumerate(state.results):
        child = CaseRun(run.case, run.folder / "runs" / str(i), config=run.config)
        child.folder.mkdir(parents=True, exist_ok=True)
        sub = State(ontology=state.ontology, sources=state.sources)
        use_result(child, sub, result)
        _stages(child, sub, config, STAGES[2:], progress, where)
        _after_failure(child, sub, config)
        finish(child)
        children.append(child)
        state.results[i] = (result, sub)
    run.findings.extend(f if f.message.startswith(f"run {i}:") else dataclasses.replace(f, message=f"run {i}: {f.message}")
                        for i, c in enumerate(children) for f in c.findings)
    for i, c in enumerate(children):
        for name, seconds in c.timings.items():
            run.timings[name] = run.timings.get(name, 0.0) + seconds
    failed = [(i, c) for i, c in enumerate(children) if c.status != "ok"]
    if failed:
        i, c = failed[0]
        which = f"all {len(children)} runs" if len(failed) == len(children) else \
            f"run{'s' if len(failed) > 1 else ''} {', '.join(str(k) for k, _ in failed)} of {len(children)}"
        stages = list(dict.fromkeys(str(x.failed_stage) for _, x in failed))
        run.status, run.failed_stage, run.error, run.error_kind = "failed", f"{' / '.join(stages)} ({which})", \
            c.error, c.error_kind
    run.counts = {"runs": len(children), "runs_ok": len(children) - len(failed)}
    run.extra["runs"] = [{"run": i, "folder": f"runs/{i}", "status": c.status, "failed_stage": c.failed_stage,
                          "error": c.error, "counts": c.counts,
                          "mapping_f1": (c.extra.get("mapping_scores") or {}).get("f1"),
                          "mapping_f1_raw": (c.extra.get("mapping_scores_raw") or {}).get("f1"),
                          "graph_scores": c.extra.get("graph_scores", {})} for i, c in enumerate(children)]
    run.extra["graph_scores"], run.extra["graph_scores_range"] = _values_over_runs(
        [c.extra.get("graph_scores", {}) for c in children if c.extra.get("graph_scores")])
    validation, _ = _values_over_runs([{k: v.get("value") for k, v in c.extra.get("graph_validation", {}).items()}
                                       for c in children if c.extra.get("graph_validation")])
    if validation:
        run.extra["graph_validation"] = {k: {"value": v, "status": "over runs"} for k, v in validation.items()}
    case = run.case
    if config.evaluate and case.gold_table is not None and not is_self_replay(case, config):
        gold = read_table(case.gold_table)
        tables = [sub.table for _, sub in state.results]
        run.extra["mapping_scores"], run.mapping_report = mapping_scores(
            tables, gold, state.ontology, case, state.sources, run.folder)
        raws = [sub.raw for _, sub in state.results if sub.raw is not None]
        if len(raws) == len(tables):
            run.extra["mapping_scores_raw"], _ = mapping_scores(raws, gold, state.ontology, case, state.sources,
                                                                run.folder, stem="mapping-raw")


def run_case(case: Case, config: RunConfig = RunConfig(),
             progress: Callable[[str], None] | None = None) -> CaseRun:
    """Run every stage for ``case`` and write the artifacts.

    With a mapper that returns several runs (the LLM mapper with ``LLM_RUNS=n``), the stages after
    ``map`` run once per run in ``runs/<i>/``, and the case folder gets the scores macro-averaged
    over the runs (``mapping_scores`` with ``f1_min``/``f1_max``; ``graph_scores`` means with
    ``graph_scores_range``) and the per-run summary under ``runs`` in ``run.json``.

    Args:
        case: the scenario case.
        config: run settings.
        progress: called with each stage's name as it starts (the CLI shows it on its progress bar).
    Returns:
        The :class:`CaseRun`; a failing stage sets ``status="failed"`` (and ``failed_stage``)
        instead of raising, and the artifacts of the stages before it stay on disk.
    Raises:
        RunInterrupted: Ctrl-C; this run's folder is kept as ``<case>.interrupted/`` and the earlier
            run is back in place (see the module docstring).
    """
    folder = config.out_dir / case.scenario / case.name
    run = CaseRun(case, folder, config={"mapper": config.mapper, "mapper_options": config.mapper_options,
                                        "processes": config.processes, "out_dir": str(config.out_dir),
                                        "evaluate": config.evaluate})
    state = State()
    where = {"stage": "start"}
    previous = begin(folder)  # the earlier run waits aside until this one ends
    try:  # from here until run.json is written, Ctrl-C puts the earlier run back and says where this one is
        if config.mapper_options.get("table"):  # a table edited inside the run's own folder: read where it was
            carry(Path(config.mapper_options["table"]), folder, previous)
        if _stages(run, state, config, STAGES[:2], progress, where):
            if len(state.results) > 1:
                _run_many(run, state, config, progress, where)
            else:
                _stages(run, state, config, STAGES[2:], progress, where)
                _after_failure(run, state, config)
        where["stage"] = "the end (run.json)"
        finish(run)
    except KeyboardInterrupt:
        raise _interrupted(run, previous, where["stage"]) from None
    with signals_held():  # the folders' swap is whole: this run in place (or aside when it failed), never half
        if previous is not None and run.status == "failed":
            # a failed run (bad input, an unreachable LLM server, a crash) loses nothing already written:
            # the earlier run comes back, this one's audit, run.json and stages so far wait in <case>.failed/
            kept = aside(folder, ".failed")
            replace(folder, kept)
            previous.rename(folder)
            run.folder = kept
        else:
            if previous is not None:
                shutil.rmtree(previous, ignore_errors=True)
            shutil.rmtree(aside(folder, ".failed"), ignore_errors=True)  # an older bad-input run: superseded
    return run
