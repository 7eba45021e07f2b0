"""The stacker's fast paths give what the plain computations give, bit for bit (issue 28).

:func:`.stacking.context_features` is computed column by column, :class:`.corpus.CorpusStats`
keeps its two highest values without sorting and reads a sentence's names once, and
:func:`.stacking.binned_proba` walks the trees on bins: each is compared here with the
straightforward computation (the row-by-row loop and the sort it replaced, scikit-learn's own
``predict_proba``) on inputs with ties, alternative relations, rows without a relation and
names repeated across sentences.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from pipeline.text import corpus as corpus_mod
from pipeline.text import stacking
from pipeline.text.corpus import CorpusStats
from pipeline.text.pair_score import PairScore
from pipeline.text.mentions import Mention

SHAPES = ("CAP", "CAP", "NUM", "YEAR", "DATE", "LOW", "LEX", "QUOTE")


class _ReferenceCorpus(CorpusStats):
    """:class:`.corpus.CorpusStats` as first written: each key's two highest values by a sort."""

    def __init__(self, sentences, groups=None):  # noqa: D107 - the reference
        self.groups = list(groups) if groups is not None else [""] * len(sentences)
        self._top, self._sum, self._own = {}, {}, []
        self._size = Counter(self.groups)
        for i, (rows, g) in enumerate(zip(sentences, self.groups)):
            if self._size[g] == 1:
                self._own.append({})
                continue
            local = {}
            for c in rows:
                a, b = corpus_mod.fold_accents(corpus_mod.key(c.a.value)), \
                    corpus_mod.fold_accents(corpus_mod.key(c.b.value))
                for k in (("t", g, (a, c.rel, b)), ("p", g, (a, b)), ("s", g, a), ("o", g, b)):
                    local[k] = max(local.get(k, 0.0), c.p)
                local[("n", g, a)] = local[("n", g, b)] = 1.0
            for k, v in local.items():
                top = self._top.setdefault(k, [])
                top.append((v, i))
                top.sort(key=lambda x: -x[0])
                del top[2:]
                acc = self._sum.setdefault(k, [0.0, 0])
                acc[0] += v
                acc[1] += 1
            self._own.append(local)


def _span(m):
    return m.start, m.end


def _reference_features(scored, corpus=None, index=0) -> np.ndarray:
    """:func:`.stacking.context_features` as the row-by-row loop it replaced."""
    base, top_rel = {}, {}
    for c in scored:
        k = (_span(c.a), c.a.value, _span(c.b), c.b.value)
        if k not in base or (c.p, -c.alt) > (base[k].p, -base[k].alt):
            base[k] = c
        top_rel[k] = max(top_rel.get(k, -math.inf), c.rel_score)
    pairs = list(base.values())
    by_obj, as_obj, as_sub, topic = {}, {}, {}, {}
    for c in pairs:
        by_obj.setdefault(_span(c.b), []).append(c.p)
        as_obj[_span(c.b)] = max(as_obj.get(_span(c.b), 0.0), c.p)
        as_sub[_span(c.a)] = max(as_sub.get(_span(c.a), 0.0), c.p)
        topic[_span(c.a)] = topic.get(_span(c.a), 0.0) + c.p * c.ps
    ps_of = {_span(c.a): c.ps for c in pairs}
    positions = sorted({_span(c.a) for c in pairs} | {_span(c.b) for c in pairs})
    by_obj_rel, by_sub_rel = {}, {}
    for c in pairs:
        by_obj_rel.setdefault(_span(c.b), []).append(c.rel_score)
        by_sub_rel.setdefault((_span(c.a), c.rel), []).append(c.p)
    topic_order = sorted(topic, key=lambda k: (-topic[k], k))
    obj_order = sorted(as_obj, key=lambda k: (-as_obj[k], k))
    names = len({_span(c.a) for c in pairs})
    likely = sum(1 for v in as_obj.values() if v >= 0.2)
    name_spans = sorted({_span(c.a) for c in pairs})
    rows = []
    for c in scored:
        sa, sb = _span(c.a), _span(c.b)
        ps_b = sorted(by_obj[sb], reverse=True)
        best = ps_b[0]
        rank = sum(1 for x in ps_b if x > c.p)
        other = next((x for x in ps_b if x != c.p), None)
        row = [c.p, stacking._logit(c.p), c.ps, max(min(c.rel_score, 3.0), -3.0), c.cue,
               c.p / best if best else 0.0, 1.0 if c.p >= best else 0.0, min(rank, 3),
               c.p - (other if other is not None else 0.0), 1.0 if topic_order[0] == sa else 0.0,
               min(topic_order.index(sa), 3), as_obj.get(sa, 0.0), as_sub.get(sb, 0.0), min(names, 8),
               min(likely, 8), min(obj_order.index(sb), 8), best, 1.0 if c.b.start < c.a.start else 0.0,
               sum(ps_b), 1.0 if c.rel is not None else 0.0, ps_of.get(sb, 0.0),
               min(positions.index(sa), 8), min(positions.index(sb), 8),
               min(abs(positions.index(sb) - positions.index(sa)) - 1, 8),
               sum(1 for x in by_sub_rel.get((sa, c.rel), ()) if x > c.p),
               sum(1 for x in by_obj_rel[sb] if x > c.rel_score),
               min(c.alt, 3), max(c.rel_score - top_rel[(sa, c.a.value, sb, c.b.value)], -3.0), c.label,
               c.label_other]
        row += [1.0 if c.b.shape == s else 0.0 for s in stacking._SHAPES]
        role = stacking.clause_role(c.sent, c.a, c.b, name_spans)
        row += [1.0 if role == r else 0.0 for r in stacking._CLAUSE_ROLES]
        row += corpus.row(index, c) if corpus is not None else list(stacking.NO_EVIDENCE)
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(scored), len(stacking.FEATURES))


