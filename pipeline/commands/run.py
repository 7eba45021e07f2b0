"""``kgc run``: every stage for one or many cases, a report per scenario, the exit code."""
from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml
from tqdm import tqdm

from pipeline.commands import chosen_mapper, require_llm_settings
from pipeline.errors import InputError, interruption_in
from pipeline.llm import LLMSettings
from pipeline.manifest import is_text_manifest, load_manifest
from pipeline.materialize.data_errors import POLICIES
from pipeline.mappers import DEFAULT_MAPPER, get_mapper, known_mappers
from pipeline.report import case_entry, case_folders, write_report
from pipeline.run.evaluate import validation_passed
from pipeline.run.runner import RunConfig, RunInterrupted, run_case, versions
from pipeline.scoring.mapping import write_scenario_markdown
from pipeline.validation.loss import coverage_loss

__all__ = ["PARSERS", "add_run_parser", "StageLines"]

def _manifests(paths: list[str]) -> list[Path]:
    """The table-case manifests named or found in folders; a text manifest found in a folder is skipped
    with a note (``kgc text`` runs it), one named on the command line is refused by :func:`load_manifest`."""
    out: list[Path] = []
    skipped = 0
    for p in map(Path, paths):
        if p.is_dir():
            for m in sorted(p.rglob("*.yaml")):
                if _is_text(m):
                    print(f"note: {m}: a text manifest (kind: text), skipped: run it with kgc text", file=sys.stderr)
                    skipped += 1
                else:
                    out.append(m)
        elif p.exists():
            out.append(p)
        else:
            raise InputError("manifest or folder not found", path=p)
    if not out and skipped:
        raise InputError(f"no table-case manifest in {', '.join(paths)}: only text manifests (run them with kgc text)")
    if not out:
        raise InputError(f"no manifest (*.yaml) found in {', '.join(paths)}")
    return out


