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
from lxml import etree

from pipeline.sources.load import SourceData

__all__ = ["POSITION", "json_steps", "values_reference", "name_literal", "xml_steps", "element_path", "common_element", "repeating_part", "holds_array", "part_iterator", "parts_of", "encloses", "member_of",
           "is_position", "part_separator", "every_occurrence_holds", "position_beside_other_part"]

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


def common_element(refs: list[str]) -> str | None:
    """The element path (below the record) that every XPath of ``refs`` reads from (``cat:fee`` for
    ``cat:fee`` and ``cat:fee/@currency``), where they are read together per element; ``None`` for
    fewer than two references, when they share none, or when one is no plain relative path."""
    paths = [element_path(r) for r in refs]
    if len(refs) < 2 or any(p is None for p in paths):
        return None
    common: list[str] = []
    for steps in zip(*paths):
        if len(set(steps)) != 1:
            break
        common.append(steps[0])
    return "/".join(common) or None


@lru_cache(maxsize=16)
def _json_records(path: str, mtime: float, iterator: str | None) -> tuple:
    """The records of a JSON file under ``iterator`` (``mtime`` keys the cache to the file's state)."""
    with open(path, encoding="utf-8-sig") as fh:
        data = json.load(fh)
    return tuple(m.value for m in jp_parse(iterator or "$").find(data))


def _json_nodes(src: SourceData, iterator: str | None, steps: list[str]) -> list[list]:
    """Per record of ``src``, the values at the member path ``steps`` (arrays on the way flattened)."""
    if src._json is not None and iterator == src.iterator:
        records = src._json  # the records as loaded (or as a mapper reads them: pipeline.mappers.offline.envelopes)
    else:
        try:
            records = _json_records(str(src.path), src.path.stat().st_mtime, iterator)
        except (OSError, ValueError, RecursionError):
            return []
    out = []
    for rec in records:
        nodes = [rec]
        for i, s in enumerate(steps):
            nxt = []
            for n in nodes:
                v = n.get(s) if isinstance(n, dict) else None
                if isinstance(v, list) and i < len(steps) - 1:
                    nxt.extend(v)
                elif v is not None:
                    nxt.append(v)
            nodes = nxt
        out.append(nodes)
    return out


#: RFC 9535 2.5.1.1 member-name-shorthand: ALPHA, ``_`` or any non-ASCII character first, then digits too
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\U0010FFFF][A-Za-z0-9_\u0080-\U0010FFFF]*")


def name_literal(name: str) -> str:
    """``name`` as a JSONPath string literal in single quotes (RFC 9535 2.3.1.1: ``\\`` and ``\'``
    escaped), for a name selector: ``event title`` -> ``'event title'``."""
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def values_reference(src: SourceData, iterator: str | None, ref: str) -> str:
    """A relative JSON reference with ``[*]`` after each member that holds an array in some record
    of ``src`` (``tags`` -> ``tags[*]``, ``items.name`` -> ``items[*].name``), so that it yields the
    array's values (RML-Core: a reference yields values; the array itself is a data error).

    Args:
        src: the loaded JSON source. iterator: the records' iterator.
        ref: a reference relative to the record; one that is no plain member path (``$``-rooted,
            quoted keys, filters, ``[*]`` already) is returned as it is, except a member name of the
            records that JSONPath's shorthand cannot write (``event title``, ``$price``, ``tags[0]``,
            ``@id``: a key of the data, not a path): written with a name selector, ``$['event title']``
            (RFC 9535 2.5.1), which the engine and the derivation of sources both read.
    """
    if "." not in ref and ref in src.references and not _SHORTHAND.fullmatch(ref):
        quoted = "$[" + name_literal(ref) + "]"
        holds = any(isinstance(n, list) for nodes in _json_nodes(src, iterator, [ref]) for n in nodes)
        return quoted + "[*]" if holds else quoted
    steps = json_steps(ref)
    if not steps or "[" in ref or ref.startswith("$") or ".".join(steps) != ref:
        return ref
    out = []
    for i, step in enumerate(steps):
        out.append(step)
        if any(isinstance(n, list) for nodes in _json_nodes(src, iterator, steps[:i + 1]) for n in nodes):
            out[-1] += "[*]"
    return ".".join(out)


