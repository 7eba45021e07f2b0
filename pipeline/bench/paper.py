"""Benchmark: the offline mapper next to the LLMs of the BLINKG paper, task by task.

Usage::

    python -m pipeline.bench.paper [--blinkg DIR] [--scenario scenario3] [--case 1 ...]
                                   [--llm-tables EVALUATION_DIR [--blinkg-rules]] [--write-rescored FILE]
                                   [--out FILE]

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

With ``--blinkg-rules`` the same LLM tables are also scored with BLINKG's own rules
(:mod:`.paper_blinkg`) and put next to the published figures: that checks our reading of their
tables, apart from the differences of the two scorers. Progress goes to standard error, one line
per case and model.

A benchmark, not a test: it prints numbers and a verdict, and asserts nothing. The figures are
read and scored in :mod:`.paper_scores`, compared and printed in :mod:`.paper_compare`.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Iterable

from pipeline.bench import bench_parser, bench_root
from pipeline.bench.paper_blinkg import rescore_with_blinkg_rules
from pipeline.bench.paper_compare import agreement_markdown, compare, comparison_markdown
from pipeline.bench.paper_scores import (LLM_FOLDERS, gold_cases, llm_reports, load_published, load_rescored,
                                         offline_reports, rescore, rescored_cases, write_rescored)
from pipeline.errors import InputError
from pipeline.scoring.mapping import scenario_task_scores

__all__ = ["SCENARIOS", "main"]

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
    if not any((folder / f"{sc}{suffix}").is_dir() for sc in scenarios for suffix in LLM_FOLDERS):
        wanted = ", ".join(f"{sc}_clean" for sc in scenarios)
        return f"{folder}: no LLM tables for {', '.join(scenarios)} (expected folders such as {wanted})"
    return None


def _progress(line: str) -> None:
    """One line per case on standard error while the bench runs (a full run takes minutes)."""
    print(f"bench-paper: {line}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns 0, or 2 on bad input (missing or unusable folders, unknown scenario,
    an output file that cannot be written); every error is one line on stderr."""
    ap = bench_parser("bench-paper", __doc__)
    ap.add_argument("--case", action="append", default=None, help="only this case (repeatable)")
    ap.add_argument("--llm-tables", default=None, help="BLINKG's evaluation/ folder: rescore the LLM tables")
    ap.add_argument("--llm-source", default=None,
                    help="where the LLM tables come from, recorded in the snapshot (default: the --llm-tables path)")
    ap.add_argument("--blinkg-rules", action="store_true",
                    help="with --llm-tables: also rescore the LLM tables with BLINKG's own scoring rules and put "
                         "them next to the published figures (a check of our reading of their tables)")
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
            reports = offline_reports(root, scenario, args.case, progress=_progress)
            if not reports:
                print(f"bench-paper: {scenario}: no case with a gold table"
                      + (f" among {args.case}" if args.case else ""), file=sys.stderr)
                continue
            offline = scenario_task_scores(reports)
            rescored, label = (snapshot.get(scenario), snap_label) if not args.case else (None, "")
            if args.llm_tables:
                try:
                    tables, notes = llm_reports(Path(args.llm_tables), root, scenario, args.case, progress=_progress)
                except InputError as exc:  # tables for other scenarios only: this one keeps the snapshot
                    print(f"bench-paper: note: {exc}", file=sys.stderr)
                    tables, notes = {}, []
                for note in notes:
                    print(f"bench-paper: note: {note}", file=sys.stderr)
                if tables:
                    fresh[scenario] = rescore(tables)
                    rescored, label = fresh[scenario], f"LLM tables from {args.llm_tables}, scored now"
                    common = rescored_cases(tables) & {r.case for r in reports}
                    if common and len(common) < len(reports):
                        # the LLM tables cover fewer cases (scenario 2: no LLM table for `complete`, no data for
                        # d5 here): compare both on the cases they share, offline figures over those cases only
                        shared = {st: {m: [r for r in rs if r.case in common] for m, rs in models.items()}
                                  for st, models in tables.items()}
                        comp = compare(scenario, scenario_task_scores([r for r in reports if r.case in common]),
                                       [], rescore(shared), cases=len(common))
                        parts.append(comparison_markdown(comp, f"{label}; the {len(common)} cases both have: "
                                                                f"{', '.join(sorted(common))}"))
                        print(parts[-1], flush=True)
            comp = compare(scenario, offline, published, rescored, cases=len(reports))
            parts.append(comparison_markdown(comp, label if rescored else ""))
            print(parts[-1], flush=True)
            if args.llm_tables and args.blinkg_rules:
                cases = {c.name: c for c in gold_cases(root, scenario, args.case)}
                rules = rescore_with_blinkg_rules(Path(args.llm_tables), cases, scenario, progress=_progress)
                if rules:
                    parts.append(agreement_markdown(scenario, published, rules))
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
