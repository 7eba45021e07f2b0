"""Validate-and-repair on a small in-memory case: near misses fixed, the rest dropped, raw kept."""
from __future__ import annotations

from pathlib import Path

from pipeline.manifest import Case, Source
from pipeline.ontology import load_ontology
from pipeline.mappers.repair import repair_table
from pipeline.sources.load import load_source
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


def test_repair_that_would_make_an_ill_typed_literal_is_rejected(tmp_path: Path):
    """A date path 'repaired' to a code path would give "2"^^xsd:date: rejected, with a finding."""
    (tmp_path / "s.csv").write_text("ID,Code,Signed\n1,2,2024-05-01\n2,7,2024-06-30\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Contract a owl:Class .\n"
        "ex:signed a owl:DatatypeProperty ; rdfs:domain ex:Contract ; rdfs:range xsd:date .\n", encoding="utf-8")
    case = Case("r", (Source(tmp_path / "s.csv", "csv", name="s.csv"),), (tmp_path / "o.ttl",),
                prefixes={"ex": "http://example.org/"})
    t = "http://example.org/c/{ID}"
    table = MappingTable(rows=[
        MappingRow("Cod", "s.csv", "ex:signed", "ex:Contract", subject_template=t, datatype="xsd:date", line=1),
        MappingRow("Signd", "s.csv", "ex:signed", "ex:Contract", subject_template=t, datatype="xsd:date", line=2)])
    res = repair_table(table, load_ontology(case.ontologies, case.prefixes), case,
                       [load_source(s, tmp_path) for s in case.sources])
    assert [(r.column, r.old, r.new) for r in res.repairs] == [("data_reference", "Signd", "Signed")]
    assert [r.data_reference for r in res.table] == ["Signed"]
    assert res.rejected == [{"line": 1, "column": "data_reference", "value": "Code",
                             "reason": "repair of data_reference 'Cod' -> 'Code' rejected: 2 of 2 value(s) of "
                                       "'Code' are not valid xsd:date (e.g. '2')"}]
    assert [r.line for r, _ in res.dropped] == [1]
