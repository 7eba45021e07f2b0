"""Whether a row's Entity Class lies within its property's domain (and its Related Entity Class within the
range), and the closest class that does.

``rdfs:domain`` forbids nothing: under RDFS entailment (RDF 1.1 Semantics, rule rdfs2) every
subject of the property *becomes* an instance of the domain. A row whose Entity Class is neither
a domain class nor a subclass of one therefore states, through the KG, that each of its subjects
is also of the domain class (``p:birthDate`` on ``lib:Book``: every book a ``p:Person``), which is
a typing slip far more often than a design; the compiler says so as a warning. schema.org's
``domainIncludes`` entails nothing; outside it, the row uses the property on a class the
vocabulary does not list, said the same way without the entailment. The range is read alike for the
Related Entity Class of a relation row: under rule rdfs3 every object becomes an instance of the
range (schema.org's ``rangeIncludes`` entails nothing).

What is entailed is the class the axiom names, not each class inside it: a domain written as
``[ owl:unionOf ( s:Event s:Place ) ]`` makes each subject an instance of the union, an Event *or* a
Place (OWL 2 Direct Semantics, ObjectUnionOf); two ``rdfs:domain`` triples, or an
``owl:intersectionOf``, make it an instance of both. :attr:`DomainMisfit.statement` words it so, and a
row's class is within the domain only when it lies under each of them: under one member of a union,
under every member of an intersection and every ``rdfs:domain`` (:meth:`Ontology.domain_clauses`).
"""
from __future__ import annotations

from dataclasses import dataclass

from rdflib import BNode, URIRef
from rdflib.namespace import OWL, RDFS

from pipeline.ontology import UNIVERSAL_CLASSES, Ontology
from pipeline.rdflists import members as rdf_members

__all__ = ["DomainMisfit", "outside_domain", "outside_range", "NEAR_NAME"]

#: Least name similarity (:meth:`Ontology.closest`) at which a fitting class is offered for its name
#: (``ex:Novel`` for ``ex:Novels``); below it the names share less than half their characters and the
#: domain class itself is offered.
NEAR_NAME = 0.5


@dataclass(frozen=True)
class DomainMisfit:
    """A class outside a property's domain (or range).

    Attributes:
        domains: the property's domain classes (:meth:`Ontology.domains`), sorted; for
            :func:`outside_range` its range classes.
        entailed: ``True`` when a domain is stated by ``rdfs:domain`` (a range by ``rdfs:range``) of the
            property or a super-property, so RDFS infers the membership; ``False`` for one only
            listed by schema.org's ``domainIncludes`` (``rangeIncludes``).
        closest: the fix to offer: the fitting class (a domain class or one of its subclasses) nearest
            the row's class by name when one is near (:data:`NEAR_NAME`), else the first domain class.
        statement: the domain (range) as the axioms state it, in the ontology's prefixes: the
            ``rdfs:domain`` objects of the property and its super-properties joined by ``and`` (each
            one holds), a union's members by ``or``, an intersection's by ``and``, nested ones in
            parentheses (``s:Event or s:Place``); for a listing by ``domainIncludes`` only, its
            classes joined by ``or`` (any of them is a documented use).
        every: ``True`` when the domain (range) is several clauses (two ``rdfs:domain`` axioms, an
            intersection), each of which a fitting class lies under; ``False`` for one clause.
    """

    domains: tuple[URIRef, ...]
    entailed: bool
    closest: URIRef | None
    statement: str = ""
    every: bool = False


def outside_domain(ontology: Ontology, prop: URIRef, cls: URIRef) -> DomainMisfit | None:
    """Whether ``cls`` lies outside the domain of ``prop``.

    Args:
        ontology: the case's vocabularies.
        prop: a property of the ontology.
        cls: a class of the ontology (the row's Entity Class).
    Returns:
        ``None`` when ``prop`` has no domain (none declared, or only a universal class) or every
        clause of it (:meth:`Ontology.domain_clauses`: each ``rdfs:domain`` axiom, each member of an
        ``owl:intersectionOf``; a union's members are one clause) holds ``cls`` or one of its
        superclasses (``rdfs:subClassOf``/``owl:equivalentClass`` closure); else a :class:`DomainMisfit`.
    """
    return _outside(ontology, prop, cls, ontology.domain_clauses(prop), ontology.domains(prop), RDFS.domain)


