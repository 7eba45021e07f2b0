"""Regression tests for the unseen-data cases of ../shared/cases (issue 10): sources, ontology, offline mapper.

Each test reads a case folder in place and asserts the case's right value; it skips when the
folder is absent. The mapper runs lexically (no embedding model) to stay fast.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from rdflib import Graph, URIRef

from pipeline.compile import compile_table
from pipeline.sources.namespaces import bind_default_prefix
from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.run.runner import RunConfig, run_case
from pipeline.sources.load import load_source

CASES = Path(__file__).resolve().parent.parent.parent / "shared" / "cases"


def _case(name: str, manifest: str = "case.yaml"):
    path = CASES / name / manifest
    if not path.is_file():
        pytest.skip(f"case folder not found: {path.parent}")
    return load_manifest(path)


def _map(name: str, manifest: str = "case.yaml"):
    result = map_case(get_mapper("offline"), _case(name, manifest), use_embeddings=False)
    return result, list(result.table)


def _cells(rows, *cols):
    return {tuple(getattr(r, c) for c in cols) for r in rows}


def test_bind_default_prefix_rewrites_element_names_only():
    assert bind_default_prefix("/catalog/item[code='A1']/title", "d") == "/d:catalog/d:item[d:code='A1']/d:title"
    assert bind_default_prefix("item/@code", "d") == "d:item/@code"
    assert bind_default_prefix("count(child::item) and n:x", "d") == "count(child::d:item) and n:x"


def test_xml_default_namespace_mapper_maps_like_prefixed(tmp_path):
    case = _case("xml-default-namespace-mapper")
    data = load_source(case.sources[0], tmp_path)
    assert (data.iterator, len(data.records), data.default_prefixes) == ("/d:Notice", 1, {"urn:example:notice": "d"})
    assert 'xmlns:d="urn:example:notice"' in data.path.read_text(encoding="utf-8")
    assert any(f.stage == "xml-repair" and "default namespace <urn:example:notice>" in f.message for f in data.findings)
    _, default = _map("xml-default-namespace-mapper")
    _, prefixed = _map("xml-default-namespace-mapper", "case_prefixed.yaml")
    cols = ("data_reference", "ontology_property", "entity_class")
    assert {(r.replace("d:", "n:"), p, c) for r, p, c in _cells(default, *cols)} == _cells(prefixed, *cols)
    assert ("d:Title", "ex:hasTitle", "ex:Notice") in _cells(default, *cols)


def test_xml_iterator_matching_nothing_is_a_finding(tmp_path):
    case = _case("xml-default-namespace-mapper")
    src = dataclasses.replace(case.sources[0], iterator="/Nothing/Here")
    data = load_source(src, tmp_path)
    found = [f for f in data.findings if f.column == "iterator"]
    assert data.records == [] and len(found) == 1
    assert "selects no record" in found[0].message and "urn:example:notice" in found[0].message
    assert found[0].file.endswith("notice.xml") and found[0].candidate == "/d:Notice"


def test_xml_default_namespace_table_unprefixed_paths_compile_and_run(tmp_path):
    case = _case("xml-default-namespace-table")
    run = run_case(case, RunConfig(out_dir=tmp_path, mapper="replay",
                                   mapper_options={"table": str(CASES / "xml-default-namespace-table" / "table.md")},
                                   evaluate=False))
    assert run.status == "ok"
    kg = Graph().parse(run.folder / "kg.nt", format="nt")
    titles = {(str(s), str(o)) for s, o in kg.subject_objects(URIRef("http://example.org/o#title"))}
    assert titles == {("http://example.org/item/A1", "Lamp"), ("http://example.org/item/B2", "Desk")}
    info = [f for f in run.findings if f.stage == "audit" and f.severity == "info"]
    assert {f.candidate for f in info} == {"d:title", "d:code"}
    cov = json.loads((run.folder / "run.json").read_text())["coverage"]["items.xml"]
    assert (cov["columns"], cov["columns_mapped"], cov["records"], cov["records_with_subject"]) == (2, 2, 2, 2)


def test_numeric_identifier_key():
    _, rows = _map("numeric-identifier-key")
    assert _cells(rows, "data_reference", "ontology_property", "subject_template") == {
        ("isbn", "lib:isbn13", "http://example.org/library/edition/{isbn}"),
        ("title", "lib:editionTitle", "http://example.org/library/edition/{isbn}")}


def test_xml_document_key_not_constant_and_top_level_elements():
    result, rows = _map("xml-document-key-constant")
    assert {r.subject_template for r in rows if r.entity_class == "ex:Buyer"} == {
        "http://example.org/buyer/$(/n:Notice/n:ID)"}
    assert _cells(rows, "source_file", "data_reference", "ontology_property") >= {
        ("notice1.xml", "/n:Notice/n:Title", "ex:hasTitle"), ("notice2.xml", "/n:Notice/n:DispatchDate",
                                                               "ex:hasDispatchDate")}
    assert not any("VersionID" in (r.subject_template or "") for r in rows)
    assert any("n:VersionID" in f["message"] and "same value '2.3'" in f["message"]
               for f in result.provenance["findings"])


def test_foreign_keys_become_relations_without_second_copy():
    _, rows = _map("foreign-key-without-relation")
    rel = _cells([r for r in rows if r.related_entity_class], "data_reference", "ontology_property",
                 "related_entity_class", "join_condition")
    assert rel == {("isbn", "lib:lentItem", "lib:Edition", "loans.isbn==books.isbn"),
                   ("member_no", "lib:lentTo", "lib:Patron", "loans.member_no==members.member_no")}
    assert not [r for r in rows if r.source_file == "loans.csv" and r.entity_class == "lib:Edition"]
    editions = {r.subject_template for r in rows if r.entity_class == "lib:Edition"}
    assert editions == {"http://example.org/library/edition/{isbn}"}


def test_language_column_gives_per_record_tag():
    _, rows = _map("language-column-ignored")
    title = [r for r in rows if r.data_reference == "title"]
    assert [(r.datatype, r.language_tag) for r in title] == [("rdf:langString", "{lang_code}")]


def test_language_tag_from_column_detected_and_never_default_en(tmp_path):
    from pipeline.mappers.offline.language import choose_language, language_column
    case = _case("language-tag-from-column")
    data = load_source(case.sources[0], tmp_path)
    assert language_column(data, data.references, exclude=("id",))[0] == "lang"
    cell, why, unsure = choose_language(data, "note", "notes.csv", None)
    assert (cell, unsure) == (None, True) and "no language tag" in why


def test_unmapped_source_gets_rows_and_every_unmapped_column_is_a_finding():
    _, rows = _map("unmapped-source-silent")
    assert _cells(rows, "data_reference", "ontology_property", "entity_class") == {
        ("member_no", "lib:patronId", "lib:Patron"), ("given", "lib:firstName", "lib:Patron"),
        ("family", "lib:surname", "lib:Patron"), ("joined", "lib:registeredOn", "lib:Patron")}
    assert {r.function_name for r in rows if r.data_reference == "joined"} == {"toDate()"}
    result, rows = _map("language-tag-from-column")
    messages = [f["message"] for f in result.provenance["findings"]]
    assert rows == [] and any("no row maps notes.csv" in m for m in messages)
    assert {m.split("'")[1] for m in messages if m.startswith("column ")} == {"id", "note", "lang"}


def test_rdfs_domain_class_is_a_class_for_mapper_and_audit(tmp_path):
    case = _case("rdfs-domain-class")
    ont = load_ontology(case.ontologies, case.prefixes)
    media = URIRef("http://example.org/media#MediaResource")
    assert media in ont.classes and media in ont.implied_classes()
    result, rows = _map("rdfs-domain-class")
    compiled = compile_table(result.table, ont, case, [load_source(s, tmp_path) for s in case.sources])
    assert not compiled.audit.dropped
    assert ("mime_type", "ex:MediaResource") in _cells(compiled.audit.kept, "data_reference", "entity_class")


def test_json_null_sibling_values_survive(tmp_path):
    folder = CASES / "json-null-sibling-values-lost"
    if not folder.is_dir():
        pytest.skip("case folder not found")
    from pipeline.sources.engine_copy import json_engine_copies
    rml = Graph().parse(folder / "mapping.ttl", format="turtle")
    findings = json_engine_copies(rml, folder, tmp_path / "inputs")
    assert len(findings) == 1 and findings[0].stage == "json-repair"
    engine = tmp_path / "m.ttl"
    normalize_rml(rml).graph.serialize(engine, format="turtle")
    kg = materialize(engine)
    assert len(kg.triples) == 4 and any('"First film"' in t for t in kg.triples)


def test_json_dotted_key_never_proposed(tmp_path):
    case = _case("json-key-with-dot")
    data = load_source(case.sources[0], tmp_path)
    assert set(data.unaddressable) == {"tags.code"}
    result, rows = _map("json-key-with-dot")
    assert not [r for r in rows if "tags" in (r.data_reference or "")]
    assert any("'tags.code'" in f["message"] and "nested path" in f["message"] for f in result.provenance["findings"])


def test_source_matching_nothing_still_gets_its_entity(tmp_path):
    (tmp_path / "patrons.csv").write_text("zq1,zq2\nM-001,x\nM-002,y\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(
        "@prefix lib: <http://example.org/library#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "lib:Patron a owl:Class ; rdfs:label \"Patron\"@en .\n"
        "lib:patronId a owl:DatatypeProperty ; rdfs:domain lib:Patron ; rdfs:range xsd:string ; "
        "rdfs:label \"patron identifier\"@en .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: p\nscenario: t\nbase_iri: http://example.org/\n"
                                        "sources: [patrons.csv]\nontologies: [o.ttl]\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    assert _cells(result.table, "data_reference", "ontology_property", "entity_class", "subject_template") == {
        ("zq1", "lib:patronId", "lib:Patron", "http://example.org/patron/{zq1}")}
    assert any(f["value"] == "zq2" for f in result.provenance["findings"])


def test_ontology_identifier_property_decides_the_key(tmp_path):
    (tmp_path / "works.csv").write_text("title,reference\nEmma,R-17\nPersuasion,R-18\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(
        "@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Work a owl:Class ; rdfs:label \"work\"@en .\n"
        "ex:title a owl:DatatypeProperty ; rdfs:domain ex:Work ; rdfs:range xsd:string ; rdfs:label \"title\"@en .\n"
        "ex:reference a owl:DatatypeProperty, owl:InverseFunctionalProperty ; rdfs:domain ex:Work ; "
        "rdfs:range xsd:string ; rdfs:label \"reference\"@en .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: w\nscenario: t\nbase_iri: http://example.org/\n"
                                        "sources: [works.csv]\nontologies: [o.ttl]\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    assert {r.subject_template for r in result.table} == {"http://example.org/work/{reference}"}
    assert "owl:InverseFunctionalProperty" in result.provenance["sources"][0]["key_evidence"]


def test_unprefixed_manifest_iterator_is_bound(tmp_path):
    case = _case("xml-default-namespace-table")
    data = load_source(dataclasses.replace(case.sources[0], iterator="/catalog/item"), tmp_path)
    assert (data.iterator, len(data.records)) == ("/d:catalog/d:item", 2)
    assert any(f.column == "iterator" and f.candidate == "/d:catalog/d:item" for f in data.findings)


def test_local_name_reference_is_refused_with_the_bound_path(tmp_path):
    from pipeline.compile.audit import audit_table
    from pipeline.table import MappingRow, MappingTable
    case = _case("xml-default-namespace-table")
    ont = load_ontology(case.ontologies, case.prefixes)
    row = MappingRow(data_reference="*[local-name()='title']", source_file="items.xml", ontology_property="ex:title",
                     entity_class="ex:Record", subject_template="http://example.org/item/{code}", datatype="xsd:string",
                     line=3)
    result = audit_table(MappingTable(rows=[row]), ont, case, [load_source(s, tmp_path) for s in case.sources])
    errors = [f for f in result.findings if f.severity == "error"]
    assert len(errors) == 1 and errors[0].candidate == "d:title" and "local-name()" in errors[0].message


def test_console_line_says_how_many_warnings_are_unmapped_columns(tmp_path):
    run = run_case(_case("language-tag-from-column"), RunConfig(out_dir=tmp_path, mapper="offline", evaluate=False))
    assert "(3 unmapped columns)" in run.summary()
