"""OWL 2 datatype restrictions: read from the ontology, typed by their base, checked by their facets."""
from __future__ import annotations

import pyoxigraph
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import SH, XSD

from pipeline.ontology import datatype_restriction, load_ontology
from pipeline.validation.axioms import AxiomCheck
from pipeline.validation.consistency import inconsistency_causes
from pipeline.validation.facets import anchored_pattern, facet_violation
from pipeline.validation.shacl import SHAPES, derive_shapes

O = "http://ex.org/o#"
ONTO = """@prefix o: <http://ex.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
o:Book a owl:Class .
o:Code a rdfs:Datatype ; owl:equivalentClass [ a rdfs:Datatype ; owl:onDatatype xsd:string ;
    owl:withRestrictions ( [ xsd:pattern "[A-Z]{2}[0-9]+" ] [ xsd:maxLength 5 ] ) ] .
o:Short a rdfs:Datatype ; owl:equivalentClass [ a rdfs:Datatype ; owl:onDatatype o:Code ;
    owl:withRestrictions ( [ xsd:minLength 4 ] ) ] .
o:code a owl:DatatypeProperty ; rdfs:domain o:Book ; rdfs:range o:Code .
o:short a owl:DatatypeProperty ; rdfs:range o:Short .
o:pages a owl:DatatypeProperty ; rdfs:range [ a rdfs:Datatype ; owl:onDatatype xsd:integer ;
    owl:withRestrictions ( [ xsd:minInclusive 1 ] [ xsd:maxExclusive "10000"^^xsd:integer ] ) ] .
o:day a owl:DatatypeProperty ; rdfs:range [ a rdfs:Datatype ; owl:onDatatype xsd:dateTime ;
    owl:withRestrictions ( [ xsd:minInclusive "2000-01-01T00:00:00"^^xsd:dateTime ] ) ] .
o:plain a owl:DatatypeProperty ; rdfs:range xsd:string .
"""


@pytest.fixture()
def onto(tmp_path):
    f = tmp_path / "o.ttl"
    f.write_text(ONTO, encoding="utf-8")
    return load_ontology([f])


def _range(onto, prop):
    return next(onto.graph.objects(URIRef(O + prop), URIRef("http://www.w3.org/2000/01/rdf-schema#range")))


def test_restrictions_are_read_named_in_place_and_chained(onto):
    code = datatype_restriction(onto.graph, _range(onto, "code"))
    assert code.base == XSD.string and code.name == URIRef(O + "Code")
    assert code.describe() == 'xsd:string[pattern "[A-Z]{2}[0-9]+", maxLength 5]'
    short = datatype_restriction(onto.graph, _range(onto, "short"))  # defined from o:Code: both levels' facets
    assert short.base == XSD.string and [str(f).rsplit("#")[-1] for f, _ in short.facets] == \
        ["pattern", "maxLength", "minLength"]
    assert datatype_restriction(onto.graph, _range(onto, "pages")).name is None
    assert datatype_restriction(onto.graph, XSD.string) is None
    assert datatype_restriction(onto.graph, URIRef(O + "Book")) is None


def test_literals_of_a_restricted_range_carry_its_base_datatype(onto):
    assert onto.datatype_ranges(URIRef(O + "code")) == {XSD.string}
    assert onto.datatype_ranges(URIRef(O + "short")) == {XSD.string}
    assert onto.datatype_ranges(URIRef(O + "pages")) == {XSD.integer}
    assert onto.datatype_ranges(URIRef(O + "plain")) == {XSD.string}