def outside_range(ontology: Ontology, prop: URIRef, cls: URIRef) -> DomainMisfit | None:
    """Whether ``cls`` (a relation row's Related Entity Class) lies outside the range of ``prop``.

    Args:
        ontology: the case's vocabularies.
        prop: an object property of the ontology.
        cls: a class of the ontology.
    Returns:
        ``None`` when ``prop`` has no class range (none declared, a universal class, or datatypes only)
        or every clause of it (:meth:`Ontology.range_clauses`) holds ``cls`` or one of its superclasses;
        else a :class:`DomainMisfit` whose ``domains`` are the range classes.
    """
    # an IRI object is in no datatype: a clause's classes are what it can meet (a clause of datatypes only
    # is not judged here)
    clauses = [k for k in (c & ontology.classes for c in ontology.range_clauses(prop)) if k]
    ranges = {r for r in ontology.ranges(prop) if r in ontology.classes}
    return _outside(ontology, prop, cls, clauses, ranges, RDFS.range)


def _outside(ontology: Ontology, prop: URIRef, cls: URIRef, clauses, bounds: set[URIRef],
             stated: URIRef) -> DomainMisfit | None:
    """``cls`` against the clauses of a domain or range (:meth:`Ontology.domain_clauses`): within it when
    each clause holds a superclass of ``cls``; ``bounds``: the same as named classes read as any of them."""
    sup = ontology.superclasses(cls)
    if not clauses or all(c & sup for c in clauses):
        return None
    bounds = bounds or set().union(*clauses)
    axioms = sorted({o for p in ontology.superproperties(prop) for o in ontology.graph.objects(p, stated)},
                    key=lambda o: (isinstance(o, BNode), str(o)))
    words = [w for w in (_words(ontology, o) for o in axioms) if w]
    entailed = bool(axioms)
    if not words:  # listed by domainIncludes/rangeIncludes only: any of them
        words = [" or ".join(ontology.compact(b) for b in sorted(bounds))]
    fitting = sorted(c for c in ontology.classes if all(k & ontology.superclasses(c) for k in clauses))
    closest, _ = ontology.closest(str(cls), fitting, NEAR_NAME)
    statement = " and ".join(w if len(words) == 1 or not _compound(w) else f"({w})" for w in words)
    return DomainMisfit(tuple(sorted(bounds)), entailed, closest or min(bounds), statement, len(clauses) > 1)


def _compound(words: str) -> bool:
    return " or " in words or " and " in words


def _words(ontology: Ontology, node, _open: frozenset = frozenset()) -> str:
    """A class expression as words: a named class by its prefixed name (``""`` for a universal class, which
    restricts nothing), a union's members joined by ``or``, an intersection's by ``and``; a nested compound
    member in parentheses. Other expressions (restrictions) and a list holding itself give ``""``."""
    if isinstance(node, URIRef):
        return "" if node in UNIVERSAL_CLASSES else ontology.compact(node)
    if not isinstance(node, BNode) or node in _open:
        return ""
    for pred, joint in ((OWL.unionOf, " or "), (OWL.intersectionOf, " and ")):
        head = ontology.graph.value(node, pred)
        if head is not None:
            listed = rdf_members(ontology.graph, head)
            if pred == OWL.unionOf and any(m in UNIVERSAL_CLASSES for m in listed):
                return ""  # a union with the universal class is universal
            parts = [w for w in (_words(ontology, m, _open | {node}) for m in listed) if w]
            return joint.join(f"({w})" if _compound(w) and len(parts) > 1 else w for w in parts)
    return ""
