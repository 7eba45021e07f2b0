"""A server at LLM_API_BASE that answers, but not as an OpenAI-compatible API (an ordinary web server
on the wrong port, another service's JSON): one line naming the server and what came back, exit 1,
never an empty table with exit 0. A real HTTP server on 127.0.0.1, started here."""
from __future__ import annotations

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pipeline.cli import main
from pipeline.llm import LLMError, LLMSettings, complete
from test_mapper_llm import CLEAN, _map, _Server, _settings, case  # noqa: F401 - the case fixture

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "example" / "example.yaml"


class _Plain:
    """A server answering every request with one fixed body and content type (status 200)."""

    def __init__(self, body: bytes, content_type: str) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: D102 - quiet
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                outer.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "_Plain":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


HTML = b"<html><body>It works!</body></html>"


@pytest.mark.parametrize("body, content_type, start", [
    (HTML, "text/html", "'<html><body>It works!</body></html>'"),
    (b'{"hello": "world"}', "application/json", "'{\"hello\": \"world\"}'"),
])
def test_a_reply_that_is_no_chat_completion_is_a_fatal_error(tmp_path, body, content_type, start):
    with _Plain(body, content_type) as srv:
        settings = LLMSettings(model="openai/foo", api_base=srv.base, cache_dir=tmp_path / "cache", max_retries=2,
                               timeout=5)
        rec = complete(settings, [{"role": "user", "content": "hi"}])
    assert len(srv.requests) == 1, "a wrong server is not asked again"
    assert rec.error_kind == "not_openai" and rec.finish_reason is None and rec.text == "" and not rec.accepted
    assert rec.error == (f"the server at {srv.base} did not answer as an OpenAI-compatible API: it sent "
                         f"{content_type} (HTTP 200), beginning {start}, not a chat completion; check LLM_API_BASE "
                         "(the base URL of an OpenAI-compatible server, usually ending in /v1)")
    assert rec.extra["server_sent"] == {"status": 200, "content_type": content_type,
                                        "body_start": body.decode()}
    assert not list((tmp_path / "cache").rglob("*.json")) if (tmp_path / "cache").exists() else True


