"""The text extractor's vectors are a function of the text alone (pipeline/text/vectors.py):
whatever sentences are embedded with it and whatever the disk cache holds."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline import cache, embeddings
from pipeline.text import vectors

pytestmark = pytest.mark.skipif(not embeddings.available(), reason="the packaged MiniLM is not installed")

S = ["Red Harbor is a 1994 French drama film directed by Anne Vidal.",
     "Blue Valley is a comedy.",
     "The Acharya Institute of Technology in Bangalore was established in 2000 and its director is Dr. G. P. Prabhukumar."]


def test_a_sentence_vector_does_not_depend_on_its_batch_or_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "a"))
    monkeypatch.setattr(vectors, "_sentence_memory", {})
    alone = vectors.sentence_vectors([S[0]])[0]
    monkeypatch.setattr(vectors, "_sentence_memory", {})
    monkeypatch.setenv(cache.ENV, "0")
    together = vectors.sentence_vectors(S[::-1])  # other companions, no cache
    assert np.array_equal(together[2], alone)  # bit for bit
    # the model card's pooling: the same vector as sentence-transformers', up to float rounding
    assert float(together[2] @ embeddings.embed([S[0]])[0]) == pytest.approx(1.0, abs=1e-6)
    # from the disk cache: the stored bytes
    monkeypatch.setattr(vectors, "_sentence_memory", {})
    monkeypatch.setenv(cache.ENV, str(tmp_path / "a"))
    assert np.array_equal(vectors.sentence_vectors([S[1], S[0]])[1], alone)
