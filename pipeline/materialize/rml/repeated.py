"""Two references of one term map through the same repeated XML element: a cross product, said.

RML evaluates each reference of a term map on the record on its own and combines the values of all
of them: a template makes one term per combination of its placeholders' values (R2RML section 7.3
for one value each, RML-Core's multi-valued references for several), and an object map with a
language map tags every value with every tag. An object map ``rml:reference "title"`` with
``rml:languageMap [ rml:reference "title/@xml:lang" ]`` therefore gives, for a record with two
``title`` elements, each title in both languages: four literals for two, half of them wrong. RML
allows it, so the mapping runs as written; what kgc adds is the warning, on the evidence of the
data (a record where the element the two references share occurs more than once), with the two
ways to read each element's value and tag together.
"""
from __future__ import annotations

import os
import re

from lxml import etree
from rdflib import Graph
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.findings import Finding
from pipeline.materialize.rml.check import node_name, term_maps, triples_maps
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, RML
from pipeline.materialize.views.derive import source_of
from pipeline.materialize.views.records import iterate, read_document
from pipeline.materialize.views.view import template_references
from pipeline.sources.namespaces import bind_default_prefix

__all__ = ["xml_cross_products"]

_NAME = r"(?:[A-Za-z_][\w.\-]*:)?[A-Za-z_][\w.\-]*"
#: a step of a relative location path this check reads: an element, then an attribute or ``text()`` last
_ELEMENT = re.compile(rf"^{_NAME}$")
_LAST = re.compile(rf"^(?:@{_NAME}|text\(\))$")
#: records read for the evidence (the first record that shows the repetition ends the search)
_SCAN = 100_000


def _elements(reference: str) -> list[str] | None:
    """The element steps of a plain relative path (``title/@xml:lang`` -> ``["title"]``), ``None`` for
    any other expression (predicates, functions, axes, absolute paths: not checked)."""
    steps = reference.strip().split("/")
    if steps and _LAST.match(steps[-1]):
        steps = steps[:-1]
    return steps if all(_ELEMENT.match(s) for s in steps) else None


def _references(g: Graph, node: Node) -> list[str]:
    """The references ``node``'s value reads: its ``rml:reference``, or its template's placeholders."""
    out = [str(r) for r in g.objects(node, RML.reference)]
    for template in g.objects(node, RML.template):
        out += template_references(str(template))
    return out


def _pairs(g: Graph, role: str, node: Node) -> list[tuple[str, str, str, str, list[str]]]:
    """``(what reads a, a, what reads b, b, shared element steps)`` for the references of one term map that
    go through the same element: two placeholders of its template, or its value and its language or
    datatype map."""
    said = {"subject map": "the subject map", "object map": "the object map", "predicate map": "the predicate map",
            "graph map": "the graph map"}.get(role, f"the {role}")
    templated = g.value(node, RML.template) is not None
    reads = [(f"{said}'s {'template placeholder' if templated else 'reference'}", r) for r in _references(g, node)]
    for key, name in ((RML.languageMap, "language map"), (RML.datatypeMap, "datatype map")):
        reads += [(f"its {name}'s {'template placeholder' if g.value(m, RML.template) is not None else 'reference'}",
                   r) for m in g.objects(node, key) for r in _references(g, m)]
    out = []
    for i, (wa, a) in enumerate(reads):
        for wb, b in reads[i + 1:]:
            sa, sb = _elements(a), _elements(b)
            if sa is None or sb is None or a == b:
                continue
            shared = os.path.commonprefix([sa, sb])  # the element steps both go through (lists: step by step)
            if shared:
                out.append((wa, a, wb, b, shared))
    return out


def xml_cross_products(g: Graph, where: str, limit: int = 50_000_000) -> list[Finding]:
    """Say each term map of an XPath logical source whose two references go through one element that a
    record holds more than once (the values combine as a cross product, see the module docstring).

    Run on the unified mapping before ``xml:lang`` references are rewritten, so the message quotes the
    references as the user wrote them. Sources over ``limit`` bytes, logical views and derived sources
    are not read.

    Args:
        g: the unified RML graph with absolute source paths. where: the mapping file, for messages.
        limit: largest source read, in bytes.
    Returns:
        A ``warning`` per such term map: the TriplesMap, the term map, both references, the
        repeated element and the record that repeats it, and how to pair them (an iterator at the
        repeated element, or a logical view with an iterable field there).
    """
    findings: list[Finding] = []
    documents: dict[tuple[str, str], list] = {}
    for tm in triples_maps(g):
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.viewOn) is not None or g.value(ls, RML.source) is None \
                or str(g.value(ls, RML.source)).endswith(DERIVED_SUFFIX):
            continue
        candidates = [(role, pair) for role, node in term_maps(g, tm) for pair in _pairs(g, role, node)]
        if not candidates:
            continue
        try:
            src = source_of(g, ls)
            if src.formulation != "XPath":
                continue
            key = (str(src.path), src.iterator or "")
            if key not in documents:
                documents[key] = [] if src.path.stat().st_size > limit else \
                    iterate("XPath", read_document(src), src.iterator, namespaces=dict(src.namespaces))
        except (RMLError, InputError, OSError):
            continue  # an unreadable source or iterator is said by the checks that read it
        for role, (wa, a, wb, b, shared) in candidates:
            found = _repeated(documents[key][:_SCAN], shared)
            if found is None:
                continue
            number, count = found
            element = "/".join(shared)
            iterator = f"{(src.iterator or '').rstrip('/')}/{element}"
            rel_a, rel_b = (_relative(r, len(shared)) for r in (a, b))
            findings.append(Finding(
                "normalise", where,
                f"TriplesMap {node_name(tm)}: "
                + (f"{wa}s {a!r} and {b!r}" if wa == wb else f"{wa} {a!r} and {wb} {b!r}")
                + f" both read the element {element!r}, which "
                f"record {number} of {src.path.name} holds {count} times: RML combines every value of one with every "
                f"value of the other (a cross product), not each {element!r} with its own; to read them together, "
                f"iterate over the element (rml:iterator {iterator!r}, references {rel_a!r} and {rel_b!r}, the "
                f"record's own fields read upwards with '../') or use a "
                f"logical view with an iterable field at {element!r}", column=role, value=f"{a} | {b}",
                severity="warning"))
    return findings


def _relative(reference: str, depth: int) -> str:
    """``reference`` read from the repeated element ``depth`` steps down (``title/@xml:lang``, 1 -> ``@xml:lang``;
    ``title``, 1 -> ``.``)."""
    rest = reference.strip().split("/")[depth:]
    return "/".join(rest) or "."


def _repeated(records: list, shared: list[str]) -> tuple[int, int] | None:
    """``(1-based record number, occurrences)`` of the first record in which the element path ``shared``
    selects more than one element, ``None`` when none does."""
    path = "/".join(shared)
    for number, it in enumerate(records, 1):
        expr = bind_default_prefix(path, it.default) if it.default else path
        try:
            count = len(it.document().xpath(expr, namespaces=it.namespaces))
        except etree.XPathError:
            return None  # the engine's own reading reports it
        if count > 1:
            return number, count
    return None
