"""JSON logical sources in the RML normalisation pass (:func:`pipeline.materialize.rml.normalize.normalize_rml`).

RML-Core JSONPath references are absolute from the iterated node (``$.name``) while the engine
reads them relative (:func:`json_references`); JSON values take their natural RDF datatype and a
reference to a key no record has is bad input when it looks misspelt (:func:`json_datatypes`).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from jsonpath import JSONPath
from rdflib import Graph, Literal
from rdflib.namespace import XSD
from rdflib.term import Node

from pipeline.errors import RMLError
from pipeline.findings import Finding
from pipeline.materialize.rml.absent import misspelling
from pipeline.materialize.rml.check import mapping_nodes, node_name, term_maps
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, RML
from pipeline.sources.checks import json_records

__all__ = ["json_references", "json_datatypes", "json_iterators", "engine_filter"]

_JSON_REF = re.compile(r"^\$(?:\.([^.\[\]]+(?:\[\*\])?(?:\..*)?)|\[['\"]([^'\"]+)['\"]\](.*))$")
_JSON_PLACEHOLDER = re.compile(r"(?<!\\)\{([^{}]*)\}")


def _relative(m: re.Match) -> str:
    return m.group(1) if m.group(1) is not None else m.group(2) + m.group(3)


def _balanced(path: str) -> bool:
    """Brackets and quotes of a JSONPath expression pair up (the engine silently matches nothing otherwise)."""
    depth, quote = 0, None
    for ch in path:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and quote is None


def _absent(records: list, ref: str) -> bool:
    """Whether the plain dotted key ``ref`` (``customer.id``) names a key of no record (a path that
    meets something else than an object on the way, or a JSONPath expression, is not judged)."""
    if not re.fullmatch(r"[\w\- ]+(\.[\w\- ]+)*", ref):
        return False
    for rec in records:
        value = rec
        for part in ref.split("."):
            if not isinstance(value, dict):
                return False
            if part not in value:
                break
            value = value[part]
        else:
            return False
    return True


def json_datatypes(g: Graph, maps: list[Node], natural: bool, where: str, limit: int = 50_000_000) -> list[Finding]:
    """Reads each JSON source once (files up to ``limit`` bytes) for two things the engine does not do.

    * With ``natural`` (RML-Core documents; the legacy RML test cases expect plain strings), the
      natural mapping of JSON values: a reference-valued literal object map whose values are all
      JSON integers (booleans, floats) gets ``xsd:integer`` (``xsd:boolean``, ``xsd:double``).
    * A reference, or a template's placeholder, naming a key that no record of the source has is
      an error when it looks misspelt (a key the records hold is close to it:
      :mod:`pipeline.materialize.rml.absent`), else a warning (a field these data lack); the engine
      would yield nothing, silently.
    * An iterator that matches no record of a file in which another TriplesMap's iterator does is
      an error (the iterator is misspelt: the file is not empty).

    Returns:
        The warnings on keys no record holds that look like no key they do.
    Raises:
        RMLError: one of these errors; the message names the TriplesMap.
    """
    findings: list[Finding] = []
    held: dict[int, set[str]] = {}  # the key paths of a source's records, read once (only when a key is absent)

    def key_paths(records: list) -> set[str]:
        if id(records) not in held:
            held[id(records)] = _key_paths(records)
        return held[id(records)]

    cache: dict[str, list | None] = {}
    documents: dict[Path, object] = {}
    read: list[tuple[Node, Node, Path, list]] = []
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.referenceFormulation) != RML.JSONPath \
                or str(g.value(ls, RML.source)).endswith(DERIVED_SUFFIX):
            continue  # a derived source has its keys and datatypes from the pass that wrote it
        path = Path(str(g.value(ls, RML.source)))
        iterator = str(g.value(ls, RML.iterator) or "$")
        if not _balanced(iterator):
            raise RMLError(f"TriplesMap {node_name(tm)}: the JSONPath iterator {iterator!r} has unbalanced brackets "
                           "or quotes", path=where)
        key = f"{path}|{iterator}"
        if key not in cache:
            try:
                if path not in documents:
                    documents[path] = json.loads(path.read_text(encoding="utf-8")) if path.stat().st_size <= limit \
                        else None
                data = documents[path]
                # the document itself, one record, as the engine reads '$' ('$.(key,...)'); jsonpath's '$' is []
                cache[key] = None if data is None else [data] if iterator.strip() == "$" and isinstance(data, dict) \
                    else JSONPath(iterator).parse(data)
            except (OSError, ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError):
                cache[key] = None  # an unreadable or too deeply nested source is reported by the load-time checks
        if cache[key] is not None:
            read.append((tm, ls, path, cache[key]))
    for tm, ls, path, records in read:
        if records:
            continue
        # a file another TriplesMap's iterator finds records in: this iterator is misspelt, not the data empty
        other = next(((o, ols, r) for o, ols, p, r in read if p == path and r), None)
        if other is not None:
            data = documents.get(path)
            shape = (f"its top-level keys: {', '.join(map(str, list(data)[:10]))}" if isinstance(data, dict)
                     else f"an array of {len(data)}" if isinstance(data, list) else "a single value")
            raise RMLError(f"TriplesMap {node_name(tm)}: the JSONPath iterator {str(g.value(ls, RML.iterator))!r} "
                           f"matches no record of {path.name} ({shape}), while the iterator "
                           f"{str(g.value(other[1], RML.iterator))!r} of TriplesMap {node_name(other[0])} matches "
                           f"{len(other[2])}", path=where)
    for tm, ls, path, records in read:
        if not records:
            continue
        kept, shape = json_records(path, str(g.value(ls, RML.iterator) or "$"), records)
        if shape is not None and shape.severity == "error":
            raise RMLError(f"TriplesMap {node_name(tm)}: {path.name}: {shape.message} (expected: {shape.expected})",
                           path=where)
        if shape is not None and all(f.message != shape.message for f in findings):
            findings.append(shape)
        records = kept
        for role, node in term_maps(g, tm):
            template = g.value(node, RML.template)
            if template is None:
                continue
            for ref in _JSON_PLACEHOLDER.findall(str(template)):
                if _absent(records, ref):
                    _absent_key(f"TriplesMap {node_name(tm)}: the {role}'s template {str(template)!r} names "
                                f"{ref!r}, no key of any record of {path.name} (iterator "
                                f"{g.value(ls, RML.iterator)}", ref, key_paths(records), where, findings)
        for pom in g.objects(tm, RML.predicateObjectMap):
            for om in g.objects(pom, RML.objectMap):
                ref = g.value(om, RML.reference)
                if ref is None:
                    continue
                kinds = set()
                for rec in records:
                    values = [rec]  # `a[*].b`: the values of b in each element of the array a
                    for part in str(ref).replace("[*]", "").split("."):
                        values = [x for v in values for x in (v if isinstance(v, list) else [v])]
                        values = [v.get(part) for v in values if isinstance(v, dict)]
                    for value in values:
                        for v in value if isinstance(value, list) else [value]:
                            if v is not None:
                                kinds.add(type(v))
                if _absent(records, str(ref)):
                    _absent_key(f"TriplesMap {node_name(tm)}: the object map's reference {str(ref)!r} names no key "
                                f"of any record of {path.name} (iterator {g.value(ls, RML.iterator)}", str(ref),
                                key_paths(records), where, findings)
                    continue
                if not natural or any(g.value(om, p) is not None for p in (
                        RML.datatype, RML.datatypeMap, RML.language, RML.languageMap, RML.termType)):
                    continue
                if len(kinds) == 1:
                    dt = {bool: XSD.boolean, int: XSD.integer, float: XSD.double}.get(kinds.pop())
                    if dt is not None:
                        g.add((om, RML.datatype, dt))
    return findings


#: records and keys per record read for the key paths they hold (a message's hint, not a count)
_SCAN = 2000


def _key_paths(records: list) -> set[str]:
    """The dotted paths of the keys the first :data:`_SCAN` records hold (``customer.id``; the
    elements of arrays are looked into), at most :data:`_SCAN` keys per record."""
    paths: set[str] = set()
    for rec in records[:_SCAN]:
        todo, seen = [(rec, "")], 0
        while todo and seen < _SCAN:
            value, here = todo.pop()
            seen += 1
            if isinstance(value, list):
                todo.extend((v, here) for v in value[:_SCAN])
            elif isinstance(value, dict):
                for k, v in value.items():
                    path = f"{here}.{k}" if here else str(k)
                    paths.add(path)
                    todo.append((v, path))
    return paths


def _absent_key(said: str, ref: str, paths: set[str], where: str, findings: list[Finding]) -> None:
    """A key no record holds: refused when it looks misspelt against the key ``paths`` the records hold
    (:func:`~pipeline.materialize.rml.absent.misspelling`), else a warning in ``findings``. ``said`` is
    the message up to the open parenthesis's content."""
    near = misspelling(ref, paths, ".")
    if near:
        raise RMLError(f"{said}; {near}): it gives no term", path=where)
    findings.append(Finding("normalise", where, f"{said}): no term from it (nothing the records hold is close to "
                            "the name: a field these data lack)", column=ref, severity="warning"))


