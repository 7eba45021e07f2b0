"""Cell similarity for mapping-table scoring (BLINKG section 3.3).

A predicted cell ``p`` is *correct* against a gold cell ``g`` when

    sim(p, g) = max( lev(p, g), cos(E(p), E(g)), cos(E(V(p)), E(V(g))) ) >= tau

with ``lev`` the normalised Levenshtein similarity ``1 - d(p, g) / max(|p|, |g|)``,
``E`` the sentence embedding (:mod:`pipeline.embeddings`, all-MiniLM-L6-v2),
and ``V`` the verbalisation of an ontology term (its label and comment,
:meth:`pipeline.ontology.Ontology.verbalise`). ``V`` is only used for term
columns and only when *both* cells expand to IRIs described in the ontology
graph (BLINKG's ``get_property_lexicalization`` likewise falls back to the raw
value). ``tau`` = 0.8 by default. Subject Generation cells must in addition reference the same
columns/paths (:mod:`.subject`): a template is judged by the entities it identifies.

Differences from the BLINKG scripts (``citiususc/blinkg``, ``evaluate.py``):
they embed with all-mpnet-base-v2 and strip a namespace shared by both values
before comparing; here the packaged all-MiniLM-L6-v2 is used (no download at
run time) and values are compared as written (the post-processed setting of
:mod:`.postprocess` is where prefixes are normalised). When embeddings are
unavailable (no torch) only ``lev`` is used and :attr:`CellSimilarity.method`
says so.
"""
from __future__ import annotations

import logging
from typing import Sequence

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from pipeline import embeddings
from pipeline.ontology import Ontology

__all__ = ["DEFAULT_TAU", "CellSimilarity", "levenshtein_similarity"]

log = logging.getLogger(__name__)

#: Default correctness threshold (BLINKG section 3.3).
DEFAULT_TAU = 0.8


def levenshtein_similarity(a: str, b: str) -> float:
    """Normalised Levenshtein similarity ``1 - d(a, b) / max(|a|, |b|)`` in [0, 1] (1.0 for two empty strings)."""
    return float(Levenshtein.normalized_similarity(a, b))


