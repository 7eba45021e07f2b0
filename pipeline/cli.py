"""Command line: ``kgc <command>``; every command calls the same functions as the Python API.

Exit codes: 0 success; 1 a run failed (``run``), triples were dropped as invalid
(``materialize``) or the KG fails validation (``validate``); 2 bad input.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys

from pipeline import __version__
from pipeline.commands.build import add_compile_parser, add_map_parser, add_materialize_parser
from pipeline.commands.check import add_score_parser, add_validate_parser
from pipeline.commands.data import add_data_parser, add_synth_parser
from pipeline.commands.run import add_run_parser
from pipeline.errors import InputError, PipelineError

__all__ = ["main", "build_parser"]

LOGGER = logging.getLogger("pipeline")


#: What -q does: the findings of the inputs, the table and the KG are the command's output and are
#: printed whatever their severity (scripts and tests read them); only logging and the bar go.
QUIET_HELP = "no progress bar and no log lines below error (the findings, warnings and infos too, are still printed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``kgc`` (subcommands: data, run, map, compile, materialize, validate, score)."""
    p = argparse.ArgumentParser(prog="kgc", description="Knowledge-graph construction: mapping table -> RML -> KG.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    sub = p.add_subparsers(dest="command", required=True)
    # -v/-q are accepted after the subcommand too; SUPPRESS keeps a subcommand from resetting them
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug logging")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP)

    add_data_parser(sub, common)
    add_run_parser(sub, common)
    from pipeline.text.cli import add_parser as add_text_parser
    add_text_parser(sub, common)
    add_validate_parser(sub, common)
    add_score_parser(sub, common)
    add_synth_parser(sub, common)
    add_map_parser(sub, common)
    add_compile_parser(sub, common)
    add_materialize_parser(sub, common)
    return p



def main(argv: list[str] | None = None) -> int:
    """Entry point of ``kgc``; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR if args.quiet else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        # rdflib logs a traceback for every ill-typed literal it meets; the guards and SV2 report them
        logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `kgc ... | head`: the reader left; not an input error
        try:  # the Python docs' recipe (signal module, "Note on SIGPIPE"): no second error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
