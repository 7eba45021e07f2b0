"""What the stacker fits: bagged final models per round, fewer bagged out-of-fold models."""
from __future__ import annotations

from pipeline.text import stacking
from pipeline.text.pair_score import PairScore
from pipeline.text.mentions import Mention

ALAN = Mention(0, 9, "Alan Bean", "Alan Bean", "CAP")
WHEELER = Mention(22, 36, "Wheeler, Texas", "Wheeler, Texas", "CAPCOMMA")
NASA = Mention(52, 56, "NASA", "NASA", "CAP")


def _sentence() -> list[PairScore]:
    def pair(a, b, p, rel):
        return PairScore(a, b, p, 0.5, rel, 0.5, rel, None, 0.0)
    return [pair(ALAN, WHEELER, 0.6, "birthPlace"), pair(ALAN, NASA, 0.3, "employer"),
            pair(WHEELER, NASA, 0.1, "employer"), pair(NASA, ALAN, 0.02, "birthPlace")]


def test_rounds_keep_bagged_final_models_and_fit_fewer_out_of_fold_ones(monkeypatch):
    fits = []

    class Counting:
        """A HistGradientBoostingClassifier stand-in that counts its fits (rows, settings)."""

        def __init__(self, **kw):
            self.kw = kw

        def fit(self, X, y, sample_weight=None):
            fits.append((len(y), self.kw["max_iter"]))
            assert sample_weight is None  # half the rows are positives: no sampling
            from sklearn.dummy import DummyClassifier
            self.m = DummyClassifier(strategy="prior").fit(X, y)
            return self

        def predict_proba(self, X):
            return self.m.predict_proba(X)

    import sklearn.ensemble
    monkeypatch.setattr(sklearn.ensemble, "HistGradientBoostingClassifier", Counting)
    sentences = [_sentence() for _ in range(40)]
    labels = [[1, 1, 0, 0] for _ in range(40)]
    folds = [i % 2 for i in range(40)]
    models = stacking.fit_stackers(sentences, labels, folds, rounds=3)
    assert [len(m.models) for m in models] == [stacking.BAGS] * 3 == [5, 5, 5]
    # per round before the last: BAGS models on all 160 rows, OOF_BAGS on each fold's complement (80 rows)
    per_round = [160] * 5 + [80] * 2 * 2
    assert [n for n, _ in fits] == per_round * 2 + [160] * 5
    assert {i for _, i in fits} == {stacking.GBM["max_iter"]}


def test_cached_stems_are_the_porter_stems_without_function_words():
    from nltk.stem import PorterStemmer

    from pipeline.text.features import stems
    ws = "the players of the universities were running and running".split()
    assert stems(ws) == stems(ws) == {"player", "univers", "were", "run"} == {
        PorterStemmer().stem(w) for w in ws if w not in ("the", "of", "and")}
