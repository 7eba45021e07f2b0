"""SA2-SA4: assertion-level accuracy of a predicted KG against the gold KG.

Definitions (the KG-quality benchmark's SA2-SA4; all after entity alignment,
:mod:`.align`, with predicted entities renamed to their gold names):

* **SA2 type / property assertion P/R/F1.** Type assertions are ``(e, C)`` for
  ``e rdf:type C``; property assertions are ``(e, p, o)`` for every other
  triple, objects compared by value (:func:`.align.term_key`). Per subject
  ``e``, predicted and gold assertions are paired one-to-one by maximum
  weight; ``TP = sum of pair weights``, ``P = TP / #predicted``,
  ``R = TP / #gold``, ``F1 = 2PR/(P+R)``. *Exact*: weight 1 for identical
  assertions. *Hierarchy-aware*: weight ``hscore(C_pred, C_gold)`` for types,
  ``hscore(p_pred, p_gold)`` for properties with the same object
  (:mod:`.hierarchy`). Identical pairs are taken first, which is optimal for
  this hscore, then the rest is matched with the Hungarian method.
* **SA3 entailment-aware P/R/F1.** ``P = |{a in A_pred : Cl(G_gold + O) |= a}| / |A_pred|``,
  ``R = |{a in A_gold : Cl(G_pred + O) |= a}| / |A_gold|``, where ``A`` are the
  type and property assertions and ``Cl`` is the closure under the reasoning
  regime: ``rdfs`` (rules rdfs2, rdfs3, rdfs7, rdfs9 with the transitive
  subclass/subproperty closure, computed here) or ``owl-rl`` (owlrl). An
  inconsistent predicted KG scores P = R = F1 = 0.
* **SA4 entity-centred neighbourhood accuracy.** For every gold entity and every
  unaligned predicted entity, the one-hop neighbourhood
  ``N(e) = {(p, o) : e p o} | {(p^-1, s) : s p e}`` (including ``rdf:type``);
  aligned entities score the F1 of ``N_pred`` vs ``N_gold``, unaligned ones 0;
  SA4 is the macro-average over those entities.
"""
from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from typing import Any, Callable, Iterable

import owlrl
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS

from pipeline.findings import Finding
from pipeline.validation.result import Result, prf
from pipeline.scoring.graph.align import Alignment, align_entities, entities_of, graph_memo, graph_triples, term_key
from pipeline.scoring.graph.hierarchy import Hierarchy, max_weight_matching

#: rdf:type, looked up once (rdflib resolves namespace attributes on every access)
_TYPE = RDF.type

__all__ = ["sa2", "sa3", "sa4", "rdfs_closure"]

log = logging.getLogger(__name__)


def _for_gold(gold: Graph, key: str, make: Callable[[], Any], owner: Any = None) -> Any:
    """``make()`` computed once per gold graph (both alignments of one KG are scored against the
    same gold: its assertions, closure and neighbourhoods are built once) and per ``owner``
    (the ontology a closure depends on)."""
    hit = graph_memo(gold, f"assertions-{key}", lambda _triples: [owner, make()])
    if hit[0] is not owner:
        hit[:] = [owner, make()]
    return hit[1]


def _assertions_by_subject(triples: Iterable[tuple]) -> dict[str, dict[Any, list]]:
    """SA2's assertions per subject: ``{"type": {s: [C]}, "prop": {s: [(p, term_key(o))]}}``."""
    out: dict[str, dict[Any, list]] = {"type": defaultdict(list), "prop": defaultdict(list)}
    rdf_type = _TYPE
    for s, p, o in triples:
        if p == rdf_type:
            out["type"][s].append(o)
        else:
            out["prop"][s].append((p, term_key(o)))
    return out


def _ctx(pred: Graph, gold: Graph, alignment: Alignment | None) -> tuple[list[tuple], Alignment]:
    """The predicted triples renamed through the alignment (default: by IRI), and the alignment."""
    al = alignment if alignment is not None else align_entities(pred, gold)
    return al.triples(pred), al


def _match_sets(p_items: list, g_items: list, weight: Any) -> float:
    """Exact pairs first, then a max-weight matching of the rest (weight in [0, 1])."""
    g_left = list(g_items)
    p_left = []
    pool = defaultdict(int)
    for x in g_left:
        pool[x] += 1
    tp = 0.0
    for x in p_items:
        if pool.get(x, 0) > 0:
            pool[x] -= 1
            tp += 1.0
        else:
            p_left.append(x)
    g_rest = [x for x, n in pool.items() for _ in range(n)]
    if weight is not None and p_left and g_rest:
        tp += max_weight_matching(p_left, g_rest, weight)[0]
    return tp


