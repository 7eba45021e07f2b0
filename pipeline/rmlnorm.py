"""RML normalisation pass: any RML document -> the engine copy Morph-KGC 2.10 runs correctly.

Runs on every RML document before the engine copy (``*.morph-kgc.ttl``) is written, both for
compiled tables and for hand-written RML. A chain of small passes on the RDF graph
(parse -> unify -> resolve -> check -> rewrite), never on Turtle text:

1. ``unify``: R2RML (``rr:``) and legacy RML (``http://semweb.mmlab.be/ns/rml#``, ``ql:``)
   terms become RML-Core terms (``http://w3id.org/rml/``). The engine does this too, except
   for the legacy ``rml:languageMap`` (what YARRRML tools still emit), which it ignores
   (morph-kgc#284): unified here, language tags are kept.
2. ``sources``: RML-IO source descriptions (``rml:RelativePathSource`` with ``rml:root
   rml:MappingDirectory`` / ``rml:CurrentWorkingDirectory``, ``rml:path``) and relative file
   names become absolute paths; the engine reads only a literal file name.
3. ``check``: what would crash the engine with an unexplained ``KeyError``/``IndexError`` is
   bad input named by TriplesMap and term map (:class:`~pipeline.errors.RMLError`): a
   namespace missing its ``#``, a logical source split from its subject map, a term map with
   no value, a parent TriplesMap on another logical source without join condition (R2RML
   section 8: such a referencing object map must have one), a missing source file.
4. ``base``: relative IRI templates are resolved against the base IRI (``rml:baseIRI`` of the
   TriplesMap, else the document's ``@base``, else the manifest's ``base_iri``), as R2RML
   section 11.2 and RML-Core prescribe, instead of leaving relative IRIs the guards drop.
5. ``blank nodes``: blank-node templates and references become IRI templates under
   :data:`BNODE_NS`, so the engine percent-encodes their values; the guard turns those IRIs
   back into blank nodes (one per distinct value), so ``{first} {last}`` is no longer dropped.
6. ``self-joins``: a join whose parent TriplesMap reads the same logical source with equal
   child and parent references is collapsed by the engine into "each record with itself"
   (morph-kgc#209). The parent becomes a non-asserted copy whose source path is spelled
   differently (``dir/./file``), so the engine performs the real join (same file, same rows).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from .errors import RMLError
from .findings import Finding
from .rmlcheck import (LEGACY, QL, RML, RR, check_functions, check_mapping, node_name, source_key, term_maps,
                       triples_maps)

__all__ = ["RML", "BNODE_NS", "REF_NS", "Normalized", "normalize_rml", "document_base", "has_graph_maps"]

#: Private namespace of the IRIs that stand for blank nodes between engine and guard.
BNODE_NS = "https://w3id.org/kgc-pipeline/bnode/"
#: Private namespace of reference-valued IRIs: ``REF_NS + iri_safe(base) + "/" + iri_safe(value)``;
#: the guard uses the value when it is an absolute IRI, else base + value (R2RML section 11.2).
REF_NS = "https://w3id.org/kgc-pipeline/ref/"

_RENAMED = {RR.column: RML.reference, RR.logicalTable: RML.logicalSource, RR.sqlQuery: RML.query,
            RR.datatype: RML.datatype, RR.language: RML.language}
_NO_HASH = ("http://www.w3.org/ns/r2rml", "http://semweb.mmlab.be/ns/rml", "http://semweb.mmlab.be/ns/ql",
            "http://semweb.mmlab.be/ns/fnml")
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_BASE = re.compile(r"^\s*(?:@base\s*<([^>]*)>\s*\.|BASE\s*<([^>]*)>)", re.MULTILINE | re.IGNORECASE)


@dataclass
class Normalized:
    """The engine-ready mapping and what the pass changed.

    Attributes:
        graph: the normalised RML graph (RML-Core vocabulary, absolute source paths).
        findings: one ``info``/``warning`` finding per repair made (errors are raised).
        triples_maps: IRIs (or blank-node ids) of the asserted TriplesMaps, sorted.
        graph_maps: the mapping has a graph map other than the default graph.
    """

    graph: Graph
    findings: list[Finding] = field(default_factory=list)
    triples_maps: list[str] = field(default_factory=list)
    graph_maps: bool = False


def document_base(text: str) -> str | None:
    """The ``@base``/``BASE`` IRI of a Turtle document's text, or ``None``."""
    m = _BASE.search(text)
    return (m.group(1) or m.group(2)) if m else None


