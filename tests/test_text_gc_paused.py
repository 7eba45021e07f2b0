"""The offline extractor fits and extracts with CPython's cyclic garbage collector paused
(``pipeline.gcpause.cycles_uncollected``): the collector is off inside, back as it was after (also when
the call raises), and the fit and the triples are those of a run with the collector on and
collecting at every scored sentence."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from pipeline import gcpause
from pipeline.errors import InputError
from pipeline.text import offline
from pipeline.text.manifest import load_case


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)
    case = load_case(Path(__file__).parent / "cases" / "text" / "case.yaml")
    return case, {"tiny_university": (case.ontology, case.train)}, [s.text for s in case.sentences]


def _spied(monkeypatch, collect: bool) -> list[bool]:
    """Record whether the collector is on as each sentence is scored (and, with ``collect``,
    run a full collection there)."""
    seen: list[bool] = []
    original = offline.OfflineExtractor.pair_scores

    def spy(self, sent, *args, **kwargs):
        seen.append(gc.isenabled())
        if collect:
            gc.collect()
        return original(self, sent, *args, **kwargs)
    monkeypatch.setattr(offline.OfflineExtractor, "pair_scores", spy)
    return seen


def test_the_collector_is_paused_inside_and_restored_after(tiny, monkeypatch):
    case, training, texts = tiny
    assert gc.isenabled()
    seen = _spied(monkeypatch, collect=False)
    ex = offline.OfflineExtractor().fit(training)
    assert gc.isenabled()
    out = ex.extract(texts, case.ontology)
    assert gc.isenabled()
    assert len(seen) == len(texts) and not any(seen)
    # off before: still off after
    gc.disable()
    try:
        ex.corpus = False  # the stacking rounds again (the first level is reused)
        ex.extract(texts, case.ontology)
        assert not gc.isenabled()
    finally:
        gc.enable()
    # a call that raises: the collector is back on
    with pytest.raises(InputError):
        offline.OfflineExtractor().fit({})
    assert gc.isenabled()
    assert out == offline.OfflineExtractor().fit(training).extract(texts, case.ontology)


def test_the_triples_are_those_of_a_run_with_the_collector_on(tiny, monkeypatch):
    case, training, texts = tiny
    paused = offline.OfflineExtractor().fit(training)
    expected = paused.extract(texts, case.ontology)
    paused.corpus = False
    expected_alone = paused.extract(texts, case.ontology)
    assert sum(len(t) for t in expected) == 3  # the case's sentences give triples

    class On:  # the gc module as the extractor sees it, but never switched off
        isenabled, enable = staticmethod(gc.isenabled), staticmethod(gc.enable)

        @staticmethod
        def disable():
            pass
    monkeypatch.setattr(gcpause, "gc", On)
    seen = _spied(monkeypatch, collect=True)
    on = offline.OfflineExtractor().fit(training)
    assert on.extract(texts, case.ontology) == expected
    on.corpus = False
    assert on.extract(texts, case.ontology) == expected_alone
    assert seen and all(seen)