def _score(name: str, tp: float, n_pred: int, n_gold: int, extra: dict | None = None,
           elapsed: float = 0.0) -> Result:
    p, r, f = prf(tp, n_pred, n_gold)
    if n_gold == 0:
        return Result.not_applicable(name, "the gold KG has no such assertions")
    details = {"precision": p, "recall": r, "f1": f, "tp": tp, "n_pred": n_pred, "n_gold": n_gold}
    details.update(extra or {})
    return Result(name, f, details=details, elapsed_s=elapsed)


def sa2(pred: Graph, gold: Graph, ontology: Any = None, alignment: Alignment | None = None) -> dict[str, Result]:
    """SA2 type and property assertion P/R/F1, exact and hierarchy-aware.

    Args:
        pred, gold: predicted and gold KGs.
        ontology: ontology graph (or ``.graph`` object) for the hierarchy; ``None``:
            hierarchy-aware equals exact.
        alignment: entity alignment; default :func:`.align.align_entities` by IRI only.
    Returns:
        ``{"SA2-type-exact", "SA2-type-hier", "SA2-prop-exact", "SA2-prop-hier"}`` ->
        :class:`Result` with ``value`` = F1 and ``details`` precision, recall, tp,
        n_pred, n_gold. Not applicable when the gold has no such assertions.
    """
    t0 = time.perf_counter()
    tpred, al = _ctx(pred, gold, alignment)
    h = Hierarchy(ontology)
    out: dict[str, Result] = {}
    by_p = _assertions_by_subject(tpred)
    by_g = _for_gold(gold, "sa2", lambda: _assertions_by_subject(graph_triples(gold)))
    for kind in ("type", "prop"):
        per_p, per_g = by_p[kind], by_g[kind]
        n_pred = sum(len(v) for v in per_p.values())
        n_gold = sum(len(v) for v in per_g.values())
        if kind == "type":
            hw = h.hscore
        else:
            def hw(a: tuple, b: tuple) -> float:
                return h.hscore(a[0], b[0]) if a[1] == b[1] else 0.0
        for mode, weight in (("exact", None), ("hier", hw)):
            tp = sum(_match_sets(per_p[s], per_g.get(s, []), weight) for s in per_p)
            out[f"SA2-{kind}-{mode}"] = _score(f"SA2-{kind}-{mode}", tp, n_pred, n_gold,
                                               {"alignment": al.to_dict()} if mode == "exact" else None,
                                               time.perf_counter() - t0)
    return out


def rdfs_closure(g: Graph | Iterable[tuple], ontology: Any = None) -> set[tuple]:
    """Entailed assertions of ``g`` (a graph or its triples) under the RDFS rules used by SA3.

    Returns:
        ``{(s, p, term_key(o))}`` including ``g``'s own assertions, types inherited
        through ``rdfs:subClassOf``, values through ``rdfs:subPropertyOf`` and types
        from ``rdfs:domain``/``rdfs:range`` (rdfs2, rdfs3, rdfs7, rdfs9; RDF 1.1
        Semantics section 9.2.1). Literals get no types.
    """
    h = Hierarchy(ontology)
    og = h.graph
    dom: dict[Any, set] = {}
    rng: dict[Any, set] = {}
    out: set[tuple] = set()
    for s, p, o in graph_triples(g):
        if p == _TYPE:
            for c in h.ancestors(o):
                out.add((s, _TYPE, c))
            continue
        for q in h.ancestors(p):
            out.add((s, q, term_key(o)))
            if q not in dom:
                dom[q] = {c for d in og.objects(q, RDFS.domain)
                          if isinstance(d, URIRef) for c in h.ancestors(d)}
                rng[q] = {c for d in og.objects(q, RDFS.range)
                          if isinstance(d, URIRef) for c in h.ancestors(d)}
            out.update((s, _TYPE, c) for c in dom[q])
            if not isinstance(o, Literal):
                out.update((o, _TYPE, c) for c in rng[q])
    return out


def _owlrl_entailed(g: Graph | Iterable[tuple], ontology: Any) -> tuple[set[tuple], bool]:
    work = Graph(bind_namespaces="none")
    for t in g:
        work.add(t)
    og = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
    for t in (og if og is not None else ()):
        work.add(t)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(work)
    err = URIRef("http://www.daml.org/2002/03/agents/agent-ont#error")
    consistent = next(iter(work.objects(None, err)), None) is None
    return {(s, p, term_key(o)) for s, p, o in work}, consistent


