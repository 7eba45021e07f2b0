"""Source data access: load a CSV/JSON/XML source by its format (readers in :mod:`pipeline.sources.tabular`,
:mod:`pipeline.sources.tree`; the loaded form is :class:`~pipeline.sources.model.SourceData`).

For each :class:`~pipeline.manifest.Source` this module answers what the
audit, the compiler and the mappers need: which references exist (CSV
columns, JSON keys as dotted paths relative to the iterator, XML element and
attribute paths relative to the iterator), their values per record, and the
record iterator (detected when the manifest does not give one). CSV cells are read
on first use, into columns (:mod:`pipeline.sources.columns`); loading reads the header only. Loaded
for profiling (``kgc map``), a large CSV is held as a sample plus value counts.

The file the engine reads is the input itself or its engine copy (:mod:`pipeline.sources.engine_copy`:
what is repaired, where the copy goes; inputs are never modified): ``SourceData.path``. A compressed
file (gzip, xz, bzip2, a one-file zip or tar; told by its leading bytes, not its name) is read
through its decompressed copy, as ``kgc materialize`` reads RML-IO compressed sources.
A file whose iterator selects no record is a finding naming the file and the cause, never an
empty source without a word. A file that cannot be mapped at all (not UTF-8, an unclosed CSV
quote, no records, an external XML entity) is an ``error`` finding of stage ``source``
(:mod:`pipeline.sources.checks`), which callers turn into bad input with :func:`require_readable`.
"""
from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

from pipeline.errors import InputError
from pipeline.findings import Finding
from pipeline.manifest import SELECTION, Source
from pipeline.sources.checks import c1_controls, read_error, require_readable
from pipeline.sources.folders import folder_copy
from pipeline.sources.columns import ColumnRecords
from pipeline.sources.engine_copy import EngineCopy, compression_of, decoded_copy, is_json_lines, json_lines_copy
from pipeline.sources.model import SourceData
from pipeline.sources.same_kind import documents
from pipeline.sources.selection import select
from pipeline.sources.tabular import csv_row_findings, load_csv
from pipeline.sources.tree import load_json, load_xml

__all__ = ["SourceData", "load_source", "load_sources", "require_readable", "csv_row_findings"]


def load_source(source: Source, copies: Path | None = None, profile: bool = False) -> SourceData:
    """Read one source and profile it; a source named by a selection of its file's records
    (``events.json[?(@.type=="club")]``, :data:`pipeline.manifest.SELECTION`, as a manifest path names one)
    holds the selected records, its iterator the filter (:func:`pipeline.sources.selection.select`).

    Arguments and returns as :func:`_load_source`; a selection that keeps no record is a finding of stage
    ``source`` and severity ``error`` naming the file, the member and the value.
    """
    data = _load_source(source, copies, profile)
    chosen = SELECTION.fullmatch(source.name or "")
    if chosen is None or source.members or chosen.group("file") != source.path.name \
            or any(f.severity == "error" for f in data.findings):
        return data
    whole = dataclasses.replace(data, source=dataclasses.replace(source, name=chosen.group("file")))
    member, value = chosen.group("member"), chosen.group("value")
    sub = select(whole, member, value)
    if sub is None:
        data.findings.append(Finding(
            "source", str(source.path), f"the selection {source.name!r} keeps no record: no record of "
            f"{source.path.name} (iterator {data.iterator!r}) has the member {member!r} with the JSON string "
            f"{value!r}", expected=f"records that are the items of an array, some with \"{member}\": \"{value}\""))
        return data
    sub.findings = list(data.findings)
    return sub


