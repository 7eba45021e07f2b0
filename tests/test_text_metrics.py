"""Text -> KG scorer and normalization on small hand-checked examples (exact values)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.text.data import load_ontology
from pipeline.text.metrics import Output, macro, score_ontology
from pipeline.text.normalize import clean_name, date_value, normalize_value, number_value, triple_key
from pipeline.text.schema import parse_output

CASE = Path(__file__).parent / "cases" / "text"


@pytest.fixture(scope="module")
def onto():
    return load_ontology(CASE / "ontology.json")


def test_normalization_rules():
    assert clean_name("AWH_Engineering_College") == "AWH Engineering College"
    assert clean_name('"\\"Kuttikkattoor\\""'.replace("\\", "")) == "Kuttikkattoor"
    assert number_value("1,121.0") == "1121"
    assert number_value("162164091.8388 (kilometres)") == "162164091.8388"
    assert number_value("1 Decembrie 1918 University") is None
    assert date_value("July 10th, 1989") == "1989-07-10"
    assert date_value("14 July 2004") == "2004-07-14"
    assert date_value('"1923-11-18"') == "1923-11-18"
    assert normalize_value("2,500", "number") == "2500"
    assert normalize_value("2,500", "string") == "2,500"
    assert triple_key("St._Louis", "city", "\"Lille\"", "City") == ("stlouis", "city", "lille")


def test_scores_of_a_hand_checked_example(onto):
    s1 = "Omega University is located in Lille and has 2,500 academic staff."
    s2 = "Kappa University was established in 1998."
    gold1 = [{"sub": "Omega_University", "rel": "city", "obj": "Lille"},
             {"sub": "Omega_University", "rel": "academicStaffSize", "obj": "2500"}]
    gold2 = [{"sub": "Kappa_University", "rel": "established", "obj": "\"1998\""}]
    pred1 = [{"sub": "Omega University", "rel": "city", "obj": "Lille", "subType": "University", "objType": "City"},
             {"sub": "Omega University", "rel": "academicStaffSize", "obj": "2,500", "subType": "College",
              "objType": "number"},
             {"sub": "Omega University", "rel": "mayor", "obj": "Paris", "subType": "University", "objType": "Person"}]
    pred2 = [{"sub": "Kappa University", "rel": "established", "obj": "1999", "subType": "University", "objType": "Date"},
             {"sub": "Kappa University", "rel": "country", "obj": "1998", "subType": "University", "objType": "Country"}]
    s = score_ontology([Output("1", s1, gold1, pred1, True, 0.2, 0.001),
                        Output("2", s2, gold2, pred2, False, 0.4, 0.003)], onto)
    # Text2KGBench triple level: sentence 1 P=R=F1=1 (the unknown relation is filtered), sentence 2 all 0
    assert s["triple"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert s["onto_conformance"] == pytest.approx(5 / 6)
    assert s["rel_halluc"] == pytest.approx(1 / 6)
    assert s["sub_halluc"] == 0.0
    assert s["obj_halluc"] == pytest.approx((1 / 3 + 1 / 2) / 2)  # Paris, 1999 are not in their sentences
    # LettrIA categories, micro over the two sentences
    assert (s["E"]["tp"], s["E"]["n_pred"], s["E"]["n_gold"]) == (3, 5, 3)
    assert s["E"]["f1"] == pytest.approx(0.75)
    assert (s["A"]["tp"], s["A"]["n_pred"], s["A"]["n_gold"]) == (1, 2, 2)
    assert (s["P"]["tp"], s["P"]["n_pred"], s["P"]["n_gold"]) == (2, 2, 2)
    assert (s["R"]["tp"], s["R"]["n_pred"], s["R"]["n_gold"]) == (1, 2, 1)
    assert s["R"]["f1"] == pytest.approx(2 / 3)
    assert s["fidelity"] == pytest.approx(4 / 5)  # 'mayor' is not an ontology relation
    assert s["adherence"] == pytest.approx(3 / 4)  # College is a University; a number is no Country
    assert s["validity"] == 0.5
    assert s["latency_s"] == pytest.approx(0.3)
    assert s["cost_usd"] == pytest.approx(0.002)
    m = macro({"a": s, "b": {**s, "validity": 1.0}})
    assert m["validity"] == 0.75 and m["triple"]["f1"] == 0.5


def test_empty_output_scores_zero_and_has_no_conformance(onto):
    kappa = Output("1", "Kappa University was established in 1998.",
                   [{"sub": "Kappa_University", "rel": "established", "obj": "1998"}], [])
    s = score_ontology([kappa], onto)
    # no triple predicted at all: nothing to judge (a conformance of 1.0 would read as perfect)
    assert s["triple"]["f1"] == 0.0 and s["onto_conformance"] is None and s["rel_halluc"] is None
    assert s["sub_halluc"] is None and s["obj_halluc"] is None
    assert s["fidelity"] is None and s["adherence"] is None
    # a sentence without triples beside one with triples conforms (Text2KGBench's per-sentence mean)
    lille = Output("2", "Omega University is located in Lille.", [],
                   [{"sub": "Omega University", "rel": "mayor", "obj": "Lille"}])
    s = score_ontology([kappa, lille], onto)
    assert s["onto_conformance"] == 0.5 and s["rel_halluc"] == 0.5


def test_schema_validity():
    ok = '{"triples": [{"sub": "A", "rel": "city", "obj": "B", "subType": "University", "objType": "City"}]}'
    assert parse_output(ok)[1] == []
    triples, errors = parse_output('[{"sub": "A", "rel": "city", "obj": "B"}]')
    assert triples == [] and errors == ["$[0]: 'subType' is a required property", "$[0]: 'objType' is a required property"]
    assert parse_output("city(A, B)")[1][0].startswith("$: not JSON")


def test_entity_iris_are_iri_safe_as_kgc_materialize_mints_them():
    from pipeline.text.rdf import entity_iri

    assert str(entity_iri("http://ex.org/", "Émile Zola")) == "http://ex.org/Émile%20Zola"
    assert str(entity_iri("http://ex.org/", "Émile_Zola")) == "http://ex.org/Émile%20Zola"
    assert str(entity_iri("http://ex.org/", "Arion_(comicsCharacter)")) == "http://ex.org/Arion%20%28comicsCharacter%29"
    assert str(entity_iri("http://ex.org/", "Albany, Georgia")) == "http://ex.org/Albany%2C%20Georgia"


def test_own_ontology_namespace_from_the_file_or_the_manifest(tmp_path):
    import json

    from pipeline.text.data import load_ontology
    from pipeline.text.rdf import ontology_graph

    f = tmp_path / "onto.json"
    f.write_text(json.dumps({"id": "towns", "iri": "http://my.org/onto", "concepts": [{"label": "City"}],
                             "relations": [{"label": "mayor", "domain": "City", "range": "Person"}]}))
    classes = sorted({str(s) for s in ontology_graph(load_ontology(f)).subjects()
                      if str(s).endswith("#City")})
    assert classes == ["http://my.org/onto#City"]  # no separator: the OWL convention, <onto#City>
    assert load_ontology(f, "http://other.org/o#").iri == "http://other.org/o#"
    f.write_text(json.dumps({"id": "towns", "concepts": [], "relations": []}))
    assert load_ontology(f).iri == "https://cenguix.github.io/Text2KGBench/towns/"
