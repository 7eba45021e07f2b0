"""The mapping table: model, cell parsers and Markdown/CSV/JSON formats."""
from __future__ import annotations

from pipeline.table.cells import (JoinPair, parse_concat, parse_join_condition, parse_value_map, quoted_constant,
                                  split_class_alternatives)
from pipeline.table.formats import read_table, write_table
from pipeline.table.markdown import parse_markdown, read_markdown, to_markdown
from pipeline.table.model import COLUMNS, REVIEW_COLUMN, TASK_COLUMNS, MappingRow, MappingTable, json_schema

__all__ = [
    "COLUMNS", "REVIEW_COLUMN", "TASK_COLUMNS", "MappingRow", "MappingTable", "json_schema", "JoinPair",
    "parse_concat", "parse_join_condition", "parse_value_map", "quoted_constant", "split_class_alternatives",
    "read_table", "write_table", "parse_markdown", "read_markdown", "to_markdown",
]
