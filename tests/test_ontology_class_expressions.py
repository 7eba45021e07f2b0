"""Classes and subclasses through class expressions (pipeline.ontology): both ends of
``owl:equivalentClass`` and the members of a class's intersection or union are classes (OWL 2 RDF-Based
Semantics, section 5); a class equal to (or under) an intersection lies under each member (OWL 2 RL
cls-int2, cax-eqc1/2, scm-int); each member of a union a class equals, or of a disjoint union, lies under
that class (scm-uni); a datatype defined by a datatype restriction stays a datatype.

Cases ``ontology-class-only-equivalent-to-expression`` and ``ontology-class-equal-to-intersection-within-domain``.
"""
from __future__ import annotations

import io

import pyoxigraph
from rdflib import Graph, URIRef

from pipeline.compile.domain import outside_domain
from pipeline.ontology import Ontology, expression_subclasses
from pipeline.validation.axioms import AxiomCheck
from pipeline.validation.shacl import _classes

TTL = """
@prefix ex: <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Person a owl:Class . ex:Agent a owl:Class .
ex:Employee owl:equivalentClass [ owl:intersectionOf ( ex:Person ex:Agent ) ] .
[ owl:intersectionOf ( ex:Person [ owl:intersectionOf ( ex:Agent ex:Adult ) ] ) ] owl:equivalentClass ex:Voter .
ex:Manager rdfs:subClassOf [ owl:intersectionOf ( ex:Person ex:Agent ) ] .
ex:Party owl:equivalentClass [ owl:unionOf ( ex:Person ex:Organisation ) ] .
ex:Vehicle owl:disjointUnionOf ( ex:Car ex:Bike ) .
ex:Robot owl:disjointWith ex:Human .
ex:NotPerson owl:complementOf ex:Person .
ex:ISBN owl:equivalentClass [ owl:onDatatype xsd:string ; owl:withRestrictions ( [ xsd:length 13 ] ) ] .
ex:salary a owl:DatatypeProperty ; rdfs:domain [ owl:intersectionOf ( ex:Person ex:Agent ) ] .
ex:name rdfs:domain ex:Party .
ex:plate rdfs:domain ex:Vehicle .
ex:Person rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:email ; owl:maxCardinality 1 ] .
ex:Human owl:disjointWith ex:Organisation .
"""
EX = "http://ex.org/"


def t(name: str) -> URIRef:
    return URIRef(EX + name)


def _onto() -> Ontology:
    return Ontology(Graph().parse(data=TTL, format="turtle"))


def test_every_end_of_a_class_axiom_is_a_class_and_a_restricted_datatype_is_not():
    o = _onto()
    assert {t(c) for c in ("Employee", "Voter", "Adult", "Manager", "Party", "Organisation", "Vehicle", "Car",
                           "Bike", "Robot", "Human", "NotPerson")} <= o.classes
    assert t("ISBN") not in o.classes and o.kind(t("ISBN")) is None
    assert o.kind(t("Employee")) == "class"
    assert o.implied_classes() == frozenset()
    assert _classes(o.graph) == set(o.declared_classes)


def test_a_class_equal_to_or_under_an_intersection_lies_under_each_member():
    o = _onto()
    # and under Party, through Person
    assert o.superclasses(t("Employee")) == {t("Employee"), t("Person"), t("Agent"), t("Party")}
    assert o.superclasses(t("Voter")) == {t("Voter"), t("Person"), t("Agent"), t("Adult"), t("Party")}
    assert o.superclasses(t("Manager")) == {t("Manager"), t("Person"), t("Agent"), t("Party")}
    assert o.superclasses(t("Person")) == {t("Person"), t("Party")}  # a member of the union Party equals
    assert o.superclasses(t("Car")) == {t("Car"), t("Vehicle")}
    assert o.equivalents(t("Employee")) == {t("Employee")}  # Person and Agent are wider, not equal


def test_expression_subclasses_pairs():
    got = sorted((str(a)[len(EX):], str(b)[len(EX):]) for a, b in expression_subclasses(_onto().graph))
    assert got == [("Bike", "Vehicle"), ("Car", "Vehicle"), ("Employee", "Agent"), ("Employee", "Person"),
                   ("Manager", "Agent"), ("Manager", "Person"), ("Organisation", "Party"), ("Person", "Party"),
                   ("Voter", "Adult"), ("Voter", "Agent"), ("Voter", "Person")]


def test_domain_checks_read_the_entailed_subclasses():
    o = _onto()
    assert outside_domain(o, t("salary"), t("Employee")) is None
    assert outside_domain(o, t("salary"), t("Manager")) is None
    assert outside_domain(o, t("name"), t("Organisation")) is None
    assert outside_domain(o, t("plate"), t("Bike")) is None
    misfit = outside_domain(o, t("salary"), t("Person"))
    assert misfit is not None and misfit.closest == t("Employee")
    assert o.domains(t("salary")) == {t("Employee"), t("Manager"), t("Voter")}


def test_axiom_check_types_members_through_expressions():
    check = AxiomCheck(_onto().graph)
    nt = (f"<{EX}e> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Employee> .\n"
          f'<{EX}e> <{EX}email> "a@x" .\n<{EX}e> <{EX}email> "b@x" .\n'
          f"<{EX}h> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Human> .\n"
          f"<{EX}h> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Person> .\n")
    for st in pyoxigraph.parse(io.BytesIO(nt.encode()), "application/n-triples"):
        check.add(st.subject, st.predicate, st.object)
    got = sorted((f.code, f.location) for f in check.result().findings)
    # Employee ⊑ Person (max 1 email); Person ⊑ Party is no Organisation: Human and Person do not clash
    assert got == [("cardinality", f"<{EX}e>")]


def test_an_expression_written_in_place_names_implied_classes_not_declared_ones():
    """A domain ``[ a owl:Class ; owl:unionOf ( ... ) ]`` (BLINKG's GTFS excerpts) makes its members classes
    through the domain (implied_classes), as before: typing the blank node owl:Class declares no member."""
    o = Ontology(Graph().parse(data="""@prefix ex: <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Trip a owl:Class .
ex:id a owl:DatatypeProperty ; rdfs:domain [ a owl:Class ; owl:unionOf ( ex:Route ex:Trip ) ] .
""", format="turtle"))
    assert o.classes == {t("Route"), t("Trip")}
    assert o.declared_classes == {t("Trip")}
    assert o.implied_classes() == {t("Route")}
