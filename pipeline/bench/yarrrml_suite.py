"""kgc's YARRRML reader on every YARRRML file of yarrrml-parser's test suite: what it translates, and
why it refuses the rest.

Usage: ``python -m pipeline.bench.yarrrml_suite --suite <yarrrml-parser checkout>/test``. Each file is
read as ``kgc compile`` reads it (the YARRRML reader, then the checks of ``kgc materialize``); the
outcome is ``translated``, ``no data`` (the suite has no data file for it: the reader accepted the
document and the source check stopped) or ``refused`` with the first words of the reason. The KGs of
the examples that have data are compared with yarrrml-parser's in ``tests/test_yarrrml_parser_anchor.py``.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from pipeline.compile.yarrrml import load_yarrrml
from pipeline.errors import InputError
from pipeline.materialize.rml.normalize import normalize_rml

__all__ = ["outcome", "main"]


def outcome(path: Path) -> str:
    """``translated``, ``no data`` or ``refused: <reason>`` for one YARRRML file."""
    try:
        doc = load_yarrrml(path)
        normalize_rml(doc.graph, mapping_dir=path.resolve().parent, where=str(path))
    except InputError as exc:
        text = str(exc)
        if "logical source file" in text and "not found" in text:
            return "no data"
        reason = re.sub(r"^.*?: (?:mapping '[^']*'(?:, [^:]*)?: |the document: |TriplesMap <[^>]*>(?:, [^:]*)?: )?", "",
                        text, count=1)
        reason = re.sub(r"'[^']*'|\"[^\"]*\"|<[^>]*>", "…", reason)
        return "refused: " + " ".join(reason.split()[:9])
    return "translated"


def main(argv: list[str] | None = None) -> int:
    """Print one line per file and a table of outcomes; exit 2 when the suite folder is missing."""
    ap = argparse.ArgumentParser(prog="python -m pipeline.bench.yarrrml_suite", description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", required=True, help="the test/ folder of a yarrrml-parser checkout")
    args = ap.parse_args(argv)
    suite = Path(args.suite)
    if not suite.is_dir():
        print(f"error: {suite}: no such folder", file=sys.stderr)
        return 2
    files = sorted(p for p in suite.rglob("*") if p.suffix in (".yml", ".yaml", ".yarrrml") and "r2rml" not in p.parts)
    counts: Counter[str] = Counter()
    for f in files:
        result = outcome(f)
        counts[result] += 1
        print(f"{f.relative_to(suite)}: {result}")
    print(f"\n| outcome | files |\n|---|---|")
    for result, n in counts.most_common():
        print(f"| {result} | {n} |")
    print(f"| total | {len(files)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
