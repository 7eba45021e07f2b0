"""SHACL: shapes derived from an ontology, plus hand-written ones, validated with pyshacl.

Derivation rules (:func:`derive_shapes`), one named shape each so that
violations can be counted per shape:

==============================================  =========================================  ===========
ontology axiom                                   derived SHACL (W3C SHACL section)           severity
==============================================  =========================================  ===========
``P rdfs:domain D`` (named, union -> sh:or)     ``sh:targetSubjectsOf P ; sh:class D`` 4.1.1  Warning
``P rdfs:range C`` (a class of the ontology)     ``sh:property [sh:path P ; sh:class C]``      Warning
``P rdfs:range xsd:T``                           ``sh:property [sh:path P ; sh:datatype xsd:T]`` Violation
(none for ``xsd:T`` when another range is a
datatype derived from it, whose shape implies it)
``P rdfs:range rdf:langString``                  ``sh:property [sh:path P ; sh:datatype rdf:langString]`` Violation
``P rdfs:range`` a datatype restriction           ``sh:datatype`` its base, ``sh:pattern`` (anchored),  Violation
(in place, or a named datatype it defines)        ``sh:minInclusive`` ... ``sh:minLength`` per facet
``P a owl:DatatypeProperty``                     ``sh:nodeKind sh:Literal`` on ``P``            Violation
``P a owl:ObjectProperty``                       ``sh:nodeKind sh:BlankNodeOrIRI`` on ``P``     Violation
``P a owl:FunctionalProperty``                   ``sh:maxCount 1`` on ``P``                     Violation
``C ⊑ (≤n P)``, ``(=n P)`` (also qualified)      ``sh:targetClass C ; sh:maxCount n``           Violation
``C ⊑ (≥n P)``, ``(=n P)`` (also qualified)      ``sh:targetClass C ; sh:minCount n``           Warning
``C ⊑ ∀P.D``                                     ``sh:targetClass C ; sh:class D`` on ``P``    Warning
==============================================  =========================================  ===========

A property's domain and range shapes include those of its super-properties (``rdfs:subPropertyOf``
and ``owl:equivalentProperty``, transitively; RDF 1.1 Semantics rules rdfs7 with rdfs2 and rdfs3:
``x p' y`` and ``p' rdfs:subPropertyOf p`` entail ``x p y``), named ``domain-<p'>-<p>`` and
``range-<p'>-<range>``, the message naming the super-property; a range the property states itself
makes one shape.

A LinkML schema's OWL (:attr:`pipeline.ontology.Ontology.linkml_types`) is read as every stage reads it:
its types are the datatypes they stand for (``P rdfs:range bl:LabelType`` derives ``sh:datatype
xsd:string``, a qualified count ``owl:onClass bl:LabelType`` an ``sh:qualifiedValueShape [ sh:datatype
xsd:string ]``), its slots of such a range are datatype properties (``sh:nodeKind sh:Literal``, though
declared ``owl:ObjectProperty``), and a slot's own range replaces its parent slot's.

Class-membership and minimum-count shapes are warnings because OWL reads
them under the open-world assumption (a missing type or value is no
contradiction); datatype, node-kind and maximum counts are violations.
Ranges that are neither an ontology class nor an XSD datatype (e.g.
``foaf:name`` used as a range in the GTFS ontology) derive no shape, and
neither does an IRI in the XSD namespace that XSD 1.1 does not define, with one
exception: ``xsd:langString`` (a common slip in hand-written ontologies, also
in BLINKG's) is read as ``rdf:langString``, as every stage reads it
(:func:`pipeline.ontology.is_langstring`); a shape demanding the undefined
``xsd:langString`` would reject every value.

``owl:Thing`` and ``rdfs:Resource`` derive no class shape (a domain, range or
``owl:allValuesFrom`` of the top class): every resource is an instance of them, so such a
shape would only flag that the type is not asserted.

Results are about the KG: pyshacl validates the union of the KG and the ontology (so that
``sh:class`` sees ``rdfs:subClassOf`` and the types of the ontology's individuals), plus the
``rdfs:subClassOf`` triples the ontology's equivalences and class expressions entail
(:func:`entailed_subclass_triples`: ``sh:class`` follows no other axiom). The union is
built here, not by pyshacl's ``ont_graph`` mix-in: that mix-in deep-copies every
``owl:NamedIndividual`` through all its named neighbours, recursively, which on a vocabulary
whose individuals link to one another (a SKOS scheme typed as individuals) takes minutes for a
few thousand triples; a plain union gives the same results in linear time. A result whose focus node is no node of the
KG (an example individual of the ontology) is not counted (``n_results_outside_kg``).
:func:`start_shacl` bounds a run in time (a slow SPARQL-based constraint cannot hang a run).

Shape IRIs are ``urn:kgc:shapes:<rule>-<term>[-<term>]``, with each term
written by its local name when no other IRI of the ontology shares that
(sanitised) local name, else as ``<local name>.<first 8 hex digits of the
SHA-1 of the full IRI>``: ``a:address`` and ``b:address`` must get two
shapes (one shape with two ``sh:path`` values is no SHACL shape), and unique
names keep the common case readable.
"""
from __future__ import annotations

import difflib
import hashlib
import logging
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable

import pyshacl
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD

from pipeline.errors import InputError
from pipeline.findings import Finding
from pipeline.ontology import (BUILTIN_DATATYPES, Ontology, datatype_restriction, disjoint_ranges,
                               expression_subclasses, is_langstring, is_xsd_datatype, superproperties)
from pipeline.rdffile import load_graph
from pipeline.rdflists import members as rdf_members
from pipeline.validation.facets import anchored_pattern
from pipeline.validation.parallel import start_child
from pipeline.validation.result import Result
from pipeline.validation.shape_values import ValueFault, constraint_value_faults