def _json_is_list_of_objects(src: SourceData, iterator: str | None, steps: list[str]) -> bool:
    """Whether the member path ``steps`` holds an array of objects in some record of ``src``."""
    return any(isinstance(n, list) and any(isinstance(x, dict) for x in n)
               for nodes in _json_nodes(src, iterator, steps) for n in nodes)


def _chain(src: SourceData, iterator: str | None, ref: str) -> list[str]:
    """The repeating parts ``ref`` lies in, outermost first (each a path relative to the record)."""
    if src.source.format == "json":
        steps = json_steps(ref)
        return [".".join(steps[:i]) for i in range(1, len(steps)) if _json_is_list_of_objects(src, iterator, steps[:i])]
    if src.source.format == "xml":
        steps = element_path(bound(src, ref)) or []
        out, base = [], (iterator or "").rstrip("/")
        for i in range(1, len(steps) + 1):
            # an element repeats when it occurs twice in one occurrence of the element above it
            if src.max_per_record(steps[i - 1], "/".join([base, *steps[:i - 1]])) > 1:
                out.append("/".join(steps[:i]))
        return out
    return []


def repeating_part(src: SourceData, iterator: str | None, ref: str) -> str | None:
    """The innermost repeating part ``ref`` lies in (see the module docstring), or ``None``.

    JSON: a member path whose value is an array of objects in some record, with ``ref`` naming a
    member below it. XML: an element path below the record that occurs at least twice in one
    occurrence of the element above it (the data decide: an element that never repeats has one
    occurrence per record). A part inside another part (a track of each operational point) is
    iterated over all its occurrences in the record, so its position numbers them in the record.

    Args:
        src: the loaded source. iterator: the iterator of the records (the TriplesMap's).
        ref: a reference relative to the record.
    """
    chain = _chain(src, iterator, ref)
    return chain[-1] if chain else None


def holds_array(src: SourceData, iterator: str | None, ref: str) -> bool:
    """Whether ``ref`` may hold several values in one record: a JSON member path with an array on its way
    or at its end in some record (JSON's syntax says a list, even of one value); an XML reference in a
    repeating part (:func:`repeating_part`). ``False`` for CSV and for a JSON reference of another form."""
    if src.source.format == "json":
        steps = json_steps(ref)
        return any(isinstance(n, list) for i in range(1, len(steps) + 1)
                   for nodes in _json_nodes(src, iterator, steps[:i]) for n in nodes)
    if src.source.format == "xml":
        return repeating_part(src, iterator, ref) is not None
    return False


def part_iterator(src: SourceData, iterator: str | None, part: str, base: str | None = None) -> str:
    """The iterator of ``part``'s occurrences relative to a record, or to one occurrence of the part
    ``base`` that encloses it: the part's path for XML (``OperationalPoint/OPTrack``; ``OPTrack`` below
    ``OperationalPoint``), a JSONPath with ``[*]`` after each array on the way for JSON
    (``$.sections[*].tracks[*]``; ``$.tracks[*]`` below ``sections``)."""
    if src.source.format != "json":
        return part[len(base) + 1:] if base and part.startswith(base + "/") else part
    steps, out = json_steps(part), "$"
    skip = len(json_steps(base)) if base else 0
    for i, step in enumerate(steps):
        if i < skip:
            continue
        out += f".{step}" if re.fullmatch(r"[A-Za-z_]\w*", step) else "['" + step.replace("'", "\\'") + "']"
        if _json_is_list_of_objects(src, iterator, steps[:i + 1]):
            out += "[*]"
    return out.replace(".['", "['")


