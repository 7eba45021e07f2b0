"""IRI-agnostic comparison of a KG with a reference (pipeline.scoring.graph.pairs)."""
from __future__ import annotations

from rdflib import Graph

from pipeline.scoring.graph.pairs import compare_graphs, declared_terms, graph_pairs

REFERENCE = """
@prefix ex: <http://example.org/voc#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://a.org/person/1> a ex:Person ; ex:name "Ann" ; ex:age "41"^^xsd:integer ; ex:city <http://a.org/city/BE-1> ;
    ex:country <http://a.org/country/BE> .
<http://a.org/person/2> a ex:Person ; ex:name "Bob " ; ex:age "7"^^xsd:integer ; ex:city <http://a.org/city/BE-1> .
<http://a.org/city/BE-1> a ex:City ; ex:label "Gent"@nl .
"""

# the same facts under another IRI scheme, numerals and a language tag written otherwise
OTHER_SCHEME = """
@prefix ex: <http://example.org/voc#> .
<urn:p:a> a ex:Person ; ex:name "Ann" ; ex:age "41.0" ; ex:city <urn:c:gent> ; ex:country <http://b.org/iso/BE> .
<urn:p:b> a ex:Person ; ex:name "Bob" ; ex:age "07" ; ex:city <urn:c:gent> .
<urn:c:gent> a ex:City ; ex:label "Gent" .
"""

VOCABULARY = """
@prefix ex: <http://example.org/voc#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Person a owl:Class . ex:City a owl:Class . ex:name a owl:DatatypeProperty . ex:age a owl:DatatypeProperty .
ex:city a owl:ObjectProperty . ex:label a owl:DatatypeProperty .
"""


def _g(text: str) -> Graph:
    return Graph().parse(data=text, format="turtle")


def test_graphs_that_differ_only_in_iri_scheme_score_one():
    s = compare_graphs(_g(OTHER_SCHEME), _g(REFERENCE))
    assert (s.class_precision, s.class_recall, s.predicate_precision, s.predicate_recall) == (1.0, 1.0, 1.0, 1.0)
    assert (s.pair_precision, s.pair_recall) == (1.0, 1.0)
    assert s.entities == {"http://example.org/voc#City": [1, 1], "http://example.org/voc#Person": [2, 2]}
    assert s.entities_within == 1.0


def test_one_wrong_value_costs_one_pair_on_each_side():
    wrong = OTHER_SCHEME.replace('ex:name "Bob"', 'ex:name "Rob"')
    s = compare_graphs(_g(wrong), _g(REFERENCE))
    assert s.pair_precision == s.pair_recall == 10 / 11  # 11 pairs each side, 10 shared
    assert s.predicate_recall == 1.0


def test_a_link_counts_when_it_reaches_an_entity_of_the_right_class():
    pairs = graph_pairs(_g(REFERENCE))
    assert pairs[("http://example.org/voc#city", "entity of http://example.org/voc#City")] == 2
    assert pairs[("http://example.org/voc#country", "BE")] == 1  # not an entity of the graph: its last segment


def test_reachable_cuts_the_reference_to_declared_terms():
    vocabulary = declared_terms([_g(VOCABULARY)])
    kg = _g(OTHER_SCHEME.replace("ex:country <http://b.org/iso/BE> ", ""))
    everything = compare_graphs(kg, _g(REFERENCE), vocabulary)
    reachable = compare_graphs(kg, _g(REFERENCE), vocabulary, reachable=True)
    assert everything.pair_recall == 10 / 11 and everything.predicate_recall == 5 / 6
    assert reachable.pair_recall == 1.0 and reachable.reference_triples == 10
