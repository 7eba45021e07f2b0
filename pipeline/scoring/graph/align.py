"""Entity alignment between a predicted and a gold KG, and value-level term comparison.

Entities are the IRIs and blank nodes that occur as subjects of a KG.
Alignment is one-to-one and proceeds in two passes:

1. **By IRI** - a predicted entity whose IRI is also a gold entity is aligned
   with it.
2. **By source key values** - the remaining entities are aligned when they were
   generated from the same source key values (the values that filled their
   subject template, e.g. ``("CRTM",)`` for ``ex:agency/{agency_id}``). The
   caller passes ``entity -> key tuple`` mappings (e.g. from the materializer's
   provenance); :func:`keys_from_templates` computes them from the subject
   templates of the predicted and gold mapping tables. Candidates with equal
   keys are paired by a maximum-weight one-to-one assignment (Hungarian,
   ``scipy.optimize.linear_sum_assignment``) whose weight is
   ``1 + Jaccard(types_pred, types_gold)``, so that ``ex:person/10`` pairs with
   the gold ``Person`` keyed ``10`` rather than the gold ``Sport`` keyed ``10``.
   Only entities sharing a key are candidates: each connected component of that
   bipartite graph is solved alone (a unique key pairs directly), so the cost is
   O(n log n) for the sorts plus the components' own size, never an n x n matrix.

Literals are compared by value (:func:`.values.term_key`, the one definition of "the same
value": ``"9.5"^^xsd:decimal`` equals ``"9.50"^^xsd:decimal``).
"""
from __future__ import annotations

import re
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import unquote

import numpy as np
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD
from scipy.optimize import linear_sum_assignment

from pipeline.scoring.graph.values import term_key

__all__ = ["keys_from_local_names", "Alignment", "align_entities", "keys_from_templates", "term_key", "entities_of",
           "graph_triples", "graph_memo", "forget_graph", "key_set"]

Node = Any


#: Graphs read by :func:`graph_triples`: ``id(graph) -> [weak reference, size, triples, memo]``.
_READ: dict[int, list] = {}
#: Graphs kept read at once (a KG, its gold, and a renamed copy or two).
_READ_MAX = 4


def _read(g: Graph) -> list:
    hit = _READ.get(id(g))
    if hit is not None and hit[0]() is g and hit[1] == len(g):
        return hit
    while len(_READ) >= _READ_MAX:
        del _READ[next(iter(_READ))]
    key = id(g)

    def gone(ref: weakref.ref) -> None:  # a freed graph takes what was read from it along
        if _READ.get(key, [None])[0] is ref:
            del _READ[key]

    hit = _READ[key] = [weakref.ref(g, gone), len(g), list(g), {}]
    return hit


def forget_graph(*graphs: Graph) -> None:
    """Drop what :func:`graph_triples` and :func:`graph_memo` keep of ``graphs`` (a scorer calls it
    when done, so a KG that lives on does not keep its scoring structures alive)."""
    for g in graphs:
        hit = _READ.get(id(g))
        if hit is not None and hit[0]() is g:
            del _READ[id(g)]


def graph_triples(g: Graph | Iterable[tuple]) -> list[tuple] | Iterable[tuple]:
    """The triples of ``g`` as a list, read once while ``g`` keeps its size (rdflib's iterator costs
    microseconds a triple and every measure reads both KGs); anything else is returned as it is."""
    return _read(g)[2] if isinstance(g, Graph) else g


def graph_memo(g: Graph, key: str, make: Callable[[list[tuple]], Any]) -> Any:
    """``make(graph_triples(g))``, computed once per graph and ``key`` while ``g`` keeps its size.
    The result is shared: callers must not change it."""
    memo = _read(g)[3]
    if key not in memo:
        memo[key] = make(_read(g)[2])
    return memo[key]


def entities_of(g: Graph) -> set[Node]:
    """Subjects of ``g`` that are IRIs or blank nodes (computed once per graph, see :func:`graph_memo`)."""
    return graph_memo(g, "entities", lambda ts: {s for s, _, _ in ts if isinstance(s, (URIRef, BNode))})


def _types(g: Graph, e: Node) -> set:
    return set(g.objects(e, RDF.type))


def key_set(k: Any) -> frozenset[tuple[str, ...]]:
    """A value of a ``pred_keys``/``gold_keys`` mapping (a key, a tuple of key values, or a set of such
    tuples: a colliding IRI may carry several) as a set of key tuples, values trimmed; empty for ``None``."""
    if k is None:
        return frozenset()
    if isinstance(k, (str, int, float)):
        return frozenset({(str(k).strip(),)})
    if isinstance(k, (set, frozenset, list)) and k and all(isinstance(x, tuple) for x in k):
        return frozenset(tuple(str(v).strip() for v in x) for x in k)
    return frozenset({tuple(str(v).strip() for v in k)})


