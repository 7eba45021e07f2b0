"""A selection of a JSON source's records by the value of one member: one logical source per kind of record.

An array of records often holds records of several kinds, each naming its kind in a member (STIX
``"type": "attack-pattern"``, ``"relationship"``, ...). Each kind is a logical source of its own: the
file read with a JSONPath filter iterator that keeps the records of one kind
(``$.objects[?(@.type=="attack-pattern")]``). A mapping table names such a source by the file's name
followed by that filter (:data:`pipeline.manifest.SELECTION`: ``stix.json[?(@.type=="malware")]``), which
is all the compiler needs to read it: :func:`selected_sources` makes the source of every such name, as
if the manifest listed the file once per kind with its iterator and that name.

The filter is written as Morph-KGC 2.10's JSONPath library reads it: double quotes, no space around
``==`` (other spellings are rewritten so in the engine copy:
:func:`pipeline.materialize.rml.json_sources.engine_filter`); ``jsonpath_ng.ext``, which the loader uses,
reads the same text.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from pipeline.manifest import SELECTION
from pipeline.sources.model import SourceData

__all__ = ["selection_name", "select", "selected_sources"]


def selection_name(data: SourceData, member: str, value: str) -> str | None:
    """The name of the selection of ``data``'s records whose ``member`` is ``value``
    (``stix.json[?(@.type=="malware")]``), or ``None`` when no filter can express it: the records are not
    the items of an array (iterator not ending in ``[*]``), or the member or value holds characters the
    filter cannot quote (:data:`pipeline.manifest.SELECTION`)."""
    if data.source.format != "json" or not (data.iterator or "").endswith("[*]"):
        return None
    name = f'{data.source.name or data.source.path.name}[?(@.{member}=="{value}")]'
    return name if SELECTION.fullmatch(name) else None


def select(data: SourceData, member: str, value: str) -> SourceData | None:
    """The records of ``data`` whose top-level ``member`` is the JSON string ``value``, as a source of their own.

    Args:
        data: a loaded JSON source whose records are the items of an array (its iterator ends in ``[*]``).
        member: a member name of the records (letters, digits, ``_``).
        value: the value selecting the records.
    Returns:
        A :class:`SourceData` named by :func:`selection_name`, its iterator the filter
        (``$.objects[?(@.type=="malware")]``), its records, references and record lines those of the
        selected records, in file order; ``None`` when no filter expresses the selection or no record
        has that value.
    """
    name = selection_name(data, member, value)
    if name is None or data._json is None or len(data._json) != len(data.records):
        return None
    keep = [i for i, raw in enumerate(data._json) if isinstance(raw, dict) and raw.get(member) == value]
    if not keep:
        return None
    records = [data.records[i] for i in keep]
    present = {r for rec in records for r, vals in rec.items() if vals}
    iterator = f'{data.iterator[:-3]}[?(@.{member}=="{value}")]'
    source = dataclasses.replace(data.source, iterator=iterator, name=name)
    return SourceData(source, data.path, iterator, [r for r in data.references if r in present], records, [],
                      unaddressable={r: why for r, why in data.unaddressable.items() if r in present},
                      record_lines=[data.record_lines[i] for i in keep] if data.record_lines is not None else None,
                      places=[data.places[i] for i in keep] if data.places is not None else None,
                      jsonld=data.jsonld, _json=[data._json[i] for i in keep])


def selected_sources(names: Iterable[str | None], sources: list[SourceData]) -> list[SourceData]:
    """The sources that selection names among ``names`` (a table's Source File cells) stand for.

    Args:
        names: Source File cells; those of the form ``<file>[?(@.<member>=="<value>")]`` whose ``<file>``
            names a JSON source of ``sources`` (its manifest name or file name) and that name no source
            themselves are read.
        sources: the case's loaded sources.
    Returns:
        One source per such name, in first-seen order (none for a selection that keeps no record).
    """
    known = {s.source.name for s in sources if s.source.name} | {s.source.path.name for s in sources}
    by_file = {}
    for s in sources:
        by_file.setdefault(s.source.name or s.source.path.name, s)
    out = []
    for name in dict.fromkeys(n for n in names if n):
        chosen = SELECTION.fullmatch(name)
        if name in known or chosen is None or chosen.group("file") not in by_file:
            continue
        sub = select(by_file[chosen.group("file")], chosen.group("member"), chosen.group("value"))
        if sub is not None and sub.source.name == name:
            out.append(sub)
    return out
