"""JSON and XML sources: records found by an iterator, references as paths relative to it.

JSON keys become dotted paths; XML element and attribute paths get namespace prefixes (each
default namespace bound to one, see :mod:`pipeline.sources.namespaces`). What the engine cannot
read as it is (``null`` members, a byte-order mark, another encoding than UTF-8, undeclared
prefixes, default namespaces) goes into the source's engine copy (:mod:`pipeline.sources.engine_copy`);
a file whose iterator selects no record is a finding naming the file and cause.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext import parse as jp_parse
from lxml import etree

from pipeline.findings import UNREAD_RECORDS, Finding
from pipeline.manifest import Source
from pipeline.sources.checks import NO_RECORDS, json_records, json_too_deep, json_top_level, parse_xml, \
    unresolved_entity, xml_encoding, xml_no_records, xml_parse_error, xml_too_deep
from pipeline.sources import json_numbers
from pipeline.sources.envelopes import find_envelopes
from pipeline.sources.jsonld import read_contexts
from pipeline.sources.engine_copy import (EngineCopy, bind_default_namespaces, declare_prefixes, json_copy,
                                          one_prefix_per_namespace, xml_utf8_copy)
from pipeline.sources.model import SourceData
from pipeline.sources.namespaces import bind_default_prefix, element_prefixes, xml_namespaces

__all__ = ["load_json", "json_records_path", "load_xml", "xml_records", "xml_step", "values_path", "flatten_json", "flatten_records", "markup_references",
           "xsi_types", "XSI"]


def _qname(el: etree._Element, prefixes: dict[str, str] | None = None) -> str:
    """``prefix:local`` of an element, the prefix its namespace URI has in ``prefixes`` (URI -> prefix,
    :func:`pipeline.sources.namespaces.element_prefixes`: one per namespace, default namespaces bound),
    else the element's own."""
    q = etree.QName(el)
    if q.namespace:
        prefix = (prefixes or {}).get(q.namespace) or el.prefix
        return f"{prefix}:{q.localname}" if prefix else q.localname
    return q.localname


def flatten_records(recs: list) -> tuple[list[dict[str, list[str]]], list[str], set[str], set[str]]:
    """:func:`flatten_json` of each JSON record: ``(records, references in first-seen order, odd paths,
    inner paths)``, the paths as :func:`flatten_json` collects them over all records."""
    odd: set[str] = set()
    inner: set[str] = set()
    records = [flatten_json(r, odd=odd, inner=inner) for r in recs]
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    return records, refs, odd, inner


def flatten_json(obj, prefix: str = "", odd: set[str] | None = None,
                  inner: set[str] | None = None) -> dict[str, list[str]]:
    """Leaf values by dotted path; paths through a key holding ``.`` (the engine reads a nested path)
    or white space at its ends (a table cell cannot hold it) go into ``odd``. Spaces inside a key
    (``"book title"``) are fine: Morph-KGC reads them. The path of an array that holds arrays
    (``coords`` for ``[[50.85, 4.35], ...]``) goes into ``inner``: its elements are no values."""
    out: dict[str, list[str]] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            for kk, vv in flatten_json(v, path, odd, inner).items():
                out.setdefault(kk, []).extend(vv)
                if odd is not None and ("." in str(k) or str(k) != str(k).strip()):
                    odd.add(kk)
    elif isinstance(obj, list):
        if inner is not None and prefix and any(isinstance(item, list) for item in obj):
            inner.add(prefix)
        for item in obj:
            for kk, vv in flatten_json(item, prefix, odd, inner).items():
                out.setdefault(kk, []).extend(vv)
    elif obj is not None:
        out[prefix] = [str(obj).lower() if isinstance(obj, bool) else str(obj)]
    return out


def values_path(records: list, ref: str) -> str:
    """The dotted path ``ref`` with ``[*]`` after each member that holds an array in some record
    (``geo.coords`` -> ``geo.coords[*]``, ``items.name`` -> ``items[*].name``): the JSONPath of the
    array's elements. Arrays on the way (of records, or inside arrays) are looked through."""
    def items(node):
        return [x for n in node for x in items(n)] if isinstance(node, list) else [node]

    out, nodes = [], list(records)
    for step in ref.split("."):
        nodes = [n[step] for n in items(nodes) if isinstance(n, dict) and step in n]
        out.append(step + ("[*]" if any(isinstance(n, list) for n in nodes) else ""))
    return ".".join(out)


