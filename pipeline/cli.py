"""Command line: ``kgc <command>``; every command calls the same functions as the Python API.

Exit codes: 0 success; 1 a run failed (``run``), triples were dropped as invalid
(``materialize``) or the KG fails validation (``validate``); 2 bad input; 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from pipeline import __version__
from pipeline.errors import InputError, PipelineError, interruption_in

__all__ = ["main", "build_parser", "COMMANDS", "option_as_typed"]

LOGGER = logging.getLogger("pipeline")


#: What -q does: the findings of the inputs, the table and the KG are the command's output and are
#: printed whatever their severity (scripts and tests read them); only logging and the bar go.
QUIET_HELP = "no progress bar and no log lines below error (the findings, warnings and infos too, are still printed)"


#: Subcommand -> (module that registers it, one-line summary). A command's module, and the stages
#: it imports, load only when that command runs (pip's commands registry): ``kgc materialize``
#: does not pay for the mappers, the scorers or the text extractor. Each module has
#: ``PARSERS: {name: add_parser(sub, common)}``; the summary is the help its parser gives.
COMMANDS: dict[str, tuple[str, str]] = {
    "data": ("pipeline.commands.data", "write manifests for the BLINKG benchmark cases"),
    "run": ("pipeline.commands.run", "map, compile, materialize, validate and score one or many cases"),
    "text": ("pipeline.text.cli", "extract a KG from sentences (text manifests), validate and score it"),
    "validate": ("pipeline.commands.check",
                 "validate a KG: strict syntax (SV2), OWL 2 RL consistency (CS2), SHACL"),
    "score": ("pipeline.commands.check", "score a table and/or a KG against the case's gold"),
    "synth": ("pipeline.commands.data", "generate an unseen scenario with a controlled schema distance"),
    "map": ("pipeline.commands.build", "propose a mapping table for a case"),
    "compile": ("pipeline.commands.build", "compile a mapping table (or YARRRML) into RML"),
    "materialize": ("pipeline.commands.materialize", "run Morph-KGC on an RML file"),
}


def build_parser(full: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``kgc``.

    Args:
        full: the subcommands whose parsers are built in full (their modules imported); the
            others are listed with their summary only. ``None``: all of them.
    Returns:
        The parser; a fully built subcommand sets ``func`` (``args.func(args) -> exit code``).
    """
    names = set(COMMANDS) if full is None else set(full)
    p = argparse.ArgumentParser(prog="kgc", description="Knowledge-graph construction: mapping table -> RML -> KG.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    sub = p.add_subparsers(dest="command", required=True)
    # -v/-q are accepted after the subcommand too; SUPPRESS keeps a subcommand from resetting them
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug logging")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP)
    for name, (module, summary) in COMMANDS.items():
        if name in names:
            importlib.import_module(module).PARSERS[name](sub, common)
        else:
            sub.add_parser(name, help=summary)
    return p


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is one), or ``None``."""
    return next((a for a in argv if a in COMMANDS), None)


#: The process that installed :func:`_terminated` (a forked child inherits the handler, not the role).
_HANDLER_PID: int | None = None


def _terminated(signum, frame):  # noqa: ARG001 - signal handler signature
    """SIGTERM (``kill``) ends a command as Ctrl-C does: what was done so far is kept and said.

    A forked child (a Dask worker, a guard or validation worker) inherits this handler; there a
    SIGTERM is its parent stopping it, so it takes the default action (the process ends at once)
    instead of printing an interruption traceback of the child on the console."""
    if os.getpid() != _HANDLER_PID:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise KeyboardInterrupt("terminated (SIGTERM)")


def interrupted(exc: KeyboardInterrupt) -> None:
    """Say an interruption in one line on stderr, and keep the process's exit quiet after it.

    The interruption lands wherever the command was, possibly inside a library's constructor (Dask's
    ``Future.__init__``): the half-built object's ``__del__`` then fails when it is collected, which
    Python prints as an "Exception ignored in ..." traceback after the one line. Those failures are
    of objects the interruption abandoned, so from here on they go to the debug log only
    (``sys.unraisablehook``, PEP 578 / Python 3.8)."""
    print(f"interrupted: {exc}" if str(exc) else "interrupted", file=sys.stderr)
    sys.unraisablehook = _abandoned


def _abandoned(unraisable) -> None:
    logging.getLogger(__name__).debug("after the interruption: %s in %r (%s)", unraisable.exc_type.__name__,
                                      unraisable.object, unraisable.exc_value)


def option_as_typed(args: argparse.Namespace, *spellings: str) -> str:
    """The option of ``spellings`` (``"-o", "--out"``) as the command line wrote it, for a message
    about its value: ``-o`` when the user typed ``-o x``, ``-ox``, ``--out`` for ``--out=x`` or an
    abbreviation argparse accepts (``--ou``); all spellings (``-o/--out``) when ``args`` holds no
    command line (``args.argv``, set by :func:`pipeline.cli.main`) or none of them is in it. The
    last occurrence wins, as argparse keeps the last value."""
    for token in reversed(getattr(args, "argv", None) or ()):
        name = token.split("=", 1)[0]
        for s in spellings:
            if name == s or (len(s) == 2 and not token.startswith("--") and token.startswith(s)):
                return s
            if name.startswith("--") and len(name) > 2 and s.startswith(name):
                return name
    return "/".join(spellings)


class _ReaderGone:
    """Standard output that outlives its reader: when the process reading it leaves (``kgc run ... |
    head -1``), the rest of the output goes to ``os.devnull`` and the command goes on, so that its files
    (KG, report) are written and its exit code says how the work went, not whether anyone read all of
    it (the Python docs' recipe for SIGPIPE, signal module, redirects stdout to devnull the same way;
    its exit code 1 is for programs whose output is their result, which kgc's files are)."""

    def __init__(self, stream):
        self._stream = stream

    def _gone(self) -> None:
        try:  # the descriptor too, so that the interpreter's final flush raises nothing
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError):
            pass
        self._stream = open(os.devnull, "w", encoding="utf-8")

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _os_error(exc: OSError, args: argparse.Namespace) -> str:
    """The one line for an ``OSError``: the file and the reason; when a folder could not be made because
    a file stands where a folder of its path should be (``--out results`` with ``results`` a file),
    that file, the option that named it, and what was expected."""
    if exc.filename and isinstance(exc, (NotADirectoryError, FileExistsError)):
        target = Path(exc.filename)
        blocking = next((a for a in (target, *target.parents) if a.exists() and not a.is_dir()), None)
        if blocking is not None:
            out = getattr(args, "out", None)
            named = option_as_typed(args, "-o", "--out") if out and Path(out).absolute() == blocking.absolute() \
                else "a folder of the output path"
            return f"{blocking}: {named} is a file; expected a folder (or a name that does not exist yet)"
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


