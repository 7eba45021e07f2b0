"""The report tells the truth at a glance: one verdict per case (run status and KG validity apart, never
green when the KG is not validated), CS2 over both reasoners, errors before warnings and one line per
kind of finding, a partial gold marked, a KG summary and the mapper's rows to check without a gold."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.cli import main
from pipeline.report import build_report, to_html, to_markdown
from pipeline.report.build import case_entry
from pipeline.report.findings import group_findings, split_findings
from pipeline.report.kg_summary import kg_summary
from pipeline.report.review import rows_to_check
from pipeline.report.trust import case_verdict, combined_cs2

from helpers import people_case

OK = {"value": True, "status": "ok"}
HERMIT_DOWN = {"value": None, "status": "failed", "details": {"reason": "HermiT failed: java.net.UnknownHostException: "
                                                                        "www.w3.org"}}


def test_verdict_levels_and_headlines():
    valid = {"SV2": OK, "CS2-owlrl": OK, "SHACL": OK}
    assert case_verdict({"status": "failed", "failed_stage": "materialize", "error": "boom"}, {})["headline"] == \
        "The run failed at materialize: no validated KG to trust."
    v = case_verdict({"status": "ok"}, {**valid, "CS2-hermit": HERMIT_DOWN})
    assert (v["level"], v["css"], v["headline"]) == ("not validated", "warn",
                                                     "The KG is not validated: CS2-hermit did not run.")
    assert "CS2-hermit: did not run: HermiT failed: java.net.UnknownHostException: www.w3.org" in v["reasons"]
    v = case_verdict({"status": "ok"}, {**valid, "SHACL": {"value": False, "status": "ok", "findings": [
        {"severity": "error", "message": "[shape] values of p must have datatype xsd:int"}]}})
    assert (v["level"], v["headline"]) == ("invalid", "Do not use this KG as it is: it fails SHACL.")
    v = case_verdict({"status": "ok", "counts": {"triples_dropped_by_guards": 3}}, valid)
    assert (v["level"], v["css"]) == ("lossy", "warn") and "3 triple(s) dropped by the guards" in v["reasons"][0]
    # rows of a mapper's own table the compiler could not read: the KG lacks what the table asked for
    v = case_verdict({"status": "ok", "mapper": "offline", "counts": {"rows": 10, "rows_dropped": 2}}, valid)
    assert (v["level"], v["headline"]) == ("lossy", "The KG is valid (SV2, CS2-owlrl, SHACL pass), but it lacks data "
                                                    "its input holds: 2 table row(s) left out.")
    assert "2 of 10 table row(s) left out by the audit (see the audit)" in v["reasons"]
    v = case_verdict({"status": "ok", "graph_f1": 0.7, "gold": {"kind": "KG of the gold table", "rows_dropped": 3},
                      "graph": {"CM2": 0.5}, "cq_summary": {"scored": 7, "exact": 6, "not_scorable": 3}}, valid)
    assert (v["level"], v["css"], v["headline"]) == ("valid", "good", "The KG is valid (SV2, CS2-owlrl, SHACL pass).")
    assert v["reasons"] == [
        "Against the KG of the gold table: graph F1 (SA2 property) 0.700; 50% of the gold's literal values are in "
        "the KG (CM2) - a partial gold: 3 gold-table row(s) did not compile, so triples they would give count as "
        "extra.", "Competency questions: 6 of 10 answered exactly, 3 without a gold answer."]
    assert case_verdict({"status": "ok"}, valid)["reasons"] == [
        "No gold KG or gold table: accuracy is not measured. Judge the KG by the checks above, the KG summary and "
        "the mapper's rows to check."]


def test_cs2_is_both_reasoners():
    assert combined_cs2({"CS2-owlrl": OK, "CS2-hermit": OK}) == {"value": True, "status": "ok"}
    assert combined_cs2({"CS2-owlrl": OK, "CS2-hermit": HERMIT_DOWN})["status"] == "failed"
    assert combined_cs2({"CS2-owlrl": {"value": False, "status": "ok"}, "CS2-hermit": HERMIT_DOWN})["value"] is False
    assert combined_cs2({"CS2-owlrl": OK, "CS2-hermit": {"value": None, "status": "not_applicable"}})["value"] is True
    assert combined_cs2({"SV2": OK}) is None


def test_a_case_whose_hermit_did_not_run_is_never_green():
    """The issue's case: status 'ok' in green, CS2 'yes', while HermiT did not run and the run exited 1."""
    report = build_report([{"scenario": "s", "case": "c", "status": "ok",
                            "graph": {"SV2": OK, "CS2-owlrl": OK, "CS2-hermit": HERMIT_DOWN, "SHACL": OK}}])
    row = report["cases"][0]
    assert (row["values"]["CS2"], row["verdict"]["level"]) == ("not run", "not validated")
    page = to_html(report)
    body = page.split("<body>")[1].split("<h2>Legend")[0]
    assert '<span class="k-warn">not validated</span>' in body and "k-good" not in body
    assert "| s | c | ok | not validated | The KG is not validated: CS2-hermit did not run. |" in to_markdown(report)