def _sentences(seed: int, n: int = 12) -> list[list[PairScore]]:
    """Sentences of scored rows with what the fast paths must get right: equal probabilities and
    relation scores (values on a coarse grid), alternative rows of a pair (more and less probable
    than its best), rows without a relation, zero probabilities, names shared between sentences
    (also accented), a relative clause."""
    rng = np.random.default_rng(seed)
    pool = ["Alan Bean", "Alán Bean", "NASA", "Wheeler", "Texas", "1932", "Apollo 12", "Houston", "Navy", "Ohio"]
    out = []
    for s in range(n):
        k = int(rng.integers(1, 7))
        words = [pool[int(i)] for i in rng.choice(len(pool), size=k, replace=False)]
        text = ", who ".join(words) + " ."
        ms, at = [], 0
        for w in words:
            start = text.index(w, at)
            ms.append(Mention(start, start + len(w), w, w, SHAPES[int(rng.integers(len(SHAPES)))]))
            at = start + len(w)
        rows = []
        for i, a in enumerate(ms):
            for j, b in enumerate(ms):
                if i == j or rng.random() < 0.2:
                    continue
                p = float(rng.integers(0, 6)) / 5  # ties, and 0.0
                rel = None if rng.random() < 0.1 else f"r{int(rng.integers(3))}"
                score = -1e9 if rel is None else float(rng.integers(-8, 9)) / 2
                pair = len({(r.a.start, r.b.start) for r in rows})
                rows.append(PairScore(a, b, p, float(rng.integers(1, 5)) / 4, rel, score, rel, None,
                                      float(rng.integers(0, 3)) / 10, text, pair, 0,
                                      float(rng.integers(0, 3)) / 2, float(rng.integers(0, 3)) / 2))
                for alt in range(1, int(rng.integers(0, 3)) + 1):  # next-best relations of the pair
                    rows.append(PairScore(a, b, float(rng.integers(0, 6)) / 5, 0.5, f"r{alt + 2}",
                                          score - alt / 2, rel, None, 0.0, text, pair, alt, 0.5, 0.0))
        out.append(rows)
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("grouping", ["one", "pairs", "alone"])
def test_context_features_are_those_of_the_row_by_row_loop(seed, grouping):
    sentences = _sentences(seed)
    groups = {"one": None, "pairs": [str(i // 2) for i in range(len(sentences))],
              "alone": [str(i) for i in range(len(sentences))]}[grouping]
    fast = stacking.sentence_features(sentences, groups)
    reference = _ReferenceCorpus(sentences, groups)
    assert sum(len(s) for s in sentences) > 50
    for i, s in enumerate(sentences):
        assert fast[i].tobytes() == _reference_features(s, reference, i).tobytes()
        assert stacking.context_features(s).tobytes() == _reference_features(s).tobytes()


def test_corpus_stats_keep_the_two_highest_values_as_the_sort_did():
    sentences = _sentences(7, 40)
    fast, reference = CorpusStats(sentences), _ReferenceCorpus(sentences)
    assert fast._top == reference._top and fast._sum == reference._sum and fast._own == reference._own
    for i, s in enumerate(sentences):
        assert fast.rows(i, s) == [reference.row(i, c) for c in s]


def test_an_empty_sentence_has_no_rows():
    assert stacking.context_features([]).shape == (0, len(stacking.FEATURES))


@pytest.mark.parametrize("binned", [False, True])
def test_the_trees_read_on_bins_give_scikit_learns_probabilities(binned):
    from sklearn.ensemble import HistGradientBoostingClassifier
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(3000, 6)), 2)
    X[:, 5] = rng.integers(0, 4, 3000)  # few distinct values: midpoint thresholds
    y = ((X[:, 0] + X[:, 1] * X[:, 5] + rng.normal(size=3000)) > 0.5).astype(int)
    if binned:  # as a weighted (sampled) stacker fit: the model reads the rows' bin indices
        edges = stacking.bin_edges(X)
        X = stacking.apply_bins(edges, X)
    model = HistGradientBoostingClassifier(max_iter=30, max_leaf_nodes=15, early_stopping=False,
                                           random_state=0).fit(X[:2000], y[:2000])
    test = np.vstack([X[2000:], X[:5] + 1e-9, X[:5] * 10])  # also values between and beyond the training ones
    assert stacking.binned_proba(model, test).tobytes() == model.predict_proba(test).tobytes()
    with_nan = test.copy()
    with_nan[0, 0] = np.nan  # the model's own path
    assert stacking.binned_proba(model, with_nan).tobytes() == model.predict_proba(with_nan).tobytes()


