"""Normalisation pass: logical sources the engine cannot read as they are become derived sources.

Morph-KGC 2.10 reads a logical source itself when it can evaluate every reference the mapping
makes on it. Where it cannot, the records are computed here (:mod:`.records`, :mod:`.view`) and
written as a *derived source*, a JSON array of flat records that the engine reads exactly
(``<copies>/<name>.kgc-derived.json``, :data:`~pipeline.materialize.rml.vocabulary.DERIVED_SUFFIX`);
the TriplesMaps on it are rewritten to read it (``rml:iterator "$[*]"``, each expression they
evaluate on the source named by a key ``k<n>_<hint>``). A logical source is derived when

* it is an RML-LV logical view (``rml:LogicalView``);
* a reference is one the engine cannot evaluate: a JSONPath with wildcards, array indexes,
  filters or descendants (``$.departments[*].name``); an XPath beyond ElementTree paths
  (``name/text()``, ``../@id``, functions) or namespaces declared with ``rml:namespace``;
  the results of a SPARQL query over an RDF file (``formats:SPARQL_Results_CSV``...);
* a reference holds a brace (a key ``{Name}``, escaped ``\\{Name\\}`` in a template): the
  engine's template parser does not read escaped braces and matches nothing;
* a join condition compares template- or constant-valued expressions (RML-Core ``rml:childMap``
  / ``rml:parentMap``; the engine joins on references only): the expression becomes a key;
* a template has term type ``rml:URI`` (its values URI-safe encoded, where the engine encodes
  IRI-safe): the URI becomes a key, read as a reference-valued IRI;
* a blank-node subject map has no expression (one blank node per iteration: the iteration's
  position becomes a key of its template);
* a term map has an RML-FNML condition (``rml:condition``): the condition, evaluated here
  (:mod:`.functions`), becomes a key that is the empty string where it holds, absent elsewhere,
  appended to the term map's template;
* its null values (RML-IO ``rml:null``) are not those the engine assumes (an empty string):
  an RML-IO CSV source has no null value unless it declares some, so an empty cell is the
  empty string (marked by :func:`pipeline.materialize.rml.unify.resolve_sources`).

In a derived record a key holds the lexical forms of the expression's values: one string, a
list when the expression yields several (the engine makes one term per value, and a triple per
combination, as RML-Core's Cartesian product), absent when it yields none. Values keep their
natural datatype: a literal object map reading a key whose values all have one natural datatype
(JSON numbers and booleans, indexes of logical views) gets it as ``rml:datatype``.
"""
from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import quote
from collections.abc import Callable
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.findings import Finding
from pipeline.materialize.limits import xml_reference_issue
from pipeline.materialize.rml.check import node_name, triples_maps
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, KGC, RML
from pipeline.materialize.views.functions import FunctionCaller, is_true
from pipeline.sources.engine_copy import DerivedOrigin, original_of, remember_derived
from pipeline.materialize.views.records import FORMULATIONS, Iteration, Source, Value, iterate, read_document
from pipeline.materialize.views.view import (PLACEHOLDER, Expression, ExpressionField, IterableField, LogicalView,
                                             ViewError, ViewIteration, ViewJoin, expand_template, template_references,
                                             unescape)

__all__ = ["derive_sources", "read_view", "source_of", "viewed_source", "write_derived", "needs_derivation"]

#: Predicates whose objects are not term maps of the TriplesMap being walked.
_NOT_OWNED = {RML.parentTriplesMap, RML.quotedTriplesMap, RML.logicalSource, RDF.type, RML.predicate,
              RML["class"], RML.datatype, RML.constant, RML.termType, RML.function, RML.parameter,
              RML.logicalTarget, RML.baseIRI, RML.language, RML["return"], RML.gatherAs, RML.strategy}
# a member path, each member possibly followed by [*] (the engine's flattening of arrays gives their values);
# a quoted first member only when its name is one the engine reads as a column: it unquotes the name, and
# a '$', '@', '.' or bracket in it is then read as path syntax ($['$price'] gives nothing)
_ENGINE_JSON_REF = re.compile(r"^\$?\.?(?:[^.\[\]*?@()]+|\[['\"][^'\".\[\]*?@()$\\]+['\"]\])(?:\[\*\])?"
                              r"(?:\.[^.\[\]*?@()]+(?:\[\*\])?)*$")