def test_errors_first_one_line_per_kind_and_the_gold_apart():
    unmapped = [{"severity": "warning", "stage": "map", "file": "/d/input.xml", "column": "data_reference",
                 "value": f"col{i}", "expected": "a mapped column", "message": f"column 'col{i}' is not mapped"}
                for i in range(84)]
    gold = [{"severity": "error", "stage": "gold", "file": "/g/expected_table.md", "line": 3,
             "message": "gold table: property 'epo:x' is not in the ontology", "value": "epo:x",
             "expected": "a property of the ontology"}]
    own_error = {"severity": "error", "stage": "compile", "file": "/o/table.md", "line": 5, "message": "bad datatype"}
    own, theirs = split_findings(unmapped + gold + [own_error])
    groups = group_findings(own)
    assert [(g["severity"], g["count"]) for g in groups] == [("error", 1), ("warning", 84)]
    assert groups[1]["listed"][:3] == ["col0", "col1", "col2"] and groups[1]["more_listed"] == 72
    assert [g["message"] for g in group_findings(theirs)] == ["gold table: property 'epo:x' is not in the ontology"]


def test_kg_summary_counts_and_samples(tmp_path):
    t = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    kg = tmp_path / "kg.nt"
    kg.write_text(f'<http://e/a> {t} <http://o#P> .\n<http://e/a> <http://o#name> "A" .\n'
                  f'<http://e/b> {t} <http://o#P> .\n<http://e/c> {t} <http://o#Q> .\n<http://e/d> <http://o#name> "D" .\n',
                  encoding="utf-8")
    s = kg_summary(kg)
    assert (s["triples"], s["subjects"], s["untyped_subjects"], s["n_classes"], s["n_properties"]) == (5, 4, 1, 2, 2)
    assert [(c["name"], c["count"], c["namespace"]) for c in s["classes"]] == [("P", 2, "http://o#"), ("Q", 1, "http://o#")]
    assert s["samples"][0] == {"entity": "http://e/a", "class": "http://o#P", "n_statements": 2, "statements": [
        f"<http://e/a> {t} <http://o#P> .", '<http://e/a> <http://o#name> "A" .']}
    assert kg_summary(tmp_path / "kg.ttl") is None


def test_rows_to_check(tmp_path):
    table = tmp_path / "table.json"
    rows = [{"line": 3 + i, "ontology_property": f"ex:p{i}", "confidence": c, "evidence": [f"why {i}"]}
            for i, c in enumerate([0.9, 0.4, 0.7])]
    table.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    r = rows_to_check(table, top=2)
    assert (r["why"], r["n_rows"], [x["line"] for x in r["rows"]]) == ("lowest confidence", 3, [4, 5])
    rows[2]["review"] = True
    table.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    assert [x["line"] for x in rows_to_check(table)["rows"]] == [5]
    table.write_text(json.dumps({"rows": [{"line": 3, "ontology_property": "ex:p"}]}), encoding="utf-8")
    assert rows_to_check(table) is None  # a hand-made table states no confidence


