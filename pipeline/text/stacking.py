"""Sentence-level re-scoring of the offline extractor's pairs (stacked generalization).

The pair model scores each (subject candidate, object candidate) pair on its own. A WebNLG
sentence is connected, though: most names other than the topic are the object of one triple,
and an object's subject is the topic or a name already linked to it. :func:`context_features`
describes each scored pair by its place among the sentence's other pairs - its rank among the
subjects competing for the same object, whether its subject is the sentence's topic or itself
the object of a likely pair, how many likely objects the sentence has, the object's shape - and
gradient-boosted classifiers (:func:`fit_stacker`, bagged), trained on pair scores that the first-stage
models gave training sentences they were not fitted on (cross-fitting, as for the lexicon),
gives the probability that the pair with its chosen relation is a gold triple. :func:`restack` puts it in place of the
pair probability before decoding (:mod:`.decode`). A pair may come with its next-best relations
(``alt`` > 0): each is a row of its own, with its relation score, its margin to the pair's best
and the share of its name's words around the pair, so the stacker can prefer it (the decoder
keeps one relation per object). Last come the corpus features (:mod:`.corpus`): what the other
sentences of the run (in training, of the ontology) give the same names.

Source: stacked generalization, Wolpert (1992), "Stacked generalization", Neural Networks 5(2);
the out-of-fold first-stage scores follow its cross-validated level-1 data. Stacking rounds, each
reading the previous round's probabilities as context (:func:`fit_stackers`), follow auto-context,
Tu and Bai (2010), "Auto-context and its application to high-level vision tasks and 3D brain
image segmentation", IEEE TPAMI 32(10).
"""
from __future__ import annotations

import math
import re

import numpy as np
from threadpoolctl import ThreadpoolController

from pipeline.text.corpus import CORPUS_FEATURES, NO_EVIDENCE, CorpusStats
from pipeline.text.pair_score import PairScore

__all__ = ["apply_bins", "BAGS", "Bagged", "bin_codes", "bin_edges", "binned_proba", "FEATURES", "context_features", "cross_fitted_scores", "Fixed", "FIXED_COLUMNS", "fixed_features", "flat_codes", "fit_stacker", "fit_stackers", "model_bins", "restack", "ROUNDS", "sentence_features",
           "stack_labels"]

_SHAPES = ("CAP", "LEX", "QUOTE", "NUM", "YEAR", "DATE", "LOW")
_CLAUSE_ROLES = ("antecedent", "other_antecedent", "subject_inside", "no_antecedent")
# a relative pronoun opening a clause about the name just before it ("Stuart Parker, who played for ...")
_RELATIVE = re.compile(r",?\s+(?:who|whom|whose|which|where)\b", re.I)
# between an antecedent and its relative pronoun: spaces, commas, a parenthesised remark
_ATTACHED = re.compile(r"[\s,]*(?:\([^)]*\))?[\s,]*")


def clause_role(sent: str, a, b, names: list[tuple[int, int]]) -> str | None:
    """Where the pair stands to the relative clause that holds its object ``b``: ``None`` (no
    relative pronoun between the start of ``b``'s period-delimited sentence and ``b``), else the
    clause's antecedent (the name in ``names`` just before the pronoun) is the subject ``a``
    (``antecedent``), another name (``other_antecedent``), no name (``no_antecedent``), or ``a``
    itself is inside the clause (``subject_inside``)."""
    if not sent:
        return None
    unit = sent.rfind(". ", 0, b.start) + 1
    marks = list(_RELATIVE.finditer(sent, unit, b.start))
    if not marks:
        return None
    m = marks[-1]
    if a.start > m.start():
        return "subject_inside"
    ants = [n for n in names if n[1] <= m.start() and _ATTACHED.fullmatch(sent, n[1], m.start())]
    if not ants:
        return "no_antecedent"
    return "antecedent" if max(ants, key=lambda n: (n[1], -n[0])) == span(a) else "other_antecedent"


FEATURES = ("p", "logit_p", "ps", "rel_score", "cue", "p_over_best_for_object", "best_for_object",
            "subject_rank_for_object", "margin_for_object", "subject_is_topic", "subject_topic_rank",
            "subject_as_object_p", "object_as_subject_p", "names", "likely_objects", "object_rank",
            "object_best_p", "object_before_subject", "object_p_sum", "has_relation", "object_ps",
            "subject_position", "object_position", "names_between", "same_relation_better",
            "relation_rank_for_object", "alternative", "relation_margin", "label_share", "label_share_other") + tuple(
            f"object_shape={s}" for s in _SHAPES) + tuple(f"clause={r}" for r in _CLAUSE_ROLES) + CORPUS_FEATURES


