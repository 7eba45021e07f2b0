"""Corpus-level evidence for the offline extractor's stacker (issue 14): what the other sentences
of a run give the same names."""
from __future__ import annotations

import pytest

from pipeline.text.corpus import CORPUS_FEATURES, NO_EVIDENCE, CorpusStats, training_groups
from pipeline.text.pair_score import PairScore
from pipeline.text.mentions import Mention
from pipeline.text.stacking import FEATURES, context_features, sentence_features


def _m(value: str, start: int = 0) -> Mention:
    return Mention(start, start + len(value), value, value, "CAP")


def _row(a: str, b: str, p: float, rel: str = "country") -> PairScore:
    return PairScore(_m(a), _m(b, 40), p, 1.0, rel, 0.5, rel, None, 0.0)


def _corpus(groups=None) -> CorpusStats:
    return CorpusStats([
        [_row("Arròs negre", "Spain", 0.9), _row("Spain", "Arròs negre", 0.1)],
        [_row("Arros negre", "Spain", 0.4), _row("Arros negre", "Spain", 0.3, "region"),
         _row("Spain", "Felipe VI", 0.8, "leader")],
        [_row("Spain", "Arròs negre", 0.6)],
        [],
    ], groups)


def _features(corpus: CorpusStats, i: int, row: PairScore) -> dict[str, float]:
    return dict(zip(CORPUS_FEATURES, corpus.row(i, row)))


def test_a_row_reads_the_other_sentences_of_its_corpus_never_its_own():
    corpus = _corpus()
    # sentence 0's (Arròs negre, country, Spain): sentence 1 has it at 0.4 (accents folded), the
    # pair with any relation at 0.4 too, sentence 2 the reversed pair at 0.6; its own 0.9 never counts
    f = _features(corpus, 0, _row("Arròs negre", "Spain", 0.9))
    assert f == pytest.approx({"corpus_sentences": 3, "corpus_pair": 1, "corpus_support": 0.4, "corpus_pair_best": 0.4, "corpus_reverse": 0.6,
                               "corpus_names_a": 2, "corpus_a_subject": 0.2, "corpus_a_object": 0.3,
                               "corpus_b_subject": (0.8 + 0.6) / 2})
    # from sentence 1: sentence 0 gives the triple 0.9; Arròs negre is the subject of 0.9 in
    # sentence 0 and of nothing in sentence 2 (mean 0.45), the object of 0.1 and 0.6
    f = _features(corpus, 1, _row("Arros negre", "Spain", 0.4))
    assert (f["corpus_support"], f["corpus_reverse"], f["corpus_a_subject"], f["corpus_a_object"]) == \
        pytest.approx((0.9, 0.6, 0.45, 0.35))
    # a relation no other sentence gives the pair: no support, the pair still seen once
    f = _features(corpus, 1, _row("Arros negre", "Spain", 0.3, "region"))
    assert (f["corpus_pair"], f["corpus_support"], f["corpus_pair_best"]) == (1, 0.0, 0.9)


def test_names_no_other_sentence_has_get_no_evidence():
    corpus = _corpus()
    f = _features(corpus, 1, _row("Spain", "Felipe VI", 0.8, "leader"))
    assert (f["corpus_pair"], f["corpus_support"], f["corpus_b_subject"]) == (0, 0.0, -1.0)
    # groups apart: sentence 0 alone in its group knows nothing of the others
    alone = _corpus(["a", "b", "b", "b"])
    assert alone.row(0, _row("Arròs negre", "Spain", 0.9)) == [0, 0, 0.0, 0.0, 0.0, 0, -1.0, -1.0, -1.0]
    assert tuple(alone.row(0, _row("Arròs negre", "Spain", 0.9))) == NO_EVIDENCE  # what a sentence alone gets
    assert _features(alone, 2, _row("Spain", "Arròs negre", 0.6))["corpus_sentences"] == 2


def test_about_a_fifth_of_the_training_sentences_are_a_corpus_of_their_own():
    texts = [f"Sentence number {i}." for i in range(1000)]
    groups = training_groups(["a"] * 500 + ["b"] * 500, texts)
    alone = [g for g in groups if "#" in g]
    assert len(alone) == 211 and len(set(alone)) == 211  # CRC-32 values in the lowest 20%, each its own group
    assert groups == training_groups(["a"] * 500 + ["b"] * 500, texts)  # deterministic
    assert {g for g in groups if "#" not in g} == {"a", "b"}


def test_sentence_features_put_the_corpus_columns_after_the_sentence_context():
    sentences = [[_row("Arròs negre", "Spain", 0.9)], [_row("Arros negre", "Spain", 0.4)]]
    x0, x1 = sentence_features(sentences)
    at = FEATURES.index("corpus_support")
    assert FEATURES[-len(CORPUS_FEATURES):] == CORPUS_FEATURES
    assert (x0[0, at], x1[0, at]) == (0.4, 0.9)
    # the sentence's own columns are those of context_features; without a corpus: no evidence
    own = len(FEATURES) - len(CORPUS_FEATURES)
    assert (x0[0, :own] == context_features(sentences[0])[0, :own]).all()
    assert context_features(sentences[0])[0, -len(CORPUS_FEATURES):].tolist() == [0, 0, 0, 0, 0, 0, -1, -1, -1]