def _keyed_records(data: dict) -> bool:
    """An object whose members are records keyed by an identifier (``{"S-01": {...}, "S-02": {...}}``,
    a common API form): at least two members, every one an object, and their member names mostly
    shared (at least half of all the names in every one of them)."""
    if len(data) < 2 or not all(isinstance(v, dict) and v for v in data.values()):
        return False
    names = [set(v) for v in data.values()]
    union = set().union(*names)
    return all(len(n) * 2 >= len(union) for n in names) and bool(set.intersection(*names))


def json_records_path(data) -> tuple[str, list]:
    """Where the records of a JSON document are, without an iterator: ``(iterator, records)``.

    An array gives its items (``$[*]``); an object of wrapped fields (:mod:`~pipeline.sources.envelopes`)
    is one record (``$``); else the first member holding an array of objects (``$.people[*]``), an
    object keyed by identifier (``$.*``), the first member holding an array of arrays (rows of values),
    the same inside a member object (``$.data.items[*]``), and last the object itself (``$``). A
    scalar gives ``("$", [])``.
    """
    if isinstance(data, list):
        return "$[*]", data
    if isinstance(data, dict):
        if find_envelopes([data]) is not None:  # its members are wrapped fields of one record, not arrays of records
            return "$", [data]
        for k, v in data.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                return f"$.{k}[*]", v
        if _keyed_records(data):
            return "$.*", list(data.values())
        for k, v in data.items():  # rows of values (a table export): records, which json_records refuses
            if isinstance(v, list) and v and all(isinstance(x, list) for x in v):
                return f"$.{k}[*]", v
        for k, v in data.items():
            if isinstance(v, dict):
                sub, recs = json_records_path(v)
                if recs and sub != "$":
                    return "$." + k + sub[1:], recs
        return "$", [data]
    return "$", []


def _sibling_record_arrays(data, iterator: str) -> list[str]:
    """The other members of the object holding the records that :func:`json_records_path` chose
    (``$.datasets[*]`` in ``{"datasets": [...], "publishers": [...]}``) which are arrays of records
    too: ``["publishers"]``; ``[]`` for any other iterator."""
    if not (iterator.startswith("$.") and iterator.endswith("[*]")):
        return []
    *path, chosen = iterator[2:-3].split(".")
    holder = data
    for k in path:
        holder = holder.get(k) if isinstance(holder, dict) else None
    if not isinstance(holder, dict):
        return []
    return [k for k, v in holder.items() if k != chosen and isinstance(v, list) and v
            and all(isinstance(x, dict) for x in v)]


def _members(data, iterator: str) -> list[str]:
    """The member names the JSONPath ``iterator`` (``$.sensors.*``) selects: the keys of keyed records."""
    return [str(m.path.fields[0]) if getattr(m.path, "fields", None) else str(m.path)
            for m in jp_parse(iterator).find(data)]


