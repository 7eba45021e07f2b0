"""LLM mapper against a real OpenAI-compatible HTTP server on 127.0.0.1 (canned answers)."""
from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pipeline.manifest import Case, Source
from pipeline.mappers import get_mapper
from pipeline.mappers.llm_client import LLMSettings
from pipeline.mappers.llm_parse import parse_response

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
    """A tiny OpenAI-compatible chat server; replies with ``answers`` in turn and counts requests."""

    def __init__(self, answers: list[str], finish: str = "stop") -> None:
        self.answers, self.finish, self.requests = answers, finish, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                text = outer.answers[min(len(outer.requests) - 1, len(outer.answers) - 1)]
                payload = {"id": f"c{len(outer.requests)}", "object": "chat.completion", "created": 1,
                           "model": body["model"],
                           "choices": [{"index": 0, "finish_reason": outer.finish,
                                        "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep test output quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
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
    return LLMSettings(model="openai/gpt-4o-mini", api_base=base, cache_dir=tmp_path / "cache", max_retries=0,
                       timeout=10, **kw)


def _map(settings: LLMSettings, case: Case, tmp_path: Path, **kw):
    mapper = get_mapper("llm")
    mapper.settings = settings
    return mapper.map_runs(case, workdir=tmp_path / "work", **kw)


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
        split = _map(_settings(srv.base, tmp_path, context_window=5000, max_tokens=4000), case, tmp_path)[0]
    assert split.provenance["parts"] == 2  # ex:Person and ex:Sport groups
    assert len(split.raw_tables[0]) == 2  # identical rows of both parts merged


def test_parser_finds_json_in_prose_and_reports_nothing_usable():
    got = parse_response("Here it is: " + json.dumps(CLEAN) + " -- hope this helps")
    assert got.format == "json" and not got.structurally_valid and len(got.table) == 2
    none = parse_response("I am sorry, I cannot help with that.")
    assert none.format is None and none.error and len(none.table) == 0