__all__ = ["SHAPES", "derive_shapes", "validate_shacl", "start_shacl", "check_shapes", "entailed_subclass_triples"]

log = logging.getLogger(__name__)
# pySHACL's validate() gives this logger its own stderr handler on every call and logs a shapes
# fault there (besides raising it): the fault reaches the user once, as kgc's own message.
logging.getLogger("pyshacl-validate").disabled = True

#: Namespace of the derived shapes' names.
SHAPES = Namespace("urn:kgc:shapes:")
_SEVERITY = {SH.Violation: "error", SH.Warning: "warning", SH.Info: "info"}
#: The top classes: every resource is an instance (OWL 2 Direct Semantics; RDFS rule rdfs4), so a
#: shape demanding ``sh:class owl:Thing`` tests only whether the type is asserted, never the data.
_TOP = (OWL.Thing, RDFS.Resource)


def _g(x: Any) -> Graph:
    return x.graph if hasattr(x, "graph") and not isinstance(x, Graph) else x


def _local(iri: URIRef) -> str:
    return re.sub(r"[^A-Za-z0-9_\-]", "_", re.split(r"[#/:]", str(iri).rstrip("/#"))[-1])


def _named(g: Graph, node: Any, op: URIRef) -> list[URIRef]:
    """Named classes of a class expression: itself, or the named members of a union/intersection."""
    if isinstance(node, URIRef):
        return [node]
    lst = g.value(node, op)
    if lst is None:
        return []
    return [m for m in rdf_members(g, lst) if isinstance(m, URIRef)]


def _classes(g: Graph) -> set[URIRef]:
    """The classes of the ontology graph ``g`` a range or ``owl:allValuesFrom`` may name for an ``sh:class``
    shape: those its class axioms make classes (:attr:`pipeline.ontology.Ontology.declared_classes`:
    declarations, both ends of ``rdfs:subClassOf``/``owl:equivalentClass``, members of a class's
    intersection ...), as every stage reads them."""
    return set(Ontology(graph=g).declared_classes)


def _term_names(g: Graph) -> dict[URIRef, str]:
    """IRI -> its name in shape IRIs: the local name, made unique by a hash of the IRI when shared."""
    by_local: dict[str, set[URIRef]] = defaultdict(set)
    for t in g.all_nodes():
        if isinstance(t, URIRef):
            by_local[_local(t)].add(t)
    out: dict[URIRef, str] = {}
    for local, iris in by_local.items():
        for iri in iris:
            out[iri] = local if len(iris) == 1 else \
                f"{local}.{hashlib.sha1(str(iri).encode('utf-8')).hexdigest()[:8]}"
    return out


