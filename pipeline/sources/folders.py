"""A folder source: the files of a folder (``path: records/``) or of a glob (``path: records/*.json``)
read as one logical source, as an export of one record per file is written.

RML-IO's ``rml:source`` names one file and has no glob, so the engine reads one combined copy,
written beside the other engine copies (:mod:`pipeline.sources.engine_copy`) under
``folder-sources/``, and the mapping names that copy; an ``info`` finding says so. The files are
taken in the sorted order of their paths.

* JSON: without an iterator, a file holding an array gives its items as records and a file holding
  another value gives that value (a JSON Lines file, ``.jsonl``, each line's value); the copy is the
  array of them all. With an iterator (``$.items[*]``, the records inside each file), the copy is
  the array of the files' documents and the iterator is read inside each one (``$[*].items[*]``).
* CSV: every file has the same header (names and order); the copy is that header and every file's
  rows, comma-separated UTF-8.

A file that cannot be read gives an ``error`` finding naming that file, its line and column, so
the command stops with exit 2 (:func:`pipeline.sources.load.require_readable`).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.sources import json_numbers
from pipeline.sources.checks import read_error
from pipeline.sources.engine_copy import EngineCopy, csv_dialect, is_json_lines, parse_json_lines, scratch_folder

__all__ = ["folder_copy", "SUBFOLDER"]

#: The subfolder of the copies folder that holds the combined copies (no input's copy has its name).
SUBFOLDER = "folder-sources"


def folder_copy(source: Source, copies: Path | None) -> tuple[Path | None, list[Finding], str | None]:
    """Write the combined copy of a folder source.

    Args:
        source: a manifest source with ``members`` (:func:`pipeline.manifest.load_manifest`).
        copies: the folder of the engine copies (``None``: a temporary one, as
            :class:`~pipeline.sources.engine_copy.EngineCopy` takes it).
    Returns:
        ``(copy, findings, iterator)``: the combined file (``None`` when a file cannot be read), an
        ``info`` finding naming the copy or one ``error`` finding per unreadable file (its line, and
        its column in the message), and the iterator to read the copy with (``None``: detected).
    """
    digest = hashlib.sha1(str(source.path).encode("utf-8")).hexdigest()[:8]
    suffix = ".json" if source.format == "json" else ".csv"
    base = Path(copies) if copies is not None else scratch_folder(source.path)
    copy = EngineCopy(source.path, base / SUBFOLDER, f"{Path(source.name).stem}.{digest}{suffix}")
    if source.format == "json":
        content, findings, count = _json(source)
        iterator = "$[*]" + source.iterator[1:] if source.iterator and source.iterator.startswith("$") \
            else source.iterator
    else:
        content, findings, count = _csv(source)
        iterator = None
    if content is None:
        return None, findings, None
    target = copy.write(content)
    shown = ", ".join(p.name for p in source.members[:2]) + (" ..." if len(source.members) > 2 else "")
    return target, [Finding("source", str(source.path), f"folder source: {len(source.members)} file(s) ({shown}), "
                            f"{count} record(s); the engine reads them combined in one file: {target}",
                            expected=f"{source.format} files", severity="info")], iterator


def _json(source: Source) -> tuple[str | None, list[Finding], int]:
    """The combined JSON text (None on an unreadable file), the error findings, the record count."""
    out: list = []
    errors = []
    for member in source.members:
        try:
            text = member.read_text(encoding="utf-8-sig")
            values = parse_json_lines(text) if is_json_lines(member) else [json_numbers.loads(text)]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            errors.append(read_error(member, "json", exc))
            continue
        for value in values:
            if isinstance(value, list) and not source.iterator and not is_json_lines(member):
                out.extend(value)
            else:
                out.append(value)
    if errors:
        return None, errors, 0
    return json_numbers.dumps(out, ensure_ascii=False), [], len(out)


def _csv(source: Source) -> tuple[str | None, list[Finding], int]:
    """The combined CSV text (None on an unreadable file or another header), the error findings, the row count."""
    header, rows, errors = None, [], []
    for member in source.members:
        try:
            delimiter, _ = csv_dialect(member)
            with member.open(encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, delimiter=delimiter)
                first = next(reader, None)
                body = list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            errors.append(read_error(member, "csv", exc))
            continue
        if first is None:
            continue  # an empty file adds no row
        if header is None:
            header = first
        elif first != header:
            errors.append(Finding("source", str(member), f"header {','.join(first)!r} differs from the header of "
                                  f"{source.members[0].name} ({','.join(header)!r}); the files of a folder source "
                                  "share one header", line=1, expected=",".join(header)))
            continue
        rows.extend(body)
    if errors:
        return None, errors, 0
    if header is None:
        return "", [], 0
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue(), [], len(rows)
