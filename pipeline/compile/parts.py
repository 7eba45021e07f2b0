"""Repeating parts of a record: a JSON array of objects or an XML element that occurs several times in
one record, and the references that lie in one.

A *part* is named by its path relative to the record, as the table's references name it: ``authors``
for ``authors.name`` (also written ``authors[*].name``) in ``{"isbn": ..., "authors": [{"name": ...}]}``;
``cat:author`` for ``cat:author/cat:name`` or ``cat:author/@id`` under an iterator at ``cat:book``.
Inside a part, a reference names a *member* of one occurrence (``name``; ``cat:name``, ``@id``,
``.`` for the element's own text), and ``<part>.#`` (JSON) or ``<part>/#`` (XML) the position of the
occurrence in its record (0, 1, ...; RML-LV's index of an iterable field). The compiler reads the
references of a part per occurrence through an RML-LV logical view (:mod:`.nesting`).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from jsonpath_ng import parse as jp_parse

from pipeline.sources.load import SourceData

__all__ = ["POSITION", "json_steps", "xml_steps", "repeating_part", "member_of", "is_position", "part_separator"]

#: The last step of a reference to an occurrence's position in its record.
POSITION = "#"
#: one plain element step: a (prefixed) name with optional predicates (``cbc:ID[@schemeName='x']``)
_ELEMENT = re.compile(r"[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?(?:\[[^\]]*\])*")
#: a last step that reads the element it follows: an attribute, its text, the element itself
_LEAF = re.compile(r"@[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?|text\(\)|\.")


def part_separator(src: SourceData) -> str:
    """``/`` between the part and a member for XML, ``.`` for JSON."""
    return "/" if src.source.format == "xml" else "."


def json_steps(ref: str) -> list[str]:
    """The member names of a relative JSON reference (``authors[*].name`` -> ``['authors', 'name']``);
    ``[]`` for any other form (filters, indexes, quoted keys)."""
    ref = re.sub(r"^\$\.?", "", ref).replace("[*]", "")
    steps = ref.split(".") if ref else []
    return steps if steps and all(s and not re.search(r"[\[\]()?@*]", s) for s in steps) else []


def xml_steps(ref: str) -> list[str]:
    """``ref`` split on the ``/`` that separate steps (never one inside a predicate)."""
    return re.split(r"/(?![^\[]*\])", ref)


def element_path(ref: str) -> list[str] | None:
    """The element steps of a relative XPath whose last step may read an attribute, the text or the
    element (``dc:title/@xml:lang`` -> ``['dc:title']``); ``None`` for any other form (absolute, ``..``,
    ``//``, functions, wildcards)."""
    if not ref or ref.startswith("/") or "//" in ref:
        return None
    steps = xml_steps(ref)
    if _LEAF.fullmatch(steps[-1]) or steps[-1] == POSITION:
        steps = steps[:-1]
    return steps if all(_ELEMENT.fullmatch(s) for s in steps) else None


@lru_cache(maxsize=16)
def _json_records(path: str, mtime: float, iterator: str | None) -> tuple:
    """The records of a JSON file under ``iterator`` (``mtime`` keys the cache to the file's state)."""
    with open(path, encoding="utf-8-sig") as fh:
        data = json.load(fh)
    return tuple(m.value for m in jp_parse(iterator or "$").find(data))


def _json_is_list_of_objects(src: SourceData, iterator: str | None, steps: list[str]) -> bool:
    """Whether the member path ``steps`` holds an array of objects in some record of ``src``."""
    try:
        records = _json_records(str(src.path), src.path.stat().st_mtime, iterator)
    except (OSError, ValueError, RecursionError):
        return False
    for rec in records:
        nodes = [rec]
        for s in steps:
            nxt = []
            for n in nodes:
                v = n.get(s) if isinstance(n, dict) else None
                if isinstance(v, list) and s != steps[-1]:
                    nxt.extend(v)
                else:
                    nxt.append(v)
            nodes = nxt
        if any(isinstance(n, list) and any(isinstance(x, dict) for x in n) for n in nodes):
            return True
    return False


def repeating_part(src: SourceData, iterator: str | None, ref: str) -> str | None:
    """The outermost repeating part ``ref`` lies in (see the module docstring), or ``None``.

    JSON: a member path whose value is an array of objects in some record, with ``ref`` naming a
    member below it. XML: an element path below the record that occurs at least twice in some
    record (the data decide: an element that never repeats has one occurrence per record).

    Args:
        src: the loaded source. iterator: the iterator of the records (the TriplesMap's).
        ref: a reference relative to the record.
    """
    if src.source.format == "json":
        steps = json_steps(ref)
        for i in range(1, len(steps)):
            if _json_is_list_of_objects(src, iterator, steps[:i]):
                return ".".join(steps[:i])
        return None
    if src.source.format == "xml":
        steps = element_path(ref)
        for i in range(1, len(steps or []) + 1):
            if src.max_per_record("/".join(steps[:i]), iterator) > 1:
                return "/".join(steps[:i])
    return None


def member_of(src: SourceData, part: str, ref: str) -> str | None:
    """``ref`` relative to one occurrence of ``part`` (``authors.name`` -> ``name``; ``dc:title`` ->
    ``.``; ``dc:title/@xml:lang`` -> ``@xml:lang``; ``authors.#`` -> ``#``), ``None`` when ``ref`` is
    not in ``part``."""
    if src.source.format == "json":
        steps, head = json_steps(ref), json_steps(part)
        if steps[:len(head)] == head and len(steps) > len(head):
            return ".".join(steps[len(head):])
        return None
    steps, head = xml_steps(ref), xml_steps(part)
    if steps[:len(head)] != head:
        return None
    return "/".join(steps[len(head):]) or "."


def is_position(src: SourceData, ref: str, iterator: str | None = None) -> bool:
    """Whether ``ref`` is the position of an occurrence of a repeating part (``authors.#``)."""
    sep = part_separator(src)
    if not ref.endswith(sep + POSITION):
        return False
    part = ref[:-len(sep + POSITION)]
    return repeating_part(src, iterator or src.iterator, part + sep + ("x" if sep == "." else ".")) == part