def _local(node: Node | None) -> str:
    return "" if node is None else re.split(r"[/#]", str(node))[-1]


def _formulation(g: Graph, node: Node | None) -> tuple[str | None, dict[str, str]]:
    """``(formulation, XPath namespaces)`` of an ``rml:referenceFormulation`` value (an IRI, or a
    node typed ``rml:XPathReferenceFormulation`` with ``rml:namespace`` entries)."""
    if node is None:
        return None, {}
    if isinstance(node, URIRef):
        return FORMULATIONS.get(_local(node), _local(node)), {}
    kinds = [FORMULATIONS.get(_local(t)) for t in g.objects(node, RDF.type)]
    namespaces = {str(g.value(ns, RML.namespacePrefix)): str(g.value(ns, RML.namespaceURL))
                  for ns in g.objects(node, RML.namespace)
                  if g.value(ns, RML.namespacePrefix) is not None and g.value(ns, RML.namespaceURL) is not None}
    return next((k for k in kinds if k), "XPath" if namespaces else None), namespaces


def source_of(g: Graph, ls: Node) -> Source:
    """The :class:`Source` of a resolved logical source node (``rml:source`` an absolute file name).

    Raises:
        RMLError: no file, or a reference formulation kgc does not read.
    """
    src = g.value(ls, RML.source)
    if not isinstance(src, Literal):
        raise RMLError(f"logical source {node_name(ls)} has no file (rml:source)")
    path = Path(str(src))
    formulation, namespaces = _formulation(g, g.value(ls, RML.referenceFormulation))
    formulation = formulation or {".csv": "CSV", ".tsv": "CSV", ".json": "JSONPath", ".geojson": "JSONPath",
                                  ".jsonld": "JSONPath", ".xml": "XPath"}.get(path.suffix.lower())
    if formulation not in ("CSV", "JSONPath", "XPath", "SPARQL", "SPARQL-text"):
        raise RMLError(f"logical source {node_name(ls)} ({path.name}): reference formulation "
                       f"{g.value(ls, RML.referenceFormulation)} is not one kgc reads (JSONPath, XPath, CSV, "
                       "SPARQL results)")
    iterator = g.value(ls, RML.iterator)
    nulls = frozenset(str(v) for v in g.objects(ls, RML.null))
    return Source(path, formulation, str(iterator) if iterator is not None else None, namespaces, nulls, path.name)


def read_view(g: Graph, node: Node, _seen: tuple = ()) -> LogicalView:
    """The :class:`LogicalView` an RML document describes at ``node`` (an ``rml:LogicalView``).

    Raises:
        ViewError: a cycle in ``rml:viewOn`` or in nested fields, a field without name or
            expression, a join without parent view or condition.
    """
    if node in _seen:
        raise ViewError(f"logical view {node_name(node)} is defined in terms of itself (a cycle through "
                        "rml:viewOn or rml:parentLogicalView)")
    seen = (*_seen, node)
    on = g.value(node, RML.viewOn)
    if on is None:
        raise ViewError(f"logical view {node_name(node)} has no rml:viewOn")
    base: Source | LogicalView = read_view(g, on, seen) if g.value(on, RML.viewOn) is not None else source_of(g, on)
    view = LogicalView(base, [], [], str(node) if isinstance(node, URIRef) else "")
    view.fields = [_field(g, f, view, ()) for f in _sorted(g.objects(node, RML.field))]
    for prop, inner in ((RML.leftJoin, False), (RML.innerJoin, True)):
        for j in _sorted(g.objects(node, prop)):
            parent = g.value(j, RML.parentLogicalView)
            if parent is None:
                raise ViewError(f"logical view {node_name(node)}: a join has no rml:parentLogicalView")
            conditions = [(_expression(g, c, RML.child, RML.childMap), _expression(g, c, RML.parent, RML.parentMap))
                          for c in _sorted(g.objects(j, RML.joinCondition))]
            if not conditions:
                raise ViewError(f"logical view {node_name(node)}: a join with {node_name(parent)} has no join condition")
            fields = [_field(g, f, view, ()) for f in _sorted(g.objects(j, RML.field))]
            if any(not isinstance(f, ExpressionField) or f.fields for f in fields):
                raise ViewError(f"logical view {node_name(node)}: a join field must be an expression field without "
                                "nested fields")
            view.joins.append(ViewJoin(read_view(g, parent, seen), conditions, fields, inner))
    view.keys()  # name collisions are errors before any data is read
    return view