def _load_source(source: Source, copies: Path | None = None, profile: bool = False) -> SourceData:
    """Read one source and profile it.

    Args:
        source: the manifest entry.
        copies: the folder of the engine copies (a run's ``inputs/``, see
            :func:`~pipeline.sources.engine_copy.copies_folder`); ``None``: a temporary folder removed when
            the process ends (:func:`~pipeline.sources.engine_copy.scratch_folder`), never one beside the input.
        profile: for profiling only (``kgc map``): a CSV file above
            :data:`~pipeline.sources.columns.PROFILE_RECORDS` records is held as its systematic sample
            and each column's value counts, not its cells (:mod:`pipeline.sources.columns`).
    Returns:
        The :class:`SourceData`, its ``path`` the file the engine reads; unreadable content becomes
        findings, not exceptions. A finding of stage ``source`` and severity ``error`` means the
        file cannot be mapped (not UTF-8, not well-formed, an unclosed CSV quote, an external XML
        entity, no records); :func:`require_readable` turns those into one :class:`~pipeline.errors.InputError`.
    """
    if source.members:  # a folder of files: one combined copy stands in (pipeline.sources.folders)
        combined = folder_copy(source, copies)
        if combined.path is None:
            return SourceData(source, source.path, source.iterator, findings=combined.findings)
        data = _as_user_file(load_source(dataclasses.replace(source, path=combined.path, members=(),
                                                             iterator=combined.iterator), copies, profile),
                             source, combined.path)
        data.findings[:0] = combined.findings
        if combined.places is not None and _counted(data) == len(combined.places):
            data.places = combined.places
        return data
    packed = compression_of(source.path)
    if packed is not None:  # the engine and the profilers read plain files: a decompressed copy stands in
        try:
            plain, note = decoded_copy(source.path, packed, None, copies)
        except InputError as exc:
            return SourceData(source, source.path, source.iterator,
                              findings=[Finding("source", str(source.path), str(exc).split(": ", 1)[-1],
                                                expected=f"a readable {packed}-compressed {source.format} file")])
        data = _as_user_file(load_source(dataclasses.replace(source, path=plain), copies, profile), source, plain)
        data.findings.insert(0, note)
        return data
    if source.format == "json" and is_json_lines(source.path):  # records one a line: a JSON array stands in
        try:
            plain, note, lines = json_lines_copy(source.path, copies)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            return SourceData(source, source.path, source.iterator, findings=[read_error(source.path, "json", exc)])
        try:
            data = load_json(dataclasses.replace(source, path=plain), EngineCopy(plain, copies), lines)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            return SourceData(source, source.path, source.iterator, findings=[read_error(source.path, "json", exc)])
        data = _as_user_file(data, source, plain)
        data.findings.insert(0, note)
        data.findings.extend(filter(None, [c1_controls(source.path)]))
        return data
    copy = EngineCopy(source.path, copies)
    try:
        if source.format == "csv":
            data = load_csv(source, copy, profile)
        elif source.format == "json":
            data = load_json(source, copy)
        else:
            data = load_xml(source, copy)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        return SourceData(source, source.path, source.iterator, findings=[read_error(source.path, source.format, exc)])
    data.findings.extend(filter(None, [c1_controls(source.path)]))
    return data


def load_sources(sources, copies: Path | None = None, profile: bool = False) -> list[SourceData]:
    """Read a case's sources (:func:`load_source` each, arguments as there), the JSON files of one kind
    listed one by one read as a folder of them is: a file of one document is one record
    (:func:`pipeline.sources.same_kind.documents`).

    Args:
        sources: the manifest's sources, in order.
    Returns:
        One :class:`SourceData` per source, in order.
    """
    loaded = [load_source(s, copies, profile) for s in sources]
    return documents(loaded, lambda data, iterator: load_source(dataclasses.replace(data.source, iterator=iterator),
                                                                copies, profile))


def _counted(data: SourceData) -> int | None:
    """The number of records of ``data`` in iterator order, or ``None`` when it holds a sample of them
    (a large CSV profiled, :mod:`pipeline.sources.columns`)."""
    if isinstance(data.records, ColumnRecords):
        n = len(data.records)  # reads the file, which sets the step
        return n if data.records.step == 1 else None
    return len(data.records)


def _as_user_file(data: SourceData, source: Source, stand_in: Path) -> SourceData:
    """``data``, loaded from ``stand_in`` (a decompressed copy, a JSON array of a JSON Lines file's
    values), as the user's ``source``: the manifest entry itself (names, stems, the file findings
    name), the engine still reading ``data.path``. A finding on the stand-in names the user's file
    instead: the stand-in is an internal copy, possibly in a folder gone when the command ends."""
    data.source = source
    data.findings = [dataclasses.replace(f, file=str(source.path),
                                         message=f.message.replace(str(stand_in), str(source.path)))
                     if f.file == str(stand_in) else f for f in data.findings]
    return data
