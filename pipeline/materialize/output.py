"""The output writer of a materialization: the kept statements sorted, without duplicates, never all in memory.

:class:`Runs` takes the guarded lines of one engine rule at a time (:meth:`pipeline.materialize.guard.Guard.frame`).
With a ``sort`` command (GNU coreutils or BSD) they are piped into ``LC_ALL=C sort -u``, which sorts
on another core while the engine runs and spills to disk beyond its 16 MB buffer; otherwise each
batch is sorted with numpy into a run file and the runs are merged (:func:`merge_sorted`).
Byte order of UTF-8 (``sort`` in the C locale) is code point order, the order of Python's
``sorted()``, so both ways write the same bytes.
"""
from __future__ import annotations

import heapq
import itertools
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

from pipeline.errors import MaterializeError

__all__ = ["Runs", "SLICE", "count_lines", "lines_text", "merge_sorted", "row_count", "sort_command"]

_RUN_IDS = itertools.count()
#: ``sort``'s memory buffer
_BUFFER = "16M"
#: lines (or terms) joined into one text at once: the text of a whole rule never exists at once
SLICE = 65536


def sort_command() -> str | None:
    """The ``sort`` command that orders the output, or ``None`` (GNU coreutils or BSD only: Windows
    has a ``sort`` command of another kind)."""
    return shutil.which("sort") if os.name == "posix" else None


class Runs:
    """Where kept lines go, sorted and without duplicates in the end.

    Args:
        folder: for run files and ``sort``'s spill files (created).
        stream: pipe lines into one ``LC_ALL=C sort -u`` process per graph kind when a ``sort``
            command is on the PATH; otherwise (or ``False``: a pool worker) each batch is sorted
            here (``numpy.unique``) into a run file, and :meth:`finish` merges the runs.
    """

    def __init__(self, folder: Path, stream: bool = False) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.files: dict[bool, list[Path]] = {False: [], True: []}
        self.sort = sort_command()
        self.stream = stream and self.sort is not None
        self.procs: dict[bool, tuple] = {}

    def _proc(self, named: bool):
        if named not in self.procs:
            path = self.folder / f"sorted-{os.getpid()}-{next(_RUN_IDS):06d}.n{'q' if named else 't'}"
            out = open(path, "wb")
            # a small buffer: most lines are sorted into spill files while the engine runs, so less
            # is left to sort after the last line, when nothing else runs
            proc = subprocess.Popen([self.sort, "-u", "-S", _BUFFER, "-T", str(self.folder)], stdin=subprocess.PIPE,
                                    stdout=out, env={**os.environ, "LC_ALL": "C"})
            self.procs[named] = (proc, out, path)
        return self.procs[named][0]

    def add_terms(self, s, p, o, g, named: bool) -> None:
        """Take the statements of term arrays of equal length (streaming only: see :attr:`stream`),
        joined by :func:`lines_text` in slices of :data:`SLICE` rows. A term given as one ``str``
        stands for every row (at least one of them is an array)."""
        pipe = self._proc(named).stdin
        terms = (s, p, o, g)
        n = row_count(terms)
        for i in range(0, n, SLICE):
            part = [t if isinstance(t, str) else t[i:i + SLICE] for t in terms]
            pipe.write(lines_text(*part, named).encode("utf-8"))

    def add(self, lines, named: bool, suffix: str = "") -> None:
        """Take one batch of lines (a numpy array of str, without newlines; ``suffix`` is appended
        to each). Streamed in slices of :data:`SLICE` lines, so the text of a whole rule never exists at once."""
        if self.stream:
            pipe = self._proc(named).stdin
            for i in range(0, len(lines), SLICE):
                part = lines[i:i + SLICE]
                end = suffix + "\n"  # joined in, so no suffixed copy of each line is made
                pipe.write((end.join(part.tolist()) + end).encode("utf-8"))
            return
        if suffix:
            lines = lines + suffix
        path = self.folder / f"run-{os.getpid()}-{next(_RUN_IDS):06d}.n{'q' if named else 't'}"
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(np.unique(lines).tolist()))
            fh.write("\n")
        self.files[named].append(path)

    def finish(self, named: bool, out: Path) -> int:
        """Write the sorted, duplicate-free lines of one graph kind to ``out``; returns their number.

        The lines of the ``sort`` process and the run files (of pool workers, of a guard worker)
        are merged.

        Raises:
            MaterializeError: the ``sort`` process failed (e.g. no space left for its spill files).
        """
        out = Path(out)
        if named in self.procs:
            if not self.files[named]:
                self._end(named, out)
                return count_lines(out)
            path = self.folder / f"run-{os.getpid()}-{next(_RUN_IDS):06d}.n{'q' if named else 't'}"
            self._end(named, path)
            self.files[named].append(path)
        if not self.files[named]:
            out.write_bytes(b"")
            return 0
        return merge_sorted(self.files[named], out, self.sort)

    def _end(self, named: bool, out: Path) -> None:
        """Close one ``sort`` process's input, wait for it and move its output to ``out``."""
        proc, fh, path = self.procs.pop(named)
        proc.stdin.close()
        rc = proc.wait()
        fh.close()
        if rc != 0:
            raise MaterializeError(f"sort exited with {rc} while ordering the output (disk full in {self.folder}?)")
        os.replace(path, out)

    def seal(self) -> "Runs":
        """End the ``sort`` processes into sorted run files (kept in :attr:`files`), so that a pool
        worker can hand its runs to the parent, which merges them; returns ``self``."""
        for named in list(self.procs):
            path = self.folder / f"run-{os.getpid()}-{next(_RUN_IDS):06d}.n{'q' if named else 't'}"
            self._end(named, path)
            if path.stat().st_size:  # (not counted here: the parent counts the merged file)
                self.files[named].append(path)
            else:
                path.unlink(missing_ok=True)
        self.stream = False
        return self

    def close(self) -> None:
        """Stop any sort process (after an engine failure)."""
        for proc, fh, _ in self.procs.values():
            proc.kill()
            proc.wait()
            fh.close()
        self.procs.clear()


