"""SIGTERM ends a ``kgc`` command as Ctrl-C does; a process forked from it takes the default action.

A Dask nanny stops its forked worker with SIGTERM, and the guard and validation workers are forked
too: they inherit the command's handler, and there it must end the process at once instead of
raising an interruption (which printed the worker's traceback on the user's console).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """
import os, signal, sys, time
from pipeline import cli
cli._HANDLER_PID = os.getpid()
signal.signal(signal.SIGTERM, cli._terminated)
ready, say_ready = os.pipe()
child = os.fork()
if child == 0:
    os.write(say_ready, b"1")  # Python forgets a signal that arrives while fork() returns in the child
    time.sleep(60)
    os._exit(0)
os.read(ready, 1)
os.kill(child, signal.SIGTERM)
_, status = os.waitpid(child, 0)
print("child", os.WTERMSIG(status) if os.WIFSIGNALED(status) else "exit %d" % os.WEXITSTATUS(status))
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
except KeyboardInterrupt as exc:
    print("parent", exc)
"""


def test_sigterm_interrupts_the_command_and_kills_a_forked_child_quietly() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["child 15", "parent terminated (SIGTERM)"]
    assert done.stderr == ""


ABANDONED = """
from pipeline import cli

class HalfBuilt:  # what an interruption inside a constructor leaves (Dask's Future without its _client)
    def __del__(self):
        raise AttributeError("'HalfBuilt' object has no attribute '_client'")

HalfBuilt()  # collected at once: before the interruption its failure is printed, as Python does
try:
    raise KeyboardInterrupt("terminated (SIGTERM)")
except KeyboardInterrupt as exc:
    cli.interrupted(exc)
kept = HalfBuilt()  # collected at exit, after the interruption: quiet
"""


def test_after_an_interruption_objects_it_abandoned_fail_quietly_at_exit() -> None:
    done = subprocess.run([sys.executable, "-c", ABANDONED], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("Exception ignored in: <function HalfBuilt.__del__") and \
        lines[-2:] == ["AttributeError: 'HalfBuilt' object has no attribute '_client'", "interrupted: terminated (SIGTERM)"]