def _is_json(g: Graph, tm: Node | None) -> bool:
    ls = g.value(tm, RML.logicalSource) if tm is not None else None
    return ls is not None and g.value(ls, RML.referenceFormulation) == RML.JSONPath


def relative_reference(ref: str) -> str:
    """A JSONPath reference as the engine reads it, relative to the iterated record: ``$.name``,
    ``$['name']`` and ``name`` name the same field (RML-Core section "References"; RMLMapper reads
    both forms); any other expression is returned as it is."""
    return _JSON_REF.sub(_relative, ref)


#: A filter expression of a JSONPath step, ``[?( ... )]``.
_FILTER = re.compile(r"\[\?\((.*?)\)\]")
#: A quoted string of a filter (either quote) or a comparison operator with the blanks around it.
_FILTER_TOKEN = re.compile(r"\"[^\"]*\"|'[^'\"]*'|\s*(==|!=|<=|>=|<|>)\s*")


def engine_filter(iterator: str) -> str:
    """``iterator`` with each filter step written the way Morph-KGC 2.10's JSONPath library reads it.

    The library (``jsonpath``, ``JSONPath._filter``) turns ``@.member`` into a dictionary lookup of
    everything up to the comparison operator, blanks included, and strips the quotes of single-quoted
    strings before it evaluates the filter as Python, so ``[?(@.type == 'a')]`` looks up the key
    ``"type "`` and compares with the name ``a``: no record matches, and nothing says so. The same filter
    with no blanks around the operator and double quotes (``[?(@.type=="a")]``) means what every
    JSONPath reading means by the first (RFC 9535 section 2.3.5), so it is the engine's text. A quoted
    string holding the other quote is left as written.

    Args:
        iterator: a JSONPath expression (``$.items[?(@.type == 'a')]``).
    Returns:
        The same expression, filters rewritten (``$.items[?(@.type=="a")]``); unchanged without a filter.
    """
    def token(m: re.Match) -> str:
        text = m.group(0)
        if m.group(1):
            return m.group(1)
        return '"' + text[1:-1] + '"' if text.startswith("'") else text

    return _FILTER.sub(lambda f: "[?(" + _FILTER_TOKEN.sub(token, f.group(1)) + ")]", iterator)


