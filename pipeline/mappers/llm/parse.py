"""Parse whatever an LLM returns into a mapping table, and say how well-formed it was.

An answer may be clean JSON following :func:`pipeline.table.json_schema`,
JSON inside prose or a fenced block, JSON cut off by the token limit, a
Markdown table with prose around it, or nothing usable. :func:`parse_response`
tries, in order: the whole text as JSON, each fenced block, the first balanced
JSON value in the text, a salvage of truncated JSON (complete row objects
kept), then the first Markdown pipe table. It never raises.

"Structural validity" follows BLINKG (Chaves-Fraga et al., section 4.1: "the
percentage of responses that follow the requested table structure"): a response
is structurally valid when it parses as the requested format without repairs
and every row has the schema's shape.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.errors import TableParseError
from pipeline.table import COLUMNS, MappingRow, MappingTable, parse_markdown
from pipeline.table.cells import clean_cell, split_source_hint
from pipeline.table.markdown import header_field

__all__ = ["ParsedResponse", "parse_response", "rows_from_json"]

log = logging.getLogger(__name__)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)


@dataclass
class ParsedResponse:
    """Result of parsing one LLM answer.

    Attributes:
        table: the rows found (possibly empty).
        format: ``"json"``, ``"markdown"`` or ``None`` (nothing parsed).
        structurally_valid: ``True`` when the answer parsed as-is in the
            requested shape (no salvage, no renamed or dropped keys).
        repairs: what had to be done to read it (``"json in prose"``,
            ``"truncated json: kept 3 complete rows"``, ``"key 'Class' read as entity_class"`` ...).
        error: why nothing could be parsed (``None`` when a table was found).
    """

    table: MappingTable
    format: str | None
    structurally_valid: bool
    repairs: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: ``{"format", "structurally_valid", "rows", "repairs", "error"}``."""
        return {"format": self.format, "structurally_valid": self.structurally_valid,
                "rows": len(self.table), "repairs": list(self.repairs), "error": self.error}


def _balanced(text: str, start: int) -> tuple[str, bool]:
    """Return the JSON value starting at ``text[start]`` and whether it closed."""
    stack: list[str] = []
    in_str = esc = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}":
            if not stack or stack.pop() != ch:
                return text[start:i + 1], False
            if not stack:
                return text[start:i + 1], True
    return text[start:], False


def _salvage_rows(fragment: str) -> list[dict[str, Any]]:
    """Complete row objects inside a truncated ``{"rows": [ {...}, {...}, {..`` fragment."""
    m = re.search(r'"rows"\s*:\s*\[', fragment)
    pos = m.end() if m else (fragment.find("[") + 1 if fragment.lstrip().startswith("[") else -1)
    if pos <= 0:
        return []
    rows = []
    while True:
        nxt = fragment.find("{", pos)
        if nxt < 0:
            break
        value, closed = _balanced(fragment, nxt)
        if not closed:
            break
        try:
            obj = json.loads(value)
        except json.JSONDecodeError:
            break
        if isinstance(obj, dict):
            rows.append(obj)
        pos = nxt + len(value)
    return rows


def rows_from_json(data: Any, repairs: list[str]) -> list[MappingRow] | None:
    """Turn decoded JSON into rows, mapping header-like keys to fields.

    Args:
        data: ``{"rows": [...]}``, ``{"mapping": [...]}``-like objects with one
            list of objects, or a bare list of row objects.
        repairs: list to which every deviation from the schema is appended.
    Returns:
        The rows, or ``None`` when ``data`` has no list of row objects.
    """
    items = None
    if isinstance(data, list):
        items = data
        repairs.append("bare list instead of {\"rows\": [...]}")
    elif isinstance(data, dict):
        if isinstance(data.get("rows"), list):
            items = data["rows"]
        else:
            lists = [(k, v) for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
            if lists:
                items = lists[0][1]
                repairs.append(f"rows read from key {lists[0][0]!r}")
            elif any(header_field(str(k))[0] for k in data):
                items = [data]
                repairs.append("single row object instead of a list")
    if items is None:
        return None
    rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            repairs.append(f"row {i}: {type(item).__name__} ignored (expected an object)")
            continue
        values: dict[str, str | None] = {}
        for key, value in item.items():
            fld = key if key in COLUMNS else header_field(str(key))[0]
            if fld is None:
                repairs.append(f"row {i}: unknown key {key!r} ignored")
                continue
            if fld != key:
                repairs.append(f"row {i}: key {key!r} read as {fld}")
            if value is not None and not isinstance(value, str):
                repairs.append(f"row {i}: {fld} value {value!r} turned into text")
                value = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
            values[fld] = clean_cell(value)
        row = MappingRow(line=i + 1, **values)
        if row.source_file is None and row.data_reference:
            row.source_file, row.data_reference = split_source_hint(row.data_reference)
        if row.language_tag:
            row.language_tag = row.language_tag.lstrip("@").strip() or None
        if any(row.cells().values()):
            rows.append(row)
    return rows


def _try_json(text: str, source: str, repairs: list[str]) -> MappingTable | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    rows = rows_from_json(data, repairs)
    return None if rows is None else MappingTable(rows=rows, source=source)


def parse_response(text: str | None, source: str = "<llm>", expected: str = "json") -> ParsedResponse:
    """Parse one LLM answer into a :class:`ParsedResponse` (never raises).

    Args:
        text: the raw completion text.
        source: label stored in the table (e.g. ``"run 2"``).
        expected: the format that was asked for (``"json"`` or ``"markdown"``);
            an answer in the other format is usable but not structurally valid.
    Returns:
        The parsed table with format, validity flag and the list of repairs.
    """
    if not text or not text.strip():
        return ParsedResponse(MappingTable(source=source), None, False, error="empty response")
    body = text.strip()
    repairs: list[str] = []
    table = _try_json(body, source, repairs)
    if table is not None:
        return ParsedResponse(table, "json", expected == "json" and not repairs, repairs)
    for lang, block in _FENCE.findall(body):
        if lang.lower() in ("", "json", "javascript"):
            r: list[str] = [f"json in a fenced ```{lang} block"]
            table = _try_json(block.strip(), source, r)
            if table is not None:
                return ParsedResponse(table, "json", False, r)
    starts = [m.start() for m in re.finditer(r"[\[{]", body)]
    for start in starts[:50]:
        value, closed = _balanced(body, start)
        if closed:
            r = ["json in prose"]
            table = _try_json(value, source, r)
            if table is not None and len(table):
                return ParsedResponse(table, "json", False, r)
        elif '"' in value and (value.lstrip().startswith("[") or '"rows"' in value or start == starts[0]):
            rows = _salvage_rows(value)
            if rows:
                r = [f"truncated json: kept {len(rows)} complete row(s)"]
                got = rows_from_json({"rows": rows}, r)
                if got:
                    return ParsedResponse(MappingTable(rows=got, source=source), "json", False, r)
    try:
        md = parse_markdown(body, source=source)
    except TableParseError as exc:
        return ParsedResponse(MappingTable(source=source), None, False, repairs,
                              error=f"neither JSON nor a Markdown table: {exc}")
    prose = not body.lstrip().startswith("|") or not body.rstrip().endswith("|")
    md_repairs = (["markdown table in prose"] if prose else []) + list(md.notes)
    valid = expected == "markdown" and not md_repairs and len(md) > 0
    return ParsedResponse(md, "markdown", valid, md_repairs,
                          error=None if len(md) else "markdown table without rows")
