"""Read and write mapping tables as Markdown (pipe tables).

The reader accepts every variant of the BLINKG ``expected_table.md`` files:
different header names, alignment rows, missing or extra trailing cells,
rows without a final pipe or newline, backtick-quoted cells, ``-`` cells,
source hints in the data-reference cell and function names written in the
output cell. What it had to guess is written to :attr:`MappingTable.notes`.
"""
from __future__ import annotations

import re
from pathlib import Path

from rapidfuzz import fuzz, process

from pipeline.errors import TableParseError, not_utf8_error
from pipeline.table.cells import clean_cell, split_function_cell, split_source_hint
from pipeline.table.model import COLUMNS, MappingRow, MappingTable

__all__ = ["HEADER_ALIASES", "header_field", "parse_markdown", "read_markdown", "table_text", "to_markdown",
           "write_markdown"]

#: Normalised header text -> row field. Keys are lower case, punctuation-free.
HEADER_ALIASES: dict[str, str] = {
    "csv column": "data_reference",
    "column": "data_reference",
    "data reference": "data_reference",
    "reference": "data_reference",
    "source reference": "data_reference",
    # LLM answers to the BLINKG prompts name the data reference after the source format
    "xml path": "data_reference",
    "xpath": "data_reference",
    "json path": "data_reference",
    "jsonpath": "data_reference",
    "path": "data_reference",
    "csv columns": "data_reference",
    "source column": "data_reference",
    "source file": "source_file",
    "file": "source_file",
    "ontology property": "ontology_property",
    "property": "ontology_property",
    "predicate": "ontology_property",
    "entity class": "entity_class",
    "class": "entity_class",
    "related entity class": "related_entity_class",
    "rel entity class": "related_entity_class",
    "related class": "related_entity_class",
    "subject generation": "subject_template",
    "subject template": "subject_template",
    "subject": "subject_template",
    "join condition": "join_condition",
    "join": "join_condition",
    "datatype": "datatype",
    "data type": "datatype",
    "language annotations": "language_tag",
    "language annotation": "language_tag",
    "language tag": "language_tag",
    "language": "language_tag",
    "function name": "function_name",
    "function": "function_name",
    "function output": "function_output",
    "review": "review",
}

_SEP_CELL = re.compile(r"[:\-]*")


def _is_separator(line: str) -> bool:
    """An alignment row: every cell dashes and colons with at least ``--`` (hand-written tables
    have ``-:-:----``); checked cell by cell, since one regex over the row backtracks badly."""
    body = line.strip()
    if not body or body.strip("|:- \t"):
        return False
    cells = [c.strip() for c in body.strip("|").split("|")]
    # an empty cell is allowed: LLM tables sometimes carry an extra blank column
    return any("--" in c for c in cells) and all(not c or ("--" in c and _SEP_CELL.fullmatch(c)) for c in cells)


def _normalise_header(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z ]", " ", text.lower())).strip()


def header_field(header: str) -> tuple[str | None, str | None]:
    """Map one header text to a row field.

    Returns:
        ``(field, note)``: ``field`` is ``None`` for an unknown header;
        ``note`` says when the match was approximate or failed.
    """
    key = _normalise_header(header)
    if key in HEADER_ALIASES:
        return HEADER_ALIASES[key], None
    best = process.extractOne(key, list(HEADER_ALIASES), scorer=fuzz.ratio)
    if best and best[1] >= 85:
        return HEADER_ALIASES[best[0]], f"header {header!r} read as {COLUMNS[HEADER_ALIASES[best[0]]]!r}"
    return None, f"header {header!r} is no mapping-table column; its cells are ignored"


