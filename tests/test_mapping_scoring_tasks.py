"""BLINKG task scores: gold vs itself, a hand-perturbed 1G table, Hungarian vs greedy, runs."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipeline.errors import OntologyError
from pipeline.ontology import Ontology, load_ontology
from pipeline.scoring.mapping.postprocess import clean_datatype
from pipeline.scoring.mapping import (CellSimilarity, MacroScore, ScoringConfig, align_rows, clean_table,
                                      macro_over_runs, score_table)
from pipeline.table import MappingRow, MappingTable, read_table

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / ".." / "shared" / "benchmarks" / "blinkg" / "scenarios"
GOLD_TABLES = sorted(SCENARIOS.glob("*/*/expected_table.md"))
CASE_1G = SCENARIOS / "scenario1" / "1G"


def case_ontology(folder: Path) -> Ontology:
    """Load the case's .ttl files, leaving out any that do not parse (some gold SKOS files are broken)."""
    good = []
    for f in sorted(folder.glob("*.ttl")):
        try:
            load_ontology([f])
            good.append(f)
        except OntologyError:
            pass
    return load_ontology(good)


@pytest.mark.skipif(not GOLD_TABLES, reason="BLINKG benchmark not available")
@pytest.mark.parametrize("gold_path", GOLD_TABLES, ids=lambda p: f"{p.parent.parent.name}-{p.parent.name}")
@pytest.mark.parametrize("setting", ["raw", "post-processed"])
def test_gold_against_itself(gold_path: Path, setting: str) -> None:
    gold = read_table(gold_path)
    score = score_table(gold, gold, case_ontology(gold_path.parent), setting=setting)
    assert len(score.alignment.pairs) == len(gold)
    for task, ts in score.tasks.items():
        if ts.n_gold == 0:
            assert (ts.precision, ts.recall, ts.f1) == (None, None, None), task
            assert not ts.applicable
        else:
            assert (ts.precision, ts.recall, ts.f1) == (1.0, 1.0, 1.0), task
            assert ts.fp == ts.fn == 0


@pytest.fixture(scope="module")
def case_1g() -> tuple[MappingTable, Ontology]:
    if not (CASE_1G / "expected_table.md").exists():
        pytest.skip("BLINKG scenario 1G not available")
    return read_table(CASE_1G / "expected_table.md"), case_ontology(CASE_1G)


def _perturbed(gold: MappingTable) -> MappingTable:
    rows = [dataclasses.replace(r) for r in gold.rows]
    by_prop = {r.ontology_property: r for r in rows}
    assert by_prop["ex:firstname"].datatype == "xsd:string"
    by_prop["ex:firstname"].datatype = "xsd:strng"       # typo, Levenshtein 0.9 >= 0.8: still correct
    assert by_prop["ex:lastname"].datatype == "xsd:string"
    by_prop["ex:lastname"].datatype = "xsd:stirgn"      # typo, Levenshtein 0.7, cosine ~0.66: wrong
    assert by_prop["ex:owes"].entity_class == "ex:Person"
    by_prop["ex:owes"].entity_class = "ex:City"         # wrong class
    assert by_prop["ex:cityname"].join_condition
    by_prop["ex:cityname"].join_condition = None        # missing join
    return MappingTable(rows=rows, source="perturbed-1G")


@pytest.mark.parametrize("setting", ["raw", "post-processed"])
def test_perturbed_1g_hand_computed(case_1g: tuple[MappingTable, Ontology], setting: str) -> None:
    gold, onto = case_1g
    score = score_table(_perturbed(gold), gold, onto, setting=setting)
    assert score.alignment.pairs == [(i, i) for i in range(6)]
    got = {t: (s.tp, s.fp, s.fn, s.precision, s.recall, s.f1) for t, s in score.tasks.items()}
    full = (1.0, 1.0, 1.0)
    # 6 rows: 6 data references, properties, classes, templates, datatypes; 1 related class, join, language tag.
    assert got["Data Reference"] == (6, 0, 0) + full
    assert got["Ontology Property"] == (6, 0, 0) + full
    assert got["Entity Class"] == (5, 1, 1, 5 / 6, 5 / 6, 5 / 6)
    assert got["Related Entity Class"] == (1, 0, 0) + full
    assert got["Subject Generation"] == (6, 0, 0) + full
    assert got["Join Condition"] == (0, 0, 1, 0.0, 0.0, 0.0)
    if setting == "raw":
        assert got["Datatype"] == (5, 1, 1, 5 / 6, 5 / 6, 5 / 6)
    else:  # post-processing reads the ex:lives row's "Object Property" datatype as no datatype
        assert got["Datatype"] == (4, 1, 1, 0.8, 0.8, pytest.approx(0.8, abs=1e-12))
    assert got["Language Annotation"] == (1, 0, 0) + full
    assert got["Function Name"] == (0, 0, 0, None, None, None)
    assert got["Function Output"] == (0, 0, 0, None, None, None)


