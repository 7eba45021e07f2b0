"""The mapping-vs-graph report as data, Markdown and a console table.

Input is plain dicts, so this module depends on no scorer::

    cases = [
        {"scenario": "scenario3", "case": "1",
         "mapping": {"f1": 0.81, "precision": 0.8, ...} or None,   # mapping-level scores
         "graph": {"SA2-prop-exact": 0.74, "SV2": True, "SA3": {"value": 0.9, ...}, ...}},
        ...
    ]

A score may be a number, a bool, ``None`` or a dict with a ``"value"`` key (a
``Result.to_dict()``); ``None`` or a missing score prints as ``n/a``. The
headline pair plotted and compared is ``mapping[mapping_key]`` (default
``f1``) vs ``graph[graph_key]`` (default ``SA2-prop-exact``).
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["DEFAULT_COLUMNS", "value_of", "fmt", "build_report", "console_table", "to_markdown"]

#: Graph-level columns shown by default: (label, key in the case's ``graph`` dict).
DEFAULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("SV2", "SV2"), ("CS2", "CS2-owlrl"), ("SHACL", "SHACL"), ("SA2 type", "SA2-type-exact"),
    ("SA2 prop", "SA2-prop-exact"), ("SA2 prop h", "SA2-prop-hier"), ("SA3", "SA3"), ("SA4", "SA4"),
    ("CM2", "CM2"), ("CM3", "CM3"), ("CN3", "CN3"), ("CN5", "CN5"), ("PQ3", "PQ3"), ("PQ4", "PQ4"),
)


def value_of(x: Any) -> float | bool | None:
    """The headline value of a score: numbers and bools as they are, ``{"value": v}`` -> v, else ``None``."""
    if isinstance(x, Mapping):
        x = x.get("value")
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return None if isinstance(x, float) and math.isnan(x) else float(x)
    return None


#: Marks a check that should have run and did not (never shown as a value or averaged).
NOT_RUN = "not run"


def _not_run(x: Any) -> bool:
    return x == NOT_RUN or (isinstance(x, Mapping) and x.get("value") is None
                            and x.get("status") in ("not_run", "timeout", "failed"))


def _cell(x: Any) -> Any:
    return NOT_RUN if _not_run(x) else value_of(x)


def fmt(x: Any, digits: int = 3) -> str:
    """A score as text: ``n/a`` for missing, ``not run`` for a check that should have run and did not
    (status ``not_run``/``timeout``/``failed``), ``yes``/``no`` for bools, fixed decimals for numbers."""
    if _not_run(x):
        return "not run"
    v = value_of(x)
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:.{digits}f}"


def _mean(values: Iterable[Any]) -> float | None:
    nums = [float(v) for v in map(value_of, values) if v is not None]
    return sum(nums) / len(nums) if nums else None


def build_report(cases: Sequence[Mapping[str, Any]], *, mapping_key: str = "f1", graph_key: str = "SA2-prop-exact",
                 columns: Sequence[tuple[str, str]] = DEFAULT_COLUMNS) -> dict[str, Any]:
    """Normalise per-case scores into one JSON-ready report.

    Args:
        cases: per-case dicts (module docstring); missing keys are tolerated.
        mapping_key: the mapping-level headline (F1) key.
        graph_key: the graph-level headline (F1) key.
        columns: graph-level ``(label, key)`` columns for the tables.
    Returns:
        ``{"mapping_key", "graph_key", "columns", "cases": [{"scenario", "case", "mapping_f1",
        "graph_f1", "values": {label: value}, "mapping": {...}, "graph": {...}}],
        "scenarios": {scenario: {"n_cases", "mapping_f1", "graph_f1", "values": {label: mean}}}}``;
        means skip ``None`` (a scenario without any value gets ``None``).
    """
    rows = []
    for c in cases:
        mapping = c.get("mapping") or {}
        graph = c.get("graph") or {}
        rows.append({"scenario": str(c.get("scenario", "")), "case": str(c.get("case", "")),
                     "mapping_f1": value_of(mapping.get(mapping_key)) if mapping else None,
                     "graph_f1": value_of(graph.get(graph_key)),
                     "values": {label: _cell(graph.get(key)) for label, key in columns},
                     "mapping": {k: value_of(v) for k, v in mapping.items() if value_of(v) is not None},
                     "graph": {k: _cell(v) for k, v in graph.items()}})
    scen: dict[str, Any] = {}
    for name in dict.fromkeys(r["scenario"] for r in rows):
        sel = [r for r in rows if r["scenario"] == name]
        scen[name] = {"n_cases": len(sel), "mapping_f1": _mean(r["mapping_f1"] for r in sel),
                      "graph_f1": _mean(r["graph_f1"] for r in sel),
                      "values": {label: _mean(r["values"][label] for r in sel
                                              if not isinstance(r["values"][label], bool))
                                 for label, _ in columns}}
    return {"mapping_key": mapping_key, "graph_key": graph_key, "columns": [list(c) for c in columns],
            "cases": rows, "scenarios": scen}


def _table(report: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    labels = [c[0] for c in report["columns"]]
    header = ["scenario", "case", "map F1", "graph F1"] + labels
    body = []
    for r in report["cases"]:
        body.append([r["scenario"], r["case"], fmt(r["mapping_f1"]), fmt(r["graph_f1"])]
                    + [fmt(r["values"].get(label)) for label in labels])
    for name, s in report["scenarios"].items():
        if s["n_cases"] > 1:
            body.append([name, "mean", fmt(s["mapping_f1"]), fmt(s["graph_f1"])]
                        + [fmt(s["values"].get(label)) for label in labels])
    return header, body


def console_table(report: Mapping[str, Any]) -> str:
    """The side-by-side mapping-level vs graph-level table as aligned plain text.

    Args:
        report: the output of :func:`build_report`.
    Returns:
        Lines joined by ``\\n``: a header, a rule, one row per case and one ``mean`` row
        per scenario with more than one case.
    """
    header, body = _table(report)
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    line = lambda row: "  ".join(cell.rjust(w) if i > 1 else cell.ljust(w)  # noqa: E731
                                 for i, (cell, w) in enumerate(zip(row, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in body])


def to_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown: the side-by-side table and a legend of the headline keys."""
    header, body = _table(report)
    out = ["# Mapping-level vs graph-level scores", "",
           f"Mapping F1 = mapping-level `{report['mapping_key']}`; graph F1 = `{report['graph_key']}`. "
           "`n/a`: not applicable or not computed; `not run`: a check that applies but did not run or "
           "finish (the KG is then not validated).", "",
           "| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(out) + "\n"
