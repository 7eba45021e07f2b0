"""The offline extractor scores a test split's pairs once: extracting the same sentences again
(each sentence alone, ``corpus: false``) reuses them and gives what a fresh extractor gives."""
from __future__ import annotations

from pathlib import Path

from pipeline.text import offline
from pipeline.text.manifest import load_case


def test_the_one_document_extraction_reuses_the_first_level_scores(monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)
    case = load_case(Path(__file__).parent / "cases" / "text" / "case.yaml")
    training = {"tiny_university": (case.ontology, case.train)}
    texts = [s.text for s in case.sentences]
    fresh = offline.OfflineExtractor(corpus=False).fit(training)
    expected_alone = fresh.extract(texts, case.ontology)

    ex = offline.OfflineExtractor().fit(training)
    assert len(ex.stackers) == 3
    calls = []
    original = offline.OfflineExtractor.pair_scores

    def spy(self, sent, *args, **kwargs):
        calls.append(sent)
        return original(self, sent, *args, **kwargs)
    monkeypatch.setattr(offline.OfflineExtractor, "pair_scores", spy)
    with_corpus = ex.extract(texts, case.ontology)
    assert calls == texts
    ex.corpus = False
    assert ex.extract(texts, case.ontology) == expected_alone
    assert calls == texts  # not scored again
    ex.corpus = True
    assert ex.extract(texts, case.ontology) == with_corpus
    # other sentences, another setting or a new fit: scored again
    ex.extract(texts[:1], case.ontology)
    assert calls == texts + texts[:1]
    ex.fact_memory = not ex.fact_memory
    ex.extract(texts[:1], case.ontology)
    assert len(calls) == len(texts) + 2
    ex.fact_memory = not ex.fact_memory
    ex.fit(training)
    ex.extract(texts[:1], case.ontology)
    assert len(calls) == len(texts) + 3