class _Builder:
    def __init__(self, onto: Graph) -> None:
        self.o, self.sg = onto, Graph()
        self._names = _term_names(onto)
        self.sg.bind("sh", SH)
        self.sg.bind("shape", SHAPES)
        self.reading = Ontology(graph=onto)
        self.classes = set(self.reading.declared_classes)
        self.datatypes = {d for d in onto.subjects(RDF.type, RDFS.Datatype) if isinstance(d, URIRef)}

    def name(self, iri: URIRef) -> str:
        """The term's unique name in shape IRIs (see the module docstring)."""
        return self._names.get(iri) or _local(iri)

    def node(self, name: str, target: tuple[URIRef, URIRef], severity: URIRef, message: str) -> URIRef:
        s = SHAPES[name]
        self.sg.add((s, RDF.type, SH.NodeShape))
        self.sg.add((s, target[0], target[1]))
        self.sg.add((s, SH.severity, severity))
        self.sg.add((s, SH.message, Literal(message)))
        return s

    def prop(self, name: str, target: tuple[URIRef, URIRef], path: URIRef, severity: URIRef, message: str,
             inherited: bool = False, **constraints: Any) -> None:
        """A node shape ``name`` with one property shape on ``path`` (constraints added to it when it
        exists); ``inherited``: an axiom of a super-property, skipped when ``name`` exists (the
        property states the same range itself)."""
        if inherited and (SHAPES[name], RDF.type, SH.NodeShape) in self.sg:
            return
        s = self.node(name, target, severity, message)
        ps = SHAPES[name + "-p"]
        self.sg.add((s, SH.property, ps))
        self.sg.add((ps, RDF.type, SH.PropertyShape))
        self.sg.add((ps, SH.path, path))
        self.sg.add((ps, SH.severity, severity))
        self.sg.add((ps, SH.message, Literal(message)))
        for key, value in constraints.items():
            if key in ("qualified_class", "qualified_datatype"):
                q = BNode()
                self.sg.add((ps, SH.qualifiedValueShape, q))
                self.sg.add((q, SH["class"] if key == "qualified_class" else SH.datatype, value))
            else:
                self.sg.add((ps, SH[key], value))

    def properties(self) -> None:
        o = self.o
        props = {p for t in (OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property, OWL.FunctionalProperty)
                 for p in o.subjects(RDF.type, t)}
        props |= set(o.subjects(RDFS.domain, None)) | set(o.subjects(RDFS.range, None))
        props |= set(o.subjects(RDFS.subPropertyOf, None))
        for p in sorted(x for x in props if isinstance(x, URIRef)):
            name, subj = self.name(p), (SH.targetSubjectsOf, p)
            # a super-property's domain and range hold for p's triples too (RDF 1.1 Semantics rdfs7 with
            # rdfs2 and rdfs3): its own axioms first, then each super-property's not already stated
            owners = [p, *sorted(superproperties(o, p) - {p})]
            domains = list(dict.fromkeys((d, q) for q in owners for d in o.objects(q, RDFS.domain)))
            domains = [(d, q) for i, (d, q) in enumerate(domains) if q == p or d not in [e for e, _ in domains[:i]]]
            for d, q in domains:
                union = _named(o, d, OWL.unionOf)
                members = union if union else _named(o, d, OWL.intersectionOf)
                if union and any(m in _TOP for m in union):
                    continue  # a union with the top class holds for every subject
                members = [m for m in members if m not in _TOP]
                if not members:
                    continue
                via = "" if q == p else f" (the domain of {q}, a super-property)"
                s = self.node(f"domain-{name}" if q == p else f"domain-{name}-{self.name(q)}", subj, SH.Warning,
                              f"subject of {p} should be a {' or '.join(members)}{via}")
                if len(members) == 1 or not union:
                    for m in members:
                        self.sg.add((s, SH["class"], m))
                else:
                    alts = []
                    for m in members:
                        b = BNode()
                        self.sg.add((b, SH["class"], m))
                        alts.append(b)
                    lst = BNode()
                    Collection(self.sg, lst, alts)
                    self.sg.add((s, SH["or"], lst))
            # a LinkML slot's own range replaces its parent slot's (Ontology.range_clauses)
            linkml = self.reading.is_linkml_slot(p) and (p, RDFS.range, None) in o
            ranges = list(dict.fromkeys(r for q in ([p] if linkml else owners) for r in o.objects(q, RDFS.range)))
            clash = disjoint_ranges(o, p)  # every range holds: with disjoint ones no value can conform
            void = (f"; its ranges {clash[0]} and {clash[1]} have no common value, so no literal conforms "
                    "(a choice of datatypes is an owl:unionOf)") if clash else ""
            # every range holds and sh:datatype is an exact match (SHACL 4.1.1): of two built-in datatype
            # ranges one within the other (xsd:integer and xsd:nonNegativeInteger) the literals must carry
            # the narrower, whose shape alone is derived (a shape per range would reject every value)
            stated = {c for r in ranges for c in _named(o, r, OWL.intersectionOf)}
            wider = {w for c in stated for w in OWL_Datatype_Subsumptions.get(c, ()) if w != c and w in stated}
            for r in ranges:
                q = next(x for x in owners if (x, RDFS.range, r) in o)
                via = "" if q == p else f" (the range of {q}, a super-property)"
                if self.restriction(p, name, subj, r, via):
                    continue
                for c in _named(o, r, OWL.intersectionOf):  # a union range derives no shape
                    c = self.reading.linkml_types.get(c, c)  # a LinkML type: the datatype it stands for
                    if is_langstring(c):
                        c = RDF.langString
                    if c in wider:
                        continue
                    if c == RDF.langString or (str(c).startswith(str(XSD)) and is_xsd_datatype(c)):
                        self.prop(f"range-{name}-{self.name(c)}", subj, p, SH.Violation,
                                  f"values of {p} must have datatype {c}{via}{void}", bool(via), datatype=c)
                    elif c == RDFS.Literal:
                        self.prop(f"range-{name}-literal", subj, p, SH.Violation,
                                  f"values of {p} must be literals{via}", bool(via), nodeKind=SH.Literal)
                    elif c in self.classes and c not in self.datatypes and c not in _TOP:
                        self.prop(f"range-{name}-{self.name(c)}", subj, p, SH.Warning,
                                  f"values of {p} should be instances of {c}{via}", bool(via), **{"class": c})
            # read as every stage reads them: a LinkML slot of a literal range is a datatype property
            if p in self.reading.datatype_properties:
                self.prop(f"kind-{name}", subj, p, SH.Violation, f"values of {p} must be literals", nodeKind=SH.Literal)
            elif p in self.reading.object_properties:
                self.prop(f"kind-{name}", subj, p, SH.Violation, f"values of {p} must be IRIs or blank nodes",
                          nodeKind=SH.BlankNodeOrIRI)
            if (p, RDF.type, OWL.FunctionalProperty) in o:
                self.prop(f"functional-{name}", subj, p, SH.Violation, f"{p} is functional: at most one value",
                          maxCount=Literal(1))

    def restriction(self, p: URIRef, name: str, subj: tuple[URIRef, URIRef], r: Any, via: str = "") -> bool:
        """The shape of a range that is a datatype restriction (named or in place): ``sh:datatype`` its
        base (when built in) and one SHACL parameter per facet; False when ``r`` is none. ``via``:
        appended to the message (the super-property the range is inherited from)."""
        restriction = datatype_restriction(self.o, r)
        if restriction is None:
            return False
        base = RDF.langString if is_langstring(restriction.base) else restriction.base
        constraints: dict[str, Any] = {}
        if base == RDF.langString or (is_xsd_datatype(base) and base != RDFS.Literal):
            constraints["datatype"] = base
        for facet, value in restriction.facets:
            key = _FACET_PARAMETERS.get(facet)
            if key == "pattern":
                value = anchored_pattern(str(value))  # XSD anchors a pattern, SPARQL's REGEX does not
                if value is None:
                    log.warning("%s: the pattern facet of its range cannot be read by Python's re: not checked", p)
                    continue
                constraints[key] = Literal(value)
            elif key in ("minLength", "maxLength", "length"):
                if str(value).strip().isdigit():  # a length that is no count constrains nothing SHACL can say
                    for k in (("minLength", "maxLength") if key == "length" else (key,)):
                        constraints[k] = Literal(int(value))
            elif key is not None:  # a bound: compared in the value space of the base (the values' datatype)
                constraints[key] = Literal(str(value), datatype=base) if "datatype" in constraints else value
        if constraints:
            label = self.name(restriction.name) if restriction.name is not None else "restriction"
            self.prop(f"range-{name}-{label}", subj, p, SH.Violation,
                      f"values of {p} must be {restriction.describe(self.o)}{via}", bool(via), **constraints)
        return True

    def restrictions(self) -> None:
        o = self.o
        for c, r in sorted(o.subject_objects(RDFS.subClassOf)):
            if not isinstance(c, URIRef) or isinstance(r, URIRef):
                continue
            p = o.value(r, OWL.onProperty)
            if not isinstance(p, URIRef):
                continue
            tgt, base = (SH.targetClass, c), f"{self.name(c)}-{self.name(p)}"
            on_class = o.value(r, OWL.onClass)
            q = {"qualified_class": on_class} if isinstance(on_class, URIRef) else {}
            if on_class in self.reading.linkml_types:  # values of a LinkML type are literals of its datatype
                q = {"qualified_datatype": self.reading.linkml_types[on_class]}
            for pred, kinds in ((OWL.cardinality, ("min", "max")), (OWL.minCardinality, ("min",)),
                                (OWL.maxCardinality, ("max",)), (OWL.qualifiedCardinality, ("min", "max")),
                                (OWL.minQualifiedCardinality, ("min",)), (OWL.maxQualifiedCardinality, ("max",))):
                n = o.value(r, pred)
                if n is None or (pred in (OWL.qualifiedCardinality, OWL.minQualifiedCardinality,
                                          OWL.maxQualifiedCardinality) and not q):
                    continue
                try:
                    count = Literal(int(n))
                except (TypeError, ValueError):
                    continue
                for kind in kinds:
                    key = (("qualifiedMinCount" if kind == "min" else "qualifiedMaxCount") if q
                           else ("minCount" if kind == "min" else "maxCount"))
                    sev = SH.Warning if kind == "min" else SH.Violation
                    self.prop(f"card-{kind}-{base}", tgt, p, sev,
                              f"a {c} has {'at least' if kind == 'min' else 'at most'} {int(n)} {p}",
                              **{key: count}, **q)
            avf = o.value(r, OWL.allValuesFrom)
            if isinstance(avf, URIRef) and avf in self.classes and avf not in _TOP:
                self.prop(f"all-{base}", tgt, p, SH.Warning, f"every {p} of a {c} should be a {avf}",
                          **{"class": avf})


