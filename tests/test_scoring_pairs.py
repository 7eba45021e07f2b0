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


SKOS_AXIOMS = """
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
skos:broader rdfs:subPropertyOf skos:broaderTransitive ; owl:inverseOf skos:narrower .
skos:broaderTransitive rdfs:subPropertyOf skos:semanticRelation .
"""

# the KG writes the more specific skos:broader; the reference its super-property, from the other end once
BROADER_KG = """
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<urn:c:1> a skos:Concept ; skos:broader <urn:c:0> .
<urn:c:2> a skos:Concept ; skos:broader <urn:c:0> .
<urn:c:0> a skos:Concept .
"""
TRANSITIVE_REFERENCE = """
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<http://r/1> a skos:Concept ; skos:broaderTransitive <http://r/0> .
<http://r/0> a skos:Concept ; skos:narrower <http://r/2> .
<http://r/2> a skos:Concept .
"""


def test_entailment_counts_what_a_sub_property_or_an_inverse_states():
    kg, ref, axioms = _g(BROADER_KG), _g(TRANSITIVE_REFERENCE), _g(SKOS_AXIOMS)
    written = compare_graphs(kg, ref)
    # pairs: 3 types each side; the KG's 2 broader links, the reference's 1 broaderTransitive + 1 narrower
    assert (written.pair_precision, written.pair_recall) == (3 / 5, 3 / 5)
    s = compare_graphs(kg, ref, entailment=axioms)
    # recall: the KG's broader entails broaderTransitive (1 of the reference's) and narrower from the
    # other end (c:0 narrower c:1, c:2: the reference's 1); precision: the reference entails broader
    # only through narrower's inverse (r:2 broader r:0), so 1 of the KG's 2 broader links is entailed
    assert (s.pair_precision, s.pair_recall) == (4 / 5, 5 / 5)


def test_entailed_adds_super_properties_and_inverses_to_a_fixpoint():
    from pipeline.scoring.graph.pairs import entailed
    from rdflib import URIRef
    out = entailed(_g(BROADER_KG), _g(SKOS_AXIOMS))
    skos = "http://www.w3.org/2004/02/skos/core#"
    c1, c0 = URIRef("urn:c:1"), URIRef("urn:c:0")
    assert (c1, URIRef(skos + "broaderTransitive"), c0) in out
    assert (c1, URIRef(skos + "semanticRelation"), c0) in out
    assert (c0, URIRef(skos + "narrower"), c1) in out
    assert len(out) == len(_g(BROADER_KG)) + 2 * 3


EVENT_AXIOMS = """
@prefix ex: <http://e.org/v#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:interior rdfs:domain ex:Evento .
ex:startDate rdfs:domain ex:Event .
ex:venue rdfs:range ex:Place .
ex:Place rdfs:subClassOf ex:Location .
ex:anything rdfs:domain [ owl:unionOf (ex:Event ex:Place) ] .
"""
# the KG types its event ex:Event and states ex:interior; the reference types it ex:Evento and ex:Venue
EVENT_KG = """
@prefix ex: <http://e.org/v#> .
<urn:e:1> a ex:Event ; ex:interior "no" ; ex:venue <urn:p:1> ; ex:anything "x" .
"""
EVENT_REFERENCE = """
@prefix ex: <http://e.org/v#> .
<http://r/1> a ex:Evento ; ex:interior "no" .
<http://r/p1> a ex:Location .
"""


def test_entailment_reads_classes_with_domains_ranges_and_superclasses():
    from pipeline.scoring.graph.pairs import entailed_classes
    kg, ref, axioms = _g(EVENT_KG), _g(EVENT_REFERENCE), _g(EVENT_AXIOMS)
    # rdfs2 (interior -> Evento), rdfs3 (venue -> Place), rdfs9 (Place -> Location); the union domain entails nothing
    assert entailed_classes(kg, axioms) == {"http://e.org/v#Event", "http://e.org/v#Evento", "http://e.org/v#Place",
                                            "http://e.org/v#Location"}
    written = compare_graphs(kg, ref)
    assert (written.class_precision, written.class_recall) == (0.0, 0.0)
    s = compare_graphs(kg, ref, entailment=axioms)
    # recall: the KG entails both of the reference's classes (Evento, Location); precision: the KG's one written
    # class, ex:Event, is not entailed by the reference (it states no startDate): 0 of 1
    assert (s.class_precision, s.class_recall) == (0.0, 1.0)
