"""Entity resolution across IRI schemes: which KG entity is which reference entity, by content.

Two people who map the same data mint different IRIs for the same record, so an alignment by IRI
(:mod:`.align`) pairs nothing and every graph-layer score reads 0. This module aligns the entities
of a predicted KG with those of a reference KG by *what identifies them*, never by how their
IRIs are spelled, so that SA2-SA4, CM3 and the CQ answers can be computed through it.

**Features of an entity.** Its *description* is what its graph says of it:

* its classes (``rdf:type`` objects), as ``("type", C)``;
* its values, predicate-blind: each literal object (lexical form, whitespace-collapsed and
  case-folded, a numeral in one canonical decimal form, datatype and language tag ignored) and
  each IRI object that is not an entity of its graph, by its fragment or last path segment
  (percent-decoded). Values are predicate-blind because a mapper that picked the wrong property
  still describes the right record; whether the property is right is SA2's question;
* its links to entities already aligned, as ``("out", target)`` and ``("in", source)`` in the
  reference's names (predicate-blind for the same reason).

Its features are its description plus the *names in its own IRI* (:func:`iri_names`: the fragment
and the last path segment, where a subject template puts the record's key: ``.../country/BE``),
in the same space as values, so that a KG literal ``"BE"`` meets the reference's ``.../BE``.

**Identification.** For a candidate pair ``(e, g)`` let ``S`` be the features they share. The
pair is *identified* when

1. ``S`` holds a value or a link and no other reference entity holds every feature of ``S``: the
   shared values form a key of the reference data (a set of values unique to one entity, as
   found by key discovery: Symeonidou et al., *SAKey: Scalable almost key discovery in RDF data*,
   ISWC 2014); or
2. ``e`` and ``g`` have the same description, which says something, and no other reference
   entity has it; or
3. a declared key says so: ``e`` and ``g`` share a value of an ``owl:InverseFunctionalProperty``
   under that property, or share a class ``C`` with ``owl:hasKey (p1 ... pn)`` and a value for
   every ``pi`` under ``pi`` (OWL 2 Structural Specification, sections 9.2.8 and 9.5).

Across classes (neither side's classes related to the other's), a pair is identified only when
``S`` holds a value one of the graphs states: names in two IRIs alone (``.../zone/ZH`` and
``.../region/ZH``) identify nothing.

**Assignment.** The identified pairs are made one-to-one greedily, best first (the *unique
mapping clustering* of entity resolution: Böhm et al., *LINDA: distributed web-of-data-scale
entity matching*, CIKM 2012; Papadakis et al., *The Four Generations of Entity Resolution*, 2021),
ranked by (1) class agreement - a shared class or classes related by ``rdfs:subClassOf`` first,
then pairs where a side is untyped, then pairs whose classes differ, so entities are aligned per
class first and across classes only when the classes disagree; (2) a declared key; (3) the
IDF-weighted Jaccard similarity of the two feature sets, ``sum_{f in S} w(f) / sum_{f in F_e | F_g} w(f)``
with ``w(f) = log(1 + N / df(f))`` (``N`` entities of both KGs, ``df`` those holding ``f``; Cohen,
*WHIRL*, SIGMOD 1998); (4) the names, for a deterministic result. Greedy rather than Hungarian:
identified pairs rarely compete, and greedy is near-linear where a dense assignment is cubic.

**Rounds.** Entities whose IRI is an entity of both KGs are paired first (an IRI names one
resource in RDF). Then rounds of identification run (at most :data:`MAX_ROUNDS`), each with the
link features of the pairs found so far, so an entity with no value of its own (an event stream
that only lists its members) is found through its neighbours. When a round identifies nothing, one
*lenient* round also accepts reference entities that rules 1 and 2 leave ambiguous only between
duplicates - reference entities with one description, which score the same whichever is chosen -
and the certain rounds go on after it; a lenient round that adds nothing ends the alignment.
Duplicates are paired last because their links may still tell them apart.

**Cost.** Candidates of an entity come from an inverted index over features: its
:data:`BLOCK_FEATURES` rarest values, links or IRI names among those at most :data:`BLOCK_MAX`
entities of either KG hold (block purging: Papadakis et al., *Efficient entity resolution for
large heterogeneous information spaces*, WSDM 2011: a feature that common cannot single anything
out alone, and it still counts in ``S``), plus the reference entities with its exact description.
Each check visits at most ``BLOCK_MAX`` reference entities and is cached per shared set; each
graph is read once (:func:`.align.graph_triples`). Time and memory are linear in the triples plus
the candidate pairs.
"""
from __future__ import annotations

import logging
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable
from urllib.parse import unquote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF

from pipeline.rdflists import members as rdf_members
from pipeline.scoring.graph.align import Alignment, graph_triples
from pipeline.scoring.graph.hierarchy import Hierarchy
from pipeline.scoring.graph.values import canonical_number

__all__ = ["resolve_entities", "value_key", "iri_names", "DeclaredKeys", "declared_keys", "BLOCK_MAX", "BLOCK_FEATURES",
           "MAX_ROUNDS"]

log = logging.getLogger(__name__)

#: A feature held by more entities than this (on either side) generates no candidate pair.
BLOCK_MAX = 50
#: Candidates of an entity come from its this many rarest features (a KG value that is wrong in
#: the rarest ones still leaves the right candidate reachable through the others).
BLOCK_FEATURES = 3
#: Identification rounds after the IRI pass, at most (each adds the links of the pairs found so far).
MAX_ROUNDS = 8

Node = Any
Feature = Any
_WS = re.compile(r"\s+")


def value_key(text: str) -> str | None:
    """The predicate-blind key of a value: a numeral in one canonical decimal form (``"05"``,
    ``"5.0"`` and ``"5E0"`` are ``"5"``), any other text whitespace-collapsed and case-folded;
    ``None`` for an empty text."""
    text = _WS.sub(" ", text).strip()
    if not text:
        return None
    if text[0].isdigit() or text[0] in "+-.":
        n = canonical_number(text)
        if n is not None:
            return n
    return text.casefold()


#: value_key of repeated texts (a KG repeats its values: codes, booleans, classes of things)
_value_key = lru_cache(maxsize=1 << 16)(value_key)


def _segment(text: str) -> str | None:
    return value_key(unquote(text)) if text else None


def _tail(iri: str) -> str | None:
    """An IRI object's most specific name: its fragment, else its last path segment."""
    base, _, frag = iri.partition("#")
    return _segment(frag) or _segment(base.rstrip("/").rsplit("/", 1)[-1])


def iri_names(iri: str) -> set[str]:
    """The parts of an IRI where a subject template puts a record's key, as value keys: the
    fragment and the last path segment (``.../obs/6418.2022-02-01#Humidity`` gives
    ``"humidity"`` and ``"6418.2022-02-01"``), percent-decoded."""
    base, _, frag = iri.partition("#")
    last = base.rstrip("/").rsplit("/", 1)[-1] if "/" in base else base
    return {v for v in (_segment(frag), _segment(last)) if v is not None}


@dataclass(frozen=True)
class DeclaredKeys:
    """Keys an ontology declares: ``ifp`` inverse-functional properties; ``has_key`` class -> key
    property tuples (``owl:hasKey``)."""

    ifp: frozenset = frozenset()
    has_key: dict = field(default_factory=dict)


def declared_keys(ontology: Graph | None) -> DeclaredKeys:
    """The ``owl:InverseFunctionalProperty`` declarations and ``owl:hasKey`` axioms of ``ontology``
    (``None``: none). A malformed ``owl:hasKey`` list is skipped."""
    if ontology is None:
        return DeclaredKeys()
    ifp = frozenset(p for p in ontology.subjects(RDF.type, OWL.InverseFunctionalProperty) if isinstance(p, URIRef))
    keys: dict[Node, list[tuple]] = defaultdict(list)
    for c, lst in ontology.subject_objects(OWL.hasKey):
        props = tuple(p for p in rdf_members(ontology, lst) if isinstance(p, URIRef))
        if props:
            keys[c].append(props)
    return DeclaredKeys(ifp, dict(keys))


class _Side:
    """One KG's entities and what describes them: values, classes, (property, value) pairs, links
    to other entities, and the names in their own IRIs."""

    def __init__(self, g: Graph, with_pv: bool = False) -> None:
        triples = graph_triples(g)
        self.entities: set[Node] = {s for s, _, _ in triples if isinstance(s, (URIRef, BNode))}
        self.types: dict[Node, set] = defaultdict(set)
        self.values: dict[Node, set] = defaultdict(set)       # predicate-blind value keys
        self.pv: dict[Node, set] = defaultdict(set)           # (property, value key), kept for declared keys
        self.names: dict[Node, frozenset] = {}                 # the value keys in the entity's own IRI
        self.edges: list[tuple[Node, Node]] = []               # entity -> entity links
        rdf_type, entities = RDF.type, self.entities
        for s, p, o in triples:
            if s not in entities:
                continue
            if p == rdf_type:
                self.types[s].add(o)
                continue
            if isinstance(o, Literal):
                v = _value_key(str(o))
            elif o in entities:
                self.edges.append((s, o))
                continue
            elif isinstance(o, URIRef):
                v = _tail(str(o))
            else:
                v = None                                       # a blank node that says nothing
            if v is not None:
                self.values[s].add(v)
                if with_pv:
                    self.pv[s].add((p, v))
        for e in entities:
            if isinstance(e, URIRef):
                self.names[e] = frozenset(iri_names(str(e)))

    def description(self, e: Node, links: dict[Node, set]) -> frozenset:
        """What the graph says about ``e``: values, ``("type", C)`` and links (not its own IRI)."""
        return frozenset((*self.values.get(e, ()), *(("type", c) for c in self.types.get(e, ())),
                          *links.get(e, ())))