def _sorted(nodes) -> list[Node]:
    return sorted(nodes, key=str)


def _expression(g: Graph, node: Node, short: URIRef, long: URIRef) -> Expression:
    """A join condition side: ``rml:child "ref"`` or ``rml:childMap [ rml:reference|template|constant ]``."""
    value = g.value(node, short)
    if value is not None:
        return Expression(reference=str(value))
    m = g.value(node, long)
    if m is None:
        raise ViewError(f"a join condition has neither {short.n3(g.namespace_manager)} nor "
                        f"{long.n3(g.namespace_manager)}")
    return _expression_of(g, m)


def _expression_of(g: Graph, m: Node) -> Expression:
    for p, key in ((RML.reference, "reference"), (RML.template, "template"), (RML.constant, "constant")):
        v = g.value(m, p)
        if v is not None:
            return Expression(**{key: str(v)})
    raise ViewError(f"expression map {node_name(m)} has no rml:reference, rml:template or rml:constant")


def _field(g: Graph, node: Node, view: LogicalView, path: tuple):
    if node in path:
        raise ViewError(f"logical view {view.label()}: field {node_name(node)} is nested in itself (a cycle of "
                        "rml:field)")
    name = g.value(node, RML.fieldName)
    if name is None:
        raise ViewError(f"logical view {view.label()}: a field has no rml:fieldName")
    kinds = {_local(t).lower() for t in g.objects(node, RDF.type)}
    nested = [_field(g, f, view, (*path, node)) for f in _sorted(g.objects(node, RML.field))]
    has_expression = any(g.value(node, p) is not None for p in (RML.reference, RML.template, RML.constant))
    if "iterablefield" in kinds or (not has_expression and (g.value(node, RML.iterator) is not None
                                                            or g.value(node, RML.referenceFormulation) is not None)):
        formulation, namespaces = _formulation(g, g.value(node, RML.referenceFormulation))
        it = g.value(node, RML.iterator)
        return IterableField(str(name), str(it) if it is not None else None, formulation, namespaces, nested)
    if not has_expression:
        raise ViewError(f"logical view {view.label()}: field {str(name)!r} has no expression (rml:reference, "
                        "rml:template, rml:constant) and no iterator")
    e = _expression_of(g, node)
    return ExpressionField(str(name), e.reference, e.template, e.constant, nested)


class _Condition:
    """An RML-FNML condition (``rml:condition``) of a term map as a derived key: the empty string
    where the function returns true, no value elsewhere (so the term map, which appends the key
    to its template, makes its term only there)."""

    def __init__(self, node: Node, caller: FunctionCaller) -> None:
        self.node, self.caller = node, caller
        self.reference = self.template = self.constant = None

    def evaluate(self, it: Iteration) -> list[Value]:
        ex = self.caller.g.value(self.node, RML.functionExecution)
        if ex is None:
            raise InputError(f"condition {node_name(self.node)} has no rml:functionExecution")
        return [Value("")] if is_true(self.caller.call(ex, it)) else []


class _URITemplate:
    """A template of an ``rml:URI`` term map (RML-Core: its values are URI-safe encoded, non-ASCII
    characters too, where the engine makes IRIs with IRI-safe values): the URI, computed here."""

    reference = constant = None

    def __init__(self, template: str) -> None:
        self.template = template

    def evaluate(self, it: Iteration) -> list[Value]:
        return [Value(s) for s in expand_template(self.template, lambda r: [
            Value(quote(v.lexical, safe="-._~")) for v in it.values(r)])]


class _Index:
    """The position of the iteration (for a blank-node subject map without expression: RML-Core
    makes one blank node per iteration, which the engine cannot)."""

    reference = template = constant = None


# --------------------------------------------------------------------------- which sources

