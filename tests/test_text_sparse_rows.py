"""The offline extractor's feature dicts vectorized without ``DictVectorizer``'s per-value type
dispatch (:mod:`pipeline.text.sparse_rows`) give the vectorizer's own results exactly (issue 28):
the same fitted vocabulary, the same sparse matrix (values, column indices and their types, row
starts, sorted indices, explicit zeros), and the vectorizer's own path for any value that is
not an ``int``, ``float`` or ``bool``."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.feature_extraction import DictVectorizer

from pipeline.text import sparse_rows
from pipeline.text.features import sentence_pairs
from pipeline.text.entity_types import TypeGuesser
from pipeline.text.mentions import Lexicon


def _same(ours, theirs) -> None:
    assert type(ours) is type(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert ours.indices.dtype == theirs.indices.dtype and ours.indptr.dtype == theirs.indptr.dtype
    assert ours.indptr.tolist() == theirs.indptr.tolist()
    assert ours.indices.tolist() == theirs.indices.tolist()
    assert ours.data.tobytes() == theirs.data.tobytes()  # bit for bit, explicit zeros included
    assert ours.has_sorted_indices and theirs.has_sorted_indices


#: rows with ints, floats (0.0 kept explicitly, a negative, a fraction), a bool, names in
#: several orders, an empty row, and a name no fit saw (the last row)
ROWS = [{"order": 1.0, "B:of": 1, "SA:CAP": 1, "a_first": 0.0, "dist=2": 1},
        {"SA:CAP": 1, "order": -1.0, "cross_sentence": True, "x": 0.125},
        {},
        {"dist=2": 1, "B:of": 1, "TA:person": 1, "order": 1.0},
        {"unseen": 1, "order": -1.0, "a_first": 1.0}]


def test_fitted_gives_the_vectorizers_vocabulary():
    ours, theirs = sparse_rows.fitted(ROWS[:4]), DictVectorizer().fit(ROWS[:4])
    assert ours.feature_names_ == theirs.feature_names_ == [
        "B:of", "SA:CAP", "TA:person", "a_first", "cross_sentence", "dist=2", "order", "x"]
    assert list(ours.vocabulary_.items()) == list(theirs.vocabulary_.items())
    assert ours.get_params() == theirs.get_params()


def test_transform_gives_the_vectorizers_matrix():
    vec = DictVectorizer().fit(ROWS[:4])
    ours, theirs = sparse_rows.transform(vec, ROWS), vec.transform(ROWS)
    _same(ours, theirs)
    # row 0: its five values at their sorted columns, the explicit 0.0 of a_first kept
    assert ours.indptr.tolist() == [0, 5, 9, 9, 13, 15]
    assert ours.indices[:5].tolist() == [0, 1, 3, 5, 6]
    assert ours.data[:5].tolist() == [1.0, 1.0, 0.0, 1.0, 1.0]
    assert ours.data[5:9].tolist() == [1.0, 1.0, -1.0, 0.125]  # SA:CAP, cross_sentence, order, x
    assert ours.data[13:].tolist() == [1.0, -1.0]  # "unseen" left out


def test_transform_after_restrict_leaves_out_the_restricted_features():
    vec = DictVectorizer().fit(ROWS[:4])
    vec.restrict(np.array([True, False, True, False, True, True, False, True]))
    ours = sparse_rows.transform(vec, ROWS)
    _same(ours, vec.transform(ROWS))
    assert ours.shape == (5, 5)
    assert ours.indptr.tolist() == [0, 2, 4, 4, 7, 7]


def test_fit_then_transform_is_the_vectorizers_fit_transform():
    vec = sparse_rows.fitted(ROWS)
    ours, theirs = sparse_rows.transform(vec, ROWS), DictVectorizer().fit_transform(ROWS)
    # fit_transform reindexes its columns (64-bit indices); the offline extractor casts both to 32 bits
    assert ours.indptr.tolist() == theirs.indptr.tolist() and ours.indices.tolist() == theirs.indices.tolist()
    assert ours.data.tobytes() == theirs.data.tobytes()


@pytest.mark.parametrize("odd", [{"shape": "CAP"}, {"n": np.float64(2.0)}, {"n": None}])
def test_a_value_of_another_type_takes_the_vectorizers_own_path(odd):
    rows = ROWS[:2] + [odd]
    vec = sparse_rows.fitted(rows)
    theirs = DictVectorizer().fit(rows)
    assert vec.feature_names_ == theirs.feature_names_
    if "shape" in odd:
        assert "shape=CAP" in vec.feature_names_  # a string value names the feature name=value
    _same(sparse_rows.transform(vec, rows), theirs.transform(rows))


def test_no_rows_raise_as_the_vectorizer_does():
    vec = DictVectorizer().fit(ROWS)
    with pytest.raises(ValueError, match="empty"):
        sparse_rows.transform(vec, [])


def test_real_pair_features_give_the_vectorizers_matrix():
    """The pair features of two sentences (every pair), as the offline extractor vectorizes them."""
    sents = ["Aaron Boogaard was born in Calgary, Canada in 1986.", "The Alan Bean film was released in 2004."]
    lex = Lexicon.learn([(sents[0], ["Aaron Boogaard", "Calgary"]), (sents[1], ["Alan Bean"])])
    rows = [f for s in sents for _, _, f in sentence_pairs(s, {"birthPlace"}, lex, {}, TypeGuesser())]
    assert len(rows) > 10
    vec = sparse_rows.fitted(rows[:8])
    assert vec.feature_names_ == DictVectorizer().fit(rows[:8]).feature_names_
    _same(sparse_rows.transform(vec, rows), vec.transform(rows))
    assert isinstance(sparse_rows.transform(vec, rows), sparse.csr_matrix)
