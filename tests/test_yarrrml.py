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
    assert "function: grel:" in text or "function: fn:" in text
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
    assert "[a, 'http://example.org/ontology#Person']" in yml.read_text()
    assert main(["compile", manifest, str(yml), str(tmp_path / "back.rml.ttl"), "-q"]) == 0
    back = Graph().parse(tmp_path / "back.rml.ttl")
    assert len(set(back.subjects(None, RML.TriplesMap))) == 2
