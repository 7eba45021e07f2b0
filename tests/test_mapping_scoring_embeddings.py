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


_PROBE = """
import sys, numpy as np, torch
from pipeline import embeddings
v = embeddings.embed(["hgnc id", "previous symbol", "the date the entry was last modified"])
np.save(sys.argv[1], v)
print(torch.get_num_threads())
"""


def test_vectors_do_not_depend_on_the_thread_count(tmp_path) -> None:
    """The model runs on one intra-op thread whatever torch was started with (OMP_NUM_THREADS): the
    same bits on a machine of one core or of four (more threads split the sums otherwise)."""
    import os
    import subprocess
    import sys

    out = {}
    for n in ("1", "4"):
        env = {**os.environ, "OMP_NUM_THREADS": n, "KGC_CACHE_DIR": "0"}
        run = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / f"v{n}.npy")], env=env,
                             capture_output=True, text=True, check=True)
        assert run.stdout.split()[-1] == "1"
        out[n] = np.load(tmp_path / f"v{n}.npy")
    assert out["1"].shape == (3, embeddings.DIMENSION)
    assert np.array_equal(out["1"], out["4"])
