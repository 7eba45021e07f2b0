"""Audit of datatype cells: XSD datatypes, declared ranges of datatype properties, and the rest."""
from __future__ import annotations

from pathlib import Path

from pipeline.compile.audit import audit_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import MappingRow, MappingTable

ROOT = Path(__file__).resolve().parent.parent
EXTRA = """@prefix ex: <http://example.org/ontology#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
ex:homepage a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range foaf:page .
"""


def test_a_declared_range_of_a_datatype_property_is_used_with_a_warning(tmp_path: Path) -> None:
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    extra = tmp_path / "extra.ttl"
    extra.write_text(EXTRA, encoding="utf-8")
    onto = load_ontology([*case.ontologies, extra], {**case.prefixes, "foaf": "http://xmlns.com/foaf/0.1/"})
    assert onto.datatype_ranges(onto.expand("ex:homepage")) == {onto.expand("foaf:page")}
    assert "http://xmlns.com/foaf/0.1/page" not in {str(c) for c in onto.classes}
    sources = [load_source(s) for s in case.sources]
    rows = [MappingRow(data_reference="name", source_file="people.csv", ontology_property=p, entity_class="ex:Person",
                       subject_template="http://example.org/person/{person_id}", datatype="foaf:page", line=i)
            for i, p in enumerate(("ex:homepage", "ex:name"), start=1)]
    result = audit_table(MappingTable(rows=rows, source="t.md"), onto, case, sources)
    got = sorted((f.line, f.severity) for f in result.findings if f.column == "datatype")
    # ex:homepage declares foaf:page as its range: kept; ex:name ranges over xsd:string: the row is dropped
    assert got == [(1, "warning"), (2, "error")]
    assert [r.line for r in result.dropped] == [2]


def test_is_langstring_is_one_reading_for_every_stage():
    from rdflib.namespace import RDF, XSD
    from pipeline.ontology import is_langstring
    assert is_langstring(RDF.langString) is True
    assert is_langstring(str(XSD) + "langString") is True  # the slip BLINKG's ontologies make
    assert is_langstring("http://example.org/vocab#langString") is True
    assert is_langstring(XSD.string) is False
    assert is_langstring("http://example.org/vocab#notlangString") is False
    assert is_langstring(None) is False


KINDS = """@prefix ex: <http://example.org/ontology#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Person a owl:Class . ex:Page a owl:Class .
ex:mail a owl:DatatypeProperty ; rdfs:range xsd:string .
ex:homepage a rdf:Property ; rdfs:range xsd:anyURI .
ex:either a rdf:Property ; rdfs:range [ owl:unionOf ( xsd:anyURI ex:Page ) ] .
ex:site a rdf:Property ; rdfs:range ex:Page .
ex:knows a owl:ObjectProperty .
ex:free a rdf:Property .
"""


def test_iris_for_a_literal_property_and_literals_for_a_class_range_are_warned(tmp_path: Path) -> None:
    """Case compile-iri-values-for-literal-property: each row's warning column, and none where a range admits
    both (a union of a datatype and a class) or nothing is stated."""
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    f = tmp_path / "kinds.ttl"
    f.write_text(KINDS, encoding="utf-8")
    onto = load_ontology([f], case.prefixes)
    sources = [load_source(s) for s in case.sources]
    cells = [("ex:mail", "IRI", "mailto()"), ("ex:homepage", "IRI", ""), ("ex:either", "IRI", ""),
             ("ex:site", "IRI", ""), ("ex:site", "xsd:string", ""), ("ex:knows", "xsd:string", ""),
             ("ex:free", "IRI", ""), ("ex:free", "xsd:string", ""), ("ex:mail", "xsd:string", "")]
    rows = [MappingRow(data_reference="name", source_file="people.csv", ontology_property=p, entity_class="ex:Person",
                       subject_template="http://example.org/person/{person_id}", datatype=dt, function_name=fn,
                       line=i) for i, (p, dt, fn) in enumerate(cells, start=1)]
    result = audit_table(MappingTable(rows=rows, source="t.md"), onto, case, sources)
    got = sorted((f.line, f.column, f.candidate) for f in result.findings
                 if f.severity == "warning" and ("writes IRIs" in f.message or "written as literals" in f.message))
    assert got == [(1, "datatype", "xsd:string"), (2, "datatype", "xsd:anyURI"),
                   (5, "related_entity_class", None), (6, "related_entity_class", None)]
    first = next(f for f in result.findings if f.line == 1 and "writes IRIs" in f.message)
    assert first.message == ("'ex:mail' is an owl:DatatypeProperty, whose values are literals (OWL 2 Structural "
                             "Specification 5.4), of range xsd:string, but Datatype 'IRI' with mailto() writes IRIs: "
                             "an IRI is in no datatype's value space, so the KG fails the shapes derived from the "
                             "ontology")


def test_a_schema_org_listing_entails_no_literal_or_iri_warning(tmp_path: Path) -> None:
    """rangeIncludes lists expected types, entailing nothing (schema.org's data model expects text where other
    types are): no warning for a literal of schema:eventStatus nor an IRI of schema:url; rdfs:label's range is
    RDFS's axiomatic rdfs:Literal, stated by no file."""
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    f = tmp_path / "schema.ttl"
    f.write_text("""@prefix schema: <http://schema.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
schema:Thing a rdfs:Class . schema:Event a rdfs:Class . schema:EventStatusType a rdfs:Class .
schema:URL a rdfs:Class, schema:DataType .
schema:eventStatus a rdf:Property ; schema:domainIncludes schema:Event ; schema:rangeIncludes schema:EventStatusType .
schema:url a rdf:Property ; schema:domainIncludes schema:Thing ; schema:rangeIncludes schema:URL .
""".replace("a rdf:Property", "a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property>"), encoding="utf-8")
    onto = load_ontology([f], {"schema": "http://schema.org/"})
    sources = [load_source(s) for s in case.sources]
    cells = [("schema:eventStatus", "xsd:string"), ("schema:url", "IRI"), ("rdfs:label", "IRI")]
    rows = [MappingRow(data_reference="name", source_file="people.csv", ontology_property=p, entity_class="schema:Event",
                       subject_template="http://example.org/e/{person_id}", datatype=dt, line=i)
            for i, (p, dt) in enumerate(cells, start=1)]
    result = audit_table(MappingTable(rows=rows, source="t.md"), onto, case, sources)
    got = [(f.line, f.candidate) for f in result.findings
           if "writes IRIs" in f.message or "written as literals" in f.message]
    assert got == [(3, "rdfs:Literal")]