def test_missing_row_and_spurious_cell(case_1g: tuple[MappingTable, Ontology]) -> None:
    """Precision and recall part ways: one gold row missing, one related class where gold has none."""
    gold, onto = case_1g
    rows = [dataclasses.replace(r) for r in gold.rows if r.ontology_property != "ex:fullname"]
    rows[0].related_entity_class = "ex:City"  # ex:firstname row: gold has no related class
    score = score_table(MappingTable(rows=rows), gold, onto)
    dr, rel = score.tasks["Data Reference"], score.tasks["Related Entity Class"]
    assert (dr.tp, dr.fp, dr.fn) == (5, 0, 1)
    assert (dr.precision, dr.recall) == (1.0, 5 / 6)
    assert dr.f1 == pytest.approx(10 / 11, abs=1e-12)
    assert (rel.tp, rel.fp, rel.fn) == (1, 1, 0)
    assert (rel.precision, rel.recall) == (0.5, 1.0)
    assert rel.f1 == pytest.approx(2 / 3, abs=1e-12)
    assert score.alignment.unmatched_gold == [2]


def _row(prop: str, cls: str | None, ref: str | None, line: int) -> MappingRow:
    return MappingRow(data_reference=ref, ontology_property=prop, entity_class=cls, line=line)


def test_hungarian_beats_greedy() -> None:
    """Greedy lets the first predicted row take the gold row the second one needs."""
    gold = MappingTable(rows=[_row("ex:name", "ex:Person", "person_name", 1), _row("ex:name", "ex:Sport", "title", 2)])
    pred = MappingTable(rows=[_row("ex:name", "ex:Sport", "person_name", 1), _row("ex:name", "ex:Sport", "title", 2)])
    sim = CellSimilarity(None)
    greedy = align_rows(pred, gold, sim, method="greedy")
    optimal = align_rows(pred, gold, sim, method="hungarian")
    assert greedy.pairs == [(0, 1), (1, 0)]
    assert optimal.pairs == [(0, 0), (1, 1)]
    assert optimal.total_score > greedy.total_score
    g = score_table(pred, gold, config=ScoringConfig(alignment="greedy")).tasks
    h = score_table(pred, gold, config=ScoringConfig(alignment="hungarian")).tasks
    assert (g["Data Reference"].tp, h["Data Reference"].tp) == (0, 2)
    assert (g["Data Reference"].f1, h["Data Reference"].f1) == (0.0, 1.0)
    assert (g["Entity Class"].tp, h["Entity Class"].tp) == (1, 1)


def test_post_processing_repairs_formatting() -> None:
    onto = load_ontology([], {"ex": "http://example.org/"})
    gold = MappingTable(rows=[MappingRow(data_reference="concat(a,b)", ontology_property="ex:fullName",
                                         entity_class="ex:Person", subject_template="http://example.org/p/{a}",
                                         join_condition="x.a==y.b", language_tag="en",
                                         function_output="1 -> http://e.org/B <br> 0 -> http://e.org/A")])
    pred = MappingTable(rows=[MappingRow(data_reference="concat(a, b)",
                                         ontology_property="<http://example.org/fullName>",
                                         entity_class="`ex:Person`", subject_template="ex:p/{a}",
                                         join_condition="x.a = y.b", language_tag="@EN",
                                         function_output="0 -> http://e.org/A<br/>1 -> http://e.org/B")])
    cleaned_p, cleaned_g = clean_table(pred, onto).rows[0], clean_table(gold, onto).rows[0]
    for field in ("data_reference", "ontology_property", "entity_class", "subject_template", "join_condition",
                  "language_tag", "function_output"):
        assert getattr(cleaned_p, field) == getattr(cleaned_g, field), field
    cfg = ScoringConfig(use_embeddings=False)
    raw = score_table(pred, gold, onto, config=cfg, setting="raw").tasks
    post = score_table(pred, gold, onto, config=cfg, setting="post-processed").tasks
    assert raw["Subject Generation"].tp == 0 and post["Subject Generation"].tp == 1
    assert raw["Ontology Property"].tp == 0 and post["Ontology Property"].tp == 1
    assert all(t.f1 in (1.0, None) for t in post.values())