#: XSD facet of an OWL 2 datatype restriction -> the SHACL Core parameter stating it (SHACL 4.3, 4.4;
#: ``xsd:length`` becomes equal ``sh:minLength`` and ``sh:maxLength``; a pattern is anchored, as XSD's
#: are and SPARQL's REGEX are not).
_FACET_PARAMETERS = {XSD.pattern: "pattern", XSD.minInclusive: "minInclusive", XSD.maxInclusive: "maxInclusive",
                     XSD.minExclusive: "minExclusive", XSD.maxExclusive: "maxExclusive", XSD.minLength: "minLength",
                     XSD.maxLength: "maxLength", XSD.length: "length"}


def derive_shapes(ontology: Any, path: str | Path | None = None) -> Graph:
    """Derive SHACL shapes from an ontology (rules in the module docstring).

    Args:
        ontology: ontology graph or an object with ``.graph``.
        path: when given, the shapes are also written there as Turtle.
    Returns:
        The shapes graph; shape names are ``urn:kgc:shapes:<rule>-<term>``.
    """
    b = _Builder(_g(ontology))
    b.properties()
    b.restrictions()
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        b.sg.serialize(str(path), format="turtle")
    log.info("derived %d SHACL node shapes", len(set(b.sg.subjects(RDF.type, SH.NodeShape))))
    return b.sg


def _shape_name(sg: Graph, shape: Any, path: Any) -> str:
    if isinstance(shape, URIRef):
        return str(shape)
    parent = next(iter(sg.subjects(SH.property, shape)), None)
    where = str(parent) if isinstance(parent, URIRef) else "_:anonymous"
    return f"{where} / {path}" if path is not None else where


