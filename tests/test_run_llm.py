"""`kgc run --mapper llm` end to end against a local OpenAI-compatible server: LLM_RUNS, raw vs repaired,
transcripts, provenance on failure, the report, and the morph-kgc.ini artifact run in Morph-KGC itself."""
from __future__ import annotations

import json
import socket
from pathlib import Path

from rdflib import Graph
from rdflib.compare import isomorphic
from test_mapper_llm import _Server

from pipeline.cli import main

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "data" / "example" / "example.yaml"
T_PERSON, T_CITY = "http://example.org/person/{person_id}", "http://example.org/city/{code}"
GOLD = [
    {"data_reference": "name", "source_file": "people.csv", "ontology_property": "ex:name",
     "entity_class": "ex:Person", "subject_template": T_PERSON},
    {"data_reference": "birth_date", "source_file": "people.csv", "ontology_property": "ex:birthDate",
     "entity_class": "ex:Person", "subject_template": T_PERSON, "datatype": "xsd:date"},
    {"data_reference": "city", "source_file": "people.csv", "ontology_property": "ex:livesIn",
     "entity_class": "ex:Person", "related_entity_class": "ex:City", "subject_template": T_PERSON,
     "join_condition": "people.city==cities.code"},
    {"data_reference": "city_name", "source_file": "cities.csv", "ontology_property": "ex:cityName",
     "entity_class": "ex:City", "subject_template": T_CITY}]
# run 1: a misspelled property (repaired) and a misspelled date column whose closest match is no date
SECOND = [dict(GOLD[0], ontology_property="ex:nme"), dict(GOLD[1], data_reference="nam"), GOLD[3]]


def _env(monkeypatch, tmp_path: Path, base: str, runs: int) -> None:
    for k, v in {"LLM_API_BASE": base, "LLM_MODEL": "openai/local-test-model", "LLM_RUNS": str(runs),
                 "KGC_CACHE_DIR": str(tmp_path / "cache"), "LLM_API_KEY": "sk-secret-never-written",
                 "LLM_MAX_RETRIES": "0",
                 "PIPELINE_NO_EMBEDDINGS": "1"}.items():  # Levenshtein cell similarity: no model to load
        monkeypatch.setenv(k, v)


def test_llm_runs_are_kept_per_run_and_macro_averaged(monkeypatch, tmp_path):
    out = tmp_path / "out"
    with _Server([json.dumps({"rows": GOLD}), json.dumps({"rows": SECOND})]) as srv:
        _env(monkeypatch, tmp_path, srv.base, 2)
        code = main(["run", str(MANIFEST), "--out", str(out), "--mapper", "llm", "-q"])
        assert len(srv.requests) == 2
    case = out / "example" / "people"
    run = json.loads((case / "run.json").read_text())
    assert code == 0 and run["status"] == "ok" and run["counts"] == {"runs": 2, "runs_ok": 2}
    f1 = [r["mapping_f1"] for r in run["runs"]]
    assert f1[0] == 1.0 and f1[1] < 1.0
    ms = run["mapping_scores"]
    assert ms["runs"] == 2 and (ms["f1_min"], ms["f1_max"]) == (min(f1), max(f1))
    assert ms["f1"] == sum(f1) / 2  # BLINKG: per-task macro over runs, then the mean over tasks
    # both tables of run 1 are scored: as answered (a wrong property, a wrong column) and repaired
    # (property fixed, the date row dropped)
    raw1 = json.loads((case / "runs" / "1" / "run.json").read_text())["mapping_scores_raw"]["f1"]
    assert raw1 is not None and raw1 != f1[1]
    assert (case / "runs" / "1" / "table.raw.md").read_text().count("ex:nme") == 1
    assert "ex:nme" not in (case / "runs" / "1" / "table.md").read_text()
    rejected = json.loads((case / "runs" / "1" / "audit.json").read_text())
    assert any(f["stage"] == "repair" and "not valid xsd:date" in f["message"] for f in rejected)
    transcript = json.loads((case / "llm" / "run-1-part-1.json").read_text())
    assert transcript["answer"] == json.dumps({"rows": SECOND}) and "people.csv" in transcript["messages"][1]["content"]
    every = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "sk-secret-never-written" not in every
    page = (out / "example" / "report.html").read_text()
    assert 'href="people/runs/1"' in page and "openai/local-test-model" in page
    # the ready Morph-KGC configuration runs the mapping unchanged in Morph-KGC
    import morph_kgc

    ini = case / "runs" / "0" / "morph-kgc.ini"
    assert "udfs = " in ini.read_text()
    assert isomorphic(morph_kgc.materialize(str(ini)), Graph().parse(case / "runs" / "0" / "kg.nt", format="nt"))


def test_unreachable_server_fails_the_map_stage_and_keeps_provenance(monkeypatch, tmp_path, capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _env(monkeypatch, tmp_path, f"http://127.0.0.1:{port}/v1", 1)
    out = tmp_path / "out"
    assert main(["run", str(MANIFEST), "--out", str(out), "--mapper", "llm", "-q"]) == 1
    run = json.loads((out / "example" / "people" / "run.json").read_text())
    assert run["failed_stage"] == "map"
    assert run["error"].startswith(f"cannot reach the LLM server at http://127.0.0.1:{port}/v1")
    assert run["provenance"]["model"] == "openai/local-test-model"
    assert run["provenance"]["calls"][0]["error_kind"] == "connection"
    assert (out / "example" / "people" / "llm" / "run-0-part-1.json").is_file()
    printed = capsys.readouterr()
    assert "Give Feedback" not in printed.out + printed.err and "Traceback" not in printed.out + printed.err


def test_a_case_that_fails_after_the_map_stage_keeps_its_mapping_scores(monkeypatch, tmp_path):
    """Every row of this table is rejected by the audit: the case fails at compile, yet its table is
    scored against the gold table and the report shows both."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    table = tmp_path / "bad.md"
    table.write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n"
                     "|---|---|---|---|---|\n"
                     "| name | people.csv | ex:nonexistentProperty | ex:Person | http://example.org/person/{person_id} |\n",
                     encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(MANIFEST), "--out", str(out), "--mapper", "replay", "--table", str(table), "-q"]) == 2  # the user's table: bad input
    run = json.loads((out / "example" / "people" / "run.json").read_text())
    assert run["status"] == "failed" and run["failed_stage"] == "compile"
    assert run["mapping_scores"]["tasks"]["Ontology Property"] == 0.0
    page = (out / "example" / "report.html").read_text()
    assert '<span class="failed">failed at compile</span>' in page
    assert "graph F1: over cases none (left out: people (failed at compile))." in page