def _links(side: _Side, name: dict[Node, Node]) -> dict[Node, set]:
    """``entity -> {("out", target), ("in", source)}`` for neighbours that have a (reference) name."""
    out: dict[Node, set] = defaultdict(set)
    for s, o in side.edges:
        if o in name:
            out[s].add(("out", name[o]))
        if s in name:
            out[o].add(("in", name[s]))
    return out


def _is_type(f: Feature) -> bool:
    return isinstance(f, tuple) and f[0] == "type"


def _says_something(fs: frozenset) -> bool:
    return any(not _is_type(f) for f in fs)


class _Round:
    """Descriptions, features, postings and document frequencies of one identification round."""

    def __init__(self, pred: _Side, gold: _Side, pairs: dict[Node, Node]) -> None:
        lp, lg = _links(pred, pairs), _links(gold, {g: g for g in pairs.values()})
        self.dp = {e: pred.description(e, lp) for e in pred.entities}
        self.dg = {g: gold.description(g, lg) for g in gold.entities}
        self.names_p = pred.names
        self.fg = {g: d | gold.names.get(g, frozenset()) for g, d in self.dg.items()}
        self.post_p: dict[Feature, list] = defaultdict(list)
        self.post_g: dict[Feature, list] = defaultdict(list)
        self.by_desc: dict[frozenset, list] = defaultdict(list)   # gold description -> gold entities
        for e, fs in self.dp.items():
            for f in fs | self.names_p.get(e, frozenset()):
                self.post_p[f].append(e)
        for g, fs in self.fg.items():
            for f in fs:
                self.post_g[f].append(g)
            self.by_desc[self.dg[g]].append(g)
        self.n = len(self.dp) + len(self.fg)
        self._cache: dict[frozenset, tuple[bool, bool]] = {}
        self._weights: dict[Feature, float] = {}

    def weight(self, f: Feature) -> float:
        w = self._weights.get(f)
        if w is None:
            w = self._weights[f] = math.log(1.0 + self.n / (len(self.post_p.get(f, ())) + len(self.post_g.get(f, ()))))
        return w

    def features(self, e: Node) -> frozenset:
        """The features of predicted entity ``e``: its description and the names in its IRI."""
        return self.dp[e] | self.names_p.get(e, frozenset())

    def candidates(self, e: Node, fe: frozenset, free_g: set) -> set:
        """Free gold entities that share one of the :data:`BLOCK_FEATURES` rarest features of ``e``
        (among those at most :data:`BLOCK_MAX` entities of either KG hold), or describe ``e`` exactly."""
        usable = [(len(pg), f) for f in fe if not _is_type(f)
                  for pg in [self.post_g.get(f, ())] if 0 < len(pg) <= BLOCK_MAX and len(self.post_p[f]) <= BLOCK_MAX]
        out: set = set()
        for _n, f in sorted(usable, key=lambda x: (x[0], str(x[1])))[:BLOCK_FEATURES]:
            out.update(x for x in self.post_g[f] if x in free_g)
        if _says_something(self.dp[e]):
            out.update(x for x in self.by_desc.get(self.dp[e], ()) if x in free_g)
        return out

    def singles_out(self, shared: frozenset, lenient: bool) -> bool:
        """True when one gold entity holds every feature of ``shared`` - or, ``lenient``, when the
        gold entities that do all have one description (interchangeable duplicates)."""
        hit = self._cache.get(shared)
        if hit is None:
            rarest = min(shared, key=lambda f: len(self.post_g.get(f, ())))
            holders = [x for x in self.post_g.get(rarest, ()) if shared <= self.fg[x]]
            hit = self._cache[shared] = (len(holders) <= 1, len({self.dg[x] for x in holders}) <= 1)
        return hit[1] if lenient else hit[0]

    def describes_exactly(self, de: frozenset, g: Node, lenient: bool) -> bool:
        """True when ``g`` has the description ``de`` and (unless ``lenient``) no other gold entity has it."""
        return self.dg[g] == de and (lenient or len(self.by_desc[de]) == 1)

    def jaccard(self, a: frozenset, b: frozenset) -> float:
        inter = sum(self.weight(f) for f in a & b)
        union = sum(self.weight(f) for f in a | b)
        return inter / union if union else 0.0


