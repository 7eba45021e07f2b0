"""Every KG check is bounded and about the KG: a slow SHACL constraint is reported not run (case
shacl-sparql-constraint-no-timeout), SHACL results on the ontology's own individuals and top-class
shapes are not counted, HermiT reasons without the imports no file holds, and a JVM that cannot
start is not run with its reason."""
from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from rdflib import Graph

from pipeline.cli import main
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.run.evaluate import graph_validation
from pipeline.validation.consistency import hermit_available, hermit_consistency
from pipeline.validation.shacl import derive_shapes, start_shacl, validate_shacl

CASE = Path(__file__).parent / "cases" / "shacl-sparql-constraint-no-timeout"
EX = "http://example.org/t#"


def _case(tmp_path: Path) -> Path:
    folder = tmp_path / "case"
    shutil.copytree(CASE, folder)
    subprocess.run(["sh", "make_kg.sh"], cwd=folder, check=True)
    return folder


def test_a_slow_sparql_constraint_is_stopped_and_named(tmp_path):
    folder = _case(tmp_path)
    kg = Graph().parse(folder / "kg.nt", format="nt")
    t0 = time.perf_counter()
    r = start_shacl(kg, None, [folder / "slow.ttl"], timeout_s=2)()
    assert time.perf_counter() - t0 < 30  # the child is killed at the limit, never waited for
    assert (r.value, r.status) == (None, "timeout")
    assert r.details["reason"] == ("SHACL validation did not finish within 2 s; shapes with a SPARQL-based "
                                   f"constraint: <{EX}S> (slow.ttl)")
    # the same shape on a KG it can finish: a pass, through the same child process
    small = Graph().parse(data=f"<{EX}x0> a <{EX}Person> .", format="turtle")
    assert start_shacl(small, None, [folder / "slow.ttl"], timeout_s=60)().value is True


def test_kgc_validate_reports_shacl_not_run_and_exits_1(tmp_path, capsys):
    """The case's command: no output for 240 s before; now SHACL is not run with the reason, exit 1."""
    folder = _case(tmp_path)
    code = main(["validate", str(folder / "case.yaml"), str(folder / "kg.nt"), "--out", str(tmp_path / "v.json"),
                 "--timeout", "5"])
    out = capsys.readouterr().out.splitlines()
    reason = f"SHACL validation did not finish within 5 s; shapes with a SPARQL-based constraint: <{EX}S> (slow.ttl)"
    assert code == 1
    assert f"SHACL: not run (timeout): {reason}" in out
    assert out[-2].startswith("KG not validated: ") and f"SHACL did not run ({reason})" in out[-2]
    saved = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert (saved["SHACL"]["status"], saved["SHACL"]["value"]) == ("timeout", None)


ONTO = """@prefix : <http://example.org/t#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.org/t> a owl:Ontology ; owl:imports <http://unreachable.invalid/vocabulary> .
:Person a owl:Class . :name a owl:DatatypeProperty ; rdfs:domain :Person ; rdfs:range xsd:string .
:note rdfs:domain owl:Thing ; rdfs:range owl:Thing .
:example a owl:NamedIndividual, :Person ; :name 42 .
"""


def test_shacl_counts_results_on_kg_nodes_only_and_derives_no_top_class_shape():
    onto = Graph().parse(data=ONTO, format="turtle")
    shapes = derive_shapes(onto)
    assert not [s for s in shapes.subjects() if "note" in str(s)]  # domain and range owl:Thing: no shape
    kg = Graph().parse(data=f'<{EX}ann> a <{EX}Person> ; <{EX}name> "Ann" ; <{EX}note> <{EX}bob> .', format="turtle")
    r = validate_shacl(kg, onto)
    # the ontology's :example has a number as its name (a violation), but it is no node of the KG
    assert (r.value, r.details["n_results"], r.details["n_results_outside_kg"]) == (True, 0, 1)
    bad = Graph().parse(data=f'<{EX}bo> a <{EX}Person> ; <{EX}name> 7 .', format="turtle")
    r = validate_shacl(bad, onto)
    assert (r.value, r.details["by_severity"]["Violation"], [f.location for f in r.findings]) == (
        False, 1, [EX + "bo"])


@pytest.mark.skipif(not hermit_available(), reason="Java or owlready2's HermiT not available")
def test_hermit_reasons_without_an_import_no_file_holds(tmp_path):
    """HermiT fetched owl:imports from the network, failed with a stack trace and the KG was 'not validated'."""
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "d.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [d.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    kg = tmp_path / "kg.nt"
    kg.write_text(f'<{EX}ann> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Person> .\n', encoding="utf-8")
    case = load_manifest(tmp_path / "case.yaml")
    result = graph_validation(kg, None, load_ontology(case.ontologies), case, timeout_s=60)
    assert {k: (v["value"], v["status"]) for k, v in result.items()} == {
        "SV2": (True, "ok"), "vocabulary": (True, "ok"), "CS2-owlrl": (True, "ok"), "CS2-hermit": (True, "ok"), "SHACL": (True, "ok")}
    warning = [f for f in result["CS2-hermit"]["findings"] if f["code"] == "unresolved-import"]
    assert [f["location"] for f in warning] == ["<http://unreachable.invalid/vocabulary>"]
    assert result["CS2-hermit"]["details"]["unresolved_imports"] == ["http://unreachable.invalid/vocabulary"]


@pytest.mark.skipif(not hermit_available(), reason="Java or owlready2's HermiT not available")
def test_a_jvm_that_cannot_start_is_not_run_with_its_reason():
    onto = Graph().parse(data=ONTO, format="turtle")
    r = hermit_consistency(Graph(), onto, java_memory_mb=-5)  # the launcher refuses the heap size
    assert (r.value, r.status) == (None, "not_run")
    assert r.details["reason"].startswith("the JVM could not start HermiT: ")
    assert "heap" in r.details["reason"].lower() and "\tat " not in r.details["reason"]
