"""Every reference a mapping row holds, rewritten by one function.

A mapper that maps a source through another view of it (the kinds of an XML container,
:mod:`.containers`; the unwrapped fields of a JSON file of envelopes, :mod:`.envelopes`) writes its rows
on the file as the manifest names it: the data reference (a ``concat`` argument, an IRI template's
placeholders), the subject template's placeholders, a language tag's reference and both sides of a
join condition each become the reference the file itself holds.
"""
from __future__ import annotations

import re
from typing import Callable

from pipeline.table import MappingRow

__all__ = ["rewrite_references"]

_PLACEHOLDER = re.compile(r"(?<!\\)\{([^{}]*)\}")
#: one side of an equality of a join condition (``a.x==b.y``, ``x=x``; separated by ``,``/``and``/``or``)
_JOIN_SIDE = re.compile(r"[^\s=,()]+(?=\s*==?)|(?<===)\s*[^\s=,()]+|(?<==)\s*[^\s=,()]+")


def rewrite_references(row: MappingRow, ref: Callable[[str], str], side: Callable[[str], str]) -> None:
    """Rewrite, in place, every reference of ``row`` with ``ref`` and every side of its join condition
    with ``side``.

    Args:
        row: one row of the table.
        ref: a reference of the row's own source (``SOLOPStart/@Value``, ``name``) -> the file's.
        side: one side of an equality as written in the Join Condition cell (``routes.agency_id``,
            ``@id``; surrounding white space included) -> the file's.
    """
    if row.data_reference:
        m = re.fullmatch(r"concat\((.*)\)", row.data_reference)
        if m:  # a quoted argument of concat is a constant, no reference
            args = [a.strip() for a in m.group(1).split(",")]
            row.data_reference = "concat(" + ",".join(a if a[:1] in "'\"" else ref(a) for a in args) + ")"
        elif (row.datatype or "").upper() == "IRI" and "{" in row.data_reference:  # an IRI template (.iris)
            row.data_reference = _PLACEHOLDER.sub(lambda m: "{" + ref(m.group(1)) + "}", row.data_reference)
        else:
            row.data_reference = ref(row.data_reference)
    if row.subject_template:
        row.subject_template = _PLACEHOLDER.sub(lambda m: "{" + ref(m.group(1)) + "}", row.subject_template)
    if row.language_tag and row.language_tag.startswith("{"):
        row.language_tag = _PLACEHOLDER.sub(lambda m: "{" + ref(m.group(1)) + "}", row.language_tag)
    if row.join_condition:
        row.join_condition = _JOIN_SIDE.sub(lambda m: side(m.group(0)), row.join_condition)
