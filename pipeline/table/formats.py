"""Read and write mapping tables as CSV and JSON, and dispatch on file suffix.

CSV uses the :data:`~pipeline.table.model.COLUMNS` headers (editable in a
spreadsheet); JSON follows :func:`~pipeline.table.model.json_schema`
(``{"rows": [...]}``) and also keeps provenance fields (line, confidence,
evidence) when present.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pipeline.errors import TableParseError, json_syntax_error
from pipeline.table.cells import clean_cell
from pipeline.table.markdown import header_field, parse_markdown, table_text, to_markdown
from pipeline.table.model import COLUMNS, MappingRow, MappingTable

__all__ = ["read_table", "write_table", "parse_csv", "to_csv", "parse_json", "to_json", "REQUIRED_COLUMNS"]

#: Columns a table file must have (the JSON schema's required fields less the subject template,
#: which a row may lack and the audit reports): without them no row names its triple.
REQUIRED_COLUMNS = ("ontology_property", "entity_class")


#: Separators a spreadsheet writes a CSV with: ',' and, in comma-decimal locales, ';'; tab for "text".
_DELIMITERS = (",", ";", "\t")


def _delimiter(text: str) -> str:
    """The separator under which the header line names the most mapping-table columns (',' on a tie):
    the evidence is the header itself, as a ``;``-separated table re-saved by a spreadsheet shows."""
    line = text.split("\n", 1)[0]
    counts = {d: sum(1 for h in next(csv.reader([line], delimiter=d), []) if header_field(h)[0]) for d in _DELIMITERS}
    return max(_DELIMITERS, key=lambda d: (counts[d], d == ","))


def parse_csv(text: str, source: str = "<string>") -> MappingTable:
    """Parse a CSV mapping table (first line: headers, any BLINKG header variant), separated by ',',
    or by ';' or a tab when the header shows it (a table re-saved by a spreadsheet), with or without
    a byte-order mark.

    Raises:
        TableParseError: no recognisable header.
    """
    text = text.lstrip("\ufeff")
    delimiter = _delimiter(text)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        headers = next(reader)
    except StopIteration:
        raise TableParseError("empty CSV mapping table (expected a header line)", path=source, line=1) from None
    table = MappingTable(source=source)
    if delimiter != ",":
        table.notes.append(f"line 1: the table is separated by {delimiter!r}, not ','; read with {delimiter!r}")
    fields = []
    for h in headers:
        fld, note = header_field(h)
        if note:
            table.notes.append(f"line 1: {note}")
        if fld is None:
            table.ignored_headers.append((h, 1))
        fields.append(fld)
    table.columns = [f for f in fields if f]
    if not any(fields):
        raise TableParseError(f"CSV header {headers!r} names no mapping-table column", path=source, line=1)
    for cells in reader:
        values = {f: clean_cell(c, f) for f, c in zip(fields, cells) if f}
        row = MappingRow(line=reader.line_num, **values)
        if any(row.cells().values()):
            table.rows.append(row)
    return table


def to_csv(table: MappingTable) -> str:
    """Render a table as CSV with the :data:`COLUMNS` headers (and Review when a row is marked)."""
    columns = table.written_columns()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns.values())
    for r in table.rows:
        w.writerow(["" if getattr(r, f) is None else getattr(r, f) for f in columns])
    return buf.getvalue()


def _skip(text: str, i: int) -> int:
    """The index of the first character at or after ``i`` that is not JSON white space (RFC 8259 section 2)."""
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _row_lines(text: str) -> list[int] | None:
    """The 1-based line of each row object of a JSON table, in order: where its ``{`` stands in
    ``text``, so that a finding on a row cites the line of the file the user edits (not the
    ``line`` member a run's ``table.json`` carries, the row's line in ``table.md``).

    Each value is read with :class:`json.JSONDecoder` itself (``raw_decode``), so the positions
    are those of the parse; for an object with ``rows`` twice the last one counts, as for
    :func:`json.loads`. Returns ``None`` when ``text`` is not of the table's shape."""
    decoder = json.JSONDecoder()
    try:
        i = _skip(text, 0)
        rows_at = i if text[i] == "[" else None
        if text[i] == "{":
            i = _skip(text, i + 1)
            while text[i] != "}":
                key, i = decoder.raw_decode(text, i)
                i = _skip(text, _skip(text, i) + 1)  # past the ':'
                if key == "rows":
                    rows_at = i
                _, i = decoder.raw_decode(text, i)
                i = _skip(text, i)
                i = _skip(text, i + 1) if text[i] == "," else i
        if rows_at is None or text[rows_at] != "[":
            return None
        lines, i = [], _skip(text, rows_at + 1)
        while text[i] != "]":
            lines.append(text.count("\n", 0, i) + 1)
            _, i = decoder.raw_decode(text, i)
            i = _skip(text, i)
            i = _skip(text, i + 1) if text[i] == "," else i
        return lines
    except (ValueError, IndexError):
        return None


def parse_json(text: str, source: str = "<string>") -> MappingTable:
    """Parse ``{"rows": [{field: value}, ...]}`` (or a bare list of row objects); each row's
    ``line`` is the line of its object in ``text`` (:func:`_row_lines`).

    Raises:
        TableParseError: not JSON, or not of that shape; the message names the row.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        line, why, expected = json_syntax_error(exc, text)
        raise TableParseError(f"{why} (expected: {expected})", path=source, line=line) from exc
    except RecursionError as exc:  # a table is a list of flat rows: nesting this deep is no table
        raise TableParseError("invalid JSON: arrays/objects nested too deeply to read", path=source) from exc
    rows = data.get("rows") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise TableParseError('expected an object {"rows": [...]} or a list of rows', path=source)
    table = MappingTable(source=source, notes=list(data.get("notes", [])) if isinstance(data, dict) else [])
    lines = _row_lines(text)
    lines = lines if lines is not None and len(lines) == len(rows) else [None] * len(rows)
    for i, (item, line) in enumerate(zip(rows, lines)):
        if not isinstance(item, dict):
            raise TableParseError(f"row {i}: expected an object, found {type(item).__name__}", path=source, line=line)
        try:
            row = MappingRow.from_dict(item)
        except (KeyError, TypeError) as exc:
            raise TableParseError(f"row {i}: {exc}", path=source, line=line, key=str(i)) from exc
        if line is not None:
            row.line = line
        for f in (*COLUMNS, "review"):
            value = getattr(row, f)
            setattr(row, f, clean_cell(value if isinstance(value, str) or value is None else str(value), f))
        table.rows.append(row)
    return table


def to_json(table: MappingTable) -> str:
    """Render a table as indented JSON (schema shape plus provenance fields)."""
    return json.dumps(table.to_dict(), indent=2, ensure_ascii=False) + "\n"


_PARSERS = {".md": parse_markdown, ".markdown": parse_markdown, ".csv": parse_csv, ".json": parse_json}
_RENDERERS = {".md": to_markdown, ".markdown": to_markdown, ".csv": to_csv, ".json": to_json}


def read_table(path: str | Path) -> MappingTable:
    """Read a mapping table, choosing the format by suffix (``.md``, ``.csv``, ``.json``).

    Raises:
        TableParseError: unknown suffix, unreadable file, or unparsable content.
    """
    p = Path(path)
    parser = _PARSERS.get(p.suffix.lower())
    if parser is None:
        raise TableParseError(f"unknown mapping-table format {p.suffix!r}; expected one of {sorted(_PARSERS)}", path=p)
    text = table_text(p)
    table = parser(text, source=str(p))
    missing = [COLUMNS[c] for c in REQUIRED_COLUMNS if table.columns and c not in table.columns]
    if missing:  # no row could name its triple: every row would be dropped, or reach the engine half-made
        line = next((i for i, t in enumerate(text.splitlines(), 1) if t.strip().startswith("|")), 1) \
            if parser is parse_markdown else 1
        ignored = [n.split("header ", 1)[1].split(" is no", 1)[0] for n in table.notes if "is no mapping-table" in n]
        raise TableParseError(
            f"the header has no {' and no '.join(repr(m) for m in missing)} column"
            + (f" (ignored as no column: {', '.join(ignored)})" if ignored else "")
            + f"; expected the columns {', '.join(repr(v) for v in COLUMNS.values())}", path=p, line=line)
    return table


def write_table(table: MappingTable, path: str | Path) -> Path:
    """Write ``table`` in the format given by the suffix of ``path``; returns the path."""
    p = Path(path)
    render = _RENDERERS.get(p.suffix.lower())
    if render is None:
        raise TableParseError(f"unknown mapping-table format {p.suffix!r}; expected one of {sorted(_RENDERERS)}", path=p)
    p.write_text(render(table), encoding="utf-8")
    return p