def _json_ref_ok(ref: str) -> bool:
    """The engine evaluates a JSONPath reference that is a plain member path (``$.a.b``, ``name``,
    ``$['key with space']``), also with ``[*]`` after a member (``tags[*]``, ``items[*].name``: its
    reader flattens arrays, :func:`pipeline.materialize.readers.read_json`), not other wildcards,
    indexes, filters or descendants."""
    return bool(_ENGINE_JSON_REF.match(ref)) and ".." not in ref


def _xml_ref_ok(ref: str) -> bool:
    """The engine evaluates an XPath reference that is an ElementTree path with one attribute at
    most (prefixes are the document's: any bound prefix will do for the check)."""
    prefixes = {p: f"urn:kgc:prefix:{p}" for p in re.findall(r"([A-Za-z_][\w.\-]*):(?!:)", ref)}
    return ".." not in ref and "(" not in ref and "::" not in ref and xml_reference_issue(ref, prefixes) is None


def needs_derivation(g: Graph, ls: Node, expressions: list[Expression]) -> str | None:
    """Why the engine cannot read logical source ``ls`` for ``expressions`` (a short reason), or ``None``."""
    if g.value(ls, RML.viewOn) is not None:
        return "a logical view"
    mark = g.value(ls, KGC.derive)
    if mark is not None:
        return str(mark)
    src = source_of(g, ls)
    if src.formulation.startswith("SPARQL"):
        return "SPARQL query results"
    if src.formulation == "XPath" and src.namespaces:
        return "XPath namespaces declared with rml:namespace"
    for e in expressions:
        if isinstance(e, _Condition):
            return "a condition (rml:condition)"
        if isinstance(e, _Index):
            return "a blank-node subject map without template or reference (one blank node per iteration)"
        if isinstance(e, _URITemplate):
            return "a template with term type rml:URI (URI-safe encoding)"
    for e in expressions:
        if e.reference is None:
            return "a join on a template or constant"
        if "{" in e.reference or "}" in e.reference:
            return f"reference {e.reference!r} with a brace"
        if src.formulation == "JSONPath" and not _json_ref_ok(e.reference):
            return f"JSONPath reference {e.reference!r}"
        if src.formulation == "XPath" and not _xml_ref_ok(e.reference):
            return f"XPath reference {e.reference!r}"
    return None


# --------------------------------------------------------------------------- walking TriplesMaps

def _owned(g: Graph, tm: Node) -> list[Node]:
    """The nodes below a TriplesMap that belong to it (term maps, function executions, gather
    lists), not other TriplesMaps, logical sources or join conditions."""
    out, todo, seen = [], [tm], set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(node)
        for p, o in g.predicate_objects(node):
            if p in _NOT_OWNED or p == RML.joinCondition or isinstance(o, Literal):
                continue
            if o != tm and (o, RDF.type, RML.TriplesMap) in g:
                continue
            todo.append(o)
    return out


def _joins(g: Graph, maps: list[Node]) -> list[tuple[Node, Node, Node]]:
    """``(child TriplesMap, parent TriplesMap, join condition)`` of every join of the mapping
    (referencing object maps and RML-star quoted triples maps with conditions)."""
    out = []
    for tm in maps:
        for node in _owned(g, tm):
            parent = g.value(node, RML.parentTriplesMap) or g.value(node, RML.quotedTriplesMap)
            if parent is None:
                continue
            for c in g.objects(node, RML.joinCondition):
                out.append((tm, parent, c))
    return out


