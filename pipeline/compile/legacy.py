"""RML-Core -> legacy RML: the RML kgc compiles, in the vocabulary older engines run.

RMLMapper, SDM-RDFizer and RocketRML read the RML of ``http://semweb.mmlab.be/ns/rml#`` with
R2RML's ``rr:`` terms and the old FNML (``fnml:functionValue``, function calls written as a
nested predicate-object map with ``fno:executes``), not RML-Core (``http://w3id.org/rml/``):
SDM-RDFizer reads kgc's RML-Core and writes no triple, RocketRML refuses ``rml:IRI``.
``kgc compile --rml legacy`` writes this form instead. The mapping is the same:

* ``rml:logicalSource`` / ``rml:source`` / ``rml:iterator`` / ``rml:reference`` /
  ``rml:languageMap`` in the legacy RML namespace, ``ql:CSV`` / ``ql:JSONPath`` / ``ql:XPath``;
* subject, predicate-object, object, graph and referencing object maps, join conditions,
  ``rr:template`` / ``rr:constant`` / ``rr:termType`` / ``rr:class`` / ``rr:datatype`` /
  ``rr:language``, in R2RML's namespace;
* function executions as ``fnml:functionValue`` with the TriplesMap's logical source;
* the base IRI (``rml:baseIRI``, which legacy RML lacks) as the document's ``@base``, which
  these engines resolve relative IRIs against;
* a subject map's term type only when it is a blank node (an IRI is the default).

A datatype map (``rml:datatypeMap``) and a logical view (``rml:LogicalView``, RML-LV: the
compiler's nested iteration, :mod:`pipeline.compile.nesting`) have no legacy form and are refused.
"""
from __future__ import annotations

from pathlib import Path

from rdflib import BNode, Graph, Namespace, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.compile.rml import MAPPING_NS, RML
from pipeline.errors import InputError

__all__ = ["to_legacy_rml", "LegacyRML", "RR", "LEGACY_RML", "QL", "FNML", "FNO"]

RR = Namespace("http://www.w3.org/ns/r2rml#")
LEGACY_RML = Namespace("http://semweb.mmlab.be/ns/rml#")
QL = Namespace("http://semweb.mmlab.be/ns/ql#")
FNML = Namespace("http://semweb.mmlab.be/ns/fnml#")
FNO = Namespace("https://w3id.org/function/ontology#")

#: RML-Core terms that keep their name in legacy RML's namespace (the rest go to rr:).
_LEGACY_NAMES = {"logicalSource", "LogicalSource", "source", "iterator", "referenceFormulation", "reference",
                 "languageMap"}
_FORMULATIONS = {RML.CSV: QL.CSV, RML.JSONPath: QL.JSONPath, RML.XPath: QL.XPath}
#: RML-Core terms without a counterpart here; their triples are written otherwise.
_HANDLED = {RML.functionExecution, RML.baseIRI, RML.datatypeMap}


class LegacyRML:
    """The legacy document: ``graph`` (serialise with ``base``) and ``base`` (``None`` when the
    TriplesMaps name none)."""

    def __init__(self, graph: Graph, base: str | None) -> None:
        self.graph = graph
        self.base = base

    def serialize(self, path) -> None:
        """Write the document as Turtle, with ``@base`` first when there is a base IRI (the IRIs of
        the mapping stay absolute: rdflib would write them relative to a base it is given)."""
        text = self.graph.serialize(format="turtle")
        Path(path).write_text((f"@base <{self.base}> .\n" if self.base else "") + text, encoding="utf-8")


def _term(t: Node) -> Node:
    if isinstance(t, URIRef) and t.startswith(str(RML)):
        if t in _FORMULATIONS:
            return _FORMULATIONS[t]
        local = t[len(str(RML)):]
        return LEGACY_RML[local] if local in _LEGACY_NAMES else RR[local]
    return t


