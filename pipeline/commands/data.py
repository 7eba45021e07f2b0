"""``kgc data`` (BLINKG manifests) and ``kgc synth`` (unseen scenarios)."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from pipeline.bench.blinkg import blinkg_dir, write_manifests
from pipeline.errors import InputError
from pipeline.synth import generate
from pipeline.synth.check import check_gold
from pipeline.synth.vocab import LEVELS as SYNTH_LEVELS

__all__ = ["PARSERS", "add_data_parser", "add_synth_parser"]

def _cmd_data(args: argparse.Namespace) -> int:
    root = blinkg_dir(args.blinkg)
    paths, notes = write_manifests(root, Path(args.out), tuple(args.formats))
    for n in notes:
        print(f"note: {n}")
    print(f"{len(paths)} manifests written under {args.out} (benchmark: {root})")
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError("the scenario folder is a file; expected a folder", path=args.out)
    old = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if old and not args.force:
        # files of an earlier scenario would stay next to the new one (another manifest, other data)
        raise InputError(f"the scenario folder is not empty ({len(old)} entries, e.g. {', '.join(old[:3])}); "
                         "expected an empty or new folder (--force writes into it anyway)", path=args.out)
    try:
        sc = generate(args.seed, args.level, args.out)
    except OSError as exc:
        raise InputError(f"cannot write the scenario: {exc.strerror or exc}", path=args.out) from exc
    print(f"{sc.domain} scenario at level {sc.level} written to {sc.folder} (manifest {sc.manifest.name}; "
          + ", ".join(f"{k}={v}" for k, v in sc.formats.items()) + ")")
    if not args.check:
        return 0


    with tempfile.TemporaryDirectory(prefix="kgc-synth-check-") as tmp:  # keeps the scenario folder as generated
        res = check_gold(sc.manifest, tmp)
    if res.agree:
        print(f"gold check: the gold table compiles to the gold KG ({res.n_gold} triples)")
        return 0
    print(f"gold check: the compiled gold table differs from the gold KG: {len(res.missing)} of {res.n_gold} "
          f"triple(s) missing, {len(res.extra)} extra; reported by the pipeline: {len(res.findings)} finding(s)")
    for line in [*res.findings[:10], *res.missing[:5], *res.extra[:5]]:
        print(f"  {line}")
    return 1


def add_data_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc data`` on the CLI's subparsers."""
    d = sub.add_parser("data", parents=[common], help="write manifests for the BLINKG benchmark cases",
                       description="Write one manifest per BLINKG case (paths point into the benchmark folder). "
                                   "Example: kgc data --out data/manifests/blinkg")
    d.add_argument("--blinkg", help="benchmark folder (default: $BLINKG_DIR or ../shared/benchmarks/blinkg)")
    d.add_argument("-o", "--out", default="data/manifests/blinkg",
                   help="folder for the manifests, one sub-folder per scenario (default: %(default)s)")
    d.add_argument("--formats", nargs="+", default=["csv"], choices=["csv", "json", "xml"],
                   help="scenario-1 input formats to generate cases for")
    d.set_defaults(func=_cmd_data)


def add_synth_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc synth`` on the CLI's subparsers."""
    y = sub.add_parser("synth", parents=[common], help="generate an unseen scenario with a controlled schema distance",
                       description="Write an ontology (+ SKOS code list), CSV/JSON/XML data, a manifest, the gold "
                                   "table and the gold KG for one seed; column names at the given distance from the "
                                   "ontology's labels (label, synonym, language, opaque). Same seed, same files. "
                                   "Example: kgc synth --seed 7 --level synonym --out synth/7")
    y.add_argument("--seed", type=int, required=True, help="integer seed (picks domain, formats and values)")
    y.add_argument("--level", required=True, choices=list(SYNTH_LEVELS),
                   help="schema distance of the column names")
    y.add_argument("-o", "--out", required=True,
                   help="scenario folder (created); a folder that is not empty is refused (exit 2) unless --force")
    y.add_argument("--force", action="store_true",
                   help="write into a non-empty --out folder: the scenario's files are overwritten, other files "
                        "stay as they are")
    y.add_argument("--check", action="store_true",
                   help="also compile the gold table and compare with the gold KG (exit 1 when they differ)")
    y.set_defaults(func=_cmd_synth)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"data": add_data_parser, "synth": add_synth_parser}