def _split_row(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    # GFM: a literal pipe inside a cell is written "\\|"; nothing else protects it
    cells = re.split(r"(?<!\\)\|", body)
    cells = [c.replace("\\|", "|") for c in cells]
    return cells


def parse_markdown(text: str, source: str = "<string>") -> MappingTable:
    """Parse the first pipe table in ``text`` into a :class:`MappingTable`.

    Args:
        text: Markdown text; prose around the table is ignored, and so is any later table (a
            pipe row followed by a separator line ends the first table; a note says so).
        source: file name used in notes and errors.
    Returns:
        The table; rows keep their 1-based line numbers.
    Raises:
        TableParseError: no pipe table with a recognisable header in ``text``.
    """
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("|")), None)
    if start is None:
        raise TableParseError("no Markdown pipe table found (expected a line starting with '|')", path=source)
    table = MappingTable(source=source)
    fields: list[str | None] = []
    seen: set[str] = set()
    for header in _split_row(lines[start]):
        fld, note = header_field(header.strip())
        if note:
            table.notes.append(f"line {start + 1}: {note}")
        if fld is None:
            table.ignored_headers.append((header.strip(), start + 1))
        if fld in seen:
            table.notes.append(f"line {start + 1}: duplicate column for {COLUMNS[fld]!r}; later one ignored")
            fld = None
        if fld:
            seen.add(fld)
        fields.append(fld)
    table.columns = [f for f in fields if f]
    if not seen:
        raise TableParseError(
            f"table header {lines[start].strip()!r} names no mapping-table column "
            f"(expected headers such as {', '.join(repr(v) for v in COLUMNS.values())})",
            path=source, line=start + 1)
    previous_outputs: dict[str | None, str] = {}
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if not line.strip().startswith("|"):
            if line.strip():
                break
            continue
        if _is_separator(line):
            continue
        if i + 1 < len(lines) and _is_separator(lines[i + 1]):
            # LLM answers often append a second table (helper functions, prefixes) after the
            # mapping table; its header row followed by a separator line starts it.
            table.notes.append(f"line {i + 1}: a second table starts here; only the first table is read")
            break
        cells = _split_row(line)
        if len(cells) > len(fields) and all(not c.strip() for c in cells[len(fields):]):
            cells = cells[: len(fields)]
        if len(cells) != len(fields):
            table.notes.append(f"line {i + 1}: {len(cells)} cells for {len(fields)} columns; "
                               + ("missing trailing cells read as empty" if len(cells) < len(fields)
                                  else "extra cells ignored"))
        values = {f: clean_cell(c, f) for f, c in zip(fields, cells) if f}
        row = MappingRow(line=i + 1, **values)
        if row.source_file is None:
            row.source_file, row.data_reference = split_source_hint(row.data_reference)
        name, output = split_function_cell(row.function_name, row.function_output)
        if name != row.function_name:
            table.notes.append(f"line {i + 1}: function name {name!r} read from the Function Output cell")
            row.function_name, row.function_output = name, output
        if row.language_tag:
            row.language_tag = row.language_tag.lstrip("@").strip() or None
        if row.function_output and re.fullmatch(r"same as above\.?", row.function_output, re.I):
            prior = previous_outputs.get(row.function_name)
            if prior:
                table.notes.append(f"line {i + 1}: 'Same as above' resolved to the output of the last "
                                   f"{row.function_name!r} row")
                row.function_output = prior
        if row.function_output:
            previous_outputs[row.function_name] = row.function_output
        if not any(row.cells().values()):
            continue
        table.rows.append(row)
    return table


def read_markdown(path: str | Path) -> MappingTable:
    """Read a Markdown mapping table from ``path`` (UTF-8).

    Raises:
        TableParseError: the file is missing, not UTF-8 or holds no table.
    """
    p = Path(path)
    return parse_markdown(table_text(p), source=str(p))


def table_text(path: Path) -> str:
    """The text of a mapping-table file (any format), UTF-8.

    Raises:
        TableParseError: the file is missing or unreadable, or not UTF-8 (the line, column and
            bytes, and the ``iconv`` command that converts a spreadsheet's Windows-1252 file).
    """
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, exc, TableParseError, "cannot read mapping table") from exc
    except OSError as exc:
        raise TableParseError(f"cannot read mapping table: {exc.strerror or exc}", path=path) from exc


def _md_cell(value: str | None) -> str:
    if value is None:
        return ""
    return value.replace("|", "\\|").replace("\n", " ")


def to_markdown(table: MappingTable) -> str:
    """Render a table as a Markdown pipe table with all :data:`COLUMNS` headers (and the Review column
    when a row is marked for review, see :meth:`MappingTable.written_columns`)."""
    columns = table.written_columns()
    head = "| " + " | ".join(columns.values()) + " |"
    sep = "|" + "|".join(["---"] * len(columns)) + "|"
    rows = ["| " + " | ".join(_md_cell(getattr(r, f)) for f in columns) + " |" for r in table.rows]
    return "\n".join([head, sep, *rows]) + "\n"


def write_markdown(table: MappingTable, path: str | Path) -> None:
    """Write :func:`to_markdown` output to ``path`` (UTF-8)."""
    Path(path).write_text(to_markdown(table), encoding="utf-8")
