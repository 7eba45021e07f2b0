"""Ctrl-C or SIGTERM while ``kgc`` loads its command's modules (the first seconds of every command,
before any work) ends it with one line and exit 130, not a traceback (nu18 interrupt-at-startup-
traceback: 25-50 lines of traceback from ``build_parser``'s imports)."""
from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the signal is sent by the process itself while build_parser runs: a real signal, landing at a known point
SCRIPT = """
import os, signal, sys
from pipeline import cli
build = cli.build_parser
def build_parser(full=None):
    os.kill(os.getpid(), signal.{sig})
    return build(full)
cli.build_parser = build_parser
sys.exit(cli.main(["map", "case.yaml", "t.md"]))
"""


@pytest.mark.parametrize("sig, line", [
    ("SIGINT", "interrupted: before the command started, nothing was done"),
    ("SIGTERM", "interrupted: terminated (SIGTERM); before the command started, nothing was done"),
])
def test_signal_while_modules_load_is_one_line(sig, line) -> None:
    # a child inherits an ignored SIGINT (a test runner's worker may ignore it): start it as a shell would
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(sig=sig)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stderr, done.stdout) == (130, line + "\n", "")


def _main_running(command, monkeypatch) -> int:
    """``kgc map`` in this process with ``command`` as the command's function: its exit code."""
    from pipeline import cli
    parser = cli.build_parser([])
    monkeypatch.setattr(cli, "build_parser", lambda full=None: parser)
    monkeypatch.setattr(parser, "parse_known_args", lambda argv: (
        argparse.Namespace(func=command, verbose=False, quiet=True, command="map"), []))
    return cli.main(["map"])


def test_interrupt_inside_the_command_keeps_its_own_line(monkeypatch, capsys) -> None:
    def command(args):
        raise KeyboardInterrupt("at stage materialize; kept: nothing")
    assert _main_running(command, monkeypatch) == 130
    assert capsys.readouterr().err == "interrupted: at stage materialize; kept: nothing\n"


def test_interruption_reraised_as_another_error_is_said_as_one(monkeypatch, capsys) -> None:
    # CPython 3.11 turns a Ctrl-C that lands in a class body's __set_name__ (an import) into a RuntimeError
    def command(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on '_axis_method_wrapper' instance") from exc
    assert _main_running(command, monkeypatch) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_an_error_without_interruption_is_not_one() -> None:
    from pipeline.errors import interruption_in
    try:
        try:
            raise ValueError("a")
        except ValueError as exc:
            raise RuntimeError("b") from exc
    except RuntimeError as exc:
        assert interruption_in(exc) is None


def test_main_in_process_leaves_ctrl_c_alone(monkeypatch, capsys) -> None:
    """``main()`` run in a process that goes on (tests, tools) must not leave SIGINT ignored: SIG_IGN
    is inherited by every child process, whose Ctrl-C would then do nothing."""
    from pipeline import cli
    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(sys, "argv", ["kgc", "validate", "no-such.yaml", "no-such-kg.nt"])  # a missing file: exit 2, at once
    assert cli.main() == 2
    assert signal.getsignal(signal.SIGINT) is before


def test_the_kgc_command_ignores_ctrl_c_once_it_has_ended() -> None:
    script = ("import signal, sys\nfrom pipeline import cli\nsys.argv = ['kgc', 'validate', 'no-such.yaml', 'no-such-kg.nt']\n"
              "code = cli.console()\nprint(code, signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.stdout == "2 True\n"


def test_interruption_reraised_while_modules_load_is_one_line(monkeypatch, capsys) -> None:
    from pipeline import cli

    def build_parser(full=None):  # an import interrupted inside a class body, as CPython 3.11 reports it
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on '_axis_method_wrapper' instance") from exc
    monkeypatch.setattr(cli, "build_parser", build_parser)
    assert cli.main(["map"]) == 130
    assert capsys.readouterr().err == "interrupted: before the command started, nothing was done\n"
