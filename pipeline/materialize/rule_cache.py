"""The engine's rule table of a mapping, kept on disk and found again by the mapping's content.

Morph-KGC turns a mapping into its rule table (one row per predicate-object map, with the
logical source, term maps, join conditions and mapping partition) by parsing the Turtle with
rdflib and running some twenty SPARQL queries and updates over it: about a fifth of the engine's
CPU time on a million statements, and the same on every run of an unchanged mapping (the usual
case: new data, same mapping). The table depends on nothing but the mapping document and the
engine configuration, so it is stored once per distinct (engine version, configuration, mapping
bytes; and the file's location when the document has relative IRIs, which resolve against it),
in the folder ``rules`` under the pipeline's one cache root (:func:`pipeline.cache.root`:
``$KGC_CACHE_DIR``, default ``~/.cache/kgc``; ``0`` turns it off), one JSON file per entry
written atomically: the table's pandas frames as columns, dtypes and rows of strings, numbers and
nulls (what Morph-KGC's tables hold). Never a pickle: loading one runs whatever code it names, and
a cache folder is no place to trust for that. At most :data:`MAX_ENTRIES` entries are kept (the
least recently used go first). An entry that cannot be read, or holds anything else, is parsed
again and rewritten; a table holding another kind of value is not stored.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from pipeline.cache import root

__all__ = ["MAX_ENTRIES", "cache_folder", "rule_key", "load", "store"]

#: Entries kept (one per distinct mapping; each some tens of kB).
MAX_ENTRIES = 256
#: Bumped when what is stored changes shape.
_FORMAT = "2"


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
    """The stored value of ``key`` (``(rml frame, fnml frame, http text)``), or ``None`` (no cache, no
    entry, or one that cannot be read or holds anything but what :func:`store` writes)."""
    folder = cache_folder()
    if folder is None:
        return None
    path = folder / f"{key}.json"
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        value = (_frame(doc["rml"]), _frame(doc["fnml"]), _text(doc["http"]))
        os.utime(path)  # recently used
        return value
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a truncated or foreign file: parse again, overwrite it
        return None


_PLAIN = (str, int, float, bool, type(None))


def _encoded(df: Any) -> dict[str, Any]:
    """A frame as columns, dtypes and rows; ``ValueError`` when a cell is no string, number or null."""
    rows = df.astype(object).values.tolist()
    if any(not isinstance(v, _PLAIN) for row in rows for v in row):
        raise ValueError("a cell of another type")
    index = df.index.tolist()  # the engine's own row order (its sort), kept
    if any(not isinstance(i, int) for i in index):
        raise ValueError("an index of another type")
    return {"columns": [str(c) for c in df.columns], "dtypes": [str(t) for t in df.dtypes], "rows": rows,
            "index": index}


def _frame(doc: dict[str, Any]) -> Any:
    """The frame :func:`_encoded` wrote, its dtypes restored; ``ValueError`` on anything else."""
    import pandas as pd

    columns, dtypes, rows, index = doc["columns"], doc["dtypes"], doc["rows"], doc["index"]
    if not (isinstance(columns, list) and isinstance(dtypes, list) and len(columns) == len(dtypes)
            and all(isinstance(t, str) and t in ("object", "float64", "int64", "bool") for t in dtypes)
            and isinstance(rows, list) and all(isinstance(r, list) and len(r) == len(columns) for r in rows)
            and all(isinstance(v, _PLAIN) for r in rows for v in r)
            and isinstance(index, list) and len(index) == len(rows) and all(isinstance(i, int) for i in index)):
        raise ValueError("not a stored frame")
    df = pd.DataFrame(rows, columns=columns, index=pd.Index(index, dtype="int64"), dtype=object)
    for c, t in zip(columns, dtypes):
        if t != "object":
            df[c] = df[c].astype(t)
    return df


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not text")
    return value


def store(key: str, value: Any) -> None:
    """Store ``value`` (``(rml frame, fnml frame, http text)``) under ``key``; silently nothing when
    the folder cannot be written or a frame holds a value that is no string, number or null."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        rml, fnml, http = value
        text = json.dumps({"rml": _encoded(rml), "fnml": _encoded(fnml), "http": _text(http)})
    except (TypeError, ValueError):
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, folder / f"{key}.json")
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in entries[:max(0, len(entries) - MAX_ENTRIES)]:
            old.unlink(missing_ok=True)
        for stale in folder.glob("*.pkl"):  # entries of the pickle format, never read again
            stale.unlink(missing_ok=True)
    except OSError:
        return