def sa3(pred: Graph, gold: Graph, ontology: Any = None, alignment: Alignment | None = None, *,
        regime: str = "rdfs", consistent: bool | None = None) -> Result:
    """SA3 entailment-aware precision/recall/F1 (definition in the module docstring).

    Args:
        pred, gold: KGs; ontology: schema graph for the closure.
        alignment: entity alignment (default by IRI).
        regime: ``"rdfs"`` (fast, computed here) or ``"owl-rl"`` (owlrl; also detects
            inconsistency).
        consistent: the predicted KG's CS2 verdict when known; ``False`` forces 0.
    Returns:
        ``Result("SA3", F1)`` with precision, recall, counts and the regime in details;
        not applicable when the gold KG has no assertions; ``failed`` for an unknown regime.
    """
    t0 = time.perf_counter()
    if regime not in ("rdfs", "owl-rl"):
        return Result("SA3", None, status="failed",
                      findings=[Finding(severity="error",
                                        message=f"unknown regime {regime!r} (allowed: rdfs, owl-rl)")])
    tpred, al = _ctx(pred, gold, alignment)
    a_pred = {(s, p, term_key(o)) for s, p, o in tpred}
    a_gold = _for_gold(gold, "sa3", lambda: {(s, p, term_key(o)) for s, p, o in graph_triples(gold)})
    if not a_gold:
        return Result.not_applicable("SA3", "the gold KG has no assertions")
    if regime == "rdfs":
        cl_gold = _for_gold(gold, "sa3-rdfs", lambda: rdfs_closure(gold, ontology), owner=ontology)
        cl_pred = rdfs_closure(tpred, ontology)
    else:
        cl_gold = _for_gold(gold, "sa3-owl-rl", lambda: _owlrl_entailed(gold, ontology)[0], owner=ontology)
        cl_pred, ok = _owlrl_entailed(tpred, ontology)
        consistent = ok if consistent is None else (consistent and ok)
    details: dict[str, Any] = {"regime": regime, "n_pred": len(a_pred), "n_gold": len(a_gold),
                               "alignment": al.to_dict(), "consistent": consistent}
    if consistent is False:
        details.update(precision=0.0, recall=0.0, f1=0.0, tp_pred=0, tp_gold=0)
        return Result("SA3", 0.0, details=details, elapsed_s=time.perf_counter() - t0,
                      findings=[Finding(severity="error", message="the predicted KG is inconsistent: SA3 = 0",
                                        code="inconsistent")])
    tp_p = len(a_pred & cl_gold)
    tp_g = len(a_gold & cl_pred)
    p = tp_p / len(a_pred) if a_pred else None
    r = tp_g / len(a_gold)
    f = 0.0 if p is None or p + r == 0 else 2 * p * r / (p + r)
    details.update(precision=p, recall=r, f1=f, tp_pred=tp_p, tp_gold=tp_g)
    return Result("SA3", f, details=details, elapsed_s=time.perf_counter() - t0)


def _neighbourhoods(g: Graph | Iterable[tuple]) -> dict[Any, set]:
    n: dict[Any, set] = defaultdict(set)
    for s, p, o in graph_triples(g):
        n[s].add((p, term_key(o)))
        if not isinstance(o, Literal):
            n[o].add((("inverse", p), s))
    return n


def sa4(pred: Graph, gold: Graph, alignment: Alignment | None = None) -> Result:
    """SA4 entity-centred neighbourhood accuracy (definition in the module docstring).

    Returns:
        ``Result("SA4", macro-average F1)``; ``details``: ``n_entities`` (gold entities +
        unaligned predicted ones), ``n_aligned``, ``per_entity`` (first 100, IRI -> F1).
        Not applicable when the gold KG has no entities.
    """
    t0 = time.perf_counter()
    tpred, al = _ctx(pred, gold, alignment)
    gold_e = entities_of(gold)
    if not gold_e:
        return Result.not_applicable("SA4", "the gold KG has no entities")
    aligned = set(al.pairs.values())
    np_, ng = _neighbourhoods(tpred), _for_gold(gold, "sa4", lambda: _neighbourhoods(gold))
    scores: dict[Any, float] = {}
    for e in gold_e:
        if e not in aligned:
            scores[e] = 0.0
            continue
        a, b = np_.get(e, set()), ng.get(e, set())
        inter = len(a & b)
        scores[e] = 2 * inter / (len(a) + len(b)) if a or b else 1.0
    for e in al.unmatched_pred:
        scores[e] = 0.0
    value = math.fsum(scores.values()) / len(scores)  # exactly rounded: the same figure in any set order
    worst = sorted(scores.items(), key=lambda kv: (kv[1], str(kv[0])))[:100]
    details = {"n_entities": len(scores), "n_aligned": len(aligned & gold_e),
               "n_unmatched_pred": len(al.unmatched_pred), "n_unmatched_gold": len(al.unmatched_gold),
               "per_entity": {str(k): v for k, v in worst}}
    return Result("SA4", value, details=details, elapsed_s=time.perf_counter() - t0)
