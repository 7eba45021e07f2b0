"""The confidence model's features, its fit and its use: each row of the offline mapper carries a
``features:`` evidence line (exact name, margin to the next property, own domain), the benchmark fits a
logistic regression on judged rows and reports it left one case out, and :func:`calibrate_rows` turns a
model's weights into the rows' confidence and review marks (no model is shipped: the rows keep the
per-basis knots)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.real import fit_model, model_report
from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.confidence import MODEL, basis_of, calibrate_rows, evidence_line, model_confidence
from pipeline.mappers.offline.features import FEATURES, features_line, parse_features
from pipeline.table import MappingRow

ONTOLOGY = """@prefix ex: <http://example.org/lib#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Agent a owl:Class . ex:Publisher a owl:Class ; rdfs:subClassOf ex:Agent ; rdfs:label "publisher" .
ex:publisherName a owl:DatatypeProperty ; rdfs:label "publisher name" ; rdfs:domain ex:Publisher ;
    rdfs:range xsd:string .
ex:city a owl:DatatypeProperty ; rdfs:label "city" ; rdfs:domain ex:Agent ; rdfs:range xsd:string .
ex:founded a owl:DatatypeProperty ; rdfs:label "founded" ; rdfs:domain ex:Publisher ; rdfs:range xsd:gYear .
"""


def test_every_row_carries_its_features(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    (tmp_path / "o.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "publishers.csv").write_text("press_id,press_label,city,est\nP1,Penguin Books,London,1935\n"
                                             "P2,Gallimard,Paris,1911\nP3,Suhrkamp,Berlin,1950\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: pub\nbase_iri: http://example.org/\nsources: [publishers.csv]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    rows = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table
    got = {(r.data_reference, r.ontology_property, basis_of(r)[0]): parse_features(r.evidence) for r in rows}
    assert got == {
        # "city" is ex:city's name word for word; its domain is the publisher's superclass
        ("city", "ex:city", "exact name"): {"exact": 1.0, "margin": 0.886, "own": 0.5},
        ("press_label", "ex:publisherName", "name"): {"exact": 0.0, "margin": 0.26, "own": 1.0},
        # four-digit years, the only gYear property: "est" is named no more like "founded" than like another
        ("est", "ex:founded", "values"): {"exact": 0.0, "margin": -0.086, "own": 1.0},
    }
    assert not any(r.review for r in rows)  # no model is shipped: the features mark nothing
    assert MODEL == {}


def test_the_features_line_is_read_back():
    line = features_line({"exact": 1.0, "margin": 0.21, "own": 0.5})
    assert line == "features: exact 1, margin 0.21, own 0.5"
    assert parse_features(["x", line]) == {"exact": 1.0, "margin": 0.21, "own": 0.5}
    assert parse_features(["features: exact 1, margin 0.2"]) is None  # a feature missing
    assert parse_features(["confidence: name evidence, raw 0.500"]) is None


# rows of three corpus cases as bench-real judges them (docs/benchmarks/real.md): their features and
# whether at least half of their (predicate, value) pairs are in the reference
JUDGED = {
    "docker-image-metadata": [({"exact": 0.0, "margin": 0.381, "own": 0.0}, True)],
    "foaf-people-organizations": [
        ({"exact": 0.0, "margin": 0.038, "own": 1.0}, False), ({"exact": 0.0, "margin": 0.024, "own": 1.0}, False),
        ({"exact": 1.0, "margin": 0.709, "own": 1.0}, False), ({"exact": 0.0, "margin": 0.758, "own": 1.0}, True),
        ({"exact": 0.0, "margin": -0.108, "own": 1.0}, False), ({"exact": 0.0, "margin": 1.0, "own": 1.0}, True),
        ({"exact": 0.0, "margin": 0.0, "own": 1.0}, True)],
    "kmi-weather-sosa": [({"exact": 0.0, "margin": 0.09, "own": 1.0}, False)],
}


def _results() -> list[dict]:
    return [{"case": case, "row_judgements": [{"features": f, "right": right} for f, right in rows]}
            for case, rows in JUDGED.items()]


def test_the_model_is_a_logistic_regression_of_right_on_the_features():
    judged = [j for r in _results() for j in r["row_judgements"]]
    model = fit_model(judged)
    assert list(model) == ["intercept", *FEATURES]
    assert model == {"intercept": -0.006, "exact": -0.407, "margin": 0.669, "own": -0.438}
    # margin is what separates these rows: the ones named like no other property are right
    assert model_confidence({"exact": 0.0, "margin": 1.0, "own": 1.0}, model) > 0.5 > model_confidence(
        {"exact": 0.0, "margin": 0.0, "own": 1.0}, model)
    with pytest.raises(ValueError, match="all wrong"):
        fit_model([j for j in judged if not j["right"]])


def test_the_report_leaves_each_case_out():
    model, table = model_report(_results(), thresholds=(0.0, 0.5))
    lines = table.splitlines()
    assert lines[2] == "| 0.00 | 9 of 9 | 0.48; 0.44 | 9 of 9 | 0.44 |"  # every row kept: case mean of 1, 3/7, 0
    # fitted on all nine rows the model keeps three, all right; fitted without the case it judges, none
    assert lines[3] == "| 0.50 | 0 of 9 | n/a; n/a | 3 of 9 | 1.00 |"


def test_a_model_sets_the_confidence_and_marks_rows_below_the_threshold():
    model = {"intercept": -1.0, "exact": 2.0, "margin": 1.0, "own": 0.0}
    rows = [MappingRow(data_reference="a", evidence=[evidence_line("name", 0.9),
                                                     features_line({"exact": 1.0, "margin": 0.5, "own": 1.0})]),
            MappingRow(data_reference="b", evidence=[evidence_line("name", 0.9),
                                                     features_line({"exact": 0.0, "margin": 0.2, "own": 1.0})]),
            MappingRow(data_reference="c", confidence=0.5, evidence=[evidence_line("joint assignment", 0.5)])]
    calibrate_rows(rows, threshold=0.5, model=model)
    assert [r.confidence for r in rows] == [0.818, 0.31, 0.143]  # c: no features, the basis's knots
    assert [bool(r.review) for r in rows] == [False, True, True]
    assert rows[0].evidence[-1] == "confidence 0.818 from name evidence, raw 0.900 (model of exact 1, margin 0.5, own 1)"
    assert basis_of(rows[1]) == ("name", 0.9)
    plain = [MappingRow(data_reference="b", confidence=0.9, evidence=[
        evidence_line("name", 0.9), features_line({"exact": 0.0, "margin": 0.2, "own": 1.0})])]
    calibrate_rows(plain)  # the shipped MODEL is empty: a name row keeps its score and is not marked
    assert plain[0].confidence == 0.9 and plain[0].review is None



def _row(basis: str, margin: float, reference: str = "stop_id", own: float = 0.0) -> MappingRow:
    return MappingRow(data_reference=reference, source_file="stops.csv", ontology_property="dct:identifier",
                      entity_class="gtfs:Stop", subject_template="http://example.org/stop/{stop_id}",
                      evidence=[evidence_line(basis, 0.63), features_line({"exact": 0.0, "margin": margin, "own": own})])


def test_a_name_match_to_a_property_of_no_domain_whose_column_another_names_better_is_marked():
    rows = [_row("subject key", -0.236), _row("name", -0.03, "nombre", own=0.5), _row("name", -0.017, "refsource", own=1.0),
            _row("name", 0.0, "title"), _row("exact name", -0.135, "name"), _row("values", -0.108, "email"),
            _row("subject key", 0.049, "id")]
    calibrate_rows(rows, model={})
    assert [r.review for r in rows] == [
        "second choice: another property the class may take names 'stop_id' better (margin -0.24, subject key "
        "evidence), and no domain ties this one to the class: check the property",
        "second choice: another property the class may take names 'nombre' better (margin -0.03, name evidence), "
        "and no domain ties this one to the class: check the property",
        None,  # a property declared for the class itself: its own attributes compete for its columns
        None,  # a tie is no better name
        None,  # a column named word for word keeps its property
        None,  # a forced pairing is no name match (values evidence)
        None]
