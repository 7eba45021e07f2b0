"""An Entity Class outside its property's domain (pipeline.compile.domain): RDFS rdfs2 makes each subject an
instance of the domain, so the compiler warns; a subclass, an equivalent class and a property without a
domain are no misfit; schema.org's domainIncludes entails nothing."""
from __future__ import annotations

from rdflib import URIRef

from pipeline.compile.domain import DomainMisfit, outside_domain, outside_range
from pipeline.ontology import load_ontology

TTL = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix schema: <https://schema.org/> .
@prefix ex: <http://example.org/> .
ex:Person a owl:Class . ex:Author a owl:Class ; rdfs:subClassOf ex:Person .
ex:Human a owl:Class ; owl:equivalentClass ex:Person .
ex:Book a owl:Class . ex:Organisation a owl:Class . ex:Authors a owl:Class .
ex:birthDate a owl:DatatypeProperty ; rdfs:domain ex:Person .
ex:authorBirthDate rdfs:subPropertyOf ex:birthDate .
ex:anything a owl:DatatypeProperty ; rdfs:domain owl:Thing .
ex:name a owl:DatatypeProperty ; rdfs:domain [ owl:unionOf ( ex:Person ex:Organisation ) ] .
ex:isbn schema:domainIncludes ex:Book .
ex:wrote a owl:ObjectProperty ; rdfs:domain ex:Person ; rdfs:range ex:Book .
ex:publisher schema:rangeIncludes ex:Organisation .
ex:title a owl:DatatypeProperty ; rdfs:range <http://www.w3.org/2001/XMLSchema#string> .
"""
EX = "http://example.org/"


def test_outside_domain(tmp_path):
    path = tmp_path / "o.ttl"
    path.write_text(TTL, encoding="utf-8")
    onto = load_ontology([path])
    p, c = (lambda n: URIRef(EX + n)), (lambda n: URIRef(EX + n))
    for cls in ("Person", "Author", "Human"):  # the domain, a subclass, an equivalent class
        assert outside_domain(onto, p("birthDate"), c(cls)) is None
    assert outside_domain(onto, p("anything"), c("Book")) is None  # owl:Thing restricts nothing
    assert outside_domain(onto, p("name"), c("Organisation")) is None  # one member of a union
    # the fix offered: the domain class, unless a fitting class has a near name (a misspelt subclass)
    assert outside_domain(onto, p("birthDate"), c("Book")) == DomainMisfit((c("Person"),), True, c("Person"))
    assert outside_domain(onto, p("birthDate"), c("Authors")).closest == c("Author")
    assert outside_domain(onto, p("authorBirthDate"), c("Book")).domains == (c("Person"),)  # inherited
    assert outside_domain(onto, p("name"), c("Book")).domains == (c("Organisation"), c("Person"))
    assert outside_domain(onto, p("isbn"), c("Person")) == DomainMisfit((c("Book"),), False, c("Book"))


def test_outside_range(tmp_path):
    """The Related Entity Class against the range: rdfs3 makes each object an instance of it."""
    path = tmp_path / "o.ttl"
    path.write_text(TTL, encoding="utf-8")
    onto = load_ontology([path])
    p, c = (lambda n: URIRef(EX + n)), (lambda n: URIRef(EX + n))
    assert outside_range(onto, p("wrote"), c("Book")) is None
    assert outside_range(onto, p("wrote"), c("Person")) == DomainMisfit((c("Book"),), True, c("Book"))
    assert outside_range(onto, p("publisher"), c("Book")) == DomainMisfit((c("Organisation"),), False,
                                                                          c("Organisation"))
    assert outside_range(onto, p("title"), c("Book")) is None  # a datatype range: no class to be in
    assert outside_range(onto, p("name"), c("Book")) is None  # no range declared
