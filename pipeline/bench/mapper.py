"""Benchmark: time and peak memory of the offline mapper per BLINKG scenario and case.

Usage::

    python -m pipeline.bench.mapper [--blinkg DIR] [--scenario scenario1] [--lexical]

Prints one line per case: scenario, case, rows, seconds (wall clock,
``time.perf_counter``) and peak Python heap in MiB (``tracemalloc``: memory
allocated through Python's allocator, so torch's native buffers are not
counted; the process's peak RSS from ``resource.getrusage`` is printed at the
end). A benchmark, not a test: nothing is asserted.
"""
from __future__ import annotations

import logging
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from pipeline.bench import bench_parser, bench_root
from pipeline.bench.blinkg import blinkg_cases
from pipeline.mappers import get_mapper, load_inputs

__all__ = ["bench", "main"]

log = logging.getLogger(__name__)


def bench(root: Path, scenario: str | None = None, use_embeddings: bool | None = None) -> list[dict]:
    """Run the offline mapper on every case; returns ``[{scenario, case, rows, seconds, peak_mib}]``.

    Raises:
        InputError: ``root`` is no BLINKG folder.
    """
    cases, _ = blinkg_cases(root)
    mapper = get_mapper("offline")
    out = []
    for case in cases:
        if scenario and case.scenario != scenario:
            continue
        with tempfile.TemporaryDirectory(prefix="bench-mapper-") as tmp:
            tracemalloc.start()
            t0 = time.perf_counter()  # time and memory include loading the ontology and the sources
            result = mapper.map(load_inputs(case, Path(tmp)), use_embeddings=use_embeddings)
            seconds = time.perf_counter() - t0
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        out.append({"scenario": case.scenario, "case": case.name, "rows": len(result.table),
                    "seconds": seconds, "peak_mib": peak / 2 ** 20,
                    "similarity": result.provenance.get("similarity")})
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit code (0; 2 when the benchmark folder is missing)."""
    ap = bench_parser("bench-mapper", __doc__)
    ap.add_argument("--lexical", action="store_true", help="lexical similarity only (no embeddings)")
    args = ap.parse_args(argv)
    root = bench_root(args, "bench-mapper")
    if root is None:
        return 2
    print(f"{'scenario':<12} {'case':<10} {'rows':>5} {'seconds':>8} {'peak MiB':>9}  similarity")
    for r in bench(root, args.scenario, False if args.lexical else None):
        print(f"{r['scenario']:<12} {r['case']:<10} {r['rows']:>5} {r['seconds']:>8.2f} {r['peak_mib']:>9.1f}  "
              f"{r['similarity']}")
    print(f"process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
