"""XML namespaces of a source: declared, undeclared and default ones, and XPath written with them.

* Undeclared prefixes (CODICE feeds use ``cac:``/``cbc:`` without declaring them):
  :func:`undeclared_prefixes` finds them, :data:`KNOWN_XML_NAMESPACES` says what the
  conventional ones stand for, :func:`declare_on_root` adds declarations to a document's text.
* Default namespaces (``xmlns="urn:..."``): XPath 1.0 has no default element namespace, so an
  unprefixed step never matches a namespaced element (XPath 1.0, section 2.3).
  :func:`default_namespace_prefixes` binds every default namespace URI to a prefix (the
  document's own prefix for that URI when it has one, else ``d``, ``d2`` ...) and
  :func:`bind_default_prefix` rewrites an unprefixed XPath into the bound form.

The copies that declare these prefixes for the engine are written by :mod:`pipeline.sources.engine_copy`.
"""
from __future__ import annotations

import re

from lxml import etree

__all__ = ["KNOWN_XML_NAMESPACES", "undeclared_prefixes", "declare_on_root", "default_namespace_prefixes",
           "bind_default_prefix", "xml_namespaces"]

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
