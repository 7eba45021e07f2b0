"""Guard the engine's rules in a second process while the engine computes the next rules.

Morph-KGC computes a mapping rule's statements on one core; the guard
(:meth:`pipeline.materialize.guard.Guard.frame`) and the ``sort`` processes that order the kept lines can
run on another. :class:`GuardWorker` forks one worker process before the engine starts (while
the process is small: one fork, no copy of the engine's data). Per rule the parent writes the
rule's term columns to a file in the run's work folder (each column as its lines joined in one
string, or once when the column is constant: a few passes in C, a small part of what the guard
and its ``sort`` cost) and sends the file's name through a pipe; the worker guards the rules in
order, one :class:`~pipeline.materialize.guard.Guard` per mapping group as the inline path has, and pipes the kept
lines into its own ``sort`` processes. At the end it seals the sorted runs and sends back the
findings per mapping group and the run files. So the output bytes and the findings (counts,
examples and their order) are those of the inline guard (``tests/test_materialize_overlap.py``).

Cost: the parent's part is the joining and writing of the columns; the worker's CPU seconds (and
its ``sort`` children's) are part of the command's, as a waited-for child's are. Memory: the
worker holds one rule's columns at a time, the parent's files wait in the page cache until read.
Used by ``kgc materialize`` with one engine process on systems with ``fork`` (Morph-KGC itself
parallelises only there); elsewhere, and with ``--processes`` > 1, the guard runs inline.
"""
from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.errors import MaterializeError
from pipeline.materialize.guard import Guard, is_constant
from pipeline.materialize.output import SLICE, Runs

__all__ = ["GuardWorker", "available"]

_FILE_IDS = itertools.count()


def available() -> bool:
    """Whether a guard worker can be forked here (``fork`` is a start method)."""
    return hasattr(os, "fork") and "fork" in mp.get_all_start_methods()


class GuardWorker:
    """A forked process that guards the rules sent to it; see the module docstring.

    Args:
        work: the run's work folder (column files, ``sort`` spill and run files).
    """

    def __init__(self, work: Path) -> None:
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)  # before the fork: the parent writes there at once
        recv, self._send_fd = os.pipe()
        self._result_fd, send = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: serve, report, exit without running the parent's cleanup
            try:
                os.close(self._send_fd)
                os.close(self._result_fd)
                _serve(recv, send, self.work)
            finally:
                os._exit(70)
        os.close(recv)
        os.close(send)
        self.pid = pid
        self._out = os.fdopen(self._send_fd, "wb")

    def send(self, group: int, tm: str, columns: list, trusted: tuple = (False,) * 4) -> None:
        """Hand one rule to the worker (returns once its columns are written, not guarded).

        Args:
            group: index of the rule's mapping group (a new group starts a new guard).
            tm: the rule's TriplesMap (named in an error). columns, trusted: as for :meth:`Guard.frame`.
        """
        n = len(columns[0])
        if n == 0:
            return
        specs: list[tuple] = []
        path = self.work / f"rule-{os.getpid()}-{next(_FILE_IDS):06d}.cols"
        with open(path, "wb") as fh:
            for col in columns:
                col = np.asarray(col, dtype=object)
                if is_constant(col):  # a constant term map: sent once
                    specs.append(("const", col[0]))
                    continue
                start = fh.tell()
                if _write_lines(fh, col):
                    specs.append(("text", fh.tell() - start))
                    continue
                # a term with a raw line break or a missing value (the guard drops it): pickled
                fh.seek(start)
                fh.truncate()
                blob = pickle.dumps(col.tolist(), protocol=pickle.HIGHEST_PROTOCOL)
                fh.write(blob)
                specs.append(("pickle", len(blob)))
        try:
            pickle.dump((group, tm, n, specs, str(path), tuple(trusted)), self._out, protocol=pickle.HIGHEST_PROTOCOL)
            self._out.flush()
        except BrokenPipeError:  # the worker died: finish() says so
            pass

    def finish(self) -> tuple[dict[int, Guard], dict[bool, list[Path]]]:
        """Wait for the worker to guard every rule sent and to seal its sorted runs.

        Returns:
            ``(guards, files)``: the findings per mapping group index, and the sorted run files
            per graph kind (``False``: default graph) for :meth:`Runs.finish` to merge.
        Raises:
            MaterializeError: the guard failed on a rule (named) or the worker died.
        """
        try:
            pickle.dump(None, self._out)
            self._out.close()
        except BrokenPipeError:
            pass
        chunks = []
        fd, self._result_fd = self._result_fd, None
        with os.fdopen(fd, "rb") as fh:
            while chunk := fh.read(1 << 20):
                chunks.append(chunk)
        pid, self.pid = self.pid, None
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0 or not chunks:
            raise MaterializeError(f"the output guard process exited with {code}")
        error, found, files = pickle.loads(b"".join(chunks))
        if error is not None:
            raise MaterializeError(f"output guard failed on the statements of {error[0]}: {error[1]}: {error[2]}")
        guards = {}
        for group, (dropped, repaired) in found.items():
            guards[group] = Guard(dropped=dropped, repaired=repaired)
        return guards, files

    def abort(self) -> None:
        """Stop the worker (after an engine failure): it stops its ``sort`` processes and exits."""
        try:
            self._out.close()  # the worker reads the end of its input and stops
        except OSError:
            pass
        if self._result_fd is not None:
            os.close(self._result_fd)
            self._result_fd = None
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None