def validate_shacl(kg: Graph, ontology: Any = None, shapes: Iterable[Graph | str | Path] = (), *,
                   derive: bool = True, inference: str = "none", max_findings: int = 2000) -> Result:
    """Validate ``kg`` with derived and hand-written shapes (pyshacl), in this process, unbounded.

    Args:
        kg: the KG.
        ontology: ontology (+ SKOS) graph or object with ``.graph``; validated together with
            ``kg`` (their union) so ``sh:class`` sees ``rdfs:subClassOf``.
        shapes: hand-written shape graphs or Turtle files.
        derive: add :func:`derive_shapes` of ``ontology``.
        inference: pyshacl ``inference`` option (``none``, ``rdfs``, ``owlrl``).
        max_findings: keep at most this many findings (counts stay exact).
    Returns:
        ``Result(name="SHACL", value=conforms)`` where ``conforms`` = no result of
        severity ``sh:Violation`` on a node of ``kg``; ``details``: ``n_results``, ``by_severity``
        (``{"Violation": n, "Warning": n, "Info": n}``), ``by_shape`` (``{shape: {severity: n}}``),
        ``n_shapes``, ``shapes_without_focus`` (hand-written shapes targeting only classes no node of
        ``kg`` has: they checked nothing), ``n_results_outside_kg`` (results whose focus node is no node of ``kg``:
        the ontology's own individuals, which pyshacl sees through ``ont_graph``; not counted).
        A shapes file that cannot be parsed or a pyshacl crash gives ``status="failed"``.
        :func:`start_shacl` runs the same in a child process with a time limit.
    """
    t0 = time.perf_counter()
    sg = Graph()
    onto = _g(ontology) if ontology is not None else None
    try:
        if derive and onto is not None:
            sg += derive_shapes(onto)
        own = Graph()  # the hand-written shapes alone: a derived shape of a class the KG lacks is no slip
        for s in shapes:
            own += s if isinstance(s, Graph) else load_graph(s, "SHACL shapes")
        sg += own
        data = Graph()  # our own copy, so pyshacl may work in place (no second copy)
        data += kg
        if onto is not None:
            data += onto
            data += entailed_subclass_triples(onto)
        conforms, rg, _ = pyshacl.validate(data, shacl_graph=sg, inference=inference, inplace=True,
                                           allow_warnings=True, allow_infos=True)
    except Exception as exc:  # noqa: BLE001 - bad shapes or a pyshacl crash are reported, not raised
        return Result("SHACL", None, status="failed", elapsed_s=time.perf_counter() - t0,
                      details={"reason": f"SHACL validation failed: {type(exc).__name__}: {exc}"},
                      findings=[Finding(severity="error",
                                        message=f"SHACL validation failed: {type(exc).__name__}: {exc}",
                                        code="shacl-failed")])
    by_sev: Counter = Counter()
    by_shape: dict[str, Counter] = defaultdict(Counter)
    findings: list[Finding] = []
    outside = 0
    seen: set[tuple] = set()
    for r in sorted(rg.subjects(RDF.type, SH.ValidationResult), key=str):
        focus = rg.value(r, SH.focusNode)
        if focus is not None and (focus, None, None) not in kg and (None, None, focus) not in kg:
            outside += 1  # a node of the ontology only (its example individuals): not about this KG
            continue
        sev_iri = rg.value(r, SH.resultSeverity)
        sev_name = str(sev_iri).rsplit("#", 1)[-1]
        path = rg.value(r, SH.resultPath)
        shape = _shape_name(sg, rg.value(r, SH.sourceShape), path)
        # one shapes file given twice (the manifest's shapes and kgc validate -s) parses its blank-node
        # property shapes twice: their results repeat each other and are one violation
        same = (focus, path, rg.value(r, SH.value), rg.value(r, SH.sourceConstraintComponent), sev_iri, shape,
                rg.value(r, SH.resultMessage))
        if same in seen:
            continue
        seen.add(same)
        by_sev[sev_name] += 1
        by_shape[shape][sev_name] += 1
        if len(findings) < max_findings:
            value = rg.value(r, SH.value)
            msg = rg.value(r, SH.resultMessage)
            # pyshacl writes the constraint's value as Python (Literal("250", datatype=xsd:integer)): its text
            msg = _PY_LITERAL.sub(lambda m: m.group(1), str(msg)) if msg is not None else msg
            findings.append(Finding(severity=_SEVERITY.get(sev_iri, "warning"), message=f"[{shape}] {msg}",
                                    location=(focus.n3() if isinstance(focus, (Literal, BNode)) else str(focus))
                                    if focus is not None else "",
                                    term=value.n3() if value is not None else None, code="shacl"))
    valid = by_sev["Violation"] == 0
    idle = _idle_shapes(own, kg, data if onto is not None else None)
    details = {"n_results": sum(by_sev.values()), "shapes_without_focus": idle,
               "by_severity": {k: by_sev.get(k, 0) for k in ("Violation", "Warning", "Info")},
               "by_shape": {k: dict(v) for k, v in sorted(by_shape.items())},
               "n_shapes": len(set(sg.subjects(RDF.type, SH.NodeShape)) | set(sg.subjects(SH.targetClass, None))),
               "n_results_outside_kg": outside, "pyshacl_conforms": bool(conforms)}
    log.info("SHACL: %d results (%s) in %.2f s", details["n_results"], dict(by_sev), time.perf_counter() - t0)
    return Result("SHACL", valid, findings=findings, details=details, elapsed_s=time.perf_counter() - t0)


def entailed_subclass_triples(onto: Graph) -> Graph:
    """The ``rdfs:subClassOf`` triples between named classes that ``onto``'s OWL axioms entail and
    state otherwise: both directions of an ``owl:equivalentClass`` between named classes (OWL 2 RL
    rules cax-eqc1/cax-eqc2) and the pairs class expressions give (:func:`pipeline.ontology.expression_subclasses`:
    a class equivalent to an intersection lies under each member, each member of a union under the
    class). SHACL's ``sh:class`` follows only ``rdfs:subClassOf`` in the data graph (SHACL 1.0,
    section 2.1.3.1, "SHACL instance"), so without these triples a value typed ``ex:Employee``, with
    ``ex:Employee owl:equivalentClass [owl:intersectionOf (ex:Person ex:Agent)]``, would fail
    ``sh:class ex:Person`` although OWL 2 entails it is a person. Returns a new graph."""
    out = Graph()
    for a, b in onto.subject_objects(OWL.equivalentClass):
        if isinstance(a, URIRef) and isinstance(b, URIRef) and a != b:
            out.add((a, RDFS.subClassOf, b))
            out.add((b, RDFS.subClassOf, a))
    for sub, sup in expression_subclasses(onto):
        out.add((sub, RDFS.subClassOf, sup))
    return out


#: rdflib's repr of a literal in pyshacl's messages.
_PY_LITERAL = re.compile(r'Literal\("((?:[^"\\]|\\.)*)"(?:, (?:datatype|lang)=[^)]*)?\)')


