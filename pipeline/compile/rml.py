"""Emit pass of the compiler: TriplesMap plans -> an RML mapping graph (RML-Core, RML-FNML).

The document uses the current RML vocabulary (``http://w3id.org/rml/``):
``rml:logicalSource`` with ``rml:source``/``rml:referenceFormulation``/
``rml:iterator``, ``rml:subjectMap``, ``rml:predicateObjectMap``,
``rml:parentTriplesMap`` + ``rml:joinCondition``, and function calls as
``rml:functionExecution`` / ``rml:input`` / ``rml:parameter`` /
``rml:inputValueMap``. Every TriplesMap carries the case's base IRI (``rml:baseIRI``), against
which other engines resolve the relative IRIs a reference-valued IRI term makes
(``env@example.org``), and reads its source by an absolute path, so the document runs from any
folder. Everything is built as RDF terms with rdflib and serialised, never pasted as text, so
hostile values cannot break the Turtle.
"""
from __future__ import annotations

import os
from itertools import count

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF

from pipeline.fno import FN, FUNCTIONS, GREL
from pipeline.compile.model import Call, ObjectSpec, Plan, Term, TriplesMapPlan

__all__ = ["RML", "emit_rml", "MAPPING_NS"]

RML = Namespace("http://w3id.org/rml/")
#: Namespace of the TriplesMap and execution nodes of a compiled document.
MAPPING_NS = Namespace("https://w3id.org/kgc-pipeline/mapping#")

_FORMULATION = {"csv": RML.CSV, "json": RML.JSONPath, "xml": RML.XPath}


def _absolute(path: str) -> str:
    """``path`` made absolute against the working directory, its spelling kept otherwise (a join
    twin's ``dir/./file`` must stay a different string for the engine, see
    :func:`pipeline.compile.relations.join_twin`)."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


class _Emitter:
    def __init__(self, base_iri: str | None = None) -> None:
        self.base_iri = base_iri
        self.g = Graph()
        self.g.bind("rml", RML)
        self.g.bind("fn", FN)
        self.g.bind("grel", GREL)
        self.g.bind("map", MAPPING_NS)
        self.ids = count(1)

    def term_map(self, node: BNode, term: Term) -> None:
        if term.kind == "template":
            self.g.add((node, RML.template, Literal(term.value)))
        elif term.kind == "reference":
            self.g.add((node, RML.reference, Literal(term.value)))
        elif term.kind == "constant":
            self.g.add((node, RML.constant, URIRef(term.value) if term.term_type == "iri" else Literal(term.value)))
        else:
            self.g.add((node, RML.functionExecution, self.execution(term.call)))
        self.g.add((node, RML.termType, RML.IRI if term.term_type == "iri" else RML.Literal))
        if term.datatype is not None:
            self.g.add((node, RML.datatype, term.datatype))
        if term.language:
            self.g.add((node, RML.language, Literal(term.language)))
        elif term.language_ref:
            lang = BNode()
            self.g.add((node, RML.languageMap, lang))
            self.g.add((lang, RML.reference, Literal(term.language_ref)))

    def execution(self, call: Call) -> URIRef:
        fn = FUNCTIONS[call.function]
        ex = MAPPING_NS[f"exec{next(self.ids)}_{call.function}"]
        self.g.add((ex, RDF.type, RML.FunctionExecution))
        self.g.add((ex, RML.function, fn.iri))
        for param, arg in zip(fn.params, call.args):
            inp, value = BNode(), BNode()
            self.g.add((ex, RML.input, inp))
            self.g.add((inp, RDF.type, RML.Input))
            self.g.add((inp, RML.parameter, param))
            self.g.add((inp, RML.inputValueMap, value))
            if isinstance(arg, Term):
                self.term_map(value, Term(arg.kind, arg.value, arg.call, "literal"))
            else:
                self.g.add((value, RML.constant, Literal(arg)))
        return ex

    def triples_map(self, tm: TriplesMapPlan) -> None:
        node = MAPPING_NS[tm.id]
        g = self.g
        g.add((node, RDF.type, RML.TriplesMap))
        ls = BNode()
        g.add((node, RML.logicalSource, ls))
        g.add((ls, RDF.type, RML.LogicalSource))
        g.add((ls, RML.source, Literal(_absolute(tm.source_path or str(tm.source.path)))))
        g.add((ls, RML.referenceFormulation, _FORMULATION[tm.source.source.format]))
        if tm.iterator:
            g.add((ls, RML.iterator, Literal(tm.iterator)))
        if self.base_iri:
            g.add((node, RML.baseIRI, URIRef(self.base_iri)))
        sm = BNode()
        g.add((node, RML.subjectMap, sm))
        self.term_map(sm, tm.subject)
        for c in tm.classes:
            g.add((sm, RML["class"], c))
        for pom in tm.poms:
            pn = BNode()
            g.add((node, RML.predicateObjectMap, pn))
            g.add((pn, RML.predicate, pom.predicate))
            for obj in pom.objects:
                g.add((pn, RML.objectMap, self.object_map(obj)))

    def object_map(self, obj: ObjectSpec) -> BNode:
        om = BNode()
        if obj.parent:
            self.g.add((om, RML.parentTriplesMap, MAPPING_NS[obj.parent]))
            for child, parent in obj.joins:
                jc = BNode()
                self.g.add((om, RML.joinCondition, jc))
                self.g.add((jc, RML.child, Literal(child)))
                self.g.add((jc, RML.parent, Literal(parent)))
        else:
            self.term_map(om, obj.term)
        return om


def emit_rml(plan: Plan, base_iri: str | None = None) -> Graph:
    """Build the RML mapping graph of a :class:`~pipeline.compile.model.Plan`.

    Args:
        plan: the TriplesMaps. base_iri: the case's base IRI, written as each TriplesMap's
            ``rml:baseIRI`` (``None``: none written).
    Returns:
        An rdflib :class:`Graph`; serialise it with ``graph.serialize(format="turtle")``.
    """
    em = _Emitter(base_iri)
    for tm in plan.triples_maps:
        em.triples_map(tm)
    return em.g
