"""Hostile references and values: the RML stays valid Turtle and the KG valid N-Triples."""
from __future__ import annotations

from pathlib import Path

import pyoxigraph
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD

from pipeline.manifest import Case, Source
from pipeline.run.runner import RunConfig, run_case

ONTOLOGY = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Thing a owl:Class . ex:label a owl:DatatypeProperty ; rdfs:domain ex:Thing .
ex:count a owl:DatatypeProperty ; rdfs:domain ex:Thing ; rdfs:range xsd:integer .
"""


def _case(tmp_path, files: dict[str, str], table: str, fmt: str) -> Case:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "table.md").write_text(table, encoding="utf-8")
    src = next(n for n in files)
    return Case("hostile", (Source(tmp_path / src, fmt, None, src),), (tmp_path / "onto.ttl",), "tests",
                gold_table=tmp_path / "table.md")


def test_quotes_brackets_newlines_and_non_ascii_in_csv(tmp_path):
    csv_text = ('"my id","we""ird > col",n\n'
                '"a b/ç","O\'Brien ""Bob"" <x>",7\n'
                '"José Müller","two\nlines",3.7\n'
                '"#?&","x",12345678901234567890\n')
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation | Datatype |\n|---|---|---|---|---|\n"
             '| we"ird > col | ex:label | ex:Thing | http://example.org/t/{my id} | |\n'
             "| n | ex:count | ex:Thing | http://example.org/t/{my id} | xsd:integer |\n")
    run = run_case(_case(tmp_path, {"data.csv": csv_text}, table, "csv"), RunConfig(out_dir=tmp_path / "out", evaluate=False))
    assert run.status == "ok", run.error
    Graph().parse(run.folder / "mapping.rml.ttl", format="turtle")  # valid Turtle
    nt = (run.folder / "kg.nt").read_text(encoding="utf-8")
    list(pyoxigraph.parse(nt.encode(), "application/n-triples"))  # strict parser accepts every line
    kg = Graph().parse(data=nt, format="nt")
    t1 = URIRef("http://example.org/t/a%20b%2Fç")  # IRI-safe: ucschar kept (R2RML 7.3)
    assert (t1, URIRef("http://example.org/label"), Literal('O\'Brien "Bob" <x>')) in kg
    assert (URIRef("http://example.org/t/José%20Müller"), URIRef("http://example.org/label"),
            Literal("two\nlines")) in kg
    counts = sorted(str(o) for o in kg.objects(None, URIRef("http://example.org/count")))
    # 3.7 is no xsd:integer: dropped and reported, not rounded to 3; the 20-digit number survives exactly
    assert counts == ["12345678901234567890", "7"]
    dropped = [f for f in run.findings if f.stage == "materialize"]
    # the value's place: the line of the user's file holding it (the record spans lines 3-4)
    assert [f.message for f in dropped] == ["1 triple(s) dropped: xsd:integer value that is no integer (first: "
                                            f"value '3.7' in {tmp_path / 'data.csv'} line 4)"]
    assert (Path(dropped[0].file).name, dropped[0].line) == ("table.md", 4)  # the row mapping ex:count
    assert '"3.7"^^<http://www.w3.org/2001/XMLSchema#integer>' in dropped[0].value
    assert all(o.datatype == XSD.integer for o in kg.objects(None, URIRef("http://example.org/count")))


def test_empty_xml_element_never_becomes_none(tmp_path):
    xml = "<rows><row><id>1</id><name>Ann</name></row><row><id>2</id><name/></row></rows>"
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
             "| name | ex:label | ex:Thing | http://example.org/t/{id} |\n")
    run = run_case(_case(tmp_path, {"data.xml": xml}, table, "xml"), RunConfig(out_dir=tmp_path / "out", evaluate=False))
    kg = Graph().parse(run.folder / "kg.nt")
    assert sorted(str(o) for o in kg.objects(None, URIRef("http://example.org/label"))) == ["Ann"]
    assert ("None" not in (run.folder / "kg.nt").read_text())


@pytest.mark.parametrize("template,message", [
    ("http://example.org/t/{id", "never closed"),
    ("http://example.org/t/{nope}", "is no column/path"),
])
def test_broken_templates_are_findings_not_crashes(tmp_path, template, message):
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
             f"| name | ex:label | ex:Thing | {template} |\n"
             "| name | ex:label | ex:Thing | http://example.org/ok/{id} |\n")
    run = run_case(_case(tmp_path, {"data.csv": "id,name\n1,Ann\n"}, table, "csv"), RunConfig(out_dir=tmp_path / "out", evaluate=False))
    assert run.status == "ok"
    bad = [f for f in run.findings if f.severity == "error"]
    assert len(bad) == 1 and message in bad[0].message and bad[0].line == 3
    assert run.counts["triples"] == 2


def test_relative_iris_from_data_are_dropped_and_reported(tmp_path):
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation | Datatype |\n|---|---|---|---|---|\n"
             "| page | ex:label | ex:Thing | http://example.org/t/{id} | URI |\n")
    csv_text = "id,page\n1,http://example.org/ok\n2,relative/page\n3,http://bad iri\n"
    run = run_case(_case(tmp_path, {"data.csv": csv_text}, table, "csv"), RunConfig(out_dir=tmp_path / "out", evaluate=False))
    kg = Graph().parse(run.folder / "kg.nt")
    # R2RML 11.2: a relative IRI value is appended to the base IRI (the manifest's base_iri)
    assert sorted(str(o) for o in kg.objects(None, URIRef("http://example.org/label"))) == [
        "http://example.org/ok", "http://example.org/relative/page"]
    messages = sorted(f.message for f in run.findings if f.stage == "materialize" and f.severity == "error")
    assert messages == [f"1 triple(s) dropped: relative or illegal IRI (first: value 'http://bad iri' in "
                        f"{tmp_path / 'data.csv'} line 4)"]


def test_padded_values_are_written_without_their_white_space(tmp_path):
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation | Datatype |\n|---|---|---|---|---|\n"
             "| n | ex:count | ex:Thing | http://example.org/t/{id} | xsd:integer |\n")
    run = run_case(_case(tmp_path, {"data.csv": 'id,n\n1," 42 "\n2,7\n'}, table, "csv"),
                   RunConfig(out_dir=tmp_path / "out", evaluate=False))
    nt = (run.folder / "kg.nt").read_text()
    assert '<http://example.org/t/1> <http://example.org/count> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .' in nt
    assert [f.severity for f in run.findings if f.stage == "materialize"] == ["warning"]


def test_a_table_that_compiles_to_nothing_stops_before_the_engine(tmp_path):
    table = ("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
             "| nope | ex:label | ex:Thing | http://example.org/t/{id} |\n")
    run = run_case(_case(tmp_path, {"data.csv": "id,name\n1,Ann\n"}, table, "csv"),
                   RunConfig(out_dir=tmp_path / "out", evaluate=False))
    assert (run.status, run.failed_stage) == ("failed", "compile")
    assert "no row of the table compiled" in run.error and "'nope' is no column/path of data.csv" in run.error
    assert run.error_kind == "input"  # a replayed table is the user's input: exit 2, as for `kgc compile`
    assert (run.folder / "table.md").exists() and (run.folder / "audit.md").exists()  # nothing lost


def test_the_example_case_in_the_repository(tmp_path):
    from pipeline.manifest import load_manifest

    case = load_manifest(Path(__file__).resolve().parent.parent / "data" / "example" / "example.yaml")
    run = run_case(case, RunConfig(out_dir=tmp_path, mapper="replay", evaluate=False))
    kg = Graph().parse(run.folder / "kg.nt")
    assert len(kg) == 16
    onto = "http://example.org/ontology#"
    assert (URIRef("http://example.org/person/p3"), URIRef(onto + "livesIn"), URIRef("http://example.org/city/MAD")) in kg
    assert (URIRef("http://example.org/person/p1"), URIRef(onto + "birthDate"),
            Literal("1990-04-12", datatype=XSD.date)) in kg
