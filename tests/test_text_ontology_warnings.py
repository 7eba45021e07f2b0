"""Undeclared classes of a text ontology: said for the user's own ontology, not for training data."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pipeline.text.data import load_ontology, misspelt_concept
from pipeline.text.manifest import benchmark_dir

TYPO = Path(__file__).resolve().parent / "cases" / "text-input-checks" / "typo" / "onto.json"


def test_an_undeclared_domain_is_a_warning_for_the_users_ontology_only(caplog):
    with caplog.at_level(logging.DEBUG, logger="pipeline.text.data"):
        onto = load_ontology(TYPO)
        assert onto.relations["birthPlace"].domain == "Persn"  # kept as a class, as before
        own = [(r.levelno, r.getMessage()) for r in caplog.records]
        caplog.clear()
        load_ontology(TYPO, own=False)  # a benchmark ontology read as training data (zero-shot)
        other = [(r.levelno, r.getMessage()) for r in caplog.records]
    message = (f"{TYPO}: relations[1] 'birthPlace': domain 'Persn' is no concept of the ontology (closest concept: "
               "'Person'); kept as a class named Persn")
    assert own == [(logging.WARNING, message)]
    assert other == [(logging.DEBUG, message)]


def test_misspelt_concept_names_and_the_names_left_alone():
    names = ["painter", "painting", "city", "Painter", "Painting", "City", "Q5"]
    assert misspelt_concept("Paintng", names) == "Painting"  # one deletion; the same case first
    assert misspelt_concept("Pianting", names) == "Painting"  # a transposition is one edit
    assert misspelt_concept("painting", ["Painting"]) == "Painting"  # another case: another class IRI
    assert misspelt_concept("Cty", names) == "City"
    assert misspelt_concept("Ctiy", names) == "City"
    assert misspelt_concept("Cit", ["Club"]) is None  # 2 edits: too far for a short name
    assert misspelt_concept("Q6", names) is None  # a QID: nothing to misspell
    assert misspelt_concept("Person", names) is None
    assert misspelt_concept("ethnicGroup", ["EthnicGroup"], ("ethnicGroup", "ethnicGroup")) is None  # own name


_DBPEDIA = benchmark_dir()  # Text2KGBench's DBpedia-WebNLG part; Wikidata-TekGen beside it
BENCH = sorted(f for d in (_DBPEDIA, _DBPEDIA.parent / (_DBPEDIA.name + "-tekgen"))
               for f in (d / "ontologies").glob("**/*.json"))


@pytest.mark.skipif(not BENCH, reason="the Text2KGBench ontologies are not on this machine")
def test_no_undeclared_class_warning_on_the_benchmarks_ontologies(caplog):
    """Their undeclared classes (QIDs, DBpedia's Person, ranges named after their relation) are legitimate."""
    with caplog.at_level(logging.INFO, logger="pipeline.text.data"):
        for f in BENCH:
            load_ontology(f)
    undeclared = [r for r in caplog.records if "is no concept of the ontology" in r.getMessage()]
    assert len(BENCH) == 29 and len(undeclared) == 71
    assert [r.getMessage() for r in undeclared if r.levelno >= logging.WARNING] == []
