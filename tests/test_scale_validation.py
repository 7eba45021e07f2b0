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


def test_graph_validation_runs_heavy_checks_on_a_sample_above_the_limit(tmp_path):
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


@pytest.mark.parametrize("full_limit", [None, 0])  # 0: SV2's pass draws the sample too
def test_an_unreadable_kg_leaves_the_heavy_checks_not_run(tmp_path, full_limit):
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    kg = tmp_path / "kg.nt"
    kg.write_text(f'"lit" <{EX}p> <{EX}o> .\n', encoding="utf-8")
    result = graph_validation(kg, None, onto, case, full_limit=full_limit)
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


def test_svs_pass_draws_the_sample_subject_sample_draws(tmp_path):
    from pipeline.validation.sample import SubjectSample
    from pipeline.validation.syntax import check_ntriples

    path = _kg(tmp_path / "kg.nt", 100)
    alone = subject_sample(path, target_triples=30, min_per_stratum=2)
    sample = SubjectSample(300, target_triples=30, min_per_stratum=2)
    assert check_ntriples(path, on_triple=sample.add).value is True
    graph, cov = sample.result(300, path)
    assert sorted(graph) == sorted(alone[0]) and cov == alone[1] and sample.grouped


def test_a_subject_whose_triples_are_apart_gets_its_whole_description(tmp_path):
    path = _kg(tmp_path / "kg.nt", 100)
    common = f"<{EX}s050> <{TYPE}> <{EX}Common> ."  # s050: not drawn by the hash at this rate
    other = f"<{EX}s050> <{TYPE}> <{EX}Other> ."  # its only class now, sampled as a stratum
    lines = [other if ln == common else ln for ln in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    apart = tmp_path / "apart.nt"  # its rdf:type after every other line: s050 is seen twice
    apart.write_text("\n".join([ln for ln in lines if ln != other] + [other]) + "\n", encoding="utf-8")
    grouped, _ = subject_sample(path, target_triples=30, min_per_stratum=2)
    graph, cov = subject_sample(apart, target_triples=30, min_per_stratum=2)
    assert sorted(graph) == sorted(grouped)
    assert len([t for t in graph if str(t[0]) == f"{EX}s050"]) == 3 and cov["classes"] == [3, 3]
