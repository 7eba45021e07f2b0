"""The mapping-vs-graph report: JSON, Markdown, a self-contained HTML page and a console table.

Input is plain per-case dicts (see :mod:`.build`); nothing here imports a scorer.
"""
from __future__ import annotations

from .build import DEFAULT_COLUMNS, build_report, console_table, fmt, to_markdown, value_of
from .html import plot_f1_png, to_html, write_report

__all__ = ["DEFAULT_COLUMNS", "build_report", "console_table", "fmt", "to_markdown", "value_of",
           "plot_f1_png", "to_html", "write_report"]
