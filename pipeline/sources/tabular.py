"""CSV sources: header, separator and byte-order mark at load, header and ragged-record checks.

The cells are read on first use, into columns (:mod:`pipeline.sources.columns`). A CSV that is not
comma-separated BOM-less UTF-8 gets a normalised copy for the engine (:func:`pipeline.sources.engine_copy.csv_copy`).
"""
from __future__ import annotations

import csv
import re
from decimal import Decimal

from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.sources.checks import NO_RECORDS, csv_nul_byte, csv_preamble, repeated_header_lines, unclosed_quote
from pipeline.sources.columns import ColumnRecords, check_utf8
from pipeline.sources.engine_copy import EngineCopy, csv_copy, csv_dialect
from pipeline.sources.model import SourceData

__all__ = ["load_csv", "csv_row_findings", "trimmed_header"]


def load_csv(src: Source, copy: EngineCopy, profile: bool = False) -> SourceData:
    """Read a CSV source (header now, cells on first use); ``copy`` is written when the file is not
    comma-separated BOM-less UTF-8; ``profile``: a large file is held as its sample and value counts
    (:class:`~pipeline.sources.columns.ColumnRecords`). Raises ``OSError``/``csv.Error``
    (:func:`~pipeline.sources.load.load_source` turns them into findings)."""
    limit = csv.field_size_limit(2 ** 31 - 1)  # long cells are data too (the default stops at 128 KiB)
    try:
        data = _read_csv(src, profile)
        if data.delimiter != "," or data.bom or data.trimmed or data.repeated_header:
            data.findings.append(csv_copy(copy, data.delimiter, data.bom, data.references if data.trimmed else None,
                                          data.repeated_header))
            data.path = copy.path
        return data
    finally:
        csv.field_size_limit(limit)


def _read_csv(src: Source, profile: bool = False) -> SourceData:
    """Header, separator and BOM now; the cells on first use (:class:`~pipeline.sources.columns.ColumnRecords`)."""
    quotes = check_utf8(src.path)  # an undecodable file is a finding at load, though its cells are read later
    delimiter, bom = csv_dialect(src.path)
    repeats = repeated_header_lines(src.path, delimiter)
    with src.path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        raw = refs = next(reader, [])
        has_record = any(row and row != raw for row in reader)
    refs, trimmed = trimmed_header(refs)
    records = ColumnRecords(src.path, delimiter, refs, profile=profile, skip=raw if repeats else None)
    data = SourceData(src, src.path, None, refs, records)
    data.delimiter = delimiter
    data.trimmed = trimmed
    data.repeated_header = len(repeats)
    if repeats:
        lines = ", ".join(map(str, repeats[:5])) + (f" and {len(repeats) - 5} more" if len(repeats) > 5 else "")
        what = f"line {lines} repeats" if len(repeats) == 1 else f"lines {lines} repeat"
        data.findings.append(Finding("source", str(src.path), f"{what} the header line (a page break of a "
                                     "spreadsheet export): not a record, left out", line=repeats[0],
                                     column="record", expected="one header line (RFC 4180 section 2.3)",
                                     severity="info"))
    for name in dict.fromkeys(n for n in refs if n.strip() and n != n.strip()):  # left untrimmed: a clash
        data.unaddressable[name] = (f"the header name {name!r} has white space at its ends and trimming it would "
                                    "give the name of another column: a table cell cannot address it")
        data.findings.append(Finding("source", str(src.path), data.unaddressable[name], line=1, column="header",
                                     value=name, expected="distinct column names without white space at their ends",
                                     severity="warning"))
    for name in dict.fromkeys(n for n in refs if not n.strip()):  # said by _header_warnings
        data.unaddressable[name] = "the column's header cell is empty: no table cell can name it"
    data.bom = bom
    opened = unclosed_quote(src.path, delimiter) if quotes % 2 else None
    nul = csv_nul_byte(src.path, delimiter)
    if nul is not None:  # the engine would cut the value at the NUL byte: nothing else is worth saying first
        data.findings.append(nul)
    elif not refs:
        data.findings.append(Finding("source", str(src.path), "empty CSV file", line=1,
                                     expected="a header line with column names"))
    elif opened:
        data.findings.append(Finding("source", str(src.path), f"unclosed quote: the quoted field opened at line "
                                     f"{opened[0]}, column {opened[1]} runs to the end of the file", line=opened[0],
                                     expected='a closing "; a quote inside a quoted '
                                     'field is written ""'))
    elif preamble := csv_preamble(src.path, delimiter):
        data.findings.append(preamble)
    elif not has_record:
        data.findings.append(Finding("source", str(src.path), "CSV file has a header but no records: nothing to map",
                                     line=2, column=NO_RECORDS, expected="at least one record below the header",
                                     severity="warning"))
    data.findings += _header_warnings(src, refs)
    return data


def trimmed_header(names: list[str]) -> tuple[list[str], list[str]]:
    """The header with spaces around names removed (``isbn ,pages`` -> ``isbn``, ``pages``).

    A space after a comma is common in hand-made and exported CSV files, and invisible: a mapping
    table's cells (and any user) write the name without it, while the engine addresses columns by
    their exact header text. Names are trimmed only when no two names become one and no name
    becomes empty (those stay as they are, reported by :func:`_header_warnings`).

    Args:
        names: the header's cells, as read.
    Returns:
        ``(header, trimmed)``: the header to use (length ``len(names)``) and the original names that
        were trimmed (``[]``: the header is kept as it is).
    """
    stripped = [n.strip() for n in names]
    changed = [n for n, s in zip(names, stripped) if n != s and s]
    if not changed:
        return names, []
    if len(set(stripped)) != len(set(names)):  # trimming would merge two columns: keep the file's names
        return names, []
    return [s if s else n for n, s in zip(names, stripped)], changed


