"""The LLM path with a slow local model: streaming past the old timeout, silence, context overflow in
llama.cpp's wording, a small window, Ctrl-C, progress, and the text extractor's truncated answers.

Every test talks to the loopback OpenAI-compatible server of :mod:`test_mapper_llm` on 127.0.0.1.
"""
from __future__ import annotations

import io
import json
import os
import signal
from pathlib import Path

import pytest
from test_mapper_llm import CLEAN, _map, _Server, _settings, case  # noqa: F401 - the case fixture

from pipeline.cli import main
from pipeline.llm import ConsoleReporter, LLMError, LLMSettings, complete, context_overflow, use_reporter
from pipeline.llm import progress as llm_progress

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "data" / "example" / "example.yaml"
TEXT_CASE = Path(__file__).parent / "cases" / "text" / "case.yaml"
LLAMA_OVERFLOW = "request (3026 tokens) exceeds the available context size (2048 tokens), try increasing it"


class _Recorder:
    """A progress reporter that keeps every event."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def start(self, label, attempt, attempts, max_tokens):
        self.events.append(("start", label, attempt, attempts))

    def update(self, tokens, elapsed_s):
        self.events.append(("update", tokens))

    def note(self, text):
        self.events.append(("note", text))

    def end(self, tokens, elapsed_s, outcome):
        self.events.append(("end", tokens, outcome))


def test_a_slow_streamed_answer_outlives_the_timeout_on_silence(case, tmp_path):
    """LLM_TIMEOUT bounds silence, not the answer: 0.1 s between pieces, 0.5 s allowed, ~3 s in all."""
    answer = json.dumps(CLEAN)
    rec = _Recorder()
    with _Server([answer], token_delay=0.1, piece=16) as srv, use_reporter(rec):
        res = _map(_settings(srv.base, tmp_path, timeout=0.5, max_retries=2), case, tmp_path)[0]
        assert len(srv.requests) == 1 and srv.requests[0]["stream"] is True
    call = res.provenance["calls"][0]
    assert call["finish_reason"] == "stop" and call["latency_s"] > 0.5 * 4  # far longer than the silence allowed
    assert [r.ontology_property for r in res.table] == ["ex:id", "ex:fullname"]
    tokens = [e[1] for e in rec.events if e[0] == "update"]
    assert tokens[-1] == len(range(0, len(answer), 16)) and tokens == sorted(tokens)
    assert rec.events[0] == ("start", "t run 0", 1, 3) and rec.events[-1][2] == "stop"


def test_a_server_that_goes_silent_mid_answer_keeps_the_partial_answer_and_is_not_asked_again(case, tmp_path):
    with _Server([json.dumps(CLEAN)], piece=40, stall_after=6) as srv:
        res = _map(_settings(srv.base, tmp_path, timeout=0.5, max_retries=3), case, tmp_path)[0]
        assert len(srv.requests) == 1  # a started answer is never sent again
    transcript = res.transcripts[0]
    assert transcript["finish_reason"] == "timeout" and transcript["answer"] == json.dumps(CLEAN)[:240]
    assert [r.data_reference for r in res.raw_tables[0]] == ["ID"]  # the complete row of the partial answer
    assert res.provenance["warnings"] == [
        "the server went silent for LLM_TIMEOUT=0.5 s after 6 answer tokens; not asked again; raise LLM_TIMEOUT "
        "(1 complete rows kept, not cached)"]


def test_llama_cpp_context_overflow_names_the_setting_and_sends_nothing_more(case, tmp_path):
    body = {"message": LLAMA_OVERFLOW}
    with _Server([json.dumps(CLEAN)], statuses=[(400, {}, body["message"])] * 3) as srv:
        with pytest.raises(LLMError) as err:
            _map(_settings(srv.base, tmp_path, model="openai/gemma-3-270m", runs=2), case, tmp_path)
        assert len(srv.requests) == 1  # no Markdown retry, no second run: both would be refused the same way
    assert str(err.value) == (
        "the request does not fit the model's context window (the server counted 3026 tokens; its window is 2048 "
        "tokens): set LLM_CONTEXT_WINDOW=2048 so that kgc sizes the prompt parts and max_tokens to fit, or start "
        "the server with a larger context (llama.cpp: --ctx-size; vLLM: --max-model-len; Ollama: num_ctx; "
        "LM Studio: the model's context length)")
    assert err.value.provenance["calls"][0]["error_kind"] == "context_window"


@pytest.mark.parametrize("text, expected", [
    (LLAMA_OVERFLOW, (3026, 2048)),
    ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the "
     "messages, 1000 in the completion).", (5000, 4096)),
    ("The prompt (total length 5000) is too long to fit into the model (context length 4096).", (5000, 4096)),
    ("Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context "
     "length of only 4096 tokens, which is not enough.", (5000, 4096)),
    ("the input length exceeds the context length", (None, None)),
])
def test_context_overflow_wordings_of_common_servers(text, expected):
    got = context_overflow(text)
    assert got is not None and (got.prompt_tokens, got.window) == expected
    assert context_overflow("response_format json_schema is not supported") is None


def test_a_window_too_small_for_any_part_stops_before_any_request(case, tmp_path):
    with _Server([json.dumps(CLEAN)]) as srv:
        with pytest.raises(LLMError) as err:
            _map(_settings(srv.base, tmp_path, context_window=1200, max_tokens=600), case, tmp_path)
        assert srv.requests == []
    msg = str(err.value)
    assert "of the 1200-token context window (LLM_CONTEXT_WINDOW)" in msg and "no request was sent" in msg
    assert "estimate: tiktoken cl100k_base + 25%" in msg


def test_retries_before_the_answer_starts_are_shown(case, tmp_path):
    out = io.StringIO()
    with _Server([json.dumps(CLEAN)], statuses=[(503, {"Retry-After": "0"}, "loading model")]) as srv, \
            use_reporter(ConsoleReporter(out, tty=False)):
        res = _map(_settings(srv.base, tmp_path, max_retries=2), case, tmp_path)[0]
        assert len(srv.requests) == 2
    assert res.provenance["calls"][0]["attempts"] == 2
    line = out.getvalue().strip()
    assert line.startswith("LLM t run 0, attempt 1 of 3: cannot reach the LLM server at") and \
        line.endswith("attempt 2 of 3 in 0.0 s")


def test_progress_lines_off_a_terminal(case, tmp_path, monkeypatch):
    monkeypatch.setattr(llm_progress, "FIRST_LINE_S", 0.2)
    monkeypatch.setattr(llm_progress, "EVERY_S", 0.5)
    out = io.StringIO()
    settings = LLMSettings(model="openai/local", api_base=None, cache_dir=None, max_retries=0, timeout=5)
    with _Server(["x" * 80], token_delay=0.1, piece=4) as srv, use_reporter(ConsoleReporter(out, tty=False)):
        settings = LLMSettings(model="openai/local", api_base=srv.base, cache_dir=None, max_retries=0, timeout=5)
        rec = complete(settings, [{"role": "user", "content": "hi"}], label="sentence 1/1")
    assert rec.text == "x" * 80 and rec.finish_reason == "stop" and rec.completion_tokens == 200
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("LLM sentence 1/1, attempt 1: ") and "tokens received" in lines[0] and "tok/s" in lines[0]
    assert lines[-1].startswith("LLM sentence 1/1, attempt 1: stop after 200 tokens in ")


def test_ctrl_c_during_a_request_keeps_the_transcript_and_the_earlier_run(tmp_path, monkeypatch, capsys, request):
    """Ctrl-C while the model streams: one line, exit 130; the interrupted run's transcript (with the
    partial answer) is kept beside the earlier run, which stays in place."""
    out = tmp_path / "out"
    case_dir = out / "example" / "people"
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    assert main(["run", str(MANIFEST), "--out", str(out), "--mapper", "replay", "--no-evaluate", "-q"]) == 0
    earlier = json.loads((case_dir / "run.json").read_text())

    # Python's own SIGINT handler, as in a fresh `kgc` process, whatever an earlier test left
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    def interrupt(n):
        if n == 3:  # what Ctrl-C does while the answer streams in: a real SIGINT, which also wakes a
            os.kill(os.getpid(), signal.SIGINT)  # blocked socket read (interrupt_main only sets a flag)

    for k, v in {"LLM_MODEL": "openai/local-test-model", "KGC_CACHE_DIR": str(tmp_path / "cache"),
                 "LLM_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(k, v)
    with _Server([json.dumps(CLEAN)], token_delay=0.05, piece=10, on_piece=interrupt) as srv:
        monkeypatch.setenv("LLM_API_BASE", srv.base)
        code = main(["run", str(MANIFEST), "--out", str(out), "--mapper", "llm", "--no-evaluate", "-q"])
    captured = capsys.readouterr()
    assert code == 130, f"exit {code}\nstdout:\n{captured.out}\nstderr:\n{captured.err}"
    err = captured.err.strip().splitlines()
    kept = out / "example" / "people.interrupted"
    assert err == [f"interrupted: example/people interrupted at map: this run's stages and LLM transcripts so far "
                   f"are in {kept}; the earlier run is back in {case_dir}"]
    assert json.loads((case_dir / "run.json").read_text())["config"] == earlier["config"]  # the replay run
    assert not (out / "example" / "people.previous").exists()
    transcript = json.loads((kept / "llm" / "run-0-part-1.json").read_text())
    assert transcript["finish_reason"] == "interrupted" and json.dumps(CLEAN).startswith(transcript["answer"])
    assert len(transcript["answer"]) >= 30
    run = json.loads((kept / "run.json").read_text())
    assert run["status"] == "interrupted" and run["failed_stage"] == "map"


def test_a_run_killed_outright_is_kept_and_the_one_before_it_restored(tmp_path, monkeypatch):
    """A killed run leaves <case>.previous behind: the next run keeps the killed one as .interrupted and,
    when it ends, removes the one before (its own folder is now the case's)."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    out = tmp_path / "out"
    case_dir = out / "example" / "people"
    (out / "example" / "people.previous").mkdir(parents=True)
    case_dir.mkdir()
    (case_dir / "half-written.txt").write_text("killed here")
    assert main(["run", str(MANIFEST), "--out", str(out), "--mapper", "replay", "--no-evaluate", "-q"]) == 0
    assert (out / "example" / "people.interrupted" / "half-written.txt").read_text() == "killed here"
    assert not (out / "example" / "people.previous").exists()
    assert json.loads((case_dir / "run.json").read_text())["status"] == "ok"


def test_text_extractor_truncated_answers_are_kept_warned_and_exit_1(tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    answer = '{"triples": [{"sub": "Omega University", "rel": "city", "obj": "Li'
    with _Server([answer], finish="length") as srv:
        for k, v in {"LLM_MODEL": "openai/test-model", "LLM_API_BASE": srv.base, "LLM_MAX_RETRIES": "0",
                     "KGC_CACHE_DIR": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(k, v)
        code = main(["text", str(TEXT_CASE), "--extractor", "llm", "--out", str(tmp_path / "text")])
        assert all(r["max_tokens"] == 4 * 60 + 64 for r in srv.requests)  # sized: no LLM_MAX_TOKENS set
    assert code == 1
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert [w.split(";")[0] for w in warned] == [
        f"sentence {i} of 2: the answer was cut at max_tokens=304 (finish_reason=length)" for i in (1, 2)]
    lines = capsys.readouterr().err.strip().splitlines()
    err = [line for line in lines if not line.startswith("kgc text: ")]  # the stage lines apart
    assert [line.split(" (")[0] for line in lines if line.startswith("kgc text: ")] == [
        "kgc text: tiny_university: extracting triples from 2 sentences"]
    assert len(err) == 1 and err[0].startswith("error: tiny_university: no sentence gave a valid answer (2 of 2 "
                                               "invalid, 2 cut at max_tokens: raise LLM_MAX_TOKENS)")
    lines = [json.loads(x) for x in (tmp_path / "text" / "tiny_university" / "outputs.jsonl").read_text().splitlines()]
    assert [(x["answer"], x["finish_reason"], x["max_tokens"]) for x in lines] == [(answer, "length", 304)] * 2


def test_runs_that_all_fail_say_so_and_findings_name_their_run_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    row = {"data_reference": "name", "source_file": "people.csv", "ontology_property": "ex:noSuchProperty",
           "entity_class": "ex:Person", "subject_template": "http://example.org/person/{person_id}"}
    cut = json.dumps({"rows": [row, row]})[:-40]  # the second row cut off: a truncated answer
    out = tmp_path / "out"
    with _Server([cut], finish="length") as srv:
        for k, v in {"LLM_MODEL": "openai/local-test-model", "LLM_API_BASE": srv.base, "LLM_RUNS": "2",
                     "LLM_MAX_RETRIES": "0", "KGC_CACHE_DIR": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(k, v)
        assert main(["run", str(MANIFEST), "--out", str(out), "--mapper", "llm", "--no-evaluate", "-q"]) == 1
    run = json.loads((out / "example" / "people" / "run.json").read_text())
    assert run["status"] == "failed" and run["failed_stage"] == "compile (all 2 runs)"
    audit = (out / "example" / "people" / "audit.md").read_text()
    assert "run 0: run 0" not in audit and "run 1: run 1" not in audit
    assert audit.count("run 0: the answer was cut at max_tokens=") == 1
    assert audit.count("run 1: the answer was cut at max_tokens=") == 1
