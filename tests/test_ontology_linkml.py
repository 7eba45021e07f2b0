"""LinkML-generated OWL (``gen-owl``, default ``--type-objects``): a slot is an ``owl:ObjectProperty`` and its literal
range a class standing for a datatype (linkml-model ``meta.yaml``: a ``TypeDefinition``'s instances "are atomic scalar
values that can be mapped to primitive types"; ``types.yaml``: each built-in type's ``uri``). pipeline.ontology reads
such a class as the datatype it stands for and such a slot as a datatype property; the mapper then gives it a literal
column, and the SHACL derivation expects literals of that datatype. Case ``map-linkml-owl-literal-slots``.
"""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS, XSD

from pipeline.ontology import Ontology
from pipeline.validation.shacl import validate_shacl

from helpers import map_files

#: A LinkML schema's OWL as gen-owl writes it: metaclasses on, the built-in types named but not declared (recent
#: generators), one type under a built-in (``typeof``), one stating its ``uri`` by a ``topValue`` restriction, one of
#: no ``uri`` the files say, one standing for IRIs (``shex:iri``), slots under a parent slot of range ``String``
#: (the golden case's vocabulary).
LINKML_OWL = (Path(__file__).resolve().parent / "cases" / "map-linkml-owl-literal-slots" / "people.owl.ttl").read_text(
    encoding="utf-8")
EX = "https://example.org/people/"
LINKML = "https://w3id.org/linkml/"


def _ontology(text: str = LINKML_OWL) -> Ontology:
    return Ontology(graph=Graph().parse(data=text, format="turtle"))


def test_linkml_types_are_the_datatypes_their_definitions_state():
    o = _ontology()
    assert {str(k): str(v) for k, v in o.linkml_types.items()} == {
        EX + "NameType": str(XSD.string),      # typeof linkml:String (types.yaml: uri xsd:string)
        EX + "Year": str(XSD.gYear),           # its own topValue restriction
        EX + "Code": str(RDFS.Literal),        # a TypeDefinition whose uri the files do not say
        LINKML + "Date": str(XSD.date),        # a built-in named in a range only
        LINKML + "String": str(XSD.string)}
    assert sorted(str(c) for c in o.classes) == [EX + "NodeRef", EX + "Organization", EX + "Person",
                                                 LINKML + "SlotDefinition", LINKML + "TypeDefinition"]


def test_a_slot_of_a_type_range_is_a_datatype_property_of_that_datatype():
    o = _ontology()
    p = lambda n: URIRef(EX + n)  # noqa: E731
    assert [o.kind(p(n)) for n in ("full_name", "birth_date", "founded", "code", "works_for", "ref")] == [
        "datatype_property", "datatype_property", "datatype_property", "datatype_property",
        "object_property", "object_property"]
    # the slot's own range replaces its parent slot's (node_property, range linkml:String)
    assert o.ranges(p("birth_date")) == {XSD.date} and o.datatype_ranges(p("birth_date")) == {XSD.date}
    assert o.ranges(p("full_name")) == {XSD.string} and o.ranges(p("founded")) == {XSD.gYear}
    assert o.ranges(p("works_for")) == {URIRef(EX + "Organization")}


def test_no_linkml_reading_without_the_metamodel():
    text = LINKML_OWL.replace("https://w3id.org/linkml/", "https://example.org/other-meta/")
    o = _ontology(text)
    assert o.linkml_types == {}
    assert o.kind(URIRef(EX + "full_name")) == "object_property"
    assert URIRef(EX + "NameType") in o.classes


def test_the_mapper_gives_literal_columns_to_linkml_slots(tmp_path):
    rows = map_files(tmp_path, {
        "people.owl.ttl": LINKML_OWL,
        "people.csv": "person_id,full_name,birth_date\nP1,Ada Lovelace,1815-12-10\nP2,Alan Turing,1912-06-23\n"
                      "P3,Grace Hopper,1906-12-09\n"},
        "name: p\nsources: [people.csv]\nontologies: [people.owl.ttl]\nprefixes: {ex: \"https://example.org/people/\"}\n")
    assert [(rows[c]["ontology_property"], rows[c]["entity_class"], rows[c]["datatype"])
            for c in ("full_name", "birth_date")] == [("ex:full_name", "ex:Person", "xsd:string"),
                                                     ("ex:birth_date", "ex:Person", "xsd:date")]


def test_shacl_expects_literals_of_the_type_on_a_linkml_slot():
    o = _ontology()
    ada = URIRef("https://example.org/data/P1")
    kg = Graph()
    kg.add((ada, URIRef(EX + "full_name"), Literal("Ada Lovelace")))
    kg.add((ada, URIRef(EX + "birth_date"), Literal("1815-12-10", datatype=XSD.date)))
    result = validate_shacl(kg, o)
    assert result.value is True and result.details["by_severity"].get("Violation", 0) == 0
    bad = Graph()
    bad.add((ada, URIRef(EX + "full_name"), URIRef("https://example.org/data/name")))
    bad.add((ada, URIRef(EX + "birth_date"), Literal("1815-12-10")))
    result = validate_shacl(bad, o)
    assert result.value is False
    assert sorted(s for s, n in result.details["by_shape"].items() if n.get("Violation")) == [
        "urn:kgc:shapes:kind-full_name-p", "urn:kgc:shapes:range-birth_date-date-p",
        "urn:kgc:shapes:range-full_name-string-p"]


def test_a_qualified_count_on_a_linkml_type_counts_literals_of_its_datatype():
    o = _ontology()  # ex:Person rdfs:subClassOf [ owl:onProperty ex:full_name ; owl:onClass ex:NameType ; max 1 ]
    ada = URIRef("https://example.org/data/P1")
    kg = Graph()
    kg.add((ada, RDFS.label, Literal("Ada")))
    kg.add((ada, URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), URIRef(EX + "Person")))
    kg.add((ada, URIRef(EX + "full_name"), Literal("Ada Lovelace")))
    assert validate_shacl(kg, o).value is True
    kg.add((ada, URIRef(EX + "full_name"), Literal("Augusta Ada King")))
    result = validate_shacl(kg, o)
    assert sorted(s for s, n in result.details["by_shape"].items() if n.get("Violation")) == [
        "urn:kgc:shapes:card-max-Person-full_name-p"]
