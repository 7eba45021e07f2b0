"""Envelopes: JSON members whose value is wrapped in an object beside metadata of how it was obtained.

Extraction tools and APIs often wrap every field of a record in an object of one shape: the outer
key names the field, one member holds its value, the others describe the value's provenance
(SOMEF: ``"name": {"excerpt": "morph-kgc", "confidence": [1.0], "technique": "GitHub API"}``, or a
list of such objects per field; likewise ``{value, unit, source}`` or ``{data, meta}``). Read as
nested objects, each field becomes an entity of its own and its value a member nobody names
(``excerpt``); read as one array of records, the file's first field is taken for its records.

The evidence is the data's own, never the member names: a record (or the records of a file) has
several members, at least half of all its members, whose values are objects or lists of objects
that all hold one set of member names. Of that set, the *value* member is the one whose values
differ in kind from field to field (a text here, a date, an IRI, a list, an object there: the
fields say different things), the *metadata* members are those whose values are a small closed
set repeated across fields (``"GitHub API"``, ``[1.0]``). The wrapped value must show both: one value
member, every other shared member metadata, else the objects are no envelopes. A list of people
in several members (``authors``, ``editors``: ``{name, role}``) is none: every ``name`` is a text,
one kind, so nothing shows that the outer keys name different fields.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["Envelopes", "find_envelopes", "MIN_FIELDS"]

#: Fewest members of a record wrapped alike for the shape to be evidence (two may share a shape by chance).
MIN_FIELDS = 3

_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")
_DATE = re.compile(r"[12]\d{3}-\d{2}-\d{2}([T ]\d{2}:\d{2}.*)?")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?([eE][+-]?\d+)?")


@dataclass(frozen=True)
class Envelopes:
    """The wrapped members of a file's records.

    Attributes:
        fields: the record's members whose value is an envelope or a list of envelopes, in document
            order (``name``, ``description``, ``releases``).
        value: the member of an envelope that holds the field's value (``excerpt``).
        metadata: the members shared by every envelope besides the value (``confidence``, ``technique``).
        extra: members some envelopes hold beside those (``originalHeader``): no value of the field.
    """

    fields: tuple[str, ...]
    value: str
    metadata: tuple[str, ...]
    extra: tuple[str, ...] = ()


def _kind(v) -> str:
    """The kind of a JSON value: ``object``, ``array``, ``boolean``, ``number``, or a string's lexical
    kind (``iri``, ``date``, ``number``, ``text``); ``null`` for None."""
    if v is None:
        return "null"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, bool):
        return "boolean"
    if not isinstance(v, str):
        return "number"
    s = v.strip()
    if _IRI.fullmatch(s):
        return "iri"
    if _DATE.fullmatch(s):
        return "date"
    if _NUMBER.fullmatch(s):
        return "number"
    return "text"


def _objects(v) -> list[dict] | None:
    """The objects a member's value wraps: the object itself, or every item of a non-empty list of
    objects; ``None`` for any other value."""
    if isinstance(v, dict) and v:
        return [v]
    if isinstance(v, list) and v and all(isinstance(x, dict) and x for x in v):
        return v
    return None


def find_envelopes(records: list) -> Envelopes | None:
    """The envelopes of ``records`` (see the module docstring), or ``None`` when they have none.

    Args:
        records: the JSON records (objects; other items are skipped), as an iterator selects them.
    Returns:
        :class:`Envelopes` when at least :data:`MIN_FIELDS` members, and at least half of all the
        records' members, hold objects sharing one set of two or more member names, exactly one of
        which takes values of two or more kinds across those members, distinct in more than half of
        them, and every other of which takes at most half as many distinct values as there are such
        members, one of them in two members or more.
    """
    per_field: dict[str, list[dict]] = {}
    names: list[str] = []
    for rec in records:
        if not isinstance(rec, dict):
            continue
        for k, v in rec.items():
            if k not in names:
                names.append(k)
            objs = _objects(v)
            if objs is not None:
                per_field.setdefault(k, []).extend(objs)
            elif v is not None:
                per_field.setdefault(k, []).append({})  # a plain value somewhere: this member wraps nothing
    shared = {k: set.intersection(*(set(o) for o in objs)) for k, objs in per_field.items()}
    shared = {k: s for k, s in shared.items() if s}
    if len(shared) < MIN_FIELDS:
        return None
    held = Counter(n for s in shared.values() for n in s)
    # the common shape: the member names most wrapped fields hold in every object
    common = {n for n, c in held.items() if c * 2 > len(shared)}
    fields = [k for k in names if k in shared and common <= shared[k]]
    if len(common) < 2 or len(fields) < MIN_FIELDS or len(fields) * 2 < len(names):
        return None
    value, metadata = [], []
    for n in sorted(common):
        kinds = {_kind(o[n]) for k in fields for o in per_field[k]}
        by_field = {k: {json.dumps(o[n], sort_keys=True, default=str) for o in per_field[k]} for k in fields}
        distinct = set().union(*by_field.values())
        spread = Counter(v for vals in by_field.values() for v in vals)
        if len(kinds) >= 2 and len(distinct) * 2 > len(fields):
            value.append(n)
        elif len(distinct) * 2 <= len(fields) and spread.most_common(1)[0][1] >= 2:
            metadata.append(n)
        else:
            return None  # a member that is neither: the objects are things of their own
    if len(value) != 1:
        return None
    extra = sorted({n for k in fields for o in per_field[k] for n in o} - common)
    return Envelopes(tuple(fields), value[0], tuple(metadata), tuple(extra))
