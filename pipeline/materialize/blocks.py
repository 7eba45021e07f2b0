"""CSV/TSV files split into byte ranges on record boundaries, each read by the worker that runs it.

The distributed mode never reads a source whole on one node: a file is cut into blocks of about
``size`` bytes (from its length alone), and each block's worker reads its own bytes. A block's
records start at the first record boundary at or after its nominal start and end at the first
one at or after its nominal end, so every record belongs to exactly one block. A record boundary
is a line feed *outside* a quoted field: quoted fields may hold line breaks.

Whether a line feed is inside a quoted field depends on every quote before it. Two passes find it
without a sequential read: :func:`scan_block` counts the quotes of each block (in parallel) and the
driver adds up their parities, so each block knows whether it starts inside a quoted field
(:func:`quote_states`). Counting parities is exact for files whose quotes all enclose fields (RFC
4180: an opening quote at the start of a field, a closing one before a delimiter or line end,
``""`` inside); pandas' parser, as the engine runs it, reads a quote in the middle of an unquoted
field (``5'3"``) as a character, which that count would get wrong. So :func:`scan_block` also
checks that every quote of its block sits where RFC 4180 puts one, for both possible start
states; a file with a block that does not is read whole by one worker (:func:`split_file`).
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Block", "nominal_ranges", "scan_block", "quote_states", "split_file", "block_bytes", "read_block"]

_QUOTE, _LF, _CR = 0x22, 0x0A, 0x0D
_WINDOW = 1 << 20


@dataclass(frozen=True)
class Block:
    """One block of a file: nominal byte range ``[start, end)`` and the quote state at each end.

    Attributes:
        path: the file. index: position among the file's blocks. start, end: nominal offsets.
        inside_start, inside_end: whether ``start`` (``end``) lies inside a quoted field.
        last: the file's last block (its records end at the end of the file).
    """

    path: str
    index: int
    start: int
    end: int
    inside_start: bool = False
    inside_end: bool = False
    last: bool = True


def nominal_ranges(size: int, block: int) -> list[tuple[int, int]]:
    """``[start, end)`` ranges of ``block`` bytes covering ``size`` bytes, the last one shorter (one
    range for an empty file). Full blocks rather than equal ones: the largest task of a run is a
    whole block whatever the size of the data, so memory per worker is set by ``block`` alone
    (equal blocks are smaller on smaller data: a 4.2 MB file cut for 4 MiB gives two of 2.1 MB)."""
    block = max(block, 1)
    return [(start, min(size, start + block)) for start in range(0, size, block)] or [(0, 0)]


def _read(path: str, start: int, end: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(start)
        return fh.read(max(0, end - start))


def scan_block(path: str, start: int, end: int, delimiter: str) -> tuple[int, bool, bool]:
    """Count the quotes of ``[start, end)`` and check they enclose fields (module docstring).

    Returns:
        ``(quotes, regular_outside, regular_inside)``: the number of ``"`` bytes, and whether every
        one is where RFC 4180 puts a quote when the block starts outside (inside) a quoted field.
    """
    data = np.frombuffer(_read(path, max(0, start - 1), end + 1), dtype=np.uint8)
    head = 1 if start > 0 else 0  # one byte of context each side
    body = data[head:head + (end - start)]
    quotes = np.flatnonzero(body == _QUOTE)
    if len(quotes) == 0:
        return 0, True, True
    at = quotes + head
    before = np.where(at > 0, data[np.maximum(at - 1, 0)], _LF)  # the file's first byte: after a line start
    after = np.where(at + 1 < len(data), data[np.minimum(at + 1, len(data) - 1)], _LF)  # end of file: a line end
    delim = ord(delimiter)
    opens_ok = (before == delim) | (before == _LF) | (before == _CR) | (before == _QUOTE)
    closes_ok = (after == delim) | (after == _LF) | (after == _CR) | (after == _QUOTE)
    # quote k of the block opens a field when k + (1 if it starts inside) is even
    even = (np.arange(len(quotes)) % 2) == 0
    outside = bool(np.all(np.where(even, opens_ok, closes_ok)))
    inside = bool(np.all(np.where(even, closes_ok, opens_ok)))
    return len(quotes), outside, inside


def quote_states(scans: list[tuple[int, bool, bool]]) -> tuple[list[bool], bool]:
    """Per block whether it starts inside a quoted field, from the scans of the file's blocks in
    order; and whether every block is regular for its actual start state (the file can be split)."""
    states, inside, regular = [], False, True
    for quotes, ok_outside, ok_inside in scans:
        states.append(inside)
        regular &= ok_inside if inside else ok_outside
        inside ^= bool(quotes % 2)
    return states, regular


def split_file(path: str, ranges: list[tuple[int, int]], scans: list[tuple[int, bool, bool]]) -> list[Block]:
    """The blocks of ``path`` from its nominal ranges and their scans; one block for the whole
    file when a quote is not where RFC 4180 puts one (the parity of quotes says nothing then)."""
    states, regular = quote_states(scans)
    if not regular or len(ranges) == 1:
        return [Block(path, 0, 0, os.path.getsize(path))]
    out = []
    for i, (start, end) in enumerate(ranges):
        out.append(Block(path, i, start, end, states[i], states[i + 1] if i + 1 < len(states) else False,
                         i == len(ranges) - 1))
    return out


def _next_record(fh: Any, pos: int, inside: bool, size: int) -> int:
    """The offset after the first line feed outside a quoted field from ``pos`` on (``inside``: the
    state at ``pos``), or ``size``."""
    step = 1 << 16  # a record is short: a small window first, doubled while no boundary is found
    while pos < size:
        fh.seek(pos)
        window = np.frombuffer(fh.read(step), dtype=np.uint8)
        step = min(step * 2, _WINDOW)
        if len(window) == 0:
            break
        q = np.cumsum(window == _QUOTE) + (1 if inside else 0)
        lf = np.flatnonzero((window == _LF) & (q % 2 == 0))
        if len(lf):
            return pos + int(lf[0]) + 1
        inside = bool(q[-1] % 2)
        pos += len(window)
    return size


def _boundary(fh: Any, offset: int, inside: bool, size: int) -> int:
    """The first record start at or after ``offset`` (``inside``: the state at ``offset``)."""
    if offset <= 0:
        return 0
    if offset >= size:
        return size
    fh.seek(offset - 1)
    if fh.read(1) == b"\n" and not inside:
        return offset
    return _next_record(fh, offset, inside, size)


def block_bytes(block: Block) -> tuple[bytes, bytes]:
    """``(header, records)``: the file's header record (empty for the first block, whose records
    begin with it) and the bytes of the block's records."""
    size = os.path.getsize(block.path)
    with open(block.path, "rb") as fh:
        header_end = _next_record(fh, 0, False, size)
        if block.index == 0 and block.start == 0:
            start = 0
        else:
            start = max(_boundary(fh, block.start, block.inside_start, size), header_end)
        end = size if block.last else max(_boundary(fh, block.end, block.inside_end, size), start)
        fh.seek(0)
        header = fh.read(header_end) if start > 0 else b""
        fh.seek(start)
        return header, fh.read(end - start)


def read_block(block: Block, source_type: str, columns: list[str]) -> Any:
    """The block's records as the engine reads the file (``pandas.read_table``, ``dtype=str``, no NA
    filtering, the C parser), with the columns ``columns``.

    Raises:
        ValueError, UnicodeDecodeError, pandas.errors.ParserError: the bytes do not parse so.
    """
    import pandas as pd

    header, records = block_bytes(block)
    return pd.read_table(io.BytesIO(header + records), sep="," if source_type == "CSV" else "\t", index_col=False,
                         encoding="utf-8", encoding_errors="strict", usecols=columns, engine="c", dtype=str,
                         keep_default_na=False, na_filter=False)
