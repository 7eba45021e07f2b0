"""A KG against a reference KG whatever IRIs either mints: classes, properties, (property, value) pairs.

Two people who map the same data write the same facts under different subject IRIs (each mints
its own scheme), so comparing triples as written says nothing. What survives a change of IRI
scheme is what a statement says about a value: its property and the value. The comparison here
reads each graph as a multiset of *(predicate, value)* pairs:

* a literal object gives its lexical form, whitespace-trimmed; a numeral is written in one
  canonical decimal form (``"05"``, ``"5.0"`` and ``"5"^^xsd:integer`` are one value) and the
  datatype and language tag are ignored (they are scored elsewhere: SV2, SHACL);
* ``rdf:type`` gives the class IRI;
* an IRI object that is an entity of the graph (it is typed or has statements of its own) gives
  ``"entity of <classes>"``: the link is right when it reaches an entity of the right classes;
* any other IRI gives the IRI itself when it is a term of the vocabularies (a SKOS concept, a
  class), else its last path segment, percent-decoded (``.../country/BE`` and ``.../BE`` agree);
* a blank-node object counts as an entity.

Precision is the share of the KG's pairs the reference has, recall the share of the reference's
pairs the KG has, each pair counted as often as it occurs (a multiset intersection, so a value
stated for 9 entities is 9 pairs). With ``reachable``, the reference is cut to the statements
whose class and property the vocabularies declare (what a mapper that uses only the given
vocabularies can produce), as the real-mappings corpus notes that some hand-written mappings use
terms no vocabulary declares.

With ``entailment`` (the vocabularies' graph), each side is read with what its statements entail
by the vocabularies' property axioms before the other side's pairs are looked up in it: a
sub-property's statement states its super-properties (RDFS 1.1 Semantics, rule rdfs7), an
equivalent property's (OWL 2 RL prp-eqp1/2) and an inverse's the other way round (prp-inv1/2).
Recall is then the share of the reference's pairs the KG entails, precision the share of the KG's
pairs the reference entails: a KG writing ``skos:broader`` recalls a reference's
``skos:broaderTransitive``, but the reference's ``broaderTransitive`` does not make the KG's more
specific ``broader`` right. Class axioms are not applied to the pairs (a superclass would change every
link's ``entity of`` value); the class figures read each side's classes with what its statements entail
by the vocabularies' ``rdfs:domain``, ``rdfs:range`` and ``rdfs:subClassOf`` axioms (RDFS 1.1 Semantics
rdfs2, rdfs3, rdfs9: :func:`entailed_classes`): class recall is the share of the reference's classes the
KG entails, precision the share of the KG's classes the reference entails (a KG typing an event
``schema:Event`` and stating its ``agenda:interior``, whose domain is ``agenda:Evento``, recalls a
reference's ``agenda:Evento``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.scoring.graph.values import canonical_number, loose_text_key

__all__ = ["PairScores", "graph_pairs", "compare_graphs", "declared_terms", "canonical_number", "entailed",
           "entailed_classes"]

#: Namespaces every RDF tool knows: their terms are reachable without a vocabulary file.
_BUILTIN = (str(RDF), str(RDFS), str(OWL), str(XSD))


def _literal(lit: Literal) -> str:
    return loose_text_key(str(lit))


def _tail(iri: str) -> str:
    cut = max(iri.rfind("/"), iri.rfind("#"))
    return unquote(iri[cut + 1:] if cut >= 0 and cut < len(iri) - 1 else iri)


def graph_pairs(graph: Graph, vocabulary: set[str] | None = None) -> Counter[tuple[str, str]]:
    """The (predicate IRI, value) pairs of ``graph``, counted (see the module docstring).

    Args:
        graph: the KG (a named-graph dataset is read as the union of its graphs).
        vocabulary: IRIs of the vocabularies' terms; an IRI object among them keeps its full IRI.
    Returns:
        A counter of ``(predicate, value)`` string pairs.
    """
    vocabulary = vocabulary or set()
    types: dict[Any, list[str]] = {}
    for s, o in graph.subject_objects(RDF.type):
        types.setdefault(s, []).append(str(o))
    subjects = set(graph.subjects())
    out: Counter[tuple[str, str]] = Counter()
    for s, p, o in graph:
        if p == RDF.type:
            value = str(o)
        elif isinstance(o, Literal):
            value = _literal(o)
        elif isinstance(o, BNode) or o in subjects or o in types:
            value = "entity of " + " ".join(sorted(types.get(o, [])))
        elif str(o) in vocabulary:
            value = str(o)
        else:
            value = _tail(str(o))
        out[(str(p), value)] += 1
    return out


def _property_closure(vocabulary: Graph) -> dict[URIRef, set[tuple[URIRef, bool]]]:
    """Property -> every (property, same direction?) one of its statements entails, itself excluded."""
    up: dict[URIRef, set[tuple[URIRef, bool]]] = {}

    def link(p: Any, q: Any, forward: bool) -> None:
        if isinstance(p, URIRef) and isinstance(q, URIRef) and p != q:
            up.setdefault(p, set()).add((q, forward))

    for p, q in vocabulary.subject_objects(RDFS.subPropertyOf):
        link(p, q, True)
    for p, q in vocabulary.subject_objects(OWL.equivalentProperty):
        link(p, q, True)
        link(q, p, True)
    for p, q in vocabulary.subject_objects(OWL.inverseOf):
        link(p, q, False)
        link(q, p, False)
    closure: dict[URIRef, set[tuple[URIRef, bool]]] = {}
    for start in up:
        seen: set[tuple[URIRef, bool]] = set()
        todo = [(start, True)]
        while todo:
            p, forward = todo.pop()
            for q, same in up.get(p, ()):
                step = (q, forward == same)
                if step not in seen and step != (start, True):
                    seen.add(step)
                    todo.append(step)
        closure[start] = seen
    return closure


def entailed(graph: Graph, vocabulary: Graph) -> Graph:
    """``graph`` with the statements its property statements entail by ``vocabulary``'s
    ``rdfs:subPropertyOf``, ``owl:equivalentProperty`` and ``owl:inverseOf`` axioms (RDFS 1.1
    Semantics rdfs7; OWL 2 RL prp-spo1, prp-eqp1/2, prp-inv1/2), to a fixpoint. A new graph; an
    inverse is not applied to a literal object (a literal is no subject)."""
    closure = _property_closure(vocabulary)
    out = Graph()
    for s, p, o in graph:
        out.add((s, p, o))
        for q, forward in closure.get(p, ()):
            if forward:
                out.add((s, q, o))
            elif not isinstance(o, Literal):
                out.add((o, q, s))
    return out


def entailed_classes(graph: Graph, vocabulary: Graph) -> set[str]:
    """The classes of which ``graph`` has an instance, by its ``rdf:type`` statements and by what its statements
    entail with ``vocabulary``'s ``rdfs:domain`` (the subject is one), ``rdfs:range`` (an IRI or blank-node
    object is one) and ``rdfs:subClassOf`` axioms, to a fixpoint (RDFS 1.1 Semantics rdfs2, rdfs3, rdfs9).
    Domains and ranges that are no IRI (an ``owl:unionOf`` node) entail nothing here; ``owl:Thing`` and
    ``rdfs:Resource`` are left out (every individual is one).

    Args:
        graph: a KG, best read through :func:`entailed` first (a sub-property's statement has its
            super-property's domain). vocabulary: the vocabularies' graph.
    Returns:
        Class IRIs as strings.
    """
    def iris(values: Iterable[Any]) -> set[str]:
        return {str(v) for v in values if isinstance(v, URIRef)}

    out = {str(o) for o in graph.objects(None, RDF.type) if isinstance(o, URIRef)}
    for p in set(graph.predicates()) - {RDF.type}:
        domains, ranges = iris(vocabulary.objects(p, RDFS.domain)), iris(vocabulary.objects(p, RDFS.range))
        if domains:
            out |= domains
        if ranges and any(not isinstance(o, Literal) for o in graph.objects(None, p)):
            out |= ranges
    todo = list(out)
    while todo:
        for sup in iris(vocabulary.objects(URIRef(todo.pop()), RDFS.subClassOf)):
            if sup not in out:
                out.add(sup)
                todo.append(sup)
    return out - {str(OWL.Thing), str(RDFS.Resource)}


def declared_terms(vocabularies: Iterable[Graph]) -> set[str]:
    """IRIs that the vocabularies declare or describe (the subjects of their statements)."""
    return {str(s) for g in vocabularies for s in g.subjects() if isinstance(s, URIRef)}


def _entities(graph: Graph) -> Counter[str]:
    return Counter(str(o) for _, o in graph.subject_objects(RDF.type))


def _pr(mine: Counter, theirs: Counter) -> tuple[float | None, float | None]:
    hit = sum((mine & theirs).values())
    n_mine, n_theirs = sum(mine.values()), sum(theirs.values())
    return (hit / n_mine if n_mine else None), (hit / n_theirs if n_theirs else None)


def _set_pr(mine: set, theirs: set) -> tuple[float | None, float | None]:
    hit = len(mine & theirs)
    return (hit / len(mine) if mine else None), (hit / len(theirs) if theirs else None)


@dataclass
class PairScores:
    """A KG against a reference, IRI-agnostic (values in [0, 1]; ``None`` when a side is empty).

    Attributes:
        class_precision, class_recall: over the sets of classes (objects of ``rdf:type``).
        predicate_precision, predicate_recall: over the sets of predicates (``rdf:type`` included).
        pair_precision, pair_recall: over the (predicate, value) multisets.
        entities: per reference class, ``[entities in the KG, entities in the reference]``.
        entities_within: share of the reference's classes whose KG count is within
            ``tolerance`` (relative) of the reference's.
        reference_triples, kg_triples: sizes compared (after the ``reachable`` cut).
    """

    class_precision: float | None
    class_recall: float | None
    predicate_precision: float | None
    predicate_recall: float | None
    pair_precision: float | None
    pair_recall: float | None
    entities: dict[str, list[int]] = field(default_factory=dict)
    entities_within: float | None = None
    reference_triples: int = 0
    kg_triples: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the fields."""
        return dict(self.__dict__)


def compare_graphs(kg: Graph, reference: Graph, vocabulary: set[str] | None = None, reachable: bool = False,
                   tolerance: float = 0.2, entailment: Graph | None = None) -> PairScores:
    """Score ``kg`` against ``reference`` ignoring the IRIs either mints.

    Args:
        kg: the KG produced.
        reference: the reference KG (a hand-written mapping's output).
        vocabulary: IRIs the vocabularies declare (:func:`declared_terms`); needed for ``reachable``.
        reachable: cut the reference to statements whose property (and, for ``rdf:type``, class)
            the vocabularies declare or RDF/RDFS/OWL/XSD define.
        tolerance: relative difference of entity counts accepted by ``entities_within``.
        entailment: the vocabularies' graph; when given, pair precision and recall read each side
            with what it entails by the property axioms (module docstring; :func:`entailed`).
    Returns:
        The :class:`PairScores`.
    """
    vocabulary = vocabulary or set()
    if reachable:
        def known(iri: str) -> bool:
            return iri in vocabulary or iri.startswith(_BUILTIN)

        cut = Graph()
        for s, p, o in reference:
            if known(str(p)) and (p != RDF.type or known(str(o))):
                cut.add((s, p, o))
        reference = cut
    mine_pairs, ref_pairs = graph_pairs(kg, vocabulary), graph_pairs(reference, vocabulary)
    mine_classes, ref_classes = _entities(kg), _entities(reference)
    cp, cr = _set_pr(set(mine_classes), set(ref_classes))
    pp, pr = _set_pr({p for p, _ in mine_pairs}, {p for p, _ in ref_pairs})
    vp, vr = _pr(mine_pairs, ref_pairs)
    if entailment is not None:  # each side's pairs looked up in what the other side entails
        hit_p = sum((mine_pairs & graph_pairs(entailed(reference, entailment), vocabulary)).values())
        hit_r = sum((ref_pairs & graph_pairs(entailed(kg, entailment), vocabulary)).values())
        n_mine, n_ref = sum(mine_pairs.values()), sum(ref_pairs.values())
        vp, vr = (hit_p / n_mine if n_mine else None), (hit_r / n_ref if n_ref else None)
        mine_set, ref_set = set(mine_classes), set(ref_classes)  # each side's classes in what the other entails
        theirs = entailed_classes(entailed(reference, entailment), entailment)
        ours = entailed_classes(entailed(kg, entailment), entailment)
        cp = len(mine_set & theirs) / len(mine_set) if mine_set else None
        cr = len(ref_set & ours) / len(ref_set) if ref_set else None
    entities = {c: [mine_classes.get(c, 0), n] for c, n in sorted(ref_classes.items())}
    within = [abs(m - n) <= tolerance * n for m, n in entities.values()]
    return PairScores(cp, cr, pp, pr, vp, vr, entities, sum(within) / len(within) if within else None,
                      len(reference), len(kg))
