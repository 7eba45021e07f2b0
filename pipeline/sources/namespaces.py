"""XML namespaces of a source: declared, undeclared and default ones, and XPath written with them.

* Undeclared prefixes (CODICE feeds use ``cac:``/``cbc:`` without declaring them):
  :func:`undeclared_prefixes` finds them, :data:`KNOWN_XML_NAMESPACES` says what the
  conventional ones stand for, :func:`declare_on_root` adds declarations to a document's text.
* Default namespaces (``xmlns="urn:..."``): XPath 1.0 has no default element namespace, so an
  unprefixed step never matches a namespaced element (XPath 1.0, section 2.3).
  :func:`default_namespace_prefixes` binds every default namespace URI to a prefix (the
  document's own prefix for that URI when it has one, else ``d``, ``d2`` ...) and
  :func:`bind_default_prefix` rewrites an unprefixed XPath into the bound form.

* Prefixes bound to several namespaces (``xmlns:d="..."`` declared again on a record with another
  URI): an element's name is its namespace URI and local part, a prefix only a scoped abbreviation
  (Namespaces in XML 1.0, section 6). :func:`element_prefixes` gives every namespace URI of a
  document one prefix and every prefix one URI, so a reference names one namespace.

The copies that declare these prefixes for the engine are written by :mod:`pipeline.sources.engine_copy`.
"""
from __future__ import annotations

import re

from lxml import etree

__all__ = ["KNOWN_XML_NAMESPACES", "undeclared_prefixes", "declare_on_root", "default_namespace_prefixes",
           "bind_default_prefix", "xml_namespaces", "element_prefixes", "Rebinding"]

#: Namespace URIs of the CODICE (Spanish public procurement, PLACSP) schemas and
#: the Atom/UBL ones they travel with, by their conventional prefix.
KNOWN_XML_NAMESPACES: dict[str, str] = {
    "cac": "urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2",
    "cac-place-ext": "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2",
    "cbc-place-ext": "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    "at": "http://purl.org/atompub/tombstones/1.0",
    "atom": "http://www.w3.org/2005/Atom",
}

