"""Every source and column is mapped or reported: rows for a source no name matches, a finding
per unmapped column, the count on the console line."""
from __future__ import annotations

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.run.runner import RunConfig, run_case

from helpers import case_manifest, cells, map_lexically


def test_unmapped_source_gets_rows_and_every_unmapped_column_is_a_finding():
    _, rows = map_lexically("unmapped-source-silent")
    assert cells(rows, "data_reference", "ontology_property", "entity_class") == {
        ("member_no", "lib:patronId", "lib:Patron"), ("given", "lib:firstName", "lib:Patron"),
        ("family", "lib:surname", "lib:Patron"), ("joined", "lib:registeredOn", "lib:Patron")}
    assert {r.function_name for r in rows if r.data_reference == "joined"} == {"toDate()"}
    result, rows = map_lexically("language-tag-from-column")
    messages = [f["message"] for f in result.provenance["findings"]]
    assert rows == [] and any("no row maps notes.csv" in m for m in messages)
    assert {m.split("'")[1] for m in messages if m.startswith("column ")} == {"id", "note", "lang"}


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
    assert cells(result.table, "data_reference", "ontology_property", "entity_class", "subject_template") == {
        ("zq1", "lib:patronId", "lib:Patron", "http://example.org/patron/{zq1}")}
    assert any(f["value"] == "zq2" for f in result.provenance["findings"])


def test_console_line_says_how_many_warnings_are_unmapped_columns(tmp_path):
    run = run_case(case_manifest("language-tag-from-column"), RunConfig(out_dir=tmp_path, mapper="offline", evaluate=False))
    # id -> ex:count and note -> ex:title are proposed (both marked for review), lang is left unmapped
    assert "warnings=3 (1 unmapped column)" in run.summary()