#: The first corpus column of :data:`FEATURES`.
_CORPUS_COLUMN = FEATURES.index(CORPUS_FEATURES[0])


def span(m) -> tuple[int, int]:
    """A mention's character span, the key of names within one sentence."""
    return m.start, m.end


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _count_above(ref_groups: np.ndarray, ref_values: np.ndarray, groups: np.ndarray, values: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For each query ``(groups[i], values[i])``: how many reference values of the same group are
    greater than ``values[i]``, and the greatest reference value of the group below it (NaN when
    none). Integer group ids; values compared as floats (no NaN). Exact: the values are replaced by
    their ranks among all values given (:func:`numpy.unique`), so group and rank form one integer
    key that sorts as the pair does."""
    ranks, inverse = np.unique(np.concatenate([ref_values, values]), return_inverse=True)
    k = len(ranks)
    ref_key = np.sort(ref_groups.astype(np.int64) * k + inverse[:len(ref_values)])
    key = groups.astype(np.int64) * k + inverse[len(ref_values):]
    end = np.searchsorted(ref_key, groups.astype(np.int64) * k + (k - 1), side="right")
    above = end - np.searchsorted(ref_key, key, side="right")
    below_at = np.searchsorted(ref_key, key, side="left") - 1
    ok = (below_at >= 0) & (ref_key[np.maximum(below_at, 0)] // k == groups)
    below = np.where(ok, ranks[ref_key[np.maximum(below_at, 0)] % k], np.nan)
    return above, below


class Fixed:
    """What :func:`context_features` reads of one sentence's scored rows that a stacking round
    leaves as it is (a round replaces each row's ``p`` only, :func:`restack`, in the same row
    order): the rows' pairs and spans, and the columns that depend on neither ``p`` nor the
    corpus (:func:`fixed_features`)."""

    __slots__ = ("block", "rows_pair", "pair_rows", "alt", "top_rel", "positions", "ia", "ib", "RS")

    def __init__(self, block, rows_pair, pair_rows, alt, top_rel, positions, ia, ib, RS) -> None:
        self.block, self.rows_pair, self.pair_rows, self.alt = block, rows_pair, pair_rows, alt
        self.top_rel, self.positions, self.ia, self.ib, self.RS = top_rel, positions, ia, ib, RS


#: Columns of :data:`FEATURES` that depend neither on the rows' probabilities ``p`` nor on the
#: corpus: computed once per sentence (:func:`fixed_features`) and copied in every round.
FIXED_COLUMNS = ("ps", "rel_score", "cue", "object_before_subject", "has_relation", "subject_position",
                 "object_position", "names_between", "alternative", "relation_margin", "label_share",
                 "label_share_other") + tuple(f"object_shape={s}" for s in _SHAPES) + tuple(
                 f"clause={r}" for r in _CLAUSE_ROLES)


def fixed_features(scored: list[PairScore]) -> Fixed:
    """The part of :func:`context_features` of one sentence's scored rows that no stacking round
    changes (:class:`Fixed`): each row's pair (pairs in order of first row; two rows are one pair
    when their two spans and names are), the spans as integer ids in text order, and the
    :data:`FIXED_COLUMNS` of a ``len(scored)`` x ``len(FEATURES)`` block (the other columns 0)."""
    n = len(scored)
    block = np.zeros((n, len(FEATURES)), dtype=np.float64)
    pair_of: dict[tuple, int] = {}
    rows_pair = np.empty(n, dtype=np.int64)
    pair_rows: list[list[int]] = []
    top_rel: list[float] = []
    for i, c in enumerate(scored):
        a, b = c.a, c.b
        k = (a.start, a.end, a.value, b.start, b.end, b.value)
        j = pair_of.get(k)
        if j is None:
            j = pair_of[k] = len(pair_rows)
            pair_rows.append([i])
            top_rel.append(c.rel_score)
        else:
            pair_rows[j].append(i)
            if c.rel_score > top_rel[j]:
                top_rel[j] = c.rel_score
        rows_pair[i] = j
    # spans as integer ids, in text order (``positions``)
    sa_l = [(c.a.start, c.a.end) for c in scored]
    sb_l = [(c.b.start, c.b.end) for c in scored]
    positions = sorted(set(sa_l) | set(sb_l))
    pos = {s: i for i, s in enumerate(positions)}
    ia = np.array([pos[s] for s in sa_l], dtype=np.int64)
    ib = np.array([pos[s] for s in sb_l], dtype=np.int64)
    RS = np.array([c.rel_score for c in scored], dtype=np.float64)
    if n:
        col = {name: j for j, name in enumerate(FEATURES)}
        block[:, 2] = [c.ps for c in scored]
        block[:, 3] = np.maximum(np.minimum(RS, 3.0), -3.0)
        block[:, 4] = [c.cue for c in scored]
        block[:, 17] = [c.b.start < c.a.start for c in scored]
        block[:, 19] = [c.rel is not None for c in scored]
        block[:, 21] = np.minimum(ia, 8)
        block[:, 22] = np.minimum(ib, 8)
        block[:, 23] = np.minimum(np.abs(ib - ia) - 1, 8)
        block[:, 26] = [min(c.alt, 3) for c in scored]
        block[:, 27] = np.maximum(RS - np.array(top_rel)[rows_pair], -3.0)
        block[:, 28] = [c.label for c in scored]
        block[:, 29] = [c.label_other for c in scored]
        shapes = [c.b.shape for c in scored]
        for s in _SHAPES:
            block[:, col[f"object_shape={s}"]] = [x == s for x in shapes]
        # the names: every subject span (each pair's context row has its pair's subject)
        name_spans = [positions[s] for s in sorted(set(ia.tolist()))]
        roles: dict[tuple, str | None] = {}
        role_l = []
        for c, sa in zip(scored, sa_l):
            rk = (c.sent, c.a.start, sa, c.b.start)
            if rk not in roles:
                roles[rk] = clause_role(c.sent, c.a, c.b, name_spans)
            role_l.append(roles[rk])
        for r in _CLAUSE_ROLES:
            block[:, col[f"clause={r}"]] = [x == r for x in role_l]
    return Fixed(block, rows_pair, pair_rows, [c.alt for c in scored], top_rel, positions, ia, ib, RS)


def context_features(scored: list[PairScore], corpus: CorpusStats | None = None, index: int = 0,
                     fixed: Fixed | None = None) -> np.ndarray:
    """One row of :data:`FEATURES` per scored pair of one sentence (``len(scored)`` x
    ``len(FEATURES)``).

    A pair scored with several relations (``alt`` > 0: its next-best relations) counts once in
    the sentence's context (as its most probable row, ``alt`` 0 on a tie - in the first round
    all of a pair's rows have the same probability); each of its rows has its own probability,
    relation score and relation rank, ``alternative`` (its ``alt``, at most 3),
    ``relation_margin`` (its relation score minus the pair's best, at least -3),
    ``label_share`` / ``label_share_other`` (:attr:`.pair_score.PairScore.label`). A row is ranked
    among the competitors for its object as in that context, so a pair's best-relation row whose
    alternative became more probable ranks second to it. The topic is the subject span
    with the highest sum of ``p * ps`` over its pairs; "likely" is ``p >= 0.2`` (the pair
    threshold without a stacker). ``corpus``: the run's :class:`.corpus.CorpusStats`, in which
    this is sentence ``index`` (else the corpus features say "no evidence"). ``fixed``: the
    sentence's :func:`fixed_features` when already known (the same rows, any ``p``).

    Computed column by column (numpy over the rows; per span and per pair once): a long text's
    sentence has thousands of rows and each stacking round computes them again, all but the
    :data:`FIXED_COLUMNS`, which a round does not change.
    """
    n = len(scored)
    if not n:
        return np.zeros((n, len(FEATURES)), dtype=np.float64)
    if fixed is None:
        fixed = fixed_features(scored)
    out = fixed.block.copy()
    positions, ia, ib, RS = fixed.positions, fixed.ia, fixed.ib, fixed.RS
    P = np.array([c.p for c in scored], dtype=np.float64)
    # each pair's context row: its most probable (alt 0 on a tie; the first such row)
    P_l, alt = P.tolist(), fixed.alt
    base: list[int] = []
    for rows in fixed.pair_rows:
        i = rows[0]
        for r in rows[1:]:
            if (P_l[r], -alt[r]) > (P_l[i], -alt[i]):
                i = r
        base.append(i)
    # per span, from the pairs (their context rows), in pair order as sums are order-dependent
    m = len(positions)
    as_obj, as_sub = [0.0] * m, [0.0] * m
    has_obj = [False] * m
    topic: dict[int, float] = {}
    ps_of = [0.0] * m
    by_obj: dict[int, list[float]] = {}
    by_sub_rel: dict[tuple, list[float]] = {}
    for i in base:
        c = scored[i]
        sa, sb = int(ia[i]), int(ib[i])
        by_obj.setdefault(sb, []).append(c.p)
        as_obj[sb] = max(as_obj[sb], c.p)
        has_obj[sb] = True
        as_sub[sa] = max(as_sub[sa], c.p)
        topic[sa] = topic.get(sa, 0.0) + c.p * c.ps
        ps_of[sa] = c.ps
        by_sub_rel.setdefault((sa, c.rel), []).append(c.p)
    topic_order = sorted(topic, key=lambda s: (-topic[s], positions[s]))
    obj_order = sorted((s for s in range(m) if has_obj[s]), key=lambda s: (-as_obj[s], positions[s]))
    topic_rank = np.zeros(m, dtype=np.int64)
    topic_rank[topic_order] = np.arange(len(topic_order))
    obj_rank = np.zeros(m, dtype=np.int64)
    obj_rank[obj_order] = np.arange(len(obj_order))
    best_of = np.zeros(m)
    sum_of = np.zeros(m)
    for s, v in by_obj.items():
        desc = sorted(v, reverse=True)
        best_of[s] = desc[0]
        sum_of[s] = sum(desc)
    names = len(topic)
    likely = sum(1 for s in range(m) if has_obj[s] and as_obj[s] >= 0.2)
    base_rows = np.array(base, dtype=np.int64)
    best = best_of[ib]
    # competitors for the same object: how many pairs are more probable, the next value below
    rank, below = _count_above(ib[base_rows], P[base_rows], ib, P)
    other = np.where(best != P, best, np.where(np.isnan(below), 0.0, below))
    # same subject and relation; relation scores of the object's pairs
    sub_rel = {k: i for i, k in enumerate(by_sub_rel)}
    rel_l = [c.rel for c in scored]
    g_sr = np.array([sub_rel.get((int(s), r), -1) for s, r in zip(ia, rel_l)], dtype=np.int64)
    ref_sr = np.array([sub_rel[(int(ia[i]), scored[i].rel)] for i in base], dtype=np.int64)
    same_rel, _ = _count_above(ref_sr, P[base_rows], g_sr, P)
    rel_rank, _ = _count_above(ib[base_rows], RS[base_rows], ib, RS)
    out[:, 0] = P
    out[:, 1] = [_logit(p) for p in P_l]
    out[:, 5] = np.divide(P, best, out=np.zeros(n), where=best != 0)
    out[:, 6] = P >= best
    out[:, 7] = np.minimum(rank, 3)
    out[:, 8] = P - other
    out[:, 9] = ia == topic_order[0]
    out[:, 10] = np.minimum(topic_rank[ia], 3)
    out[:, 11] = np.array(as_obj)[ia]
    out[:, 12] = np.array(as_sub)[ib]
    out[:, 13] = min(names, 8)
    out[:, 14] = min(likely, 8)
    out[:, 15] = np.minimum(obj_rank[ib], 8)
    out[:, 16] = best
    out[:, 18] = sum_of[ib]
    out[:, 20] = np.array(ps_of)[ib]
    out[:, 24] = np.where(g_sr >= 0, same_rel, 0)
    out[:, 25] = rel_rank
    first = _CORPUS_COLUMN
    out[:, first:] = corpus.rows(index, scored) if corpus is not None else NO_EVIDENCE
    return out


#: Stackers averaged per round (bagging): one gradient-boosted model's output moves with small
#: changes of its out-of-fold inputs (such as the order of the training sentences).
BAGS = 5

#: Bagged models per fold of the out-of-fold stackers of rounds before the last (their scores are
#: only the next round's training context).
OOF_BAGS = 2

#: The gradient-boosted stacker's settings (scikit-learn ``HistGradientBoostingClassifier``).
GBM = {"max_iter": 150, "learning_rate": 0.1, "max_leaf_nodes": 15, "min_samples_leaf": 40,
       "l2_regularization": 1.0}


#: The process's thread pools (threadpoolctl), found on first use (:func:`_one_thread`).
_POOLS: ThreadpoolController | None = None


def _one_thread():
    """A context in which the OpenMP and BLAS pools of the loaded libraries run one thread
    (threadpoolctl's ``limit``, as ``threadpool_limits(1)``), with the libraries found once per
    process: each new controller walks the loaded shared objects (milliseconds), and the stacker
    asks for one thread dozens of times per round. First asked for by a stacker's fit or
    prediction, when scikit-learn's compiled modules, whose OpenMP runtime the models use, are
    loaded."""
    global _POOLS
    if _POOLS is None:
        _POOLS = ThreadpoolController()
    return _POOLS.limit(limits=1)


class Bagged:
    """The mean ``predict_proba`` of several fitted classifiers (bagging, Breiman 1996,
    "Bagging predictors", Machine Learning 24(2)); ``models``: fitted with the same classes."""

    def __init__(self, models: list, edges: list[np.ndarray] | None = None) -> None:
        self.models = models
        self.edges = edges

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Mean class probabilities (rows x classes); with ``edges`` the models read the rows'
        bins (:func:`apply_bins`), as they were fitted: the bins are found once for all the
        models and each model's own bins read from them (:func:`model_bins`)."""
        edges = getattr(self, "edges", None)  # None in a model pickled before bins existed
        if edges is None:
            return np.mean([binned_proba(m, X) for m in self.models], axis=0)
        codes = bin_codes(edges, X)
        binned, flat = codes.astype(np.float64), flat_codes(edges, codes)
        return np.mean([binned_proba(m, binned, model_bins(m, edges, codes, flat)) for m in self.models], axis=0)


def binned_proba(model, X: np.ndarray, bins: np.ndarray | None = None) -> np.ndarray:
    """``model.predict_proba(X)`` (rows x 2) of a fitted binary scikit-learn
    ``HistGradientBoostingClassifier``, its trees walked on the rows' bins (the model's own bin
    mapper, one byte per value) instead of the float values: the prediction scikit-learn itself
    makes of its training rows during a fit. The same leaves, hence the same probabilities bit
    for bit - a node's float threshold is the upper edge of its bin threshold, so ``x <= edge``
    exactly when ``bin(x) <= bin threshold`` - in about two thirds of the time (the trees read
    a compact array). ``bins``: the model's bins of ``X`` when already known (:func:`model_bins`;
    ``None``: its bin mapper's ``transform``). Any other model, categorical features or a NaN in
    ``X``: the model's own ``predict_proba``."""
    mapper = getattr(model, "_bin_mapper", None)
    if (mapper is None or getattr(model, "n_trees_per_iteration_", 0) != 1 or mapper.is_categorical_ is not None
            and np.any(mapper.is_categorical_) or np.isnan(X).any()):
        return model.predict_proba(X)
    raw = np.zeros((len(X), 1), dtype=model._baseline_prediction.dtype, order="F")
    raw += model._baseline_prediction
    with _one_thread():
        if bins is None:
            bins = mapper.transform(np.asarray(X, dtype=np.float64))
        model._predict_iterations(bins, model._predictors, raw, is_binned=True, n_threads=1)
    return model._loss.predict_proba(raw)


#: Bins per feature of a weighted stacker fit (scikit-learn's default for its own binning).
MAX_BINS = 255


def bin_edges(X: np.ndarray, max_bins: int = MAX_BINS) -> list[np.ndarray]:
    """Per column of ``X`` (rows x features), the increasing thresholds of at most ``max_bins``
    bins: the midpoints of its distinct values when there are no more, else its quantiles
    (``averaged_inverted_cdf``), duplicates dropped - the unweighted binning of scikit-learn's
    ``HistGradientBoostingClassifier``. A weighted fit is given the bin indices
    (:func:`apply_bins`): scikit-learn would find its thresholds by a weighted percentile per
    bin and feature, which costs more than the fit itself."""
    edges = []
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        if len(u) <= max_bins:
            edges.append((u[:-1] + u[1:]) / 2)
        else:
            q = np.linspace(0, 100, max_bins + 1)[1:-1]
            edges.append(np.unique(np.percentile(X[:, j], q, method="averaged_inverted_cdf")))
    return edges


def bin_codes(edges: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    """The bin index of each value of ``X`` (rows x features, integers): ``i`` when
    ``edges[j][i - 1] < x <= edges[j][i]`` (scikit-learn's convention)."""
    if not len(X):
        return np.zeros(np.shape(X), dtype=np.intp)
    # searched column by column in a transposed copy: a column of the row-major rows is strided
    cols = np.ascontiguousarray(np.asarray(X).T)
    out = np.empty((cols.shape[1], len(edges)), dtype=np.intp)
    for j, e in enumerate(edges):
        out[:, j] = np.searchsorted(e, cols[j], side="left")
    return out


def apply_bins(edges: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    """:func:`bin_codes` as floats: the rows a weighted stacker fit is given."""
    if not len(X):
        return np.asarray(X, dtype=np.float64)
    return bin_codes(edges, X).astype(np.float64)


def flat_codes(edges: list[np.ndarray], codes: np.ndarray) -> np.ndarray:
    """``codes`` (:func:`bin_codes` under ``edges``) as indices into the concatenation of one
    table per feature of ``len(edge) + 1`` entries (:func:`model_bins`): the same for every
    model read from ``edges``."""
    return codes + np.cumsum([0] + [len(e) + 1 for e in edges[:-1]])


def model_bins(model, edges: list[np.ndarray], codes: np.ndarray, flat: np.ndarray | None = None
               ) -> np.ndarray | None:
    """What ``model``'s bin mapper gives the rows whose :func:`bin_codes` under ``edges`` are
    ``codes`` (the model was fitted on such codes as floats, :func:`apply_bins`): per feature a
    table from our bin to the model's (scikit-learn maps ``x`` to the number of its thresholds
    below ``x``, so the table is that count for each bin index), read in one gather. The values
    of ``model._bin_mapper.transform(codes)``, rows x features ``uint8`` in row order (the trees
    read a row's features together), at about a fifth of its CPU: a bagged stacker's models each
    map the same rows. ``None`` (let :func:`binned_proba` decide) for a model without a bin mapper
    or with categorical features. ``flat``: :func:`flat_codes` of ``codes`` when already known
    (a bagged stacker's models share it)."""
    mapper = getattr(model, "_bin_mapper", None)
    if mapper is None or mapper.is_categorical_ is not None and np.any(mapper.is_categorical_):
        return None
    tables = [np.searchsorted(t, np.arange(len(e) + 1, dtype=np.float64), side="left").astype(np.uint8)
              for t, e in zip(mapper.bin_thresholds_, edges)]
    return np.concatenate(tables)[flat_codes(edges, codes) if flat is None else flat]


def sentence_features(sentences: list[list[PairScore]], groups: list[str] | None = None,
                      fixed: list[Fixed] | None = None) -> list[np.ndarray]:
    """:func:`context_features` of each sentence, with the corpus features read from the other
    sentences of its group (:class:`.corpus.CorpusStats`; ``groups`` default: one group);
    ``fixed``: each sentence's :func:`fixed_features` when already known."""
    corpus = CorpusStats(sentences, groups)
    if fixed is None:
        return [context_features(s, corpus, i) for i, s in enumerate(sentences)]
    return [context_features(s, corpus, i, f) for i, (s, f) in enumerate(zip(sentences, fixed, strict=True))]


#: A negative row (label 0) whose current probability (``p``, the first feature) is below this
#: is an easy negative (:func:`_sample`).
EASY_P = 0.02

#: Share of the easy negative rows a stacker fit keeps when positives are rare (:data:`RARE`),
#: each kept one weighted by the inverse of this share.
EASY_KEEP = 0.2

#: Positive rows below this share of a fit's rows are rare: only then are the easy negatives
#: sampled (a Wikidata-TekGen ontology's own training split: 0.3-0.4%; the fits on all of
#: DBpedia-WebNLG's training splits stay whole).
RARE = 0.01


def keep_rate(labels: list) -> float:
    """The share of easy negative rows the stacker fits on ``labels`` (per sentence, 0/1 per row)
    keep: :data:`EASY_KEEP` when the positive rows are under :data:`RARE` of all rows, else 1.0.

    Rare events (King and Zeng 2001, "Logistic regression in rare events data", Political
    Analysis 9(2)): what a classifier can learn is bounded by the rare class; the common class,
    sampled and weighted, keeps almost all of it while the fit's cost falls with its rows."""
    rows = sum(len(ls) for ls in labels)
    pos = sum(int(np.sum(ls)) for ls in labels)
    return EASY_KEEP if rows and pos < RARE * rows else 1.0


def _rng(stream: int, seed: int) -> np.random.Generator:
    """The generator of draw ``stream`` (0: the easy-negative sample; ``b``: bootstrap bag ``b``)
    of fit ``seed``: seed 0 seeds it with ``stream`` alone, another seed with the pair."""
    return np.random.default_rng(stream if not seed else (seed, stream))


def _sample(data: list[tuple[np.ndarray, np.ndarray]], keep: float, seed: int = 0
            ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each sentence's (rows, labels, weights) with the easy negatives (label 0, ``p`` below
    :data:`EASY_P`) sampled at rate ``keep`` and weighted by ``1 / keep``: the weighted log-loss
    of the sample is an unbiased estimate of the full one, so the probabilities stay calibrated
    (negative down-sampling with re-weighting: He et al. 2014, "Practical lessons from
    predicting clicks on ads at Facebook", ADKDD). Every positive row and every negative row at
    or above :data:`EASY_P` is kept with weight 1. ``keep`` 1.0: every row, weight 1.
    Deterministic: one generator of ``seed`` (:func:`_rng`) draws for the rows in order."""
    if keep >= 1.0:
        return [(X, y, np.ones(len(y))) for X, y in data]
    rng = _rng(0, seed)
    out = []
    for X, y in data:
        easy = (y == 0) & (X[:, 0] < EASY_P)
        kept = ~easy | (rng.random(len(y)) < keep)
        out.append((X[kept], y[kept], np.where(easy, 1.0 / keep, 1.0)[kept]))
    return out


def _fit_rows(data: list[tuple[np.ndarray, np.ndarray]], bags: int | None, keep: float = 1.0, seed: int = 0):
    """:func:`fit_stacker` on each sentence's (feature rows, labels), the easy negatives sampled
    at rate ``keep`` (:func:`_sample`); ``seed``: the fit's draws (:func:`_rng`; the gradient-boosted
    models' ``random_state``, which draws their binning subsample)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    data = [(X, y) for X, y in data if len(y)]
    y_all = np.concatenate([y for _, y in data]) if data else np.array([])
    if len(set(y_all.tolist())) < 2:
        return None
    rows = _sample(data, keep, seed)
    edges = None
    if keep < 1.0:  # weighted: the models are fitted on (and read) the rows' unweighted bins
        stacked = np.vstack([X for X, _, _ in rows])
        edges = bin_edges(stacked)
        # binned at once (the same values as sentence by sentence), then split back by sentence
        parts = np.split(apply_bins(edges, stacked), np.cumsum([len(y) for _, y, _ in rows])[:-1])
        rows = [(b, y, w) for b, (_, y, w) in zip(parts, rows)]

    def fit(X: np.ndarray, y: np.ndarray, w: np.ndarray):
        # one OpenMP thread: on a shared machine the threads' busy waits cost 50x the work itself
        with _one_thread():
            return HistGradientBoostingClassifier(**GBM, early_stopping=False, random_state=seed).fit(
                X, y, sample_weight=None if keep >= 1.0 else w)
    bags = BAGS if bags is None else bags
    if bags <= 1:
        model = fit(np.vstack([X for X, _, _ in rows]), np.concatenate([y for _, y, _ in rows]),
                    np.concatenate([w for _, _, w in rows]))
        return model if edges is None else Bagged([model], edges)
    models = []
    for b in range(bags):
        pick = _rng(b, seed).integers(0, len(rows), len(rows))
        y = np.concatenate([rows[i][1] for i in pick])
        if len(set(y.tolist())) < 2:
            continue
        models.append(fit(np.vstack([rows[i][0] for i in pick]), y, np.concatenate([rows[i][2] for i in pick])))
    return Bagged(models, edges) if models else None


def fit_stacker(sentences: list[list[PairScore]], labels: list[list[int]], bags: int | None = None,
                groups: list[str] | None = None):
    """A gradient-boosted classifier (scikit-learn ``HistGradientBoostingClassifier``, no early
    stopping) of ``labels`` (1: the pair with its chosen relation is a gold triple) from the
    :func:`context_features` of each training sentence's out-of-fold scored pairs (corpus
    features from the other sentences of its ``groups`` entry: :func:`sentence_features`); with
    ``bags`` > 1 (default :data:`BAGS`) the mean of up to ``bags`` such classifiers, each fitted
    on a bootstrap sample of the sentences (bag b drawn by :func:`_rng` b, seed 0; a sample whose labels
    are all one class is skipped).
    Returns ``None`` when the labels are all one class."""
    return _fit_rows([(X, np.array(ls)) for X, ls in zip(sentence_features(sentences, groups), labels)], bags,
                     keep_rate(labels))


def _apply(sentences: list[list[PairScore]], features: list[np.ndarray], stacker) -> list[list[PairScore]]:
    rows = [X for X, s in zip(features, sentences) if s]
    if not rows:
        return sentences
    with _one_thread():
        q = iter(stacker.predict_proba(np.vstack(rows))[:, 1].tolist())
    return [[_with_p(c, next(q)) for c in s] for s in sentences]


def _with_p(c: PairScore, p: float) -> PairScore:
    """``dataclasses.replace(c, p=p)`` without the generic path (``replace`` re-runs ``__init__``
    with every field; this copies the frozen record's fields and sets one: the same record,
    a few times faster, and a long text has hundreds of thousands of rows per stacking round)."""
    new = object.__new__(PairScore)
    new.__dict__.update(c.__dict__)
    new.__dict__["p"] = p
    return new


#: Stacking rounds (auto-context): with the corpus features a third round carries what the second
#: learned across sentences one step further.
ROUNDS = 3


def fit_stackers(sentences: list[list[PairScore]], labels: list[list[int]], folds: list[int],
                 rounds: int = ROUNDS, groups: list[str] | None = None, seed: int = 0) -> list:
    """``rounds`` stackers applied in turn (auto-context: a round's context features are computed
    from the previous round's probabilities). A round after the first learns from out-of-fold
    stacked scores: the previous round is fitted again on each fold's complement (``folds``: 0/1
    per sentence) and re-scores that fold. ``groups``: the corpus of each sentence (its
    ontology; :func:`sentence_features`); ``seed``: the fit's draws (:func:`_fit_rows`). Fewer
    models when a fit has a single class."""
    models: list = []
    keep = keep_rate(labels)
    fixed = [fixed_features(s) for s in sentences]  # a round changes the rows' p only
    for r in range(rounds):
        feats = sentence_features(sentences, groups, fixed)
        data = [(X, np.array(ls)) for X, ls in zip(feats, labels)]
        model = _fit_rows(data, None, keep, seed)
        if model is None:
            break
        models.append(model)
        if r + 1 == rounds:
            break
        nxt = list(sentences)
        for k in (0, 1):
            part = _fit_rows([d for d, f in zip(data, folds) if f != k], OOF_BAGS, keep, seed)
            if part is None:
                return models
            idx = [i for i, f in enumerate(folds) if f == k]
            for i, s in zip(idx, _apply([sentences[i] for i in idx], [feats[i] for i in idx], part)):
                nxt[i] = s
        sentences = nxt
    return models


def stack_labels(sentences: list[list[PairScore]], gold: list[list[str | None]]) -> list[list[int]]:
    """The stacker's label of each scored row: 1 when its pair is a gold pair and the row's
    relation is the gold one, else 0 (a gold pair written with another relation is a wrong
    triple, not a right one). ``gold``: per sentence, the gold relation (or ``None``) of each
    candidate pair, indexed by :attr:`.pair_score.PairScore.pair`."""
    return [[1 if g[c.pair] is not None and g[c.pair] == c.rel else 0 for c in s] for s, g in zip(sentences, gold)]


def restack(sentences: list[list[PairScore]], stacker, groups: list[str] | None = None,
            fixed: list[Fixed] | None = None) -> list[list[PairScore]]:
    """Each sentence's scored pairs with the stacked probability in place of the pair
    probability ``p`` (one batched prediction: a call per sentence costs more than the model);
    the corpus features from the other sentences of the same ``groups`` entry (default: all).
    ``fixed``: each sentence's :func:`fixed_features` when already known (the rows of an
    earlier round: the same pairs in the same order)."""
    return _apply(sentences, sentence_features(sentences, groups, fixed), stacker)


def cross_fitted_scores(ex, training, meta: list, Xm, y_bin: np.ndarray, y_rel: list, Sm, y_s: np.ndarray
                        ) -> list[list[PairScore]]:
    """Scored pairs of each training sentence by pair, relation and subject models fitted on
    the other fold only (out-of-fold scores, as a test sentence gets them); no fact memory.

    Args:
        ex: the :class:`.offline.OfflineExtractor` being fitted (its regularisation, subject
            weight and ``_assemble``).
        training: ``{ontology name: (ontology, sentences)}``.
        meta: per training sentence (ontology name, text, fold, pairs, first row in ``Xm``,
            subject rows in ``Sm`` by ``(start, end, value)``).
        Xm, y_bin, y_rel: pair feature rows, gold flags (0/1) and gold relations (or ``None``).
        Sm, y_s: subject feature rows and gold flags.
    Returns:
        one list of :class:`.pair_score.PairScore` per sentence (empty when a fold had one class),
        up to ``ex.relation_candidates`` rows per pair.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC
    row_fold = np.zeros(Xm.shape[0], int)
    s_fold = np.zeros(Sm.shape[0], int)
    for _, _, fold, pairs, start, s_rows in meta:
        row_fold[start:start + len(pairs)] = fold
        s_fold[list(s_rows.values())] = fold
    out: list[list[PairScore] | None] = [None] * len(meta)
    for k in (0, 1):
        tr, s_tr = row_fold != k, s_fold != k
        pos = np.flatnonzero(tr & (y_bin == 1))
        if len(set(y_bin[tr])) < 2 or len({y_rel[i] for i in pos}) < 2:
            continue
        binary = LogisticRegression(solver="liblinear", C=ex.c_binary, random_state=ex.seed).fit(Xm[tr], y_bin[tr])
        relation = LinearSVC(C=ex.c_relation, random_state=ex.seed).fit(Xm[pos], [y_rel[i] for i in pos])
        subject = LogisticRegression(solver="liblinear", C=ex.c_binary, random_state=ex.seed).fit(
            Sm[s_tr], y_s[s_tr]) if len(set(y_s[s_tr])) > 1 else None
        classes = [str(c) for c in relation.classes_]
        s_prob = subject.predict_proba(Sm)[:, 1] if subject is not None else None
        for n, (name, text, fold, pairs, start, s_rows) in enumerate(meta):
            if fold != k or not pairs:
                continue
            rows = Xm[start:start + len(pairs)]
            ps = np.ones(len(pairs))
            if s_prob is not None and ex.subject_weight:
                ps = np.array([s_prob[s_rows[(a.start, a.end, a.value)]]
                               if (a.start, a.end, a.value) in s_rows else 1.0 for a, _, _ in pairs]) ** ex.subject_weight
            onto = training[name][0]
            rels = ex.relations(onto)
            out[n] = ex._assemble(text, pairs, binary.predict_proba(rows)[:, 1], ps,
                                  relation.decision_function(rows), classes, rels, onto, False,
                                  ex.relation_candidates)
    return [o or [] for o in out]