def _write_lines(fh: Any, col: Any) -> bool:
    """Write a column's terms joined by line breaks, slice by slice (the text of a whole column never
    exists at once); ``False`` (and a partial write) when a term holds a line break or is no text."""
    n = len(col)
    for i in range(0, n, SLICE):
        part = col[i:i + SLICE].tolist()
        try:
            text = "\n".join(part)
        except TypeError:  # a missing value (None, NaN)
            return False
        if text.count("\n") != len(part) - 1:
            return False
        fh.write(text.encode("utf-8", "surrogatepass"))
        if i + SLICE < n:
            fh.write(b"\n")
    return True


def _columns(n: int, specs: list, path: str) -> tuple[list, bool]:
    """The columns of one rule read back (a constant as its one term, a ``str``) and whether they
    hold text only (no pickled column, which may hold a missing value)."""
    columns: list = []
    with open(path, "rb") as fh:
        for kind, value in specs:
            if kind == "const":
                columns.append(value if isinstance(value, str) else np.full(n, value, dtype=object))
            elif kind == "pickle":
                columns.append(np.asarray(pickle.loads(fh.read(value)), dtype=object))
            else:
                columns.append(np.array(fh.read(value).decode("utf-8", "surrogatepass").split("\n"), dtype=object))
    if all(isinstance(c, str) for c in columns):  # the guard needs one array for the row count
        columns[0] = np.full(n, columns[0], dtype=object)
    return columns, all(kind != "pickle" for kind, _ in specs)


def _serve(recv: int, send: int, work: Path) -> None:
    """The worker's loop: guard each rule received, then send ``(error, {group: (dropped,
    repaired)}, run files)``; on the end of its input without the final message, stop."""
    runs = Runs(work, stream=True)
    found: dict[int, tuple] = {}
    guard, group, error = None, None, None
    with os.fdopen(recv, "rb") as inp:
        while True:
            try:
                msg = pickle.load(inp)
            except EOFError:  # the parent gave up (engine failure)
                runs.close()
                os._exit(1)
            if msg is None:
                break
            g, tm, n, specs, path, trusted = msg
            try:
                if error is None:
                    if g != group:  # a new mapping group: a new guard, as inline
                        guard, group = Guard(), g
                        found[g] = (guard.dropped, guard.repaired)
                    columns, text_only = _columns(n, specs, path)
                    guard.frame(columns, runs, None, trusted, text_only=text_only)
            except BaseException as exc:  # reported to the parent, which raises a MaterializeError
                error = (tm, type(exc).__name__, str(exc))
            finally:
                os.unlink(path)
    files: dict[bool, list[Path]] = {False: [], True: []}
    if error is None:
        try:
            files = runs.seal().files
        except MaterializeError as exc:
            error = ("the sorted output", type(exc).__name__, str(exc))
    else:
        runs.close()
    data = memoryview(pickle.dumps((error, found, files), protocol=pickle.HIGHEST_PROTOCOL))
    while data:
        data = data[os.write(send, data):]
    os.close(send)
    os._exit(0)
