"""Feature dicts as the sparse rows of scikit-learn's ``DictVectorizer``, without its per-value
type dispatch.

``DictVectorizer.fit`` and ``transform`` ask of every value whether it is a string, a
``numbers.Number`` (an abstract base class: a slow ``isinstance``), a mapping or an iterable, and
``transform`` boxes each value as a numpy scalar. The offline extractor's feature dicts
(:func:`.features.pair_features`, :func:`.features.subject_features`) hold numbers only (``int``,
``float``, ``bool``), tens of them for each of hundreds of thousands of candidate pairs per fit,
and that dispatch was most of the vectorizer's CPU. :func:`fitted` and :func:`transform` give
the same vectorizer and the same matrices, reading the values in bulk; any other value is left to
the vectorizer's own code.
"""
from __future__ import annotations

from itertools import chain, repeat
from typing import Any, Mapping

import numpy as np
from scipy import sparse

__all__ = ["fitted", "transform"]

#: The value types read here; a row with any other value is left to the vectorizer.
_NUMBERS = frozenset((int, float, bool))


def _numbers_only(rows: list[Mapping[str, Any]]) -> bool:
    """Every row a ``dict`` and every value an ``int``, ``float`` or ``bool``."""
    types: set[type] = set()
    for row in rows:
        if type(row) is not dict:
            return False
        types.update(map(type, row.values()))
    return types <= _NUMBERS


def fitted(rows: list[Mapping[str, Any]]):
    """``DictVectorizer().fit(rows)``: a vectorizer whose features are the names of ``rows``
    (sorted, as the vectorizer sorts them). When every value is an ``int``, ``float`` or ``bool``
    the names are those of the rows' keys, so the vectorizer is fitted on one row holding each
    name once (the same ``feature_names_`` and ``vocabulary_``); otherwise on ``rows`` (a string
    value names the feature ``name=value``).

    Raises:
        the vectorizer's own errors (a mapping as a value)."""
    from sklearn.feature_extraction import DictVectorizer
    if not _numbers_only(rows):
        return DictVectorizer().fit(rows)
    names: set[str] = set()
    for row in rows:
        names.update(row)
    return DictVectorizer().fit([dict.fromkeys(names, 1)])


def transform(vectorizer: Any, rows: list[Mapping[str, Any]]):
    """``vectorizer.transform(rows)`` of a fitted ``DictVectorizer`` (``sparse=True``, the
    default): when every value of ``rows`` is an ``int``, ``float`` or ``bool``, the same CSR
    matrix built from the vectorizer's vocabulary (rows x ``len(vectorizer.feature_names_)``, its
    ``dtype``, each row's values in the row's order, then its column indices sorted as the
    vectorizer sorts them; explicit zeros kept; features outside the vocabulary left out) and the
    same sparse kind (scikit-learn's ``sparse_interface``). Other values (a string, which the
    vectorizer one-hot encodes as ``name=value``, ``None``, an iterable), rows that are not
    ``dict``, a dense vectorizer, or no rows: the vectorizer's own ``transform`` (its result, its
    errors).

    Args:
        vectorizer: a fitted ``sklearn.feature_extraction.DictVectorizer``.
        rows: one ``{feature name: value}`` per row.
    Returns:
        a ``scipy.sparse`` CSR matrix or array, as the vectorizer's ``transform`` returns it.
    """
    if not rows or not getattr(vectorizer, "sparse", True) or not _numbers_only(rows):
        return vectorizer.transform(rows)
    # every row's names and values in the rows' order, read by C loops (map, chain)
    col = np.fromiter(map(vectorizer.vocabulary_.get, chain.from_iterable(rows), repeat(-1)), dtype=np.intp)
    values = np.fromiter(chain.from_iterable(map(dict.values, rows)), dtype=vectorizer.dtype, count=len(col))
    keep = col >= 0  # a feature the vocabulary lacks (unseen in the fit, or restricted away)
    per_row = np.bincount(np.repeat(np.arange(len(rows)), list(map(len, rows)))[keep], minlength=len(rows))
    indptr = [0, *np.cumsum(per_row).tolist()]
    # the vectorizer's own construction, step by step (a csr_array of the values, 32-bit column
    # indices and a list of row starts, whose index types scipy chooses; its indices sorted; the
    # kind scikit-learn is set to return)
    m = sparse.csr_array((values[keep], col[keep].astype(np.intc), indptr),
                         shape=(len(rows), len(vectorizer.feature_names_)), dtype=vectorizer.dtype)
    m.sort_indices()
    return m if _sparse_interface() == "sparray" else sparse.csr_matrix(m)


def _sparse_interface() -> str:
    """The kind of sparse result scikit-learn is set to return (``sparse_interface``; before it
    had the setting, a matrix)."""
    from sklearn import get_config
    return get_config().get("sparse_interface", "spmatrix")
