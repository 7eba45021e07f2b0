"""What a running LLM request shows: attempt, tokens received, tokens per second, time.

:func:`pipeline.llm.client.complete` reports each request to the current :class:`Reporter`
(:func:`reporter`; :func:`use_reporter` swaps it for a block). The default,
:class:`ConsoleReporter`, writes to standard error:

* on a terminal, a tqdm bar under any other bar (``kgc run``'s bar of cases): ``LLM people run 0
  part 1/2, attempt 1: 812 tok [05:12, 2.6 tok/s]``, removed when the answer is complete;
* elsewhere (a log file, CI), one line after :data:`FIRST_LINE_S` seconds and then every
  :data:`EVERY_S` seconds while the request runs, and a last line when such a request ends, so that
  a slow local model is seen to be working and a fast answer prints nothing;
* nothing at all when the ``pipeline`` logger is quieter than WARNING (``kgc -q``).
"""
from __future__ import annotations

import contextlib
import logging
import sys
import time
from typing import IO, Iterator, Protocol

from tqdm import tqdm

__all__ = ["Reporter", "ConsoleReporter", "reporter", "use_reporter", "FIRST_LINE_S", "EVERY_S"]

#: Seconds before a request that is not on a terminal prints its first progress line.
FIRST_LINE_S = 30.0
#: Seconds between two progress lines off a terminal.
EVERY_S = 60.0


class Reporter(Protocol):
    """Receives the life of each request (one at a time)."""

    def start(self, label: str, attempt: int, attempts: int, max_tokens: int | None) -> None:
        """A request is sent (``attempt`` of at most ``attempts``)."""

    def update(self, tokens: int, elapsed_s: float) -> None:
        """``tokens`` answer tokens have arrived after ``elapsed_s`` seconds."""

    def note(self, text: str) -> None:
        """Something the user should see now (a retry and its wait)."""

    def end(self, tokens: int, elapsed_s: float, outcome: str) -> None:
        """The request ended: ``outcome`` is its finish reason or error kind."""


def _rate(tokens: int, seconds: float) -> str:
    return f"{tokens / seconds:.1f} tok/s" if seconds > 0 and tokens else "- tok/s"


class ConsoleReporter:
    """The default reporter (see the module docstring).

    Args:
        stream: where to write (default: standard error at the time of each request).
        tty: force terminal (``True``) or line (``False``) mode; default: ask the stream.
    """

    def __init__(self, stream: IO[str] | None = None, tty: bool | None = None) -> None:
        self.stream, self.tty = stream, tty
        self._bar: tqdm | None = None
        self._label = ""
        self._t0 = 0.0
        self._next = FIRST_LINE_S
        self._printed = False
        self._quiet = False

    def _out(self) -> IO[str]:
        return self.stream or sys.stderr

    def _is_tty(self) -> bool:
        if self.tty is not None:
            return self.tty
        try:
            return self._out().isatty()
        except (AttributeError, ValueError):
            return False

    def start(self, label: str, attempt: int, attempts: int, max_tokens: int | None) -> None:
        self._quiet = logging.getLogger("pipeline").getEffectiveLevel() > logging.WARNING
        self._label = f"LLM {label}, attempt {attempt}" + (f" of {attempts}" if attempts > 1 else "")
        self._t0, self._next, self._printed = time.monotonic(), FIRST_LINE_S, False
        if self._quiet:
            return
        if self._is_tty():
            tqdm.monitor_interval = 0  # no monitor thread in a process that forks later (commands/run.py)
            self._bar = tqdm(total=max_tokens, desc=self._label, unit="tok", file=self._out(), leave=False,
                             position=1, dynamic_ncols=True, mininterval=0.5)

    def update(self, tokens: int, elapsed_s: float) -> None:
        if self._quiet:
            return
        if self._bar is not None:
            self._bar.update(tokens - self._bar.n)
            return
        if elapsed_s >= self._next:
            state = f"{tokens} tokens received" if tokens else "waiting for the first token (the server reads the prompt)"
            print(f"{self._label}: {state}, {elapsed_s:.0f} s, {_rate(tokens, elapsed_s)}", file=self._out(), flush=True)
            self._printed = True
            self._next = elapsed_s + EVERY_S

    def note(self, text: str) -> None:
        if self._quiet:
            return
        if self._bar is not None:
            self._bar.write(f"{self._label}: {text}", file=self._out())
        else:
            print(f"{self._label}: {text}", file=self._out(), flush=True)

    def end(self, tokens: int, elapsed_s: float, outcome: str) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if not self._quiet and self._printed:
            print(f"{self._label}: {outcome} after {tokens} tokens in {elapsed_s:.0f} s "
                  f"({_rate(tokens, elapsed_s)})", file=self._out(), flush=True)


_current: list[Reporter] = [ConsoleReporter()]


def reporter() -> Reporter:
    """The reporter requests report to now."""
    return _current[-1]


@contextlib.contextmanager
def use_reporter(rep: Reporter) -> Iterator[Reporter]:
    """Report requests to ``rep`` inside the block (then to the previous reporter again)."""
    _current.append(rep)
    try:
        yield rep
    finally:
        _current.pop()
