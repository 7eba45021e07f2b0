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