def test_a_whole_chat_completion_to_a_stream_request_is_the_answer(tmp_path):
    """A server that ignores stream=True and sends one chat completion: its answer is used, not lost."""
    reply = {"id": "c1", "object": "chat.completion", "created": 1, "model": "foo",
             "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
             "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}}
    with _Plain(json.dumps(reply).encode(), "application/json") as srv:
        settings = LLMSettings(model="openai/foo", api_base=srv.base, cache_dir=None, max_retries=0, timeout=5)
        rec = complete(settings, [{"role": "user", "content": "hi"}])
    assert (rec.text, rec.finish_reason, rec.error, rec.prompt_tokens, rec.completion_tokens) == ("ok", "stop", None, 7, 1)


def test_mapper_stops_with_the_transcript_of_what_the_server_sent(case, tmp_path):
    with _Plain(HTML, "text/html") as srv:
        with pytest.raises(LLMError, match=r"^the server at .* did not answer as an OpenAI-compatible API") as err:
            _map(_settings(srv.base, tmp_path), case, tmp_path)
    t = err.value.transcripts[0]
    assert t["answer"] == "" and t["finish_reason"] is None
    assert t["server_sent"] == {"status": 200, "content_type": "text/html", "body_start": HTML.decode()}


def test_no_row_in_any_run_is_an_error_not_an_empty_mapping(case, tmp_path):
    with _Server(["I cannot help with that."]) as srv:
        with pytest.raises(LLMError, match=r"gave no mapping row: the answer holds no mapping table"):
            _map(_settings(srv.base, tmp_path, runs=2), case, tmp_path)
    with _Server(["I cannot help with that.", json.dumps(CLEAN)]) as srv:  # one run with rows: no error
        runs = _map(_settings(srv.base, tmp_path / "2", runs=2), case, tmp_path)
    assert [len(r.raw_tables[0]) for r in runs] == [0, 2]


def test_kgc_map_exits_1_and_writes_no_table(tmp_path, monkeypatch, capsys):
    with _Plain(HTML, "text/html") as srv:
        for k, v in {"LLM_MODEL": "openai/foo", "LLM_API_BASE": srv.base, "LLM_API_KEY": "x",
                     "KGC_CACHE_DIR": "0", "PIPELINE_NO_EMBEDDINGS": "1"}.items():
            monkeypatch.setenv(k, v)
        rc = main(["map", str(MANIFEST), str(tmp_path / "table.md"), "--mapper", "llm", "-q"])
    err = capsys.readouterr().err
    assert rc == 1 and not (tmp_path / "table.md").exists()
    assert f"error: the server at {srv.base} did not answer as an OpenAI-compatible API: it sent text/html" in err
    assert "Traceback" not in err and "empty response" not in err


#: the user's server (tests/cases/llm-map-broken-stream-partial-kept-nowhere/server.py, mode sse): a
#: valid first event, then one whose data is no JSON
BROKEN_STREAM = b'data: {"id":"x","choices":[{"delta":{"content":"hello"}}]}\n\ndata: {broken\n\n'
BROKEN_CASE = Path(__file__).resolve().parent / "cases" / "llm-map-broken-stream-partial-kept-nowhere"


def _broken_line(base: str) -> str:
    return (f"the server's stream at {base} sent an event that is not JSON after 1 answer token: '{{broken' "
            "(Expecting property name enclosed in double quotes); the server or a proxy between it and kgc does not "
            "speak OpenAI's streaming protocol")


def test_a_stream_event_that_is_no_json_is_named_and_the_text_so_far_returned(tmp_path):
    with _Plain(BROKEN_STREAM, "text/event-stream") as srv:
        settings = LLMSettings(model="openai/m", api_base=srv.base, cache_dir=tmp_path / "cache", max_retries=2,
                               timeout=5)
        rec = complete(settings, [{"role": "user", "content": "hi"}])
    assert len(srv.requests) == 1, "a started answer is not asked again"
    assert (rec.text, rec.finish_reason, rec.error_kind, rec.accepted) == ("hello", "error", "other", False)
    assert rec.error == _broken_line(srv.base)


def test_kgc_map_keeps_the_partial_answer_of_a_broken_stream(tmp_path, monkeypatch, capsys):
    work = tmp_path / "case"
    shutil.copytree(BROKEN_CASE, work)
    monkeypatch.chdir(work)
    with _Plain(BROKEN_STREAM, "text/event-stream") as srv:
        for k, v in {"LLM_MODEL": "openai/m", "LLM_API_BASE": srv.base, "LLM_API_KEY": "x",
                     "KGC_CACHE_DIR": "0", "PIPELINE_NO_EMBEDDINGS": "1"}.items():
            monkeypatch.setenv(k, v)
        rc = main(["map", "case.yaml", "t.md", "--mapper", "llm", "-q"])
    err = capsys.readouterr().err
    assert rc == 1 and not (work / "t.md").exists() and not (work / "t.raw.md").exists()
    assert err.splitlines() == [f"error: the LLM (openai/m) gave no complete answer: {_broken_line(srv.base)}; "
                                "the prompts and the partial answer are in t.llm.json"]
    kept = json.loads((work / "t.llm.json").read_text(encoding="utf-8"))
    assert [(t["run"], t["part"], t["answer"], t["finish_reason"]) for t in kept] == [(0, 1, "hello", "error")]
    assert kept[0]["messages"][0]["role"] == "system" and kept[0]["error"] == _broken_line(srv.base)


def test_kgc_map_keeps_no_file_when_no_answer_started(tmp_path, monkeypatch, capsys):
    with _Plain(HTML, "text/html") as srv:
        for k, v in {"LLM_MODEL": "openai/foo", "LLM_API_BASE": srv.base, "LLM_API_KEY": "x",
                     "KGC_CACHE_DIR": "0", "PIPELINE_NO_EMBEDDINGS": "1"}.items():
            monkeypatch.setenv(k, v)
        assert main(["map", str(MANIFEST), str(tmp_path / "table.md"), "--mapper", "llm", "-q"]) == 1
    assert "partial answer" not in capsys.readouterr().err and not (tmp_path / "table.llm.json").exists()
