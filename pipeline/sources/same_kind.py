"""Sources of one kind: files the manifest lists one by one that hold records of one shape.

A user with a handful of files of one export (eight advisories, one document per file; a table split
by year) lists them one by one rather than as a folder source (:mod:`pipeline.sources.folders`). They
are still one kind of record, as the files of a folder are: each should be read alike (the same
records) and mapped alike (the same rows). Two sources are of one kind when they have the same format,
the same manifest iterator, and the same shape (:func:`shape`):

* CSV: the same columns (names, in any order), as the files of a CSV folder source must have;
* JSON: the member paths of the whole document (``document.tracking.id``, ``vulnerabilities.cve``; an
  array's items share their array's path) overlap by at least :data:`MIN_JACCARD` (Jaccard index of the
  two sets); optional members make files of one kind differ a little (an advisory with acknowledgments
  and one without), files of two kinds share few paths;
* XML: the same root element and the same names of its child elements.

Folder sources, sources that could not be read, and files of other formats are of no group.

A JSON file holding one document whose records the loader found in an array beside other members
(``{"document": {...}, "vulnerabilities": [...]}``: :func:`pipeline.sources.tree.json_records_path`
takes the array) is, when its kind has several files, read as a folder of such files is: the document
is one record and its array a repeating part of it (:func:`documents`), so that each file gives one
entity per document and the document's own members (title, tracking id, dates) are addressable.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence

from pipeline.sources import json_numbers
from pipeline.sources.folders import is_wrapper  # one rule for folder sources and listed files
from pipeline.sources.model import SourceData

__all__ = ["MIN_JACCARD", "shape", "same_kind_groups", "documents"]

#: Two JSON documents are of one kind when the Jaccard index of their member paths is at least this.
#: Measured on the JSON files listed in one manifest or kept in one folder (real-mappings corpus, tests/cases,
#: BLINKG): files of one kind overlap by 0.6 to 1.0 (the eight CSAF advisories 0.98 to 1.0), files of two
#: kinds by 0.0; a small export beside its full form (0.42) and two projections of one search (0.25) lie
#: between, and stay apart (docs/methods/offline-mapper.md, "Sources of one kind listed one by one").
MIN_JACCARD = 0.5


def _paths(value, prefix: str = "", out: set[str] | None = None) -> set[str]:
    """The member paths of a JSON value (``a``, ``a.b``; the items of an array under their array's path)."""
    out = set() if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            out.add(p)
            _paths(v, p, out)
    elif isinstance(value, list):
        for v in value:
            _paths(v, prefix, out)
    return out


def _document(data: SourceData):
    """The parsed JSON document of a plain JSON file (``None``: unreadable, or a JSON Lines file)."""
    try:
        return json_numbers.loads(data.source.path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def shape(data: SourceData) -> tuple | None:
    """What two sources of one kind share: ``("csv", columns)``, ``("xml", root, child names)``,
    ``("json", member paths)`` (compared by :data:`MIN_JACCARD`); ``None`` for a source of no group
    (a folder source, an unreadable one, a JSON Lines file)."""
    src = data.source
    if src.members or any(f.severity == "error" for f in data.findings):
        return None
    if src.format == "csv":
        return ("csv", frozenset(data.references)) if data.references else None
    if src.format == "xml":
        tree = getattr(data, "_tree", None)
        if tree is None:
            return None
        root = tree.getroot()
        return ("xml", root.tag, frozenset(c.tag for c in root if isinstance(c.tag, str)))
    if src.path.suffix.lower() in (".jsonl", ".ndjson"):
        return None
    doc = _document(data)
    return ("json", frozenset(_paths(doc))) if isinstance(doc, (dict, list)) and doc else None


def _alike(a: tuple, b: tuple) -> bool:
    """Whether two shapes (:func:`shape`) are of one kind."""
    if a[0] != b[0]:
        return False
    if a[0] != "json":
        return a == b
    union = a[1] | b[1]
    return bool(union) and len(a[1] & b[1]) / len(union) >= MIN_JACCARD


def same_kind_groups(sources: Sequence[SourceData]) -> list[list[int]]:
    """The groups of sources of one kind, by position in ``sources`` (each group two sources or more,
    in manifest order; a source joins the first group whose first source it is alike with).

    Args:
        sources: the case's loaded sources, in manifest order.
    Returns:
        ``[[0, 1, 2], [4, 5]]``; ``[]`` when no two sources are of one kind.
    """
    firsts: list[tuple[tuple, int]] = []
    groups: dict[int, list[int]] = {}
    # a shape reads a JSON file whole: only sources that another source's format and iterator could match
    # are read (a case of one large JSON file reads it once, at load, not again here)
    keys = Counter((d.source.format, d.source.iterator) for d in sources)
    for i, data in enumerate(sources):
        if keys[(data.source.format, data.source.iterator)] < 2:
            continue
        found = shape(data)
        if found is None:
            continue
        key = (data.source.format, data.source.iterator)
        for first_shape, j in firsts:
            if (sources[j].source.format, sources[j].source.iterator) == key and _alike(first_shape, found):
                groups[j].append(i)
                break
        else:
            firsts.append((found, i))
            groups[i] = [i]
    return [g for g in groups.values() if len(g) >= 2]


def _one_document(data: SourceData) -> bool:
    """Whether ``data`` is a JSON file of one document whose records the loader found in an array of it
    beside other members (not a wrapper holding nothing else, nor an array of records)."""
    if data.source.format != "json" or data.source.iterator or not data.iterator or data.iterator in ("$", "$[*]"):
        return False
    doc = _document(data)
    return isinstance(doc, dict) and not is_wrapper(doc, data.iterator)


def documents(sources: list[SourceData], reload: Callable[[SourceData, str], SourceData]) -> list[SourceData]:
    """``sources`` with every JSON file of a kind of several files (:func:`same_kind_groups`) whose files
    are each one document (:func:`_one_document`) read again with the iterator ``$``: the document is
    one record, as a folder of such files reads it.

    Args:
        sources: the case's loaded sources, in manifest order.
        reload: loads a source again with the iterator given (the caller's copies folder and profiling).
    Returns:
        A new list (the same objects where nothing changes).
    """
    out = list(sources)
    for group in same_kind_groups(sources):
        if all(_one_document(sources[i]) for i in group):
            for i in group:
                out[i] = reload(sources[i], "$")
    return out