def _idle_shapes(sg: Graph, kg: Graph, onto: Graph | None) -> list[str]:
    """The shapes whose only targets are ``sh:targetClass`` classes no node of ``kg`` has (nor a
    subclass of them, as SHACL's class targets include, section 2.1.3.2): shapes that checked nothing."""
    out = []
    for shape in sorted(set(sg.subjects(SH.targetClass, None)), key=str):
        if any(sg.value(shape, p) is not None for p in (SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)):
            continue
        todo, seen = list(sg.objects(shape, SH.targetClass)), set()
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            todo += [s for g in (kg, onto) if g is not None for s in g.subjects(RDFS.subClassOf, c)]
        if not any((None, RDF.type, c) in kg for c in seen):
            out.append(str(shape) if isinstance(shape, URIRef) else
                       f"the shape on {', '.join(str(c) for c in sg.objects(shape, SH.targetClass))}")
    return out


def _shacl_child(kg: Graph, ontology: Any, shapes: list, conn: Any) -> None:
    try:
        conn.send(("ok", validate_shacl(kg, ontology, shapes)))
    except BaseException as exc:  # noqa: BLE001 - reported by the parent as a failed check
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _sparql_shapes(shapes: Iterable[Graph | str | Path]) -> list[str]:
    """Names of the hand-written shapes with a SPARQL-based constraint (``sh:sparql``): the usual
    reason a SHACL run does not finish (SHACL section 5; pyshacl evaluates each query per focus node)."""
    out = []
    for s in shapes:
        try:
            g = s if isinstance(s, Graph) else load_graph(s, "SHACL shapes")
        except Exception:  # noqa: BLE001 - the run itself reports an unparsable file
            continue
        where = "" if isinstance(s, Graph) else f" ({Path(s).name})"
        out += [f"{shape.n3() if isinstance(shape, URIRef) else '_:anonymous'}{where}"
                for shape in dict.fromkeys(g.subjects(SH.sparql, None))]
    return out


def start_shacl(kg: Graph, ontology: Any = None, shapes: Iterable[Graph | str | Path] = (), *,
                timeout_s: float = 120.0) -> Callable[[], Result]:
    """Start :func:`validate_shacl` in a forked child process and return at once.

    Call before any thread is started (the child is forked). Returns a function that waits at
    most what is left of ``timeout_s`` (seconds, wall clock) and gives the :class:`Result`; past
    it the child is killed and the result is ``status="timeout"``, ``value=None``, with the
    reason in ``details["reason"]`` (naming the shapes with a SPARQL-based constraint, if any):
    never a pass, never a hang. A child that dies gives ``status="failed"`` with its exit code.
    """
    t0 = time.perf_counter()
    shapes = list(shapes)
    wait = start_child(_shacl_child, kg, ontology, shapes)

    def finish() -> Result:
        got, answer = wait(max(0.0, timeout_s - (time.perf_counter() - t0)))
        if got == "ok" and answer[0] == "ok":
            return answer[1]
        if got == "timeout":
            slow = _sparql_shapes(shapes)
            reason = f"SHACL validation did not finish within {timeout_s:g} s" + (
                f"; shapes with a SPARQL-based constraint: {', '.join(slow)}" if slow else "")
            status = "timeout"
        else:
            reason = f"SHACL validation failed: {answer[1] if got == 'ok' else 'the SHACL process ' + str(answer)}"
            status = "failed"
        log.warning("SHACL %s: %s", status, reason)
        return Result("SHACL", None, status=status, elapsed_s=time.perf_counter() - t0, details={"reason": reason},
                      findings=[Finding(severity="error", message=reason, code=f"shacl-{status}")])

    return finish


#: The local names of the SHACL vocabulary (rdflib's closed ``SH`` namespace, from the W3C SHACL
#: vocabulary, with the names that are Python keywords: sh:and, sh:class, sh:in, sh:not, sh:or).
SHACL_TERMS = frozenset({str(t)[len(str(SH)):] for t in dir(SH) if str(t).startswith(str(SH))}
                        | {"and", "class", "in", "not", "or"})
#: The parameters of SHACL Core's constraint components (SHACL 4) and SHACL-SPARQL's sh:sparql:
#: a property shape with none of them checks nothing.
_CONSTRAINTS = frozenset({
    "class", "datatype", "nodeKind", "minCount", "maxCount", "minExclusive", "minInclusive", "maxExclusive",
    "maxInclusive", "minLength", "maxLength", "pattern", "languageIn", "uniqueLang", "equals", "disjoint",
    "lessThan", "lessThanOrEquals", "not", "and", "or", "xone", "node", "property", "qualifiedValueShape",
    "qualifiedMinCount", "qualifiedMaxCount", "closed", "hasValue", "in", "sparql", "expression", "js"})


def _line_of(text: str, local: str, value: str | None = None, *, same_line: bool = False) -> int | None:
    """The first line of ``text`` naming the SHACL term ``local`` (``sh:local`` or ``shacl#local``);
    with ``value``, the first such line followed closely by that text (the term's offending value;
    ``same_line``: on the term's own line, where several uses of the term are a line apart)."""
    hits = list(re.finditer(rf"(?:[:#]){re.escape(local)}(?![\w-])", text))
    if value:
        def after(m: re.Match) -> str:
            window = text[m.end():m.end() + 200]
            return window.split("\n", 1)[0] if same_line else window
        near = [m for m in hits if value in after(m)]
        hits = near or hits
    return text.count("\n", 0, hits[0].start()) + 1 if hits else None


