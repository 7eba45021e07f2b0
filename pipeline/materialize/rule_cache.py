"""The engine's rule table of a mapping, kept on disk and found again by the mapping's content.

Morph-KGC turns a mapping into its rule table (one row per predicate-object map, with the
logical source, term maps, join conditions and mapping partition) by parsing the Turtle with
rdflib and running some twenty SPARQL queries and updates over it: about a fifth of the engine's
CPU time on a million statements, and the same on every run of an unchanged mapping (the usual
case: new data, same mapping). The table depends on nothing but the mapping document and the
engine configuration, so it is stored once per distinct (engine version, configuration, mapping
bytes; and the file's location when the document has relative IRIs, which resolve against it),
in the folder ``rules`` under the pipeline's one cache root (:func:`pipeline.cache.root`:
``$KGC_CACHE_DIR``, default ``~/.cache/kgc``; ``0`` turns it off), one pickle file per entry
(the table is pandas frames, which the text-only namespaces of :mod:`pipeline.cache` do not hold),
written atomically; at most :data:`MAX_ENTRIES` entries are kept (the least recently used go
first). An entry that cannot be read is parsed again and rewritten.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import re
import tempfile
from pathlib import Path
from typing import Any

from pipeline.cache import root

__all__ = ["MAX_ENTRIES", "cache_folder", "rule_key", "load", "store"]

#: Entries kept (one per distinct mapping; each some tens of kB).
MAX_ENTRIES = 256
#: Bumped when what is stored changes shape.
_FORMAT = "1"


def cache_folder() -> Path | None:
    """The cache folder (``None``: disk caching is off, ``KGC_CACHE_DIR=0``)."""
    top = root()
    return None if top is None else top / "rules"


#: A relative IRI reference in Turtle (``<#P>``, ``<Person>``): no scheme before the first ``:``.
_RELATIVE_IRI = re.compile(rb"<(?![A-Za-z][A-Za-z0-9+.\-]*:)[^<>\s\"{}|^`\\]*>")


def rule_key(mapping: bytes, config: str, engine_version: str, location: str = "") -> str:
    """The entry's name: SHA-256 of the format, engine version, configuration text and mapping bytes,
    and of the mapping file's location (``location``, its absolute path) when the document holds a
    relative IRI: the engine resolves it against the file (``<#P>`` -> ``file:///dir/m.ttl#P``),
    so the same bytes elsewhere make another table."""
    h = hashlib.sha256()
    where = location.encode("utf-8") if _RELATIVE_IRI.search(mapping) else b""
    for part in (_FORMAT.encode(), engine_version.encode(), config.encode("utf-8"), mapping, where):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def load(key: str) -> Any | None:
    """The stored value of ``key``, or ``None`` (no cache, no entry, or an unreadable one)."""
    folder = cache_folder()
    if folder is None:
        return None
    path = folder / f"{key}.pkl"
    try:
        with open(path, "rb") as fh:
            value = pickle.load(fh)  # noqa: S301 - written by this module into the user's own cache
        os.utime(path)  # recently used
        return value
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a truncated or foreign file: parse again, overwrite it
        return None


def store(key: str, value: Any) -> None:
    """Store ``value`` under ``key`` (silently nothing when the folder cannot be written)."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pkl")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, folder / f"{key}.pkl")
        entries = sorted(folder.glob("*.pkl"), key=lambda p: p.stat().st_mtime)
        for old in entries[:max(0, len(entries) - MAX_ENTRIES)]:
            old.unlink(missing_ok=True)
    except OSError:
        return
