"""The mapping-vs-graph report: console table, JSON, Markdown, self-contained HTML."""
from __future__ import annotations

import base64
import json

from pipeline.cli import main
from pipeline.report import build_report, console_table, to_markdown, write_report
from pipeline.report.render import to_html

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
        "scenario   case  map F1  graph F1      SV2    SA3",
        "---------  ----  ------  --------  -------  -----",
        "scenario3  1      0.800     0.700      yes  0.900",
        "scenario3  2        n/a     0.500       no    n/a",
        "scenario3  mean   0.800     0.600  1/2 yes  0.900",
    ]


def test_markdown_and_files(tmp_path):
    md = to_markdown(build_report(CASES, columns=[("SA3", "SA3")]))
    assert "| scenario3 | 2 | n/a | 0.500 | n/a |" in md
    out = write_report(CASES, tmp_path)
    assert json.loads(out["json"].read_text())["scenarios"]["scenario3"]["graph_f1"] == 0.6
    page = out["html"].read_text()
    assert "<table>" in page and '<td><a href="#case-scenario3-2">2</a></td>' in page
    b64 = page.split("data:image/png;base64,")[1].split('"')[0]
    assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<script" not in page and "src=\"http" not in page
    assert out["console"].startswith("scenario")


def test_failed_case_keeps_mapping_scores_and_means_say_over_which_cases(tmp_path):
    cases = [
        {"scenario": "s", "case": "1", "status": "ok",
         "mapping": {"f1": 0.9, "task_prf": {"post-processed": {"Ontology Property": {"precision": 1.0, "recall": 0.8,
                                                                                      "f1": 0.889}}}},
         "mapping_raw": {"f1": 0.5, "task_prf": {"post-processed": {"Ontology Property": {"f1": 0.4}}}},
         "graph": {"SA2-prop-exact": 0.7},
         "cqs": [{"statement": "Who?", "f1": 0.0, "n_gold": 1, "n_pred": 1, "expected": ['"Ann"'],
                  "actual": ['"Bob"']}],
         "gold_diff": {"http://ex.org/name": {"missing": 1, "extra": 1, "missing_examples": ['<a> <n> "Ann" .'],
                                             "extra_examples": ['<a> <n> "Bob" .']}}},
        {"scenario": "s", "case": "2", "status": "failed", "failed_stage": "materialize",
         "error": "TypeError: 'NoneType' object is not callable", "mapping": {"f1": 0.6}, "graph": {}},
    ]
    out = write_report(cases, tmp_path, meta={"mapper": "llm", "model": "openai/m", "date": "2026-11-30"})
    page = out["html"].read_text()
    assert '<span class="failed">failed at materialize</span>' in page
    assert "TypeError: &#39;NoneType&#39; object is not callable" in page  # escaped by the template
    assert "<td>0.600</td>" in page  # the failed case's mapping-level score is shown
    assert "map F1: over cases 1, 2;" in page
    assert "graph F1: over case 1 (left out: 2 (failed at materialize))." in page
    assert "<td>0.400</td><td>0.889</td>" in page  # F1 before / after repair of the task
    assert "expected (gold KG)" in page and "&#34;Ann&#34;" in page and "&#34;Bob&#34;" in page
    assert "missed: &lt;a&gt; &lt;n&gt; &#34;Ann&#34; ." in page
    assert "model <code>openai/m</code>" in page and "2026-11-30" in page
    assert page.count("data:image/png;base64,") == 2
    md = out["markdown"].read_text()
    assert "| s | 2 | failed at materialize: TypeError: 'NoneType' object is not callable | n/a |" in md
    assert "| Ontology Property | n/a | n/a | n/a | 1.000 | 0.800 | 0.889 | 0.400 | 0.889 |" in md
    report = json.loads(out["json"].read_text())
    assert report["scenarios"]["s"]["over"]["graph_f1"] == {"mean": 0.7, "over": ["1"],
                                                            "left_out": ["2 (failed at materialize)"]}
    assert {row[0] for row in report["legend"]} >= {"SV2", "CS2", "SA2 prop", "SA4", "CM2", "CN3", "PQ3", "map F1"}


def test_report_renders_in_headless_chromium(tmp_path):
    """The page loads in a real browser (Debian's chromium; skipped where it is not installed)."""
    import shutil
    import subprocess

    import pytest

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    out = write_report(CASES, tmp_path / "report")
    shot = tmp_path / "shot.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,1600", f"--screenshot={shot}",
                    out["html"].resolve().as_uri()], check=True, capture_output=True, timeout=120)
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1200, 1600)
        # not a blank page: the rendered text and plots give many distinct colours
        assert len(im.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 50


def test_report_says_why_a_kg_check_fails_and_links_the_validation(tmp_path):
    """A functional property with two values: CS2 says no; the report names the first error."""
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:domain ex:Person .\n",
        encoding="utf-8")
    (tmp_path / "p.csv").write_text("pid,name\n1,Ann\n1,Anna\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |"
                                   "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                   "http://example.org/p/{pid} |\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: f\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 1
    md = (out / "custom" / "report.md").read_text(encoding="utf-8")
    assert ("- CS2-owlrl fails: Cardinality: http://example.org/p/1 has 2 distinct literal values of "
            "http://example.org/name, at most 1 allowed (functional property) "
            "(1 error(s); all in graph_validation.json)") in md
    assert "[graph validation (JSON)](f/graph_validation.json)" in md
    assert "<li>CS2-owlrl fails: Cardinality" in (out / "custom" / "report.html").read_text(encoding="utf-8")


def test_drawing_the_plots_leaves_pyparsing_memoization_as_it_was():
    # pyplot's import turns pyparsing's packrat cache on for the whole process, which doubles the
    # CPU of every later SPARQL parse (Morph-KGC's mapping parser)
    import subprocess
    import sys

    code = ("from pyparsing import ParserElement; from pipeline.report.plots import plot_f1_png; "
            "plot_f1_png({'cases': [], 'mapping_key': 'm', 'graph_key': 'g'}); print(ParserElement._packratEnabled)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_mean_row_of_a_yes_no_check_counts_the_cases():
    cases = CASES + [{"scenario": "scenario3", "case": "3", "mapping": None,
                      "graph": {"SA2-prop-exact": 0.6, "SV2": {"value": None, "status": "not_run"}}}]
    report = build_report(cases, columns=[("SV2", "SV2")])
    assert report["scenarios"]["scenario3"]["checks"]["SV2"] == {"yes": 1, "of": 2, "not_run": 1}
    assert console_table(report).splitlines()[-1].endswith("0.600  1/2 yes, 1 not run")
    assert "<th>1/2 yes, 1 not run</th>" in to_html(report)
