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

A TriplesMap that reads a repeating part of its records once per occurrence
(:mod:`pipeline.compile.nesting`) reads an ``rml:LogicalView`` (RML-LV) instead: ``rml:viewOn`` the
owner's logical source, an ``rml:ExpressionField`` per record-level reference, an
``rml:IterableField`` at each part it iterates, nested as the parts nest, with an
``rml:ExpressionField`` per member; its term maps reference the fields (``isbn``, ``authors.name``,
``authors.#``, ``Attack_Pattern.Consequence.Impact``).
"""
from __future__ import annotations

import os
import re
from itertools import count

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF

from pipeline.fno import FN, FUNCTIONS, GREL
from pipeline.compile.model import Call, ObjectSpec, Plan, Term, TriplesMapPlan, ViewNode, ViewPlan
from pipeline.compile.nesting import bind, values_of_arrays
from pipeline.compile.parts import values_reference

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
        self.tms: dict[str, TriplesMapPlan] = {}
        self.views: dict[str, ViewPlan] = {}

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

    def logical_source(self, tm: TriplesMapPlan | ViewPlan, path: str | None = None) -> BNode:
        g, ls = self.g, BNode()
        g.add((ls, RDF.type, RML.LogicalSource))
        g.add((ls, RML.source, Literal(_absolute(path or str(tm.source.path)))))
        g.add((ls, RML.referenceFormulation, _FORMULATION[tm.source.source.format]))
        if tm.iterator:
            g.add((ls, RML.iterator, Literal(tm.iterator)))
        return ls

    def bound(self, tm: TriplesMapPlan, term: Term) -> Term:
        """``term`` as ``tm``'s logical source or view reads it."""
        if tm.view is not None:
            return bind(tm.view, term)
        if tm.source.source.format == "json":  # an array's values, not the array (a data error)
            return values_of_arrays(tm.source, tm.iterator, term)
        return term

    def triples_map(self, tm: TriplesMapPlan) -> None:
        node = MAPPING_NS[tm.id]
        g = self.g
        g.add((node, RDF.type, RML.TriplesMap))
        if tm.view is not None:
            self.views[tm.view.id] = tm.view
            g.add((node, RML.logicalSource, MAPPING_NS[tm.view.id]))
        else:
            g.add((node, RML.logicalSource, self.logical_source(tm, tm.source_path)))
        if self.base_iri:
            g.add((node, RML.baseIRI, URIRef(self.base_iri)))
        sm = BNode()
        g.add((node, RML.subjectMap, sm))
        self.term_map(sm, self.bound(tm, tm.subject))
        for c in tm.classes:
            g.add((sm, RML["class"], c))
        for pom in tm.poms:
            pn = BNode()
            g.add((node, RML.predicateObjectMap, pn))
            g.add((pn, RML.predicate, pom.predicate))
            for obj in pom.objects:
                g.add((pn, RML.objectMap, self.object_map(tm, obj)))

    def object_map(self, tm: TriplesMapPlan, obj: ObjectSpec) -> BNode:
        om = BNode()
        if obj.parent:
            self.g.add((om, RML.parentTriplesMap, MAPPING_NS[obj.parent]))
            parent = self.tms.get(obj.parent)
            for child, ref in obj.joins:
                jc = BNode()
                self.g.add((om, RML.joinCondition, jc))
                self.g.add((jc, RML.child, Literal(self.bound(tm, Term("reference", child)).value)))
                if parent is not None:
                    ref = self.bound(parent, Term("reference", ref)).value
                self.g.add((jc, RML.parent, Literal(ref)))
        else:
            self.term_map(om, self.bound(tm, obj.term))
        return om

    def view(self, view: ViewPlan) -> None:
        """The ``rml:LogicalView`` of ``view``, with the fields its TriplesMaps read."""
        g, node = self.g, MAPPING_NS[view.id]
        g.add((node, RDF.type, RML.LogicalView))
        g.add((node, RML.viewOn, self.logical_source(view)))
        fmt = view.source.source.format
        for ref, name in view.fields.items():
            ref = values_reference(view.source, view.iterator, ref) if fmt == "json" else ref
            g.add((node, RML.field, self.field(name, ref, fmt)))
        for part in view.nodes:
            g.add((node, RML.field, self.iterable(view, part)))

    def iterable(self, view: ViewPlan, part: ViewNode) -> BNode:
        """An ``rml:IterableField`` at ``part``, with its expression fields and the parts nested in it."""
        g, it, fmt = self.g, BNode(), view.source.source.format
        g.add((it, RDF.type, RML.IterableField))
        g.add((it, RML.fieldName, Literal(part.name)))
        g.add((it, RML.iterator, Literal(part.iterator)))
        for ref, name in part.fields.items():
            if fmt == "json" and ref not in (".", "#"):  # through an array inside the occurrence: its values
                whole = values_reference(view.source, view.iterator, f"{part.part}.{ref}")
                head = values_reference(view.source, view.iterator, part.part)
                ref = whole[len(head) + 1:] if whole.startswith(head + ".") else ref
            g.add((it, RML.field, self.field(name, ref, fmt)))
        for inner in part.children:
            g.add((it, RML.field, self.iterable(view, inner)))
        return it

    def field(self, name: str, ref: str, fmt: str) -> BNode:
        f = BNode()
        self.g.add((f, RDF.type, RML.ExpressionField))
        self.g.add((f, RML.fieldName, Literal(name)))
        self.g.add((f, RML.reference, Literal(_json_path(ref) if fmt == "json" else ref)))
        return f


def emit_rml(plan: Plan, base_iri: str | None = None) -> Graph:
    """Build the RML mapping graph of a :class:`~pipeline.compile.model.Plan`.

    Args:
        plan: the TriplesMaps. base_iri: the case's base IRI, written as each TriplesMap's
            ``rml:baseIRI`` (``None``: none written).
    Returns:
        An rdflib :class:`Graph`; serialise it with ``graph.serialize(format="turtle")``.
    """
    em = _Emitter(base_iri)
    em.tms = {tm.id: tm for tm in plan.triples_maps}
    for tm in plan.triples_maps:
        em.triples_map(tm)
    for view in em.views.values():  # after the TriplesMaps, which add the fields they read
        em.view(view)
    return em.g


def _json_path(ref: str) -> str:
    """A JSON reference relative to a record as an RML-LV JSONPath (``name`` -> ``$.name``; a member
    name that is no identifier quoted: ``$['book title']``)."""
    if ref.startswith("$"):
        return ref
    out = "$"
    for step in ref.split("."):  # a member holding an array keeps its [*] (its values, not the array)
        name, star = (step[:-3], "[*]") if step.endswith("[*]") else (step, "")
        out += (f".{name}" if re.fullmatch(r"[A-Za-z_]\w*", name) else "['" + name.replace("'", "\\'") + "']") + star
    return out
