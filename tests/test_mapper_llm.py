"""LLM mapper against a real OpenAI-compatible HTTP server on 127.0.0.1 (canned answers)."""
from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pipeline.manifest import Case, Source
from pipeline.mappers import get_mapper, load_inputs, map_case
from pipeline.llm import LLMSettings
from pipeline.mappers.llm.parse import parse_response

CLEAN = {"rows": [
    {"data_reference": "ID", "source_file": "student.csv", "ontology_property": "ex:id", "entity_class": "ex:Person",
     "subject_template": "http://example.org/person/{ID}", "datatype": "xsd:integer"},
    {"data_reference": "Name", "source_file": "student.csv", "ontology_property": "ex:fullname",
     "entity_class": "ex:Person", "subject_template": "http://example.org/person/{ID}", "datatype": "xsd:string"}]}
MARKDOWN = ("Sure! Here is the mapping table you asked for:\n\n"
            "| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
            "| student.csv ID | ex:id | ex:Person | http://example.org/person/{ID} |\n"
            "| student.csv Name | ex:fullname | ex:Person | http://example.org/person/{ID} |\n\nLet me know!")
TRUNCATED = json.dumps(CLEAN)[:-60]
HALLUCINATED = {"rows": [
    {"data_reference": "Name", "source_file": "student.csv", "ontology_property": "ex:fullName",
     "entity_class": "ex:Persn", "subject_template": "http://example.org/person/{Id}", "datatype": "xsd:string"},
    {"data_reference": "Nmae", "source_file": "student.csv", "ontology_property": "ex:id",
     "entity_class": "ex:Person", "subject_template": "http://example.org/person/{ID}", "datatype": "xsd:integer"},
    {"data_reference": "ID", "source_file": "student.csv", "ontology_property": "ex:hasShoeSize",
     "entity_class": "ex:Person", "subject_template": "http://example.org/person/{ID}"}]}


class _Server:
    """A tiny OpenAI-compatible chat server on 127.0.0.1: replies with ``answers`` in turn (streamed as
    server-sent events when the request asks for a stream, as llama.cpp and vLLM do) and records requests.

    Args:
        answers: answer texts, one per request (the last one repeats).
        finish: the finish reason of every answer.
        statuses: error answers sent first, ``(status, headers[, message])`` each (e.g. 429 with Retry-After).
        delay: seconds before anything is sent (a server reading a long prompt).
        token_delay: seconds between two streamed pieces (a slow model).
        piece: characters per streamed piece.
        stall_after: stop sending (but keep the connection open) after this many pieces.
        on_piece: called with the index of each piece sent (e.g. to interrupt the client).
        usage: prompt and completion tokens reported with every answer.
    """

    def __init__(self, answers: list[str], finish: str = "stop", statuses: list[tuple[int, dict]] = (),
                 delay: float = 0.0, token_delay: float = 0.0, piece: int = 8, stall_after: int | None = None,
                 on_piece=None, usage: tuple[int, int] = (1000, 200)) -> None:
        self.answers, self.finish, self.requests = answers, finish, []
        self.usage = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
        self.statuses, self.delay, self.times = list(statuses), delay, []
        self.token_delay, self.piece, self.stall_after, self.on_piece = token_delay, piece, stall_after, on_piece
        self.stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server API; no /props, /v1/models: like a plain server
                self.send_error(404)

            def do_POST(self):  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.endswith("/chat/completions"):  # /tokenize, /apply-template: unknown here
                    self.send_error(404)
                    return
                outer.requests.append(body)
                outer.times.append(time.monotonic())
                if outer.statuses:  # an error answer first (e.g. 429 with Retry-After)
                    status, headers, *message = outer.statuses.pop(0)
                    data = json.dumps({"error": {"message": message[0] if message else "slow down",
                                                 "type": "rate_limit"}}).encode()
                    self.send_response(status)
                    for k, v in {**headers, "Content-Type": "application/json",
                                 "Content-Length": str(len(data))}.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if outer.delay:
                    outer.stop.wait(outer.delay)
                text = outer.answers[min(len(outer.requests) - 1, len(outer.answers) - 1)]
                usage = outer.usage
                try:
                    if body.get("stream"):
                        self._stream(body, text, usage)
                        return
                    payload = {"id": f"c{len(outer.requests)}", "object": "chat.completion", "created": 1,
                               "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": outer.finish,
                                            "message": {"role": "assistant", "content": text}}], "usage": usage}
                    data = json.dumps(payload).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

            def _stream(self, body, text, usage):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def event(choices, extra=None):
                    chunk = {"id": "s", "object": "chat.completion.chunk", "created": 1, "model": body["model"],
                             "choices": choices, **(extra or {})}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()

                event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
                pieces = [text[i:i + outer.piece] for i in range(0, len(text), outer.piece)]
                for n, piece in enumerate(pieces):
                    if outer.stall_after is not None and n >= outer.stall_after:
                        outer.stop.wait(30)  # silent, connection open: the client's timeout must end it
                        return
                    if outer.token_delay:
                        outer.stop.wait(outer.token_delay)
                    event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
                    if outer.on_piece is not None:
                        outer.on_piece(n)
                event([{"index": 0, "delta": {}, "finish_reason": outer.finish}])
                if (body.get("stream_options") or {}).get("include_usage"):
                    event([], {"usage": usage})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def log_message(self, *args):  # keep test output quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def case(tmp_path: Path) -> Case:
    (tmp_path / "student.csv").write_text("ID,Name\n10,Venus Williams\n20,Demi Moore\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Person a owl:Class . ex:Sport a owl:Class .\n"
        "ex:id a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:integer .\n"
        "ex:fullname a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:string .\n"
        "ex:sportname a owl:DatatypeProperty ; rdfs:domain ex:Sport ; rdfs:range xsd:string .\n", encoding="utf-8")
    return Case("t", (Source(tmp_path / "student.csv", "csv", name="student.csv"),), (tmp_path / "onto.ttl",),
                prefixes={"ex": "http://example.org/"})