def load_json(src: Source, copy: EngineCopy, lines: list[int] | None = None) -> SourceData:
    """Read a JSON source into flattened records (dotted keys relative to the iterator); ``copy`` is
    written for ``null`` members and a byte-order mark. ``lines``: for the JSON array standing in for
    a JSON Lines file, the line of the user's file each of its values is on, so that findings and
    :attr:`SourceData.record_lines` name lines (when the records are those values). Raises
    ``OSError``/``json.JSONDecodeError`` (:func:`~pipeline.sources.load.load_source` turns them into
    findings)."""
    text = src.path.read_text(encoding="utf-8-sig")
    try:
        data = json_numbers.loads(text)
    except RecursionError:  # nested beyond the decoder's recursion limit: say where, as for any other limit
        data = None
    deep = json_too_deep(src.path, text, data)
    if deep is not None:
        return SourceData(src, src.path, src.iterator, findings=[deep])
    linked = '"@context"' in text  # JSON-LD (read below); a document without it is not walked for contexts
    del text
    top = json_top_level(src, data)
    if top is not None:
        return SourceData(src, src.path, src.iterator, findings=[top])
    iterator, recs = json_records_path(data)
    if src.iterator:
        iterator = src.iterator
        try:
            recs = [m.value for m in jp_parse(iterator).find(data)]
        except JSONPathError as exc:  # a manifest's iterator was parsed when it was read; one built in code was not
            return SourceData(src, src.path, iterator, findings=[Finding(
                "source", str(src.path), f"iterator {iterator!r} is no valid JSONPath: {exc}", column="iterator",
                value=iterator, expected="a JSONPath selecting the records")])
    if lines is not None and not (iterator == "$[*]" and isinstance(data, list) and len(data) == len(lines)):
        lines = None  # an iterator into the lines' values: its records are no lines
    kept_lines = [n for n, r in zip(lines, recs) if isinstance(r, dict)] if lines is not None else None
    recs, shape = json_records(src.path, iterator, recs, lines)
    if shape is not None and shape.severity == "error":
        return SourceData(src, src.path, iterator, findings=[shape])
    records, refs, odd, inner = flatten_records(recs)
    repair = json_copy(copy, data)
    out = SourceData(src, copy.path, iterator, refs, records, [f for f in (repair, shape) if f], _json=recs,
                     record_lines=kept_lines)
    out.jsonld = read_contexts(data, iterator) if linked else None
    for note in out.jsonld.notes if out.jsonld is not None else ():
        out.findings.append(Finding("source", str(src.path), note, column="@context", severity="info"))
    for ref in sorted(odd):
        out.unaddressable[ref] = (f"a key on the path {ref!r} holds '.' or starts or ends with white space: "
                                  "Morph-KGC reads a dotted reference as a nested path and a table cell drops the "
                                  "white space, so no reference selects it")
        out.findings.append(Finding("source", str(src.path), out.unaddressable[ref], column="reference", value=ref,
                                    expected="JSON keys without '.' or white space at their ends", severity="warning"))
    for ref in sorted(inner - odd):
        index = values_path(recs, ref) + "[0]"
        out.unaddressable[ref] = (f"the array at {ref!r} holds arrays, which are no values (RML-Core: a reference "
                                  "yields values); an index selector reads one position of each inner array")
        out.findings.append(Finding("source", str(src.path), out.unaddressable[ref], column="reference", value=ref,
                                    expected="arrays of values", candidate=index, severity="warning"))
    others = [] if src.iterator else _sibling_record_arrays(data, iterator)
    if others:  # one array read, its siblings silently not: say so, with the manifest entry that reads them
        base = iterator[:-3].rsplit(".", 1)[0]
        shown = ", ".join(repr(k) for k in others[:3]) + (", ..." if len(others) > 3 else "")
        out.findings.append(Finding(
            "source", str(src.path), f"the object holding the records at {iterator!r} holds {len(others)} more array(s) "
            f"of records ({shown}), which are not read: list the file once per array in the manifest, each with its "
            f"iterator and a name, e.g. {{path: {src.path.name}, iterator: \"{base}.{others[0]}[*]\", name: "
            f"{others[0]}}}", column="iterator", value=iterator, expected="one source per array of records",
            severity="warning", code=UNREAD_RECORDS))
    if not src.iterator and iterator.endswith(".*"):  # the records are the members of a keyed object
        keys = _members(data, iterator)
        shown = ", ".join(repr(k) for k in keys[:3]) + (", ..." if len(keys) > 3 else "")
        out.findings.append(Finding(
            "source", str(src.path), f"the records are the members of an object, keyed by {shown} (iterator "
            f"{iterator!r}): a JSONPath reference cannot read a member's name, so these keys are no data; if they "
            "identify the records, add them as a member of each (\"id\": ...) to map them",
            column="iterator", value=iterator, expected="records that hold their identifier", severity="warning"))
    if not recs:
        out.findings.append(Finding("source", str(src.path), f"iterator {iterator!r} selects no record",
                                    column="iterator", value=iterator, expected="a JSONPath selecting the records",
                                    severity="warning", code=NO_RECORDS))
    return out


def _xml_iterator(root: etree._Element, defaults: dict[str, str]) -> str:
    children = [c for c in root if isinstance(c.tag, str)]
    names = [_qname(c, defaults) for c in children]
    # a root whose children are all one kind of record element (even a single one) holds records
    if children and len(set(names)) == 1 and any(len(c) for c in children):
        return f"/{_qname(root, defaults)}/{names[0]}"
    return f"/{_qname(root, defaults)}"


