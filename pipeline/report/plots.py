"""The report's two plots as PNG bytes, drawn with matplotlib's Agg backend (no display).

* :func:`plot_f1_png`: every case at (mapping-level F1, graph-level F1); cases without a
  mapping-level score are drawn on the left edge as hollow markers.
* :func:`plot_tasks_png`: the F1 of each BLINKG task per case.

Both read a report as :func:`pipeline.report.build.build_report` returns it. matplotlib is
imported by the function that draws: commands that write no HTML page never load it.
"""
from __future__ import annotations

import io
from typing import Any, Mapping

from pyparsing import ParserElement

__all__ = ["plot_f1_png", "plot_tasks_png"]


def _pyplot():
    """``matplotlib.pyplot`` on the Agg backend, with pyparsing's packrat cache left as it was.

    Importing pyplot turns the cache on for the whole process (matplotlib's mathtext parser calls
    ``ParserElement.enable_packrat()``). With it, rdflib's SPARQL parser, which Morph-KGC runs
    about 90 times per mapping, takes about twice the CPU, so every engine run after the first
    report of a ``kgc run`` over several scenarios would pay for the plots.
    """
    enabled = ParserElement._packratEnabled
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if ParserElement._packratEnabled and not enabled:
        ParserElement.disable_memoization()
    return plt


def plot_f1_png(report: Mapping[str, Any]) -> bytes:
    """PNG bytes of the scatter plot mapping-level F1 (x) vs graph-level F1 (y), one point per case.

    Cases whose graph F1 is ``None`` are left out; a missing mapping F1 is drawn at x = 0
    with a hollow marker. Axes span [0, 1]; the diagonal is dashed.
    """
    plt = _pyplot()

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


def plot_tasks_png(report: Mapping[str, Any]) -> bytes | None:
    """PNG bytes of a bar chart: F1 per BLINKG task (post-processed), one bar per case, ``None`` without data."""
    plt = _pyplot()

    tasks = [t for t in report["tasks"]
             if any(((r.get("task_prf") or {}).get("post-processed") or {}).get(t, {}).get("f1") is not None
                    for r in report["cases"])]
    cases = [r for r in report["cases"] if (r.get("task_prf") or {}).get("post-processed")]
    if not tasks or not cases:
        return None
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(tasks)), 4), dpi=100)
    try:
        width = 0.8 / len(cases)
        for k, r in enumerate(cases):
            vals = [(r["task_prf"]["post-processed"].get(t) or {}).get("f1") for t in tasks]
            xs = [i + (k - (len(cases) - 1) / 2) * width for i in range(len(tasks))]
            ax.bar([x for x, v in zip(xs, vals) if v is not None], [v for v in vals if v is not None], width,
                   label=f"{r['scenario']}/{r['case']}", color=f"C{k % 10}")
        ax.set_xticks(range(len(tasks)))
        ax.set_xticklabels(tasks, rotation=35, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("task F1 (post-processed)")
        ax.set_title("BLINKG task F1 per case")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, fontsize=8)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()
    finally:
        plt.close(fig)
