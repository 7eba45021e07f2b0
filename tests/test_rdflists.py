"""RDF lists read tolerantly (pipeline.rdflists): members up to a fault, and the fault named."""
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF

from pipeline.rdflists import list_fault, members

A, B, C = (URIRef(f"http://example.org/{x}") for x in "abc")


def _chain(g: Graph, items, close=RDF.nil):
    nodes = [BNode() for _ in items]
    for n, item, nxt in zip(nodes, items, nodes[1:] + [close]):
        g.add((n, RDF.first, item))
        if nxt is not None:
            g.add((n, RDF.rest, nxt))
    return nodes


def test_a_well_formed_list_reads_as_rdflib_reads_it():
    g = Graph()
    head = BNode()
    Collection(g, head, [A, Literal(2), C])
    assert members(g, head) == [A, Literal(2), C]
    assert list_fault(g, head) is None
    assert members(g, RDF.nil) == [] and list_fault(g, RDF.nil) is None


def test_a_cyclic_list_ends_at_the_cycle_and_is_named():
    g = Graph()
    nodes = _chain(g, [A, B, C], close=None)
    g.add((nodes[2], RDF.rest, nodes[1]))
    assert members(g, nodes[0]) == [A, B, C]
    assert list_fault(g, nodes[0]) == "cyclic: rdf:rest returns to its node 2"


def test_missing_first_open_end_and_branching_rest_are_named():
    g = Graph()
    nodes = _chain(g, [A, B])
    g.remove((nodes[1], RDF.first, B))
    assert members(g, nodes[0]) == [A]
    assert list_fault(g, nodes[0]) == "node 2 has no rdf:first"
    g2 = Graph()
    open_end = _chain(g2, [A, B], close=None)
    assert members(g2, open_end[0]) == [A, B]
    assert list_fault(g2, open_end[0]) == "does not end in rdf:nil"
    g3 = Graph()
    two = _chain(g3, [A, B])
    g3.add((two[0], RDF.rest, BNode()))
    assert list_fault(g3, two[0]) == "node 1 has 2 rdf:rest values"
