"""JSON sources: keys with spaces or dots, nested keys, nulls beside values, records keyed by
member names."""
from __future__ import annotations

from rdflib import Graph, Literal, URIRef

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import CASES, books_case, case_folder, case_manifest, kgc_run, map_lexically, materialize_compiled, table_rows


EX = "http://example.org/"


def test_records_keyed_by_their_identifiers_in_an_object_are_records(tmp_path):
    out = kgc_run(tmp_path, "json-keyed-records")
    rows = sorted(r[:3] for r in table_rows(out / "table.md"))
    assert rows == [("label", "sensors.json", "iot:sensorLabel"), ("model", "sensors.json", "iot:modelName"),
                    ("unit", "sensors.json", "iot:unitOfMeasure")]
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    assert sorted(t.split()[2] for t in kg if "#modelName>" in t) == ['"BMP-388"', '"TMP-117"']
    assert len([t for t in kg if t.endswith("<http://example.org/iot#Sensor> .")]) == 3
    audit = (out / "audit.md").read_text(encoding="utf-8")
    assert ("the records are the members of an object, keyed by 'S-01', 'S-02', 'S-03' (iterator '$.sensors.*'): "
            "a JSONPath reference cannot read a member's name, so these keys are no data") in audit


def test_json_keys_with_inner_spaces_are_mapped_and_read(tmp_path, capsys):
    # keys with inner spaces are addressable (Morph-KGC reads them): listed as references, compiled and read;
    # a key holding '.' or padded with white space is not
    from pipeline.manifest import load_manifest
    from pipeline.sources.load import load_source

    books_case(tmp_path, "| au thor.full name | b.json | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    (tmp_path / "b.json").write_text('[{"id": "1", "au thor": {"full name": "Ann Lee"}, "a.b": "x", " pad": "y"}]',
                                     encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: b\nscenario: s\nsources: [b.json]\nontologies: [onto.ttl]\n",
                                        encoding="utf-8")
    data = load_source(load_manifest(tmp_path / "case.yaml").sources[0], tmp_path / "w")
    assert (data.references, sorted(data.unaddressable)) == (["id", "au thor.full name", "a.b", " pad"], [" pad", "a.b"])
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    assert sorted((tmp_path / "kg.nt").read_text(encoding="utf-8").splitlines()) == [
        '<http://example.org/b/1> <http://example.org/title> "Ann Lee" .',
        "<http://example.org/b/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Book> ."]


def test_json_keys_with_spaces_and_nested_keys_are_read(tmp_path):
    """The control: a key with a space and a nested key (a.b) reach the KG through Morph-KGC."""
    from dataclasses import replace

    from pipeline.manifest import Source

    data = tmp_path / "people.json"
    data.write_text('{"people": [{"id": "a1", "tag code": "T1", "n": {"x": "N1"}}, '
                    '{"id": "a2", "tag code": "T2", "n": {"x": "N2"}}]}', encoding="utf-8")
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
                     "| tag code | ex:title | ex:Record | http://example.org/p/{id} |\n"
                     "| n.x | ex:nick | ex:Record | http://example.org/p/{id} |\n", encoding="utf-8")
    case = load_manifest(CASES / "json-key-with-dot" / "case.yaml")
    case = replace(case, sources=(Source(data, "json", "$.people[*]", "people.json"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    assert not [f for f in compiled.findings if f.severity == "error"]
    kg = materialize_compiled(compiled, sources, tmp_path)
    assert set(kg.objects(URIRef(EX + "p/a2"), None)) >= {Literal("T2"), Literal("N2")}


def test_json_null_sibling_values_survive(tmp_path):
    folder = case_folder("json-null-sibling-values-lost")
    from pipeline.sources.engine_copy import json_engine_copies
    rml = Graph().parse(folder / "mapping.ttl", format="turtle")
    findings = json_engine_copies(rml, folder, tmp_path / "inputs")
    assert len(findings) == 1 and findings[0].stage == "json-repair"
    engine = tmp_path / "m.ttl"
    normalize_rml(rml).graph.serialize(engine, format="turtle")
    kg = materialize(engine)
    assert len(kg.triples) == 4 and any('"First film"' in t for t in kg.triples)


def test_json_dotted_key_never_proposed(tmp_path):
    case = case_manifest("json-key-with-dot")
    data = load_source(case.sources[0], tmp_path)
    assert set(data.unaddressable) == {"tags.code"}
    result, rows = map_lexically("json-key-with-dot")
    assert not [r for r in rows if "tags" in (r.data_reference or "")]
    assert any("'tags.code'" in f["message"] and "nested path" in f["message"] for f in result.provenance["findings"])


def test_sibling_arrays_of_records_are_said_and_read_when_listed(tmp_path):
    from pipeline.manifest import Source

    doc = tmp_path / "cat.json"
    doc.write_text('{"meta": {"n": 2}, "datasets": [{"id": "d1"}, {"id": "d2"}], '
                   '"publishers": [{"id": "p1"}], "tags": ["a", "b"]}', encoding="utf-8")
    data = load_source(Source(doc, "json"))
    assert (data.iterator, len(data.records)) == ("$.datasets[*]", 2)
    assert [(f.severity, f.message) for f in data.findings if f.column == "iterator"] == [(
        "warning", "the object holding the records at '$.datasets[*]' holds 1 more array(s) of records "
        "('publishers'), which are not read: list the file once per array in the manifest, each with its iterator "
        "and a name, e.g. {path: cat.json, iterator: \"$.publishers[*]\", name: publishers}")]
    # the entry the message gives reads them, and says nothing more
    listed = load_source(Source(doc, "json", iterator="$.publishers[*]", name="publishers"))
    assert ([r["id"] for r in listed.records], [f for f in listed.findings if f.column == "iterator"]) == ([["p1"]], [])
    nested = tmp_path / "api.json"
    nested.write_text('{"result": {"orgs": [{"id": "o1"}], "users": [{"id": "u1"}, {"id": "u2"}]}}', encoding="utf-8")
    data = load_source(Source(nested, "json"))
    assert data.iterator == "$.result.orgs[*]"
    assert "e.g. {path: api.json, iterator: \"$.result.users[*]\", name: users}" in data.findings[-1].message
