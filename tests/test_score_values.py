"""The one definition of "the same value" of two literals (pipeline.scoring.graph.values)."""
import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from pipeline.scoring.graph.values import canonical_number, loose_key, term_key


def _lit(text, dt=None, lang=None):
    return Literal(text, datatype=dt, lang=lang)


@pytest.mark.parametrize("a, b", [
    (_lit("9.5", XSD.decimal), _lit("9.50", XSD.decimal)),
    (_lit("20", XSD.integer), _lit("20.00", XSD.decimal)),
    (_lit("007", XSD.int), _lit("7", XSD.integer)),
    (_lit("20", XSD.integer), _lit("2.0E1", XSD.double)),
    (_lit("0.1", XSD.double), _lit("0.1", XSD.decimal)),
    (_lit("1", XSD.boolean), _lit("true", XSD.boolean)),
    (_lit("2020-01-01T01:00:00+01:00", XSD.dateTime), _lit("2020-01-01T00:00:00Z", XSD.dateTime)),
    (_lit("x", lang="EN"), _lit("x", lang="en")),
    (_lit("x"), _lit("x", XSD.string)),
])
def test_same_value(a, b):
    assert term_key(a) == term_key(b) and hash(term_key(a)) == hash(term_key(b))


@pytest.mark.parametrize("a, b", [
    (_lit("9.5", XSD.decimal), _lit("9.5")),                      # a number is not a string
    (_lit("9.5", XSD.decimal), _lit("9.51", XSD.decimal)),
    (_lit("2020-01-01", XSD.date), _lit("2020-01-01T00:00:00", XSD.dateTime)),
    (_lit("2020-01-01T00:00:00", XSD.dateTime), _lit("2020-01-01T00:00:00Z", XSD.dateTime)),
    (_lit("x", lang="en"), _lit("x")),
    (_lit("abc", XSD.decimal), _lit("abd", XSD.decimal)),
    (_lit("1", XSD.boolean), _lit("1", XSD.integer)),
])
def test_other_value(a, b):
    assert term_key(a) != term_key(b)


def test_iri_is_its_own_key_and_loose_key_ignores_typing():
    assert term_key(URIRef("http://x/a")) == URIRef("http://x/a")
    assert loose_key(_lit("9.50", XSD.decimal)) == loose_key(_lit(" 9.5 ")) == ("num", "9.5")
    assert loose_key(_lit("Rome ", lang="it")) == loose_key(_lit("rome")) == ("str", "rome")
    assert canonical_number("1.5E0") == "1.5" and canonical_number("007") == "7" and canonical_number("NaN") is None


def test_gold_diff_compares_literals_by_value():
    from pathlib import Path

    from rdflib import Graph

    from pipeline.run.stages import gold_diff

    case = Path(__file__).parent / "cases" / "score-equal-decimal-values-counted-wrong"
    kg, gold = Graph().parse(case / "kg.nt"), Graph().parse(case / "gold.nt")
    assert gold_diff(kg, gold) == {}
    gold.set((next(gold.subjects()), next(iter(gold.predicates(None, None))), _lit("9.51", XSD.decimal)))
    assert gold_diff(kg, gold) != {}


def test_gold_diff_matches_entities_as_the_alignment_pairs_them():
    """With the graph F1's alignment (subject-template keys), IRIs of another stem are the same entity:
    only real differences are listed, each example as its graph writes it."""
    from rdflib import Graph

    from pipeline.run.evaluate import entity_alignment
    from pipeline.run.stages import gold_diff

    kg = Graph().parse(data='<http://e.org/venue/V1> <http://s.org/name> "Ahoy" .\n'
                            '<http://e.org/venue/V1> <http://s.org/city> "Ahoy" .\n', format="nt")
    gold = Graph().parse(data='<http://e.org/place/V1> <http://s.org/name> "Ahoy" .\n'
                              '<http://e.org/place/V1> <http://s.org/city> "Rotterdam" .\n', format="nt")
    assert sorted(gold_diff(kg, gold)) == ["http://s.org/city", "http://s.org/name"]  # as written: all differ
    aligned = entity_alignment(kg, gold, ["http://e.org/venue/{id}"], ["http://e.org/place/{id}"])
    assert gold_diff(kg, gold, alignment=aligned) == {"http://s.org/city": {
        "missing": 1, "extra": 1,
        "missing_examples": ['<http://e.org/place/V1> <http://s.org/city> "Rotterdam" .'],
        "extra_examples": ['<http://e.org/venue/V1> <http://s.org/city> "Ahoy" .']}}