def _value_fault_error(g: Graph, text: str, path: str | Path, faults: list[ValueFault]) -> InputError:
    """One line for the first (by line) constraint value SHACL cannot use; the count of the others."""
    def name(term: Any) -> str:
        return g.namespace_manager.normalizeUri(term) if isinstance(term, URIRef) else term.n3()

    def shape_name(shape: Any) -> str:
        if isinstance(shape, URIRef):
            return name(shape)
        parent = next(iter(g.subjects(SH.property, shape)), None)
        on = g.value(shape, SH.path)
        where = f"the property shape on {name(on)}" if isinstance(on, URIRef) else "a blank-node shape"
        return f"{name(parent)}, {where}" if isinstance(parent, URIRef) else where

    def text_of(value: Any) -> str:
        return str(value) if isinstance(value, Literal) else re.split(r"[#/:]", str(value))[-1]

    located = [(_line_of(text, str(f.parameter)[len(str(SH)):], text_of(f.value)), f) for f in faults]
    located.sort(key=lambda lf: (lf[0] is None, lf[0] or 0, str(lf[1].parameter)))
    line, f = located[0]
    value = f.value.n3(g.namespace_manager) if hasattr(f.value, "n3") else str(f.value)
    more = f" ({len(faults) - 1} more such value(s) in the file)" if len(faults) > 1 else ""
    return InputError(f"SHACL shapes: {shape_name(f.shape)}, {name(f.parameter)} {value}: {f.problem}{more} "
                      f"(expected: {f.expected}; https://www.w3.org/TR/shacl/#core-components)",
                      path=path, line=line)


def check_shapes(path: str | Path, ontology: Any = None, together: Iterable[str | Path] = ()) -> list[Finding]:
    """Read a hand-written shapes file and check its SHACL terms before any validation runs.

    A term in the SHACL namespace that SHACL does not define (``sh:minCont``) is a constraint that
    would silently never run, so the KG would "pass" it: that is bad input. So is a shape named as
    the value of ``sh:node``, ``sh:property``, ``sh:not``, ``sh:qualifiedValueShape`` or a member
    of ``sh:and``/``sh:or``/``sh:xone`` (each "a shape", SHACL 4.6 and 4.7) that neither this file
    nor the files in ``together`` says anything of: pySHACL reads it as a shape without
    constraints, which every value conforms to (``sh:node s:TitelShape`` for ``s:TitleShape``). A
    ``sh:datatype`` that is no datatype (not XSD's, RDF's, nor an ``rdfs:Datatype`` of the
    ontology; ``ex:string`` for ``xsd:string``) is a warning with the closest built-in datatype: no
    literal has it, so every value fails (SHACL 4.1.2 compares the datatype IRI). A property shape
    (one with ``sh:path``) without any constraint parameter checks nothing: a warning. With the
    ontology, a target class, ``sh:class`` or a simple ``sh:path`` that the ontology declares
    nowhere (``mo:Artowrk`` for ``mo:Artwork``) is a warning with its line and the closest declared
    term: a shape targeting a class no KG of this ontology has checks nothing and "passes" (a
    term of the RDF, RDFS, OWL, XSD, SKOS or SHACL vocabularies is never flagged; one of another
    vocabulary the manifest does not load is, since kgc cannot tell it from a slip).

    Args:
        path: the shapes file (any RDF syntax :func:`pipeline.rdffile.load_graph` reads).
        ontology: the case's :class:`~pipeline.ontology.Ontology`, or ``None`` (no term check).
        together: the other shapes files validated with this one (a shape they define may be
            referenced here); files that do not parse are skipped (their own check reports them).
    Returns:
        ``warning`` findings of stage ``shacl``: a property shape that checks nothing, a term the
        ontology does not declare, a ``sh:datatype`` that is no datatype.
    Raises:
        InputError: the file does not parse, names a SHACL term that does not exist (with the
            line and the closest SHACL term), references a shape defined nowhere (with the line
            and the closest shape), or gives a constraint parameter a value SHACL cannot
            use (:mod:`pipeline.validation.shape_values`: an invalid ``sh:pattern``, a
            ``sh:minCount`` that is no integer ...), with the line, the shape and the value.
    """
    g = load_graph(path, "SHACL shapes")
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    ns = str(SH)
    for term in sorted({t for triple in g for t in triple if isinstance(t, URIRef) and str(t).startswith(ns)}):
        local = str(term)[len(ns):]
        if local not in SHACL_TERMS:
            close = difflib.get_close_matches(local, sorted(SHACL_TERMS), n=1, cutoff=0.6)
            raise InputError(f"SHACL shapes: sh:{local} is no SHACL term, so it would check nothing"
                             + (f" (closest: sh:{close[0]})" if close else "")
                             + " (expected: a term of the SHACL vocabulary, https://www.w3.org/TR/shacl/)",
                             path=path, line=_line_of(text, local))
    faults = constraint_value_faults(g)
    if faults:  # pySHACL would stop on it mid-validation, naming no file, line or shape
        raise _value_fault_error(g, text, path, faults)
    _undefined_shapes(g, text, path, together)
    out = _non_datatypes(g, text, path, ontology)
    for shape in sorted(set(g.subjects(SH.path, None)), key=str):
        used = {str(p)[len(ns):] for p in g.predicates(shape, None) if str(p).startswith(ns)}
        if not used & _CONSTRAINTS:
            where = shape if isinstance(shape, URIRef) else f"the property shape on {g.value(shape, SH.path)}"
            out.append(Finding("shacl", str(path), f"{where} has no constraint (sh:minCount, sh:datatype, "
                               "sh:class ...): it checks nothing", expected="at least one constraint parameter",
                               severity="warning"))
    if ontology is not None:
        out += _undeclared_terms(g, text, path, ontology)
    return out


#: The parameters whose value is a shape (SHACL 4.6 sh:not, sh:and, sh:or, sh:xone; 4.7 sh:node,
#: sh:property, sh:qualifiedValueShape), and those whose value is a list of shapes.
_SHAPE_PARAMETERS = (SH.node, SH.property, SH["not"], SH.qualifiedValueShape)
_SHAPE_LISTS = (SH["and"], SH["or"], SH.xone)


