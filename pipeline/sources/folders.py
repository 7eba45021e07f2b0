"""A folder source: the files of a folder (``path: records/``) or of a glob (``path: records/*.json``)
read as one logical source, as an export of one record per file is written.

RML-IO's ``rml:source`` names one file and has no glob, so the engine reads one combined copy,
written beside the other engine copies (:mod:`pipeline.sources.engine_copy`) under
``folder-sources/``, and the mapping names that copy; an ``info`` finding says so. The files are
taken in the sorted order of their paths.

* JSON: without an iterator, each file's records are found where the file alone, as a source of its
  own, has them (:func:`pipeline.sources.tree.json_records_path`), when that leaves no value of the
  file unread: an array's items, the records inside an object holding nothing else (a wrapper,
  ``{"people": [...]}``), else the document as one record (``{"id": 1, "performers": [...]}``: its
  list stays addressable); a JSON Lines file (``.jsonl``), each line's value; a file of no record
  (``[]``, ``{}``, ``{"people": []}``, the last page of a paged export) none. The copy is the array
  of them all. Files whose records are found at different places are read so only when their
  records hold mostly the same member names (at least half of the names of the file with fewer: one
  kind of record, as RML's one logical source maps every record with the same term maps); else the
  first file of the other kind is named, exit 2.
  With an iterator (``$.items[*]``, the records inside each file), the copy is the array of the
  files' documents and the iterator is read inside each one (``$[*].items[*]``).
* CSV: every file has the same columns (names; the order may differ: RML and the mapping table
  reference a column by name); the copy is the first file's header and every file's rows, their cells
  in that header's order, comma-separated UTF-8.

The copy knows where each record came from (:attr:`FolderCopy.places`: ``line 3 of b.csv``,
``record 2 of b.json``), which :meth:`pipeline.sources.model.SourceData.record_places` names; a
file beside it lists the files it was written from (:func:`folder_members`), where the
materialize stage looks up a dropped value (:mod:`pipeline.materialize.data_errors`).
A file that cannot be read gives an ``error`` finding naming that file, its line and column, so
the command stops with exit 2 (:func:`pipeline.sources.load.require_readable`).
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import re
from pathlib import Path
from typing import NamedTuple

from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext import parse as jp_parse

from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.sources import json_numbers
from pipeline.sources.checks import json_top_level, read_error
from pipeline.sources.engine_copy import EngineCopy, csv_dialect, original_of, is_json_lines, parse_json_lines, scratch_folder
from pipeline.sources.tree import json_records_path

__all__ = ["folder_copy", "is_wrapper", "folder_members", "shown_source", "folder_source_name", "FolderCopy", "SUBFOLDER", "SIDECAR_SUFFIX"]

#: The subfolder of the copies folder that holds the combined copies (no input's copy has its name).
SUBFOLDER = "folder-sources"
#: Appended to a combined copy's name, the file listing the files it was written from (:func:`folder_members`).
SIDECAR_SUFFIX = ".files.json"


class FolderCopy(NamedTuple):
    """The combined copy of a folder source (:func:`folder_copy`).

    Attributes:
        path: the combined file (``None`` when a file cannot be read or the files disagree).
        findings: an ``info`` finding naming the copy, or the ``error`` findings (one per file).
        iterator: the iterator to read the copy with (``None``: detected).
        places: where each record the copy's iterator selects is in the user's files, in order
            (``line 3 of b.csv``, ``line 4 of c.jsonl``, ``record 2 of b.json``: the file's records
            numbered from 1 as the file alone would have them); records that are no JSON object
            (which the reader leaves out) have none. ``None`` when not known.
    """

    path: Path | None
    findings: list[Finding]
    iterator: str | None
    places: list[str] | None = None


def folder_copy(source: Source, copies: Path | None) -> FolderCopy:
    """Write the combined copy of a folder source.

    Args:
        source: a manifest source with ``members`` (:func:`pipeline.manifest.load_manifest`).
        copies: the folder of the engine copies (``None``: a temporary one, as
            :class:`~pipeline.sources.engine_copy.EngineCopy` takes it).
    Returns:
        The :class:`FolderCopy`; on unreadable files or JSON files holding records of different
        kinds its ``path`` is ``None`` and its findings are ``error`` findings naming the files
        (their line, and the column in the message).
    """
    digest = hashlib.sha1(str(source.path).encode("utf-8")).hexdigest()[:8]
    suffix = ".json" if source.format == "json" else ".csv"
    base = Path(copies) if copies is not None else scratch_folder(source.path)
    copy = EngineCopy(source.path, base / SUBFOLDER, f"{Path(source.name).stem}.{digest}{suffix}")
    if source.format == "json":
        content, findings, count, places, where = _json(source)
        iterator = "$[*]" + source.iterator[1:] if source.iterator and source.iterator.startswith("$") \
            else source.iterator
    else:
        content, findings, places = _csv(source)
        iterator, where, count = None, "", len(places or ())
    if content is None:
        return FolderCopy(None, findings, None)
    target = copy.write(content)
    _sidecar(target).write_text(json.dumps({"files": [str(m) for m in source.members]}, ensure_ascii=False),
                                encoding="utf-8")
    shown = ", ".join(p.name for p in source.members[:2]) + (" ..." if len(source.members) > 2 else "")
    return FolderCopy(target, [Finding("source", str(source.path), f"folder source: {len(source.members)} file(s) "
                                       f"({shown}), {count} record(s){where}; the engine reads them combined in one "
                                       f"file: {target}", expected=f"{source.format} files", severity="info")],
                      iterator, places)


def _sidecar(copy: Path) -> Path:
    """The file beside a combined copy that lists the files it was written from."""
    return copy.with_name(copy.name + SIDECAR_SUFFIX)


def folder_members(path: str | Path) -> list[Path] | None:
    """The files (absolute paths, in the copy's order) the combined copy ``path`` was written from, as
    its sidecar lists them (``records.1a2b3c4d.json.files.json``), so that a finding on a value the
    engine read from the copy can name the user's file it is in; ``None`` for any other file."""
    try:
        listed = json.loads(_sidecar(Path(path)).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [Path(f) for f in listed] if isinstance(listed, list) else None


def folder_source_name(path: str | Path) -> str | None:
    """The folder the combined copy ``path`` was written from, as a message names it to the user
    (``/data/records/ (folder source of 3 files)``: the copy in ``folder-sources/`` is kgc's, not the
    user's); ``None`` for any other file."""
    members = folder_members(path)
    if not members:
        return None
    folder = Path(os.path.commonpath([str(m.parent) for m in members]))
    return f"{folder}/ (folder source of {len(members)} file{'s' if len(members) != 1 else ''})"


def shown_source(path: str | Path) -> str:
    """A source file as a message names it to the user: :func:`folder_source_name` for a combined copy,
    else the file name of the user's file the engine read a copy of
    (:func:`~pipeline.sources.engine_copy.original_of`), or ``path``'s."""
    return folder_source_name(path) or original_of(str(path)).name


def _named(member: Path, source: Source) -> str:
    """A file of a folder source as a message names it: its path under the folder (``b.csv``,
    ``2024/b.csv`` of a glob ``records/**/*.csv``)."""
    try:
        return member.relative_to(source.path).as_posix()
    except ValueError:
        return member.name


def _parsed(source: Source) -> tuple[list[tuple[Path, list, list[int] | None]], list[Finding]]:
    """Each member's JSON values (a JSON Lines file: its lines' values and their lines; else its one
    document and ``None``), and one error finding per member that does not parse."""
    parsed, errors = [], []
    for member in source.members:
        try:
            text = member.read_text(encoding="utf-8-sig")
            if is_json_lines(member):
                values = parse_json_lines(text)
                lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
            else:
                values, lines = [json_numbers.loads(text)], None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            errors.append(read_error(member, "json", exc))
            continue
        parsed.append((member, values, lines))
    return parsed, errors


def _json(source: Source) -> tuple[str | None, list[Finding], int, list[str] | None, str]:
    """The combined JSON text (None on an unreadable file or files of two kinds of record), the error
    findings, the record count, the places of the records, and where the records were found (for
    the info line)."""
    parsed, errors = _parsed(source)
    if errors:
        return None, errors, 0, None, ""
    if source.iterator:
        return _documents(source, parsed)
    # each file's records where the file alone has them: (file, iterator, records, places)
    found: list[tuple[Path, str, list, list[str]]] = []
    for member, values, lines in parsed:
        name = _named(member, source)
        if lines is not None:
            found.append((member, "$[*]", values, [f"line {n} of {name}" for n in lines]))
            continue
        top = json_top_level(dataclasses.replace(source, path=member, members=(), iterator=None), values[0])
        if top is not None and top.severity == "error":
            errors.append(top)
            continue
        if top is not None or _emptied(values[0]):  # [], {}, {"people": []}: a file of no record adds none
            continue
        iterator, records = json_records_path(values[0])
        if not is_wrapper(values[0], iterator):  # members beside the records: the document is one record
            iterator, records = "$", [values[0]]
        found.append((member, iterator, records, [f"record {k} of {name}" for k in range(1, len(records) + 1)]))
    if errors:
        return None, errors, 0, None, ""
    readings: dict[str, list[tuple[Path, str, list, list[str]]]] = {}
    for item in found:  # an array of records and one record are both the document's own records
        readings.setdefault("$" if item[1] in ("$", "$[*]") else item[1], []).append(item)
    kinds = list(readings.items())
    if len(kinds) > 1:
        first, names = kinds[0][1][0], _names(kinds[0][1])
        for at, files in kinds[1:]:
            other = _names(files)
            shared = names & other
            if not shared or 2 * len(shared) < min(len(names), len(other)):
                return None, [_other_kind(files[0][0], at, other, first[0], kinds[0][0], names)], 0, None, ""
    out = [r for _, _, records, _ in found for r in records]
    places = [p for _, _, records, at in found for r, p in zip(records, at) if isinstance(r, dict)]
    where = ""
    if kinds and (len(kinds) > 1 or kinds[0][0] != "$"):
        where = " (" + "; ".join(
            ("each document" if at == "$" else f"at {at!r}") + f" in {files[0][0].name}"
            + (f" and {len(files) - 1} more file(s)" if len(files) > 1 else "") for at, files in kinds) + ")"
    return json_numbers.dumps(out, ensure_ascii=False), [], len(out), places, where


def is_wrapper(document, iterator: str) -> bool:
    """Whether ``document`` holds nothing but the path to the records ``iterator`` selects in it
    (``{"people": [...]}``, ``{"data": {"items": [...]}}``): read so, its records leave no value of the
    file unread. An array (``$[*]``) is its records. A document with members beside the records
    (``{"id": 1, "title": ..., "performers": [...]}``, one record holding a list) is not: read as the
    records of its list, every other member would be dropped, while read as one record its list stays
    addressable (``performers.name``)."""
    if iterator == "$[*]":
        return True
    if not re.fullmatch(r"\$(\.[^.\[\]*?]+)+\[\*\]", iterator):
        return False
    node = document
    for step in iterator[2:-3].split("."):
        if not isinstance(node, dict) or list(node) != [step]:
            return False
        node = node[step]
    return True


def _emptied(document) -> bool:
    """Whether ``document`` is a wrapper whose array of records is empty (``{"people": []}``, the
    last page of a paged export): objects of one member each down to an empty array."""
    while isinstance(document, dict) and len(document) == 1:
        document = next(iter(document.values()))
    return document == []


def _reading(iterator: str) -> str:
    """How a file's records were found, for a message: ``the document`` or ``'$.people[*]'``."""
    return "the document" if iterator == "$" else repr(iterator)


def _names(files: list[tuple[Path, str, list, list[str]]]) -> set[str]:
    """The member names of the object records of ``files``."""
    return {k for _, _, records, _ in files for r in records if isinstance(r, dict) for k in r}


def _other_kind(member: Path, at: str, names: set[str], first: Path, first_at: str, first_names: set[str]) -> Finding:
    """The error for a JSON file of a folder source whose records are of another kind than the first file's."""
    def shown(keys: set[str]) -> str:
        ordered = sorted(keys)
        return ", ".join(ordered[:4]) + (", ..." if len(ordered) > 4 else "") if ordered else "none"
    return Finding("source", str(member), f"the records of {member.name} ({_reading(at)}, members {shown(names)}) are "
                   f"not of the kind of those of {first.name} ({_reading(first_at)}, members {shown(first_names)}): "
                   "the files of a folder source are one logical source, each of its records mapped alike; set "
                   "the iterator that selects the records in every file (iterator: \"$\" reads each file's "
                   "document as one record), or list these files as a source of their own",
                   column="iterator", value=at, expected=f"records found where those of {first.name} are")


def _documents(source: Source, parsed: list[tuple[Path, list, list[int] | None]]
               ) -> tuple[str, list[Finding], int, list[str] | None, str]:
    """The combined JSON text of the files' documents (a JSON Lines file: its lines' values) for the
    manifest's iterator, read inside each, and where the records it selects are."""
    out, places, count = [], [], 0
    try:
        selector = jp_parse(source.iterator) if source.iterator.startswith("$") else None
    except (JSONPathError, ValueError):
        selector = None
    for member, values, lines in parsed:
        out.extend(values)
        if selector is None:
            continue
        k = 0
        for n, value in zip(lines or [None] * len(values), values):
            for match in selector.find(value):
                k += 1
                count += 1
                if isinstance(match.value, dict):
                    name = _named(member, source)
                    places.append(f"line {n} of {name}" if n is not None else f"record {k} of {name}")
    return json_numbers.dumps(out, ensure_ascii=False), [], count if selector is not None else len(out), \
        places if selector is not None else None, ""


def _csv(source: Source) -> tuple[str | None, list[Finding], list[str] | None]:
    """The combined CSV text (None on an unreadable file or other columns), the error findings, the
    places of the rows (``line 3 of b.csv``, the line each row starts on)."""
    header, first_file, rows, places, errors = None, None, [], [], []
    for member in source.members:
        try:
            delimiter, _ = csv_dialect(member)
            with member.open(encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, delimiter=delimiter)
                first = next(reader, None)
                body, starts, end = [], [], reader.line_num
                for row in reader:
                    if row:  # a blank line is no record
                        body.append(row)
                        starts.append(end + 1)
                    end = reader.line_num
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            errors.append(read_error(member, "csv", exc))
            continue
        if first is None:
            continue  # an empty file adds no row
        if header is None:
            header, first_file = first, member
        elif first != header:
            order = _order(first, header)
            if order is None:
                errors.append(_other_columns(member, first, first_file, header))
                continue
            body = [[row[i] if i < len(row) else "" for i in order] + row[len(first):] for row in body]
        rows.extend(body)
        places.extend(f"line {n} of {_named(member, source)}" for n in starts)
    if errors:
        return None, errors, None
    if header is None:
        return "", [], []
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue(), [], places


def _order(names: list[str], header: list[str]) -> list[int] | None:
    """The position in ``names`` of each column of ``header``, when both name the same columns once
    each (in another order); else ``None``."""
    if len(set(names)) != len(names) or len(set(header)) != len(header) or set(names) != set(header):
        return None
    return [names.index(h) for h in header]


def _other_columns(member: Path, names: list[str], first: Path, header: list[str]) -> Finding:
    """The error for a CSV file of a folder source whose columns are not those of the first file."""
    extra = [n for n in names if n not in header]
    missing = [h for h in header if h not in names]
    twice = sorted({n for n in names if names.count(n) > 1} | {h for h in header if header.count(h) > 1})
    why = "; ".join(filter(None, [f"{', '.join(map(repr, extra))} not in {first.name}" if extra else "",
                                  f"no {', '.join(map(repr, missing))}" if missing else "",
                                  f"{', '.join(map(repr, twice))} named twice" if twice else ""]))
    return Finding("source", str(member), f"header {','.join(names)!r} differs from the header of {first.name} "
                   f"({','.join(header)!r}: {why}); the files of a folder source share one set of columns (in any "
                   "order)", line=1, expected=",".join(header))
