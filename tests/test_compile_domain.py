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
    assert outside_domain(onto, p("birthDate"), c("Book")) == DomainMisfit((c("Person"),), True, c("Person"),
                                                                                 "ex:Person")
    assert outside_domain(onto, p("birthDate"), c("Authors")).closest == c("Author")
    assert outside_domain(onto, p("authorBirthDate"), c("Book")).domains == (c("Person"),)  # inherited
    assert outside_domain(onto, p("name"), c("Book")).domains == (c("Organisation"), c("Person"))
    assert outside_domain(onto, p("isbn"), c("Person")) == DomainMisfit((c("Book"),), False, c("Book"), "ex:Book")


def test_outside_range(tmp_path):
    """The Related Entity Class against the range: rdfs3 makes each object an instance of it."""
    path = tmp_path / "o.ttl"
    path.write_text(TTL, encoding="utf-8")
    onto = load_ontology([path])
    p, c = (lambda n: URIRef(EX + n)), (lambda n: URIRef(EX + n))
    assert outside_range(onto, p("wrote"), c("Book")) is None
    assert outside_range(onto, p("wrote"), c("Person")) == DomainMisfit((c("Book"),), True, c("Book"),
                                                                                "ex:Book")
    assert outside_range(onto, p("publisher"), c("Book")) == DomainMisfit((c("Organisation"),), False,
                                                                          c("Organisation"), "ex:Organisation")
    assert outside_range(onto, p("title"), c("Book")) is None  # a datatype range: no class to be in
    assert outside_range(onto, p("name"), c("Book")) is None  # no range declared


def test_statement_words_the_axioms(tmp_path):
    """What rdfs2 entails is the class the axiom names: a union's instance is in one member (``or``), two
    ``rdfs:domain`` triples or an intersection make it an instance of both (``and``); a union holding
    ``owl:Thing`` restricts nothing; a schema.org listing is any of its classes."""
    path = tmp_path / "o.ttl"
    path.write_text(TTL + """
ex:A a owl:Class . ex:B a owl:Class . ex:C a owl:Class . ex:D a owl:Class .
ex:both a owl:DatatypeProperty ; rdfs:domain ex:A , ex:B .
ex:nested a owl:DatatypeProperty ; rdfs:domain ex:A , [ owl:unionOf ( ex:B [ owl:intersectionOf ( ex:C ex:D ) ] ) ] .
ex:open a owl:DatatypeProperty ; rdfs:domain ex:A , [ owl:unionOf ( ex:B owl:Thing ) ] .
ex:listed schema:domainIncludes ex:A , ex:B .
""", encoding="utf-8")
    onto = load_ontology([path])
    p, c = (lambda n: URIRef(EX + n)), (lambda n: URIRef(EX + n))
    assert outside_domain(onto, p("name"), c("Book")).statement == "ex:Person or ex:Organisation"  # as written
    assert outside_domain(onto, p("both"), c("Book")).statement == "ex:A and ex:B"
    assert outside_domain(onto, p("nested"), c("Book")).statement == "ex:A and (ex:B or (ex:C and ex:D))"
    assert outside_domain(onto, p("open"), c("Book")).statement == "ex:A"
    listed = outside_domain(onto, p("listed"), c("Book"))
    assert (listed.statement, listed.entailed) == ("ex:A or ex:B", False)


def test_every_clause_of_a_domain_or_range_holds(tmp_path):
    """Two ``rdfs:domain`` axioms and an ``owl:intersectionOf`` hold each: a class under one member only is a
    misfit (each subject becomes an instance of both), a class under all is not; a union's member fits."""
    path = tmp_path / "o.ttl"
    path.write_text(TTL + """
ex:Student a owl:Class . ex:Employee a owl:Class .
ex:WorkingStudent a owl:Class ; rdfs:subClassOf ex:Student , ex:Employee .
ex:hours a owl:DatatypeProperty ; rdfs:domain [ owl:intersectionOf ( ex:Student ex:Employee ) ] .
ex:year a owl:DatatypeProperty ; rdfs:domain ex:Student , ex:Employee .
ex:mentor a owl:ObjectProperty ; rdfs:range [ owl:intersectionOf ( ex:Student ex:Employee ) ] .
ex:either a owl:DatatypeProperty ; rdfs:domain [ owl:unionOf ( ex:Book [ owl:intersectionOf ( ex:Student ex:Employee ) ] ) ] .
""", encoding="utf-8")
    onto = load_ontology([path])
    p, c = (lambda n: URIRef(EX + n)), (lambda n: URIRef(EX + n))
    for prop in ("hours", "year"):
        misfit = outside_domain(onto, p(prop), c("Student"))
        assert (misfit.domains, misfit.closest, misfit.every) == ((c("WorkingStudent"),), c("WorkingStudent"), True)
        assert outside_domain(onto, p(prop), c("WorkingStudent")) is None
    assert outside_range(onto, p("mentor"), c("Employee")).every is True
    assert outside_range(onto, p("mentor"), c("WorkingStudent")) is None
    # Book or (Student and Employee): a book fits, a student alone does not
    assert outside_domain(onto, p("either"), c("Book")) is None
    assert outside_domain(onto, p("either"), c("WorkingStudent")) is None
    assert outside_domain(onto, p("either"), c("Student")).statement == "ex:Book or (ex:Student and ex:Employee)"
    assert outside_domain(onto, p("name"), c("Book")).every is False  # one union: one clause
