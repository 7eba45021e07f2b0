"""The pipeline's one disk cache: LLM answers, sentence embeddings, word-token vectors.

Everything the pipeline keeps between runs lives under one root, ``$KGC_CACHE_DIR`` (default
``~/.cache/kgc``; ``KGC_CACHE_DIR=0`` turns disk caching off), one namespace per kind of entry,
each a :class:`diskcache.Cache` (SQLite in WAL mode, one folder per namespace):

=================  ===================================================================
``llm``            :func:`pipeline.llm.complete`'s answers (JSON text, by request hash)
``embeddings``     :func:`pipeline.embeddings.embed`'s sentence vectors (float32 bytes)
``token-vectors``  :func:`pipeline.text.vectors.token_vectors` (float16 bytes)
=================  ===================================================================

Values are bytes or text, never pickles. Several processes may read and write one namespace at
once (SQLite's locking; diskcache opens a new connection after a fork). A cached value is the
computation's own output, so results are the same with and without the cache; a cache that
cannot be opened, read or written is no cache, never an error (the failure is logged at debug
level). Each namespace is bounded (diskcache's default, 1 GiB; the least recently stored entries
go first).
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import Mapping

import diskcache

__all__ = ["ENV", "KINDS", "Namespace", "root", "namespace"]

log = logging.getLogger(__name__)

#: Environment variable naming the cache root (``0``: no disk cache).
ENV = "KGC_CACHE_DIR"

#: The namespaces under the root.
KINDS = ("llm", "embeddings", "token-vectors")

_DEFAULT = object()
_lock = threading.Lock()
_open: dict[str, diskcache.Cache | None] = {}  # namespace folder -> its cache, opened once per process
_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


def root(env: Mapping[str, str] | None = None) -> Path | None:
    """The cache root: ``$KGC_CACHE_DIR`` (read from ``env``, default ``os.environ``), else
    ``~/.cache/kgc``; ``None`` when the variable is ``0`` (disk caching off)."""
    setting = (os.environ if env is None else env).get(ENV, "")
    if setting == "0":
        return None
    return Path(setting).expanduser() if setting else Path.home() / ".cache" / "kgc"


class Namespace:
    """One kind of entry under the root, or none at all (caching off or the folder unusable: every
    :meth:`get` misses and :meth:`set` stores nothing).

    Args:
        cache: the namespace's open :class:`diskcache.Cache`, or ``None``.
    """

    def __init__(self, cache: diskcache.Cache | None) -> None:
        self.cache = cache

    def __bool__(self) -> bool:
        return self.cache is not None

    def get(self, key: str) -> bytes | str | None:
        """The value stored under ``key``, else ``None`` (also when the cache cannot be read)."""
        if self.cache is None:
            return None
        try:
            return self.cache.get(key)
        except _ERRORS as exc:
            log.debug("cache %s not read: %s", self.cache.directory, exc)
            return None

    def set_many(self, items: Mapping[str, bytes | str]) -> None:
        """Store every ``key: value`` of ``items`` in one transaction (nothing when the cache
        cannot be written: a read-only or full disk)."""
        if self.cache is None or not items:
            return
        try:
            with self.cache.transact():
                for k, v in items.items():
                    self.cache.set(k, v)
        except _ERRORS as exc:
            log.debug("cache %s not written: %s", self.cache.directory, exc)

    def set(self, key: str, value: bytes | str) -> None:
        """Store ``value`` under ``key`` (see :meth:`set_many`)."""
        self.set_many({key: value})


def namespace(kind: str, base: Path | None | object = _DEFAULT) -> Namespace:
    """The namespace ``kind`` (one of :data:`KINDS`) under ``base`` (default :func:`root`;
    ``None``: no disk cache). Opened once per process and folder.

    Raises:
        ValueError: ``kind`` is not one of :data:`KINDS`.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown cache namespace {kind!r}; expected one of {', '.join(KINDS)}")
    base = root() if base is _DEFAULT else base
    if base is None:
        return Namespace(None)
    folder = str(Path(base) / kind)
    with _lock:
        if folder not in _open:
            try:
                _open[folder] = diskcache.Cache(folder, timeout=60)
            except _ERRORS as exc:
                log.debug("cache %s unusable: %s", folder, exc)
                _open[folder] = None
        return Namespace(_open[folder])
