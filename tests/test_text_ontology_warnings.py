"""Undeclared classes of a text ontology: said for the user's own ontology, not for training data."""
from __future__ import annotations

import logging
from pathlib import Path

from pipeline.text.data import load_ontology

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
