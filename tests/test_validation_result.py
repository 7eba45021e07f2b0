"""A check's result as JSON is the same whatever order its findings came in (pySHACL's result
graph and Python's sets give them in an order that changes with the hash seed)."""
from __future__ import annotations

import random

from pipeline.findings import Finding
from pipeline.validation.result import Result


def test_findings_are_listed_most_severe_first_then_by_position_in_any_input_order():
    findings = [Finding(severity="warning", message="w", location="http://e.org/b"),
                Finding(severity="error", message="e", location="http://e.org/z"),
                Finding(severity="warning", message="w", location="http://e.org/a"),
                Finding(severity="info", message="i"),
                Finding(severity="error", message="e2", line=7),
                Finding(severity="error", message="e1", line=3)]
    dumps = set()
    for seed in range(6):
        shuffled = findings[:]
        random.Random(seed).shuffle(shuffled)
        d = Result("SHACL", False, findings=shuffled).to_dict(max_findings=4)
        dumps.add(repr(d))
        assert [(f["severity"], f["message"], f["line"], f["location"]) for f in d["findings"]] == [
            ("error", "e1", 3, ""), ("error", "e2", 7, ""), ("error", "e", None, "http://e.org/z"),
            ("warning", "w", None, "http://e.org/a")]
        assert d["n_findings"] == 6
    assert len(dumps) == 1