_QNAME_USE = re.compile(r"</?([A-Za-z_][\w.\-]*):[A-Za-z_][\w.\-]*|\s([A-Za-z_][\w.\-]*):[A-Za-z_][\w.\-]*\s*=")
_DECL = re.compile(r"xmlns:([A-Za-z_][\w.\-]*)\s*=")
_PROLOG = re.compile(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", re.S)


def undeclared_prefixes(text: str) -> list[str]:
    """Namespace prefixes used in element/attribute names of ``text`` but never declared.

    ``xml`` and ``xmlns`` are always declared. Returns sorted prefixes.
    """
    used = {m.group(1) or m.group(2) for m in _QNAME_USE.finditer(text)}
    declared = set(_DECL.findall(text)) | {"xml", "xmlns"}
    return sorted(p for p in used - declared if p)


def declare_on_root(text: str, prefixes: dict[str, str]) -> str | None:
    """``text`` with ``xmlns:p="uri"`` declarations added to its root start tag (``None``: no root)."""
    m = re.search(r"<([A-Za-z_][\w.\-:]*)", _PROLOG.sub(lambda x: " " * len(x.group()), text))
    if not m:
        return None
    decls = "".join(f' xmlns:{p}="{uri}"' for p, uri in prefixes.items())
    return text[:m.end()] + decls + text[m.end():]


def xml_namespaces(root: etree._Element) -> dict[str, str]:
    """All prefix -> URI declarations in a parsed document (default namespace left out)."""
    out: dict[str, str] = {}
    for el in root.iter():
        for p, uri in (el.nsmap or {}).items():
            if p:
                out.setdefault(p, uri)
    return out


#: A prefix the document binds to several namespace URIs: ``(prefix, [(URI, line of its first declaration)])``.
Rebinding = tuple[str, list[tuple[str, "int | None"]]]


def element_prefixes(root: etree._Element, defaults: dict[str, str]) -> tuple[dict[str, str], list[Rebinding]]:
    """One prefix per namespace URI of a document, no prefix for two URIs: ``({URI: prefix}, rebindings)``.

    A reference names elements by prefix, and a prefix names one namespace only where it is declared
    (Namespaces in XML 1.0, sections 5 and 6): a document that declares ``xmlns:d`` for Dublin Core on
    one record and for ``urn:other`` on another, or Dublin Core as ``d`` here and ``t`` there, has no
    single reading of ``d:title`` unless every name is written with one prefix per namespace.
    Each URI takes the first prefix declared for it (document order) that no other URI took first; a
    default namespace takes its prefix from ``defaults`` (:func:`default_namespace_prefixes`); a URI left
    without one (its prefix was bound to another URI first) takes the prefix with the lowest number
    appended that the document does not use (``d2``).

    Args:
        root: the parsed document's root element. defaults: default namespace URI -> prefix.
    Returns:
        The map, and each prefix bound to more than one URI with the URIs and the line of their first
        declaration (empty for a document whose every prefix names one namespace).
    """
    out: dict[str, str] = {}
    bound: dict[str, list[tuple[str, int | None]]] = {}
    met: set[tuple[str, str]] = set()
    for el in root.iter(tag=etree.Element):
        # a declaration in scope was met first on the element declaring it (document order), with its line
        for p, uri in (el.nsmap or {}).items():
            if not p or (p, uri) in met:
                continue
            met.add((p, uri))
            bound.setdefault(p, []).append((uri, el.sourceline))
            if uri not in out and p not in out.values():
                out[uri] = p
    for uri, p in defaults.items():
        out.setdefault(uri, p)
    used = set(bound) | set(out.values())
    for p, seen in bound.items():
        for uri, _ in seen:
            if uri in out:
                continue
            n = 2
            while f"{p}{n}" in used:
                n += 1
            out[uri] = f"{p}{n}"
            used.add(out[uri])
    return out, [(p, seen) for p, seen in bound.items() if len(seen) > 1]


def default_namespace_prefixes(root: etree._Element) -> dict[str, str]:
    """Prefix bound to every default namespace URI declared in the document: ``{uri: prefix}``.

    The document's own prefix for the same URI is reused (``xmlns="u"`` beside ``xmlns:n="u"``);
    otherwise ``d``, ``d2``, ``d3`` ... in document order, never a prefix the document declares.
    """
    declared: dict[str, str] = {}
    defaults: list[str] = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for p, uri in (el.nsmap or {}).items():
            if p:
                declared.setdefault(uri, p)
            elif uri not in defaults:
                defaults.append(uri)
    taken = set(declared.values())
    out: dict[str, str] = {}
    n = 1
    for uri in defaults:
        if uri in declared:
            out[uri] = declared[uri]
            continue
        while (name := "d" if n == 1 else f"d{n}") in taken:
            n += 1
        taken.add(name)
        out[uri] = name
    return out


_OPERATORS = {"and", "or", "div", "mod"}
_TOKEN = re.compile(r"""('[^']*'|"[^"]*")|([@$]?)([A-Za-z_][\w.\-]*)(\s*::|\s*\(|:(?=[A-Za-z_*]))?""")


def bind_default_prefix(expr: str, prefix: str) -> str:
    """Rewrite the unprefixed element name tests of an XPath 1.0 expression as ``prefix:name``.

    Attributes (``@id``: unprefixed attributes are in no namespace), variables, function names,
    axis names, already prefixed names, string literals and the operators ``and``/``or``/``div``/
    ``mod`` (between two expressions) are kept. ``/catalog/item[code='A1']/title`` becomes
    ``/d:catalog/d:item[d:code='A1']/d:title``.
    """
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(expr):
        out.append(expr[pos:m.start()])
        pos = m.end()
        literal, sigil, name, tail = m.group(1), m.group(2), m.group(3), m.group(4)
        before = expr[:m.start()].rstrip()
        prefixed = m.start() > 0 and expr[m.start() - 1] == ":" and not expr[:m.start()].endswith("::")
        if literal or sigil or tail or prefixed or (name in _OPERATORS and before and before[-1] not in "/[(,|:@"):
            out.append(m.group(0))
        else:
            out.append(f"{prefix}:{name}")
    out.append(expr[pos:])
    return "".join(out)
