"""The part of an ontology a KG's terms reach: what the reasoners and SHACL validate against.

A KG that uses two properties of a million-triple ontology needs the axioms about those two
properties, their classes and the classes above them, not the other 999,990 triples. The module
is a syntactic approximation of a ⊥-locality module (Cuenca Grau, Horrocks, Kazakov, Sattler,
"Modular Reuse of Ontologies: Theory and Practice", JAIR 31, 2008, section 5): an axiom that
holds when every term outside the signature is read as the empty class or property cannot
make the KG inconsistent, nor add a SHACL target, and is left out. Over RDF this gives, from
the signature ``S`` (every IRI of the KG), to a fixpoint:

* every triple whose subject is in ``S`` (``A rdfs:subClassOf B``, ``P rdfs:domain C``, an
  individual's own assertions ...), with the blank-node structure it points to (restrictions,
  lists); its object's terms join ``S`` (upwards: the superclasses of a used class, the
  domain and range of a used property), except through annotation properties
  (``rdfs:label``, ``rdfs:isDefinedBy`` ... and any ``owl:AnnotationProperty``) and through
  ``owl:disjointWith``, ``owl:propertyDisjointWith``, ``owl:differentFrom`` (a disjointness
  with a term nothing uses is ⊥-local);
* ``X owl:equivalentClass E``, ``owl:equivalentProperty``, ``owl:inverseOf``, ``owl:sameAs``,
  ``owl:disjointUnionOf`` and ``owl:propertyChainAxiom`` are read both ways: when a term of
  ``E`` is in ``S``, ``X`` joins (an equivalence is not ⊥-local when either side is used);
* an axiom on a blank node (``owl:AllDisjointClasses``, ``owl:AllDifferent``,
  ``owl:AllDisjointProperties``) when two of its members are in ``S``; a general class axiom
  (``[ owl:someValuesFrom ... ] rdfs:subClassOf C``) when a term of its left side is;
* triples about ``owl:Thing`` and ``rdfs:Resource`` always (an axiom on the top class is never
  local). Subclasses of a used class are not included: an instance of ``A`` is no instance
  of a subclass of ``A`` that nothing asserts.

Reading every term of one side of an equivalence as "used" is coarser than ⊥-locality (an
intersection is local when one of its conjuncts is unused): the module may hold more than
needed, never less. The ontology's own individuals come in only when the KG reaches them:
a clash among individuals the KG never mentions is the ontology's, not the KG's.

``owl:imports`` is not followed (nothing is downloaded): :func:`unresolved_imports` names the
imported ontologies that none of the files given declares.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from rdflib import BNode, Graph, URIRef
from rdflib.namespace import DC, OWL, RDF, RDFS, SKOS, XSD

__all__ = ["Module", "kg_signature", "ontology_module", "unresolved_imports"]

_BUILTIN = tuple(str(ns) for ns in (RDF, RDFS, OWL, XSD))
#: The annotation properties OWL 2 predefines (Structural Specification, section 5.5), the SKOS
#: documentation properties and the Dublin Core elements: their objects say nothing logical.
_ANNOTATIONS = {RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, OWL.versionInfo, OWL.priorVersion,
                OWL.backwardCompatibleWith, OWL.incompatibleWith, OWL.deprecated, OWL.versionIRI, OWL.imports,
                SKOS.prefLabel, SKOS.altLabel, SKOS.hiddenLabel, SKOS.note, SKOS.definition, SKOS.scopeNote,
                SKOS.example, SKOS.historyNote, SKOS.editorialNote, SKOS.changeNote,
                *(DC[t] for t in ("title", "creator", "subject", "description", "publisher", "contributor", "date",
                                  "type", "format", "identifier", "source", "language", "relation", "coverage",
                                  "rights"))}
#: Kept when the subject is used, but their object does not join the signature (⊥-local otherwise).
_NO_EXPAND = {OWL.disjointWith, OWL.propertyDisjointWith, OWL.differentFrom}
#: Read both ways: the subject joins when a term of the object's structure is used.
_BOTH_WAYS = {OWL.equivalentClass, OWL.equivalentProperty, OWL.inverseOf, OWL.sameAs, OWL.disjointUnionOf,
              OWL.propertyChainAxiom}
#: Blank-node axioms over a list of members: kept when two members are used.
_MEMBERS = {OWL.AllDisjointClasses: OWL.members, OWL.AllDisjointProperties: OWL.members,
            OWL.AllDifferent: OWL.distinctMembers}
_TOP = (OWL.Thing, RDFS.Resource)


@dataclass
class Module:
    """The module of an ontology for a signature.

    Attributes:
        graph: the module's triples (a subset of the ontology's).
        n_signature: IRIs of the KG it was computed for.
        n_terms: IRIs of the ontology the module reaches (the signature's closure, ontology terms only).
        n_ontology_triples: triples of the whole ontology.
    """

    graph: Graph
    n_signature: int
    n_terms: int
    n_ontology_triples: int

    def details(self) -> dict[str, int]:
        """The module's sizes, JSON-ready (``module_triples``, ``ontology_triples``, ``module_terms``)."""
        return {"module_triples": len(self.graph), "ontology_triples": self.n_ontology_triples,
                "module_terms": self.n_terms}


def _builtin(t: Any) -> bool:
    return isinstance(t, URIRef) and str(t).startswith(_BUILTIN)


def kg_signature(kg: Graph) -> set[URIRef]:
    """Every IRI of ``kg`` (subjects, predicates, objects, classes), vocabulary built-ins excluded."""
    out: set[URIRef] = set()
    for triple in kg:
        for t in triple:
            if isinstance(t, URIRef) and not _builtin(t):
                out.add(t)
    return out


class _Index:
    """One pass over the ontology: triples by subject, and the reverse entries the rules need."""

    def __init__(self, schema: Graph) -> None:
        self.by_subject: dict[Any, list[tuple[Any, Any]]] = defaultdict(list)
        objects: set[Any] = set()
        annotation = set(_ANNOTATIONS)
        for s, p, o in schema:
            self.by_subject[s].append((p, o))
            if isinstance(o, BNode):
                objects.add(o)
            if p == RDF.type and o == OWL.AnnotationProperty:
                annotation.add(s)
        self.annotation = annotation
        self.reverse: dict[Any, set[Any]] = defaultdict(set)  # term -> subjects read both ways
        self.member_axioms: dict[Any, set[Any]] = defaultdict(set)  # term -> blank-node member axioms
        self.general: dict[Any, set[Any]] = defaultdict(set)  # term -> general class axioms (blank subject)
        self.members: dict[Any, list[Any]] = {}
        for s, pos in self.by_subject.items():
            if isinstance(s, BNode):
                if s in objects:
                    continue  # part of another axiom's structure
                types = {o for p, o in pos if p == RDF.type}
                listed = next((self._list_terms(o) for p, o in pos if p in {_MEMBERS.get(t) for t in types}), None)
                if listed is not None:
                    self.members[s] = listed
                    for t in listed:
                        self.member_axioms[t].add(s)
                elif any(p in (RDFS.subClassOf, OWL.equivalentClass) for p, _ in pos):
                    for t in self.terms(s, stop_at_subject=True):
                        self.general[t].add(s)
                continue
            for p, o in pos:
                if p in _BOTH_WAYS:
                    for t in ([o] if isinstance(o, URIRef) else self.terms(o)):
                        if t != s and not _builtin(t):
                            self.reverse[t].add(s)

    def _list_terms(self, head: Any) -> list[Any]:
        out, seen = [], set()
        while isinstance(head, BNode) and head not in seen:
            seen.add(head)
            first = next((o for p, o in self.by_subject.get(head, ()) if p == RDF.first), None)
            if first is not None:
                out.append(first)
            head = next((o for p, o in self.by_subject.get(head, ()) if p == RDF.rest), None)
        return out

    def structure(self, node: Any) -> list[tuple[Any, Any, Any]]:
        """The triples of the blank-node structure below ``node`` (restrictions, lists), cycles cut."""
        out, todo, seen = [], [node], set()
        while todo:
            b = todo.pop()
            if not isinstance(b, BNode) or b in seen:
                continue
            seen.add(b)
            for p, o in self.by_subject.get(b, ()):
                out.append((b, p, o))
                todo.append(o)
        return out

    def terms(self, node: Any, stop_at_subject: bool = False) -> set[Any]:
        """Named, non-built-in terms of the structure below ``node`` (``node`` itself when an IRI)."""
        if isinstance(node, URIRef):
            return set() if _builtin(node) else {node}
        out = set()
        for _, p, o in self.structure(node):
            if stop_at_subject and p in (RDFS.subClassOf, OWL.equivalentClass):
                continue  # the left side of a general class axiom only
            for t in (p, o):
                if isinstance(t, URIRef) and not _builtin(t) and p not in self.annotation:
                    out.add(t)
        return out


def ontology_module(schema: Graph, signature: Iterable[URIRef]) -> Module:
    """The triples of ``schema`` that the terms of ``signature`` reach (rules in the module docstring).

    Args:
        schema: the ontology (+ SKOS) graph.
        signature: the KG's IRIs (:func:`kg_signature`).
    Returns:
        A :class:`Module`; its graph holds no ``owl:imports`` triple.
    Cost: one pass over ``schema`` to index it, then work proportional to the module and the signature.
    """
    idx = _Index(schema)
    out = Graph(bind_namespaces="none")
    for prefix, ns in schema.namespaces():
        out.bind(prefix, ns, override=False)
    sig = set(signature)
    todo = list(sig) + list(_TOP)
    reached: set[Any] = set(todo)
    done_axioms: set[Any] = set()

    def join(t: Any) -> None:
        if isinstance(t, URIRef) and not _builtin(t) and t not in reached:
            reached.add(t)
            todo.append(t)

    def add_axiom(b: Any, expand: bool) -> None:
        if b in done_axioms:
            return
        done_axioms.add(b)
        for triple in idx.structure(b):
            out.add(triple)
        if expand:
            for t in idx.terms(b):
                join(t)

    while todo:
        t = todo.pop()
        for p, o in idx.by_subject.get(t, ()):
            if p == OWL.imports:
                continue
            out.add((t, p, o))
            for triple in idx.structure(o):
                out.add(triple)
            if p in idx.annotation or p in _NO_EXPAND:
                continue
            join(p)
            for x in idx.terms(o):
                join(x)
        for s in idx.reverse.get(t, ()):
            join(s)
        for b in idx.general.get(t, ()):
            add_axiom(b, expand=True)
        for b in idx.member_axioms.get(t, ()):
            if b not in done_axioms and sum(m in reached for m in idx.members[b]) >= 2:
                add_axiom(b, expand=False)
    ontology_terms = sum(1 for t in reached if t in idx.by_subject)
    return Module(out, len(sig), ontology_terms, len(schema))


def unresolved_imports(schema: Graph) -> list[str]:
    """The ``owl:imports`` targets that none of the files given holds, sorted: what a reasoner
    would fetch from the network, and what the checks run without.

    An import ``X`` is resolved when ``X`` (with or without a trailing ``#`` or ``/``) is a
    subject of ``schema`` (an ontology header, ``owl:Ontology`` or not, or a version IRI) or when
    some subject lies in the namespace ``X`` names (``X#...`` or ``X/...``): a vocabulary's terms
    live in its namespace, and some files (W3C's WGS84 vocabulary) declare no ontology header.
    """
    imports = {str(i) for i in schema.objects(None, OWL.imports) if isinstance(i, URIRef)}
    if not imports:
        return []
    subjects = {str(s) for s in schema.subjects() if isinstance(s, URIRef)}
    subjects |= {str(v) for v in schema.objects(None, OWL.versionIRI)}
    out = []
    for x in sorted(imports):
        bare = x.rstrip("/#")
        spaces = (x,) if x.endswith(("/", "#")) else (x + "#", x + "/")
        if bare in subjects or x in subjects or any(s.startswith(spaces) for s in subjects):
            continue
        out.append(x)
    return out
