"""Columnar, lazily parsed CSV records and the documented record sample.

A CSV source is held as one list of cell strings per column (``""`` for an empty or
missing cell), parsed with the :mod:`csv` module on first use, not at load: the
compiler and the audit mostly need the header. :class:`ColumnRecords` is also a
sequence of per-record dicts (``reference -> [value]`` or ``[]``), built one at a time
when iterated, as the JSON and XML records are; code that wants speed asks for a column
(:meth:`ColumnRecords.column`).

The sample (:func:`sample_indices`): at most :data:`SAMPLE_RECORDS` records, drawn
deterministically as every ``ceil(n / SAMPLE_RECORDS)``-th record from the first one
(a systematic sample over the whole file, not its head, the same on every run). A
source of at most :data:`SAMPLE_RECORDS` records is its own sample, so every decision
on it is exact.

Profile-and-sample (:data:`PROFILE_RECORDS`): for the mapper (``kgc map``), a CSV file of more records
than that is read once as a stream and kept as its systematic sample only (every ``step``-th
record, ``step = ceil(n / SAMPLE_RECORDS)``, from the first), with every column's value counts over
*all* records beside it (:meth:`ColumnRecords.value_counts`): what profiling needs (distinct values,
datatypes, inclusion dependencies, single-column keys) is exact, what reads records (several-column
keys, per-record patterns) sees the sample, and memory follows the distinct values, not the cells.
"""
from __future__ import annotations

import codecs
import csv
import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from pipeline.gcpause import cycles_uncollected

__all__ = ["SAMPLE_RECORDS", "PROFILE_RECORDS", "ColumnRecords", "DistinctRecords", "Values", "sample_indices", "check_utf8"]

#: Records in the sample a profiling decision is taken on (keys, datatypes, inclusion).
SAMPLE_RECORDS = 10_000
#: Above this many records (estimated from the file's line breaks), a CSV loaded for profiling keeps
#: its sample and its value counts, not its cells (module docstring).
PROFILE_RECORDS = 100_000
_CHUNK_ROWS = 65_536  # rows parsed before transposing: bounds the row-wise copy in memory


def sample_indices(n: int, size: int | None = None) -> range:
    """Indices of the systematic sample of ``n`` records: ``range(0, n, ceil(n / size))``.

    ``size`` defaults to :data:`SAMPLE_RECORDS`; returns ``range(n)`` (everything) when ``n <= size``.
    """
    size = size or SAMPLE_RECORDS
    step = max(1, -(-n // size))
    return range(0, n, step)


def check_utf8(path: Path, encoding: str = "utf-8-sig") -> int:
    """Decode ``path`` in 16 MiB chunks without keeping it (a lazily parsed file must fail at load).

    Returns:
        The number of ``"`` bytes in the file (counted in the same pass; an odd number means a
        quoted CSV field may never close, see :func:`pipeline.sources.load.load_source`).
    Raises:
        UnicodeDecodeError: with ``start`` as the byte offset in the file (not in the chunk).
    """
    dec = codecs.getincrementaldecoder(encoding)("strict")
    offset = quotes = 0
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 24), b""):
            quotes += chunk.count(b'"')
            try:
                dec.decode(chunk)
            except UnicodeDecodeError as exc:
                raise UnicodeDecodeError(exc.encoding, exc.object, offset + exc.start, offset + exc.end,
                                         exc.reason) from None
            offset += len(chunk)
        dec.decode(b"", final=True)
    return quotes


class Values(list):
    """A column's values: a plain ``list`` that also carries ``memo``, a dict shared by every
    copy of the same column, where profiling keeps what it computed once (distinct values,
    datatype). Entries are keyed with the list's length, so a modified copy is not mistaken.

    ``counts``: when the list is a sample of the column (profile-and-sample, module docstring), the
    occurrences of each non-empty value over all records, which profiling reads instead of the
    list; ``None`` when the list is the whole column."""

    __slots__ = ("memo", "counts")

    def __init__(self, items=(), memo: dict | None = None, counts: Counter | None = None):
        super().__init__(items)
        self.memo = memo if memo is not None else {}
        self.counts = counts


