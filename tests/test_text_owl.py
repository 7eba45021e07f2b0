"""A user's OWL/RDFS ontology as a text case's ontology (pipeline.text.owl) and the KG's terms and
literals from it (pipeline.text.rdf), on real rdflib parses of small files."""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph, Literal, URIRef, XSD

from pipeline.text.data import Relation
from pipeline.text.owl import is_rdf_file, rdf_text_ontology
from pipeline.text.rdf import kg_graph

UNI = Path(__file__).parent / "cases" / "text-owl-ontology" / "university.ttl"
U = "http://example.org/uni#"


def test_classes_and_properties_of_an_owl_file():
    onto = rdf_text_ontology(UNI)
    assert onto.name == "university"
    assert onto.concepts == ["City", "College", "Person", "University"]
    assert onto.parents == {"College": {"University"}}
    # labels name the relations; the annotation property describing the file is no relation
    assert onto.relations == {
        "established": Relation("established", "University", "Year", "foundingYear", str(XSD.gYear)),
        "city": Relation("city", "University", "City", "locatedIn", ""),
        "motto": Relation("motto", "University", "string", "motto", str(XSD.string)),
        "rector": Relation("rector", "University", "Person", "rector", ""),
        "academic staff size": Relation("academic staff size", "University", "number", "staffSize", str(XSD.integer)),
    }
    assert onto.term_iris[("relation", "city")] == U + "locatedIn"
    assert onto.term_iris[("class", "College")] == U + "College"
    assert onto.rdf_files == [str(UNI)]
    # a triple may name the relation by its label or by its IRI's local name
    assert onto.resolve("staffSize") == "academic staff size" and onto.resolve("academic_staff_size") == "academic staff size"


def test_rdfxml_unions_shared_labels_and_missing_ranges(tmp_path):
    ttl = tmp_path / "v.ttl"
    ttl.write_text("""
@prefix : <http://ex.org/v#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Person a owl:Class . :Company a owl:Class .
:name a owl:DatatypeProperty ; rdfs:label "name" ; rdfs:domain [ owl:unionOf ( :Person :Company ) ] .
:fullName a owl:DatatypeProperty ; rdfs:label "Name" ; rdfs:domain :Person .
:knows a owl:ObjectProperty ; rdfs:domain :Person .
:worksFor a owl:ObjectProperty ; rdfs:label "works for" ; rdfs:domain :Person ; rdfs:range :Company .
""", encoding="utf-8")
    owl = tmp_path / "v.owl"  # RDF/XML, read by its extension
    Graph().parse(ttl).serialize(owl, format="xml")
    onto = rdf_text_ontology(owl)
    assert onto.concepts == ["Company", "Person"]
    assert onto.relations == {
        # one label for two properties: each named by its local name
        "fullName": Relation("fullName", "Person", "string", "fullName", ""),
        "name": Relation("name", "", "string", "name", ""),  # a union domain: any subject
        "knows": Relation("knows", "Person", "", "knows", ""),  # no range: open, typed by each value
        "works for": Relation("works for", "Person", "Company", "worksFor", ""),
    }


def test_declared_datatype_written_or_value_left_out():
    onto = rdf_text_ontology(UNI)
    outputs = [("s1", [{"sub": "Omega University", "rel": "academic staff size", "obj": "2,500"},
                       {"sub": "Kappa University", "rel": "staffSize", "obj": "12.5"}])]
    g, dropped = kg_graph(outputs, onto, "http://example.org/kg/")
    omega = URIRef("http://example.org/kg/Omega%20University")
    assert set(g.objects(omega, URIRef(U + "staffSize"))) == {Literal("2500", datatype=XSD.integer)}
    assert [d["reason"] for d in dropped] == ["lexical form '12.5' not valid for datatype xsd:integer"]


def test_which_files_are_rdf(tmp_path):
    cases = {"a.ttl": "@prefix : <http://x/> .", "b.json": '{"concepts": [], "relations": []}',
             "c.jsonld": '{"@context": {"x": "http://x/"}, "@id": "http://x/o"}', "d.json": "",
             "e.json": '[{"sub": 1}]', "f.owl": "<?xml version='1.0'?><rdf:RDF/>"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert {n: is_rdf_file(tmp_path / n) for n in cases} == {
        "a.ttl": True, "b.json": False, "c.jsonld": True, "d.json": False, "e.json": False, "f.owl": True}
    assert is_rdf_file(tmp_path / "missing.ttl") is False
