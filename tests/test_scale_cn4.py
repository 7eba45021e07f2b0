"""CN4 generation events from the one engine run that also builds the KG (named graph per TriplesMap)."""
from __future__ import annotations

from pathlib import Path

from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.scoring.mapping import check_cn4
from pipeline.scoring.mapping.cn4 import materialize_with_events
from pipeline.sources.load import load_source
from pipeline.table import read_table

ROOT = Path(__file__).resolve().parent.parent


def _example(tmp_path: Path, extra_row: str = ""):
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    table_file = tmp_path / "table.md"
    table_file.write_text((ROOT / "mappings" / "example_table.md").read_text(encoding="utf-8") + extra_row,
                          encoding="utf-8")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table_file), onto, case, sources)
    return normalize_rml(compiled.rml).graph


def test_one_run_gives_the_kg_and_the_events_of_each_triples_map(tmp_path):
    engine = _example(tmp_path)
    result, events = materialize_with_events(engine, tmp_path / "cn4")
    engine.serialize(tmp_path / "e.ttl", format="turtle")
    assert result.triples == materialize(tmp_path / "e.ttl").triples  # the same KG as a plain run
    tm = "https://w3id.org/kgc-pipeline/mapping#"
    ex = "http://example.org/ontology#"
    assert {key: len(st) for key, st in events} == {
        f"{tm}TM1_people_id#class": 3, f"{tm}TM1_people_id#{ex}name": 3, f"{tm}TM1_people_id#{ex}birthDate": 3,
        f"{tm}TM1_people_id#{ex}livesIn": 3, f"{tm}TM2_cities_code#class": 2, f"{tm}TM2_cities_code#{ex}cityName": 2}
    assert check_cn4(events).redundant_events == 0


def test_two_triples_maps_producing_the_same_statement_are_redundant(tmp_path):
    # cities typed ex:City by their own TriplesMap and again from people.csv's city codes: two
    # TriplesMaps make ex:City, and the livesIn join takes the one its condition connects (cities.csv);
    # 8 events, 2 redundant
    row = "| city | people.csv | ex:cityName | ex:City | | http://example.org/city/{city} | | |\n"
    engine = _example(tmp_path, row)
    _, events = materialize_with_events(engine, tmp_path / "cn4")
    cn4 = check_cn4(events)
    assert (cn4.events, cn4.redundant_events, cn4.shared_statements) == (8, 2, 2)


def test_gold_kg_is_reused_from_the_cache_without_an_engine_run(tmp_path, monkeypatch):
    from rdflib.compare import isomorphic

    import pipeline.run.evaluate
    from pipeline.run.evaluate import gold_kg

    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    first = gold_kg(case, onto, sources, tmp_path / "run1")

    def no_engine(*args, **kwargs):
        raise AssertionError("the engine ran although the gold KG is cached")

    monkeypatch.setattr(pipeline.run.evaluate, "materialize", no_engine)
    second = gold_kg(case, onto, sources, tmp_path / "run2")
    assert isomorphic(first.graph, second.graph) and len(second.graph) == 16
    assert (second.templates, second.rows_dropped, second.findings) == (first.templates, first.rows_dropped,
                                                                         first.findings)
    assert (tmp_path / "run2" / "gold" / "kg.nt").read_bytes() == (tmp_path / "run1" / "gold" / "kg.nt").read_bytes()
