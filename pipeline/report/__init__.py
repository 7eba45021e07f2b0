"""The scenario report: JSON, Markdown and a self-contained HTML page (jinja2 templates), a console table.

Input is plain per-case dicts (see :mod:`.build`; :func:`.build.case_entry` reads one from a run
folder); nothing here imports a scorer. :mod:`.build` makes the report's data, :mod:`.plots` its
plots, :mod:`.render` writes it. Per case, :mod:`.trust` gives the verdict (whether to trust the KG
and why), :mod:`.kg_summary` what the KG holds, :mod:`.review` the mapper's rows to check first,
:mod:`.findings` the findings grouped by kind, errors first.
"""
from __future__ import annotations

from pipeline.report.build import (DEFAULT_COLUMNS, LEGEND, build_report, case_entry, case_folders, console_table, fmt,
                                   value_of)
from pipeline.report.plots import plot_f1_png, plot_tasks_png
from pipeline.report.render import render, to_html, to_markdown, write_report

__all__ = ["DEFAULT_COLUMNS", "LEGEND", "build_report", "case_entry", "case_folders", "console_table", "fmt", "to_markdown",
           "value_of", "plot_f1_png", "plot_tasks_png", "render", "to_html", "write_report"]
