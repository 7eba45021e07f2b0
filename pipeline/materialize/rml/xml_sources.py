"""XML logical sources in the RML normalisation pass (:func:`pipeline.materialize.rml.normalize.normalize_rml`).

A reference to an element or attribute that no record of the source has is bad input
(:func:`xml_references`), as for JSON keys (:func:`pipeline.materialize.rml.json_sources.json_datatypes`)
and CSV columns: R2RML section 6.3 makes a reference name a column of the logical source, and the
engine would yield nothing for it, silently.
"""
from __future__ import annotations

import re

from lxml import etree
from rdflib import Graph
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.materialize.rml.check import node_name
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, RML
from pipeline.materialize.views.derive import source_of
from pipeline.materialize.views.records import iterate, read_document

__all__ = ["xml_references"]

_NAME = r"[A-Za-z_][\w.\-]*"
#: A reference checked here: a child path of element names ending in an element or an attribute
#: (``Name``, ``address/city``, ``@id``, ``address/@type``). Prefixed names, ``..``, predicates and
#: functions are left alone, and so are records in a default namespace: there the absence may be
#: the document's namespaces or a computed value.
_PLAIN = re.compile(rf"^(?:{_NAME}/)*@?{_NAME}$")


def xml_references(g: Graph, maps: list[Node], where: str, limit: int = 50_000_000) -> None:
    """Refuse an object map's reference that selects nothing in every record of its XML source.

    Reads each XML source (files up to ``limit`` bytes) once per iterator; sources the engine does
    not read itself (derived sources, :mod:`pipeline.materialize.views.derive`) are skipped.

    Args:
        g: the unified RML graph with resolved, absolute source paths.
        maps: its TriplesMaps. where: the mapping file, for messages.
        limit: largest source read, in bytes (a larger one is not checked).
    Raises:
        RMLError: names the TriplesMap, the reference, the file and the iterator.
    """
    cache: dict[tuple[str, str], list] = {}
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.source) is None or str(g.value(ls, RML.source)).endswith(DERIVED_SUFFIX):
            continue
        refs = [str(ref) for pom in g.objects(tm, RML.predicateObjectMap) for om in g.objects(pom, RML.objectMap)
                for ref in g.objects(om, RML.reference) if _PLAIN.match(str(ref))]
        if not refs:
            continue
        try:
            src = source_of(g, ls)
        except RMLError:
            continue  # reported by the checks that read the logical source
        if src.formulation != "XPath" or src.namespaces:
            continue
        key = (str(src.path), src.iterator or "")
        if key not in cache:
            try:
                big = src.path.stat().st_size > limit
                cache[key] = [] if big else [it.document() for it in iterate(
                    "XPath", read_document(src), src.iterator, where=src.label())]
                if any(None in e.nsmap for e in cache[key]):
                    cache[key] = []  # a default namespace: an unprefixed name selects nothing in XPath 1.0
            except (OSError, InputError):
                cache[key] = []  # an unreadable source is reported by the load-time checks
        records = cache[key]
        for ref in refs:
            if records and not any(_selects(element, ref) for element in records):
                raise RMLError(f"TriplesMap {node_name(tm)}: the object map's reference {ref!r} selects nothing in "
                               f"any record of {src.path.name} (iterator {src.iterator})", path=where)


def _selects(element: etree._Element, ref: str) -> bool:
    try:
        return bool(element.xpath(ref))
    except etree.XPathError:
        return True  # not checked here: the engine's own reading reports it