@dataclass
class Alignment:
    """A one-to-one alignment of predicted entities with gold entities.

    Attributes:
        pairs: predicted entity -> gold entity.
        method: how the pairs were found: ``"iri+key"`` (:func:`align_entities`) or ``"content"``
            (:func:`pipeline.scoring.graph.resolution.resolve_entities`).
        by_iri / by_key / by_content: number of pairs found by each pass.
        rounds: identification rounds run by the content alignment (0 for ``"iri+key"``).
        unmatched_pred / unmatched_gold: entities left unaligned, sorted.
        pred_keys / gold_keys: the normalised key sets used (entity -> set of key tuples).
    """

    pairs: dict[Node, Node] = field(default_factory=dict)
    method: str = "iri+key"
    by_iri: int = 0
    by_key: int = 0
    by_content: int = 0
    rounds: int = 0
    unmatched_pred: list[Node] = field(default_factory=list)
    unmatched_gold: list[Node] = field(default_factory=list)
    pred_keys: dict[Node, frozenset] = field(default_factory=dict)
    gold_keys: dict[Node, frozenset] = field(default_factory=dict)
    # the last graph renamed by `triples` (the measures of one KG share it): (graph, size, pairs, triples)
    _renamed: tuple | None = field(default=None, repr=False, compare=False)

    def triples(self, g: Graph) -> list[tuple[Node, Node, Node]]:
        """The triples of the predicted graph ``g`` with aligned entities renamed to their gold names
        (a list, without duplicates; computed once per graph and alignment)."""
        r = self._renamed
        if r is not None and r[0] is g and r[1] == len(g) and r[2] == len(self.pairs):
            return r[3]
        m = self.pairs
        out = list({(m.get(s, s), p, m.get(o, o) if not isinstance(o, Literal) else o) for s, p, o in graph_triples(g)})
        self._renamed = (g, len(g), len(self.pairs), out)
        return out

    def translate(self, g: Graph) -> Graph:
        """A copy of the predicted graph ``g`` with aligned entities renamed to their gold names."""
        out = Graph(bind_namespaces="none")
        for t in self.triples(g):
            out.add(t)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Counts and the unmatched entities (first 50 each) as a JSON-ready dict."""
        return {"method": self.method, "n_pairs": len(self.pairs), "by_iri": self.by_iri, "by_key": self.by_key,
                "by_content": self.by_content, "rounds": self.rounds,
                "n_unmatched_pred": len(self.unmatched_pred), "n_unmatched_gold": len(self.unmatched_gold),
                "unmatched_pred": [str(x) for x in self.unmatched_pred[:50]],
                "unmatched_gold": [str(x) for x in self.unmatched_gold[:50]]}


def align_entities(pred: Graph, gold: Graph, pred_keys: Mapping[Node, Any] | None = None,
                   gold_keys: Mapping[Node, Any] | None = None) -> Alignment:
    """Align predicted entities with gold entities: by IRI, then by source key values.

    Args:
        pred, gold: the two KGs.
        pred_keys, gold_keys: optional ``entity -> key`` mappings; a key is a tuple of
            source values (or one value, or a set of tuples for an entity generated
            from several keys). Entities without a key take part in the IRI pass only.
    Returns:
        The :class:`Alignment` (never raises on data).
    """
    pe, ge = entities_of(pred), entities_of(gold)
    al = Alignment()
    for e in pe & ge:
        if isinstance(e, URIRef):
            al.pairs[e] = e
    al.by_iri = len(al.pairs)
    al.pred_keys = {e: key_set(k) for e, k in (pred_keys or {}).items() if e in pe}
    al.gold_keys = {e: key_set(k) for e, k in (gold_keys or {}).items() if e in ge}
    rest_p = [e for e in sorted(pe - set(al.pairs), key=str) if al.pred_keys.get(e)]
    used = set(al.pairs.values())
    by_key: dict[tuple, list] = defaultdict(list)
    for e in sorted(ge - used, key=str):
        for k in al.gold_keys.get(e, ()):
            by_key[k].append(e)
    # bounded candidates: an entity pairs only with gold entities sharing a key; each connected
    # component of that bipartite graph is solved alone (a 1 x 1 component directly)
    for comp_p, comp_g in _components(rest_p, al.pred_keys, by_key):
        weights = {(e, g): _pair_weight(pred, gold, e, g) for e in comp_p for k in al.pred_keys[e]
                   for g in by_key.get(k, ())}
        if len(comp_p) == 1 and len(comp_g) == 1:
            chosen = list(weights)
        else:
            idx = {g: j for j, g in enumerate(comp_g)}
            row = {e: i for i, e in enumerate(comp_p)}
            w = np.zeros((len(comp_p), len(comp_g)))
            for (e, g), v in weights.items():
                w[row[e], idx[g]] = v
            rows, cols = linear_sum_assignment(w, maximize=True)
            chosen = [(comp_p[i], comp_g[j]) for i, j in zip(rows, cols) if w[i, j] > 0]
        for e, g in chosen:
            al.pairs[e] = g
            al.by_key += 1
    al.unmatched_pred = sorted(pe - set(al.pairs), key=str)
    al.unmatched_gold = sorted(ge - set(al.pairs.values()), key=str)
    return al


def _pair_weight(pred: Graph, gold: Graph, e: Node, g: Node) -> float:
    # 1 for a shared key, plus the Jaccard overlap of the two entities' classes
    tp, tg = _types(pred, e), _types(gold, g)
    union = tp | tg
    return 1.0 + (len(tp & tg) / len(union) if union else 0.0)


def _components(rest_p: list, pred_keys: Mapping[Node, Any], by_key: Mapping[tuple, list]) -> list[tuple[list, list]]:
    """Connected components of the bipartite graph entity -- gold entity sharing a key
    (union-find, near-linear in the number of edges); each as (sorted preds, sorted golds)."""
    parent: dict[Any, Any] = {}

    def find(x: Any) -> Any:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in rest_p:
        for k in pred_keys[e]:
            for g in by_key.get(k, ()):
                a, b = find(("p", e)), find(("g", g))
                if a != b:
                    parent[a] = b
    comps: dict[Any, tuple[list, list]] = {}
    for node in list(parent):
        side, x = node
        comps.setdefault(find(node), ([], []))[0 if side == "p" else 1].append(x)
    return sorted(((sorted(p, key=str), sorted(g, key=str)) for p, g in comps.values() if p and g),
                  key=lambda c: str(c[0][0]))


def _template_regex(template: str) -> tuple[re.Pattern, list[str]]:
    names: list[str] = []
    parts = re.split(r"(\{[^{}]*\})", template)
    rx = ""
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            names.append(part[1:-1])
            rx += "(.+?)"
        else:
            rx += re.escape(part)
    return re.compile(f"^{rx}$"), names


def keys_from_templates(g: Graph, templates: Iterable[str]) -> dict[Node, tuple[str, ...]]:
    """Source key values of the entities of ``g``, read back from subject templates.

    Args:
        g: a KG.
        templates: IRI templates with ``{column}`` placeholders, full IRIs
            (``http://example.org/person/{ID}``); the first template that matches an
            entity's IRI wins, the longest templates being tried first.
    Returns:
        ``entity -> tuple of percent-decoded placeholder values`` in template order.
    """
    compiled = [_template_regex(t) for t in sorted(set(templates), key=len, reverse=True)]
    out: dict[Node, tuple[str, ...]] = {}
    for e in entities_of(g):
        if not isinstance(e, URIRef):
            continue
        for rx, _names in compiled:
            m = rx.match(str(e))
            if m and m.groups():
                out[e] = tuple(unquote(v) for v in m.groups())
                break
    return out


def keys_from_local_names(g: Graph) -> dict[Node, tuple[str, ...]]:
    """Fallback source keys when the templates that minted a KG's IRIs are unknown.

    A gold KG given as a file (BLINKG scenario 1's ``expected-graph.nt``) may name the same
    records with another IRI scheme than the table (``ex:Venus`` vs ``ex:person/Venus``). The
    key of an entity is then its sorted ``rdf:type`` IRIs plus the percent-decoded last
    segment of its IRI (after the last ``/`` or ``#``), which is where templates put the key
    values; the classes keep entities of different kinds that share a record key apart. Use
    it on both sides, so that keys compare like with like.

    Returns:
        ``entity -> (class IRI, ..., last segment)`` for every typed IRI entity of ``g``.
    """
    out: dict[Node, tuple[str, ...]] = {}
    for e in entities_of(g):
        if isinstance(e, URIRef):
            segment = re.split(r"[/#]", str(e).rstrip("/#"))[-1]
            types = sorted(str(t) for t in g.objects(e, RDF.type))
            if segment and types:
                out[e] = (*types, unquote(segment))
    return out