def parts_of(src: SourceData, iterator: str | None, ref: str) -> list[str]:
    """Every repeating part ``ref`` lies in, outermost first (``[]`` for a record-level reference);
    for a position (``<part>/#``), the parts up to and including ``<part>``."""
    return _chain(src, iterator, ref) if src.source.format in ("json", "xml") else []


def encloses(src: SourceData, outer: str, inner: str) -> bool:
    """Whether the part ``inner`` lies inside the part ``outer`` (a proper descendant)."""
    sep = part_separator(src)
    return inner.startswith(outer + sep)


def every_occurrence_holds(src: SourceData, iterator: str | None, part: str, refs: list[str]) -> bool:
    """Whether every occurrence of ``part`` holds a value of at least one of ``refs`` (references
    relative to the record, in the part): then each occurrence is one thing those references describe."""
    members = [m for r in refs if (m := member_of(src, part, r)) not in (None, POSITION)]
    if not members:
        return False
    if src.source.format == "json":
        for nodes in _json_nodes(src, iterator, json_steps(part)):
            for items in nodes:
                for item in (items if isinstance(items, list) else [items]):
                    if not any(_json_nodes_of(item, json_steps(m)) for m in members):
                        return False
        return True
    tree = getattr(src, "_tree", None)
    if tree is None:
        return False
    try:
        occurrences = tree.xpath("/".join([(iterator or "").rstrip("/"), part]), namespaces=src.namespaces)
        return all(any(_has_text(o.xpath(m, namespaces=src.namespaces)) for m in members) for o in occurrences)
    except etree.XPathError:
        return False


def _json_nodes_of(node, steps: list[str]) -> list:
    nodes = [node]
    for s in steps:
        nodes = [x for n in nodes for v in ([n.get(s)] if isinstance(n, dict) else [])
                 for x in (v if isinstance(v, list) else [v]) if x not in (None, "")]
    return nodes


def _has_text(hits) -> bool:
    if not isinstance(hits, list):
        return bool(str(hits).strip())
    return any((h.text if isinstance(h, etree._Element) else str(h) or "").strip() if h is not None else False
               for h in hits)


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
    part = bound(src, ref[:-len(sep + POSITION)])
    return repeating_part(src, iterator or src.iterator, part + sep + ("x" if sep == "." else ".")) == part


def bound(src: SourceData, ref: str) -> str:
    """``ref`` with the unprefixed element names of a default-namespace XML document bound to its prefix
    (:meth:`~pipeline.sources.model.SourceData.bind`), a position's ``/#`` kept; others as they are."""
    if src.source.format != "xml":
        return ref
    if ref.endswith("/" + POSITION):
        return src.bind(ref[:-2]) + "/" + POSITION
    return src.bind(ref)


def position_beside_other_part(src: SourceData, refs: list[str]) -> tuple[str, str, str] | None:
    """``(position reference, its part, other part)`` when ``refs`` (one term's references) read the
    position of an occurrence of a part and a reference in another repeated part beside it (neither
    encloses the other: ``{Patterns/Pattern/@ID}_{References/Reference/#}``): such a key combines the
    occurrences of two unrelated parts as a cross product, so it identifies nothing; ``None``
    otherwise. A part enclosing the position's part (``{Pattern/@ID}_{Pattern/Skills/Skill/#}``) or
    inside it is nested in the logical view (:mod:`.views`): the position is then numbered within
    the enclosing occurrence."""
    sep = part_separator(src)
    refs = [bound(src, r) for r in refs]
    for ref in refs:
        if not (ref.endswith(sep + POSITION) and is_position(src, ref)):
            continue
        inner = ref[:-len(sep + POSITION)]
        for r in refs:
            q = repeating_part(src, src.iterator, r) if r != ref else None
            if q is not None and q != inner and not encloses(src, inner, q) and not encloses(src, q, inner):
                return ref, inner, q
    return None
