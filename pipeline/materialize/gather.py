"""RML-CC collections and containers (kg-construct RML-CC, https://w3id.org/rml/cc/spec), beside the engine.

A *gather map* (``rml:gather ( term maps )``, ``rml:gatherAs rdf:List|rdf:Bag|rdf:Seq|rdf:Alt``)
makes, per iteration, one collection or container of the terms its term maps yield, in their
order (strategy ``rml:append``; with ``rml:cartesianProduct`` one per combination of one term
of each, none when one yields nothing). Morph-KGC has no gather maps and its output does not keep
which terms came from one iteration, so the normalisation takes them out of the engine copy
(:func:`extract_gathers`) and :func:`gather_statements` computes their statements with
:class:`~pipeline.materialize.term_maps.TermMaker` on the same normalised mapping; the
materialize stage guards them with the engine's statements.

The rules of the specification, as implemented:

* without ``rml:template``/``rml:reference``/``rml:constant`` each collection has a new blank
  node as head; with one it is *named* and the collections of every iteration with the same
  head (in the same graph) are concatenated in iteration order;
* a collection without terms is not made, unless ``rml:allowEmptyListAndContainer true``:
  then an empty list is ``rdf:nil`` (named or not) and an empty container a node with its type;
* a list is ``rdf:first``/``rdf:rest`` cells ending in ``rdf:nil``, the head being the first
  cell; a container is typed and has ``rdf:_1`` ... members, duplicates kept;
* a gather map may gather gather maps (nested collections) and referencing object maps (the
  parent subjects that join the iteration);
* a subject map may be a gather map: the whole TriplesMap is then computed here;
* the statements of a collection go to the graphs of the triple that uses it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from itertools import count, product

from rdflib import Graph, Literal
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.errors import RMLError
from pipeline.materialize.rml.check import gather_members, node_name, triples_maps
from pipeline.materialize.rml.vocabulary import BNODE_NS, RML
from pipeline.materialize.term_maps import TermMaker, literal_token
from pipeline.materialize.views.records import Iteration

__all__ = ["GatherPlan", "extract_gathers", "gather_statements"]

_RDF = str(RDF)
_NIL = f"<{_RDF}nil>"


@dataclass
class GatherPlan:
    """What :func:`extract_gathers` took out of the engine copy.

    Attributes:
        graph: the normalised mapping with the gather maps (what :func:`gather_statements` evaluates).
        rules: ``(TriplesMap, predicate-object map or None)``: the predicate-object maps with a
            gather map, ``None`` for a TriplesMap whose subject map is one (all of it is computed here).
        where: the mapping file, for messages.
    """

    graph: Graph
    rules: list[tuple[Node, Node | None]] = field(default_factory=list)
    where: str = "mapping"


def _is_gather(g: Graph, node: Node | None) -> bool:
    return node is not None and g.value(node, RML.gather) is not None


def extract_gathers(g: Graph, where: str) -> GatherPlan | None:
    """Take the predicate-object maps with gather maps, and TriplesMaps whose subject map is one,
    out of the engine graph ``g`` (in place); ``None`` when the mapping has no gather map.

    Raises:
        RMLError: a TriplesMap whose subject is a gather map is the parent of a referencing object
            map the engine evaluates (its subjects are blank nodes made here).
    """
    if next(g.subjects(RML.gather, None), None) is None:
        return None
    plan = GatherPlan(Graph(), [], where)
    for t in g:
        plan.graph.add(t)
    for tm in triples_maps(g):
        sm = g.value(tm, RML.subjectMap)
        if _is_gather(g, sm):
            plan.rules.append((tm, None))
            continue
        for pom in list(g.objects(tm, RML.predicateObjectMap)):
            if any(_is_gather(g, m) for p in (RML.objectMap, RML.predicateMap, RML.graphMap)
                   for m in g.objects(pom, p)):
                plan.rules.append((tm, pom))
    whole = {tm for tm, pom in plan.rules if pom is None}
    for tm, pom in plan.rules:
        if pom is not None and tm not in whole:
            g.remove((tm, RML.predicateObjectMap, pom))
            sm = g.value(tm, RML.subjectMap)
            if g.value(tm, RML.predicateObjectMap) is None and (sm is None or g.value(sm, RML["class"]) is None):
                # nothing left for the engine to make (it cannot run a rule without predicate-object map);
                # it stays readable as a parent TriplesMap
                for t in (RML.TriplesMap, RML.AssertedTriplesMap):
                    g.remove((tm, RDF.type, t))
                g.add((tm, RDF.type, RML.NonAssertedTriplesMap))
    for tm in whole:
        for child in sorted(triples_maps(g), key=str):
            if child in whole:
                continue
            for pom in g.objects(child, RML.predicateObjectMap):
                for om in g.objects(pom, RML.objectMap):
                    if g.value(om, RML.parentTriplesMap) == tm:
                        raise RMLError(f"TriplesMap {node_name(child)} references TriplesMap {node_name(tm)}, whose "
                                       "subject map is a gather map: its subjects are collections made beside the "
                                       "engine and cannot be joined", path=where)
        for p, o in list(g.predicate_objects(tm)):
            g.remove((tm, p, o))
    return plan


class _Collections:
    """The collections of one run: named ones concatenated, statements collected."""

    def __init__(self, terms: TermMaker) -> None:
        self.terms = terms
        self.g = terms.g
        self.lines: list[str] = []
        self.named: dict[tuple[str, str], tuple[Node, list[str]]] = {}  # (head, graph) -> (gather map, members)
        self.uses: list[tuple[str, str, tuple[str, str], str]] = []  # (s, p, named key, graph)
        self._ids = count(1)

    def blank(self) -> str:
        return f"_:kgcgather{next(self._ids)}"

    def emit(self, s: str, p: str, o: str, graph: str) -> None:
        self.lines.append(f"{s} {p} {o} {graph}".rstrip())

    def members(self, gm: Node, tm: Node, it: Iteration, index: int, graph: str) -> list[list[str]]:
        """The term lists one gather map's term maps yield in one iteration."""
        out = []
        for m in gather_members(self.g, gm):
            if _is_gather(self.g, m):
                out.append(self.heads(m, tm, it, index, graph))
            elif self.g.value(m, RML.parentTriplesMap) is not None:
                out.append(self.terms.joined(tm, m, it, index))
            else:
                out.append(self.terms.terms(m, it, "object map"))
        return out

    def heads(self, gm: Node, tm: Node, it: Iteration, index: int, graph: str) -> list[str]:
        """The head terms of the collections a gather map makes in one iteration (their
        statements emitted, or, for named ones, kept to be concatenated)."""
        g = self.g
        lists = self.members(gm, tm, it, index, graph)
        if g.value(gm, RML.strategy) == RML.cartesianProduct:
            combos = [list(c) for c in product(*lists)]
        else:
            combos = [[t for terms in lists for t in terms]]
        allow = str(g.value(gm, RML.allowEmptyListAndContainer) or "").lower() in ("true", "1")
        named = any(g.value(gm, p) is not None for p in (RML.template, RML.reference, RML.constant))
        out = []
        for combo in combos:
            if not combo and not allow:
                continue
            if named:
                for name in self.terms.terms(gm, it, "subject map"):
                    key = (name, graph)
                    self.named.setdefault(key, (gm, []))[1].extend(combo)
                    out.append(self._named_token(key))
            else:
                out.append(self._make(gm, self.blank(), combo, graph))
        return out

    def _named_token(self, key: tuple[str, str]) -> str:
        """A placeholder for a named head, replaced once its collection is complete."""
        return f"\x00{len(self.named)}\x00{key[0]}\x00{key[1]}"

    def _make(self, gm: Node, head: str, members: list[str], graph: str) -> str:
        """Emit one collection's statements; returns its head term (``rdf:nil`` for an empty list)."""
        kind = self.g.value(gm, RML.gatherAs)
        if kind == RDF.List:
            if not members:
                return _NIL
            cell = head
            for i, m in enumerate(members):
                self.emit(cell, f"<{_RDF}first>", m, graph)
                nxt = _NIL if i == len(members) - 1 else self.blank()
                self.emit(cell, f"<{_RDF}rest>", nxt, graph)
                cell = nxt
            return head
        self.emit(head, f"<{_RDF}type>", f"<{kind}>", graph)
        for i, m in enumerate(members, 1):
            self.emit(head, f"<{_RDF}_{i}>", m, graph)
        return head

    def finish(self) -> list[str]:
        """Make the named collections and resolve the triples that use them."""
        heads: dict[tuple[str, str], str] = {}
        for (name, graph), (gm, members) in self.named.items():
            head = name
            if graph and name.startswith(f"<{BNODE_NS}"):  # a blank node is one per graph (RML-CC 0010)
                head = f"<{BNODE_NS}gather/{hashlib.sha1((name + graph).encode('utf-8')).hexdigest()}>"
            heads[(name, graph)] = self._make(gm, head, members, graph)
        resolved = []
        for line in self.lines:
            if "\x00" in line:
                parts = line.split(" ")
                line = " ".join(heads[tuple(p.split("\x00")[2:4])] if p.startswith("\x00") else p for p in parts)
            resolved.append(line)
        return resolved