def _settings(base: str, tmp_path: Path, **kw) -> LLMSettings:
    # gpt-4o-mini has a price in litellm's local cost map, so cost is computed from the server's usage
    kw = {"model": "openai/gpt-4o-mini", "max_retries": 0, "timeout": 10, **kw}
    return LLMSettings(api_base=base, cache_dir=tmp_path / "cache", **kw)


def _map(settings: LLMSettings, case: Case, tmp_path: Path, **kw):
    mapper = get_mapper("llm")
    mapper.settings = settings
    return mapper.map_runs(load_inputs(case, tmp_path / "work"), **kw)


def test_clean_json_is_parsed_valid_costed_and_cached(case, tmp_path):
    with _Server([json.dumps(CLEAN)]) as srv:
        settings = _settings(srv.base, tmp_path)
        first = _map(settings, case, tmp_path)[0]
        assert len(srv.requests) == 1
        assert srv.requests[0]["temperature"] == 0.3
        assert srv.requests[0]["response_format"]["type"] == "json_schema"
        prompt = srv.requests[0]["messages"][-1]["content"]
        assert "student.csv" in prompt and "10,Venus Williams" in prompt and "ex:fullname" in prompt
        second = _map(settings, case, tmp_path)[0]
        assert len(srv.requests) == 1, "second run must be served from the cache"
    prov = first.provenance
    assert prov["structurally_valid"] is True
    assert [r.ontology_property for r in first.table] == ["ex:id", "ex:fullname"]
    assert prov["prompt_tokens"] == 1000 and prov["completion_tokens"] == 200
    assert prov["cost_usd"] == pytest.approx(1000 * 0.15e-6 + 200 * 0.6e-6)
    assert prov["latency_s"] > 0 and prov["cache_hits"] == 0
    assert second.provenance["cache_hits"] == 1 and second.provenance["calls"][0]["attempts"] == 0
    assert second.provenance["cost_usd"] == prov["cost_usd"]
    assert [r.cells() for r in second.table] == [r.cells() for r in first.table]


def test_markdown_in_prose_is_parsed_but_not_structurally_valid(case, tmp_path):
    with _Server([MARKDOWN]) as srv:
        res = _map(_settings(srv.base, tmp_path), case, tmp_path)[0]
    call = res.provenance["calls"][0]["parse"]
    assert call["format"] == "markdown" and call["structurally_valid"] is False
    assert "markdown table in prose" in call["repairs"]
    assert [(r.source_file, r.data_reference) for r in res.table] == [("student.csv", "ID"), ("student.csv", "Name")]


def test_truncated_response_keeps_complete_rows(case, tmp_path):
    with _Server([TRUNCATED], finish="length") as srv:
        res = _map(_settings(srv.base, tmp_path), case, tmp_path)[0]
    parse = res.provenance["calls"][0]["parse"]
    assert parse["structurally_valid"] is False and parse["format"] == "json"
    assert any("truncated" in r for r in parse["repairs"])
    assert [r.data_reference for r in res.raw_tables[0]] == ["ID"]


