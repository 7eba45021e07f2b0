"""A long stage of ``kgc text`` says it is still running: a line every :data:`EVERY_S` seconds with
the stage, the time it has run and the process's peak resident memory.

A zero-shot fit runs for tens of minutes, one of its steps for many minutes on end; a stage line as
each step starts (:func:`pipeline.text.harness.run_case`'s ``progress``) leaves the user in silence
in between. :class:`Heartbeat` repeats the current stage on the same channel (standard error, left
out by ``kgc -q``) from a daemon thread, so no stage needs to report its own inner progress.
"""
from __future__ import annotations

import resource
import sys
import threading
import time
from typing import Callable

__all__ = ["Heartbeat", "peak_memory", "EVERY_S"]

#: Seconds between two "still running" lines of one stage.
EVERY_S = 60.0


def peak_memory() -> str:
    """The process's peak resident set size so far, ``"1.2 GB"`` / ``"350 MB"`` (``getrusage``'s
    ``ru_maxrss``: kilobytes on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return f"{peak / 1e9:.1f} GB" if peak >= 1e9 else f"{peak / 1e6:.0f} MB"


class Heartbeat:
    """While the ``with`` block runs, call ``progress`` every ``every`` seconds with
    ``"<name>: still <stage> (<s> s, <m> s in this stage, peak memory <peak_memory()>)"``.

    Args:
        progress: the stage-line callback (``None``: nothing is started).
        name: the case's name, first on each line.
        stage: returns the stage running now (read at each beat).
        t0: ``time.perf_counter()`` at the run's start.
        every: seconds between lines.
    """

    def __init__(self, progress: Callable[[str], None] | None, name: str, stage: Callable[[], str], t0: float,
                 every: float = EVERY_S) -> None:
        self._progress, self._name, self._stage, self._t0, self._every = progress, name, stage, t0, every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _beat(self) -> None:
        seen, since = self._stage(), time.perf_counter()
        while not self._stop.wait(self._every):
            stage, now = self._stage(), time.perf_counter()
            if stage != seen:
                seen, since = stage, now
                continue  # the stage's own line was just printed
            self._progress(f"{self._name}: still {stage} ({now - self._t0:.0f} s, {now - since:.0f} s in this "
                           f"stage, peak memory {peak_memory()})")

    def __enter__(self) -> "Heartbeat":
        if self._progress is not None:
            self._thread = threading.Thread(target=self._beat, name="kgc-text-heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
