"""Domains and ranges as clauses (pipeline.ontology.Ontology.domain_clauses, range_clauses): every
``rdfs:domain``/``rdfs:range`` axiom and every member of an ``owl:intersectionOf`` holds, a union's
members are one clause (any of them); ``domains``/``ranges`` give the widest named terms within every
clause, read as any of them."""
from __future__ import annotations

from rdflib import Graph, URIRef
from rdflib.namespace import RDFS, XSD

from pipeline.ontology import Ontology

TTL = """
@prefix ex: <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix schema: <https://schema.org/> .
ex:Agent a owl:Class . ex:Person a owl:Class ; rdfs:subClassOf ex:Agent .
ex:Employee a owl:Class ; rdfs:subClassOf ex:Person . ex:Org a owl:Class ; rdfs:subClassOf ex:Agent .
ex:Place a owl:Class .
ex:age a owl:DatatypeProperty ; rdfs:range xsd:integer , xsd:nonNegativeInteger .
ex:note a owl:DatatypeProperty ; rdfs:range rdfs:Literal , xsd:integer .
ex:clash a owl:DatatypeProperty ; rdfs:range xsd:string , xsd:integer .
ex:choice a owl:DatatypeProperty ; rdfs:range [ owl:unionOf ( xsd:string xsd:integer ) ] .
ex:twice rdfs:domain ex:Person , ex:Agent .
ex:both rdfs:domain [ owl:intersectionOf ( ex:Agent ex:Employee ) ] .
ex:either rdfs:domain [ owl:unionOf ( ex:Person ex:Place ) ] .
ex:none rdfs:domain [ owl:intersectionOf ( ex:Org ex:Place ) ] .
ex:nested rdfs:domain [ owl:unionOf ( ex:Place [ owl:intersectionOf ( ex:Org ex:Person ) ] ) ] .
ex:open rdfs:domain [ owl:unionOf ( ex:Place owl:Thing ) ] .
ex:restricted rdfs:domain [ owl:unionOf ( ex:Place [ a owl:Restriction ; owl:onProperty ex:age ; owl:minCardinality 1 ] ) ] .
ex:sub rdfs:subPropertyOf ex:twice ; rdfs:domain ex:Employee .
ex:listed schema:domainIncludes ex:Org , ex:Place .
"""
EX = "http://ex.org/"


def _onto() -> Ontology:
    return Ontology(Graph().parse(data=TTL, format="turtle"))


def t(name: str) -> URIRef:
    return URIRef(EX + name)


def test_datatype_ranges_all_hold():
    onto = _onto()
    assert set(onto.range_clauses(t("age"))) == {frozenset({XSD.integer}), frozenset({XSD.nonNegativeInteger})}
    assert onto.ranges(t("age")) == {XSD.nonNegativeInteger}  # within both
    assert onto.ranges(t("note")) == {XSD.integer}  # rdfs:Literal holds any literal
    assert onto.range_clauses(t("choice")) == (frozenset({XSD.string, XSD.integer}),)
    assert onto.ranges(t("choice")) == {XSD.string, XSD.integer}  # a union: any member
    # no datatype within both (loading notes it): the members, the looser reading the set cannot avoid
    assert onto.ranges(t("clash")) == {XSD.string, XSD.integer}
    assert onto.ranges(RDFS.label) == {RDFS.Literal}


def test_domain_clauses():
    onto = _onto()
    assert set(onto.domain_clauses(t("twice"))) == {frozenset({t("Person")}), frozenset({t("Agent")})}
    assert onto.domains(t("twice")) == {t("Person")}
    assert onto.domains(t("both")) == {t("Employee")}  # Agent and Employee: Employee's instances
    assert onto.domain_clauses(t("either")) == (frozenset({t("Person"), t("Place")}),)
    assert onto.domains(t("either")) == {t("Person"), t("Place")}
    # no class is both an Org and a Place: the members (the compiler's checks read the clauses)
    assert len(onto.domain_clauses(t("none"))) == 2 and onto.domains(t("none")) == {t("Org"), t("Place")}
    # Place or (Org and Person) = (Place or Org) and (Place or Person): only Place is within both
    assert set(onto.domain_clauses(t("nested"))) == {frozenset({t("Place"), t("Org")}),
                                                     frozenset({t("Place"), t("Person")})}
    assert onto.domains(t("nested")) == {t("Place")}
    assert onto.domain_clauses(t("open")) == () and onto.domains(t("open")) == set()  # a union with owl:Thing
    assert onto.domains(t("restricted")) == set()  # a union with a restriction names no class it must be in
    assert onto.domains(t("sub")) == {t("Employee")}  # inherited Person and Agent, and its own Employee
    assert onto.domains(t("listed")) == {t("Org"), t("Place")}  # schema.org's listing: any of them


def test_meets():
    onto = _onto()
    assert onto.meets(XSD.int, frozenset({XSD.integer}))
    assert not onto.meets(XSD.integer, frozenset({XSD.nonNegativeInteger}))
    assert onto.meets(XSD.integer, frozenset({RDFS.Literal}))
    assert onto.meets(t("Employee"), frozenset({t("Agent"), t("Place")}))
    assert not onto.meets(t("Agent"), frozenset({t("Person")}))


def test_a_schema_org_listing_is_read_as_any_of_its_classes():
    """A listing (domainIncludes) entails nothing: listings are one clause, and where a property has one the
    set the mapper reads is every member, an rdfs:domain another file adds included (the audit reads the clauses)."""
    onto = Ontology(Graph().parse(format="turtle", data="""
@prefix s: <http://schema.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix og: <http://ogp.me/ns#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
s:Thing a rdfs:Class . s:CreativeWork rdfs:subClassOf s:Thing . s:Event rdfs:subClassOf s:Thing .
s:name s:domainIncludes s:Thing ; owl:equivalentProperty og:title ; rdfs:domain s:CreativeWork .
og:title s:domainIncludes s:CreativeWork .
"""))
    name = URIRef("http://schema.org/name")
    s = lambda n: URIRef("http://schema.org/" + n)  # noqa: E731
    # the listings (Thing, CreativeWork) are one clause, implied by the rdfs:domain clause: the audit reads CreativeWork
    assert onto.domain_clauses(name) == (frozenset({s("CreativeWork")}),)
    assert onto.domains(name) == {s("Thing"), s("CreativeWork")}