def test_hallucinated_terms_are_repaired_or_dropped(case, tmp_path):
    with _Server([json.dumps(HALLUCINATED)]) as srv:
        res = _map(_settings(srv.base, tmp_path), case, tmp_path)[0]
    raw = res.raw_tables[0]
    assert [r.ontology_property for r in raw] == ["ex:fullName", "ex:id", "ex:hasShoeSize"]
    fixed = {(r.ontology_property, r.entity_class, r.data_reference, r.subject_template) for r in res.table}
    assert fixed == {("ex:fullname", "ex:Person", "Name", "http://example.org/person/{ID}")}
    rep = res.provenance["repair"]
    changes = {(r["column"], r["old"], r["new"]) for r in rep["repairs"]}
    assert ("ontology_property", "ex:fullName", "ex:fullname") in changes
    assert ("entity_class", "ex:Persn", "ex:Person") in changes
    # 'Nmae' is closest to 'Name', but names are no xsd:integer: the repair would create an error
    assert ("data_reference", "Nmae", "Name") not in changes
    assert [(r["line"], r["column"], r["value"]) for r in rep["rejected"]] == [(2, "data_reference", "Name")]
    assert "not valid xsd:integer (e.g. 'Venus Williams')" in rep["rejected"][0]["reason"]
    assert [d["property"] for d in rep["dropped"]] == ["ex:id", "ex:hasShoeSize"]


def test_runs_are_separate_requests_and_split_prompt_merges(case, tmp_path):
    with _Server([json.dumps(CLEAN)]) as srv:
        runs = _map(_settings(srv.base, tmp_path, runs=2), case, tmp_path)
        assert len(srv.requests) == 2 and len(runs) == 2
        # a 2,400-token window with an 800-token answer leaves 1,536 for a prompt of about 1,630: split
        split = _map(_settings(srv.base, tmp_path, context_window=2400, max_tokens=800), case, tmp_path)[0]
        prompts = [r["messages"][-1]["content"] for r in srv.requests[-2:]]
        # each part's answer gets what the window leaves after its prompt, at most the 800 asked
        assert all(r["max_tokens"] + t["prompt_tokens_est"] + 64 <= 2400 for r, t in
                   zip(srv.requests[-2:], split.transcripts))
    assert split.provenance["parts"] == 2  # ex:Person and ex:Sport groups
    assert len(split.raw_tables[0]) == 2  # identical rows of both parts merged
    # a split shares no ontology term: each property is described in one part only
    ontologies = [p.split("# Ontology", 1)[1].split("# Output", 1)[0] for p in prompts]
    assert ["ex:fullname" in o for o in ontologies] == [True, False]
    assert ["ex:sportname" in o for o in ontologies] == [False, True]


def test_parser_finds_json_in_prose_and_reports_nothing_usable():
    got = parse_response("Here it is: " + json.dumps(CLEAN) + " -- hope this helps")
    assert got.format == "json" and not got.structurally_valid and len(got.table) == 2
    none = parse_response("I am sorry, I cannot help with that.")
    assert none.format is None and none.error and len(none.table) == 0


def test_unknown_model_sends_one_prompt_with_max_tokens_from_the_case(case, tmp_path):
    """A model litellm does not know is not given a guessed small window: one prompt, not split."""
    with _Server([json.dumps(CLEAN)]) as srv:
        res = _map(_settings(srv.base, tmp_path, model="openai/my-local-model"), case, tmp_path)[0]
        assert len(srv.requests) == 1
        # 2 references (< 6 properties + classes) + 1 source = 3 rows -> 3 * 150 * 1.5 + 512 = 1187 -> floor 2048
        assert srv.requests[0]["max_tokens"] == 2048
    assert res.provenance["context_window"] is None and res.provenance["parts"] == 1
    assert res.provenance["context_window_from"] == "unknown: one prompt, not split"


def test_expected_completion_tokens_follows_the_table_size(case):
    from pipeline.mappers.llm.mapper import expected_completion_tokens
    from pipeline.ontology import load_ontology
    from pipeline.sources.load import load_source

    ont = load_ontology(case.ontologies, case.prefixes)
    src = load_source(case.sources[0])
    src.references = [f"c{i}" for i in range(40)]  # 40 columns, 5 ontology terms: at most 5 + 1 rows
    assert expected_completion_tokens(ont, [src]) == 2048
    # 10 such sources: 5 + 10 rows -> 15 * 225 + 512 = 3887 tokens, capped by the model's limit
    assert expected_completion_tokens(ont, [src] * 10) == 3887
    assert expected_completion_tokens(ont, [src] * 10, ceiling=3000) == 3000