def json_iterators(g: Graph, maps: list[Node]) -> None:
    """Each JSON logical source's iterator in the text the engine reads as the user meant it
    (:func:`engine_filter`): a filter with blanks around its operator or single quotes selects
    nothing in Morph-KGC 2.10, silently, while the loader and other engines read it."""
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.referenceFormulation) != RML.JSONPath:
            continue
        iterator = g.value(ls, RML.iterator)
        if iterator is not None and (text := engine_filter(str(iterator))) != str(iterator):
            g.set((ls, RML.iterator, Literal(text)))


def json_references(g: Graph, maps: list[Node]) -> None:
    """RML-Core JSONPath references are absolute from the iterated node (``$.name``); the engine
    reads them relative (``name``): strip the leading ``$.`` wherever a JSON record is read, in
    references and templates of term maps, language and datatype maps and function inputs, and in
    join conditions, each side by its own TriplesMap's source (``rml:child`` by the child's,
    ``rml:parent`` by the parent's: a CSV child may join a JSON parent)."""
    seen: set[Node] = set()
    for tm in maps:
        own = _is_json(g, tm)
        for node in mapping_nodes(g, tm, seen):
            for p, o in list(g.predicate_objects(node)):
                if not isinstance(o, Literal):
                    continue
                if p == RML.parent:
                    om = next(iter(g.subjects(RML.joinCondition, node)), None)
                    parent = None if om is None else \
                        g.value(om, RML.parentTriplesMap) or g.value(om, RML.quotedTriplesMap)
                    if _is_json(g, parent):
                        g.set((node, p, Literal(relative_reference(str(o)))))
                elif not own:
                    continue
                elif p in (RML.reference, RML.child):
                    g.set((node, p, Literal(relative_reference(str(o)))))
                elif p == RML.template:
                    g.set((node, p, Literal(_JSON_PLACEHOLDER.sub(
                        lambda m: "{" + relative_reference(m.group(1)) + "}", str(o)))))