def _is_text(path: Path) -> bool:
    """Whether the YAML file at ``path`` is a text manifest (unreadable YAML is left to load_manifest)."""
    try:
        return is_text_manifest(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return False


def _run_exit_code(runs: list) -> int:
    """2 when a case failed on bad input, 1 when a case failed otherwise, the guards dropped
    triples of its KG (as ``kgc materialize`` exits 1 then: data was lost) or values a row reads a
    language tag for have none (no literal is made of them: lost too), a replayed table
    had rows the compiler left out for errors (as ``kgc compile`` exits 1 then: that table is the
    user's input; rows an offline or LLM mapper proposed and the audit rejected are that mapper's
    errors, scored and listed in audit.md, not lost input; rows marked for review are shown, not
    lost), or its KG fails validation (SV2, CS2, SHACL) or was not validated (a check did not run
    or finish; see :func:`pipeline.run.evaluate.validation_passed`), else 0."""
    if any(r.status != "ok" and r.error_kind == "input" for r in runs):
        return 2
    if any(r.status != "ok" for r in runs):
        return 1
    if any(r.counts.get("triples_dropped_by_guards") for r in runs):
        return 1
    if any(coverage_loss(r.counts, None, r.findings).untagged for r in runs):
        return 1
    if any(r.config.get("mapper") == "replay" and r.counts.get("rows_dropped", 0) > 0 for r in runs):
        return 1
    invalid = [r for r in runs if not validation_passed(r.extra.get("graph_validation", {}))]
    return 1 if invalid else 0


class StageLines:
    """A line per stage on a terminal (stderr): ``scale/sensors: materialize ... (compile 0.4 s)``, so that
    a run of minutes shows it is working and which stage is slow. Written through ``tqdm.write`` (above
    the bar of cases); nothing with ``-q`` or when stderr is not a terminal (a log keeps the case lines
    and ``run.json``'s timings instead).

    Args:
        enabled: print the lines (``kgc run`` passes: not ``-q`` and stderr is a terminal).
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._last: tuple[str, str, float] | None = None  # case, stage, start (perf_counter)

    def start(self, case: str, stage: str) -> None:
        """The stage ``stage`` of ``case`` starts: one line, with the time the stage before took."""
        now = time.perf_counter()
        before = ""
        if self._last is not None and self._last[0] == case:
            before = f" ({self._last[1]} {now - self._last[2]:.1f} s)"
        self._last = (case, stage, now)
        if self.enabled:
            tqdm.write(f"{case}: {stage} ...{before}", file=sys.stderr)

    def end(self) -> None:
        """The case ended (its summary line follows and gives the total)."""
        self._last = None


def _report_meta(config) -> dict:
    """Header facts of a report: mapper, model and settings (LLM), date, versions."""
    meta = {"mapper": config.mapper, "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "settings": {k: v for k, v in config.mapper_options.items()}, "versions": versions()}
    if config.mapper == "llm":
        settings = LLMSettings.from_env().public()
        meta["model"] = settings.pop("model")
        meta["settings"].update({k: v for k, v in settings.items() if v is not None and k != "cache_dir"})
    return meta


def _cmd_run(args: argparse.Namespace) -> int:
    args.mapper = chosen_mapper(args.mapper, args.table, DEFAULT_MAPPER)  # a usage error before any work
    manifests = _manifests(args.manifests)
    cases = [load_manifest(m) for m in manifests]  # validate all before running any
    seen: dict[tuple[str, str], Path] = {}
    for case in cases:
        key = (case.scenario, case.name)
        if key in seen:
            raise InputError(f"case {case.scenario}/{case.name} is also defined by {seen[key]}; both would write "
                             f"{Path(args.out) / case.scenario / case.name} (give one another name or scenario)",
                             path=case.manifest, key="name")
        seen[key] = case.manifest
    # the run stage, reports and scores load here only: `kgc compile`/`kgc materialize` start without them

    options = {"table": args.table} if args.table else {}
    get_mapper(args.mapper)  # an unknown mapper is bad input: fail before running anything
    require_llm_settings(args.mapper)
    if args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    config = RunConfig(out_dir=Path(args.out), mapper=args.mapper, mapper_options=options, processes=args.processes,
                       turtle=args.turtle, evaluate=args.evaluate, on_data_error=args.on_data_error)
    runs = []
    mapping_reports: dict[str, list] = {}
    # a bar on a terminal only (tqdm's disable=None): in a log or CI output its carriage returns are
    # noise, and each case's summary line says the same
    # no monitor thread: the stages fork (engine pool, guard worker, parallel validation), and a fork
    # while another thread holds a lock leaves that lock held in the child for ever
    tqdm.monitor_interval = 0
    bar = tqdm(cases, desc="cases", unit="case", disable=True if args.quiet else None, file=sys.stderr)
    lines = StageLines(enabled=not args.quiet and sys.stderr.isatty())
    try:
        for case in bar:
            def progress(stage: str, c=case) -> None:
                bar.set_postfix_str(f"{c.name}: {stage}")
                lines.start(f"{c.scenario}/{c.name}", stage)
            result = run_case(case, config, progress=progress)
            lines.end()
            runs.append(result)
            tqdm.write(result.summary())
            if result.mapping_report is not None:
                mapping_reports.setdefault(case.scenario, []).append(result.mapping_report)
    except RunInterrupted:  # inside a case: its own line says where its files and the earlier run are
        raise
    except KeyboardInterrupt as exc:  # between two cases (a summary line printing)
        ended = ", ".join(f"{r.case.scenario}/{r.case.name}" for r in runs) or "none"
        raise KeyboardInterrupt(f"{exc}; " * bool(str(exc)) + f"between cases: the folders of the cases that ended "
                                f"({ended}) are this run's; no report was written") from None
    for scenario in (dict.fromkeys(r.case.scenario for r in runs) if args.evaluate else ()):
        out = Path(args.out) / scenario
        written = False
        try:
            # every case whose artifacts are in the folder: a run of one case keeps the others in the report
            entries = [case_entry(f, out, earlier_run=earlier) for f, earlier in
                       case_folders(out, [r.folder for r in runs if r.case.scenario == scenario])]
            paths = write_report(entries, out, stem="report", meta=_report_meta(config))
            written = True
            print(f"\n{scenario}: mapping level (BLINKG task F1 vs gold table) next to graph level "
                  f"(SA2 property F1 vs gold KG); n/a = no independent gold. Report: {paths['html']}")
            print(paths["console"])
            if mapping_reports.get(scenario):
                md = write_scenario_markdown(mapping_reports[scenario], out, scenario)
                print(f"mapping-level tasks x P/R/F1 (raw and post-processed): {md}")
        except Exception as exc:  # an interruption Python reraised as another error (an import's class body)
            if (cause := interruption_in(exc)) is None:
                raise
            raise KeyboardInterrupt(_report_interrupted(str(cause), out, written)) from None
        except KeyboardInterrupt as exc:  # the cases ended: say which report files are this run's
            raise KeyboardInterrupt(_report_interrupted(str(exc), out, written)) from None
    return _run_exit_code(runs)


def _report_interrupted(signal_said: str, out: Path, written: bool) -> str:
    """The one line of a run interrupted while it wrote a scenario's report (``write_report`` replaces
    report.json, .md and .html together: all of them are this run's or none)."""
    head = f"{signal_said}; " if signal_said else ""
    if written:
        return f"{head}after the report was written: the cases' folders and {out}/report.json, .md, .html are this run's"
    return (f"{head}while the report was written: the cases' folders are this run's, {out}/report.json, .md, "
            f".html are not (the earlier run's, if any); run the command again to write them")


def add_run_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc run`` on the CLI's subparsers."""
    r = sub.add_parser("run", parents=[common], help="map, compile, materialize, validate and score one or many cases",
                       description="Run every stage for each manifest and write out/<scenario>/<case>/ "
                                   "(table, audit, RML, KG, validation, scores, run.json) and a report per "
                                   "scenario (report.md/html/json). Exit 0 when every case ran and its KG passed "
                                   "validation, 1 when a case failed or a KG fails SV2/CS2/SHACL, 2 on bad input. "
                                   "Example: kgc run data/manifests/blinkg/scenario3 --mapper replay")
    r.add_argument("manifests", nargs="+", help="manifest files or folders of them")
    r.add_argument("-o", "--out", default="out",
                   help="output root: each case writes <out>/<scenario>/<case>/, each scenario a report in "
                        "<out>/<scenario>/ (default: %(default)s; a case's earlier folder is replaced when the "
                        "new run ends)")
    r.add_argument("--mapper", default=None,
                   help=f"one of: {', '.join(known_mappers())} (default: {DEFAULT_MAPPER}; replay with --table). llm reads LLM_MODEL, "
                        "LLM_API_BASE, LLM_API_KEY, LLM_RUNS (runs per case, kept in runs/<i>/, scores "
                        "macro-averaged with min/max), LLM_CONTEXT_WINDOW (the model's context window in tokens, "
                        "prompt plus answer; default: what the server reports, else litellm's figure), "
                        "LLM_MAX_TOKENS (default: sized from the case, capped by the window), LLM_ONTOLOGY "
                        "(auto|all|retrieved), LLM_TIMEOUT (longest silence, s), LLM_MAX_RETRIES, "
                        "LLM_TEMPERATURE, LLM_SHOTS, KGC_CACHE_DIR from the environment. Ctrl-C keeps the "
                        "interrupted run in <case>.interrupted/ and the earlier run in place (exit 130)")
    r.add_argument("--table", help="table file for the replay mapper, which --table implies (default: the case's gold "
                        "table); refused with another --mapper")
    r.add_argument("--processes", type=int, default=1, help="Morph-KGC worker processes")
    r.add_argument("--on-data-error", choices=POLICIES, default="drop",
                   help="a term the data make invalid (R2RML section 11): 'drop' drops and reports it (default), "
                        "'stop' ends the case at the first one with exit 2 and one line naming the TriplesMap, term "
                        "map, source, record and value (the artifacts before it are kept)")
    r.add_argument("--turtle", action="store_true", help="also write the KG as Turtle (kg.ttl)")
    r.add_argument("--no-evaluate", dest="evaluate", action="store_false",
                   help="stop after materialize (and the expected-graph check): no validation, no scores")
    r.set_defaults(func=_cmd_run)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"run": add_run_parser}