def test_raw_setting_reads_a_described_term_by_its_label(tmp_path: Path) -> None:
    """Raw compares cells as written, but a term cell naming a term the ontology describes is also
    compared by the term's label and comment (BLINKG's get_property_lexicalization): a full IRI and
    its prefixed name are one term; a term the ontology does not describe is compared as text only."""
    onto_file = tmp_path / "o.ttl"
    onto_file.write_text("@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                         "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                         "ex:Person a owl:Class ; rdfs:label \"person\" .\n"
                         "ex:fullName a owl:DatatypeProperty ; rdfs:label \"full name\" ; rdfs:domain ex:Person .\n",
                         encoding="utf-8")
    onto = load_ontology([onto_file])
    gold = MappingTable(rows=[MappingRow(data_reference="n", ontology_property="ex:fullName", entity_class="ex:Person")])
    pred = MappingTable(rows=[MappingRow(data_reference="n", ontology_property="http://example.org/fullName",
                                         entity_class="http://example.org/Person")])
    # the label is compared through the sentence embedding (the packaged model; BLINKG section 3.3)
    raw = score_table(pred, gold, onto, setting="raw").tasks
    assert (raw["Ontology Property"].tp, raw["Entity Class"].tp) == (1, 1)
    # without the ontology the same cells are text: a full IRI is not its prefixed name
    bare = score_table(pred, gold, None, setting="raw").tasks
    assert (bare["Ontology Property"].tp, bare["Entity Class"].tp) == (0, 0)


@pytest.mark.parametrize("cell, expected", [
    ("xsd:langString", "rdf:langString"), ("`rdf:langString`", "rdf:langString"), ("Object Property", None),
    ("IRI", None), ("xsd:integer", "xsd:integer"), ("geo:lat", "geo:lat"), (None, None),
])
def test_post_processing_reads_what_a_datatype_cell_means(cell: str | None, expected: str | None) -> None:
    onto = load_ontology([], {"ex": "http://example.org/"})
    assert clean_datatype(cell, onto) == expected
    # the 1H gold writes xsd:langString: a predicted rdf:langString is right once both are cleaned
    gold = MappingTable(rows=[MappingRow(data_reference="Name", ontology_property="ex:cityname",
                                         entity_class="ex:City", datatype="xsd:langString", language_tag="en")])
    pred = MappingTable(rows=[dataclasses.replace(gold.rows[0], datatype="rdf:langString")])
    cfg = ScoringConfig(use_embeddings=False)
    assert score_table(pred, gold, onto, config=cfg, setting="raw").tasks["Datatype"].tp == 0
    assert score_table(pred, gold, onto, config=cfg, setting="post-processed").tasks["Datatype"].tp == 1


def test_macro_over_runs_mean_and_spread(case_1g: tuple[MappingTable, Ontology]) -> None:
    gold, onto = case_1g
    runs = [score_table(gold, gold, onto), score_table(_perturbed(gold), gold, onto)]
    macro = macro_over_runs(runs)
    ec: MacroScore = macro["Entity Class"]
    assert ec.runs == 2
    assert ec.f1 == pytest.approx((1.0 + 5 / 6) / 2, abs=1e-12)
    assert ec.spread["f1"]["min"] == pytest.approx(5 / 6) and ec.spread["f1"]["max"] == 1.0
    assert ec.spread["f1"]["std"] == pytest.approx((1 / 6) / 2 ** 0.5, abs=1e-12)
    assert macro["Function Name"].f1 is None and macro["Function Name"].runs == 0


def test_messy_input_never_raises() -> None:
    weird = MappingTable(rows=[MappingRow(ontology_property="::", entity_class="a/b/", datatype="<>",
                                          join_condition="===", function_output="->"), MappingRow()])
    score = score_table(weird, MappingTable(), None, setting="post-processed")
    assert score.tasks["Ontology Property"].precision is None
    assert score.tasks["Ontology Property"].fp == 1


def test_bad_config_is_rejected() -> None:
    with pytest.raises(ValueError, match="tau"):
        ScoringConfig(tau=1.5)
