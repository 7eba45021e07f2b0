"""Graph-layer scores of a predicted KG against the gold KG.

Entry points: :func:`score_graph` (everything at once), or the single
measures :func:`.assertions.sa2`, :func:`.assertions.sa3`,
:func:`.assertions.sa4`, :mod:`.quality` (CN1-CN3, CN5, CM2, CM3) and
:func:`.cq.score_cqs` (PQ1-PQ6). Each returns :class:`pipeline.validation.result.Result`.

Every measure that depends on which KG entity is which gold entity is computed twice, side by
side: through the IRI and source-key alignment (:func:`.align.align_entities`: right when both
KGs mint IRIs from the same scheme or the subject templates are known) and through the content
alignment (:func:`.resolution.resolve_entities`: classes, keys and values, whatever IRIs either
KG mints). The second set carries the suffix ``-aligned`` (:data:`ALIGNED_NAMES`).
"""
from __future__ import annotations

import copy
import logging
import time
from typing import Any, Iterable, Mapping

from rdflib import Graph

from pipeline.validation.result import Result
from pipeline.scoring.graph.align import (Alignment, align_entities, forget_graph, keys_from_local_names,
                                          keys_from_templates, term_key)
from pipeline.scoring.graph.assertions import sa2, sa3, sa4
from pipeline.scoring.graph.cq import CompetencyQuestion, answer_cqs, load_competency_questions, score_cqs
from pipeline.scoring.graph.quality import cm3, conciseness_completeness
from pipeline.scoring.graph.resolution import resolve_entities

__all__ = ["score_graph", "ALIGNED_NAMES", "resolve_entities", "Alignment", "align_entities", "keys_from_local_names", "keys_from_templates", "term_key", "sa2", "sa3", "sa4",
           "conciseness_completeness", "CompetencyQuestion", "load_competency_questions", "score_cqs"]

log = logging.getLogger(__name__)

#: Measure computed through the IRI/key alignment -> its name through the content alignment.
ALIGNED_NAMES = {"SA2-type-exact": "SA2-type-aligned", "SA2-type-hier": "SA2-type-hier-aligned",
                 "SA2-prop-exact": "SA2-prop-aligned", "SA2-prop-hier": "SA2-prop-hier-aligned",
                 "SA3": "SA3-aligned", "SA4": "SA4-aligned", "CM3": "CM3-aligned",
                 **{f"PQ{i}": f"PQ{i}-aligned" for i in range(1, 7)}}


def score_graph(pred: Graph, gold: Graph | None, ontology: Any = None, *,
                cqs: Iterable[CompetencyQuestion] = (), pred_keys: Mapping | None = None,
                gold_keys: Mapping | None = None, consistent: bool | None = None,
                regime: str = "rdfs") -> dict[str, Result]:
    """All graph-level scores of ``pred`` against ``gold``.

    Args:
        pred: the materialized KG; gold: the gold KG (``None``: only gold-free measures
            are computed, the others are not applicable).
        ontology: ontology (+ SKOS) graph or ``pipeline.ontology.Ontology``.
        cqs: competency questions (:func:`load_competency_questions`).
        pred_keys, gold_keys: ``entity -> source key values`` for alignment
            (e.g. from :func:`keys_from_templates`).
        consistent: the CS2 verdict on ``pred`` (``False`` makes SA3 = 0).
        regime: SA3's reasoning regime (``rdfs`` or ``owl-rl``).
    Returns:
        ``{name: Result}`` with SA2-type-exact/-hier, SA2-prop-exact/-hier, SA3, SA4,
        CN1, CN2, CN3, CN5, CM2, CM3 and PQ1-PQ6 through the IRI/key alignment, and the same
        alignment-dependent measures through the content alignment under the names of
        :data:`ALIGNED_NAMES` (SA2-type-aligned, SA2-prop-aligned, SA3-aligned, SA4-aligned,
        CM3-aligned, PQ1-aligned ...). ``"alignment"`` details sit in SA2-type-exact and
        SA2-type-aligned.
    """
    t0 = time.perf_counter()
    og = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
    try:
        out = _all_measures(pred, gold, og, list(cqs), pred_keys, gold_keys, consistent, regime)
    finally:
        forget_graph(pred, gold)    # the KG lives on in the run; what scoring read of it need not
    log.info("graph scores: %d measures in %.2f s", len(out), time.perf_counter() - t0)
    return out


def _all_measures(pred: Graph, gold: Graph | None, og: Graph | None, cqs: list, pred_keys: Mapping | None,
                  gold_keys: Mapping | None, consistent: bool | None, regime: str) -> dict[str, Result]:
    out: dict[str, Result] = {}
    if gold is None:
        for name in ("SA2-type-exact", "SA2-type-hier", "SA2-prop-exact", "SA2-prop-hier", "SA3", "SA4"):
            out[name] = Result.not_applicable(name, "no gold KG")
        out.update(conciseness_completeness(pred, None, og, None, pred_keys, gold_keys))
        for name in ("PQ1", "PQ2", "PQ3", "PQ4", "PQ5", "PQ6"):
            out[name] = Result.not_applicable(name, "no gold KG")
        if cqs:  # nothing to score against, but the questions are still answered on the KG (a decision aid)
            per_cq, found = answer_cqs(pred, cqs)
            out["PQ3"].findings.extend(found)
            out["PQ3"].details = {"per_cq": per_cq, "not_scored": [q["id"] for q in per_cq
                                                                   if q["status"] == "not_scored"]}
        out.update({aligned: Result.not_applicable(aligned, "no gold KG") for aligned in ALIGNED_NAMES.values()})
        return out
    al = align_entities(pred, gold, pred_keys, gold_keys)
    by_iri = _aligned_measures(pred, gold, og, al, cqs, regime, consistent)
    quality = conciseness_completeness(pred, gold, og, al, pred_keys, gold_keys, population=False)
    for name in by_iri:  # the historical order: SA2, SA3, SA4, CN1-CN5, CM2, CM3, PQ
        if name == "CM3":
            out.update(quality)
        out[name] = by_iri[name]
    content = resolve_entities(pred, gold, og)
    if content.pairs == al.pairs:
        # the same pairs give the same figures: copied, not recomputed (a large KG is scored once)
        again = {name: copy.deepcopy(r) for name, r in by_iri.items()}
    else:
        again = _aligned_measures(pred, gold, og, content, cqs, regime, consistent)
    for name, r in again.items():
        r.name = ALIGNED_NAMES[name]
        if "alignment" in r.details:
            r.details["alignment"] = content.to_dict()
        out[r.name] = r
    return out


def _aligned_measures(pred: Graph, gold: Graph, og: Graph | None, al: Alignment, cqs: list, regime: str,
                      consistent: bool | None) -> dict[str, Result]:
    """The measures that depend on the entity alignment ``al`` (the keys of :data:`ALIGNED_NAMES`)."""
    out: dict[str, Result] = dict(sa2(pred, gold, og, al))
    out["SA3"] = sa3(pred, gold, og, al, regime=regime, consistent=consistent)
    out["SA4"] = sa4(pred, gold, al)
    out["CM3"] = cm3(pred, gold, al)
    out.update(score_cqs(pred, gold, cqs, og, al))
    return out
