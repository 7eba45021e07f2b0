"""Competency questions: PQ1-PQ6 on small KGs with hand-computed values; the committed CQ files."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery

from pipeline.scoring.graph.cq import CompetencyQuestion, _prf_cq, load_competency_questions, score_cqs

ROOT = Path(__file__).resolve().parents[1]
CQ_DIR = ROOT / "data" / "competency_questions"
P = "PREFIX : <http://ex.org/> "
ONTO = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
:restricted skos:broader :anyType . :open skos:broader :anyType .""", format="turtle")
GOLD = Graph().parse(data="""@prefix : <http://ex.org/> .
:p1 :name "A" ; :ptype :open . :p2 :name "B" ; :ptype :restricted .""", format="turtle")
PRED = Graph().parse(data="""@prefix : <http://ex.org/> .
:p1 :name "A" ; :ptype :open . :p2 :name "X" ; :ptype :anyType . :p3 :name "C" . :x :onlyPred :y .""",
                     format="turtle")
CQS = [CompetencyQuestion("names", "name of each p", P + "SELECT ?p ?n WHERE { ?p :name ?n }"),
       CompetencyQuestion("types", "type of each p", P + "SELECT ?p ?t WHERE { ?p :ptype ?t }"),
       CompetencyQuestion("ask", "is anything missing", P + "ASK { ?x :missing ?y }"),
       CompetencyQuestion("spurious", "only in pred", P + "SELECT ?x WHERE { ?x :onlyPred ?y }"),
       CompetencyQuestion("broken", "bad SPARQL", "SELECT WHERE {")]


def test_pq_scores_hand_computed():
    r = score_cqs(PRED, GOLD, CQS, ONTO)
    # per CQ (c, m, f): names (1/3, 1/2, 0.4), types (1/2, 1/2, 1/2), ask (1, 1, 1); "spurious" has an
    # empty gold answer: not scorable, listed and left out; the broken CQ does not parse and is left out.
    assert r["PQ1"].value == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert r["PQ2"].value == pytest.approx((1 / 2 + 1 / 2 + 1) / 3)
    assert r["PQ3"].value == pytest.approx((0.4 + 0.5 + 1) / 3)
    assert (r["PQ1"].details["micro"], r["PQ2"].details["micro"]) == (pytest.approx(3 / 6), pytest.approx(3 / 5))
    assert r["PQ3"].details["micro"] == pytest.approx(2 * (1 / 2) * (3 / 5) / (1 / 2 + 3 / 5))
    assert r["PQ4"].value == pytest.approx(1 / 3)
    assert r["PQ3"].details["not_scorable"] == ["spurious"]
    spurious = next(q for q in r["PQ3"].details["per_cq"] if q["id"] == "spurious")
    assert (spurious["status"], spurious["f1"], spurious["actual"]) == ("not_scorable", None, ["http://ex.org/x"])
    # only "types" has ontology terms: p2's :anyType for :restricted earns 1/2 -> hP = hR = 3/4
    assert (r["PQ5"].value, r["PQ5"].details["n_applicable"]) == (pytest.approx(0.75), 1)
    # "ask" is false on the gold KG, which has no :missing at all: the empty graph's answer, no answer for PQ6
    assert r["PQ6"].value == 1.0 and r["PQ6"].details["n_applicable"] == 2
    # the broken query does not parse: named, left out of the means, the scores partial
    assert [f.code for f in r["PQ3"].findings if f.severity == "error"] == ["cq-syntax"]
    assert r["PQ3"].details["not_run"] == ["broken"] and r["PQ3"].details["n_cqs_total"] == 5


def test_cq_edge_rules():
    assert _prf_cq(None, {("a",)}, 0) == (0.0, 0.0, 0.0)      # failed query
    assert _prf_cq(set(), set(), 0) == (1.0, 1.0, 1.0)        # empty / empty
    assert _prf_cq(set(), {("a",)}, 0) == (0.0, 0.0, 0.0)
    r = score_cqs(PRED, GOLD, [CQS[-1]], ONTO)  # the only CQ does not parse: not run, never not applicable
    assert all(x.status == "not_run" and x.value is None for x in r.values())


def test_alignment_renames_predicted_entities_before_querying():
    from pipeline.scoring.graph.align import align_entities

    pred = Graph().parse(data='<http://ex.org/q1> <http://ex.org/name> "A" .', format="nt")
    gold = Graph().parse(data='<http://ex.org/p1> <http://ex.org/name> "A" .', format="nt")
    al = align_entities(pred, gold, {next(iter(pred.subjects())): ("1",)}, {next(iter(gold.subjects())): ("1",)})
    assert score_cqs(pred, gold, CQS[:1], alignment=al)["PQ4"].value == 1.0
    assert score_cqs(pred, gold, CQS[:1])["PQ4"].value == 0.0


def test_committed_cq_files_have_statements_and_parse():
    cqs = load_competency_questions([CQ_DIR])
    assert cqs, "no competency questions found"
    for cq in cqs:
        assert cq.statement, f"{cq.path}: no '# CQ:' line"
        assert cq.query.lstrip().startswith("# CQ:"), f"{cq.path}: the statement is not on the first line"
        prepareQuery(cq.query)
    s3 = CQ_DIR / "scenario3"
    assert len(load_competency_questions([s3], case="1")) >= 8
    assert len(load_competency_questions([s3], case="2")) >= 8
    assert len(load_competency_questions([CQ_DIR / "scenario2"])) >= 8
    for case in "ABCDEFGH":
        assert load_competency_questions([CQ_DIR / "scenario1" / f"1{case}"]), f"no CQ for 1{case}"


def test_cq_file_without_cq_line_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "q1.rq").write_text("SELECT ?s WHERE { ?s ?p ?o }\n")
    (tmp_path / "q2.rq").write_text("# CQ: Which things exist?\nSELECT ?s WHERE { ?s ?p ?o }\n")
    cqs = load_competency_questions([tmp_path])
    assert [(c.id, c.statement) for c in cqs] == [("q1", None), ("q2", "Which things exist?")]
    g = Graph()
    g.add((URIRef("http://ex.org/a"), URIRef("http://ex.org/p"), Literal(1)))
    out = score_cqs(g, g, cqs)
    assert out["PQ4"].value == 1.0
    codes = [(f.code, Path(f.location).name) for f in out["PQ3"].findings]
    assert codes == [("cq-no-statement", "q1.rq")]


def test_without_gold_each_cq_is_answered_not_scored():
    from pipeline.scoring.graph.cq import answer_cqs, cq_counts, cq_sentence
    per, findings = answer_cqs(PRED, CQS)
    by = {q["id"]: q for q in per}
    assert [(by[i]["status"], by[i].get("answer")) for i in ("names", "types", "ask", "spurious", "broken")] == [
        ("not_scored", "3 row(s)"), ("not_scored", "2 row(s)"), ("not_scored", "ASK: false"),
        ("not_scored", "1 row(s)"), ("not_run", None)]
    assert by["broken"]["why"] == "malformed" and [f.code for f in findings] == ["cq-syntax"]
    assert cq_sentence(cq_counts(per)) == "4 of 5 run on the KG, not scored: no gold KG, 1 not run (malformed: broken:1)"