def _repeating(record: etree._Element, iterator: str, defaults: dict[str, str]) -> list[tuple[str, int]]:
    """Absolute paths of the structured elements (with children or attributes) that occur at least
    twice under one parent below ``record``, with how many there are, in document order."""
    found: dict[str, int] = {}

    def walk(node: etree._Element, path: str) -> None:
        kids = [c for c in node if isinstance(c.tag, str)]
        names = [_qname(c, defaults) for c in kids]
        for c, n in zip(kids, names):
            p = f"{path}/{n}"
            if names.count(n) >= 2 and (len(c) or c.attrib):
                found[p] = found.get(p, 0) + 1
            walk(c, p)

    walk(record, iterator)
    return list(found.items())


#: The XML Schema instance namespace, whose ``type`` attribute names an element's type.
XSI = "http://www.w3.org/2001/XMLSchema-instance"


def xsi_types(elements: list, path: str, iterator: str, namespaces: dict[str, str]) -> Finding | None:
    """The warning that the records at ``iterator`` are of several types by their ``xsi:type``
    attribute, else ``None``.

    ``xsi:type`` names the type of the element that carries it (XML Schema 1.1 Part 1, section 2.7.1):
    records of one element name with different ``xsi:type`` values are different kinds of thing
    (``<Party xsi:type="Person">`` beside ``<Party xsi:type="Organization">``). Read at one iterator
    they are one kind of record, mapped to one class; the manifest can list the file once per type,
    each with an iterator selecting that type's records (a predicate on ``@xsi:type``).

    Args:
        elements: the record elements. path: the file, as messages name it. iterator: the records' XPath.
        namespaces: prefix -> namespace URI, as the iterator and references use them.
    Returns:
        A ``warning`` naming each type with its count and a manifest entry per type; ``None`` when the
        records carry at most one ``xsi:type`` value.
    """
    counts: dict[str, int] = {}
    for e in elements:
        t = e.get(f"{{{XSI}}}type") if isinstance(e, etree._Element) else None
        if t is not None:
            counts[t.strip()] = counts.get(t.strip(), 0) + 1
    if len(counts) < 2:
        return None
    prefix = next((p for p, uri in namespaces.items() if uri == XSI and p), "xsi")
    shown = ", ".join(f"{t!r} ({n})" for t, n in counts.items())
    untyped = len([e for e in elements if isinstance(e, etree._Element)]) - sum(counts.values())
    none = f", {untyped} without one" if untyped else ""
    entries = "; ".join(f"{{path: {Path(path).name}, name: {t.split(':')[-1]}.xml, iterator: "
                        f"\"{iterator}[@{prefix}:type='{t}']\"}}" for t in counts)
    return Finding("source", path, f"the records at {iterator!r} are of {len(counts)} types by their {prefix}:type "
                   f"attribute: {shown}{none}; {prefix}:type names each element's type (XML Schema 1.1 Part 1, "
                   f"section 2.7.1), but read at one iterator they are one kind of record, mapped to one class; to "
                   f"map each type as its own kind, list the file once per type in the manifest: {entries}",
                   column="iterator", value=iterator, expected="one iterator per xsi:type", severity="warning")


#: The namespace of ``xml:lang``, ``xml:id``, bound to ``xml`` in every document (Namespaces in XML, 3).
_XML_NS = "http://www.w3.org/XML/1998/namespace"


def _attribute(el: etree._Element, name: str, prefixes: dict[str, str]) -> str:
    """The XPath step of an attribute: ``@sku``, or ``@xml:lang`` / ``@xlink:href`` for a namespaced one
    (an unprefixed ``@lang`` selects only an attribute in no namespace, XPath 1.0 section 2.3), with the
    prefix its namespace has in ``prefixes`` (URI -> prefix), else one the element binds to it."""
    q = etree.QName(name)
    if not q.namespace:
        return f"@{q.localname}"
    prefix = "xml" if q.namespace == _XML_NS else prefixes.get(q.namespace) or next(
        (k for k, v in (el.nsmap or {}).items() if v == q.namespace and k), None)
    return f"@{prefix}:{q.localname}" if prefix else f"@{{{q.namespace}}}{q.localname}"


