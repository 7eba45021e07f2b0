"""XML logical sources in the RML normalisation pass (:func:`pipeline.materialize.rml.normalize.normalize_rml`).

A reference to an element or attribute that no record of the source has is bad input when it looks
misspelt, else a field these data lack, said as a warning (:func:`xml_references`,
:mod:`pipeline.materialize.rml.absent`), as for JSON keys
(:func:`pipeline.materialize.rml.json_sources.json_datatypes`): the engine would yield nothing for
it, silently.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree
from rdflib import Graph, Literal
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.findings import Finding
from pipeline.materialize.rml.absent import misspelling
from pipeline.materialize.rml.check import mapping_nodes, node_name, term_maps, triples_maps
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, RML
from pipeline.materialize.views.derive import source_of, viewed_source
from pipeline.materialize.views.records import iterate, read_document
from pipeline.sources.namespaces import bind_default_prefix

__all__ = ["xml_references", "xml_languages", "xml_iterators"]

_NAME = r"[A-Za-z_][\w.\-]*"
#: A reference checked here: a child path of element names ending in an element or an attribute
#: (``Name``, ``address/city``, ``@id``, ``address/@type``). Prefixed names, ``..``, predicates and
#: functions are left alone, and so are records in a default namespace: there the absence may be
#: the document's namespaces or a computed value.
_PLAIN = re.compile(rf"^(?:{_NAME}/)*@?{_NAME}$")


#: A reference whose last step is the attribute ``xml:lang`` (``@xml:lang``, ``dc:title/@xml:lang``).
_XML_LANG = re.compile(r"^(?P<path>.*/)?@xml:lang$")
#: Its reading by XML 1.0 section 2.12: the nearest ``xml:lang`` on the element or an ancestor; an
#: empty one (``xml:lang=""``) says there is no language, so it selects nothing.
_INHERITED = "ancestor-or-self::*[@xml:lang][1]/@xml:lang[. != '']"


def inherited_language(reference: str) -> str | None:
    """The XPath that reads ``reference``'s ``xml:lang`` as XML inherits it, or ``None`` when the
    reference is no ``xml:lang`` attribute (``dc:title/@xml:lang`` ->
    ``dc:title/ancestor-or-self::*[@xml:lang][1]/@xml:lang[. != '']``)."""
    m = _XML_LANG.match(reference.strip())
    return None if m is None else (m.group("path") or "") + _INHERITED


def xml_languages(g: Graph) -> None:
    """Rewrite, in place, the references (and template placeholders) of XPath logical sources that read
    ``xml:lang`` so that they read the language XML gives the element: the attribute is inherited
    from the nearest ancestor that declares it and ``xml:lang=""`` means no language (XML 1.0
    section 2.12). The rewritten XPath is evaluated by the derived-source pass
    (:mod:`pipeline.materialize.views.derive`), which the engine's reader cannot do."""
    seen: set[Node] = set()
    for view in set(g.subjects(RML.viewOn, None)):  # a logical view on XML: its fields read the data
        if _xpath(g, viewed_source(g, view)):
            _view_languages(g, view, set())
    for tm in triples_maps(g):
        ls = g.value(tm, RML.logicalSource)
        if not _xpath(g, ls):
            continue
        for node in mapping_nodes(g, tm, seen):
            for p, o in list(g.predicate_objects(node)):
                if p == RML.reference and isinstance(o, Literal) and inherited_language(str(o)):
                    g.set((node, p, Literal(inherited_language(str(o)))))
                elif p == RML.template and isinstance(o, Literal) and "xml:lang" in str(o):
                    g.set((node, p, Literal(re.sub(r"(?<!\\)\{([^{}]*)\}",
                                                   lambda m: "{" + (inherited_language(m.group(1)) or m.group(1)) + "}",
                                                   str(o)))))


def _xpath(g: Graph, ls: Node | None) -> bool:
    """Whether the logical source ``ls`` is read with XPath."""
    formulation = str(g.value(ls, RML.referenceFormulation)) if ls is not None else ""
    return formulation.endswith(("XPath", "XPathReferenceFormulation"))


def _view_languages(g: Graph, node: Node, seen: set[Node]) -> None:
    """:func:`xml_languages` for the fields of a logical view on XML (nested fields too; a field that
    states another reference formulation is left as it is)."""
    for field in g.objects(node, RML.field):
        if field in seen or (g.value(field, RML.referenceFormulation) is not None and not _xpath(g, field)):
            continue
        seen.add(field)
        ref = g.value(field, RML.reference)
        if isinstance(ref, Literal) and inherited_language(str(ref)):
            g.set((field, RML.reference, Literal(inherited_language(str(ref)))))
        _view_languages(g, field, seen)


