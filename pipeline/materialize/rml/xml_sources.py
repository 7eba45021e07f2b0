"""XML logical sources in the RML normalisation pass (:func:`pipeline.materialize.rml.normalize.normalize_rml`).

A reference to an element or attribute that no record of the source has is bad input
(:func:`xml_references`), as for JSON keys (:func:`pipeline.materialize.rml.json_sources.json_datatypes`)
and CSV columns: R2RML section 6.3 makes a reference name a column of the logical source, and the
engine would yield nothing for it, silently.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree
from rdflib import Graph, Literal
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.findings import Finding
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
    findings = []
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


def xml_references(g: Graph, maps: list[Node], where: str, limit: int = 50_000_000) -> None:
    """Refuse an object map's reference, or a term map's template placeholder, that selects nothing in
    every record of its XML source.

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
                if _PLAIN.match(ref) and "@" not in ref and any(_selects(e, f"@{ref}", n) for e, n, _ in records):
                    hint += f"; the attribute '@{ref}' has values"  # an attribute written as an element name
                raise RMLError(f"TriplesMap {node_name(tm)}: {what} selects nothing in "
                               f"any record of {src.path.name} (iterator {src.iterator}{hint})", path=where)


def _selects(element: etree._Element, ref: str, namespaces: dict[str, str]) -> bool:
    try:
        return bool(element.xpath(ref, namespaces=namespaces))
    except etree.XPathError:
        return True  # not checked here: the engine's own reading reports it