def _xml_record(el: etree._Element, defaults: dict[str, str], mixed: set[str] | None = None) -> dict[str, list[str]]:
    """The values of one record element by reference (``defaults``: namespace URI -> prefix); the references
    of the elements met with mixed content (text beside child elements) are added to ``mixed``."""
    out: dict[str, list[str]] = {}
    for a, v in el.attrib.items():
        out.setdefault(_attribute(el, a, defaults), []).append(v)

    def walk(node: etree._Element, path: str) -> None:
        for child in node:
            if not isinstance(child.tag, str):
                continue
            p = f"{path}/{_qname(child, defaults)}" if path else _qname(child, defaults)
            text = (child.text or "").strip()
            if len(child) == 0:
                out.setdefault(p, []).append(text)
            elif text or any((c.tail or "").strip() for c in child):
                # mixed content (<title>The <i>Night</i> Watch</title>): the element's string value, as the
                # engine reads it (XPath 1.0 section 5.2), besides its children's columns
                out.setdefault(p, []).append(" ".join("".join(child.itertext()).split()))
                if mixed is not None:
                    mixed.add(p)
            for a, v in child.attrib.items():
                out.setdefault(f"{p}/{_attribute(child, a, defaults)}", []).append(v)
            walk(child, p)

    walk(el, "")
    return out


def xml_step(el: etree._Element, defaults: dict[str, str]) -> str:
    """The step of ``el`` as the references of a loaded source write it (``prefix:local``, the prefix
    of its namespace in ``defaults``, namespace URI -> prefix: ``SourceData.element_prefixes``)."""
    return _qname(el, defaults)


def xml_records(data: SourceData, iterator: str,
                mixed: set[str] | None = None) -> tuple[list[dict[str, list[str]]], list[str]]:
    """The records of a loaded XML source read at another ``iterator`` (an XPath on the same document),
    and their references in document order, as :func:`load_xml` reads them; the references of elements
    with mixed content are added to ``mixed`` (see :func:`markup_references`)."""
    tree = data._tree
    elements = tree.xpath(iterator, namespaces=data.namespaces) if tree is not None else []
    records = [_xml_record(e, data.element_prefixes, mixed) for e in elements if isinstance(e, etree._Element)]
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    return records, refs


def markup_references(refs: list[str], mixed: set[str]) -> dict[str, str]:
    """The references inside elements of mixed content: reference -> the mixed element's reference.

    An element type whose elements hold text beside child elements has mixed content (XML 1.0, section
    3.2.2: a property of the type, so one record showing it says it for all); its child elements are
    markup within that text (``<summary>A novel by <name>Jane Austen</name> ...</summary>``), read whole
    as the element's string value (XPath 1.0 section 5.2), not values of the record. The mixed element's
    own attributes (``summary/@xml:lang``) qualify the text and are no markup.
    """
    out: dict[str, str] = {}
    for ref in refs:
        for m in sorted(mixed, key=len):
            if ref.startswith(m + "/") and not ref[len(m) + 1:].startswith("@"):
                out[ref] = m
                break
    return out