class ColumnRecords(Sequence):
    """The records of a CSV file as columns, parsed on first use.

    Semantics are those of :class:`csv.DictReader` (blank lines and repeats of the header skipped, a short row's
    missing cells empty, a long row's extra cells dropped), so record ``i`` is
    ``{name: [cell] if cell else []}``; a repeated header name takes its first cell, the one the engine
    reads (pandas names the others ``name.1`` ...), as the header's warning says.

    Args:
        path: the CSV file (UTF-8, an optional BOM). delimiter: its separator.
        names: the header's field names (repeats allowed).
        profile: keep only the sample and the value counts of a file above :data:`PROFILE_RECORDS`
            records (module docstring); then the sequence is the sample (``len`` its records) and
            :attr:`total` the file's records.
        skip: the header's cells as read, when lines below repeat it
            (:func:`pipeline.sources.checks.repeated_header_lines`): rows equal to it are no records,
            as blank lines are not; ``None``: every row is a record.
    """

    def __init__(self, path: Path, delimiter: str, names: list[str], profile: bool = False,
                 skip: list[str] | None = None):
        self._path, self._delimiter = path, delimiter
        self._skip = skip
        first: dict[str, int] = {}
        for i, name in enumerate(names):  # the engine (pandas) reads the first cell of a repeated name
            first.setdefault(name, i)
        self._names = list(first)
        self._index = [first[n] for n in self._names]
        self._width = len(names)
        self._cols: list[list[str]] | None = None
        self._n = 0
        self._long: list[int] = []  # indices of records with more cells than the header (extra cells dropped)
        self._short: list[int] = []  # ... with fewer (missing cells read as empty)
        self._profile = profile
        self._counts: list[Counter] | None = None  # per column, over all records (profile-and-sample only)
        self.step = 1  # the sample's step: 1 when every record is kept
        self.total = 0  # records of the file (once read)

    def _load(self) -> list[list[str]]:
        if self._cols is not None:
            return self._cols
        cols: list[list[str]] = [[] for _ in range(self._width)]
        limit = csv.field_size_limit(2 ** 31 - 1)  # long cells are data too (the default stops at 128 KiB)
        # millions of fresh row lists would trigger full collections over and over
        with cycles_uncollected():
            try:
                step = self._sample_step() if self._profile else 1
                if step > 1:
                    counts = [Counter() for _ in range(self._width)]
                    self._parse(cols, step, counts)
                    for c in counts:  # an empty cell is no value: profiling counts values
                        c.pop("", None)
                    self._counts = [counts[i] for i in self._index]
                else:
                    self._parse(cols)
                self.step = step
            finally:
                csv.field_size_limit(limit)
        self._cols = [cols[i] for i in self._index]
        return self._cols

    def _sample_step(self) -> int:
        """``ceil(records / SAMPLE_RECORDS)`` when the file's line breaks say it holds more than
        :data:`PROFILE_RECORDS` records (quoted line breaks make that an upper bound), else 1."""
        with open(self._path, "rb") as fh:
            lines = sum(buf.count(b"\n") for buf in iter(lambda: fh.read(1 << 24), b""))
        return -(-(lines - 1) // SAMPLE_RECORDS) if lines - 1 > PROFILE_RECORDS else 1

    def _parse(self, cols: list[list[str]], step: int = 1, counts: list[Counter] | None = None) -> None:
        """Read every record into ``cols``; with ``counts``, only every ``step``-th record (from the
        first) goes into ``cols`` and every cell is counted in its column's ``Counter``."""
        n, w = 0, self._width  # n: records read so far (all of them, sampled or not)
        with open(self._path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=self._delimiter)
            next(reader, None)
            while raw := list(itertools.islice(reader, _CHUNK_ROWS)):
                chunk = [r for r in raw if r and r != self._skip]
                if any(len(r) != w for r in chunk):  # rare: note which records, then pad or cut them
                    self._long += [n + i for i, r in enumerate(chunk) if len(r) > w]
                    self._short += [n + i for i, r in enumerate(chunk) if len(r) < w]
                    chunk = [r if len(r) == w else (r + [""] * (w - len(r)))[:w] for r in chunk]
                kept = chunk
                if counts is not None:
                    if w:
                        for j, cells in enumerate(zip(*chunk)):
                            counts[j].update(cells)
                    kept = chunk[(-n) % step::step]
                n += len(chunk)
                if w:
                    for j, cells in enumerate(zip(*kept)):
                        cols[j].extend(cells)
                self._n += len(kept)
        self.total = n

    def ragged(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Records whose cell count differs from the header's (parses the file if not yet done).

        Returns:
            ``(long, short)``: ``(line, cells)`` per record with more cells than the header
            (the extra cells are dropped, as by :class:`csv.DictReader` and the engine's pandas)
            and per record with fewer (the missing cells are empty). ``line`` is the 1-based
            line the record starts on (a quoted field may span lines).
        """
        if self._cols is None:
            fast = self._ragged_unquoted()
            if fast is not None:
                return fast
        self._load()
        if not self._long and not self._short:
            return [], []
        lines = self._starts(set(self._long) | set(self._short))  # second pass only when needed
        return [lines[i] for i in self._long], [lines[i] for i in self._short]

    def start_lines(self, indices) -> dict[int, int]:
        """The 1-based line of the file each record of ``indices`` starts on (a quoted field may span
        lines; blank lines are no records), read in a second pass over the file. Records of a sample
        (profile-and-sample) are not located: ``{}``."""
        if self.step != 1:
            return {}
        return {i: line for i, (line, _cells) in self._starts(set(indices)).items()}

    def _starts(self, wanted: set[int]) -> dict[int, tuple[int, int]]:
        """Record index -> (line it starts on, its cell count), for the records of ``wanted``."""
        lines: dict[int, tuple[int, int]] = {}
        if not wanted:
            return lines
        limit = csv.field_size_limit(2 ** 31 - 1)
        try:
            with open(self._path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, delimiter=self._delimiter)
                next(reader, None)
                i, end = 0, 1  # end: the line the previous row ended on
                last = max(wanted)
                for row in reader:
                    start, end = end + 1, reader.line_num
                    if not row or row == self._skip:
                        continue
                    if i in wanted:
                        lines[i] = (start, len(row))
                    if i >= last:
                        break
                    i += 1
        finally:
            csv.field_size_limit(limit)
        return lines

    def _ragged_unquoted(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
        """:meth:`ragged` without parsing, for a file without quotes: then every line is one record
        and has its separators + 1 cells. ``None`` when the file has a quote, a carriage return
        outside CRLF, a blank first line or a separator outside ASCII."""
        sep = self._delimiter.encode("utf-8")
        data = Path(self._path).read_bytes()
        if len(sep) != 1 or b'"' in data or data.count(b"\r") != data.count(b"\r\n"):
            return None
        lines = data.replace(b"\r\n", b"\n").split(b"\n")
        if not lines[0]:
            return None  # a blank first line: the csv module would take the next one for the header
        long: list[tuple[int, int]] = []
        short: list[tuple[int, int]] = []
        width = self._width
        for number, line in enumerate(lines[1:], start=2):
            if line:  # blank lines are no records
                cells = line.count(sep) + 1
                if cells != width:
                    (long if cells > width else short).append((number, cells))
        return long, short

    def head(self, name: str, k: int) -> list[str] | None:
        """Cells of ``name`` in the first ``k`` records (``""`` when empty), read without parsing
        the rest of the file; ``None`` for no such column."""
        if name not in self._names:
            return None
        if self._cols is not None and self.step == 1:
            return self.column(name)[:k]
        i = self._index[self._names.index(name)]
        out: list[str] = []
        limit = csv.field_size_limit(2 ** 31 - 1)
        try:
            with open(self._path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, delimiter=self._delimiter)
                next(reader, None)
                for row in reader:
                    if len(out) >= k:
                        break
                    if row and row != self._skip:
                        out.append(row[i] if i < len(row) else "")
        finally:
            csv.field_size_limit(limit)
        return out

    @property
    def parsed(self) -> bool:
        """True once the cells have been read."""
        return self._cols is not None

    @property
    def sampled(self) -> bool:
        """True when only the sample of the records is held (profile-and-sample, module docstring)."""
        self._load()
        return self.step > 1

    def value_counts(self, name: str) -> Counter | None:
        """Occurrences of each non-empty cell of ``name`` over *all* records when only the sample is
        held (shared: do not modify); ``None`` otherwise (the column itself is then whole) or for no
        such column. Empty cells: ``total`` minus the counts' sum."""
        self._load()
        if self._counts is None or name not in self._names:
            return None
        return self._counts[self._names.index(name)]

    def distinct(self) -> DistinctRecords:
        """The distinct records (computed once)."""
        if getattr(self, "_distinct", None) is None:
            self._distinct = DistinctRecords(self)
        return self._distinct

    def column(self, name: str) -> list[str] | None:
        """Cells of ``name`` per record (``""`` when empty), or ``None`` for no such column.
        The list is shared: do not modify it."""
        if name not in self._names:
            return None
        return self._load()[self._names.index(name)]

    @property
    def names(self) -> list[str]:
        """Distinct column names in header order."""
        return list(self._names)

    def __len__(self) -> int:
        self._load()
        return self._n

    def _record(self, cells) -> dict[str, list[str]]:
        return {k: ([v] if v else []) for k, v in zip(self._names, cells)}

    def __iter__(self) -> Iterator[dict[str, list[str]]]:
        cols = self._load()
        if not cols:
            yield from ({} for _ in range(self._n))
            return
        for cells in zip(*cols):
            yield self._record(cells)

    def __getitem__(self, i):
        cols = self._load()
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._record([c[i] for c in cols])


class DistinctRecords(Sequence):
    """Distinct records of a :class:`ColumnRecords` (first-seen order), as
    ``{name: (cell,) or ()}`` dicts, built on access; :func:`pipeline.mappers.offline.profile.is_key`
    works on the columns directly.

    Attributes:
        rows: indices (into the columns) of the first occurrence of each distinct record.
    """

    def __init__(self, records: ColumnRecords):
        self.base = records
        cols = records._load()
        n = len(records)
        if not cols:
            self.rows: list[int] = [0] if n else []
            return
        rows = list(zip(*cols))
        last = dict(zip(rows, range(n)))
        if len(last) == n:  # no duplicate record: every index, in order
            self.rows = list(range(n))
            return
        first = dict(zip(reversed(rows), range(n - 1, -1, -1)))
        self.rows = sorted(first.values())

    def column(self, name: str) -> list[str] | None:
        """Cells of ``name`` per distinct record, or ``None`` for no such column."""
        col = self.base.column(name)
        if col is None:
            return None
        if len(self.rows) == len(self.base):
            return col
        return [col[i] for i in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        for i in self.rows:
            yield {k: tuple(v) for k, v in self.base[i].items()}

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self.rows)))]
        return {k: tuple(v) for k, v in self.base[self.rows[i]].items()}
