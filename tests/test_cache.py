"""The one disk cache (pipeline/cache.py): one root, a namespace per kind, off with 0, shared by processes."""
from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from pipeline import cache


def test_root_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path))
    assert cache.root() == tmp_path
    monkeypatch.delenv("KGC_CACHE_DIR")
    assert cache.root() == Path.home() / ".cache" / "kgc"
    assert cache.root({"KGC_CACHE_DIR": "0"}) is None


def test_namespaces_round_trip_under_one_root(monkeypatch, tmp_path):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path))
    llm, vec = cache.namespace("llm"), cache.namespace("embeddings")
    llm.set("k", '{"text": "answer"}')
    vec.set_many({"a": b"\x00\x01", "b": b""})
    assert llm.get("k") == '{"text": "answer"}' and vec.get("a") == b"\x00\x01" and vec.get("b") == b""
    assert vec.get("k") is None and llm.get("missing") is None  # kinds do not see each other's keys
    assert sorted(p.name for p in tmp_path.iterdir()) == ["embeddings", "llm"]


def test_zero_turns_the_disk_cache_off(monkeypatch, tmp_path):
    monkeypatch.setenv("KGC_CACHE_DIR", "0")
    off = cache.namespace("llm")
    assert not off
    off.set("k", "v")
    assert off.get("k") is None
    assert cache.namespace("llm", None).get("k") is None


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown cache namespace 'answers'"):
        cache.namespace("answers")


def _write(root: str, worker: int) -> None:
    ns = cache.namespace("token-vectors", Path(root))
    for i in range(50):
        ns.set(f"{worker}-{i}", bytes([worker, i]))


def test_processes_share_a_namespace(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write, args=(str(tmp_path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    ns = cache.namespace("token-vectors", tmp_path)
    assert all(ns.get(f"{w}-{i}") == bytes([w, i]) for w in range(3) for i in range(50))
