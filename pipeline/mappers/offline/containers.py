"""XML files that hold collections of records of several kinds: each kind is a logical source of its own.

A register exported as one file (``<RINFData>`` holding 24 ``SectionOfLine`` and 25
``OperationalPoint`` elements beside a ``MemberStateCode`` stamp) is read by the loader as one record
at its root, because no single element kind is the record. Mapped as one record, every value of every
section of line lands on one entity and the values of the repeated elements are combined as a cross
product. The file is a *container*: its root says nothing of its own (no child holds text), and each
of its structured children (with child elements) occurs several times: those are the records, one
kind per element name, as a person would write one logical source per kind (the warning of
:func:`pipeline.sources.tree.load_xml` asks for that). A document (one notice per file) is no
container: its root holds values of its own (``cbc:ID``, ``cbc:IssueDate``) or single structured parts
(``cac:TenderingTerms``), and it stays one record (:mod:`.xmldoc`).

A catalogue often lists each kind inside a list element of its own (CAPEC's ``<Attack_Pattern_Catalog>``
holding ``<Attack_Patterns>`` with three ``<Attack_Pattern>`` and ``<External_References>`` with fifteen
``<External_Reference>``): an element that occurs once under the root, holds no text and no attribute, and
whose child elements, two or more, are all of one name and each structured, is a list, and its items are
the records of the kind (``Attack_Patterns/Attack_Pattern``). The list element itself says nothing: it is
the plural of its items, as a JSON array is (:func:`_list_items`).

The mapper maps each kind as a source of its own (:func:`split`: records at ``<root>/<kind>``, one
entity per occurrence, keys, classes and foreign keys found per kind, so a reference of one kind to
the identifier of another is a join), then writes its rows on the file as the manifest names it
(:func:`rewrite`): every reference prefixed with the kind's element (``SOLOPStart/@Value`` ->
``SectionOfLine/SOLOPStart/@Value``), so the compiler reads each kind once per occurrence through a
logical view on the file (:mod:`pipeline.compile.nesting`).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from lxml import etree

from pipeline.sources.load import SourceData
from pipeline.sources.tree import markup_references, xml_records, xml_step
from pipeline.mappers.offline.references import rewrite_references
from pipeline.table import MappingRow

__all__ = ["Kind", "record_kinds", "split", "rewrite"]

#: A kind needs this many occurrences to be a collection of records rather than a part of one.
MIN_OCCURRENCES = 2


@dataclass(frozen=True)
class Kind:
    """One kind of record of a container file.

    Attributes:
        owner: the name of the file's source (the table's Source File).
        step: the element's step below the root as the loader writes references (``SectionOfLine``,
            ``era:OP``).
        name: the name the kind is mapped under (``SectionOfLine.xml``): its stem names the records.
    """

    owner: str
    step: str
    name: str


def record_kinds(data: SourceData) -> list[str]:
    """The element steps of the kinds of record a container file holds, in document order; ``[]`` when
    ``data`` is no container.

    A container: an XML source read as one record at its root (iterator detected, not given), whose
    root's children hold no text of their own, and whose children with child elements all occur at
    least :data:`MIN_OCCURRENCES` times (childless elements beside them, attributes only, are stamps of
    the file: ``<MemberStateCode Code="IT"/>``); a list element (:func:`_list_items`) counts as its items,
    and the kind's step goes through it.

    Args:
        data: a loaded source.
    Returns:
        Steps such as ``['SectionOfLine', 'OperationalPoint']`` (prefixed when namespaced;
        ``['Attack_Patterns/Attack_Pattern', ...]`` through list elements).
    """
    if data.source.format != "xml" or data.source.iterator or len(data.records) != 1 or data._tree is None:
        return []
    root = data._tree.getroot()
    if data.iterator is None or data.iterator.strip("/").count("/") != 0:
        return []  # the loader's iterator is not the root: its records are already one kind
    children = [c for c in root if isinstance(c.tag, str)]
    if any((c.text or "").strip() and len(c) == 0 for c in children):
        return []  # the root states values of its own: a document
    counts: dict[str, int] = {}
    for c in children:
        if len(c):
            step = xml_step(c, data.element_prefixes)
            # a list element occurs once: an element repeated under the root is a record that holds a part
            items = _list_items(c) if sum(1 for d in children if d.tag == c.tag) == 1 else []
            if items:
                step = f"{step}/{xml_step(items[0], data.element_prefixes)}"
                counts[step] = counts.get(step, 0) + len(items)
                continue
            counts[step] = counts.get(step, 0) + 1
    if not counts or min(counts.values()) < MIN_OCCURRENCES:
        return []
    return list(counts)


def _list_items(el: etree._Element) -> list[etree._Element]:
    """The items of a list element: ``el`` holds no text and no attribute of its own, and its child elements,
    at least :data:`MIN_OCCURRENCES`, share one name and each hold children or attributes (``<Attack_Patterns>``
    holding only ``<Attack_Pattern>`` elements); ``[]`` for any other element (a part holding values, or
    children of several kinds)."""
    kids = [c for c in el if isinstance(c.tag, str)]
    if len(kids) < MIN_OCCURRENCES or (el.text or "").strip() or el.attrib:
        return []
    if len({c.tag for c in kids}) != 1 or not all(len(c) or c.attrib for c in kids):
        return []
    return kids


def split(data: SourceData, name: str, taken: set[str]) -> list[tuple[Kind, SourceData]]:
    """One source per kind of record of the container file ``data`` (see :func:`record_kinds`).

    Args:
        data: the file as loaded (one record at its root).
        name: its name in the manifest (the table's Source File).
        taken: names of the case's sources: a kind whose name would be one of them is not split off.
    Returns:
        ``(kind, records of that kind)`` pairs; ``[]`` when the file is no container.
    """
    out = []
    for step in record_kinds(data):
        local = step.split("/")[-1].split(":")[-1]
        kind = Kind(name, step, f"{local}.xml")
        if kind.name in taken:
            return []
        iterator = f"{data.iterator.rstrip('/')}/{step}"
        mixed: set[str] = set()
        records, refs = xml_records(data, iterator, mixed)
        source = dataclasses.replace(data.source, iterator=iterator, name=kind.name)
        sub = SourceData(source, data.path, iterator, refs, records, [], data.namespaces,
                         default_prefixes=data.default_prefixes, element_prefixes=data.element_prefixes,
                         _tree=data._tree)
        sub.markup = markup_references(refs, mixed)
        out.append((kind, sub))
    return out


def rewrite(rows: list[MappingRow], kinds: dict[str, Kind]) -> None:
    """Write the rows of each kind (source file ``kind.name``) on the container file, in place: source file
    the file's name, every reference (data reference, ``concat`` arguments, subject template placeholders,
    language reference, both sides of a join condition) prefixed by the kind's step.

    Args:
        rows: the table's rows; rows of other sources are left as they are.
        kinds: kind by its mapped name (:attr:`Kind.name`).
    """
    stems = {k.name.rsplit(".", 1)[0]: k for k in kinds.values()}

    def ref(kind: Kind, r: str) -> str:
        return f"{kind.step}/{r}"

    def side(kind: Kind, text: str) -> str:
        # a side names its source by stem (`SectionOfLine.SOLOPStart/@Value`, `routes.agency_id`) or not
        # (`@id`: the row's own source); a kind's side is read on the container, the others stay
        r = text.strip()
        head, dot, tail = r.partition(".")
        if dot and head in stems and "/" not in head:
            return ref(stems[head], tail)
        if dot and "/" not in head and head not in stems and not r.startswith("@"):
            return r
        return ref(kind, r)

    for row in rows:
        kind = kinds.get(row.source_file or "")
        if kind is None:
            continue
        row.source_file = kind.owner
        rewrite_references(row, lambda r, k=kind: ref(k, r), lambda t, k=kind: side(k, t))