def has_graph_maps(rml: Graph) -> bool:
    """Whether a normalised mapping assigns triples to a named graph (not ``rml:defaultGraph``)."""
    for p in (RML.graphMap, RML.graph):
        for gm in rml.objects(None, p):
            value = gm if p == RML.graph else rml.value(gm, RML.constant)
            if value is None or value != RML.defaultGraph:
                return True
    return False


def _unify(g: Graph, where: str) -> Graph:
    missing = sorted({ns for _, p, o in g for term in (p, o) if isinstance(term, URIRef) for ns in _NO_HASH
                      if term.startswith(ns) and not term.startswith(ns + "#") and len(term) > len(ns)})
    if missing:
        raise RMLError(f"namespace{'s' if len(missing) > 1 else ''} {', '.join(f'<{ns}>' for ns in missing)} "
                       f"{'are missing their' if len(missing) > 1 else 'is missing its'} '#': no RML or R2RML term is recognised; "
                       f"declare the prefix{'es' if len(missing) > 1 else ''} as "
                       f"{', '.join(f'<{ns}#>' for ns in missing)}", path=where)
    out = Graph()
    for prefix, ns in g.namespaces():
        if str(ns) not in (str(RR), str(LEGACY), str(QL)):
            out.bind(prefix, ns)
    out.bind("rml", RML, override=True)

    def conv(t: Node) -> Node:
        if isinstance(t, URIRef):
            if t in _RENAMED:
                return _RENAMED[t]
            if t in (RML.URI, RML.UnsafeIRI):
                # RML-Core term types the engine does not know; their ASCII results equal IRI-safe ones
                return RML.IRI
            for ns in (RR, LEGACY, QL):
                if t.startswith(str(ns)):
                    return RML[t[len(str(ns)):]]
        return t

    for s, p, o in g:
        out.add((conv(s), conv(p), conv(o)))
    for pom, lit in list(out.subject_objects(RML.object)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            # the engine drops the datatype / language tag of a constant shortcut (rml:object "x"@en)
            om = BNode()
            out.remove((pom, RML.object, lit))
            out.add((pom, RML.objectMap, om))
            out.add((om, RML.constant, lit))
    for om, lit in list(out.subject_objects(RML.constant)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            out.set((om, RML.constant, Literal(str(lit))))
            if lit.language and out.value(om, RML.language) is None:
                out.add((om, RML.language, Literal(lit.language)))
            elif lit.datatype is not None and out.value(om, RML.datatype) is None:
                out.add((om, RML.datatype, lit.datatype))
    for short, long in ((RML.child, RML.childMap), (RML.parent, RML.parentMap)):
        # RML-Core join conditions may use child/parent maps; the engine reads rml:child/rml:parent
        for cond, m in list(out.subject_objects(long)):
            ref = out.value(m, RML.reference)
            if ref is None:
                om = out.value(None, RML.joinCondition, cond)
                pom = out.value(None, RML.objectMap, om)
                tm = out.value(None, RML.predicateObjectMap, pom)
                raise RMLError(f"TriplesMap {node_name(tm) if tm is not None else '?'}: a join condition's "
                               f"{long.n3(out.namespace_manager)} is not "
                               "reference-valued; the engine (Morph-KGC 2.10) joins on references only", path=where)
            out.remove((cond, long, m))
            out.add((cond, short, ref))
    return out


_NOT_FOLLOWED = {RML.parentTriplesMap, RML.logicalSource, RDF.type, RML.function, RML.parameter, RML.predicate,
                 RML["class"], RML.datatype, RML.constant, RML.baseIRI, RML.termType}


_JSON_REF = re.compile(r"^\$(?:\.([^.\[\]]+(?:\..*)?)|\[['\"]([^'\"]+)['\"]\](.*))$")
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


def _json_datatypes(g: Graph, maps: list[Node], natural: bool, where: str, limit: int = 50_000_000) -> None:
    """Reads each JSON source once (files up to ``limit`` bytes) for two things the engine does not do.

    * With ``natural`` (RML-Core documents; the legacy RML test cases expect plain strings), the
      natural mapping of JSON values: a reference-valued literal object map whose values are all
      JSON integers (booleans, floats) gets ``xsd:integer`` (``xsd:boolean``, ``xsd:double``).
    * A reference to a key that no record of the source has is an error (R2RML section 6.3:
      a reference must name a column of the logical source; the engine yields nothing silently).
    """
    import json

    from jsonpath import JSONPath
    from rdflib.namespace import XSD

    cache: dict[str, list] = {}
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.referenceFormulation) != RML.JSONPath:
            continue
        path = Path(str(g.value(ls, RML.source)))
        iterator = str(g.value(ls, RML.iterator) or "$")
        if not _balanced(iterator):
            raise RMLError(f"TriplesMap {node_name(tm)}: the JSONPath iterator {iterator!r} has unbalanced brackets "
                           "or quotes", path=where)
        key = f"{path}|{iterator}"
        if key not in cache:
            try:
                data = json.loads(path.read_text(encoding="utf-8")) if path.stat().st_size <= limit else None
                cache[key] = [] if data is None else JSONPath(str(g.value(ls, RML.iterator) or "$")).parse(data)
            except (OSError, ValueError, TypeError, AttributeError, IndexError, KeyError):
                cache[key] = []  # the engine reports an unreadable source itself
        records = cache[key]
        for pom in g.objects(tm, RML.predicateObjectMap):
            for om in g.objects(pom, RML.objectMap):
                ref = g.value(om, RML.reference)
                if ref is None or not records:
                    continue
                kinds, found, opaque = set(), False, False
                for rec in records:
                    value = rec
                    for part in str(ref).split("."):
                        if isinstance(value, dict):
                            found_here = part in value
                            value = value.get(part)
                        else:
                            opaque, value, found_here = True, None, False
                    found = found or found_here
                    for v in value if isinstance(value, list) else [value]:
                        if v is not None:
                            kinds.add(type(v))
                if not found and not opaque and re.fullmatch(r"[\w\- ]+(\.[\w\- ]+)*", str(ref)):
                    raise RMLError(f"TriplesMap {node_name(tm)}: the object map's reference {str(ref)!r} names no key "
                                   f"of any record of {path.name} (iterator {g.value(ls, RML.iterator)})", path=where)
                if not natural or any(g.value(om, p) is not None for p in (
                        RML.datatype, RML.datatypeMap, RML.language, RML.languageMap, RML.termType)):
                    continue
                if len(kinds) == 1:
                    dt = {bool: XSD.boolean, int: XSD.integer, float: XSD.double}.get(kinds.pop())
                    if dt is not None:
                        g.add((om, RML.datatype, dt))


def _json_references(g: Graph, maps: list[Node]) -> None:
    """RML-Core JSONPath references are absolute from the iterated node (``$.name``); the engine
    reads them relative (``name``): strip the leading ``$.`` in references, templates and joins."""
    seen: set[Node] = set()
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None or g.value(ls, RML.referenceFormulation) != RML.JSONPath:
            continue
        stack = [tm]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            for p, o in list(g.predicate_objects(node)):
                if p in (RML.reference, RML.child, RML.parent) and isinstance(o, Literal):
                    g.set((node, p, Literal(_JSON_REF.sub(_relative, str(o)))))
                elif p == RML.template and isinstance(o, Literal):
                    g.set((node, p, Literal(_JSON_PLACEHOLDER.sub(lambda m: "{" + _JSON_REF.sub(_relative, m.group(1))
                                                                  + "}", str(o)))))
                elif p not in _NOT_FOLLOWED and isinstance(o, (BNode, URIRef)) and (o, RDF.type, RML.TriplesMap) not in g:
                    stack.append(o)


def _resolve_sources(g: Graph, mapping_dir: Path, where: str) -> None:
    for tm in triples_maps(g):
        ls = g.value(tm, RML.logicalSource)
        if ls is None:
            continue
        src = g.value(ls, RML.source)
        if isinstance(src, (BNode, URIRef)) and g.value(src, RML.path) is not None:
            root = g.value(src, RML.root)
            name = str(g.value(src, RML.path))
            bases = [Path.cwd()] if root == RML.CurrentWorkingDirectory else [mapping_dir]
        elif isinstance(src, Literal):
            name = str(src)
            if "://" in name or (name.startswith("{") and name.endswith("}")):
                continue  # a URL or an in-memory source: the engine reads it itself
            bases = [mapping_dir, Path.cwd()]
        else:
            continue
        path = Path(name)
        candidates = [path] if path.is_absolute() else [b / path for b in bases]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise RMLError(f"TriplesMap {node_name(tm)}: logical source file {name!r} not found "
                           f"(looked for {', '.join(str(c) for c in candidates)})", path=where)
        new_ls = BNode()
        for p, o in list(g.predicate_objects(ls)):
            g.add((new_ls, p, o))
        g.set((new_ls, RML.source, Literal(str(found.resolve()))))
        g.set((tm, RML.logicalSource, new_ls))  # a shared logical source node stays shared in meaning


def _iri_valued(g: Graph, role: str, node: Node) -> bool:
    tt = g.value(node, RML.termType)
    if tt is not None:
        return tt in (RML.IRI, RML.URI, RML.UnsafeIRI)
    if role != "object map":
        return True
    # R2RML 7.4: an object map is a literal by default when it has a reference, language or datatype
    return not any(g.value(node, p) is not None for p in (RML.reference, RML.language, RML.languageMap,
                                                            RML.datatype, RML.datatypeMap))


def _rewrite_terms(g: Graph, maps: list[Node], base: str | None, where: str) -> list[Finding]:
    findings: list[Finding] = []
    resolved = 0
    for tm in maps:
        tm_base = g.value(tm, RML.baseIRI)
        tm_base = str(tm_base) if tm_base is not None else base
        for role, node in term_maps(g, tm):
            template = g.value(node, RML.template)
            reference = g.value(node, RML.reference)
            if reference is not None and g.value(node, RML.termType) != RML.BlankNode and _iri_valued(g, role, node):
                from .engine import iri_safe

                ref = str(reference).replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
                g.remove((node, RML.reference, None))
                g.set((node, RML.template, Literal(f"{REF_NS}{iri_safe(tm_base or '')}/{{{ref}}}")))
                g.set((node, RML.termType, RML.IRI))
                continue
            if g.value(node, RML.termType) == RML.BlankNode and (template is not None or reference is not None):
                if template is None:
                    template = Literal("{" + str(reference).replace("{", "\\{").replace("}", "\\}") + "}")
                    g.remove((node, RML.reference, None))
                g.set((node, RML.template, Literal(BNODE_NS + _encode_constant_parts(str(template)))))
                g.set((node, RML.termType, RML.IRI))
            elif template is not None and _iri_valued(g, role, node) and not _ABSOLUTE.match(str(template)):
                if not tm_base:
                    findings.append(Finding("normalise", where, f"TriplesMap {node_name(tm)}: the {role}'s template "
                                            f"{str(template)!r} is a relative IRI and there is no base IRI",
                                            value=str(template), expected="an absolute IRI template or a base IRI",
                                            severity="warning"))
                    continue
                g.set((node, RML.template, Literal(tm_base + str(template))))
                resolved += 1
    if resolved:
        findings.append(Finding("normalise", where, f"{resolved} relative IRI template(s) resolved against the "
                                "base IRI", value=base, severity="info"))
    return findings


def _encode_constant_parts(template: str) -> str:
    """IRI-safe encoding of the text between the placeholders of a template (escaped braces decoded)."""
    from .engine import iri_safe

    parts = re.split(r"((?<!\\)\{[^{}]*(?<!\\)\})", template)
    return "".join(p if i % 2 else iri_safe(p.replace("\\{", "{").replace("\\}", "}"))
                   for i, p in enumerate(parts))


def _copy(g: Graph, node: Node, new: Node | None = None) -> Node:
    """Deep copy of the blank-node tree below ``node`` (IRIs are shared)."""
    new = BNode() if new is None else new
    for p, o in list(g.predicate_objects(node)):
        g.add((new, p, _copy(g, o) if isinstance(o, BNode) and p != RML.parentTriplesMap else o))
    return new


def _self_joins(g: Graph, maps: list[Node], where: str) -> list[Finding]:
    findings: list[Finding] = []
    copies: dict[Node, Node] = {}
    ids = count(1)
    for tm in maps:
        for _, node in list(term_maps(g, tm)):
            parent = g.value(node, RML.parentTriplesMap)
            conds = list(g.objects(node, RML.joinCondition))
            if parent is None or not conds or source_key(g, tm) != source_key(g, parent):
                continue
            same = all(g.value(c, RML.child) is not None and g.value(c, RML.child) == g.value(c, RML.parent)
                       for c in conds)
            if not same:
                continue  # the engine performs the real join itself
            if parent not in copies:
                copy = URIRef(f"{BNODE_NS}selfjoin{next(ids)}") if not isinstance(parent, URIRef) \
                    else URIRef(f"{parent}-kgc-self-join-parent")
                _copy(g, parent, copy)
                g.remove((copy, RDF.type, None))
                g.remove((copy, RML.predicateObjectMap, None))
                g.add((copy, RDF.type, RML.NonAssertedTriplesMap))
                ls = g.value(copy, RML.logicalSource)
                src = Path(str(g.value(ls, RML.source)))
                g.set((ls, RML.source, Literal(os.path.join(str(src.parent), ".", src.name))))
                copies[parent] = copy
            g.set((node, RML.parentTriplesMap, copies[parent]))
            findings.append(Finding("normalise", where, f"TriplesMap {node_name(tm)}: self-join on "
                                    f"{', '.join(str(g.value(c, RML.child)) for c in conds)} performed as a real "
                                    "join (the engine would link each record only to itself, morph-kgc#209)",
                                    severity="info"))
    return findings


def normalize_rml(rml: Graph, *, mapping_dir: Path | None = None, base_iri: str | None = None,
                  where: str = "mapping") -> Normalized:
    """Normalise an RML document for the engine (see the module docstring for the passes).

    Args:
        rml: the mapping as parsed (R2RML, legacy RML or RML-Core vocabulary; not modified).
        mapping_dir: folder that relative source paths and ``rml:MappingDirectory`` refer to
            (default: the current directory).
        base_iri: base for relative IRI templates when a TriplesMap has no ``rml:baseIRI``
            (the document's ``@base``, see :func:`document_base`, else the manifest's ``base_iri``).
        where: file name used in messages and findings.
    Returns:
        A :class:`Normalized` with the engine-ready graph and the repairs made.
    Raises:
        RMLError: the mapping is invalid (message names the TriplesMap, term map and cause).
    """
    g = _unify(rml, where)
    mapping_dir = Path(mapping_dir) if mapping_dir is not None else Path.cwd()
    _resolve_sources(g, mapping_dir, where)
    maps = check_mapping(g, where)
    check_functions(g, maps, where)
    _json_references(g, maps)
    _json_datatypes(g, maps, not any(str(p).startswith(str(LEGACY)) for p in rml.predicates()), where)
    findings = _rewrite_terms(g, maps, base_iri, where)
    findings += _self_joins(g, maps, where)
    asserted = [tm for tm in maps if (tm, RDF.type, RML.NonAssertedTriplesMap) not in g]
    return Normalized(g, findings, sorted(str(tm) for tm in asserted), has_graph_maps(g))
