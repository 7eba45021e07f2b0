"""Error classes of ``--errors`` (pipeline/text/error_analysis.py) on a Wikidata-TekGen layout
ontology: relation names with spaces, a relation without a range whose gold dates are written
as Wikidata renders them (``01 January 2010`` for "a 2010 film")."""
from __future__ import annotations

from pathlib import Path

from pipeline.text.data import load_ontology
from pipeline.text.error_analysis import classify

ONTO = Path(__file__).parent / "cases" / "text-tekgen" / "ontology.json"
SENT = "Keyboard Blues is a 2010 American film directed by Ann Lee."
GOLD = [{"sub": "Keyboard Blues", "rel": "publication date", "obj": "01 January 2010"},
        {"sub": "Keyboard Blues", "rel": "director", "obj": "Ann Lee"}]


def test_a_date_given_by_its_year_is_a_candidate_not_a_lost_mention():
    onto = load_ontology(ONTO)
    # the year is a candidate mention: the date is missed, not unreachable
    c = classify(SENT, GOLD, [{"sub": "Keyboard Blues", "rel": "director", "obj": "Ann Lee"}], onto)
    assert [g[3] for g in c["gold"]] == ["missed", "correct"]
    # the year written as found, not in the relation's form: a wrong object, not a spurious triple
    c = classify(SENT, GOLD, [{"sub": "Keyboard Blues", "rel": "publication date", "obj": "2010"}], onto)
    assert [g[3] for g in c["gold"]] == ["wrong_object", "missed"] and c["spurious"] == []
    # as the gold writes it, under the relation's name with underscores
    c = classify(SENT, GOLD, [{"sub": "Keyboard Blues", "rel": "publication_date", "obj": "01 January 2010"}], onto)
    assert [g[3] for g in c["gold"]] == ["correct", "missed"]


def test_a_date_whose_year_the_sentence_does_not_write_is_not_found():
    onto = load_ontology(ONTO)
    c = classify("Keyboard Blues is an American film directed by Ann Lee.", GOLD, [], onto)
    assert [g[3] for g in c["gold"]] == ["no_mention", "missed"]
