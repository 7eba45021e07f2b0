"""Validation at scale: a check that did not run is never a pass; sampled checks say what they covered."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.run.evaluate import graph_validation, validation_passed
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.validation.sample import subject_sample

ROOT = Path(__file__).resolve().parent.parent
EX = "http://example.org/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def test_not_run_timeout_and_failed_checks_are_no_pass():
    ok = {"SV2": {"value": True, "status": "ok"}, "SHACL": {"value": True, "status": "ok"}}
    assert validation_passed(ok) is True
    assert validation_passed({**ok, "CS2-owlrl": {"value": None, "status": "timeout"}}) is False
    assert validation_passed({**ok, "CS2-owlrl": {"value": None, "status": "not_run"}}) is False
    assert validation_passed({**ok, "CS2-owlrl": {"value": None, "status": "failed"}}) is False
    assert validation_passed({**ok, "CS2-hermit": {"value": None, "status": "not_applicable"}}) is True
    assert validation_passed({**ok, "SHACL": {"value": False, "status": "ok"}}) is False


def _kg(path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        s = f"<{EX}s{i:03d}>"
        lines.append(f'{s} <{EX}name> "n{i}" .')
        lines.append(f"{s} <{TYPE}> <{EX}{'Rare' if i == 57 else 'Common'}> .")
        lines.append(f"{s} <{EX}knows> <{EX}s{(i + 1) % n:03d}> .")
    path.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    return path


def test_subject_sample_covers_every_class_and_predicate_and_says_how_much(tmp_path):
    graph, cov = subject_sample(_kg(tmp_path / "kg.nt", 100), target_triples=30, min_per_stratum=2)
    assert cov["triples"][1] == 300 and cov["subjects"][1] == 100
    assert cov["classes"] == [2, 2] and cov["predicates"] == [2, 2]  # the one 'Rare' subject is in
    n_subjects = cov["subjects"][0]
    assert (n_subjects, cov["triples"][0]) == (8, 24)  # ~10% by hash plus the strata; all triples of each
    # the objects of 'knows' bring their types along
    assert len(graph) == 24 + cov["object_type_triples"] and cov["object_type_triples"] > 0


@pytest.mark.parametrize("sv2_in_child", [False, True])
def test_graph_validation_runs_heavy_checks_on_a_sample_above_the_limit(tmp_path, monkeypatch, sv2_in_child):
    if sv2_in_child:  # the path of files from PARALLEL_BYTES on: SV2 in a child beside the other checks
        monkeypatch.setattr("pipeline.validation.parallel.PARALLEL_BYTES", 0)
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    kg = tmp_path / "kg.nt"
    kg.write_text(f'<{EX}person/p1> <{TYPE}> <{EX}ontology#Person> .\n'
                  f'<{EX}person/p1> <{EX}ontology#name> "Ann" .\n', encoding="utf-8")
    full = graph_validation(kg, None, onto, case)
    sampled = graph_validation(kg, None, onto, case, full_limit=1)
    assert full["SHACL"]["details"]["coverage"] == {"mode": "full", "triples": [2, 2]}
    cov = sampled["CS2-owlrl"]["details"]["coverage"]
    assert cov["mode"] == "sample" and cov["triples"] == [2, 2] and sampled["CS2-owlrl"]["value"] is True
    assert sampled["SV2"]["details"]["coverage"] == {"mode": "full"}
    assert (sampled["SV2"]["value"], sampled["SV2"]["details"]["n_triples"]) == (True, 2)
    assert list(sampled)[0] == "SV2"


@pytest.mark.parametrize("sv2_in_child", [False, True])
def test_an_unreadable_kg_leaves_the_heavy_checks_not_run(tmp_path, monkeypatch, sv2_in_child):
    if sv2_in_child:
        monkeypatch.setattr("pipeline.validation.parallel.PARALLEL_BYTES", 0)
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    kg = tmp_path / "kg.nt"
    kg.write_text(f'"lit" <{EX}p> <{EX}o> .\n', encoding="utf-8")
    result = graph_validation(kg, None, onto, case)
    assert result["CS2-owlrl"]["status"] == "not_run" and result["SHACL"]["status"] == "not_run"
    assert result["SHACL"]["details"]["reason"] == "the KG does not parse (see SV2)"
    assert result["SV2"]["details"]["N_fatal"] == 1
    assert validation_passed(result) is False


def test_report_shows_a_check_that_did_not_run_as_not_run():
    from pipeline.report.build import build_report, console_table

    report = build_report([{"scenario": "s", "case": "c", "graph": {
        "SV2": {"value": True, "status": "ok"}, "CS2-owlrl": {"value": None, "status": "timeout"},
        "SHACL": {"value": None, "status": "not_applicable"}}}],
        columns=(("SV2", "SV2"), ("CS2", "CS2-owlrl"), ("SHACL", "SHACL")))
    assert console_table(report).splitlines()[-1].split() == ["s", "c", "n/a", "n/a", "yes", "not", "run", "n/a"]


def test_second_pass_reads_only_candidate_lines_and_draws_the_same_sample(tmp_path, monkeypatch):
    from pipeline.validation import sample as sample_module

    path = _kg(tmp_path / "kg.nt", 100)
    with open(path, "a", encoding="utf-8") as fh:  # lines the statement pattern skips or reads oddly
        fh.write(f'<{EX}s001>\t<{EX}name> "tab" .\n"lit subject" <{EX}name> "x" .\n<{EX}s002> <{EX}note> "a b c" .\n')
    drawn = subject_sample(path, target_triples=30, min_per_stratum=2)
    every = sample_module._statements
    monkeypatch.setattr(sample_module, "_statements", lambda p, keep=None: every(p))  # every line parsed
    full = subject_sample(path, target_triples=30, min_per_stratum=2)
    assert sorted(drawn[0]) == sorted(full[0]) and drawn[1] == full[1]
    assert (drawn[1]["triples"], drawn[1]["subjects"], drawn[1]["object_type_triples"]) == ([28, 303], [9, 101], 7)