def test_a_models_bins_read_from_the_shared_bins_are_its_bin_mappers():
    from sklearn.ensemble import HistGradientBoostingClassifier
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(4000, 4)), 2)
    X[:, 3] = rng.integers(0, 6, 4000)
    y = ((X[:, 0] + X[:, 3] / 3 + rng.normal(size=4000)) > 1.0).astype(int)
    edges = stacking.bin_edges(X[:3000])
    codes = stacking.bin_codes(edges, X)
    assert codes.dtype == np.intp and (codes.astype(np.float64) == stacking.apply_bins(edges, X)).all()
    # column by column on a transposed copy: the codes of the plain search of each strided column,
    # for row-major, column-major and sliced rows alike
    plain = np.stack([np.searchsorted(e, X[:, j], side="left") for j, e in enumerate(edges)], axis=1)
    assert codes.tobytes() == plain.tobytes() and codes.flags["C_CONTIGUOUS"]
    assert stacking.bin_codes(edges, np.asfortranarray(X)).tobytes() == plain.tobytes()
    assert stacking.bin_codes(edges, X[::3]).tobytes() == plain[::3].copy().tobytes()
    # fitted on part of the codes (as a bootstrap sample): column 3 without its bins 1 and 4, the
    # others with fewer distinct bins, so the model's bins are not ours
    part = (X[:, 3] != 1) & (X[:, 3] != 4) & (np.arange(4000) < 1500)
    model = HistGradientBoostingClassifier(max_iter=20, max_leaf_nodes=15, early_stopping=False,
                                           random_state=0).fit(codes[part].astype(np.float64), y[part])
    assert len(model._bin_mapper.bin_thresholds_[3]) == 3  # 4 of the 6 bins seen
    test = codes[1500:]  # rows and bins the model did not see, above and below its thresholds
    mine = stacking.model_bins(model, edges, test)
    theirs = model._bin_mapper.transform(test.astype(np.float64))
    # the flat indices a bagged stacker computes once for its models give the same bins
    assert stacking.model_bins(model, edges, test, stacking.flat_codes(edges, test)).tobytes() == mine.tobytes()
    assert mine.dtype == np.uint8 and mine.flags["C_CONTIGUOUS"] and mine.tobytes() == np.ascontiguousarray(theirs).tobytes()
    assert sorted(set(mine[:, 3].tolist())) == [0, 1, 2, 3] and len(set(test[:, 3].tolist())) == 6
    bagged = stacking.Bagged([model, model], edges)
    assert bagged.predict_proba(X[1500:]).tobytes() == np.mean(
        [model.predict_proba(test.astype(np.float64))] * 2, axis=0).tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_fixed_features_of_an_earlier_round_give_the_rows_of_the_row_by_row_loop(seed):
    """A stacking round replaces each row's ``p`` only: the fixed part computed on the first
    round's rows gives every later round the rows the plain loop gives them."""
    sentences = _sentences(seed)
    fixed = [stacking.fixed_features(s) for s in sentences]
    rng = np.random.default_rng(100 + seed)
    later = [[stacking._with_p(c, float(rng.integers(0, 6)) / 5) for c in s] for s in sentences]
    assert any(c.p != d.p for s, t in zip(sentences, later) for c, d in zip(s, t))
    for groups in (None, [str(i) for i in range(len(sentences))]):
        with_fixed = stacking.sentence_features(later, groups, fixed)
        reference = _ReferenceCorpus(later, groups)
        for i, s in enumerate(later):
            assert with_fixed[i].tobytes() == _reference_features(s, reference, i).tobytes()
    # the block holds the fixed columns only
    other = [j for j, name in enumerate(stacking.FEATURES) if name not in stacking.FIXED_COLUMNS]
    assert all(not f.block[:, other].any() for f in fixed)
    assert any(f.block[:, [stacking.FEATURES.index(n) for n in stacking.FIXED_COLUMNS]].any() for f in fixed)


def test_the_stacker_runs_one_openmp_thread_and_gives_the_pools_back():
    """:func:`.stacking._one_thread` (one controller for the process) limits scikit-learn's OpenMP
    pool to one thread inside the block, as ``threadpool_limits(1)`` does, and restores it after."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: F401 - loads its OpenMP runtime
    from threadpoolctl import threadpool_info

    def openmp() -> list[int]:
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "openmp"]
    before = openmp()
    assert before
    with stacking._one_thread():
        assert openmp() == [1] * len(before)
        with stacking._one_thread():  # nested, as a fit inside a limited block
            assert openmp() == [1] * len(before)
        assert openmp() == [1] * len(before)
    assert openmp() == before