class _LevelFormatter(logging.Formatter):
    """A log record as the findings are printed: ``warning: <message>`` (the level in lower case, no
    logger name); a traceback, when one is logged, follows as :class:`logging.Formatter` writes it."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {super().format(record)}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``kgc``; returns the exit code.

    Ctrl-C (or SIGTERM) at any point, also while the command's modules load (the first seconds,
    before any work), ends it with one line on stderr and exit 130, never a traceback.
    """
    global _HANDLER_PID
    previous = None
    if threading.current_thread() is threading.main_thread():
        _HANDLER_PID = os.getpid()
        previous = signal.signal(signal.SIGTERM, _terminated)
    started: list[bool] = []  # set by _main when the command itself starts
    try:
        code = _main(sys.argv[1:] if argv is None else list(argv), started)
    except Exception as exc:  # an interruption Python reraised as another error (pipeline.errors.interruption_in)
        if (cause := interruption_in(exc)) is None:  # while the modules load (imports) or the command runs
            raise
        code = _interrupted_early(cause, started)
    except KeyboardInterrupt as exc:  # while the modules load or the options are read; or while a finding prints
        code = _interrupted_early(exc, started)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return code


def _interrupted_early(exc: KeyboardInterrupt, started: list[bool]) -> int:
    """Say an interruption :func:`_main` did not handle (exit 130): the command's own as it is, one before
    the command started with what that means."""
    early = "before the command started, nothing was done"
    interrupted(exc if started else KeyboardInterrupt(f"{exc}; {early}" if str(exc) else early))
    return 130


def console() -> int:
    """The ``kgc`` command (``[project.scripts]``): :func:`main` on ``sys.argv``; returns its exit code.

    Once the command has ended, its work and exit code are final, and Python's exit (finalizers, worker
    pools) can take seconds, in which a Ctrl-C would end the process with 130 and no word: so the
    process ignores SIGINT from then on. Only here: a disposition of SIG_IGN outlives the call and is
    inherited by every child process, so :func:`main` called in-process (tests, tools) leaves it alone.
    """
    code = main()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


def _main(argv: list[str], started: list[bool]) -> int:
    """:func:`main` once its SIGTERM handler is installed; appends to ``started`` when the command starts."""
    command = _command(argv)
    parser = build_parser([command] if command else [])
    args, extra = parser.parse_known_args(argv)
    args.argv = tuple(argv)  # messages name an option as it was typed (option_as_typed)
    if extra:  # said with the subcommand's usage, which shows its positional arguments and options
        sub = next((a.choices.get(args.command) for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction)), None)
        (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    # a user reads `warning: ...` as the findings write it; `-v` adds the logger's name for a developer
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s") if args.verbose
                         else _LevelFormatter())
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR if args.quiet else logging.WARNING,
                        handlers=[handler])
    if not args.verbose:
        # rdflib logs a traceback for every ill-typed literal it meets; the guards and SV2 report them
        logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    stdout = sys.stdout
    if not isinstance(stdout, _ReaderGone):
        sys.stdout = _ReaderGone(stdout)
    started.append(True)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # a write that bypassed _ReaderGone (a library's own stream): the recipe's exit 1
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except OSError as exc:
        print(f"error: {_os_error(exc, args)}", file=sys.stderr)
        return 2
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C: one line (what was kept, where), the shell's 128 + SIGINT
        interrupted(exc)
        return 130
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(console())
