"""A `kgc run` starts no thread that outlives it: its stages fork (the engine's process pool, the
guard worker, parallel validation), and a process forked while another thread holds a lock keeps
that lock held for ever (POSIX ``fork`` copies the calling thread only)."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

from pipeline.cli import main

CASE = Path(__file__).resolve().parent / "cases" / "compressed-source"


def test_a_run_leaves_no_thread_behind(tmp_path, monkeypatch):
    shutil.copytree(CASE, tmp_path / "case")
    monkeypatch.chdir(tmp_path / "case")
    before = set(threading.enumerate())
    assert main(["run", "case.yaml", "--out", str(tmp_path / "out")]) == 0  # not -q: the bar of cases is made
    assert [t.name for t in set(threading.enumerate()) - before if t.is_alive()] == []
