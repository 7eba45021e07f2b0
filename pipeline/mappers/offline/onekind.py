"""Sources the manifest lists one by one that are of one kind: profiled together, mapped by one set of rows.

Eight advisories, one document per file, listed one by one, are one kind of record
(:mod:`pipeline.sources.same_kind`: same format, same shape). Mapped file by file, each file's evidence
is its own few records: the files get different classes and properties, a document's values are judged
on one document, and the work is repeated per file. A person writes one mapping for them, as RML's one
logical source maps every record with the same term maps.

The mapper reads such a group as a folder source of its files (:func:`merge`: the union of their
records, each file's records found as :mod:`pipeline.sources.folders` finds them, a file of one
document being one record), maps it once under one name, and writes every row of it for each listed
file (:func:`spread`: the row's Source File the file's name, a join side naming the group the file's
stem), so the files get the same rows. Files of one kind named by language (``thesaurus-en-...``,
``thesaurus-fr-...``: :func:`.language.file_languages`) stay apart: each file's texts take its own
language tag, which is a row of its own.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.mappers.offline.language import file_languages
from pipeline.mappers.offline.references import rewrite_references
from pipeline.sources.load import SourceData, load_source
from pipeline.sources.same_kind import same_kind_groups
from pipeline.table import MappingRow

__all__ = ["Group", "merge", "spread"]


@dataclass(frozen=True)
class Group:
    """Listed sources of one kind, mapped as one.

    Attributes:
        name: the name the group is mapped under (``icsa.json``: the words the files' names share).
        members: the listed sources' names (the table's Source File), in manifest order.
        stems: their stems (as join conditions name them), in the same order.
    """

    name: str
    members: tuple[str, ...]
    stems: tuple[str, ...]

    @property
    def stem(self) -> str:
        """The group's name without its suffix."""
        return Path(self.name).stem


def _name(datas: list[SourceData], taken: set[str], folder: Path) -> str:
    """The group's name: the leading words its files' stems share, numbers dropped (``icsa-23-010-01``,
    ``icsa-23-012-02`` -> ``icsa``), with the format's suffix; when they share none, the name of the
    ``folder`` holding them all if the first file's stem has no letter and the folder's has
    (``loans/2025-01.csv``, ``loans/2025-02.csv`` -> ``loans``, as the folder source ``path: loans/`` is
    named: a name of numbers says nothing of the records, and the name is class evidence), else the first
    file's stem; ``-files`` added when the name is a listed source's."""
    tokens = [re.split(r"[-_. ]+", d.source.stem) for d in datas]
    shared = []
    for parts in zip(*tokens):
        if len(set(parts)) != 1:
            break
        shared.append(parts[0])
    while shared and not re.search(r"[A-Za-z]", shared[-1]):
        shared.pop()
    first = datas[0].source.stem
    wordless = not re.search(r"[A-Za-z]", first) and re.search(r"[A-Za-z]", folder.name)
    stem = "-".join(shared) or (folder.name if wordless else first)
    suffix = Path(datas[0].source.name or datas[0].source.path.name).suffix or f".{datas[0].source.format}"
    name = f"{stem}{suffix}"
    return name if name not in taken else f"{stem}-files{suffix}"


def merge(sources: list[SourceData], taken: set[str]) -> tuple[list[SourceData], list[Group], list[Finding]]:
    """Replace each group of listed sources of one kind by one source reading them all.

    Args:
        sources: the case's loaded sources, in manifest order.
        taken: the names of the case's sources.
    Returns:
        ``(sources, groups, notes)``: the sources to map (a group's source in place of its first file, the
        others left out), the groups, and an ``info`` finding per group naming its files. A group whose
        files cannot be read as one (:func:`pipeline.sources.folders.folder_copy` refuses them: XML, records
        of two kinds) stays apart.
    """
    out: list[SourceData | None] = list(sources)
    groups, notes = [], []
    for positions in same_kind_groups(sources):
        datas = [sources[i] for i in positions]
        names = [d.source.name or d.source.path.name for d in datas]
        if datas[0].source.format == "xml" or len({d.source.stem for d in datas}) < len(datas):
            continue  # no folder source of XML files; a join names a source by its stem
        if file_languages([(n, d.references) for n, d in zip(names, datas)]):
            continue  # one file per language: each file's texts take its own tag (language.py)
        folder = Path(os.path.commonpath([str(d.source.path.parent) for d in datas]))
        name = _name(datas, taken, folder)
        src = Source(folder, datas[0].source.format, datas[0].source.iterator, name,
                     tuple(d.source.path for d in datas))
        merged = load_source(src)
        if any(f.severity == "error" for f in merged.findings) or not merged.records:
            continue
        taken.add(name)
        group = Group(name, tuple(names), tuple(d.source.stem for d in datas))
        groups.append(group)
        out[positions[0]] = merged
        for i in positions[1:]:
            out[i] = None
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        notes.append(Finding("map", str(folder), f"{len(names)} sources of one kind ({shown}: one format, "
                             f"one shape) read as one kind {name}: their {len(merged.records)} records "
                             "profiled together and one set of rows proposed, written for each of them",
                             column="source_file", value=name, severity="info"))
    return [d for d in out if d is not None], groups, notes


def spread(rows: list[MappingRow], groups: list[Group]) -> list[MappingRow]:
    """The rows with every row of a group (Source File the group's name), and every row whose join
    condition names the group, written once per file of the group.

    Args:
        rows: the table's rows.
        groups: from :func:`merge`.
    Returns:
        A new list of rows (rows of no group are the same objects), each group's rows in file order.
    """
    for group in groups:
        head = re.compile(rf"^(\s*){re.escape(group.stem)}\.")  # a side naming the group (`icsa.id`)
        named = re.compile(rf"(?<![^\s=,(]){re.escape(group.stem)}\.")
        out = []
        for row in rows:
            own = row.source_file == group.name
            joined = bool(row.join_condition) and named.search(row.join_condition) is not None
            if not own and not joined:
                out.append(row)
                continue
            for member, stem in zip(group.members, group.stems):
                twin = dataclasses.replace(row, evidence=list(row.evidence))
                if own:
                    twin.source_file = member
                    twin.evidence.append(f"one kind: {member} is one of {len(group.members)} listed sources of one "
                                         f"shape mapped as {group.name}")
                rewrite_references(twin, lambda r: r, lambda t, s=stem: head.sub(lambda m: f"{m.group(1)}{s}.", t))
                out.append(twin)
        rows = out
    return rows

