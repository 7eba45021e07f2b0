"""Repaired input copies for the engine, and XPath namespace binding.

The inputs are never modified; a repair writes a copy into the run folder and
reports what it changed (a :class:`~pipeline.findings.Finding` of stage
``xml-repair`` / ``json-repair``), and the engine copy of the mapping reads it.

* Undeclared XML prefixes (CODICE feeds use ``cac:``/``cbc:`` without declaring
  them): :func:`repair_xml` declares the standard CODICE namespaces on the root.
* Default XML namespaces (``xmlns="urn:..."``): XPath 1.0 has no default element
  namespace, so an unprefixed step never matches a namespaced element (XPath 1.0,
  section 2.3). :func:`default_namespace_prefixes` binds every default namespace URI
  to a prefix (the document's own prefix for that URI when it has one, else ``d``,
  ``d2`` ...); :func:`declare_on_root` writes a copy declaring those prefixes so the
  engine resolves the prefixed iterators and references; :func:`bind_default_prefix`
  rewrites an unprefixed XPath into the bound form.
* JSON nulls: Morph-KGC 2.10 drops every value of a JSON object one of whose members
  is ``null`` (its reader discards any normalised record holding a ``None``), so
  :func:`strip_json_nulls` writes a copy without null members (a missing member and a
  null one carry the same information for RML: no value).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from lxml import etree

from pipeline.findings import Finding

__all__ = ["KNOWN_XML_NAMESPACES", "undeclared_prefixes", "repair_xml", "default_namespace_prefixes",
           "declare_on_root", "bind_default_prefix", "strip_json_nulls", "repair_mapping_sources"]

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


def repair_xml(path: Path, out_dir: Path) -> tuple[Path, list[Finding]]:
    """Declare undeclared namespace prefixes of an XML file in a repaired copy.

    Args:
        path: the input XML file (read only).
        out_dir: folder for the repaired copy (created); the copy keeps the file name.
    Returns:
        ``(path_to_read, findings)``: the repaired copy when a repair was needed,
        else ``path`` itself; one finding per declared or unresolvable prefix.
        An unresolvable prefix is declared as ``urn:undeclared:<prefix>`` so the
        document parses, and reported as an error.
    """
    text = path.read_text(encoding="utf-8")
    missing = undeclared_prefixes(text)
    if not missing:
        return path, []
    findings = []
    decls: dict[str, str] = {}
    for p in missing:
        ns = KNOWN_XML_NAMESPACES.get(p)
        if ns:
            findings.append(Finding("xml-repair", str(path), f"undeclared namespace prefix {p!r} declared as <{ns}>",
                                    column="namespace", value=p, expected="a declared prefix", candidate=ns,
                                    severity="warning"))
        else:
            ns = f"urn:undeclared:{p}"
            findings.append(Finding("xml-repair", str(path), f"undeclared namespace prefix {p!r} is no known "
                                    f"namespace; declared as <{ns}> so the file parses",
                                    column="namespace", value=p, expected="a declared prefix", severity="error"))
        decls[p] = ns
    repaired = declare_on_root(text, decls)
    if repaired is None:
        return path, findings
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    target.write_text(repaired, encoding="utf-8")
    return target, findings


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


def _strip_nulls(obj: Any) -> tuple[Any, int]:
    if isinstance(obj, dict):
        kept, n = {}, 0
        for k, v in obj.items():
            if v is None:
                n += 1
                continue
            kept[k], m = _strip_nulls(v)
            n += m
        return kept, n
    if isinstance(obj, list):
        items, n = [], 0
        for v in obj:
            if v is None:
                n += 1
                continue
            item, m = _strip_nulls(v)
            items.append(item)
            n += m
        return items, n
    return obj, 0


def strip_json_nulls(path: Path, data: Any, out_dir: Path) -> tuple[Path, Finding | None]:
    """Write a copy of a JSON document without ``null`` members / items when it has any.

    Args:
        path: the input file (read only; names the finding). data: its parsed content.
        out_dir: folder for the copy (created); the copy keeps the file name.
    Returns:
        ``(path_to_read, finding)``: the copy and a warning naming the number of nulls
        removed, or ``(path, None)`` when the document holds no null.
    """
    cleaned, removed = _strip_nulls(data)
    if not removed:
        return path, None
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    target.write_text(json.dumps(cleaned, ensure_ascii=False, indent=1), encoding="utf-8")
    return target, Finding(
        "json-repair", str(path), f"{removed} null value(s) removed in a copy for the engine: Morph-KGC 2.10 "
        f"drops every value of a JSON object that has a null member; the engine reads {target}",
        column="null", value=str(removed), expected="no null members", severity="warning")


def _prune(obj: Any, paths: list[list[str]]) -> Any:
    """Keep only the members of ``obj`` on one of ``paths`` (key lists), dropping nulls."""
    if isinstance(obj, list):
        return [_prune(x, paths) for x in obj if x is not None]
    if not isinstance(obj, dict) or not paths or any(not p for p in paths):
        return obj
    out = {}
    for k, v in obj.items():
        sub = [p[1:] for p in paths if p[0] == k]
        if sub and v is not None:
            out[k] = _prune(v, sub)
    return out


#: predicates whose objects are no term maps of the TriplesMap (other TriplesMaps, sources, terms)
_NOT_TERM_MAPS = frozenset({"parentTriplesMap", "logicalSource", "predicate", "class", "datatype", "constant",
                            "termType", "type", "language", "graph", "function", "parameter"})


def _mapping_references(rml) -> dict[str, tuple[str | None, set[str]]]:
    """JSON source path -> (iterator, every reference a TriplesMap on it reads)."""
    from rdflib import Literal, URIRef

    out: dict[str, tuple[str | None, set[str]]] = {}
    for ns in ("http://w3id.org/rml/", "http://semweb.mmlab.be/ns/rml#"):
        src_p, it_p, ls_p = URIRef(ns + "source"), URIRef(ns + "iterator"), URIRef(ns + "logicalSource")
        for tm, ls in rml.subject_objects(ls_p):
            src = rml.value(ls, src_p)
            if src is None or not str(src).lower().endswith(".json"):
                continue
            it = rml.value(ls, it_p)
            refs = out.setdefault(str(src), (str(it) if it is not None else None, set()))[1]
            todo, seen = [tm], set()
            while todo:  # every term map below the TriplesMap, not into parent TriplesMaps
                node = todo.pop()
                if node in seen:
                    continue
                seen.add(node)
                for p, o in rml.predicate_objects(node):
                    name = str(p).rsplit("/", 1)[-1].rsplit("#", 1)[-1]
                    if name in ("reference", "child"):
                        refs.add(str(o))
                    elif name == "template":
                        refs.update(re.findall(r"(?<!\\)\{((?:\\.|[^{}])+)\}", str(o)))
                    elif name not in _NOT_TERM_MAPS and not isinstance(o, Literal):
                        todo.append(o)  # term maps may be named (an IRI RefObjectMap), not only blank nodes
        for om, parent in rml.subject_objects(URIRef(ns + "parentTriplesMap")):
            ls = rml.value(parent, ls_p)
            src = rml.value(ls, src_p) if ls is not None else None
            if src is not None and str(src) in out:
                for jc in rml.objects(om, URIRef(ns + "joinCondition")):
                    pref = rml.value(jc, URIRef(ns + "parent"))
                    if pref is not None:
                        out[str(src)][1].add(str(pref))
    return out


def repair_mapping_sources(rml, base: Path, out_dir: Path) -> list[Finding]:
    """Point the JSON logical sources of an RML graph at engine copies that Morph-KGC reads whole (in place).

    Morph-KGC 2.10 normalises the records of a JSON source into a table over every key below
    the referenced top-level keys and drops any record with an empty cell, so a record loses all
    its values when it has a ``null`` member or lacks a key another record has. The copy keeps,
    per record, only the keys the mapping's references read, without nulls; a record that lacks a
    referenced key still loses that TriplesMap's triples (no value: no triple, as in RML).

    Args:
        rml: an rdflib graph of an RML mapping (``rml:`` or legacy RML vocabulary).
        base: folder relative source paths are resolved against first (then the working folder).
        out_dir: folder for the copies (``<stem>.engine.json``).
    Returns:
        One finding per copy that differs from its input; remote or missing sources are left alone.
    """
    from jsonpath_ng.ext import parse as jp_parse
    from rdflib import Literal

    findings: list[Finding] = []
    for src, (iterator, refs) in _mapping_references(rml).items():
        path = next((p for p in (base / src, Path(src)) if p.is_file()), None)
        if path is None or not refs:
            continue
        try:
            raw = path.read_bytes()
            data = json.loads(raw.decode("utf-8-sig"))
            records = [m for m in jp_parse(iterator or "$").find(data)]
        except Exception:  # unreadable JSON or iterator: the engine reports it itself
            continue
        bom = raw.startswith(b"\xef\xbb\xbf")  # the engine's json.load refuses a byte-order mark
        paths = [[re.sub(r"\[[^\]]*\]", "", step) for step in r.lstrip("$.").split(".")] for r in refs]
        before = json.dumps(data, sort_keys=True)
        for m in records:
            pruned = _prune(m.value, paths)
            if isinstance(m.value, dict):
                m.value.clear()
                m.value.update(pruned)
        if json.dumps(data, sort_keys=True) == before and not bom:
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        target = (out_dir / f"{path.stem}.engine.json").resolve()
        target.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        for pred in rml.predicates(None, Literal(src)):
            for ls in list(rml.subjects(pred, Literal(src))):
                rml.set((ls, pred, Literal(str(target))))
        findings.append(Finding(
            "json-repair", str(path), f"the engine reads {target}: only the keys the mapping references, "
            f"without nulls (Morph-KGC 2.10 drops every value of a record that has a null or missing member)"
            + (", without the byte-order mark (which the engine's JSON reader refuses)" if bom else ""),
            column="source", value=src, expected="records the engine reads whole", severity="info"))
    return findings
