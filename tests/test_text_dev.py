"""The dev protocol's split (pipeline/text/bench.py) and the error classes of --errors
(pipeline/text/error_analysis.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.text.bench import dev_split, main, parse_settings
from pipeline.text.data import Sentence, load_ontology
from pipeline.text.error_analysis import analyse, classify
from pipeline.text.features import alias_keys, variant_kind
from pipeline.text.mentions import Lexicon, find_mentions

ONTO = Path(__file__).parent / "cases" / "text" / "ontology.json"


def _s(i: int, sub: str) -> Sentence:
    return Sentence(f"s{i}", f"{sub} is in Lyon.", [{"sub": sub, "rel": "city", "obj": "Lyon"}])


def test_dev_split_groups_sentences_by_subject_and_is_order_independent():
    sents = [_s(i, f"U{i % 10}") for i in range(50)]  # 10 subjects, 5 sentences each
    fit, held = dev_split(sents)
    assert len(held) == 10 and len(fit) == 40  # two whole subjects: 20% of the sentences
    assert {s.triples[0]["sub"] for s in held} & {s.triples[0]["sub"] for s in fit} == set()
    assert sorted(s.id for s in dev_split(sents[::-1])[1]) == sorted(s.id for s in held)
    # a subject larger than share + 10% is never held out
    assert [s.id for s in dev_split([_s(i, "Big") for i in range(9)] + [_s(9, "Small")])[1]] == ["s9"]


def test_error_classes_of_one_sentence():
    onto = load_ontology(ONTO)
    sent = "Alpha University is located in Lyon, France and was established in 1971 by Ann Lee."
    gold = [{"sub": "Alpha_University", "rel": "city", "obj": "Lyon"},
            {"sub": "Alpha_University", "rel": "country", "obj": "France"},
            {"sub": "Alpha_University", "rel": "established", "obj": "1971"},
            {"sub": "Alpha_University", "rel": "rector", "obj": "Ann_Lee"},
            {"sub": "Alpha_University", "rel": "motto", "obj": "Lux et veritas"}]
    pred = [{"sub": "Alpha University", "rel": "city", "obj": "Lyon"},       # correct
            {"sub": "Lyon", "rel": "country", "obj": "France"},              # wrong subject
            {"sub": "Alpha University", "rel": "academicStaffSize", "obj": "1971"},  # wrong relation
            {"sub": "Ann Lee", "rel": "city", "obj": "France"}]              # spurious
    c = classify(sent, gold, pred, onto)
    assert [g[3] for g in c["gold"]] == ["correct", "wrong_subject", "wrong_relation", "missed", "no_mention"]
    assert c["spurious"] == [["annlee", "city", "france"]]
    counts, records = analyse([Sentence("x", sent, gold)], [pred], onto)
    assert dict(counts) == {"correct": 1, "wrong_subject": 1, "wrong_relation": 1, "missed": 1,
                            "no_mention": 1, "spurious": 1}
    assert records[0]["id"] == "x"


def test_names_with_joiners_articles_dashes_and_learned_tails():
    lex = Lexicon(["V8_engine", "V6_engine", "Honda_J_engine", "Italy", "Alaa_Abdul-Zahra"])
    assert lex.tails == {"engine"}  # three names end in it
    ms = find_mentions("The Fellowship of the Ring was followed by The Two Towers.", lex)
    assert [(m.value, m.shape) for m in ms if m.start >= 40] == [("The Two Towers", "DISTHE"), ("Two Towers", "CAP")]
    assert ("The Fellowship of the Ring", "DISTHE0") in [(m.value, m.shape) for m in ms]
    ms = find_mentions("McVeagh of the South Seas left Madrid–Barajas; the Ford has a V12 engine.", lex)
    values = [(m.value, m.shape) for m in ms]
    assert ("McVeagh of the South Seas", "CAP") in values and ("Madrid–Barajas", "CAP") in values
    assert [(m.text, m.value) for m in ms if m.shape == "DISLOW"] == [("V12", "V12 engine")]
    assert variant_kind([m for m in ms if m.shape == "DISLOW"][0]) == "DISLOW:engine"
    # a known name spelled with a space for its hyphen
    assert ("Alaa Abdul-Zahra", "LEX") in [(m.value, m.shape) for m in find_mentions("Alaa Abdul Zahra plays.", lex)]
    # the spans variants sit on are positives of the gold name in training
    assert {"twotowers", "thetwotowers"} <= alias_keys("The_Two_Towers", "") and "v8" in alias_keys("V8_engine", "")


def test_set_settings_are_typed_and_none_turns_one_off():
    assert parse_settings(["threshold=0.25", "k=3", "stack=false", "zero_shot=none", "model=pair"]) == {
        "threshold": 0.25, "k": 3, "stack": False, "zero_shot": None, "model": "pair"}
    assert parse_settings(["zero_shot=-0.5", "label_weight=1e-3", "decoder=f1", "missing=0"]) == {
        "zero_shot": -0.5, "label_weight": 0.001, "decoder": "f1", "missing": 0}
    # values the extractor rejects are rejected here, before any data is read
    for item, message in [("k=-1", "offline setting k: expected a whole number >= 1, got -1"),
                          ("decoder=beam", "offline decoder 'beam' unknown"),
                          ("missing=abc", "offline setting missing: expected a number >= 0.0, got 'abc'"),
                          ("relation_candidates=0",
                           "offline setting relation_candidates: expected a whole number >= 1, got 0"),
                          ("zero_shot", "expected KEY=VALUE"),
                          ("nosuchkey=1", "unknown setting 'nosuchkey'; expected one of .*zero_shot"),
                          ("cache_dir=x", "unknown setting 'cache_dir'")]:
        with pytest.raises(InputError, match=message):
            parse_settings([item])
    # main reports it as a usage error (exit 2), not a traceback
    assert main(["--set", "=1", "--only", "16_city"]) == 2
