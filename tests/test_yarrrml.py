"""YARRRML for the RML subset we emit: RML -> YARRRML -> RML gives the same KG in Morph-KGC."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Graph

from pipeline.compile import compile_table
from pipeline.compile.yarrrml import from_yarrrml, read_yarrrml, to_yarrrml
from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

ROOT = Path(__file__).resolve().parent.parent


def _compiled(manifest: Path, tmp_path: Path):
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    return compile_table(read_table(case.gold_table), ontology, case, sources).rml


def _kg(rml: Graph, path: Path) -> set[str]:
    normalize_rml(rml).graph.serialize(path, format="turtle")
    return set(materialize(path).triples)


def test_example_round_trip_gives_the_same_kg(tmp_path):
    rml = _compiled(ROOT / "data" / "example" / "example.yaml", tmp_path)
    text = to_yarrrml(rml)
    assert "$(person_id)" in text and "mapping:" in text and "function: equal" in text
    back = from_yarrrml(text)
    kg = _kg(rml, tmp_path / "a.ttl")
    assert kg and kg == _kg(back, tmp_path / "b.ttl")


def test_functions_round_trip_on_scenario3(scenarios, tmp_path):
    from pipeline.bench.blinkg import write_manifests

    write_manifests(scenarios.parent, tmp_path / "manifests", ("csv",))  # not `make data`: CI runs no such step
    rml = _compiled(tmp_path / "manifests" / "scenario3" / "1.yaml", tmp_path)
    (tmp_path / "m.yml").write_text(to_yarrrml(rml), encoding="utf-8")
    text = (tmp_path / "m.yml").read_text()
    # functions and parameters as full IRIs: Morph-KGC 2.10 looks a function up by the name as written
    assert "function: https://w3id.org/kgc-pipeline/function#" in text and "function: fn:" not in text
    back = read_yarrrml(tmp_path / "m.yml")
    kg = _kg(rml, tmp_path / "a.ttl")
    assert kg and kg == _kg(back, tmp_path / "b.ttl")


def test_relative_access_is_relative_to_the_file_and_bad_input_is_named(tmp_path):
    (tmp_path / "m.yml").write_text(
        "prefixes: {ex: 'http://example.org/'}\nmappings:\n  people:\n"
        "    sources: [{access: data/p.csv, referenceFormulation: csv}]\n"
        "    s: http://example.org/p/$(id)\n    po:\n      - [a, ex:Person]\n"
        "      - {p: ex:name, o: {value: $(name), language: en}}\n", encoding="utf-8")
    g = read_yarrrml(tmp_path / "m.yml")
    assert str(tmp_path / "data" / "p.csv") in {str(o) for o in g.objects()}
    assert "http://example.org/p/{id}" in {str(o) for o in g.objects()}
    (tmp_path / "bad.yml").write_text("mappings:\n  x: {po: []}\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.yml.*mapping 'x'"):
        read_yarrrml(tmp_path / "bad.yml")


def test_cli_compile_writes_and_reads_yarrrml(tmp_path):
    from pipeline.cli import main
    from pipeline.compile import RML

    manifest = str(ROOT / "data" / "example" / "example.yaml")
    assert main(["compile", manifest, str(ROOT / "mappings" / "example_table.md"), str(tmp_path / "m.rml.ttl"),
                 "--yarrrml", "-q"]) == 0
    yml = tmp_path / "m.rml.yarrrml.yml"
    assert "[a, 'ex:Person']" in yml.read_text()  # the manifest's prefix name
    assert main(["compile", manifest, str(yml), str(tmp_path / "back.rml.ttl"), "-q"]) == 0
    back = Graph().parse(tmp_path / "back.rml.ttl")
    assert len(set(back.subjects(None, RML.TriplesMap))) == 2


_EVENTS = {"events.csv": "id,name,free\nE1,Jazz Night,yes\nE2,Organ Recital,no\n",
           "onto.ttl": "@prefix s: <https://schema.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                       "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                       "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                       "s:Event a owl:Class . s:name a owl:DatatypeProperty ; rdfs:range xsd:string .\n"
                       "s:isAccessibleForFree a owl:DatatypeProperty ; rdfs:range xsd:boolean .\n",
           "case.yaml": "sources: [{path: events.csv}]\nontologies: [onto.ttl]\nprefixes: {s: 'https://schema.org/'}\n",
           "t.md": "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype | "
                   "Function Name |\n|---|---|---|---|---|---|---|\n"
                   "| name | events.csv | s:name | s:Event | http://example.org/event/{id} | xsd:string |  |\n"
                   "| free | events.csv | s:isAccessibleForFree | s:Event | http://example.org/event/{id} | xsd:boolean | "
                   "toBoolean() |\n"}


def test_the_yarrrml_export_gives_the_same_kg_in_morph_kgc_alone(tmp_path):
    # a manifest prefix 's' (a key Morph-KGC renames to 'subjects' wherever it occurs) for https://schema.org/
    # (whose predefined name 'schema' Morph-KGC keeps as http://schema.org/), and a kgc function: the
    # export must give Morph-KGC 2.10, run by itself with kgc's functions registered, kgc's own KG
    import morph_kgc

    from pipeline.cli import main
    from pipeline.fno import UDF_FILE

    for name, text in _EVENTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl"),
                 "--yarrrml", "-q"]) == 0
    text = (tmp_path / "m.yarrrml.yml").read_text(encoding="utf-8")
    assert "prefixes: {s1: 'https://schema.org/', xsd: 'http://www.w3.org/2001/XMLSchema#'}" in text
    assert "function: https://w3id.org/kgc-pipeline/function#normalizeBoolean" in text
    assert main(["materialize", str(tmp_path / "m.yarrrml.yml"), str(tmp_path / "kgc.nt"), "-q"]) == 0
    ours = set((tmp_path / "kgc.nt").read_text(encoding="utf-8").splitlines())
    assert '<http://example.org/event/E1> <https://schema.org/isAccessibleForFree> ' \
        '"true"^^<http://www.w3.org/2001/XMLSchema#boolean> .' in ours and len(ours) == 6
    config = f"[CONFIGURATION]\nudfs = {UDF_FILE}\n[DataSource1]\nmappings = {tmp_path / 'm.yarrrml.yml'}\n"
    theirs = {f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in morph_kgc.materialize(config)}
    assert theirs == ours


def test_prefixes_morph_kgc_forces_are_those_the_writer_avoids():
    # the tables kgc keeps of what Morph-KGC does to a YARRRML document's prefixes, checked against it
    from morph_kgc.mapping import yarrrml as morph_yarrrml

    from pipeline.compile.yarrrml.prefixes import MORPH_KGC_PREFIXES, MORPH_KGC_RENAMED_KEYS

    assert morph_yarrrml._add_default_prefixes({})["prefixes"] == {**MORPH_KGC_PREFIXES}
    renamed = morph_yarrrml._normalize_yarrrml_key_names({"prefixes": {k: "http://x/" for k in MORPH_KGC_RENAMED_KEYS}})
    assert not set(renamed["prefixes"]) & MORPH_KGC_RENAMED_KEYS
    kept = morph_yarrrml._normalize_yarrrml_key_names({"prefixes": {"sdo": "http://x/", "ex": "http://y/"}})
    assert kept["prefixes"] == {"sdo": "http://x/", "ex": "http://y/"}


def test_a_document_redeclaring_a_prefix_morph_kgc_fixes_is_noted(tmp_path, capsys):
    from pipeline.cli import main

    (tmp_path / "events.csv").write_text(_EVENTS["events.csv"], encoding="utf-8")
    (tmp_path / "u.yml").write_text("prefixes: {schema: 'https://schema.org/'}\nmappings:\n  ev:\n"
                                    "    sources: [[events.csv~csv]]\n    s: http://example.org/event/$(id)\n"
                                    "    po:\n      - [schema:name, $(name)]\n", encoding="utf-8")
    assert main(["materialize", str(tmp_path / "u.yml"), str(tmp_path / "kg.nt"), "-q"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"note: {tmp_path / 'u.yml'}: prefixes: schema is declared as <https://schema.org/>, which kgc uses; schema: "
        "is predefined as <http://schema.org/>, which Morph-KGC 2.10 keeps whatever the document declares, so it "
        "makes other IRIs of this file (declare another name)"]
    assert "<https://schema.org/name>" in (tmp_path / "kg.nt").read_text(encoding="utf-8")
