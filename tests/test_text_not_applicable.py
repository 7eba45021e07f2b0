"""A category with nothing to score is n/a (None; ``n/a`` in the tables), never a measured 0."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.text.bench import format_table
from pipeline.text.harness import BASELINES
from pipeline.text.data import load_ontology
from pipeline.text.metrics import Output, macro, prf, score_ontology

CASE = Path(__file__).parent / "cases" / "text"


@pytest.fixture(scope="module")
def onto():
    return load_ontology(CASE / "ontology.json")


def test_prf_rules():
    assert prf(0, 0, 0) == {"precision": None, "recall": None, "f1": None}
    assert prf(0, 0, 3) == {"precision": None, "recall": 0.0, "f1": 0.0}  # nothing found
    assert prf(0, 2, 0) == {"precision": 0.0, "recall": None, "f1": 0.0}  # everything spurious
    assert prf(1, 2, 4)["f1"] == pytest.approx(1 / 3)


def test_object_properties_only_leave_attributes_not_applicable(onto):
    # only an object property (city) in gold and prediction: no attribute, no datatype property
    s = score_ontology([Output("1", "Omega University is located in Lille.",
                               [{"sub": "Omega_University", "rel": "city", "obj": "Lille"}],
                               [{"sub": "Omega University", "rel": "city", "obj": "Lille"}])], onto)
    assert s["R"]["f1"] == 1.0
    assert s["A"] == {"precision": None, "recall": None, "f1": None, "tp": 0, "n_pred": 0, "n_gold": 0}
    assert s["P"]["f1"] is None
    # a wrong attribute predicted where the gold has none is a measured 0
    s2 = score_ontology([Output("2", "Kappa University was established in 1998.",
                                [{"sub": "Kappa_University", "rel": "city", "obj": "Lille"}],
                                [{"sub": "Kappa University", "rel": "established", "obj": "1998"}])], onto)
    assert (s2["A"]["precision"], s2["A"]["recall"], s2["A"]["f1"]) == (0.0, None, 0.0)
    # the macro skips n/a: one ontology's 0.0 A F1 is the macro, the other's n/a does not count
    m = macro({"a": s, "b": s2})
    assert m["A"]["f1"] == 0.0 and m["R"]["f1"] == pytest.approx(0.5)
    m1 = macro({"a": s})
    assert m1["A"]["f1"] is None

    row = {"ours": s, "ours one-document": s, "validation": {}, **{b: None for b in BASELINES}}
    table = format_table({"protocol": "own", "split": "test", "rows": {"x": row},
                          "macro": {"ours": m1, "ours one-document": m1, **{b: None for b in BASELINES},
                                    **{f"{b} published": None for b in BASELINES}},
                          "elapsed_s": 1.0, "cpu_s": 1.0})
    cells = [c.strip() for c in table.splitlines()[4].split("|")]
    assert cells[1:6] == ["x", "1.00", "n/a", "n/a", "1.00"]
    cells = [c.strip() for c in table.splitlines()[5].split("|")]
    assert cells[1:6] == ["**macro**", "1.00", "n/a", "n/a", "1.00"]