def load_xml(src: Source, copy: EngineCopy) -> SourceData:
    """Read an XML source into records (element and attribute paths relative to the iterator),
    detecting the iterator; ``copy`` is written for another encoding than UTF-8, undeclared prefixes
    and default namespaces. Malformed XML becomes findings."""
    findings = []
    declared = xml_encoding(src.path)
    if declared:  # the engine reads XML as UTF-8: it gets a UTF-8 copy, which the repairs below start from
        findings.append(xml_utf8_copy(copy, declared))
    findings += declare_prefixes(copy)
    try:
        tree = parse_xml(copy.path)
    except etree.XMLSyntaxError as exc:
        findings.append(xml_parse_error(src.path, exc, copy.path))
        return SourceData(src, copy.path, src.iterator, findings=findings)
    deep = xml_too_deep(src.path, tree)
    if deep is not None:  # the record walks below recurse once per level
        findings.append(deep)
        return SourceData(src, copy.path, src.iterator, findings=findings)
    entity = unresolved_entity(tree)
    if entity is not None:
        findings.append(Finding("source", str(src.path), entity[1], line=entity[0], column="entity",
                                expected="entities declared in the document itself, no SYSTEM or PUBLIC entity, "
                                "no external DTD; replace the reference by its text"))
        return SourceData(src, copy.path, src.iterator, findings=findings)
    root = tree.getroot()
    empty = xml_no_records(src.path, root)
    if empty is not None:
        findings.append(empty)
        return SourceData(src, copy.path, src.iterator, findings=findings)
    defaults, bound = bind_default_namespaces(copy, root)
    findings += bound
    # one prefix per namespace URI: a prefix declared again for another namespace names only one of them
    prefixes, rebound = element_prefixes(root, defaults)
    namespaces = {p: uri for uri, p in prefixes.items()}
    namespaces.update((p, uri) for p, uri in xml_namespaces(root).items() if p not in namespaces
                      and not any(p == q for q, _ in rebound))
    findings += one_prefix_per_namespace(copy, tree, prefixes, namespaces, rebound)
    iterator = src.iterator or _xml_iterator(root, prefixes)
    elements: list = []
    try:
        elements = tree.xpath(iterator, namespaces=namespaces)
    except etree.XPathError as exc:
        findings.append(Finding("source", str(src.path), f"iterator {iterator!r} is no valid XPath: {exc}",
                                column="iterator", value=iterator, expected="an XPath selecting the records"))
    if not elements and defaults and src.iterator:
        for p in dict.fromkeys(defaults.values()):
            bound_it = bind_default_prefix(iterator, p)
            try:
                hits = tree.xpath(bound_it, namespaces=namespaces)
            except etree.XPathError:
                continue
            if hits:
                findings.append(Finding("source", str(src.path), f"iterator {iterator!r} names elements of the "
                                        f"default namespace <{ {v: k for k, v in defaults.items()}[p]}> without a "
                                        f"prefix; read as {bound_it!r}", column="iterator", value=iterator,
                                        expected="a namespaced XPath", candidate=bound_it, severity="warning"))
                iterator, elements = bound_it, hits
                break
    mixed: set[str] = set()
    records = [_xml_record(e, prefixes, mixed) for e in elements if isinstance(e, etree._Element)]
    if not records and not any(f.column == "iterator" for f in findings):
        ns = f"; the document's elements are in the default namespace <{next(iter(defaults))}>" if defaults else ""
        findings.append(Finding("source", str(src.path), f"iterator {iterator!r} selects no record{ns}",
                                column="iterator", value=iterator, expected="an XPath selecting the records",
                                candidate=_xml_iterator(root, prefixes), severity="warning", code=NO_RECORDS))
    if not src.iterator and len(records) == 1 and (repeats := _repeating(elements[0], iterator, prefixes)):
        shown = ", ".join(f"{p} ({n})" for p, n in repeats[:5]) + (", ..." if len(repeats) > 5 else "")
        first = repeats[0][0]
        # a document (a notice) has values of its own beside its parts; a root whose children hold no
        # text of their own only groups collections (teachers, departments): a cross product is sure
        own_text = any(isinstance(c.tag, str) and len(c) == 0 and (c.text or "").strip() for c in elements[0])
        findings.append(Finding(
            "source", str(src.path), f"the file is read as one record (iterator {iterator!r}) holding repeating "
            f"elements {shown}: the values of one element are combined with those of another per record (a cross "
            f"product) unless they describe parts of one document; to read each as records of its own, list the "
            f"file once per element in the manifest, each with a 'name' and its 'iterator' (e.g. {{path: "
            f"{src.path.name}, name: {first.rsplit('/', 1)[-1].split(':')[-1]}.xml, iterator: {first}}})",
            column="iterator", value=iterator, expected="one iterator per kind of record", candidate=first,
            severity="info" if own_text else "warning"))
    typed = xsi_types(elements, str(src.path), iterator, namespaces)
    if typed is not None:
        findings.append(typed)
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    data = SourceData(src, copy.path, iterator, refs, records, findings, namespaces, _tree=tree)
    data.default_prefixes = defaults
    data.element_prefixes = prefixes
    data.markup = markup_references(refs, mixed)
    for ref in refs:  # a prefixed attribute is read by the engine correction (materialize.readers.expanded_name)
        if re.search(r"@[^/@]*\{[^/@]*$", ref):
            data.unaddressable[ref] = (
                f"the attribute {ref.rsplit('/', 1)[-1]!r} is in a namespace the document binds to no prefix: "
                f"an RML reference cannot name it (the braces of its expanded name delimit template references)")
            findings.append(Finding("source", str(src.path), data.unaddressable[ref], column="reference", value=ref,
                                    expected="attributes in no namespace", severity="warning"))
    return data
