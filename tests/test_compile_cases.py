"""Regression tests of the compile stage, one per case folder (tests/cases/<name>, copied from
../shared/cases): each runs the real compiler and, where the fault was in the KG, the real
Morph-KGC, and asserts the case's right value."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.materialize import engine_mapping, materialize
from pipeline.ontology import load_ontology
from pipeline.sources import all_values, load_source
from pipeline.table import read_table

CASES = Path(__file__).parent / "cases"
EX = "http://example.org/"
O = "http://example.org/o#"


def _compile(name: str, tmp_path: Path, table: str = "table.md"):
    case = load_manifest(CASES / name / "case.yaml")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    return compile_table(read_table(CASES / name / table), ontology, case, sources), sources


def _materialize(compiled, sources, tmp_path: Path) -> Graph:
    engine = tmp_path / "mapping.morph-kgc.ttl"
    engine_mapping(compiled.rml).serialize(engine, format="turtle")
    result = materialize(engine, all_values(sources))
    return Graph().parse(data="\n".join(result.triples), format="nt")


def _findings(compiled, column: str) -> list:
    return [f for f in compiled.findings if f.column == column]


def test_relative_template_with_base(tmp_path):
    compiled, sources = _compile("relative-template-with-base", tmp_path)
    kg = _materialize(compiled, sources, tmp_path)
    base = "http://example.org/base/"
    assert set(kg.subject_objects(URIRef(O + "title"))) == {(URIRef(base + "1"), Literal("Ann")),
                                                             (URIRef(base + "2"), Literal("Bo"))}
    assert set(kg.subject_objects(URIRef(O + "nick"))) == {(URIRef(base + "person/1"), Literal("Ann")),
                                                            (URIRef(base + "person/2"), Literal("Bo"))}
    warned = sorted((f.line, f.candidate) for f in _findings(compiled, "subject_template"))
    assert warned == [(3, base + "{id}"), (4, base + "person/{id}")]


def test_relative_template_without_base_is_an_error(tmp_path):
    from dataclasses import replace

    from pipeline.compile.plan import plan_mapping

    compiled, sources = _compile("relative-template-with-base", tmp_path)
    case = replace(load_manifest(CASES / "relative-template-with-base" / "case.yaml"), base_iri="")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    plan = plan_mapping(compiled.audit, ontology, case, "table.md", sources)
    assert plan.triples_maps == [] and sorted(plan.dropped_lines) == [3, 4]
    assert all("no base IRI" in f.message and f.severity == "error" for f in plan.findings)


def test_language_tag_from_column(tmp_path):
    compiled, sources = _compile("language-tag-from-column", tmp_path)
    kg = _materialize(compiled, sources, tmp_path)
    assert set(kg.subject_objects(URIRef(O + "label"))) == {
        (URIRef(EX + "n/1"), Literal("colour", lang="en-GB")), (URIRef(EX + "n/2"), Literal("hola", lang="es"))}
    info = _findings(compiled, "language_tag")
    assert [(f.severity, f.message) for f in info] == [("info", "language tag read per record from 'lang'")]


def test_language_tag_reference_in_braces_and_constant_tag(tmp_path):
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation | Language Tag |\n"
                     "|---|---|---|---|---|\n"
                     "| note | ex:label | ex:Record | http://example.org/n/{id} | {lang} |\n"
                     "| note | ex:label | ex:Record | http://example.org/m/{id} | de |\n"
                     "| note | ex:label | ex:Record | http://example.org/k/{id} | {language} |\n", encoding="utf-8")
    case = load_manifest(CASES / "language-tag-from-column" / "case.yaml")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    assert [r.line for r in compiled.audit.dropped] == [5]
    assert "'language' is no column/path of notes.csv" in _findings(compiled, "language_tag")[-1].message
    kg = _materialize(compiled, sources, tmp_path)
    assert (URIRef(EX + "n/2"), URIRef(O + "label"), Literal("hola", lang="es")) in kg
    assert (URIRef(EX + "m/2"), URIRef(O + "label"), Literal("hola", lang="de")) in kg


def test_datatype_int_under_integer_range(tmp_path):
    compiled, _ = _compile("datatype-int-under-integer-range", tmp_path)
    [f] = _findings(compiled, "datatype")
    assert f.severity == "warning" and f.line == 3 and f.candidate == "xsd:integer"
    assert "narrower than the range xsd:integer" in f.message and "sh:datatype is an exact match" in f.message
    assert compiled.plan.compiled_lines == [3]  # a warning: the row still compiles


def test_cli_output_folder_and_exit_codes(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "cli-output-folder-exit-codes", work)
    (work / "t.md").write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n"
                               "|---|---|---|---|\n| count | ex:count | ex:Record | http://example.org/r/{id} |\n",
                               encoding="utf-8")
    assert main(["compile", str(work / "case.yaml"), str(work / "bad_table.md"), str(work / "bad.rml.ttl")]) == 2
    assert "no row of the table compiled" in capsys.readouterr().err
    assert main(["map", str(work / "case.yaml"), str(work / "nodir" / "t.md"), "--mapper", "replay",
                 "--table", str(work / "t.md")]) == 0
    assert (work / "nodir" / "t.md").is_file()
    assert main(["map", str(work / "case.yaml"), str(work / "nodir" / "t.txt"), "--mapper", "replay",
                 "--table", str(work / "t.md")]) == 2
    assert main(["compile", str(work / "case.yaml"), str(work / "t.md"), str(work / "d1" / "m.rml.ttl")]) == 0
    assert main(["materialize", str(work / "d1" / "m.rml.ttl"), str(work / "d2" / "kg.nt")]) == 0
    assert len((work / "d2" / "kg.nt").read_text().splitlines()) == 2
