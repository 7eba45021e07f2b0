"""PQ6 answerability: an answer an empty graph gives too (no row, ASK false, COUNT 0) is an answer
only from a KG that holds what the question is about."""
from rdflib import Graph

from pipeline.scoring.graph.cq import CompetencyQuestion, answer, answers, question_terms, score_cqs

P = "PREFIX s: <http://shop.example/onto#> "
BIG = CompetencyQuestion("big", "Is there an order over 1000?",
                         P + "ASK { ?o a s:Order ; s:total ?t FILTER(?t > 1000) OPTIONAL { ?o s:note ?n } }")
COUNT = CompetencyQuestion("n", "How many orders?", P + "SELECT (COUNT(?o) AS ?n) WHERE { ?o a s:Order }")
PATH = CompetencyQuestion("c", "Customers' cities?", P + "SELECT ?c WHERE { ?o s:customer/s:city ?c }")


def _g(text: str) -> Graph:
    return Graph().parse(data="@prefix s: <http://shop.example/onto#> . " + text, format="turtle")


ORDERS = _g("s:o1 a s:Order ; s:total 20 .")
UNTOTALLED = _g("s:o1 a s:Order .")


def test_question_terms_required_patterns_only():
    S = "http://shop.example/onto#"
    assert {(k, str(t)) for k, t in question_terms(BIG)} == {("class", S + "Order"), ("property", S + "total")}
    assert {str(t) for _, t in question_terms(PATH)} == {S + "customer", S + "city"}


def test_false_is_an_answer_only_from_a_kg_with_the_data():
    assert answer(ORDERS, BIG) == {(False,)}
    assert answers(ORDERS, BIG, {(False,)}) is True          # it has orders and totals: "no" is its answer
    assert answers(UNTOTALLED, BIG, {(False,)}) is False     # no total anywhere: it cannot tell
    assert answers(Graph(), BIG, {(False,)}) is False
    assert answers(Graph(), COUNT, answer(Graph(), COUNT)) is False
    assert answers(ORDERS, COUNT, answer(ORDERS, COUNT)) is True
    assert answers(ORDERS, BIG, None) is False and answers(ORDERS, PATH, set()) is False


def test_pq6_counts_only_what_the_gold_answers():
    gold = _g("s:o1 a s:Order ; s:total 20 . s:o2 a s:Order ; s:total 2000 .")
    out = score_cqs(UNTOTALLED, gold, [BIG, COUNT])
    assert (out["PQ6"].details["n_applicable"], out["PQ6"].details["n_answered"]) == (2, 1)
    # a gold KG whose only answers are an empty graph's about terms it lacks answers nothing
    out = score_cqs(Graph(), _g("s:c1 a s:Customer ."), [BIG, COUNT])
    assert out["PQ6"].status == "not_applicable"