def _constant(term: Node) -> str:
    """The token of a constant shortcut (``rml:predicate``, ``rml:object``, ``rml:graph``, ``rml:class``)."""
    if isinstance(term, Literal):
        return literal_token(str(term), str(term.datatype) if term.datatype else None, term.language)
    return "" if term == RML.defaultGraph else f"<{term}>"


def gather_statements(plan: GatherPlan) -> list[str]:
    """The statements of the gather maps of ``plan`` (``"s p o [g]"`` lines, engine term text).

    Raises:
        RMLError: a source cannot be read, a term map cannot be evaluated here (a function).
    """
    g = plan.graph
    terms = TermMaker(g, plan.where)
    coll = _Collections(terms)
    for tm, pom in plan.rules:
        sm = g.value(tm, RML.subjectMap)
        subject_graph_maps = list(g.objects(sm, RML.graphMap)) if sm is not None else []
        subject_graphs = [_constant(c) for c in g.objects(sm, RML.graph)] if sm is not None else []
        poms = [pom] if pom is not None else list(g.objects(tm, RML.predicateObjectMap))
        for index, it in enumerate(terms.iterations(tm)):
            cache: dict[str, list[str]] = {}

            def subjects(graph: str) -> list[str]:
                if graph not in cache:
                    if pom is None:  # the subject map is a gather map: its collections are the subjects
                        cache[graph] = coll.heads(sm, tm, it, index, graph)
                        for s in cache[graph]:
                            for cls in g.objects(sm, RML["class"]):
                                coll.emit(s, f"<{_RDF}type>", f"<{cls}>", graph)
                    else:
                        cache[graph] = terms.subjects(tm, it)
                return cache[graph]

            if pom is None:
                for graph in terms.graphs(subject_graph_maps, it) if not subject_graphs else subject_graphs:
                    subjects(graph)
            for p_o in poms:
                graphs = [_constant(c) for c in g.objects(p_o, RML.graph)] + subject_graphs
                maps = list(g.objects(p_o, RML.graphMap)) + subject_graph_maps
                graphs = sorted(set(graphs + (terms.graphs(maps, it) if maps or not graphs else [])))
                predicates = [t for pm in g.objects(p_o, RML.predicateMap) for t in terms.terms(pm, it, "predicate map")]
                predicates += [_constant(p) for p in g.objects(p_o, RML.predicate)]
                for graph in graphs:
                    objects = [_constant(o) for o in g.objects(p_o, RML.object)]
                    for om in g.objects(p_o, RML.objectMap):
                        if _is_gather(g, om):
                            objects += coll.heads(om, tm, it, index, graph)
                        elif g.value(om, RML.parentTriplesMap) is not None:
                            objects += terms.joined(tm, om, it, index)
                        else:
                            objects += terms.terms(om, it, "object map")
                    for s in subjects(graph):
                        for p in predicates:
                            for o in objects:
                                coll.emit(s, p, o, graph)
    return coll.finish()