def _header_warnings(src: Source, refs: list[str]) -> list[Finding]:
    """Header names no reference can address as the engine reads them: a name given twice (pandas,
    inside Morph-KGC, reads the first column; kgc's profiling the last) and an empty name."""
    out = []
    for name in dict.fromkeys(refs):
        cols = [i + 1 for i, r in enumerate(refs) if r == name]
        if name.strip() == "":
            out.append(Finding("source", str(src.path), f"header cell(s) in column(s) {', '.join(map(str, cols))} "
                               "are empty: no reference addresses that data", line=1, column="header", value=name,
                               expected="a name for every column", severity="warning"))
        elif len(cols) > 1:
            out.append(Finding("source", str(src.path), f"the header names {name!r} in columns "
                               f"{', '.join(map(str, cols))}: the engine reads column {cols[0]} only", line=1,
                               column="header", value=name, expected="distinct column names", severity="warning"))
    return out


def csv_row_findings(data: SourceData) -> list[Finding]:
    """Records of a CSV source whose cell count differs from its header's (parses the file).

    Returns:
        At most two findings: a ``warning`` for records with more cells than the header (the
        extra cells reach no column, so neither kgc nor the engine reads them: data is lost)
        and an ``info`` for records with fewer (their missing cells are empty), each naming
        the first lines. ``[]`` for other formats and well-formed files.
    """
    if not isinstance(data.records, ColumnRecords):
        return []
    long, short = data.records.ragged()
    width, out = len(data.references), []
    for rows, severity, what in ((long, "warning", "more cells than the header; the extra cells are dropped "
                                  "(no column name addresses them)"),
                                 (short, "info", "fewer cells than the header; the missing cells are read as empty")):
        if rows:
            first = ", ".join(f"line {line} ({cells} cells)" for line, cells in rows[:5])
            more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
            out.append(Finding("source", str(data.source.path), f"{len(rows)} record(s) have {what}: {first}{more}",
                               line=rows[0][0], column="record", expected=f"{width} cells per record, as the header",
                               severity=severity))
    totals = _totals_row(data.records, data.source.path)
    if totals is not None:
        out.append(totals)
    return out


# a number as spreadsheets write it: digits with optional sign, thousands and decimal marks
_NUMBER = re.compile(r"[+-]?(?:\d[\d.,' \u00a0]*|[.,]\d+)")
_MIN_NUMBERS = 2  # other values of the column that make "a column of numbers"


def _totals_row(records: ColumnRecords, path) -> Finding | None:
    """A warning when the last record of ``records`` (read from ``path``) looks like a spreadsheet's totals
    row, else ``None``.

    Evidence, all from the file: the last record's first non-empty cell is a word and each of its
    other cells is empty or a number, and either the word's column holds numbers in every other
    record (at least two), or one of the last record's numbers is the sum of its column's other
    values (at least two, every one a plain decimal number: `Total,,4800000` under 2700000 and
    2100000). Such a row is a label with aggregates, not an instance of what the other records
    describe, yet it maps as one; it is reported, not removed (a label can be a real key).
    """
    if records.step != 1 or len(records) < _MIN_NUMBERS + 1:
        return None
    cols = [records.column(n) for n in records.names]
    last = [c[-1] for c in cols]
    filled = [j for j, v in enumerate(last) if v.strip()]
    if not filled:
        return None
    j = filled[0]
    label = last[j].strip()
    others = [v for v in cols[j][:-1] if v.strip()]
    if _NUMBER.fullmatch(label) or not all(_NUMBER.fullmatch(last[k].strip()) for k in filled[1:]):
        return None
    name = records.names[j]
    if len(others) >= _MIN_NUMBERS and all(_NUMBER.fullmatch(v.strip()) for v in others):
        why = f"{label!r} in column {name!r}, whose other values are numbers, and its other cells empty or numbers"
    else:
        summed = next((k for k in filled[1:] if _is_sum(last[k], cols[k][:-1])), None)
        if summed is None:
            return None
        why = (f"{label!r} in column {name!r}, and its {records.names[summed]!r} ({last[summed].strip()}) is the "
               "sum of that column's other values")
    line = records.start_lines([len(records) - 1]).get(len(records) - 1)
    return Finding("source", str(path), f"the last record looks like a totals row: {why}; it maps "
                   "as a record like the others", line=line, column=name, value=label,
                   expected="records only; remove a totals row before mapping", severity="warning")


_PLAIN = re.compile(r"[+-]?\d+(?:\.\d+)?")


def _is_sum(total: str, values: list[str]) -> bool:
    """``total`` equals the sum of ``values`` (at least :data:`_MIN_NUMBERS` non-empty, every one and
    ``total`` a plain decimal number: no thousands separator whose reading would be a guess)."""
    cells = [v.strip() for v in values if v.strip()]
    if len(cells) < _MIN_NUMBERS or not _PLAIN.fullmatch(total.strip()) or not all(_PLAIN.fullmatch(v) for v in cells):
        return False
    return sum(Decimal(v) for v in cells) == Decimal(total.strip())
