"""On-disk cache of text vectors for the text extractors (sentence and token vectors of MiniLM).

Vectors are kept in one ``.npz`` file per kind, keyed by the SHA-1 of the text, and read once per
process: a fit and 19 extractions ask for vectors about 25 times, and embedding the benchmark's
sentences costs minutes on a busy 2-core machine. The stored vectors are the model's output (in
the caller's storage dtype), so results are the same with and without the cache.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["cached_vectors"]

_memory: dict[str, dict[str, np.ndarray]] = {}  # cache file -> {text SHA-1: vectors}
_read: set[str] = set()


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def cached_vectors(texts: list[str], path: Path | None, compute: Callable[[list[str]], list],
                   store=np.float32) -> list[np.ndarray]:
    """Vectors of ``texts``, computed by ``compute`` only for texts not cached yet.

    Args:
        texts: the texts (repeats allowed).
        path: the ``.npz`` cache file (``None``: this process's memory only).
        compute: texts -> one array per text (called once, on the new texts in sorted order).
        store: dtype the vectors are kept in (``float16`` halves the file of token vectors).
    Returns:
        One float32 array per text, in the order of ``texts``.
    """
    known = _memory.setdefault(str(path), {})
    if path is not None and str(path) not in _read and path.exists():
        with np.load(path) as z:
            known.update({k: z[k] for k in z.files})
        _read.add(str(path))
    keys = [_key(t) for t in texts]
    todo = sorted({t for t, k in zip(texts, keys) if k not in known})
    if todo:
        for t, v in zip(todo, compute(todo)):
            known[_key(t)] = np.asarray(v).astype(store)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, **known)
    return [known[k].astype(np.float32) for k in keys]