@pytest.mark.parametrize("prop, value, why", [
    ("code", "AB12", None),
    ("code", "xAB12", 'does not match the pattern "[A-Z]{2}[0-9]+"'),  # anchored: a match inside is not enough
    ("code", "AB1234", "has 6 characters, maxLength 5"),
    ("short", "AB1", "has 3 characters, minLength 4"),
    ("pages", "1", None), ("pages", "0", "is not >= 1 (minInclusive)"), ("pages", "+0010", None),
    ("pages", "10000", "is not < 10000 (maxExclusive)"), ("pages", "ten", None),  # ill-typed: SV2's to report
    ("day", "1999-12-31T23:59:59", "is not >= 2000-01-01T00:00:00 (minInclusive)"), ("day", "2001-01-01T00:00:00", None),
])
def test_facets(onto, prop, value, why):
    assert facet_violation(datatype_restriction(onto.graph, _range(onto, prop)), value) == why


def test_xsd_patterns_become_anchored_shacl_patterns():
    assert anchored_pattern("97[89][0-9]{10}") == "^(?:97[89][0-9]{10})$"
    assert anchored_pattern("[a-z-[aeiou]]+(") is None  # not readable by Python's re: not checked


def test_derived_shapes_carry_the_facets(onto):
    sg = derive_shapes(onto)
    code = SHAPES["range-code-Code-p"]
    assert sg.value(code, SH.datatype) == XSD.string
    assert sg.value(code, SH.pattern) == Literal("^(?:[A-Z]{2}[0-9]+)$")
    assert sg.value(code, SH.maxLength) == Literal(5)
    pages = SHAPES["range-pages-restriction-p"]
    assert sg.value(pages, SH.minInclusive) == Literal(1) and sg.value(pages, SH.maxExclusive) == Literal(10000)
    assert sg.value(SHAPES["range-short-Short-p"], SH.minLength) == Literal(4)


def _kg(text: str) -> Graph:
    return Graph().parse(data="@prefix o: <http://ex.org/o#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                         + text, format="turtle")


def test_axiom_check_and_the_causes_of_an_inconsistency(onto):
    kg = _kg('<http://ex.org/b1> o:pages 0 ; o:code "AB12" . <http://ex.org/b2> o:pages 5 ; o:code "ab" ; '
             'o:short "Q"^^o:Short .')
    causes = inconsistency_causes(kg, onto)
    assert [(c.location, c.code, c.term) for c in causes] == [
        ("http://ex.org/b1", "datatype-facet", '"0"^^<http://www.w3.org/2001/XMLSchema#integer>'),
        ("http://ex.org/b2", "datatype-facet", '"ab"')]  # a literal of the restricted datatype itself: not judged
    assert causes[1].message == ('the value "ab" of <http://ex.org/o#code> is outside its range '
                                 'xsd:string[pattern "[A-Z]{2}[0-9]+", maxLength 5]: it does not match the pattern '
                                 '"[A-Z]{2}[0-9]+"')
    check = AxiomCheck(onto.graph)
    check.add(pyoxigraph.NamedNode("http://ex.org/b3"), pyoxigraph.NamedNode(O + "pages"),
              pyoxigraph.Literal("x", datatype=pyoxigraph.NamedNode(str(XSD.string))))
    result = check.result()
    assert result.value is False and [f.code for f in result.findings] == ["datatype-range"]
    assert result.details["axioms"]["datatype_facets"] == 8  # code 2, short 2 + 1, pages 2, day 1


def test_a_length_facet_is_equal_minimum_and_maximum_lengths():
    g = Graph().parse(data="""@prefix o: <http://ex.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    o:iso a owl:DatatypeProperty ; rdfs:range [ owl:onDatatype xsd:string ; owl:withRestrictions ( [ xsd:length 3 ] ) ] .
    """, format="turtle")
    shape = SHAPES["range-iso-restriction-p"]
    sg = derive_shapes(g)
    assert (sg.value(shape, SH.minLength), sg.value(shape, SH.maxLength)) == (Literal(3), Literal(3))
    restriction = datatype_restriction(g, g.value(URIRef(O + "iso"), URIRef("http://www.w3.org/2000/01/rdf-schema#range")))
    assert facet_violation(restriction, "BEL") is None and facet_violation(restriction, "BE") == "has 2 characters, length 3"
