"""Benchmarks (time and memory), not tests: ``python -m pipeline.bench.<name>``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.bench.blinkg import blinkg_dir
from pipeline.errors import InputError

__all__ = ["bench_parser", "bench_root"]


def bench_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """Argument parser shared by the benchmarks: ``--blinkg DIR`` and ``--scenario NAME``."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    ap.add_argument("--blinkg", default=None, help="BLINKG folder (default $BLINKG_DIR or ../shared/benchmarks/blinkg)")
    ap.add_argument("--scenario", default=None, help="only this scenario (scenario1, scenario2, scenario3)")
    return ap


def bench_root(args: argparse.Namespace, prog: str) -> Path | None:
    """The benchmark folder of ``args``; ``None`` after printing why it is missing (exit 2, like the CLI)."""
    try:
        return blinkg_dir(args.blinkg)
    except InputError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