def test_report_of_a_run_without_gold(tmp_path):
    """A case with no gold: the report still says what the KG holds and whether it is valid."""
    people_case(tmp_path, csv="pid,name,city\n1,Ann,Rome\n2,Bo,Oslo\n", name="nogold", gold=False)
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 0
    entry = case_entry(out / "custom" / "nogold", out / "custom")
    assert entry["verdict"]["level"] == "valid" and entry["gold"] == {}
    assert entry["coverage"]["p.csv"][:3] == [["columns", "3"], ["columns mapped", "2"], ["unmapped columns", "1: city"]]
    md = (out / "custom" / "report.md").read_text(encoding="utf-8")
    assert "| custom | nogold | ok | valid | The KG is valid (SV2, CS2-owlrl, CS2-hermit, SHACL, vocabulary pass). |" in md or \
        "| custom | nogold | ok | valid | The KG is valid (SV2, CS2-owlrl, SHACL, vocabulary pass). |" in md  # without Java
    assert "- No gold KG or gold table: accuracy is not measured." in md
    assert "**The KG:** 4 triples, 2 subjects (0 without a type), 1 class, 2 properties." in md
    assert "| `Person` | 2 | http://example.org/ |" in md and "| `name` | 2 | http://example.org/ |" in md
    assert "| CS2-owlrl | passes | 0 | 0 | full | 3 of 3 ontology triples |  |" in md
    assert "- p.csv: columns 3; columns mapped 2; unmapped columns 1: city; records 2;" in md


def test_what_the_checks_found_is_grouped_with_exact_counts(tmp_path):
    """graph_validation.json keeps 200 findings a check; a SHACL group counts every result of its shape, and a
    warning both reasoners give (imports reasoned without) is one line naming both, and what it is about."""
    folder = tmp_path / "s" / "c"
    folder.mkdir(parents=True)
    imports = {"severity": "warning", "message": "owl:imports of 1 ontology not among the ontology files given",
               "code": "unresolved-import", "location": "<http://x/>"}
    shape = "[urn:kgc:shapes:domain-name] subject of http://e/name should be a http://e/Person"
    validation = {
        "SV2": {"value": True, "status": "ok", "findings": [], "details": {"N_err": 0, "N_warn": 0, "N_fatal": 0}},
        "CS2-owlrl": {"value": True, "status": "ok", "findings": [imports]},
        "CS2-hermit": {"value": True, "status": "ok", "findings": [imports]},
        "SHACL": {"value": True, "status": "ok", "n_findings": 1532, "details": {
            "by_severity": {"Violation": 0, "Warning": 1532}, "by_shape": {"urn:kgc:shapes:domain-name": {
                "Warning": 1532}}},
            "findings": [{"severity": "warning", "message": shape, "location": f"http://e/p{i}"} for i in range(2)]}}
    (folder / "graph_validation.json").write_text(json.dumps(validation), encoding="utf-8")
    (folder / "run.json").write_text(json.dumps({"scenario": "s", "case": "c", "status": "ok", "graph_validation": {
        k: {"value": v["value"], "status": v["status"]} for k, v in validation.items()}}), encoding="utf-8")
    entry = case_entry(folder, tmp_path / "s")
    assert [(g["stage"], g["count"], g["listed"], g["more_listed"]) for g in entry["check_groups"]] == [
        ("SHACL", 1532, ["http://e/p0", "http://e/p1"], 1530), ("CS2-owlrl, CS2-hermit", 1, ["<http://x/>"], 0)]
    assert entry["verdict"]["level"] == "valid"
    assert any(r.startswith("SHACL: 1532 warning(s)") and "1532 from urn:kgc:shapes:domain-name" in r
               for r in entry["verdict"]["reasons"])


def test_kg_verdict_rules():
    from pipeline.validation.verdict import kg_verdict

    assert kg_verdict({}).state == "not checked"
    v = kg_verdict({"SV2": OK, "SHACL": {"value": None, "status": "timeout", "details": {"reason": "too slow"}},
                    "CS2-hermit": {"value": None, "status": "not_applicable"}})
    assert (v.state, v.not_run, v.passed) == ("not validated", {"SHACL": "too slow"}, ["SV2"])
    assert v.sentence() == "KG not validated: SHACL did not run (too slow)"
    v = kg_verdict({"SV2": {"value": False, "status": "ok"}, "CS2-owlrl": {"value": None, "status": "not_run",
                                                                          "details": {"reason": "no parse"}},
                    "SHACL": {"value": None, "status": "not_run", "details": {"reason": "no parse"}}})
    assert v.sentence() == "KG invalid: fails SV2; CS2-owlrl, SHACL did not run (no parse)"
    v = kg_verdict({"SV2": {"value": None, "status": "over runs"}})  # LLM_RUNS > 1, a run not validated
    assert v.not_run == {"SV2": "not validated in every run (see runs/<i>/graph_validation.json)"}
