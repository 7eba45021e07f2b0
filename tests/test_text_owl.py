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
        "name": Relation("name", "Company or Person", "string", "name", ""),  # a union domain: the union
        "knows": Relation("knows", "Person", "", "knows", ""),  # no range: open, typed by each value
        "works for": Relation("works for", "Person", "Company", "worksFor", ""),
    }
    assert onto.unions == {"Company or Person": ["Company", "Person"]}
    assert onto.is_a("Person", "Company or Person") and not onto.is_a("Company or Person", "Person")


def test_union_domains_and_ranges_are_classes_that_type_nothing(tmp_path, caplog):
    ttl = tmp_path / "u.ttl"
    ttl.write_text("""
@prefix : <http://ex.org/u#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix schema: <https://schema.org/> .
:Museum a owl:Class . :Person a owl:Class . :City a owl:Class . :Country a owl:Class .
:location a owl:ObjectProperty ; rdfs:domain [ owl:unionOf ( :Museum :Person ) ] ;
    rdfs:range [ owl:unionOf ( :City :Country ) ] .
:near a owl:ObjectProperty ; rdfs:subPropertyOf :location .
:visits a owl:ObjectProperty ; schema:domainIncludes :Person ; schema:domainIncludes :Museum ; rdfs:range :City .
:both a owl:ObjectProperty ; rdfs:domain :Museum , :Person ; rdfs:range :City .
:odd a owl:ObjectProperty ; rdfs:domain [ owl:unionOf ( :Museum [ owl:complementOf :Person ] ) ] .
""", encoding="utf-8")
    onto = rdf_text_ontology(ttl)
    rels = onto.relations
    assert (rels["location"].domain, rels["location"].range) == ("Museum or Person", "City or Country")
    assert (rels["near"].domain, rels["near"].range) == ("Museum or Person", "City or Country")  # inherited
    assert (rels["visits"].domain, rels["visits"].range) == ("Museum or Person", "City")  # schema.org: a union
    assert rels["both"].domain == ""  # two rdfs:domain: their intersection, no union
    assert rels["odd"].domain == ""  # a member that is no named class: not read as its named member
    assert [r.getMessage() for r in caplog.records] == [
        f"{ttl}: odd: rdfs:domain is a class expression kgc does not read (owl:unionOf with a member that is no "
        "named class): the relation has no domain and is never extracted"]
    assert onto.unions == {"Museum or Person": ["Museum", "Person"], "City or Country": ["City", "Country"]}
    g, dropped = kg_graph([("s1", [{"sub": "Rijksmuseum", "rel": "location", "obj": "Amsterdam"},
                                   {"sub": "Rijksmuseum", "rel": "visits", "obj": "Paris"}])], onto, "http://ex.org/kg/")
    assert not dropped
    # the union follows from the domain and range; which member each name is, nothing says
    assert sorted((str(s), str(p), str(o)) for s, p, o in g) == [
        ("http://ex.org/kg/Paris", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "http://ex.org/u#City"),
        ("http://ex.org/kg/Rijksmuseum", "http://ex.org/u#location", "http://ex.org/kg/Amsterdam"),
        ("http://ex.org/kg/Rijksmuseum", "http://ex.org/u#visits", "http://ex.org/kg/Paris")]


def test_a_name_known_by_a_union_is_not_excluded_from_its_members(tmp_path):
    from pipeline.text.data import Sentence
    from pipeline.text.entity_types import TypeGuesser

    ttl = tmp_path / "u.ttl"
    ttl.write_text("""
@prefix : <http://ex.org/u#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Museum a owl:Class . :Person a owl:Class . :City a owl:Class .
:location a owl:ObjectProperty ; rdfs:domain [ owl:unionOf ( :Museum :Person ) ] ; rdfs:range :City .
""", encoding="utf-8")
    onto = rdf_text_ontology(ttl)
    types = TypeGuesser(min_count=1).fit([(onto, Sentence("s", "", [{"sub": "Rembrandt", "rel": "location",
                                                                      "obj": "Leiden"}]))])
    assert types.classes("Rembrandt") == {"Museum or Person": 1.0}
    assert not types.excludes("Rembrandt", "Person", onto) and not types.excludes("Rembrandt", "Museum", onto)
    assert types.excludes("Rembrandt", "City", onto)


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