def _class_rank(h: Hierarchy, tp: set, tg: set) -> int:
    """2 = a shared or hierarchy-related class, 1 = a side untyped, 0 = classes that differ."""
    if not tp or not tg:
        return 1
    if tp & tg:
        return 2
    anc_p = set().union(*(h.ancestors(c) for c in tp))
    anc_g = set().union(*(h.ancestors(c) for c in tg))
    return 2 if (anc_p & tg) or (anc_g & tp) else 0


def _declared(keys: DeclaredKeys, pred: _Side, gold: _Side, e: Node, g: Node) -> bool:
    if not keys.ifp and not keys.has_key:
        return False
    shared = pred.pv.get(e, set()) & gold.pv.get(g, set())
    if any(p in keys.ifp for p, _ in shared):
        return True
    props = {p for p, _ in shared}
    for c in pred.types.get(e, set()) & gold.types.get(g, set()):
        if any(all(p in props for p in key) for key in keys.has_key.get(c, ())):
            return True
    return False


def _identify(rnd: _Round, pred: _Side, gold: _Side, h: Hierarchy, keys: DeclaredKeys,
              free_p: Iterable[Node], free_g: set, lenient: bool) -> list[tuple[tuple, Node, Node]]:
    """The identified candidate pairs of free entities, each with its ranking key (module docstring);
    ``lenient`` also pairs with one of several interchangeable reference entities."""
    out = []
    for e in free_p:
        fe, de = rnd.features(e), rnd.dp[e]
        for g in rnd.candidates(e, fe, free_g):
            fg, dg = rnd.fg[g], rnd.dg[g]
            shared = fe & fg
            classes = _class_rank(h, pred.types.get(e, set()), gold.types.get(g, set()))
            declared = _declared(keys, pred, gold, e, g)
            if not declared:
                if classes == 0 and not _says_something(shared & (de | dg)):
                    continue    # across classes, a match of IRI names alone identifies nothing
                if not (rnd.describes_exactly(de, g, lenient)
                        or (_says_something(shared) and rnd.singles_out(shared, lenient))):
                    continue
            out.append(((classes, declared, round(rnd.jaccard(fe, fg), 9)), e, g))
    return out


def resolve_entities(pred: Graph, gold: Graph, ontology: Any = None) -> Alignment:
    """Align the entities of ``pred`` with those of ``gold`` by IRI, then by content (module docstring).

    Args:
        pred: the KG to score; gold: the reference KG.
        ontology: ontology graph (or an object with ``.graph``) for class hierarchy and declared
            keys (``owl:hasKey``, ``owl:InverseFunctionalProperty``); ``None``: data only.
    Returns:
        An :class:`~pipeline.scoring.graph.align.Alignment` whose ``by_iri`` pairs share an IRI
        and ``by_content`` pairs were identified by content; ``rounds`` in its details. Never
        raises on data.
    """
    t0 = time.perf_counter()
    og = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
    h, keys = Hierarchy(og), declared_keys(og)
    with_pv = bool(keys.ifp or keys.has_key)
    ps, gs = _Side(pred, with_pv), _Side(gold, with_pv)
    al = Alignment(method="content")
    for e in ps.entities & gs.entities:
        if isinstance(e, URIRef):
            al.pairs[e] = e
    al.by_iri = len(al.pairs)
    rnd: _Round | None = None
    lenient = False
    for _ in range(MAX_ROUNDS):
        used = set(al.pairs.values())
        free_p = sorted((e for e in ps.entities if e not in al.pairs), key=str)
        free_g = {g for g in gs.entities if g not in used}
        if not free_p or not free_g:
            break
        if rnd is None:  # rebuilt only when pairs were added (their links are new features)
            rnd = _Round(ps, gs, al.pairs)
        found = _identify(rnd, ps, gs, h, keys, free_p, free_g, lenient)
        found.sort(key=lambda x: (-x[0][0], -x[0][1], -x[0][2], str(x[1]), str(x[2])))
        added = 0
        for _rank, e, g in found:
            if e in al.pairs or g in used:
                continue
            al.pairs[e] = g
            used.add(g)
            added += 1
        if added:
            al.by_content += added
            al.rounds += 1
            rnd, lenient = None, False
        elif lenient:
            break
        else:
            lenient = True  # nothing more is certain: pair with interchangeable duplicates, then go on
    al.unmatched_pred = sorted(ps.entities - set(al.pairs), key=str)
    al.unmatched_gold = sorted(gs.entities - set(al.pairs.values()), key=str)
    log.info("content alignment: %d pairs (%d by IRI, %d by content, %d rounds) of %d / %d entities in %.2f s",
             len(al.pairs), al.by_iri, al.by_content, al.rounds, len(ps.entities), len(gs.entities),
             time.perf_counter() - t0)
    return al