class CellSimilarity:
    """Similarity of table cells, with caches; one instance per scoring call.

    Args:
        ontology: used to verbalise term cells; ``None`` disables the verbalised component.
        tau: correctness threshold in [0, 1].
        use_embeddings: ask for embeddings; they are used only if :func:`pipeline.embeddings.available`.
    """

    def __init__(self, ontology: Ontology | None = None, tau: float = DEFAULT_TAU,
                 use_embeddings: bool = True) -> None:
        self.ontology = ontology
        self.tau = float(tau)
        self.embeddings_used = bool(use_embeddings) and embeddings.available()
        if use_embeddings and not self.embeddings_used:
            log.warning("sentence embeddings unavailable: cell similarity degrades to Levenshtein only")
        self._verbal: dict[str, str | None] = {}

    @property
    def method(self) -> str:
        """Human-readable description of the similarity actually used."""
        if not self.embeddings_used:
            return "levenshtein only (embeddings unavailable or disabled)"
        verbal = ", cosine of verbalised ontology terms" if self.ontology is not None else ""
        return f"max(levenshtein, cosine of {embeddings.MODEL_NAME} embeddings{verbal})"

    def verbalise(self, text: str) -> str | None:
        """Label/comment text of the ontology term written as ``text``; ``None`` when it is no described term."""
        if self.ontology is None or not text:
            return None
        if text not in self._verbal:
            out = None
            try:
                iri = self.ontology.expand(text)
                if iri is not None and (iri, None, None) in self.ontology.graph:
                    out = self.ontology.verbalise(iri)
            except Exception as exc:  # rdflib may choke on odd IRIs; never raise while scoring
                log.debug("cannot verbalise %r: %s", text, exc)
            self._verbal[text] = out
        return self._verbal[text]

    def matrix(self, preds: Sequence[str | None], golds: Sequence[str | None], *,
               terms: bool = False) -> np.ndarray:
        """Pairwise similarities.

        Args:
            preds: predicted cells (``None`` = empty).
            golds: gold cells (``None`` = empty).
            terms: the cells hold ontology terms (adds the verbalised component).
        Returns:
            ``float64`` array ``(len(preds), len(golds))`` in [0, 1]; identical
            texts give exactly 1.0, two empty cells 1.0, one empty cell 0.0.
        """
        n, m = len(preds), len(golds)
        out = np.zeros((n, m), dtype=np.float64)
        if n == 0 or m == 0:
            return out
        p_txt = ["" if p is None else str(p) for p in preds]
        g_txt = ["" if g is None else str(g) for g in golds]
        out = process.cdist(p_txt, g_txt, scorer=Levenshtein.normalized_similarity,
                            dtype=np.float64, workers=1)
        if self.embeddings_used:
            out = np.maximum(out, self._cosines(p_txt, g_txt))
            if terms and self.ontology is not None:
                pv = [self.verbalise(t) for t in p_txt]
                gv = [self.verbalise(t) for t in g_txt]
                rows = [i for i, v in enumerate(pv) if v]
                cols = [j for j, v in enumerate(gv) if v]
                if rows and cols:
                    cv = self._cosines([pv[i] or "" for i in rows], [gv[j] or "" for j in cols])
                    out[np.ix_(rows, cols)] = np.maximum(out[np.ix_(rows, cols)], cv)
        p_none = np.array([p is None for p in preds])
        g_none = np.array([g is None for g in golds])
        equal = np.array([[a == b for b in g_txt] for a in p_txt], dtype=bool)
        out = np.clip(out, 0.0, 1.0)
        out[equal] = 1.0
        out[np.logical_xor.outer(p_none, g_none)] = 0.0
        out[np.logical_and.outer(p_none, g_none)] = 1.0
        return out

    def best(self, pred: str | None, gold_alternatives: Sequence[str | None], *, terms: bool = False) -> float:
        """Highest similarity of ``pred`` to any gold alternative (0.0 when there is none).

        Short-circuits: when the Levenshtein similarity already reaches ``tau`` that value is
        returned without embedding (the correctness decision is the same; the value may be
        lower than the full maximum).
        """
        return self.best_many([(pred, gold_alternatives)], terms=terms)[0]

    def best_many(self, items: Sequence[tuple[str | None, Sequence[str | None]]], *,
                  terms: bool = False) -> list[float]:
        """:meth:`best` for many ``(pred, gold_alternatives)`` items, embedding all texts in one batch.

        Returns:
            One similarity in [0, 1] per item, in order.
        """
        out: list[float] = []
        pending: list[int] = []
        for k, (pred, golds) in enumerate(items):
            golds = list(golds)
            if not golds:
                out.append(0.0)
                continue
            lev = max(1.0 if (pred is None and g is None) else 0.0 if (pred is None or g is None)
                      else levenshtein_similarity(str(pred), str(g)) for g in golds)
            out.append(lev)
            if lev < self.tau and self.embeddings_used and pred is not None:
                pending.append(k)
        if pending:
            texts = {str(items[k][0]) for k in pending}
            texts |= {str(g) for k in pending for g in items[k][1] if g is not None}
            if terms:
                texts |= {v for v in (self.verbalise(t) for t in list(texts)) if v}
            self._prefetch(sorted(texts))  # one batch; the calls below hit the cache
            for k in pending:
                out[k] = float(self.matrix([items[k][0]], list(items[k][1]), terms=terms).max())
        return out

    def correct(self, pred: str | None, gold_alternatives: Sequence[str | None], *, terms: bool = False) -> bool:
        """``best(pred, gold_alternatives) >= tau`` (BLINKG section 3.3)."""
        return self.best(pred, gold_alternatives, terms=terms) >= self.tau

    def _prefetch(self, texts: Sequence[str]) -> None:
        try:
            embeddings.embed(list(texts))
        except embeddings.EmbeddingsUnavailableError as exc:
            log.warning("embeddings failed (%s); cell similarity degrades to Levenshtein only", exc)
            self.embeddings_used = False

    def _cosines(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        try:
            va = embeddings.embed(list(a))
            vb = embeddings.embed(list(b))
        except embeddings.EmbeddingsUnavailableError as exc:
            log.warning("embeddings failed (%s); cell similarity degrades to Levenshtein only", exc)
            self.embeddings_used = False
            return np.zeros((len(a), len(b)))
        return np.asarray(va @ vb.T, dtype=np.float64)
