"""A stopped `kgc text` run says so in scores.json and provenance.json (status, reason, sentences
sent/answered of the total), and reports no figure over sentences that were never extracted: an
unreachable server, a model that answers only prose, a key refused half-way. A local
OpenAI-compatible server on 127.0.0.1 (test_mapper_llm._Server) answers; nothing of ours is mocked."""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from test_mapper_llm import _Server

from pipeline.llm import LLMError, LLMSettings
from pipeline.text.harness import run_case
from pipeline.text.manifest import load_case

CASE = Path(__file__).parent / "cases" / "text" / "case.yaml"
GOOD = {"triples": [
    {"sub": "Omega University", "rel": "city", "obj": "Lille", "subType": "University", "objType": "City"},
    {"sub": "Omega University", "rel": "academicStaffSize", "obj": "2500", "subType": "University", "objType": "number"}]}
METRICS = ("triple", "onto_conformance", "rel_halluc", "validity")


def _settings(tmp_path: Path, base: str) -> LLMSettings:
    return LLMSettings(model="openai/test-model", api_base=base, cache_dir=tmp_path / "cache", max_retries=0,
                       temperature=0.0, timeout=5)


def _files(out: Path) -> tuple[dict, dict]:
    return (json.loads((out / "scores.json").read_text(encoding="utf-8")),
            json.loads((out / "provenance.json").read_text(encoding="utf-8")))


@pytest.fixture(autouse=True)
def _no_model(monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")


def test_an_unreachable_server_leaves_no_scores_and_says_the_run_stopped(tmp_path):
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    with pytest.raises(LLMError, match="cannot reach the LLM server"):
        run_case(load_case(CASE), tmp_path / "out", kind="llm", llm_settings=_settings(tmp_path, base), validate=False)
    scores, prov = _files(tmp_path / "out")
    stopped = {"status": "stopped", "sentences_sent": 1, "sentences_answered": 0, "sentences_valid": 0,
               "sentences_total": 2}
    assert {k: scores[k] for k in stopped} == stopped and {k: prov[k] for k in stopped} == stopped
    assert scores["reason"].startswith("cannot reach the LLM server at http://127.0.0.1:")
    assert scores["scored_sentences"] == 0 and scores["n_sentences"] == 2
    assert not set(METRICS) & set(scores)  # no F1 0, conformance 1.0, hallucination 0.0 of an extractor never asked


def test_a_model_answering_prose_leaves_no_scores(tmp_path):
    with _Server(["I am sorry, I cannot help with that."]) as srv:
        with pytest.raises(LLMError, match="no sentence gave a valid answer"):
            run_case(load_case(CASE), tmp_path / "out", kind="llm", llm_settings=_settings(tmp_path, srv.base),
                     validate=False)
    scores, prov = _files(tmp_path / "out")
    assert (scores["status"], scores["sentences_answered"], scores["sentences_valid"]) == ("stopped", 2, 0)
    assert prov["status"] == "stopped" and prov["reason"].startswith("no sentence gave a valid answer (2 of 2 invalid")
    assert not set(METRICS) & set(scores)


def test_a_run_stopped_half_way_scores_only_the_sentences_answered(tmp_path):
    with _Server([json.dumps(GOOD)]) as srv:
        srv.on_piece = lambda n: srv.statuses.append((401, {}, "invalid api key")) if n == 0 else None
        with pytest.raises(LLMError, match=r"\(2 of 2 sentence\(s\) sent"):
            run_case(load_case(CASE), tmp_path / "out", kind="llm", llm_settings=_settings(tmp_path, srv.base),
                     validate=False)
    scores, prov = _files(tmp_path / "out")
    assert (scores["status"], scores["sentences_sent"], scores["sentences_answered"]) == ("stopped", 2, 1)
    assert scores["scored_sentences"] == 1 and scores["n_sentences"] == 2
    # the one answered sentence, scored against its gold: both triples right
    assert scores["triple"]["precision"] == 1.0 and scores["validity"] == 1.0


def test_a_complete_run_says_complete(tmp_path):
    with _Server([json.dumps(GOOD)]) as srv:
        res = run_case(load_case(CASE), tmp_path / "out", kind="llm", llm_settings=_settings(tmp_path, srv.base),
                       validate=False)
    scores, prov = _files(tmp_path / "out")
    assert scores["status"] == prov["status"] == "complete"
    assert scores["scored_sentences"] == scores["n_sentences"] == 2
    assert scores["triple"] == res["scores"]["triple"]
