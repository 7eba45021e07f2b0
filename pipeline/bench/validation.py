"""Benchmark: time of each graph-layer check on the gold KG of every BLINKG case.

Usage::

    python -m pipeline.bench.validation [--blinkg DIR] [--scenario scenario2]

For each case the gold table is replayed through compile and materialize (no
scoring), then SV2, CS2-owlrl (reduced to the instance data the schema
constrains, and on the whole KG), CS2-hermit (where Java is available) and
SHACL are timed (wall clock, seconds). A benchmark, not a test: nothing is
asserted; a check that times out shows its status.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rdflib import Graph

from pipeline.bench import bench_parser, bench_root
from pipeline.bench.blinkg import blinkg_cases
from pipeline.ontology import load_ontology
from pipeline.run.runner import RunConfig, run_case
from pipeline.validation.consistency import hermit_available, hermit_consistency, owlrl_consistency
from pipeline.validation.shacl import validate_shacl
from pipeline.validation.syntax import check_ntriples

__all__ = ["bench", "main"]


def _timed(fn, *args, **kwargs) -> tuple[str, float]:
    t0 = time.perf_counter()
    result = fn(*args, **kwargs)
    return (result.status if result.value is None else str(result.value)), time.perf_counter() - t0


def bench(root: Path, scenario: str | None = None) -> list[dict]:
    """Time every check per case; returns ``[{scenario, case, triples, <check>: (value, seconds)}]``.

    Raises:
        InputError: ``root`` is no BLINKG folder.
    """
    cases, _ = blinkg_cases(root)
    out = []
    for case in cases:
        if (scenario and case.scenario != scenario) or case.gold_table is None:
            continue
        with tempfile.TemporaryDirectory(prefix="bench-validation-") as tmp:
            run = run_case(case, RunConfig(out_dir=Path(tmp), evaluate=False))
            if run.status != "ok":
                continue
            kg_path = run.folder / "kg.nt"
            kg = Graph().parse(kg_path, format="nt")
            onto = load_ontology([*case.ontologies, *case.skos], case.prefixes).graph
            row = {"scenario": case.scenario, "case": case.name, "triples": len(kg),
                   "SV2": _timed(check_ntriples, kg_path),
                   "CS2-owlrl": _timed(owlrl_consistency, kg, onto),
                   "CS2-owlrl-full": _timed(owlrl_consistency, kg, onto, reduce=False),
                   "SHACL": _timed(validate_shacl, kg, onto)}
            if hermit_available():
                row["CS2-hermit"] = _timed(hermit_consistency, kg, onto)
            out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit code (0; 2 when the benchmark folder is missing)."""
    ap = bench_parser("bench-validation", __doc__)
    args = ap.parse_args(argv)
    root = bench_root(args, "bench-validation")
    if root is None:
        return 2
    checks = ["SV2", "CS2-owlrl", "CS2-owlrl-full", "CS2-hermit", "SHACL"]
    print(f"{'scenario':<16} {'case':<9} {'triples':>7}  " + "  ".join(f"{c + ' (s)':>18}" for c in checks))
    for r in bench(root, args.scenario):
        cells = [f"{r[c][1]:>9.2f} {r[c][0][:8]:>8}" if c in r else f"{'n/a':>18}" for c in checks]
        print(f"{r['scenario']:<16} {r['case']:<9} {r['triples']:>7}  " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