def _shape(root: etree._Element) -> str:
    """The root element of a document and its child elements, for a message: ``root element
    <catalog> in the default namespace <urn:x>; its child elements: item, note``."""
    qname = etree.QName(root)
    children = list(dict.fromkeys(etree.QName(c).localname for c in root if isinstance(c.tag, str)))
    ns = ""
    if qname.namespace:
        prefix = next((p for p, u in (root.nsmap or {}).items() if u == qname.namespace), None)
        ns = (f" in the default namespace <{qname.namespace}> (an unprefixed name in the iterator or a "
              "reference names it)" if prefix is None else f" in the namespace <{qname.namespace}> (prefix "
              f"'{prefix}:')")
    return (f"root element <{qname.localname}>{ns}; its child elements: "
            f"{', '.join(children[:10]) + (' ...' if len(children) > 10 else '') or 'none'}")


def xml_iterators(g: Graph, where: str, limit: int = 50_000_000) -> list[Finding]:
    """Say an XPath iterator that selects no element of a file whose root element has children.

    Evaluated as the engine reads it (unprefixed names in the document's default namespace, see
    :func:`pipeline.materialize.views.records.default_element_prefix`); an iterator lxml cannot
    evaluate (XPath 2 or 3) and files over ``limit`` bytes are not checked.

    Returns:
        A ``warning`` per such TriplesMap (it yields no triple from the file), naming the root
        element, its namespace and its child elements.
    Raises:
        RMLError: when another TriplesMap's iterator selects elements of the same file (this
            iterator is misspelt, not the data empty: as for JSON,
            :func:`pipeline.materialize.rml.json_sources.json_datatypes`).
    """
    counts: dict[tuple[str, str], int | None] = {}
    roots: dict[str, etree._Element] = {}
    read: list[tuple[Node, str, str]] = []
    for tm in triples_maps(g):
        ls = g.value(tm, RML.logicalSource)
        if ls is None or not _xpath(g, ls) or g.value(ls, RML.viewOn) is not None:
            continue
        try:
            src = source_of(g, ls)
            if not src.path.is_file() or src.path.stat().st_size > limit:
                continue
        except (RMLError, OSError):
            continue  # no file: said by the checks of the logical sources
        key = (str(src.path), src.iterator or "")
        if key not in counts:
            try:
                doc = read_document(src)
                roots[key[0]] = doc.getroot()
                counts[key] = len(iterate("XPath", doc, src.iterator, namespaces=dict(src.namespaces)))
            except (InputError, OSError):
                counts[key] = None  # unreadable or beyond XPath 1.0: said elsewhere, or by the engine
        read.append((tm, *key))
    findings = _document_iterators(g, read, counts, roots, where)
    for tm, path, iterator in read:
        root = roots.get(path)
        if counts[(path, iterator)] != 0 or root is None or not len(root):
            continue
        other = next(((o, it) for o, p, it in read if p == path and counts[(p, it)]), None)
        said = (f"TriplesMap {node_name(tm)}: the XPath iterator {iterator!r} selects no element of "
                f"{Path(path).name} ({_shape(root)})")
        if other is not None:
            raise RMLError(f"{said}, while the iterator {other[1]!r} of TriplesMap {node_name(other[0])} selects "
                           f"{counts[(path, other[1])]}", path=where)
        findings.append(Finding("normalise", where, f"{said}: it yields no triple", column="iterator",
                                value=iterator, severity="warning"))
    return findings


#: A relative XPath location path (``a/b``, ``ns:a``, ``*``, ``child::a``): no leading ``/``, ``.``,
#: ``(``, ``$`` and no union, whose parts could be read from different contexts.
_RELATIVE = re.compile(r"^\s*(?:[A-Za-z_*@]|[A-Za-z_][\w.\-]*::)[^|]*$")


def _document_iterators(g: Graph, read: list[tuple[Node, str, str]], counts: dict, roots: dict,
                        where: str) -> list[Finding]:
    """Read a relative XPath iterator from the document node, as XPath evaluates a path with the
    document as its context (CARML and the RMLMapper read ``Catalog/Item`` as ``/Catalog/Item``),
    when it selects nothing from the root element (where the engine and lxml start a relative path)
    and ``/`` + it selects elements: the logical source's ``rml:iterator`` is rewritten in ``g`` and
    ``counts``/``read`` follow it. An iterator that selects elements from the root element is left
    as it is (mappings written for Morph-KGC).

    Returns:
        An ``info`` finding per rewritten iterator.
    """
    findings = []
    for i, (tm, path, iterator) in enumerate(read):
        if counts.get((path, iterator)) != 0 or not _RELATIVE.match(iterator) or path not in roots:
            continue
        absolute = "/" + iterator.strip()
        if (path, absolute) not in counts:
            try:
                counts[(path, absolute)] = len(iterate("XPath", roots[path].getroottree(), absolute,
                                                       namespaces=dict(source_of(g, g.value(tm, RML.logicalSource))
                                                                       .namespaces)))
            except (InputError, RMLError):
                counts[(path, absolute)] = None
        if not counts[(path, absolute)]:
            continue
        ls = g.value(tm, RML.logicalSource)
        g.set((ls, RML.iterator, Literal(absolute)))
        read[i] = (tm, path, absolute)
        findings.append(Finding("normalise", where, f"TriplesMap {node_name(tm)}: the XPath iterator {iterator!r} is "
                                f"relative: read from the document node, as {absolute!r} ({counts[(path, absolute)]} "
                                "element(s))", column="iterator", value=iterator, severity="info"))
    return findings


