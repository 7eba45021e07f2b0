"""Validate-and-repair on a small in-memory case: near misses fixed, the rest dropped, raw kept."""
from __future__ import annotations

from pathlib import Path

from pipeline.manifest import Case, Source
from pipeline.ontology import load_ontology
from pipeline.repair import repair_table
from pipeline.sources import load_source
from pipeline.table import MappingRow, MappingTable


def test_repair_respects_domain_and_keeps_raw(tmp_path: Path):
    (tmp_path / "s.csv").write_text("ID,Name\n1,Ann\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:Sport a owl:Class .\n"
        "ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n"
        "ex:names a owl:DatatypeProperty ; rdfs:domain ex:Sport .\n", encoding="utf-8")
    case = Case("r", (Source(tmp_path / "s.csv", "csv", name="s.csv"),), (tmp_path / "o.ttl",),
                prefixes={"ex": "http://example.org/"})
    table = MappingTable(rows=[
        MappingRow("Name", "s.csv", "ex:namez", "ex:Person", subject_template="http://example.org/p/{ID}", line=1),
        MappingRow("Nope", "s.csv", "ex:name", "ex:Person", subject_template="http://example.org/p/{ID}", line=2)])
    res = repair_table(table, load_ontology(case.ontologies, case.prefixes), case,
                       [load_source(s, tmp_path) for s in case.sources])
    # ex:names is as close to ex:namez as ex:name, but only ex:name has domain ex:Person
    assert [r.ontology_property for r in res.table] == ["ex:name"]
    assert [(r.column, r.old, r.new) for r in res.repairs] == [("ontology_property", "ex:namez", "ex:name")]
    assert [r.line for r, _ in res.dropped] == [2] and "Nope" in res.dropped[0][1][0]
    assert [r.ontology_property for r in res.raw] == ["ex:namez", "ex:name"]
