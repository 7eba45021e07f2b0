"""A class-only row of the mapping table (an entity class and a subject template, no property): parsed,
audited, compiled to a TriplesMap with a subject map and its class and no predicate-object map,
materialized by Morph-KGC, and scored by the mapping-layer scorer."""
from __future__ import annotations

from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.scoring.mapping.tasks import ScoringConfig, score_table
from pipeline.sources.load import load_source
from pipeline.table import MappingRow, MappingTable, read_table, write_table

from helpers import materialize_compiled

RML = "http://w3id.org/rml/"
MAT = "http://example.org/materials#"
HEADER = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
          "Subject Generation | Join Condition | Datatype | Language Tag | Function Name | Function Output |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|\n")


def _case(tmp_path, rows: str):
    (tmp_path / "terms.ttl").write_text(
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix mat: <http://example.org/materials#> .\n"
        "mat:ChemicalElement a owl:Class .\n", encoding="utf-8")
    (tmp_path / "elements.csv").write_text("symbol,atomic_number\nAl,13\nSi,14\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: el\nbase_iri: http://example.org/\nsources: [{path: elements.csv}]\n"
                                        "ontologies: [terms.ttl]\nprefixes: {mat: 'http://example.org/materials#'}\n",
                                        encoding="utf-8")
    (tmp_path / "t.md").write_text(HEADER + rows, encoding="utf-8")
    case = load_manifest(tmp_path / "case.yaml")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    table = read_table(tmp_path / "t.md")
    return table, compile_table(table, ontology, case, sources), sources, ontology


CLASS_ONLY = "| - | elements.csv | - | mat:ChemicalElement | - | http://example.org/element/{symbol} | - | - | - | - | - |\n"


def test_class_only_row_is_parsed_as_written(tmp_path):
    table, *_ = _case(tmp_path, CLASS_ONLY)
    [row] = table.rows
    assert row.cells() == {"data_reference": None, "source_file": "elements.csv", "ontology_property": None,
                           "entity_class": "mat:ChemicalElement", "related_entity_class": None,
                           "subject_template": "http://example.org/element/{symbol}", "join_condition": None,
                           "datatype": None, "language_tag": None, "function_name": None, "function_output": None}
    assert row.class_only and row.line == 3
    assert not MappingRow(data_reference="symbol", entity_class="mat:ChemicalElement").class_only
    assert not MappingRow(related_entity_class="mat:X", join_condition="a.b==c.d").class_only


def test_class_only_row_round_trips_through_every_format(tmp_path):
    table, *_ = _case(tmp_path, CLASS_ONLY)
    for suffix in ("md", "csv", "json"):
        write_table(table, tmp_path / f"back.{suffix}")
        [row] = read_table(tmp_path / f"back.{suffix}").rows
        assert row.class_only and row.cells() == table.rows[0].cells(), suffix


def test_class_only_row_compiles_to_a_subject_map_with_its_class_alone(tmp_path):
    _, compiled, sources, _ = _case(tmp_path, CLASS_ONLY)
    assert [f for f in compiled.findings if f.severity == "error"] == []
    assert compiled.plan.compiled_lines == [3] and compiled.plan.dropped_lines == []
    rml = compiled.rml
    [tm] = list(rml.subjects(RDF.type, URIRef(RML + "TriplesMap")))
    assert list(rml.objects(tm, URIRef(RML + "predicateObjectMap"))) == []
    sm = rml.value(tm, URIRef(RML + "subjectMap"))
    assert rml.value(sm, URIRef(RML + "class")) == URIRef(MAT + "ChemicalElement")
    assert str(rml.value(sm, URIRef(RML + "template"))) == "http://example.org/element/{symbol}"
    kg = materialize_compiled(compiled, sources, tmp_path)
    expected = Graph()
    for s in ("Al", "Si"):
        expected.add((URIRef(f"http://example.org/element/{s}"), RDF.type, URIRef(MAT + "ChemicalElement")))
    assert set(kg) == set(expected)


def test_class_only_row_ignores_value_cells_with_a_warning(tmp_path):
    row = "| - | elements.csv | - | mat:ChemicalElement | - | http://example.org/element/{symbol} | - | xsd:string | en | - | - |\n"
    _, compiled, _, _ = _case(tmp_path, row)
    assert compiled.plan.compiled_lines == [3]
    warned = sorted((f.column, f.severity) for f in compiled.audit.findings if "qualifies no value" in f.message)
    assert warned == [("datatype", "warning"), ("language_tag", "warning")]


def test_row_without_property_but_with_a_reference_is_still_refused(tmp_path):
    row = "| symbol | elements.csv | - | mat:ChemicalElement | - | http://example.org/element/{symbol} | - | - | - | - | - |\n"
    _, compiled, _, _ = _case(tmp_path, row)
    [err] = [f for f in compiled.audit.findings if f.severity == "error"]
    assert (err.column, err.message, err.line) == ("ontology_property", "row has no ontology property", 3)
    assert compiled.plan.triples_maps == []


def test_class_only_row_without_template_is_refused(tmp_path):
    _, compiled, _, _ = _case(tmp_path, "| - | elements.csv | - | mat:ChemicalElement | - | - | - | - | - | - | - |\n")
    [err] = [f for f in compiled.audit.findings if f.severity == "error"]
    assert (err.column, err.message) == ("subject_template", "row has no subject template")


def _scores(pred: list[MappingRow], gold: list[MappingRow], ontology):
    out = score_table(MappingTable(pred), MappingTable(gold), ontology,
                      config=ScoringConfig(use_embeddings=False))
    return {t: (s.tp, s.fp, s.fn) for t, s in out.tasks.items()}


def test_class_only_rows_are_scored_as_rows(tmp_path):
    *_, ontology = _case(tmp_path, CLASS_ONLY)
    typed = MappingRow(source_file="elements.csv", entity_class="mat:ChemicalElement",
                       subject_template="http://example.org/element/{symbol}")
    label = MappingRow(data_reference="symbol", source_file="elements.csv", ontology_property="rdfs:label",
                       entity_class="mat:ChemicalElement", subject_template="http://example.org/element/{symbol}")
    # aligned with the gold's class-only row (two empty property cells are equal): class and subject right
    both = _scores([typed], [typed, label], ontology)
    assert both["Entity Class"] == (1, 0, 1) and both["Subject Generation"] == (1, 0, 1)
    assert both["Ontology Property"] == (0, 0, 1) and both["Data Reference"] == (0, 0, 1)
    # a gold without one: the row aligns with nothing, its class and template are predictions no gold row has
    alone = _scores([typed, label], [label], ontology)
    assert alone["Entity Class"] == (1, 1, 0) and alone["Subject Generation"] == (1, 1, 0)
    assert alone["Ontology Property"] == (1, 0, 0)
