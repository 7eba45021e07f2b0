"""LLM text extractor against a real OpenAI-compatible HTTP server on 127.0.0.1 (canned answers)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pipeline.llm import LLMSettings
from test_mapper_llm import _Server as _LoopbackServer
from pipeline.text.manifest import load_case
from pipeline.text.harness import run_case

CASE = Path(__file__).parent / "cases" / "text" / "case.yaml"
GOOD = {"triples": [
    {"sub": "Omega University", "rel": "city", "obj": "Lille", "subType": "University", "objType": "City"},
    {"sub": "Omega University", "rel": "academicStaffSize", "obj": "2500", "subType": "University", "objType": "number"}]}
BAD = '[{"sub": "Kappa University", "rel": "established", "obj": "1998"}]'  # no subType/objType


def _Server(answers: list[str]):  # noqa: N802 - the loopback server of the mapper's tests, this test's usage
    return _LoopbackServer(answers, usage=(500, 50))


def test_llm_extractor_through_a_loopback_server(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    case = load_case(CASE)
    with _Server([json.dumps(GOOD), BAD]) as srv:
        base = f"http://127.0.0.1:{srv.httpd.server_address[1]}/v1"
        settings = LLMSettings(model="openai/test-model", api_base=base, cache_dir=tmp_path / "cache",
                               max_retries=0, temperature=0.0)
        res = run_case(case, tmp_path / "out", kind="llm", llm_settings=settings, validate=False)
        assert len(srv.requests) == 2
        req = srv.requests[0]
        assert req["response_format"]["type"] == "json_schema"
        assert req["response_format"]["json_schema"]["schema"]["required"] == ["triples"]
        prompt = req["messages"][1]["content"]
        assert "- academicStaffSize(University, number)" in prompt
        assert prompt.count("Sentence: ") == 4  # 3 nearest training examples + the sentence
        assert prompt.rstrip().endswith("Sentence: Omega University is located in Lille and has 2,500 academic staff.\nAnswer:")
        # the same requests again come from the cache: no new request
        run_case(case, tmp_path / "out2", kind="llm", llm_settings=settings, validate=False)
        assert len(srv.requests) == 2
    s = res["scores"]
    assert s["validity"] == 0.5  # the second answer lacks subType/objType
    assert s["triple"]["f1"] == 0.5 and s["triple"]["precision"] == 0.5
    lines = [json.loads(x) for x in (tmp_path / "out" / "outputs.jsonl").read_text().splitlines()]
    assert lines[0]["prompt_tokens"] == 500 and lines[1]["errors"]
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert prov["model"] == "openai/test-model" and len(prov["prompt_hashes"]) == 2
    assert prov["prompt_tokens"] == 1000 and prov["completion_tokens"] == 100


def test_an_unreachable_llm_server_stops_the_case_with_its_outputs_written(tmp_path, monkeypatch, capsys):
    """The first request fails for good (nothing listens on the port): the other sentences are not
    sent, the outputs so far are written, and ``kgc text`` says why in one line and exits 1."""
    import socket

    from pipeline.cli import main
    from pipeline.llm import LLMError

    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    settings = LLMSettings(model="openai/test-model", api_base=base, cache_dir=tmp_path / "cache",
                           max_retries=0, temperature=0.0, timeout=5)
    case = load_case(CASE)
    with pytest.raises(LLMError, match=r"cannot reach the LLM server .*\(1 of 2 sentence\(s\) sent"):
        run_case(case, tmp_path / "out", kind="llm", llm_settings=settings, validate=True)
    lines = [json.loads(x) for x in (tmp_path / "out" / "outputs.jsonl").read_text().splitlines()]
    assert [x["error"].split(":")[0] for x in lines] == ["cannot reach the LLM server at " + base.split(":")[0],
                                                         "not sent"]
    assert (tmp_path / "out" / "provenance.json").exists() and not (tmp_path / "out" / "graph_validation.json").exists()
    monkeypatch.setenv("LLM_MODEL", "openai/test-model")
    monkeypatch.setenv("LLM_API_BASE", base)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache2"))
    assert main(["text", str(CASE), "--extractor", "llm", "--out", str(tmp_path / "cli")]) == 1
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("kgc text: ")]  # stage lines apart
    assert len(err) == 1 and err[0].startswith("error: ") and "is it running? check LLM_API_BASE" in err[0]
