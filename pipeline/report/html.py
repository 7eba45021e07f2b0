"""Self-contained HTML page of the report, with the F1 plot embedded as a base64 PNG.

The plot puts every case at (mapping-level F1, graph-level F1); cases
without a mapping-level score are drawn on the left edge as hollow markers
and listed as ``n/a``. matplotlib runs with the Agg backend (no display).
"""
from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from .build import build_report, console_table, to_markdown, _table

__all__ = ["plot_f1_png", "to_html", "write_report"]


def plot_f1_png(report: Mapping[str, Any]) -> bytes:
    """PNG bytes of the scatter plot mapping-level F1 (x) vs graph-level F1 (y), one point per case.

    Cases whose graph F1 is ``None`` are left out; a missing mapping F1 is drawn at x = 0
    with a hollow marker. Axes span [0, 1]; the diagonal is dashed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 5), dpi=100)
    try:
        ax.plot([0, 1], [0, 1], "--", color="0.6", linewidth=1)
        scenarios = list(dict.fromkeys(r["scenario"] for r in report["cases"]))
        labels_at: dict[tuple[float, float], list[str]] = {}
        for k, scen in enumerate(scenarios):
            color = f"C{k % 10}"
            for r in (r for r in report["cases"] if r["scenario"] == scen and r["graph_f1"] is not None):
                x = r["mapping_f1"]
                ax.scatter([x if x is not None else 0.0], [r["graph_f1"]], color=color, s=40,
                           facecolors=color if x is not None else "none", label=scen)
                point = (round(x if x is not None else 0.0, 3), round(float(r["graph_f1"]), 3))
                labels_at.setdefault(point, []).append(r["case"])
        for (x, y), names in labels_at.items():  # cases on the same point share one label
            right = x > 0.8  # labels near the right edge go to the left of their point
            ax.annotate(", ".join(names), (x, y), fontsize=8, xytext=(-4 if right else 3, -10 if y > 0.95 else 3),
                        textcoords="offset points", ha="right" if right else "left")
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        if uniq:  # outside the axes: points sit in every corner
            ax.legend(uniq.values(), uniq.keys(), loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0,
                      fontsize=8)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(f"mapping-level F1 ({report['mapping_key']})")
        ax.set_ylabel(f"graph-level F1 ({report['graph_key']})")
        ax.set_title("Mapping-level vs graph-level F1 per case")
        ax.grid(True, alpha=0.3)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()
    finally:
        plt.close(fig)


def to_html(report: Mapping[str, Any], title: str = "KG construction report") -> str:
    """One self-contained HTML page: title, the side-by-side table and the embedded plot."""
    header, body = _table(report)
    png = base64.b64encode(plot_f1_png(report)).decode("ascii")
    th = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    trs = "\n".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}td:nth-child(-n+2),th:nth-child(-n+2){{text-align:left}}
tr:nth-child(even){{background:#f6f6f6}}</style></head>
<body><h1>{html.escape(title)}</h1>
<p>Mapping F1 = mapping-level <code>{html.escape(report['mapping_key'])}</code>; graph F1 =
<code>{html.escape(report['graph_key'])}</code>. <em>n/a</em>: not applicable or not computed.</p>
<table><thead><tr>{th}</tr></thead><tbody>
{trs}
</tbody></table>
<h2>Mapping-level vs graph-level F1</h2>
<img alt="mapping-level F1 vs graph-level F1 per case" src="data:image/png;base64,{png}">
</body></html>
"""


def write_report(cases: Sequence[Mapping[str, Any]], out_dir: str | Path, stem: str = "report",
                 **options: Any) -> dict[str, Path]:
    """Write ``<stem>.json``, ``<stem>.md`` and ``<stem>.html`` into ``out_dir``.

    Args:
        cases: per-case dicts (see :mod:`.build`); options: passed to :func:`.build.build_report`.
    Returns:
        ``{"json": path, "markdown": path, "html": path, "console": text}`` (the console
        table text under ``"console"``, not a path).
    """
    report = build_report(cases, **options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / f"{stem}.json", "markdown": out / f"{stem}.md", "html": out / f"{stem}.html"}
    paths["json"].write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    paths["markdown"].write_text(to_markdown(report), encoding="utf-8")
    paths["html"].write_text(to_html(report), encoding="utf-8")
    return {**paths, "console": console_table(report)}  # type: ignore[dict-item]