def _uses(g: Graph, maps: list[Node], caller: FunctionCaller) -> dict[Node, list[tuple[Node, Node, URIRef, Expression]]]:
    """Per logical source: ``(TriplesMap, node, predicate, expression)`` of every expression
    evaluated on it (``predicate`` is where the expression sits: ``rml:reference``,
    ``rml:template``, or a join condition's side)."""
    uses: dict[Node, list] = {}
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls is None:
            continue
        for node in _owned(g, tm):
            v = g.value(node, RML.reference)
            if v is not None:
                uses.setdefault(ls, []).append((tm, node, RML.reference, Expression(reference=str(v))))
            v = g.value(node, RML.template)
            if v is not None:  # each placeholder's reference (the engine encodes each value IRI-safe)
                for ref in template_references(str(v)):
                    uses.setdefault(ls, []).append((tm, node, RML.template, Expression(reference=ref)))
            v = g.value(node, RML.condition)
            if v is not None:
                uses.setdefault(ls, []).append((tm, node, RML.condition, _Condition(v, caller)))
            v = g.value(node, RML.template)
            if v is not None and g.value(node, RML.termType) == RML.URI:
                uses.setdefault(ls, []).append((tm, node, RML.URI, _URITemplate(str(v))))
        sm = g.value(tm, RML.subjectMap)
        if sm is not None and g.value(sm, RML.termType) == RML.BlankNode and not any(
                g.value(sm, p) is not None for p in (RML.template, RML.reference, RML.constant,
                                                     RML.functionExecution, RML.gather, RML.quotedTriplesMap)):
            uses.setdefault(ls, []).append((tm, sm, RML.termType, _Index()))
    for child, parent, c in _joins(g, maps):
        for tm, short, long in ((child, RML.child, RML.childMap), (parent, RML.parent, RML.parentMap)):
            ls = g.value(tm, RML.logicalSource)
            if ls is None:
                continue
            try:
                e = _expression(g, c, short, long)
            except ViewError as exc:
                raise RMLError(f"TriplesMap {node_name(child)}: {exc}") from exc
            uses.setdefault(ls, []).append((tm, c, short, e))
    return uses


# --------------------------------------------------------------------------- deriving

def _key_name(n: int, e: Expression) -> str:
    hint = e.reference if e.reference is not None else e.template if e.template is not None else \
        e.constant if e.constant is not None else type(e).__name__.strip("_").lower()
    return f"k{n}_{re.sub(r'[^A-Za-z0-9]+', '_', hint).strip('_')[:32]}"


