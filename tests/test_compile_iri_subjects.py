"""A subject template of one reference whose values are IRIs (a JSON-LD ``@id``) makes those IRIs the subjects,
run by Morph-KGC; one value that is no absolute IRI keeps the template's R2RML reading (base IRI + encoded value)."""
from __future__ import annotations

import json

from rdflib import URIRef
from rdflib.namespace import RDF

from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import materialize_compiled

TABLE = """| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | Subject Generation | Join Condition | Datatype | Language Tag | Function Name | Function Output |
|---|---|---|---|---|---|---|---|---|---|---|
| name | things.json | ex:name | ex:Thing |  | {ref} |  | xsd:string |  |  |  |
"""


def _kg(tmp_path, refs):
    (tmp_path / "things.json").write_text(json.dumps([{"ref": r, "name": f"n{i}"} for i, r in enumerate(refs)]),
                                          encoding="utf-8")
    (tmp_path / "ex.ttl").write_text("@prefix ex: <http://example.org/ns#> . @prefix owl: "
                                     "<http://www.w3.org/2002/07/owl#> .\nex:Thing a owl:Class .\n"
                                     "ex:name a owl:DatatypeProperty ; <http://www.w3.org/2000/01/rdf-schema#domain> "
                                     "ex:Thing .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [{path: things.json}]\nontologies: [ex.ttl]\n"
                                        "base_iri: http://example.com/base/\n"
                                        "prefixes: {ex: 'http://example.org/ns#'}\n", encoding="utf-8")
    (tmp_path / "table.md").write_text(TABLE, encoding="utf-8")
    case = load_manifest(tmp_path / "case.yaml")
    sources = [load_source(s) for s in case.sources]
    compiled = compile_table(read_table(tmp_path / "table.md"), load_ontology(case.ontologies), case, sources)
    return compiled, materialize_compiled(compiled, sources, tmp_path)


def test_a_reference_of_iris_is_the_subject_as_written(tmp_path):
    compiled, kg = _kg(tmp_path, ["http://irail.be/stations/a", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"])
    assert set(kg.subjects(RDF.type, URIRef("http://example.org/ns#Thing"))) == {
        URIRef("http://irail.be/stations/a"), URIRef("urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66")}
    assert [f.message for f in compiled.plan.findings if f.column == "subject_template"] == [
        "every value of 'ref' is an absolute IRI: the subject is the value itself (rml:reference), not the value "
        "percent-encoded after the base IRI"]


def test_one_value_that_is_no_iri_keeps_the_template(tmp_path):
    compiled, kg = _kg(tmp_path, ["http://irail.be/stations/a", "ex:b"])
    assert set(kg.subjects(RDF.type, URIRef("http://example.org/ns#Thing"))) == {
        URIRef("http://example.com/base/http%3A%2F%2Firail.be%2Fstations%2Fa"), URIRef("http://example.com/base/ex%3Ab")}
    assert any("subject template is a relative IRI" in f.message for f in compiled.plan.findings)
