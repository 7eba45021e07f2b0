"""A competency question that does not parse is named (file, question, parser's line and column),
the others are still scored, and PQ1-PQ6 say they are partial (tests/cases/cq-syntax-error/)."""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph

from pipeline.cli import main
from pipeline.scoring.graph.cq import load_competency_questions, score_cqs

from helpers import people_case

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "tests" / "cases" / "cq-syntax-error"
BROKEN = CASE / "broken.rq"
MESSAGE = "CQ broken (Which cities are there?): SPARQL syntax error at line 4, column 3: Expected SelectQuery, " \
          "found 'FILTER'; not run"
KG = ('<http://example.org/p1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> '
      '<http://example.org/ontology#Person> .\n')


def _graph() -> Graph:
    return Graph().parse(data=KG, format="nt")


def test_broken_cq_is_a_finding_and_the_others_are_scored():
    cqs = load_competency_questions([CASE])
    scores = score_cqs(_graph(), _graph(), cqs)
    pq3 = scores["PQ3"]
    bad = [f for f in pq3.findings if f.code == "cq-syntax"]
    assert [(f.location, f.line, f.column, f.message) for f in bad] == [(str(BROKEN), 4, 3, MESSAGE)]
    assert (pq3.status, pq3.value, pq3.details["n_cqs"], pq3.details["n_cqs_total"]) == ("ok", 1.0, 1, 2)
    assert pq3.details["not_run"] == ["broken"]
    assert pq3.details["reason"] == f"1 of 2 CQ(s) not run: malformed: {BROKEN}:4"
    assert pq3.details["not_run_where"] == [["malformed", "broken.rq:4"]]
    assert [(r["id"], r["status"], r["f1"]) for r in pq3.details["per_cq"]] == [("persons", "ok", 1.0),
                                                                               ("broken", "not_run", None)]


def test_only_broken_cqs_leave_the_pq_scores_not_run():
    scores = score_cqs(_graph(), _graph(), load_competency_questions([BROKEN]))
    assert {r.status for r in scores.values()} == {"not_run"}
    assert all(r.value is None for r in scores.values())


def test_score_prints_partial_and_the_parser_position(tmp_path, capsys):
    kg = tmp_path / "kg.nt"
    kg.write_text(KG, encoding="utf-8")
    m = tmp_path / "case.yaml"
    m.write_text(f"name: people\nscenario: example\nbase_iri: http://example.org/\n"
                 f"sources: [{ROOT / 'data/example/people.csv'}, {ROOT / 'data/example/cities.csv'}]\n"
                 f"ontologies: [{ROOT / 'ontologies/example.ttl'}]\ngold: {{graph: {kg}}}\n"
                 f"competency_questions: [{CASE / 'persons.rq'}, {BROKEN}]\n", encoding="utf-8")
    assert main(["-q", "score", str(m), "--kg", str(kg), "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr()
    assert "PQ3: 1.000 (partial: over 1 of 2 CQs; 1 not run (malformed: broken.rq:4))" in out.out.splitlines()
    assert f"error: {BROKEN}:4:3: {MESSAGE}" in out.err.splitlines()


def test_run_audit_names_the_broken_cq(tmp_path):
    m = tmp_path / "case.yaml"
    m.write_text(f"name: people\nscenario: example\nbase_iri: http://example.org/\n"
                 f"sources: [{ROOT / 'data/example/people.csv'}, {ROOT / 'data/example/cities.csv'}]\n"
                 f"ontologies: [{ROOT / 'ontologies/example.ttl'}]\nprefixes: {{ex: 'http://example.org/ontology#'}}\n"
                 f"gold: {{table: {ROOT / 'mappings/example_table.md'}}}\n"
                 f"competency_questions: [{CASE / 'persons.rq'}, {BROKEN}]\n", encoding="utf-8")
    main(["-q", "run", str(m), "--mapper", "replay", "--out", str(tmp_path / "out")])
    audit = (tmp_path / "out" / "example" / "people" / "audit.md").read_text(encoding="utf-8")
    assert f"| error | cq | broken.rq:4 | query |  | {MESSAGE} | a SPARQL SELECT or ASK query |  |" in audit.splitlines()


def test_a_competency_question_with_a_syntax_error_is_named_in_pq(tmp_path):
    import json
    people_case(tmp_path, "competency_questions: [bad.rq]\n")
    (tmp_path / "bad.rq").write_text("# CQ: who has a name?\nSELECT ?x WHERE { ?x ?y \n", encoding="utf-8")
    (tmp_path / "gold.nt").write_text('<http://example.org/p/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: c\nsources: [p.csv]\nontologies: [onto.ttl]\ngold: {graph: gold.nt}\n"
                                        "competency_questions: [bad.rq]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "o")]) == 0
    scores = json.loads((tmp_path / "o" / "custom" / "c" / "graph_scores.json").read_text())
    assert (scores["PQ3"]["value"], scores["PQ3"]["status"]) == (None, "not_run")  # never "not applicable"
    assert scores["PQ3"]["details"]["reason"] == (
        f"no competency question could be answered on the gold KG; first: {tmp_path / 'bad.rq'}: "
        "CQ bad (who has a name?): SPARQL syntax error at line 2, column 19: Expected SelectQuery, found '?'; not run")
    assert [f["code"] for f in scores["PQ3"]["findings"]] == ["cq-syntax"]
