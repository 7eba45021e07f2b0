"""`kgc text` pairs sentences and gold by id; a score with no pair behind it is not a 0.000.

A gold file whose ids match no sentence is refused by the manifest check (the golden case
tests/cases/text-gold-ids-match-no-sentence); here the run itself: a stopped LLM run whose answered
sentences have no gold entry writes ``not_scored`` (why) and no figure. A local OpenAI-compatible
server on 127.0.0.1 (test_mapper_llm._Server) answers; nothing of ours is mocked."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from test_mapper_llm import _Server
from test_text_stopped_run import GOOD, METRICS, _settings

from pipeline.errors import InputError
from pipeline.llm import LLMError
from pipeline.text.harness import run_case
from pipeline.text.manifest import load_case

CASE = Path(__file__).parent / "cases" / "text" / "case.yaml"


@pytest.fixture(autouse=True)
def _no_model(monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")


def test_answered_sentences_without_gold_are_not_scored(tmp_path):
    case = load_case(CASE)
    first = case.sentences[0].id  # answered; the second request is refused and stops the run
    case = dataclasses.replace(case, gold={k: v for k, v in case.gold.items() if k != first})
    with _Server([json.dumps(GOOD)]) as srv:
        srv.on_piece = lambda n: srv.statuses.append((401, {}, "invalid api key")) if n == 0 else None
        with pytest.raises(LLMError):
            run_case(case, tmp_path / "out", kind="llm", llm_settings=_settings(tmp_path, srv.base), validate=False)
    scores = json.loads((tmp_path / "out" / "scores.json").read_text(encoding="utf-8"))
    answered = [json.loads(x) for x in (tmp_path / "out" / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in answered if not r.get("error")] == [first]
    assert scores["status"] == "stopped" and scores["scored_sentences"] == 0
    assert scores["not_scored"] == "none of the 1 sentence(s) answered has a gold entry"
    assert not set(METRICS) & set(scores)


def test_a_gold_file_without_entries_is_refused(tmp_path):
    onto = CASE.parent / "ontology.json"
    (tmp_path / "gold.jsonl").write_text("\n", encoding="utf-8")
    (tmp_path / "s.jsonl").write_text('{"id": "s1", "sent": "Omega University is in Lille."}\n', encoding="utf-8")
    (tmp_path / "c.yaml").write_text(f"kind: text\nontology: {onto}\nsentences: s.jsonl\ngold: gold.jsonl\n",
                                     encoding="utf-8")
    with pytest.raises(InputError, match=r"gold\.jsonl: the gold file holds no entry \(expected JSON Lines"):
        load_case(tmp_path / "c.yaml")
