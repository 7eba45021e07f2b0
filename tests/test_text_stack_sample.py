"""The stacker's fits on rare positives: easy negatives sampled and weighted, the rest whole."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.text import stacking
from pipeline.text.pair_score import PairScore
from pipeline.text.features import words
from pipeline.text.mentions import Mention, tokens


def _rows(p: list[float], y: list[int]) -> tuple[np.ndarray, np.ndarray]:
    X = np.zeros((len(p), 3))
    X[:, 0] = p
    X[:, 1] = np.arange(len(p))  # row id, to see which rows were kept
    return X, np.array(y)


def test_rare_positives_sample_the_easy_negatives_only():
    # 1 positive in 200 rows (0.5%): rare; 1 in 50 (2%): not
    assert stacking.keep_rate([[1] + [0] * 199]) == stacking.EASY_KEEP == 0.2
    assert stacking.keep_rate([[1] + [0] * 49]) == 1.0
    assert stacking.keep_rate([[0, 0], [1] + [0] * 97]) == 1.0  # 1 of 100: the bound itself is not rare
    assert stacking.keep_rate([[]]) == 1.0


def test_sampled_rows_keep_positives_and_hard_negatives_and_weigh_the_easy_ones():
    p = [0.5, 0.03, 0.02] + [0.001] * 1000 + [0.019] * 1000
    y = [1, 0, 0] + [0] * 2000
    data = [_rows(p, y)]
    (X, yk, w), = stacking._sample(data, 0.2)
    ids = X[:, 1].astype(int).tolist()
    assert ids[:3] == [0, 1, 2]  # the positive and the negatives at or above EASY_P (0.02)
    assert w[:3].tolist() == [1.0, 1.0, 1.0] and yk[:3].tolist() == [1, 0, 0]
    easy = len(ids) - 3
    assert 340 < easy < 460  # about 20% of 2,000
    assert set(w[3:].tolist()) == {5.0}
    # the weighted sample stands for the whole: its weight within 10% of the 2,003 rows
    assert w.sum() == pytest.approx(2003, rel=0.1)
    # deterministic: the same rows every time
    (X2, _, _), = stacking._sample(data, 0.2)
    assert X2[:, 1].tolist() == ids
    # keep 1.0: every row, weight 1
    (X3, y3, w3), = stacking._sample(data, 1.0)
    assert len(y3) == 2003 and set(w3.tolist()) == {1.0}


def test_the_weighted_sample_keeps_the_probabilities_calibrated():
    rng = np.random.default_rng(1)
    n = 6000
    x = rng.random(n)
    p_true = np.where(x > 0.9, 0.08, 0.001)  # rare positives (about 0.9%), most rows easy
    y = (rng.random(n) < p_true).astype(int)
    X = np.stack([np.where(x > 0.9, 0.1, 0.005), x, rng.random(n)], axis=1)
    data = [(X[i:i + 60], y[i:i + 60]) for i in range(0, n, 60)]
    whole = stacking._fit_rows(data, 1, 1.0)
    sampled = stacking._fit_rows(data, 1, 0.2)
    q_whole, q_sampled = whole.predict_proba(X)[:, 1], sampled.predict_proba(X)[:, 1]
    # both predict about the observed rate of positives, in the easy region and overall
    assert q_sampled.mean() == pytest.approx(y.mean(), rel=0.25)
    assert q_sampled[x <= 0.9].mean() == pytest.approx(q_whole[x <= 0.9].mean(), abs=0.004)


def test_a_restacked_row_is_the_row_with_its_new_probability():
    a, b = Mention(0, 9, "Alan Bean", "Alan Bean", "CAP"), Mention(22, 36, "Wheeler, Texas", "Wheeler, Texas", "CAP")
    c = PairScore(a, b, 0.5, 0.4, "birthPlace", 1.0, "birthPlace", None, 0.1, "s", 3, 1, 0.5, 0.2)
    d = stacking._with_p(c, 0.7)
    assert d == dataclasses.replace(c, p=0.7) and hash(d) == hash(dataclasses.replace(c, p=0.7))
    assert c.p == 0.5 and d.p == 0.7
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.p = 0.1


def test_words_are_the_lower_case_word_tokens_of_the_span():
    sent = "The manager of A.F.C. Blackpool is Stuart Parker, who was born in 1970."
    toks = tokens(sent)
    assert words(toks, 0, len(sent)) == ["the", "manager", "of", "a.f.c.", "blackpool", "is", "stuart", "parker",
                                         "who", "was", "born", "in", "1970"]
    assert words(toks, 4, 14) == ["manager", "of"]
    assert words(toks, 5, 14) == ["of"]  # a token cut by the span is left out


def test_words_of_every_span_are_those_a_scan_of_the_tokens_gives():
    import re
    sent = "Born in Canada, Aaron Boogaard (born 1986) plays for the Rockford IceHogs; St. Louis is 2,500 km away."
    toks = tokens(sent)

    def scan(start, end):
        return [t[2].lower() for t in toks if t[0] >= start and t[1] <= end and re.match(r"\w", t[2])]
    spans = [(s, e) for s in range(0, len(sent) + 2, 3) for e in range(s, len(sent) + 2, 4)]
    assert all(words(toks, s, e) == scan(s, e) for s, e in spans) and len(spans) > 400
    assert words([], 0, 10) == []


def test_bins_follow_scikit_learns_unweighted_binning():
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
    rng = np.random.default_rng(3)
    X = np.stack([rng.random(3000), rng.integers(0, 5, 3000).astype(float), np.round(rng.random(3000), 2)], axis=1)
    edges = stacking.bin_edges(X)
    ours = stacking.apply_bins(edges, X)
    theirs = _BinMapper(n_bins=256, subsample=None).fit_transform(X)
    assert (ours == theirs).all()
    assert [len(e) for e in edges] == [254, 4, 100]


def test_a_weighted_fit_reads_the_bins_of_its_rows():
    rng = np.random.default_rng(2)
    X = np.stack([np.where(rng.random(4000) < 0.1, 0.2, 0.001), rng.random(4000)], axis=1)
    y = ((X[:, 0] > 0.1) & (rng.random(4000) < 0.3)).astype(int)
    data = [(X[i:i + 40], y[i:i + 40]) for i in range(0, 4000, 40)]
    m = stacking._fit_rows(data, 2, 0.2)
    assert isinstance(m, stacking.Bagged) and m.edges is not None and len(m.models) == 2
    q = m.predict_proba(X)[:, 1]
    assert q[X[:, 0] > 0.1].mean() == pytest.approx(y[X[:, 0] > 0.1].mean(), abs=0.05)
    assert q[X[:, 0] < 0.1].mean() < 0.01
    assert stacking._fit_rows(data, 2, 1.0).edges is None  # whole fits: scikit-learn's own binning
