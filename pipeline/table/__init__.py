"""The mapping table: model, cell parsers and Markdown/CSV/JSON formats."""
from __future__ import annotations

from .cells import JoinPair, parse_concat, parse_join_condition, parse_value_map, split_class_alternatives
from .formats import read_table, write_table
from .markdown import parse_markdown, read_markdown, to_markdown
from .model import COLUMNS, TASK_COLUMNS, MappingRow, MappingTable, json_schema

__all__ = [
    "COLUMNS", "TASK_COLUMNS", "MappingRow", "MappingTable", "json_schema", "JoinPair",
    "parse_concat", "parse_join_condition", "parse_value_map", "split_class_alternatives",
    "read_table", "write_table", "parse_markdown", "read_markdown", "to_markdown",
]