def row_count(terms) -> int:
    """Rows of term columns of which some may be one ``str`` (that term on every row): the length of
    the first array."""
    return next(len(t) for t in terms if not isinstance(t, str))


def lines_text(s, p, o, g, named: bool) -> str:
    """N-Triples (``named``: N-Quads) lines of term arrays (or a ``str`` for every row), each line
    ending in a line break."""
    n = row_count((s, p, o, g))
    pieces = np.empty(6 * n, dtype=object)
    pieces[0::6], pieces[1::6], pieces[2::6], pieces[3::6], pieces[4::6] = s, " ", p, " ", o
    pieces[5::6] = (" " + g + " .\n") if named else " .\n"
    return "".join(pieces.tolist())


def count_lines(path: str | Path) -> int:
    """Line breaks in a file (a written KG: its statements): ``wc -l`` where there is one (about a
    third of the CPU time of reading the file into Python), for files above 4 MiB."""
    wc = shutil.which("wc") if os.name == "posix" else None
    if wc is not None and Path(path).stat().st_size > (1 << 22):
        with open(path, "rb") as fh:
            done = subprocess.run([wc, "-l"], stdin=fh, capture_output=True, check=False,
                                  env={**os.environ, "LC_ALL": "C"})
        if done.returncode == 0 and done.stdout.strip().isdigit():
            return int(done.stdout)
    with open(path, "rb") as fh:
        return sum(buf.count(b"\n") for buf in iter(lambda: fh.read(1 << 20), b""))


def merge_sorted(runs: list[Path], out: Path, sort: str | None = None) -> int:
    """Merge sorted line files into ``out`` (sorted, duplicates dropped; code point order, which is
    Python's string order); returns the lines written. ``sort``: a ``sort`` command to merge with
    (``sort -m -u``, C locale), else ``heapq.merge``. One run is moved, not copied.

    Why ``heapq.merge`` on lines with their newline gives the order of ``sorted()`` of the lines
    without it: every line ends with `` .``, so no line is a proper prefix of another.
    """
    out = Path(out)
    if len(runs) == 1:
        os.replace(runs[0], out)
        return count_lines(out)
    if sort is not None:
        done = subprocess.run([sort, "-m", "-u", "-T", str(out.parent), "-o", str(out), *map(str, runs)],
                              env={**os.environ, "LC_ALL": "C"})
        if done.returncode != 0:
            raise MaterializeError(f"sort -m exited with {done.returncode} while merging the output runs")
        for p in runs:
            p.unlink(missing_ok=True)
        return count_lines(out)
    files = [open(p, "rb") for p in runs]  # UTF-8 byte order is code point order
    n, last, buf = 0, None, []
    try:
        with open(out, "wb") as fh:
            for line in heapq.merge(*files):
                if line != last:
                    buf.append(line)
                    last = line
                    if len(buf) >= SLICE:
                        fh.writelines(buf)
                        n += len(buf)
                        buf.clear()
            fh.writelines(buf)
            n += len(buf)
    finally:
        for f in files:
            f.close()
    for p in runs:
        p.unlink(missing_ok=True)
    return n