def test_truncated_answer_is_a_warning_and_not_cached(case, tmp_path):
    with _Server([TRUNCATED, json.dumps(CLEAN)], finish="length") as srv:
        settings = _settings(srv.base, tmp_path)
        first = _map(settings, case, tmp_path)[0]
        srv.finish = "stop"
        second = _map(settings, case, tmp_path)[0]
        assert len(srv.requests) == 2, "a truncated answer must not be served from the cache"
    assert first.provenance["warnings"] == [
        "the answer was cut at max_tokens=2048 (finish_reason=length; 1 complete rows kept, not cached); "
        "raise LLM_MAX_TOKENS"]
    assert second.provenance["warnings"] == [] and len(second.raw_tables[0]) == 2


def test_answer_without_table_is_a_warning_and_not_cached(case, tmp_path):
    with _Server(["I cannot help with that.", json.dumps(CLEAN)]) as srv:
        settings = _settings(srv.base, tmp_path, runs=2)
        runs = _map(settings, case, tmp_path)
        _map(settings, case, tmp_path)
        # run 0 had no table: asked again; run 1 came from the cache
        assert len(srv.requests) == 3
    assert runs[0].provenance["warnings"][0].startswith("the answer holds no mapping table")
    assert runs[1].provenance["warnings"] == []
    assert runs[0].transcripts[0]["answer"] == "I cannot help with that."
    assert runs[0].transcripts[0]["messages"][0]["role"] == "system"


def test_retry_after_is_honoured_by_the_client(case, tmp_path):
    with _Server([json.dumps(CLEAN)], statuses=[(429, {"Retry-After": "1"})]) as srv:
        res = _map(_settings(srv.base, tmp_path, max_retries=2), case, tmp_path)[0]
        assert len(srv.requests) == 2
        assert srv.times[1] - srv.times[0] >= 0.95  # the server asked for one second
    assert len(res.table) == 2


def test_timeout_says_the_server_was_slow(case, tmp_path):
    from pipeline.llm import LLMError

    with _Server([json.dumps(CLEAN)], delay=2.0) as srv:
        with pytest.raises(LLMError) as err:
            map_case(get_mapper("llm").__class__(_settings(srv.base, tmp_path, timeout=0.5)), case)
    msg = str(err.value)
    assert "sent nothing for LLM_TIMEOUT=0.5 s" in msg and "slow" in msg and "KEY" not in msg.upper()


def test_unreachable_server_fails_fast_with_one_line(case, tmp_path, capsys):
    import socket

    from pipeline.llm import LLMError

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = _settings(f"http://127.0.0.1:{port}/v1", tmp_path, max_retries=1, runs=3)
    start = time.monotonic()
    with pytest.raises(LLMError) as err:
        _map(settings, case, tmp_path)
    assert time.monotonic() - start < 30  # seconds, not minutes: the first failure ends the case
    assert str(err.value).startswith(f"cannot reach the LLM server at http://127.0.0.1:{port}/v1")
    assert "\n" not in str(err.value)
    assert len(err.value.transcripts) == 1 and err.value.provenance["calls"][0]["error_kind"] == "connection"
    out = capsys.readouterr().out
    assert "Give Feedback" not in out and "LiteLLM" not in out


def test_prompt_over_the_servers_window_stops_with_what_to_set(case, tmp_path):
    from pipeline.llm import LLMError

    too_long = "This model's maximum context length is 512 tokens. However, your messages resulted in 900 tokens."
    with _Server([json.dumps(CLEAN)], statuses=[(400, {}, too_long)] * 2) as srv:
        with pytest.raises(LLMError, match="set LLM_CONTEXT_WINDOW"):
            _map(_settings(srv.base, tmp_path, model="openai/my-local-model", runs=2), case, tmp_path)
        assert len(srv.requests) == 1  # the second run is not sent: it would fail the same way


def test_a_model_without_provider_prefix_is_named_as_such_not_as_a_structured_output_refusal(case, tmp_path):
    """litellm refuses ``gpt-nonexistent`` before any request (no provider): one fatal error saying to
    prefix the model, not "the server rejected structured output" and a second unstructured try."""
    from pipeline.llm import LLMError

    settings = _settings(None, tmp_path, model="gpt-nonexistent")
    with pytest.raises(LLMError) as err:
        _map(settings, case, tmp_path)
    assert str(err.value).startswith("litellm cannot tell the provider of model 'gpt-nonexistent': prefix it")
    assert [c["error_kind"] for c in err.value.provenance["calls"]] == ["not_found"]
