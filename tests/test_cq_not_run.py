"""Competency questions that cannot be run are not run, named with why (pipeline.scoring.graph.cq): an
undeclared prefix is malformed (SPARQL 1.1 Query 4.1.1), a SERVICE or FROM clause is refused before
anything reaches the network, a query raising on the gold KG has failed; PQ1-PQ6 are over the others,
marked partial (tests/cases/cq-runtime-error-dropped-not-partial/)."""
from __future__ import annotations


import pytest
from rdflib import Graph

from pipeline.scoring.graph.cq import CompetencyQuestion, cannot_run, cq_counts, cq_sentence, pq_note, score_cqs

KG = ('<http://example.org/e1> <https://schema.org/name> "Jazz Night" .\n'
      '<http://example.org/e1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/Event> .\n')
S = "PREFIX s: <https://schema.org/>\n"


def _cq(name: str, query: str) -> CompetencyQuestion:
    return CompetencyQuestion(name, f"question {name}", query, None)


@pytest.mark.parametrize("query, code, line, message", [
    (S + "SELECT ?n WHERE { ?e s:name ?n }", None, None, None),
    ("SELECT ?n WHERE {\n  ?e schema:name ?n }", "cq-prefix", 2,
     "CQ q (question q): prefix 'schema:' is used but not declared (a PREFIX line is required: SPARQL 1.1 Query, "
     "section 4.1.1); not run"),
    (S + 'SELECT ?e WHERE { ?e s:startDate "2024-05-17"^^xsd:date }', "cq-prefix", 2,
     "CQ q (question q): prefix 'xsd:' is used but not declared (a PREFIX line is required: SPARQL 1.1 Query, "
     "section 4.1.1); not run"),
    ("# CQ: from a SERVICE\n" + S + "SELECT ?n WHERE {\n SERVICE <http://127.0.0.1:9/sparql> { ?e s:name ?n } }",
     "cq-remote", 4, "CQ q (question q): SERVICE <http://127.0.0.1:9/sparql> calls a remote SPARQL endpoint (SPARQL "
     "1.1 Federated Query); kgc runs offline and answers a competency question on the KG only; not run"),
    (S + "SELECT ?n\nFROM NAMED <http://example.org/g>\nWHERE { ?e s:name ?n }", "cq-remote", 3,
     "CQ q (question q): FROM <http://example.org/g> names a graph rdflib would load from the web (SPARQL 1.1 "
     "Query, section 13.2); kgc answers a competency question on the KG only (no FROM clause); not run"),
])
def test_cannot_run(query, code, line, message):
    bad = cannot_run(_cq("q", query))
    assert (bad and (bad.code, bad.line, bad.message, bad.severity)) == \
        ((code, line, message, "error") if code else None)


def test_refused_and_failed_cqs_are_not_run_and_the_scores_partial(no_network):
    g = Graph().parse(data=KG, format="nt")
    cqs = [_cq("ok", S + "SELECT ?e WHERE { ?e s:name ?n }"),
           _cq("remote", S + "SELECT ?n WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?e s:name ?n } }"),
           _cq("sum", S + "SELECT (SUM(?n) AS ?t) WHERE { ?e s:name ?n }")]
    scores = score_cqs(g, g, cqs)
    pq3 = scores["PQ3"]
    assert (pq3.value, pq3.details["n_cqs"], pq3.details["n_cqs_total"], pq3.details["n_failed"]) == (1.0, 1, 3, 0)
    assert pq3.details["not_run"] == ["remote", "sum"]
    assert pq3.details["not_run_where"] == [["refused", "remote:2"], ["failed", "sum"]]
    failed = next(f for f in pq3.findings if f.code == "cq-gold-failed")
    assert failed.message == ("CQ sum (question sum): the query fails when run on the gold KG: SPARQLTypeError: "
                              "rdflib.term.Literal('Jazz Night') does not have a numeric datatype!; not run")
    assert pq_note(scores["PQ6"].details) == "partial: over 1 of 3 CQs; 2 not run (refused: remote:2; failed: sum)"
    assert cq_sentence(cq_counts(pq3.details["per_cq"])) == \
        "1 of 3 answered exactly, 2 not run (refused: remote:2; failed: sum)"
