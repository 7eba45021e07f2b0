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
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
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
    normalize_rml(compiled.rml).graph.serialize(engine, format="turtle")
    result = materialize(engine)
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
    assert main(["validate", str(work / "case.yaml"), str(work / "d2" / "kg.nt"), "--out",
                 str(work / "d3" / "v.json")]) == 0
    assert (work / "d3" / "v.json").is_file()


def test_self_join_links_different_records(tmp_path):
    compiled, sources = _compile("self-join-reflexive-only", tmp_path)
    kg = _materialize(compiled, sources, tmp_path)
    car = {i: URIRef(f"{EX}car/car{i}") for i in (1, 2, 3)}
    assert set(kg.subject_objects(URIRef(O + "sameColorAs"))) == {
        (car[1], car[1]), (car[1], car[2]), (car[2], car[1]), (car[2], car[2]), (car[3], car[3])}
    assert len(list(kg.subjects(RDF.type, URIRef(O + "Car")))) == 3
    # the parent is a twin on an equivalent spelling of the same file, so the engine really joins
    twin = next(tm for tm in compiled.plan.triples_maps if tm.id.endswith("_joinParent"))
    assert twin.source_path.endswith("/./cars.csv") and not twin.poms and not twin.classes


def test_join_on_a_key_column_of_the_same_source_stays_the_same_record(tmp_path):
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
                     "Subject Generation | Join Condition |\n|---|---|---|---|---|---|---|\n"
                     "| car | cars.csv | ex:sameColorAs | ex:Car | ex:Car | http://example.org/car/{car} | "
                     "cars.car==cars.car |\n", encoding="utf-8")
    case = load_manifest(CASES / "self-join-reflexive-only" / "case.yaml")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    [tm] = compiled.plan.triples_maps
    assert tm.poms[0].objects[0].parent is None and tm.poms[0].objects[0].term.value == "http://example.org/car/{car}"


def test_function_with_function_subject_template_runs(tmp_path):
    compiled, sources = _compile("function-with-xpath-template-crash", tmp_path)
    kg = _materialize(compiled, sources, tmp_path)
    assert set(kg) == {(URIRef(EX + "rec/Ann_Lee"), URIRef(O + "title"), Literal("HELLO")),
                       (URIRef(EX + "rec/Ann_Lee"), RDF.type, URIRef(O + "Record"))}


def test_xpath_predicate_on_an_attribute_is_refused_by_the_audit(scenarios, tmp_path):
    """BLINKG scenario 3 case 2's gold table (its misspelt property corrected, as a repair or an
    LLM would) reads cbc:ID[@schemeName="ID_LOTE"] in a subject template: Morph-KGC 2.10 would
    stop with TypeError; the audit refuses the row, naming it, and the rest materializes."""
    from pipeline.bench.blinkg import write_manifests

    write_manifests(scenarios.parent, tmp_path / "manifests", ("csv",))
    case = load_manifest(tmp_path / "manifests" / "scenario3" / "2.yaml")
    table = tmp_path / "t.md"
    table.write_text(case.gold_table.read_text(encoding="utf-8").replace("DevidedIntoLot", "DividedIntoLot"),
                     encoding="utf-8")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    refused = [f for f in compiled.findings if "the engine cannot evaluate it" in f.message]
    assert [(f.line, f.column, f.severity) for f in refused] == [(3, "subject_template", "error")]
    assert 'ID_LOTE' in refused[0].message and refused[0].candidate.endswith("cac:ProcurementProjectLot/cbc:ID")
    assert len(_materialize(compiled, sources, tmp_path)) > 0


def test_xml_reference_issue_replays_the_engine_reading():
    from pipeline.materialize.limits import xml_reference_issue

    ns = {"cbc": "urn:x"}
    assert [xml_reference_issue(r, ns) is None for r in ("cbc:ID", "a/b/@id", "@id", "a/b[c='1']/d", "a/b[1]")] == \
        [True] * 5
    assert [xml_reference_issue(r, ns) is None for r in ('cbc:ID[@schemeName="X"]', "*[local-name()='t']",
                                                        "cbc:ID/text()")] == [False] * 3