def xml_references(g: Graph, maps: list[Node], where: str, limit: int = 50_000_000) -> list[Finding]:
    """Refuse an object map's reference, or a term map's template placeholder, that selects nothing in
    every record of its XML source and looks misspelt; say the others.

    Reads each XML source (files up to ``limit`` bytes) once per iterator; sources the engine does
    not read itself (derived sources, :mod:`pipeline.materialize.views.derive`) are skipped.

    Args:
        g: the unified RML graph with resolved, absolute source paths.
        maps: its TriplesMaps. where: the mapping file, for messages.
        limit: largest source read, in bytes (a larger one is not checked).
    Returns:
        A ``warning`` per reference that selects nothing and is close to nothing the records hold
        (a field these data lack: :mod:`pipeline.materialize.rml.absent`).
    Raises:
        RMLError: a reference that selects nothing and looks misspelt; names the TriplesMap, the
            reference, the file, the iterator and the name the records hold.
    """
    findings: list[Finding] = []
    cache: dict[tuple[str, str], list] = {}
    held: dict[tuple[str, str], set[str]] = {}  # the paths the records hold, read once (when a reference is absent)
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.source) is None or str(g.value(ls, RML.source)).endswith(DERIVED_SUFFIX):
            continue
        refs = [(str(ref), f"the object map's reference {str(ref)!r}") for pom in g.objects(tm, RML.predicateObjectMap)
                for om in g.objects(pom, RML.objectMap) for ref in g.objects(om, RML.reference) if _PLAIN.match(str(ref))]
        # a template's placeholder is a reference too (R2RML section 7.4): every record lacking it gives no term
        refs += [(ref, f"the {role}'s template {str(template)!r} names {ref!r}, which")
                 for role, node in term_maps(g, tm) for template in g.objects(node, RML.template)
                 for ref in re.findall(r"(?<!\\)\{([^{}]*)\}", str(template)) if _PLAIN.match(ref)]
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
                its = [] if big else iterate("XPath", read_document(src), src.iterator, where=src.label())
                # a default namespace: unprefixed names are read in it (as the engine does)
                cache[key] = [(it.document(), it.namespaces, it.default) for it in its]
            except (OSError, InputError):
                cache[key] = []  # an unreadable source is reported by the load-time checks
        records = cache[key]
        for ref, what in refs:
            if records and not any(_selects(element, bind_default_prefix(ref, default) if default else ref, ns)
                                   for element, ns, default in records):
                element, ns, default = records[0]
                hint = (f"; the records' elements are in the default namespace <{ns[default]}>, which an unprefixed "
                        "name selects" if default else "")
                if key not in held:
                    held[key] = _paths(records)
                near = misspelling(ref, held[key], "/")
                if _PLAIN.match(ref) and "@" not in ref and any(_selects(e, f"@{ref}", n) for e, n, _ in records):
                    near = f"the attribute '@{ref}' has values"  # an attribute written as an element name
                said = f"TriplesMap {node_name(tm)}: {what} selects nothing in any record of {src.path.name}"
                if near:
                    raise RMLError(f"{said} (iterator {src.iterator}{hint}; {near})", path=where)
                findings.append(Finding("normalise", where, f"{said} (iterator {src.iterator}{hint}): no term from "
                                        "it (nothing the records hold is close to the name: a field these data lack)",
                                        column=ref, severity="warning"))
    return findings


#: records and elements per record read for the names they hold (a message's hint, not a count)
_SCAN = 2000


def _paths(records: list) -> set[str]:
    """The paths, relative to the record element, of the elements and attributes the first
    :data:`_SCAN` records hold (``Name``, ``address/city``, ``@id``, ``address/@type``; local names),
    at most :data:`_SCAN` nodes per record."""
    paths: set[str] = set()
    for element, _, _ in records[:_SCAN]:
        todo, seen = [(element, "")], 0
        while todo and seen < _SCAN:
            node, here = todo.pop()
            seen += 1
            paths.update((here + "/" if here else "") + "@" + etree.QName(a).localname for a in node.attrib)
            for child in node:
                if isinstance(child.tag, str):
                    path = (here + "/" if here else "") + etree.QName(child).localname
                    paths.add(path)
                    todo.append((child, path))
    return paths


def _selects(element: etree._Element, ref: str, namespaces: dict[str, str]) -> bool:
    try:
        return bool(element.xpath(ref, namespaces=namespaces))
    except etree.XPathError:
        return True  # not checked here: the engine's own reading reports it