def to_legacy_rml(rml: Graph) -> LegacyRML:
    """The RML-Core document ``rml`` (what :mod:`pipeline.compile.rml` and the YARRRML reader write)
    in legacy RML (see the module docstring).

    Raises:
        InputError: a datatype map or a logical view (no legacy form), or ``rml:baseIRI`` values that differ.
    """
    views = sorted(str(v).split("#")[-1] for v in rml.subjects(RDF.type, RML.LogicalView))
    if views:
        raise InputError(f"a logical view ({', '.join(views)}: a repeating part of the records read once per "
                         "occurrence) has no legacy RML form; write RML-Core (--rml core), which RML-LV engines run")
    if any(True for _ in rml.subject_objects(RML.datatypeMap)):
        raise InputError("a datatype map (rml:datatypeMap) has no legacy RML form; write the datatype as a constant")
    bases = {str(b) for b in rml.objects(None, RML.baseIRI)}
    if len(bases) > 1:
        raise InputError(f"the TriplesMaps name {len(bases)} base IRIs ({', '.join(sorted(bases))}); legacy RML has "
                         "one per document (@base)")
    out = Graph()
    for prefix, ns in rml.namespaces():
        if prefix and str(ns) != str(RML):
            out.bind(prefix, ns)
    out.bind("rr", RR)
    out.bind("rml", LEGACY_RML, override=True, replace=True)
    out.bind("ql", QL)
    out.bind("fnml", FNML)
    out.bind("fno", FNO)
    for s, p, o in rml:
        if p in _HANDLED:
            continue
        out.add((_term(s), _term(p), _term(o)))
    owner_source = {}
    for tm in rml.subjects(RDF.type, RML.TriplesMap):
        ls = rml.value(tm, RML.logicalSource)
        for node in _term_maps_of(rml, tm):
            owner_source[node] = ls
    for sm in rml.objects(None, RML.subjectMap):
        # an IRI is a subject map's default term type (R2RML 7.4); SDM-RDFizer writes the objects of
        # joins to a subject map that states it without angle brackets
        out.remove((sm, RR.termType, RR.IRI))
    for node, ex in list(rml.subject_objects(RML.functionExecution)):
        out.add((node, FNML.functionValue, _function_value(rml, out, ex, owner_source.get(node))))
    return LegacyRML(out, bases.pop() if bases else None)


def _term_maps_of(g: Graph, tm: Node):
    """Every term map of a TriplesMap, function inputs included (they read its logical source)."""
    stack = [g.value(tm, RML.subjectMap)]
    for pom in g.objects(tm, RML.predicateObjectMap):
        stack += [*g.objects(pom, RML.objectMap), *g.objects(pom, RML.predicateMap), *g.objects(pom, RML.graphMap)]
    seen = []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        ex = g.value(node, RML.functionExecution)
        if ex is not None:
            stack += [g.value(inp, RML.inputValueMap) for inp in g.objects(ex, RML.input)]
    return seen


def _function_value(rml: Graph, out: Graph, ex: Node, source: Node | None) -> Node:
    """The old FNML description of the function execution ``ex``: a node with the logical source and
    one predicate-object map for ``fno:executes`` and one per input."""
    fv = MAPPING_NS[f"fn_{str(ex).rsplit('#', 1)[-1]}"] if isinstance(ex, URIRef) else BNode()
    for p, o in list(out.predicate_objects(ex)):  # the execution node's own triples are rewritten below
        out.remove((ex, p, o))
    if source is not None:
        out.add((fv, LEGACY_RML.logicalSource, source))
    executes, om = BNode(), BNode()
    out.add((fv, RR.predicateObjectMap, executes))
    out.add((executes, RR.predicate, FNO.executes))
    out.add((executes, RR.objectMap, om))
    out.add((om, RR.constant, rml.value(ex, RML.function)))
    for inp in rml.objects(ex, RML.input):
        pom = BNode()
        out.add((fv, RR.predicateObjectMap, pom))
        out.add((pom, RR.predicate, rml.value(inp, RML.parameter)))
        out.add((pom, RR.objectMap, rml.value(inp, RML.inputValueMap)))
        for p, o in list(out.predicate_objects(inp)):
            out.remove((inp, p, o))
    return fv
