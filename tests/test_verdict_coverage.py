"""The case verdict weighs what of the sources reached the KG: values dropped (guards, join keys
without parent, functions giving no value), unmapped columns, records without a subject."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pipeline.cli import main
from pipeline.report.trust import case_verdict
from pipeline.validation.loss import LARGE_SHARE, UNTAGGED_CODE, CoverageLoss, coverage_loss

from helpers import CASES

VALID = {"SV2": {"value": True, "status": "ok"}, "CS2-owlrl": {"value": True, "status": "ok"},
         "SHACL": {"value": True, "status": "ok"}}


def _materialize(message: str) -> dict:
    return {"stage": "materialize", "severity": "error", "message": message}


def test_each_loss_is_counted_apart_and_a_large_share_is_lossy():
    findings = [_materialize("3 value(s) dropped: no parent record for join key (a == b in t.csv; ...): no triple"),
                _materialize("2 value(s) dropped: no value from function toDate() for values of 'd' ..."),
                _materialize("1 triple(s) dropped: ill-typed literal"), {"stage": "compile", "message": "9 value(s) dropped: x"}]
    loss = coverage_loss({"triples_dropped_by_guards": 6}, {
        "a.csv": {"columns": 4, "unmapped_columns": ["x"], "records": 10, "records_with_subject": 9, "triples_maps": 1},
        "b.csv": {"columns": 2, "unmapped_columns": ["p", "q"], "records": 5, "records_with_subject": 0,
                  "triples_maps": 0}}, findings)
    assert (loss.dropped, loss.join, loss.function, loss.guard) == (6, 3, 2, 1)
    assert (loss.columns, loss.n_unmapped, loss.records, loss.without_subject) == (6, 3, 10, 1)  # b.csv is unmapped
    v = case_verdict({"status": "ok", "loss": loss.to_dict()}, VALID)
    assert (v["level"], v["headline"]) == ("lossy", "The KG is valid (SV2, CS2-owlrl, SHACL pass), but it lacks data "
                                           "its input holds: 6 value(s) dropped; 3 of 6 source columns not mapped "
                                           "(50%); 1 of 10 records without a subject (10%).")
    assert v["reasons"][:6] == [
        "6 value(s) dropped at materialize (the case line's triples-dropped, run.json's "
        "counts.triples_dropped_by_guards), of which:",
        "1 triple(s) dropped by the guards (invalid terms; see the audit)",
        "3 join key(s) without a parent record: their links are not in the KG (see the audit)",
        "2 value(s) a function gave no value for are not in the KG (see the audit)",
        "3 of 6 source columns with values are not mapped (50%): a.csv: x; b.csv: p, q",
        "1 of 10 records get no subject (10%; a value their subject IRI needs is missing): nothing of them is in the KG"]


def test_unmapped_columns_are_said_not_judged():
    most = coverage_loss({}, {"a.csv": {"columns": 5, "unmapped_columns": ["a", "b", "c", "d"], "records": 4,
                                        "records_with_subject": 4, "triples_maps": 1}})
    assert most.unmapped_share == 0.8 and not most.lossy  # which columns to map is the mapping's choice

    below = coverage_loss({}, {"a.csv": {"columns": 5, "unmapped_columns": ["note", "x"], "records": 4,
                                         "records_with_subject": 4, "triples_maps": 1}})
    assert below.unmapped_share < LARGE_SHARE and not below.lossy
    v = case_verdict({"status": "ok", "loss": below.to_dict()}, VALID)
    assert (v["level"], v["headline"]) == ("valid", "The KG is valid (SV2, CS2-owlrl, SHACL pass).")
    assert v["reasons"][0] == "2 of 5 source columns with values are not mapped (40%): a.csv: note, x"
    # an invalid KG keeps its level; what it lost is said too
    v = case_verdict({"status": "ok", "loss": below.to_dict()}, {**VALID, "SHACL": {"value": False, "status": "ok"}})
    assert v["level"] == "invalid" and "2 of 5 source columns with values are not mapped (40%): a.csv: note, x" \
        in v["reasons"]


def test_a_run_with_join_keys_without_parent_names_them_in_its_verdict(tmp_path, capsys):
    case = tmp_path / "case"
    shutil.copytree(CASES / "join-unmatched-keys-dropped-silently", case)
    assert main(["-q", "run", str(case / "c.yaml"), "--mapper", "replay", "--table", str(case / "t.md"),
                 "--out", str(tmp_path / "out")]) == 1
    capsys.readouterr()
    report = json.loads(Path(tmp_path / "out" / "custom" / "report.json").read_text(encoding="utf-8"))
    verdict = report["cases"][0]["verdict"]
    assert verdict["level"] == "lossy"
    assert "3 join key(s) without a parent record: their links are not in the KG (see the audit)" in verdict["reasons"]
    assert not any("dropped by the guards" in r for r in verdict["reasons"])


def test_values_without_a_language_tag_make_a_valid_kg_lossy():
    """The compile audit's count of values a row reads a language tag for and that have none (RML makes
    no literal of them) is a loss, read from the finding's code, never from other audit findings."""
    untagged = {"stage": "audit", "code": UNTAGGED_CODE, "severity": "warning", "file": "t.md",
                "message": "language tag read per record from 'dc:title/@xml:lang'; 2 value(s) of 'dc:title' "
                           "without a language (no xml:lang, or xml:lang=\"\", which says none: XML 1.0 section "
                           "2.12) get no literal"}
    other = {"stage": "audit", "severity": "warning", "file": "t.md",
             "message": "3 value(s) of 'x' look like dates"}
    loss = coverage_loss({}, None, [untagged, other])
    assert (loss.untagged, loss.dropped, loss.lossy) == (2, 0, True)
    assert loss.summary() == "2 value(s) without a language tag"
    assert CoverageLoss.from_dict(loss.to_dict()).untagged == 2
    assert coverage_loss({}, None, [other]).lossy is False
