"""RDF collections (``rdf:first`` / ``rdf:rest`` lists) read from someone else's graph.

Ontologies, shapes and mappings hold lists (``owl:unionOf``, ``owl:members``, ``owl:hasKey``,
``sh:or``, ``rml:gather``). rdflib's ``Graph.items`` raises ``ValueError`` on a list whose
``rdf:rest`` comes back to an earlier node, and a list written by hand in N-Triples can also lack an
``rdf:first`` or never reach ``rdf:nil``. Every stage reads lists here, tolerantly (the members up to
the fault), and a loader that reports input faults asks :func:`list_fault` what is wrong.
"""
from __future__ import annotations

from rdflib import Graph
from rdflib.namespace import RDF
from rdflib.term import Node

__all__ = ["members", "list_fault", "LIST_PREDICATES"]

_OWL = "http://www.w3.org/2002/07/owl#"
_SH = "http://www.w3.org/ns/shacl#"

#: Predicates whose object is an RDF list in OWL 2 (the RDF mapping, W3C OWL 2 Mapping to RDF
#: Graphs, Table 1) and SHACL (its logical constraint components and ``sh:ignoredProperties``).
LIST_PREDICATES: tuple[str, ...] = tuple(
    [_OWL + p for p in ("unionOf", "intersectionOf", "oneOf", "members", "hasKey", "disjointUnionOf",
                        "propertyChainAxiom", "withRestrictions", "distinctMembers")]
    + [_SH + p for p in ("or", "and", "xone", "in", "ignoredProperties")])


def members(g: Graph, head: Node | None) -> list[Node]:
    """The members of the RDF list starting at ``head``, in order.

    Args:
        g: the graph holding the list.
        head: the list's first node (``rdf:nil`` or ``None``: the empty list).
    Returns:
        The ``rdf:first`` values, in list order; reading stops at ``rdf:nil``, at a node with no
        ``rdf:rest``, or at a node already visited (a cyclic list), so it always ends. A node with no
        ``rdf:first`` contributes nothing. Never raises on a malformed list: :func:`list_fault` says
        what is wrong with one.
    """
    out: list[Node] = []
    seen: set[Node] = set()
    while head is not None and head != RDF.nil and head not in seen:
        seen.add(head)
        first = g.value(head, RDF.first)
        if first is not None:
            out.append(first)
        head = g.value(head, RDF.rest)
    return out


def list_fault(g: Graph, head: Node | None) -> str | None:
    """What is wrong with the RDF list starting at ``head``, or ``None`` for a well-formed list.

    A well-formed list (RDF 1.1 Semantics, "RDF collections") is a chain of nodes each with one
    ``rdf:first`` and one ``rdf:rest``, ending in ``rdf:nil``.

    Returns:
        A phrase such as ``"cyclic: rdf:rest returns to its node 2"``, ``"node 1 has no rdf:first"``,
        ``"node 3 has 2 rdf:rest values"`` or ``"does not end in rdf:nil"``; ``None`` when well formed.
    """
    seen: dict[Node, int] = {}
    node, i = head, 1
    while node is not None and node != RDF.nil:
        if node in seen:
            return f"cyclic: rdf:rest returns to its node {seen[node]}"
        seen[node] = i
        firsts = list(g.objects(node, RDF.first))
        rests = list(g.objects(node, RDF.rest))
        if not firsts:
            return f"node {i} has no rdf:first"
        if len(firsts) > 1:
            return f"node {i} has {len(firsts)} rdf:first values"
        if len(rests) > 1:
            return f"node {i} has {len(rests)} rdf:rest values"
        if not rests:
            return "does not end in rdf:nil"
        node, i = rests[0], i + 1
    return None
