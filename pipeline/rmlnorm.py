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

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from .errors import RMLError
from .findings import Finding

__all__ = ["RML", "BNODE_NS", "REF_NS", "Normalized", "normalize_rml", "document_base", "has_graph_maps"]

RML = Namespace("http://w3id.org/rml/")
RR = Namespace("http://www.w3.org/ns/r2rml#")
LEGACY = Namespace("http://semweb.mmlab.be/ns/rml#")
QL = Namespace("http://semweb.mmlab.be/ns/ql#")
FNML = "http://semweb.mmlab.be/ns/fnml#"
#: Private namespace of the IRIs that stand for blank nodes between engine and guard.
BNODE_NS = "https://w3id.org/kgc-pipeline/bnode/"
#: Private namespace of reference-valued IRIs: ``REF_NS + iri_safe(base) + "/" + iri_safe(value)``;
#: the guard uses the value when it is an absolute IRI, else base + value (R2RML section 11.2).
REF_NS = "https://w3id.org/kgc-pipeline/ref/"

_RENAMED = {RR.column: RML.reference, RR.logicalTable: RML.logicalSource, RR.sqlQuery: RML.query,
            RR.datatype: RML.datatype, RR.language: RML.language}
_NO_HASH = ("http://www.w3.org/ns/r2rml", "http://semweb.mmlab.be/ns/rml", "http://semweb.mmlab.be/ns/ql",
            "http://semweb.mmlab.be/ns/fnml")
_VALUE = (RML.constant, RML.reference, RML.template, RML.functionExecution, RML.parentTriplesMap,
          RML.quotedTriplesMap)
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


def _name(node: Node) -> str:
    return f"<{node}>" if isinstance(node, URIRef) else f"[] (blank node {node})"


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
    for short, long in ((RML.child, RML.childMap), (RML.parent, RML.parentMap)):
        # RML-Core join conditions may use child/parent maps; the engine reads rml:child/rml:parent
        for cond, m in list(out.subject_objects(long)):
            ref = out.value(m, RML.reference)
            if ref is not None:
                out.remove((cond, long, m))
                out.add((cond, short, ref))
    return out


_NOT_FOLLOWED = {RML.parentTriplesMap, RML.logicalSource, RDF.type, RML.function, RML.parameter, RML.predicate,
                 RML["class"], RML.datatype, RML.constant, RML.baseIRI, RML.termType}


_JSON_REF = re.compile(r"^\$(?:\.([^.\[\]]+(?:\..*)?)|\[['\"]([^'\"]+)['\"]\](.*))$")
_JSON_PLACEHOLDER = re.compile(r"(?<!\\)\{([^{}]*)\}")


