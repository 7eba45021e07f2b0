"""Hierarchy-aware credit (hscore) and maximum-weight one-to-one matching.

``hscore(pred, gold)`` gives partial credit when the prediction is a
super-term of the gold term (a superclass, a superproperty, a broader SKOS
concept), in proportion to how much of the gold term's ancestry it covers::

    hscore(p, g) = 1                      if p == g
                 = |Anc(p)| / |Anc(g)|    if p is in Anc(g)  (p is more general)
                 = 0                      otherwise (more specific, sibling, unrelated)

where ``Anc(t)`` is the reflexive-transitive closure of ``rdfs:subClassOf``,
``rdfs:subPropertyOf`` and ``skos:broader`` over named terms, without
``owl:Thing``/``rdfs:Resource``. (The KG-quality benchmark's hierarchy-aware variant of
SA2: "partial credit for a superclass / superproperty".) Several
assertions per entity are paired by a maximum-weight one-to-one matching
(Kuhn-Munkres; ``scipy.optimize.linear_sum_assignment``).
"""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, Callable, Hashable, Sequence

import numpy as np
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDFS, SKOS
from scipy.optimize import linear_sum_assignment

__all__ = ["Hierarchy", "max_weight_matching", "DENSE_LIMIT"]

log = logging.getLogger(__name__)

_TOP = {OWL.Thing, RDFS.Resource, OWL.topObjectProperty, OWL.topDataProperty}


class Hierarchy:
    """Ancestor sets of ontology terms and the :func:`hscore` between them.

    Args:
        ontology: ontology (+ SKOS) graph, an object with ``.graph``, or ``None``
            (then every term is only its own ancestor and hscore is exact match).
    """

    def __init__(self, ontology: Any = None) -> None:
        g = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
        self.graph: Graph = g if g is not None else Graph()
        self._anc = lru_cache(maxsize=None)(self._ancestors)

    def _ancestors(self, term: Any) -> frozenset:
        out = {term}
        todo = [term]
        while todo:
            t = todo.pop()
            for pred in (RDFS.subClassOf, RDFS.subPropertyOf, SKOS.broader):
                for sup in self.graph.objects(t, pred):
                    if isinstance(sup, URIRef) and sup not in out and sup not in _TOP:
                        out.add(sup)
                        todo.append(sup)
        return frozenset(out)

    def ancestors(self, term: Any) -> frozenset:
        """Reflexive-transitive named ancestors of ``term`` (without top terms)."""
        return self._anc(term)

    def is_hierarchical(self, term: Any) -> bool:
        """True when ``term`` has a strict ancestor or is one (it takes part in a hierarchy)."""
        if len(self.ancestors(term)) > 1:
            return True
        return any(True for pred in (RDFS.subClassOf, RDFS.subPropertyOf, SKOS.broader)
                   for _ in self.graph.subjects(pred, term))

    def hscore(self, pred: Any, gold: Any) -> float:
        """Credit in [0, 1] for predicting ``pred`` where the gold has ``gold`` (module docstring)."""
        if pred == gold:
            return 1.0
        anc_g = self.ancestors(gold)
        if pred in anc_g:
            return len(self.ancestors(pred)) / len(anc_g)
        return 0.0


#: Largest pred x gold weight matrix solved densely (cells); a larger block is left unmatched (logged).
DENSE_LIMIT = 4_000_000


def max_weight_matching(preds: Sequence[Hashable], golds: Sequence[Hashable],
                        weight: Callable[[Any, Any], float], block: Callable[[Any], Hashable] | None = None,
                        dense_limit: int = DENSE_LIMIT) -> tuple[float, list[tuple[Any, Any, float]]]:
    """Maximum-weight one-to-one matching between two lists.

    Bounded candidates: with ``block``, only items with the same ``block(item)`` are compared
    (the caller guarantees weight 0 across blocks, so the optimum is the sum of the blocks'
    optima) and each block is solved alone with Kuhn-Munkres
    (``scipy.optimize.linear_sum_assignment``). A block of more than ``dense_limit`` cells is
    not solved: it adds nothing (a lower bound) and a warning is logged.

    Args:
        preds, golds: items to pair (either may be empty).
        weight: ``weight(pred, gold)`` in [0, 1].
        block: optional key that separates items that cannot pair.
        dense_limit: largest ``len(block preds) * len(block golds)`` solved.
    Returns:
        ``(total weight, [(pred, gold, weight), ...])`` for pairs with weight > 0.
    """
    if not preds or not golds:
        return 0.0, []
    groups: dict[Hashable, tuple[list, list]] = {}
    for p in preds:
        groups.setdefault(block(p) if block else None, ([], []))[0].append(p)
    for g in golds:
        groups.setdefault(block(g) if block else None, ([], []))[1].append(g)
    pairs: list[tuple[Any, Any, float]] = []
    for ps, gs in groups.values():
        if not ps or not gs:
            continue
        if len(ps) * len(gs) > dense_limit:
            log.warning("matching: a block of %d x %d items is over the limit of %d cells and left unmatched",
                        len(ps), len(gs), dense_limit)
            continue
        w = np.array([[weight(p, g) for g in gs] for p in ps], dtype=float)
        rows, cols = linear_sum_assignment(w, maximize=True)
        pairs += [(ps[i], gs[j], float(w[i, j])) for i, j in zip(rows, cols) if w[i, j] > 0]
    return float(sum(x[2] for x in pairs)), pairs