def test_a_materialize_failure_keeps_the_mapping_scores(tmp_path, monkeypatch):
    from dataclasses import replace

    import pipeline.run.runner as run_module
    import pipeline.run.stages as stages
    from pipeline.errors import MaterializeError

    def fail(*args, **kwargs):
        raise MaterializeError("engine stopped")

    monkeypatch.setattr(stages, "materialize_with_events", fail)  # the engine run of the materialize stage
    table = CASES / "function-with-xpath-template-crash" / "table.md"
    case = replace(load_manifest(CASES / "function-with-xpath-template-crash" / "case.yaml"), gold_table=table)
    run = run_module.run_case(case, run_module.RunConfig(out_dir=tmp_path, mapper="replay",
                                                         mapper_options={"table": str(table)}))
    assert (run.status, run.failed_stage) == ("failed", "materialize")
    assert run.extra["mapping_scores"]["f1"] == 1.0


def test_month_first_dates_are_not_swapped(tmp_path):
    compiled, sources = _compile("date-month-first-swapped", tmp_path)
    kg = _materialize(compiled, sources, tmp_path)
    assert {str(s).rsplit("/", 1)[1]: o for s, o in kg.subject_objects(URIRef(O + "date"))} == {
        "e1": Literal("2024-01-13", datatype=XSD.date), "e2": Literal("2024-03-04", datatype=XSD.date),
        "e3": Literal("2024-12-11", datatype=XSD.date)}
    [f] = _findings(compiled, "function_name")
    assert "month-first" in f.message and "01/13/2024" in f.message