def _relative(m: re.Match) -> str:
    return m.group(1) if m.group(1) is not None else m.group(2) + m.group(3)


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
        key = f"{path}|{g.value(ls, RML.iterator)}"
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
                    raise RMLError(f"TriplesMap {_name(tm)}: the object map's reference {str(ref)!r} names no key "
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


def _triples_maps(g: Graph) -> list[Node]:
    maps = set(g.subjects(RDF.type, RML.TriplesMap)) | set(g.subjects(RML.logicalSource, None))
    maps |= set(g.subjects(RML.subjectMap, None)) | set(g.subjects(RML.subject, None))
    maps |= set(g.objects(None, RML.parentTriplesMap))
    return sorted(maps, key=str)


def _source_key(g: Graph, tm: Node) -> tuple:
    ls = g.value(tm, RML.logicalSource)
    if ls is None:
        return (None,)
    return tuple(str(g.value(ls, p)) for p in (RML.source, RML.iterator, RML.referenceFormulation,
                                                 RML.query, RML.tableName))


def _resolve_sources(g: Graph, mapping_dir: Path, where: str) -> None:
    for tm in _triples_maps(g):
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
            raise RMLError(f"TriplesMap {_name(tm)}: logical source file {name!r} not found "
                           f"(looked for {', '.join(str(c) for c in candidates)})", path=where)
        new_ls = BNode()
        for p, o in list(g.predicate_objects(ls)):
            g.add((new_ls, p, o))
        g.set((new_ls, RML.source, Literal(str(found.resolve()))))
        g.set((tm, RML.logicalSource, new_ls))  # a shared logical source node stays shared in meaning


def _term_maps(g: Graph, tm: Node):
    """``(role, node)`` for the subject map, predicate, object and graph maps of one TriplesMap."""
    for sm in g.objects(tm, RML.subjectMap):
        yield "subject map", sm
        for gm in g.objects(sm, RML.graphMap):
            yield "graph map", gm
    for pom in g.objects(tm, RML.predicateObjectMap):
        for role, p in (("predicate map", RML.predicateMap), ("object map", RML.objectMap),
                        ("graph map", RML.graphMap)):
            for node in g.objects(pom, p):
                yield role, node


def _check(g: Graph, where: str) -> list[Node]:
    maps = _triples_maps(g)
    declared = set(g.subjects(RDF.type, RML.TriplesMap))
    for tm in maps:
        has_ls = g.value(tm, RML.logicalSource) is not None
        has_sm = g.value(tm, RML.subjectMap) is not None or g.value(tm, RML.subject) is not None
        if tm in set(g.objects(None, RML.parentTriplesMap)) and not (has_ls or has_sm or tm in declared):
            raise RMLError(f"parent TriplesMap {_name(tm)} is referenced but not defined", path=where)
        if has_sm and not has_ls:
            raise RMLError(f"TriplesMap {_name(tm)} has a subject map but no logical source (is the logical "
                           "source declared on another node than its subject map?)", path=where)
        if has_ls and not has_sm:
            raise RMLError(f"TriplesMap {_name(tm)} has a logical source but no subject map (is the subject map "
                           "declared on another node than its logical source?)", path=where)
        if len(set(g.objects(tm, RML.subjectMap))) + len(set(g.objects(tm, RML.subject))) > 1:
            raise RMLError(f"TriplesMap {_name(tm)} has more than one subject map", path=where)
        ls = g.value(tm, RML.logicalSource)
        if ls is not None and g.value(ls, RML.source) is None and g.value(ls, RML.query) is None \
                and g.value(ls, RML.tableName) is None:
            raise RMLError(f"TriplesMap {_name(tm)}: its logical source has no rml:source", path=where)
        for pom in g.objects(tm, RML.predicateObjectMap):
            if g.value(pom, RML.predicate) is None and g.value(pom, RML.predicateMap) is None:
                raise RMLError(f"TriplesMap {_name(tm)}: a predicate-object map has no predicate", path=where)
            if g.value(pom, RML.object) is None and g.value(pom, RML.objectMap) is None:
                raise RMLError(f"TriplesMap {_name(tm)}: a predicate-object map has no object map", path=where)
        for role, node in _term_maps(g, tm):
            _check_term_map(g, tm, role, node, where)
            if isinstance(node, Literal):
                raise RMLError(f"TriplesMap {_name(tm)}: the {role} is the literal {str(node)!r}, not a term map "
                               "(use the constant shortcut, e.g. rml:object)", path=where)
            values = [p for p in _VALUE if g.value(node, p) is not None]
            if not values and not any(str(p).startswith(FNML) for p in g.predicates(node)) \
                    and g.value(node, RML.termType) != RML.BlankNode:
                raise RMLError(f"TriplesMap {_name(tm)}: the {role} has no rml:constant, rml:reference, "
                               "rml:template, rml:functionExecution or rml:parentTriplesMap", path=where)
            if len(values) > 1:
                raise RMLError(f"TriplesMap {_name(tm)}: the {role} has more than one value "
                               f"({', '.join(p.n3(g.namespace_manager) for p in values)})", path=where)
            parent = g.value(node, RML.parentTriplesMap)
            if parent is not None:
                if g.value(parent, RML.subjectMap) is None and g.value(parent, RML.subject) is None:
                    raise RMLError(f"TriplesMap {_name(tm)}: the object map's parent TriplesMap {_name(parent)} "
                                   "is not defined (no subject map)", path=where)
                if g.value(node, RML.joinCondition) is None and _source_key(g, tm) != _source_key(g, parent):
                    raise RMLError(f"TriplesMap {_name(tm)} references parent TriplesMap {_name(parent)}, which "
                                   "reads another logical source, without a join condition (R2RML section 8: "
                                   "add rml:joinCondition [ rml:child ...; rml:parent ... ])", path=where)
    return [tm for tm in maps if g.value(tm, RML.subjectMap) is not None or g.value(tm, RML.subject) is not None]


_PLACEHOLDERS = re.compile(r"\\[{}\\]|\{|\}")
_PRIMARY_LANGUAGE = re.compile(r"^([A-Za-z]{2,3}|[xXiI])(-|$)")


def _check_term_map(g: Graph, tm: Node, role: str, node: Node, where: str) -> None:
    """Template syntax, constants that cannot have the term type, language tags, value-less blank nodes."""
    if isinstance(node, Literal):
        return
    template = g.value(node, RML.template)
    if template is not None:
        depth = 0
        for m in _PLACEHOLDERS.finditer(str(template)):
            tok = m.group(0)
            if tok in "{}":
                depth += 1 if tok == "{" else -1
                if depth not in (0, 1):
                    raise RMLError(f"TriplesMap {_name(tm)}: the {role}'s template {str(template)!r} has "
                                   f"{'nested' if depth > 1 else 'unmatched'} braces (escape a literal brace as "
                                   "\\{ or \\})", path=where)
        if depth:
            raise RMLError(f"TriplesMap {_name(tm)}: the {role}'s template {str(template)!r} has an unclosed '{{'",
                           path=where)
        if "{}" in str(template).replace("\\{}", ""):
            raise RMLError(f"TriplesMap {_name(tm)}: the {role}'s template {str(template)!r} has an empty "
                           "reference '{}'", path=where)
    tt = g.value(node, RML.termType)
    if tt == RML.BlankNode and g.value(node, RML.constant) is not None:
        raise RMLError(f"TriplesMap {_name(tm)}: the {role} is a constant with term type rml:BlankNode "
                       "(a constant is an IRI or a literal)", path=where)
    if tt == RML.BlankNode and role == "subject map" and not any(
            g.value(node, p) is not None for p in (RML.template, RML.reference, RML.functionExecution)):
        raise RMLError(f"TriplesMap {_name(tm)}: the subject map is a blank node without template or reference; "
                       "the engine (Morph-KGC 2.10) cannot make one blank node per record: add "
                       "rml:template with the record's key", path=where)
    if tt == RML.Literal and role in ("subject map", "predicate map", "graph map"):
        raise RMLError(f"TriplesMap {_name(tm)}: the {role} has term type rml:Literal (only an object map "
                       "can make literals)", path=where)
    if tt == RML.BlankNode and role in ("predicate map", "graph map"):
        raise RMLError(f"TriplesMap {_name(tm)}: the {role} has term type rml:BlankNode (it must make IRIs)",
                       path=where)
    lang = g.value(node, RML.language)
    if lang is not None:
        from .validation.terms import check_langtag

        if check_langtag(str(lang)) or not _PRIMARY_LANGUAGE.match(str(lang)):
            raise RMLError(f"TriplesMap {_name(tm)}: the {role}'s language tag {str(lang)!r} is not a BCP 47 "
                           "language tag (e.g. en, en-GB; a primary language subtag has 2 or 3 letters)",
                           path=where)


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
        for role, node in _term_maps(g, tm):
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
                    findings.append(Finding("normalise", where, f"TriplesMap {_name(tm)}: the {role}'s template "
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


_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
#: GREL parameter resources -> the ``fno:predicate`` the engine keys its built-in functions by
#: (from the GREL FnO description, e.g. ``grel:valueParam fno:predicate grel:valueParameter``).
_GREL_PARAMETERS = {f"{_GREL}{a}": f"{_GREL}{b}" for a, b in (
    ("valueParam", "valueParameter"), ("valueParam2", "valueParameter2"), ("param_find", "p_string_find"),
    ("param_replace", "p_string_replace"), ("modeParam", "modeParameter"), ("p_int_i_from", "param_int_i_from"),
    ("p_int_i_opt_to", "param_int_i_opt_to"))}


_IDLAB = "https://w3id.org/imec/idlab/function#"
#: The outputs of the GREL FnO description (the engine's functions each have one output).
_GREL_OUTPUTS = {f"{_GREL}{n}" for n in ("stringOut", "stringOutput", "output_number", "output_bool", "output_array",
                                         "output_string", "output_value", "output_date")}


def _return_ok(ret: str) -> bool:
    if ret.startswith(_GREL):
        return ret in _GREL_OUTPUTS
    if ret.startswith(_IDLAB):
        return re.fullmatch(r"_\w+Out", ret[len(_IDLAB):]) is not None
    return True


def _known_functions() -> dict[str, set[str]]:
    """Function IRI -> parameter IRIs the engine can run: its built-ins and our UDF file."""
    from morph_kgc.fnml.built_in_functions import bif_dict

    from .fno import UDF_FILE

    known = {f: set(d["parameters"].values()) for f, d in bif_dict.items()}

    def udf(fun_id, **params):  # the decorator the engine defines before it runs the UDF file
        known[fun_id] = set(params.values())
        return lambda funct: funct

    exec(compile(UDF_FILE.read_text(encoding="utf-8"), str(UDF_FILE), "exec"), {"udf": udf})  # noqa: S102
    return known


def _functions(g: Graph, maps: list[Node], where: str) -> None:
    """Function executions: the function must be one the engine has, each parameter one of its
    parameters (GREL parameter resources are renamed to the predicates the engine expects)."""
    import difflib

    executions = set(g.objects(None, RML.functionExecution))
    if not executions:
        return
    known = _known_functions()
    owner = {}
    for tm in maps:
        for role, node in _term_maps(g, tm):
            ex = g.value(node, RML.functionExecution)
            if ex is not None:
                owner[ex] = (tm, role)
    for term_map in set(g.subjects(RML.functionExecution, None)):
        ret = g.value(term_map, RML["return"])
        if ret is None and g.value(term_map, RML.returnMap) is not None:
            ret = g.value(g.value(term_map, RML.returnMap), RML.constant)
        if ret is not None and not _return_ok(str(ret)):
            tm, role = owner.get(g.value(term_map, RML.functionExecution), (None, "term map"))
            at = f"TriplesMap {_name(tm)}, {role}: " if tm is not None else ""
            raise RMLError(f"{at}rml:return <{ret}> is not an output of function "
                           f"<{g.value(g.value(term_map, RML.functionExecution), RML.function)}>", path=where)
    for ex in sorted(executions, key=str):
        tm, role = owner.get(ex, (None, "function input"))
        at = f"TriplesMap {_name(tm)}, {role}: " if tm is not None else ""
        fn = g.value(ex, RML.function)
        if fn is None:
            raise RMLError(f"{at}function execution {_name(ex)} names no rml:function", path=where)
        if str(fn) not in known:
            close = difflib.get_close_matches(str(fn), list(known), n=1)
            raise RMLError(f"{at}function <{fn}> is not known to the engine (Morph-KGC built-ins and the UDF "
                           f"file){f'; closest: <{close[0]}>' if close else ''}", path=where)
        for inp in g.objects(ex, RML.input):
            param = g.value(inp, RML.parameter)
            if param is None:
                continue
            if str(param) not in known[str(fn)] and _GREL_PARAMETERS.get(str(param)) in known[str(fn)]:
                g.set((inp, RML.parameter, URIRef(_GREL_PARAMETERS[str(param)])))
            elif str(param) not in known[str(fn)]:
                raise RMLError(f"{at}function <{fn}> has no parameter <{param}> (its parameters: "
                               f"{', '.join(sorted(known[str(fn)]))})", path=where)


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
        for _, node in list(_term_maps(g, tm)):
            parent = g.value(node, RML.parentTriplesMap)
            conds = list(g.objects(node, RML.joinCondition))
            if parent is None or not conds or _source_key(g, tm) != _source_key(g, parent):
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
            findings.append(Finding("normalise", where, f"TriplesMap {_name(tm)}: self-join on "
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
    maps = _check(g, where)
    _functions(g, maps, where)
    _json_references(g, maps)
    _json_datatypes(g, maps, not any(str(p).startswith(str(LEGACY)) for p in rml.predicates()), where)
    findings = _rewrite_terms(g, maps, base_iri, where)
    findings += _self_joins(g, maps, where)
    asserted = [tm for tm in maps if (tm, RDF.type, RML.NonAssertedTriplesMap) not in g]
    return Normalized(g, findings, sorted(str(tm) for tm in asserted), has_graph_maps(g))
