"""Tests of pipeline.embeddings (loads the real packaged model)."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline import embeddings

pytestmark = pytest.mark.skipif(not embeddings.available(), reason="embedding model not installed")


def test_embed_shape_and_norm() -> None:
    vecs = embeddings.embed(["date of birth", "birth date", "date of birth"])
    assert vecs.shape == (3, embeddings.DIMENSION)
    assert vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vecs[0], vecs[2])


def test_embed_empty_list() -> None:
    assert embeddings.embed([]).shape == (0, embeddings.DIMENSION)


def test_cosine_orders_related_above_unrelated() -> None:
    related = embeddings.cosine("date of birth", "birth date")
    unrelated = embeddings.cosine("date of birth", "football team")
    assert related > 0.8 > unrelated
    assert embeddings.cosine("same", "same") == 1.0


def test_disable_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    assert embeddings.available() is False
    assert embeddings.model_info()["available"] is False


def test_disk_cache_serves_a_new_process_without_the_model(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(embeddings, "_cache", {})
    first = embeddings.embed(["date of birth", "a text seen once"])
    monkeypatch.setattr(embeddings, "_cache", {})  # as in a new process: nothing in memory

    def no_model():
        raise AssertionError("the model was loaded although every vector is on disk")

    monkeypatch.setattr(embeddings, "_load", no_model)
    assert np.array_equal(embeddings.embed(["a text seen once", "date of birth"]), first[::-1])
