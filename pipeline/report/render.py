"""The report written out: JSON, Markdown and a self-contained HTML page from jinja2 templates.

Templates live in ``templates/`` (``report.html.j2``, ``report.md.j2``); the HTML page embeds
the plots of :mod:`.plots` as base64 PNG.
"""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2

from pipeline.outfolder import signals_held
from pipeline.report.build import build_report, console_table, fmt, mean_cell, table_rows
from pipeline.report.plots import plot_f1_png, plot_tasks_png

__all__ = ["render", "to_markdown", "to_html", "write_report"]

_TEMPLATES = Path(__file__).parent / "templates"


def render(name: str, report: Mapping[str, Any], **extra: Any) -> str:
    """Render template ``templates/<name>`` with ``report`` and ``extra`` (HTML templates autoescape)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)), undefined=jinja2.StrictUndefined,
                             autoescape=jinja2.select_autoescape(["html.j2"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.globals["mean_cell"] = mean_cell
    env.filters["local"] = lambda iri: str(iri).rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    return env.get_template(name).render(report=report, **extra)


def to_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown (template ``templates/report.md.j2``)."""
    header, body = table_rows(report)
    return render("report.md.j2", report, header=header, body=body)


def to_html(report: Mapping[str, Any], title: str = "KG construction report") -> str:
    """One self-contained HTML page (template ``templates/report.html.j2``) with the plots embedded as PNG."""
    header, body = table_rows(report)
    plots = {"f1": base64.b64encode(plot_f1_png(report)).decode("ascii")}
    tasks = plot_tasks_png(report)
    if tasks is not None:
        plots["tasks"] = base64.b64encode(tasks).decode("ascii")
    return render("report.html.j2", report, title=title, header=header, body=body, plots=plots)


def write_report(cases: Sequence[Mapping[str, Any]], out_dir: str | Path, stem: str = "report",
                 **options: Any) -> dict[str, Path]:
    """Write ``<stem>.json``, ``<stem>.md`` and ``<stem>.html`` into ``out_dir``.

    Args:
        cases: per-case dicts (see :mod:`.build`; :func:`.build.case_entry` reads one from a run folder);
            options: passed to :func:`.build.build_report` (``meta=...`` for the header).
    Returns:
        ``{"json": path, "markdown": path, "html": path, "console": text}`` (the console
        table text under ``"console"``, not a path).
    """
    report = build_report(cases, **options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / f"{stem}.json", "markdown": out / f"{stem}.md", "html": out / f"{stem}.html"}
    texts = {"json": json.dumps(report, indent=2, default=str), "markdown": to_markdown(report), "html": to_html(report)}
    _replace_together({paths[k]: text for k, text in texts.items()})
    return {**paths, "console": console_table(report)}  # type: ignore[dict-item]


def _replace_together(files: dict[Path, str]) -> None:
    """Write ``files`` (path -> UTF-8 text) so that they are all the new ones or all the earlier ones,
    also when Ctrl-C or ``kill`` comes meanwhile: each is written beside its place (``.<name>.part``), then
    the renames (``os.replace``, atomic on POSIX) run with SIGINT and SIGTERM held back
    (:func:`pipeline.outfolder.signals_held`), so a report's page never describes another run than its
    JSON and Markdown. A signal that came is handled after them."""
    parts = {path: path.with_name(f".{path.name}.part") for path in files}
    try:
        for path, text in files.items():
            parts[path].write_text(text, encoding="utf-8")
        with signals_held():
            for path, part in parts.items():
                os.replace(part, path)
    finally:
        for part in parts.values():
            part.unlink(missing_ok=True)