def write_derived(rows: list[dict[str, list[str]]], path: Path) -> Path:
    """Write derived records (key -> lexical forms; absent or empty: no value) as the JSON the
    engine reads: a key with one value holds a string, with several a list."""
    records = [{k: (v[0] if len(v) == 1 else v) for k, v in r.items() if v} for r in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return path


def _iterations(g: Graph, ls: Node) -> tuple[list[Iteration], str]:
    """The iterations of a logical source or view, and a name for its derived file."""
    if g.value(ls, RML.viewOn) is not None:
        view = read_view(g, ls)
        rows = view.iterations()
        return [ViewIteration(r, view) for r in rows], _local(ls) or "view"
    src = source_of(g, ls)
    its = iterate(src.formulation, read_document(src), src.iterator, namespaces=src.namespaces, nulls=src.nulls,
                  where=src.label())
    return its, src.path.name.split(".")[0]


def _origin(g: Graph, ls: Node) -> str:
    """The file a logical source or view reads, for messages (``museum.xml``, ``logical view
    <#v> on museum.xml``)."""
    if g.value(ls, RML.viewOn) is None:
        src = g.value(ls, RML.source)
        return Path(str(src)).name if src is not None else node_name(ls)
    base = viewed_source(g, ls)
    src = g.value(base, RML.source) if base is not None else None
    return f"logical view {node_name(ls)}" + (f" on {Path(str(src)).name}" if src is not None else "")


def viewed_source(g: Graph, view: Node) -> Node | None:
    """The logical source under a logical view (through views of views); ``None`` on a cycle."""
    seen = set()
    while (on := g.value(view, RML.viewOn)) is not None and view not in seen:
        seen.add(view)
        view = on
    return None if view in seen else view


def _evaluate(e: Expression, it: Iteration) -> list[Value]:
    values = e.evaluate(it)
    for v in values:
        if v.nested:
            raise InputError(f"the reference {e.reference!r} yields a JSON {type(v.raw).__name__} "
                             f"({v.lexical[:60]}), not a value (reference its members, e.g. {e.reference}[*])")
    return values


def derive_sources(g: Graph, folder: Path, where: str, natural: bool = True,
                   names: dict[tuple[str, str], str] | None = None) -> list[Finding]:
    """Derive the logical sources of ``g`` the engine cannot read (see the module docstring), in place.

    Args:
        g: a unified RML graph with resolved sources (:func:`pipeline.materialize.rml.unify.resolve_sources`).
        folder: where the derived files go.
        where: the mapping file, for messages.
        natural: give derived literals their natural datatype (RML-Core documents).
        names: filled, when given, with ``(derived file, key) -> what the key holds, as the user
            wrote it`` (``the reference 'dc:title/@xml:lang' of TriplesMap <...> on museum.xml``), so
            that findings on a derived file name the user's mapping and data, not the key.
    Returns:
        One ``info`` finding per derived source (what made it necessary, the file).
    Raises:
        RMLError: a view or reference cannot be evaluated (names the TriplesMap or view and the cause).
    """
    maps = triples_maps(g)
    for view in sorted(set(g.subjects(RML.viewOn, None)) | set(g.subjects(RDF.type, RML.LogicalView)), key=str):
        try:  # every view is checked (cycles, names), also one no TriplesMap reads
            read_view(g, view)
        except ViewError as exc:
            raise RMLError(str(exc), path=where) from exc
    uses = _uses(g, maps, FunctionCaller(g))
    findings: list[Finding] = []
    derived: dict[Node, tuple[Node, dict[str, str]]] = {}
    for ls in sorted(uses, key=str):
        entries = uses[ls]
        tm_names = ", ".join(sorted({node_name(tm) for tm, *_ in entries}))
        try:
            why = needs_derivation(g, ls, [e for *_, e in entries])
            if why is None:
                continue
            its, stem = _iterations(g, ls)
            keys: dict[str, str] = {}  # expression signature -> key
            exprs: dict[str, Expression] = {}
            for _, _, _, e in entries:
                sig = _signature(e)
                if sig not in keys:
                    keys[sig] = _key_name(len(keys), e)
                    exprs[sig] = e
            rows, datatypes = [], {k: set() for k in keys.values()}
            for index, it in enumerate(its):
                row = {}
                for sig, key in keys.items():
                    values = [Value(str(index))] if isinstance(exprs[sig], _Index) else _evaluate(exprs[sig], it)
                    row[key] = [v.lexical for v in values]
                    datatypes[key].update(v.datatype for v in values)
                rows.append(row)
        except ViewError as exc:
            raise RMLError(f"TriplesMap {tm_names}: {exc}", path=where) from exc
        except InputError as exc:
            raise RMLError(f"TriplesMap {tm_names}: {exc}", path=where) from exc
        digest = hashlib.sha1(str(ls).encode("utf-8")).hexdigest()[:8]
        path = write_derived(rows, folder / f"{stem}.{digest}{DERIVED_SUFFIX}")
        if g.value(ls, RML.viewOn) is None and g.value(ls, RML.source) is not None:
            # a drop in the derived file is told in the user's file, record and reference (data_errors);
            # a view's rows are no records of one file, so they keep the derived file's names
            remember_derived(path, DerivedOrigin(
                original_of(Path(str(g.value(ls, RML.source)))),
                {key: getattr(exprs[sig], "reference", None) or getattr(exprs[sig], "template", None) or key
                 for sig, key in keys.items()},
                [f"line {it.line}" if it.line else None for it in its]))
        if names is not None:
            origin = _origin(g, ls)
            for sig, key in keys.items():
                e = exprs[sig]
                what = (f"reference {e.reference!r}" if e.reference is not None else f"template {e.template!r}"
                        if e.template is not None else "expression")
                names[(str(path), key)] = f"the {what} of TriplesMap {tm_names} on {origin}"
        new = BNode()
        g.add((new, RML.source, Literal(str(path))))
        g.add((new, RML.referenceFormulation, RML.JSONPath))
        g.add((new, RML.iterator, Literal("$[*]")))
        derived[ls] = (new, keys, datatypes)
        findings.append(Finding("normalise", where, f"TriplesMap {tm_names}: {why}: the engine reads the derived "
                                f"source of {_origin(g, ls)}, {path} ({len(rows)} records)", severity="info"))
    if not derived:
        _uri_as_iri(g)
        return findings
    for ls, (new, keys, datatypes) in derived.items():
        key_of: Callable[[Expression], str] = lambda e, keys=keys: keys[_signature(e)]  # noqa: E731
        for tm, node, p, e in uses[ls]:
            if p == RML.reference:
                key = key_of(e)
                g.set((node, RML.reference, Literal(key)))
                if natural:
                    _natural_datatype(g, node, datatypes[key])
            elif p == RML.template:
                template = str(g.value(node, RML.template))
                g.set((node, RML.template, Literal(PLACEHOLDER.sub(
                    lambda m, e=e: "{" + key_of(e) + "}" if unescape(m.group(1)) == e.reference else m.group(0),
                    template))))
            elif p == RML.termType:  # one blank node per iteration of this TriplesMap
                label = hashlib.sha1(str(tm).encode("utf-8")).hexdigest()[:12]
                g.set((node, RML.template, Literal(f"{label}-{{{key_of(e)}}}")))
            elif p != RML.condition:  # a join condition side: the derived key, compared as a reference
                side_long = RML.childMap if p == RML.child else RML.parentMap
                for m in list(g.objects(node, side_long)):
                    g.remove((node, side_long, m))
                g.set((node, p, Literal(key_of(e))))
        for tm, node, p, e in uses[ls]:
            if p == RML.condition:
                _apply_condition(g, tm, node, key_of(e), where)
            elif p == RML.URI:  # the URI computed here, used as it is (a reference-valued IRI)
                g.remove((node, RML.template, None))
                g.set((node, RML.reference, Literal(key_of(e))))
                g.set((node, RML.termType, RML.IRI))
    for tm in maps:
        ls = g.value(tm, RML.logicalSource)
        if ls in derived:
            g.set((tm, RML.logicalSource, derived[ls][0]))
    _uri_as_iri(g)
    return findings


def _uri_as_iri(g: Graph) -> None:
    """The other ``rml:URI`` term maps (references, constants: their value is used as it is) are
    IRI term maps for the engine."""
    for node in list(g.subjects(RML.termType, RML.URI)):
        g.set((node, RML.termType, RML.IRI))


def _signature(e: Expression) -> str:
    if isinstance(e, _Condition):
        return f"condition {e.node}"
    if isinstance(e, _URITemplate):
        return json.dumps(["uri", e.template])
    if isinstance(e, _Index):
        return "index"
    return json.dumps([e.reference, e.template, e.constant])


def _remove_tree(g: Graph, node: Node) -> None:
    for p, o in list(g.predicate_objects(node)):
        g.remove((node, p, o))
        if isinstance(o, BNode):
            _remove_tree(g, o)


def _apply_condition(g: Graph, tm: Node, node: Node, key: str, where: str) -> None:
    """Make a term map with an ``rml:condition`` append the condition's key (``""`` where true,
    absent elsewhere) to its template, keeping the term type it had."""
    cond = g.value(node, RML.condition)
    role_object = g.value(None, RML.objectMap, node) is not None
    template, reference, constant = (g.value(node, p) for p in (RML.template, RML.reference, RML.constant))
    kind = g.value(node, RML.termType)
    if template is not None:
        g.set((node, RML.template, Literal(f"{template}{{{key}}}")))
    elif reference is not None:
        if kind not in (None, RML.Literal) or not role_object:
            raise RMLError(f"TriplesMap {node_name(tm)}: a condition on a reference-valued IRI term map is not "
                           "supported (write the IRI as a template)", path=where)
        g.remove((node, RML.reference, None))
        g.set((node, RML.template, Literal(f"{{{reference}}}{{{key}}}")))
        kind = RML.Literal
    elif constant is not None:
        escaped = str(constant).replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
        g.remove((node, RML.constant, None))
        g.set((node, RML.template, Literal(f"{escaped}{{{key}}}")))
        kind = kind or (RML.Literal if isinstance(constant, Literal) else RML.IRI)
    else:
        raise RMLError(f"TriplesMap {node_name(tm)}: a condition on a function-valued term map is not supported "
                       "(put the condition in the function)", path=where)
    if kind is not None:
        g.set((node, RML.termType, kind))
    g.remove((node, RML.condition, cond))
    _remove_tree(g, cond)


def _natural_datatype(g: Graph, node: Node, datatypes: set) -> None:
    """A literal object map reading values that all have one natural datatype gets it."""
    if any(g.value(node, p) is not None for p in (RML.datatype, RML.datatypeMap, RML.language, RML.languageMap)):
        return
    tt = g.value(node, RML.termType)
    if tt is not None and tt != RML.Literal:
        return
    if g.value(None, RML.objectMap, node) is None:
        return
    kinds = {d for d in datatypes if d is not None}
    if len(kinds) == 1 and None not in datatypes:
        g.add((node, RML.datatype, URIRef(kinds.pop())))
