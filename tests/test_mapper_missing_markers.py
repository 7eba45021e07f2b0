"""Cells that say "no value" (N/A, -) are no values to the offline mapper's range and kind tests
(pipeline.mappers.offline.profile.present_values, fit.value_fit, fit.value_kind)."""
from __future__ import annotations

from collections import Counter

from rdflib import URIRef

from pipeline.mappers.offline.fit import value_fit, value_kind
from pipeline.mappers.offline.profile import present_values
from pipeline.ontology import load_ontology
from pipeline.sources.columns import Values


def test_present_values_leaves_markers_out_and_keeps_the_column_when_none():
    col = Values(["300", "N/A", "-", " n/a ", "250"])
    assert list(present_values(col)) == ["300", "250"]
    assert present_values(col) is present_values(col)  # kept in the column's memo
    plain = Values(["1", "2"])
    assert present_values(plain) is plain
    sampled = Values(["1", "NA"], counts=Counter({"1": 7, "NA": 90, "2": 3}))
    assert present_values(sampled).counts == Counter({"1": 7, "2": 3})


def test_range_fit_and_kind_are_judged_on_the_other_cells(tmp_path):
    (tmp_path / "o.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "ex:cap a owl:DatatypeProperty ; rdfs:range xsd:integer .\n", encoding="utf-8")
    ont = load_ontology([tmp_path / "o.ttl"])
    cap = URIRef("http://example.org/cap")
    assert value_fit(ont, cap, Values(["300", "N/A", "-", "-", "250", "n/a"])) == 1.0
    assert value_fit(ont, cap, Values(["1200", "N/A", "85", "1,500"])) == 0.9   # 2 of 3 values fit
    assert value_fit(ont, cap, Values(["N/A", "-"])) == 0.3                      # no value at all
    assert value_fit(ont, cap, Values(["x", "N/A", "y", "1"])) == 0.3            # 1 of 3
    assert value_kind(["300", "N/A", "-", "250"]) == "integer"
    assert value_kind(["N/A", "-"]) is None
    assert value_kind(["2024-01-02", "NA"]) == "date"
