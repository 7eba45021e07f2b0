"""A long stage of `kgc text` is repeated while it runs, with the time and peak memory; the thread
is gone when the block ends (validation forks after it)."""
from __future__ import annotations

import re
import threading
import time

from pipeline.text.heartbeat import Heartbeat, peak_memory


def test_repeats_the_running_stage_and_stops():
    lines: list[str] = []
    where = {"stage": "fitting: the stacker"}
    before = set(threading.enumerate())
    with Heartbeat(lines.append, "rivers0", lambda: where["stage"], time.perf_counter(), every=0.05):
        time.sleep(0.5)
    assert [t for t in set(threading.enumerate()) - before if t.is_alive()] == []
    assert len(lines) >= 2
    assert all(re.fullmatch(r"rivers0: still fitting: the stacker \(\d+ s, \d+ s in this stage, peak memory "
                            r"\d+(\.\d)? [MG]B\)", line) for line in lines), lines
    n = len(lines)
    time.sleep(0.12)
    assert len(lines) == n  # nothing after the block


def test_a_new_stage_is_not_repeated_at_once():
    lines: list[str] = []
    calls = iter(range(10**6))  # a new stage at every beat: its own line was just printed, no repeat
    with Heartbeat(lines.append, "c", lambda: f"stage {next(calls)}", time.perf_counter(), every=0.01):
        time.sleep(0.1)
    assert lines == []


def test_no_progress_no_thread():
    before = threading.active_count()
    with Heartbeat(None, "c", lambda: "x", 0.0, every=0.01):
        assert threading.active_count() == before


def test_peak_memory_format():
    assert re.fullmatch(r"\d+(\.\d)? [MG]B", peak_memory())