@pytest.mark.parametrize("values, output, expected, status", [
    (["03/04/2024", "12/11/2024", "2024-05-06"], "date as xsd:date", {"e1": None, "e2": None, "e3": "2024-05-06"},
     "cannot be told"),
    (["03/04/2024", "12/11/2024", "20240506"], "MM/DD/YYYY", {"e1": "2024-03-04", "e2": "2024-12-11",
                                                              "e3": "2024-05-06"}, None),
    (["13/04/2024", "04/13/2024", "2024-05-06"], "", {"e1": None, "e2": None, "e3": "2024-05-06"},
     "some values are day-first and others month-first"),
])
def test_date_order_ambiguous_stated_or_conflicting(tmp_path, values, output, expected, status):
    from dataclasses import replace

    from pipeline.manifest import Source

    csv = tmp_path / "events.csv"
    csv.write_text("id,date\n" + "".join(f"e{i},{v}\n" for i, v in enumerate(values, 1)), encoding="utf-8")
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation | Datatype | Function Name "
                     f"| Function Output |\n|---|---|---|---|---|---|---|\n| date | ex:date | ex:Event | "
                     f"http://example.org/e/{{id}} | xsd:date | toDate | {output} |\n", encoding="utf-8")
    case = load_manifest(CASES / "date-month-first-swapped" / "case.yaml")
    case = replace(case, sources=(Source(csv, "csv", None, "events.csv"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    kg = _materialize(compiled, sources, tmp_path)
    got = {str(s).rsplit("/", 1)[1]: str(o) for s, o in kg.subject_objects(URIRef(O + "date"))}
    assert got == {k: v for k, v in expected.items() if v}
    warnings = [f.message for f in _findings(compiled, "function_name") if f.severity == "warning"]
    assert (status is None and not warnings) or any(status in w for w in warnings)


def test_json_key_with_dot_is_refused_naming_the_row(tmp_path):
    compiled, _ = _compile("json-key-with-dot", tmp_path)
    [f] = [f for f in compiled.findings if f.severity == "error"]
    assert (f.line, f.column, f.value) == (3, "data_reference", "tags.code")
    assert "contains '.'" in f.message and "morph-kgc#138" in f.message
    assert compiled.plan.triples_maps == []


def test_json_keys_with_spaces_and_nested_keys_are_read(tmp_path):
    """The control: a key with a space and a nested key (a.b) reach the KG through Morph-KGC."""
    from dataclasses import replace

    from pipeline.manifest import Source

    data = tmp_path / "people.json"
    data.write_text('{"people": [{"id": "a1", "tag code": "T1", "n": {"x": "N1"}}, '
                    '{"id": "a2", "tag code": "T2", "n": {"x": "N2"}}]}', encoding="utf-8")
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
                     "| tag code | ex:title | ex:Record | http://example.org/p/{id} |\n"
                     "| n.x | ex:nick | ex:Record | http://example.org/p/{id} |\n", encoding="utf-8")
    case = load_manifest(CASES / "json-key-with-dot" / "case.yaml")
    case = replace(case, sources=(Source(data, "json", "$.people[*]", "people.json"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    assert not [f for f in compiled.findings if f.severity == "error"]
    kg = _materialize(compiled, sources, tmp_path)
    assert set(kg.objects(URIRef(EX + "p/a2"), None)) >= {Literal("T2"), Literal("N2")}


def test_language_tags_from_data_that_are_invalid_or_empty_are_reported(tmp_path):
    from dataclasses import replace

    from pipeline.manifest import Source

    csv = tmp_path / "notes.csv"
    csv.write_text("id,note,lang\n1,colour,en-GB\n2,bad,en_GB\n3,empty,\n", encoding="utf-8")
    case = load_manifest(CASES / "language-tag-from-column" / "case.yaml")
    case = replace(case, sources=(Source(csv, "csv", None, "notes.csv"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(CASES / "language-tag-from-column" / "table.md"), ontology, case, sources)
    [f] = _findings(compiled, "language_tag")
    assert f.severity == "warning" and "('en_GB') lose their triple" in f.message and "1 record(s) without" in f.message
    kg = _materialize(compiled, sources, tmp_path)
    assert set(kg.objects(None, URIRef(O + "label"))) == {Literal("colour", lang="en-GB")}


def test_decide_date_order_from_values_or_the_table():
    from pipeline.fno.dates import decide_date_order, stated_date_order

    day_first = decide_date_order(["30/01/2024", "31/02/2024"])
    assert (day_first.order, day_first.evidence, day_first.invalid) == ("DMY", ["30/01/2024"], ["31/02/2024"])
    amb = decide_date_order(["03/04/2024", "31/02/2024", "2024-01-01", "20240101"])
    assert (amb.status, amb.order, amb.evidence) == ("ambiguous", "YMD", ["03/04/2024"])
    assert decide_date_order(["2024-01-01", "20240101"]).status == "year-first"
    stated = decide_date_order(["03/04/2024", "13/01/2024"], stated_date_order("toDate", "MM/DD/YYYY"))
    assert (stated.order, stated.invalid) == ("MDY", ["13/01/2024"])
    assert [stated_date_order(c) for c in ("dd.mm.yyyy", "m/d/yy", "date as xsd:date", "YYYY-MM-DD")] == \
        ["DMY", "MDY", None, None]


def test_console_line_says_when_the_kg_of_an_ok_run_fails_validation(tmp_path):
    """The run worked (status ok) but SHACL rejects every xsd:int value under an xsd:integer range:
    the console line says so instead of a bare 'ok' (the run exits 1)."""
    import pipeline.run.runner as run_module

    table = CASES / "datatype-int-under-integer-range" / "table.md"
    case = load_manifest(CASES / "datatype-int-under-integer-range" / "case.yaml")
    run = run_module.run_case(case, run_module.RunConfig(out_dir=tmp_path, mapper="replay",
                                                         mapper_options={"table": str(table)}))
    assert run.status == "ok" and run.extra["graph_validation"]["SHACL"]["value"] is False
    assert ": ok (KG fails SHACL)" in run.summary()
