"""Graph-layer scores of a predicted KG against the gold KG.

Entry points: :func:`score_graph` (everything at once), or the single
measures :func:`.assertions.sa2`, :func:`.assertions.sa3`,
:func:`.assertions.sa4`, :mod:`.quality` (CN1-CN3, CN5, CM2, CM3) and
:func:`.cq.score_cqs` (PQ1-PQ6). Each returns :class:`pipeline.validation.result.Result`.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Iterable, Mapping

from rdflib import Graph

from pipeline.validation.result import Result
from pipeline.scoring.graph.align import Alignment, align_entities, keys_from_local_names, keys_from_templates, term_key
from pipeline.scoring.graph.assertions import sa2, sa3, sa4
from pipeline.scoring.graph.cq import CompetencyQuestion, load_competency_questions, score_cqs
from pipeline.scoring.graph.quality import conciseness_completeness

__all__ = ["score_graph", "Alignment", "align_entities", "keys_from_local_names", "keys_from_templates", "term_key", "sa2", "sa3", "sa4",
           "conciseness_completeness", "CompetencyQuestion", "load_competency_questions", "score_cqs"]

log = logging.getLogger(__name__)


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
        CN1, CN2, CN3, CN5, CM2, CM3 and PQ1-PQ6; ``"alignment"`` details sit in SA2-type-exact.
    """
    t0 = time.perf_counter()
    og = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
    out: dict[str, Result] = {}
    if gold is None:
        for name in ("SA2-type-exact", "SA2-type-hier", "SA2-prop-exact", "SA2-prop-hier", "SA3", "SA4"):
            out[name] = Result.not_applicable(name, "no gold KG")
        out.update(conciseness_completeness(pred, None, og, None, pred_keys, gold_keys))
        for name in ("PQ1", "PQ2", "PQ3", "PQ4", "PQ5", "PQ6"):
            out[name] = Result.not_applicable(name, "no gold KG")
        return out
    al = align_entities(pred, gold, pred_keys, gold_keys)
    out.update(sa2(pred, gold, og, al))
    out["SA3"] = sa3(pred, gold, og, al, regime=regime, consistent=consistent)
    out["SA4"] = sa4(pred, gold, al)
    out.update(conciseness_completeness(pred, gold, og, al, pred_keys, gold_keys))
    out.update(score_cqs(pred, gold, list(cqs), og, al))
    log.info("graph scores: %d measures in %.2f s", len(out), time.perf_counter() - t0)
    return out
