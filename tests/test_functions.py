"""Transformation functions through RML-FNML, run by the real Morph-KGC: value maps, case, dates."""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD

from pipeline.manifest import Case, Source
from pipeline.run.runner import RunConfig, run_case

ONTOLOGY = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Route a owl:Class . ex:name a owl:DatatypeProperty . ex:opened a owl:DatatypeProperty .
ex:kind a owl:ObjectProperty .
"""
TABLE = """| Data Reference | Ontology Property | Entity Class | Related Entity Class | Subject Generation | Datatype | Function Name | Function Output |
|---|---|---|---|---|---|---|---|
| name | ex:name | ex:Route | | http://example.org/route/{id} | | capitalize | Input string in capital format |
| opened | ex:opened | ex:Route | | http://example.org/route/{id} | xsd:date | toDate() | |
| kind | ex:kind | ex:Route | skos:Concept | http://example.org/route/{id} | | kindSKOS | 0 -> `http://example.org/kind/tram` <br> 3 -> <http://example.org/kind/bus> |
"""


def test_value_map_capitalize_and_date_normalisation(tmp_path):
    (tmp_path / "routes.csv").write_text("id,name,opened,kind\nr1,puerta del sur,28/12/2020,3\n"
                                         "r2,PLAZA CASTILLA,20201201,0\nr3,x,not a date,9\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "table.md").write_text(TABLE, encoding="utf-8")
    case = Case("fn", (Source(tmp_path / "routes.csv", "csv", None, "routes.csv"),), (tmp_path / "onto.ttl",),
                "tests", gold_table=tmp_path / "table.md")
    run = run_case(case, RunConfig(out_dir=tmp_path / "out", mapper="replay", evaluate=False))
    assert run.status == "ok", run.error
    kg = Graph().parse(run.folder / "kg.nt")
    ex = "http://example.org/"
    names = {str(s): str(o) for s, o in kg.subject_objects(URIRef(ex + "name"))}
    assert names == {ex + "route/r1": "Puerta Del Sur", ex + "route/r2": "Plaza Castilla", ex + "route/r3": "X"}
    dates = {str(s): o for s, o in kg.subject_objects(URIRef(ex + "opened"))}
    # an unparsable date yields no triple rather than an ill-typed literal
    assert dates == {ex + "route/r1": Literal("2020-12-28", datatype=XSD.date),
                     ex + "route/r2": Literal("2020-12-01", datatype=XSD.date)}
    kinds = {str(s): str(o) for s, o in kg.subject_objects(URIRef(ex + "kind"))}
    # code 9 is in no map: no triple
    assert kinds == {ex + "route/r1": ex + "kind/bus", ex + "route/r2": ex + "kind/tram"}
    rml = (run.folder / "mapping.rml.ttl").read_text()
    assert "grel:string_toTitlecase" in rml and "fn:normalizeDate" in rml and "fn:valueMap" in rml


def test_the_table_functions_the_llm_prompt_lists_are_the_ones_the_compiler_reads():
    from pipeline.fno import TABLE_FUNCTIONS, function_for_name
    from pipeline.manifest import load_manifest
    from pipeline.mappers.llm.prompt import render_prompt

    assert [function_for_name(name) for name, _ in TABLE_FUNCTIONS] == [key for _, key in TABLE_FUNCTIONS]
    case = load_manifest(Path(__file__).resolve().parent / "cases" / "padded-values" / "case.yaml")
    line = next(x for x in render_prompt(case, "", "")[1]["content"].splitlines() if "**Function Name**" in x)
    assert [n for n in ("`toDate()`", "`toTime()`", "`capitalize`", "`trim`") if n in line] == \
        ["`toDate()`", "`toTime()`", "`capitalize`", "`trim`"]