def _undefined_shapes(g: Graph, text: str, path: str | Path, together: Iterable[str | Path]) -> None:
    """Raise :class:`InputError` for the first (by line) shape IRI referenced in ``g`` that no triple
    of ``g`` or of the ``together`` files has as subject."""
    refs: dict[URIRef, URIRef] = {}  # shape IRI -> the parameter naming it
    for parameter in _SHAPE_PARAMETERS:
        refs.update({o: parameter for o in g.objects(None, parameter) if isinstance(o, URIRef)})
    for parameter in _SHAPE_LISTS:
        for lst in g.objects(None, parameter):
            refs.update({m: parameter for m in rdf_members(g, lst) if isinstance(m, URIRef)})
    graphs = [g]
    for other in together:
        if Path(other).resolve() == Path(path).resolve():
            continue
        try:
            graphs.append(load_graph(other, "SHACL shapes"))
        except Exception:  # noqa: BLE001 - its own check_shapes reports a file that does not parse
            continue
    missing = [(iri, p) for iri, p in refs.items() if not any((iri, None, None) in sg for sg in graphs)]
    if not missing:
        return
    located = sorted(((_line_of(text, str(p)[len(str(SH)):], re.split(r"[#/:]", str(iri))[-1], same_line=True), iri, p)
                      for iri, p in missing), key=lambda x: (x[0] is None, x[0] or 0, str(x[1])))
    line, iri, parameter = located[0]
    nm = g.namespace_manager
    shapes = {s for sg in graphs for s in sg.subjects() if isinstance(s, URIRef)
              and any(str(p).startswith(str(SH)) or o in (SH.NodeShape, SH.PropertyShape) for p, o in sg.predicate_objects(s))}
    names = {nm.normalizeUri(s): s for s in shapes}
    close = difflib.get_close_matches(nm.normalizeUri(iri), sorted(names), n=1, cutoff=0.6)
    more = f" ({len(missing) - 1} more such shape(s) in the file)" if len(missing) > 1 else ""
    raise InputError(f"SHACL shapes: {nm.normalizeUri(parameter)} {nm.normalizeUri(iri)}: no shape of that name "
                     "(no triple about it in the shapes given), so it would check nothing and every value would "
                     "conform" + (f" (closest: {close[0]})" if close else "") + more
                     + " (expected: a shape defined in the shapes files, https://www.w3.org/TR/shacl/#NodeConstraintComponent)",
                     path=path, line=line)


def _non_datatypes(g: Graph, text: str, path: str | Path, ontology: Any) -> list[Finding]:
    """Warnings for the ``sh:datatype`` values of ``g`` that are no datatype (module :func:`check_shapes`)."""
    out = []
    for dt in sorted({o for o in g.objects(None, SH.datatype) if isinstance(o, URIRef)}, key=str):
        if is_xsd_datatype(dt):  # pySHACL reads rdfs:Literal as every literal's datatype
            continue
        if ontology is not None and dt not in BUILTIN_DATATYPES and ontology.is_datatype(dt):
            continue  # a datatype the ontology declares (rdfs:Datatype)
        local = re.split(r"[#/:]", str(dt))[-1]
        if is_langstring(dt):
            close = "rdf:langString"
        else:
            names = {re.split(r"[#/:]", str(b))[-1]: b for b in BUILTIN_DATATYPES if b != RDFS.Literal}
            hit = difflib.get_close_matches(local, sorted(names), n=1, cutoff=0.6)
            close = g.namespace_manager.normalizeUri(names[hit[0]]) if hit else None
        why = "not an XSD or RDF datatype, nor an rdfs:Datatype of the ontology"
        out.append(Finding("shacl", str(path), f"sh:datatype {g.namespace_manager.normalizeUri(dt)}: {why}, so no "
                           "literal has it and every value fails this constraint" + (f" (closest: {close})" if close else ""),
                           expected="a datatype IRI such as xsd:string", severity="warning",
                           line=_line_of(text, "datatype", local, same_line=True)))
    return out


#: Vocabularies whose terms a shapes file may name without the ontology declaring them.
_STANDARD = (str(RDF), str(RDFS), str(OWL), str(XSD), str(SH), "http://www.w3.org/2004/02/skos/core#")


def _undeclared_terms(g: Graph, text: str, path: str | Path, ontology: Any) -> list[Finding]:
    """Warnings for the classes and properties ``g``'s shapes name that ``ontology`` declares nowhere."""
    classes = set(ontology.classes)
    properties = set(ontology.properties)
    out = []
    for predicate, declared, kind in ((SH.targetClass, classes, "class"), (SH["class"], classes, "class"),
                                      (SH.path, properties, "property")):  # declared: the closest names
        for term in sorted({o for o in g.objects(None, predicate) if isinstance(o, URIRef)}, key=str):
            if ontology.kind(term) is not None or str(term).startswith(_STANDARD):
                continue
            name = ontology.compact(term)
            close = difflib.get_close_matches(name, [ontology.compact(t) for t in declared], n=1, cutoff=0.75)
            local = re.split(r"[#/:]", str(term))[-1]
            out.append(Finding("shacl", str(path), f"{g.namespace_manager.normalizeUri(predicate)} {name}: the "
                               f"ontology declares no such {kind}" + (f" (closest: {close[0]})" if close else "")
                               + (": the shape targets no node of a KG of this ontology and checks nothing"
                                  if predicate == SH.targetClass else ""),
                               expected=f"a {kind} of the case's ontology", severity="warning",
                               line=_line_of(text, local) if local else None))
    return out
