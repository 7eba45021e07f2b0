"""The mapping-vs-graph report: console table, JSON, Markdown, self-contained HTML."""
from __future__ import annotations

import base64
import json

from pipeline.report import build_report, console_table, to_markdown, write_report

CASES = [
    {"scenario": "scenario3", "case": "1", "mapping": {"f1": 0.8},
     "graph": {"SA2-prop-exact": 0.7, "SV2": True, "SA3": {"value": 0.9, "status": "ok"}}},
    {"scenario": "scenario3", "case": "2", "mapping": None,
     "graph": {"SA2-prop-exact": 0.5, "SV2": False, "SA3": {"value": None, "status": "not_applicable"}}},
]


def test_build_report_means_skip_missing_values():
    r = build_report(CASES)
    assert [c["mapping_f1"] for c in r["cases"]] == [0.8, None]
    s = r["scenarios"]["scenario3"]
    assert (s["n_cases"], s["mapping_f1"], s["graph_f1"], s["values"]["SA3"]) == (2, 0.8, 0.6, 0.9)


def test_console_table_text():
    lines = console_table(build_report(CASES, columns=[("SV2", "SV2"), ("SA3", "SA3")])).splitlines()
    assert lines == [
        "scenario   case  map F1  graph F1  SV2    SA3",
        "---------  ----  ------  --------  ---  -----",
        "scenario3  1      0.800     0.700  yes  0.900",
        "scenario3  2        n/a     0.500   no    n/a",
        "scenario3  mean   0.800     0.600  n/a  0.900",
    ]


def test_markdown_and_files(tmp_path):
    md = to_markdown(build_report(CASES, columns=[("SA3", "SA3")]))
    assert "| scenario3 | 2 | n/a | 0.500 | n/a |" in md
    out = write_report(CASES, tmp_path)
    assert json.loads(out["json"].read_text())["scenarios"]["scenario3"]["graph_f1"] == 0.6
    page = out["html"].read_text()
    assert "<table>" in page and "<td>scenario3</td><td>2</td><td>n/a</td>" in page
    b64 = page.split("data:image/png;base64,")[1].split('"')[0]
    assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<script" not in page and "src=\"http" not in page
    assert out["console"].startswith("scenario")
