"""CS2-axioms: the OWL axioms that need no reasoner, checked over every triple of a KG in one pass.

Above :data:`pipeline.validation.sample.FULL_LIMIT` triples the reasoners and SHACL see a sample
(:mod:`.sample`), and a violation held by one subject of 30,000 is missed. The axioms below are
read directly off the ontology and checked against *every* triple as SV2's one pass of the
parser reads them (:class:`AxiomCheck`, fed like :class:`.sample.SubjectSample`), in time linear
in the triples and memory linear in the values of the constrained properties.

Class membership is the asserted ``rdf:type`` closed under the ontology's told ``rdfs:subClassOf``
and ``owl:equivalentClass`` between named classes (OWL 2 RL rules cax-sco, cax-eqc1/2) and the
subclass relations of class expressions (a class equivalent to an intersection, cls-int2); a
property's datatype ranges include those of its told super-properties (``rdfs:subPropertyOf``,
``owl:equivalentProperty``, transitively: RDF 1.1 Semantics rdfs7 then rdfs3, OWL 2 RL prp-spo1
then prp-rng); nothing else is inferred (no domain/range typing or ``owl:sameAs``), so every error is an
inconsistency of KG + ontology under the OWL 2 Direct Semantics, and a clash that needs more
inference is left to the reasoners. Each kind, with its justification:

* ``functional-property`` (error): ``p`` an ``owl:FunctionalProperty`` and a subject with two
  literals of ``p`` whose data values differ. A functional data property allows at most one
  value per individual, and distinct data values are never equal (OWL 2 Direct Semantics,
  section 2.3.2, ``FunctionalDataProperty``). Two different IRIs as values are no clash: OWL has
  no unique-name assumption, so they are entailed ``owl:sameAs`` (a ``warning`` saying so).
* ``inverse-functional-property`` (warning): two subjects sharing a value of an
  ``owl:InverseFunctionalProperty`` are entailed ``owl:sameAs`` (OWL 2 RL rule prp-ifp), which
  is a clash only with a ``owl:differentFrom`` this pass does not read: said, never an error.
* ``disjoint-classes`` (error): a node member of two classes declared ``owl:disjointWith`` or
  in one ``owl:AllDisjointClasses`` (OWL 2 RL rules cax-dw, cax-adc).
* ``datatype-range`` (error): a literal value of ``p`` with ``rdfs:range D``, ``D`` a built-in
  datatype, whose datatype's value space is disjoint from ``D``'s (``"x"^^xsd:string`` for a range
  ``xsd:date``). Value spaces follow the OWL 2 datatype map (Structural Specification, section
  4): the real numbers (``owl:real``, ``xsd:decimal``, ``xsd:integer`` and its derived types) are
  one family, ``xsd:double``, ``xsd:float``, the strings (``xsd:string`` and derived), language
  strings, booleans, each date-time type ... are others, ``rdfs:Literal`` holds all. Only
  disjoint families clash: a value inside the family but outside a derived type's bounds is SV2's
  (lexical) business, so no false clash comes from this rule.
* ``datatype-facet`` (error): a literal value of ``p`` whose range is a datatype restriction
  (:func:`pipeline.ontology.datatype_restriction`: ``xsd:integer`` with ``xsd:minInclusive 1``, or a
  named datatype so defined), of the restriction's base family, that a facet excludes
  (:func:`pipeline.validation.facets.facet_violation`: ``"0"^^xsd:integer``; a string the
  ``xsd:pattern`` does not match as a whole). The value is outside the data range, which is an
  inconsistency (OWL 2 Direct Semantics, ``DataPropertyRange``; the data range's value space is
  the base's restricted by the facets, Structural Specification 7.5).
* ``cardinality`` (error): a node of ``C`` with ``C rdfs:subClassOf [owl:onProperty p;
  owl:maxCardinality n]`` (also ``owl:cardinality``, and the qualified forms with
  ``owl:onDataRange``, counting the literals in that range) holding more than ``n`` distinct
  literal values of ``p`` (OWL 2 Direct Semantics, ``DataMaxCardinality``); IRI values are not
  counted (no unique-name assumption).
"""
from __future__ import annotations

import time
from collections import Counter, defaultdict
from decimal import Decimal, InvalidOperation
from typing import Any

import pyoxigraph
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.findings import Finding
from pipeline.ontology import (VALUE_FAMILY, VALUE_UNION, Restriction, datatype_restriction, expression_subclasses,
                               superproperties)
from pipeline.rdflists import members as rdf_members
from pipeline.validation.facets import facet_violation
from pipeline.validation.result import Result

__all__ = ["AxiomCheck", "value_family", "data_value"]

_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_X = str(XSD)
_R = str(RDF)
_FAMILY = VALUE_FAMILY
_UNION = VALUE_UNION


def value_family(datatype: str) -> str | None:
    """The value-space family of a built-in datatype IRI (``None``: not built in, not judged)."""
    return _FAMILY.get(datatype)


def data_value(lexical: str, datatype: str, language: str | None = None) -> tuple:
    """A key equal for two literals exactly when they denote the same data value (as far as can be
    told without the whole XSD algebra): reals by their decimal value, so ``"1"^^xsd:integer`` and
    ``"1.0"^^xsd:decimal`` are one value; language strings by text and lower-cased tag; others by
    family and their value as rdflib reads it, else their lexical form.

    Returns:
        A hashable tuple.
    """
    if language:
        return ("langString", lexical, language.lower())
    family = _FAMILY.get(datatype) or datatype
    if family == "real":
        try:
            return ("real", Decimal(lexical.strip()).normalize())
        except InvalidOperation:
            return ("real-lexical", lexical)
    if family == "string":
        return ("string", lexical)
    try:
        v = Literal(lexical, datatype=URIRef(datatype)).toPython()
        if not isinstance(v, Literal):
            return (family, v)
    except Exception:  # noqa: BLE001 - an ill-typed literal (SV2 reports it): compare as written
        pass
    return (family, lexical)


def _literal_key(o: pyoxigraph.Literal) -> tuple:
    return data_value(o.value, o.datatype.value, o.language)


def _literal_text(o: pyoxigraph.Literal) -> str:
    return str(o)


class AxiomCheck:
    """The module docstring's checks, over triples given one by one in file order.

    Args:
        ontology: the ontology graph (rdflib) the axioms are read from.
    """

    def __init__(self, ontology: Graph) -> None:
        t0 = time.perf_counter()
        g = ontology
        self.functional = {str(p) for p in g.subjects(RDF.type, OWL.FunctionalProperty) if isinstance(p, URIRef)}
        self.inverse_functional = {str(p) for p in g.subjects(RDF.type, OWL.InverseFunctionalProperty)
                                   if isinstance(p, URIRef)}
        self.disjoint: dict[str, set[str]] = defaultdict(set)
        for a, b in g.subject_objects(OWL.disjointWith):
            if isinstance(a, URIRef) and isinstance(b, URIRef):
                self.disjoint[str(a)].add(str(b))
                self.disjoint[str(b)].add(str(a))
        for axiom in g.subjects(RDF.type, OWL.AllDisjointClasses):
            members = [str(m) for m in rdf_members(g, g.value(axiom, OWL.members)) if isinstance(m, URIRef)]
            for m in members:
                self.disjoint[m].update(x for x in members if x != m)
        self.ranges: dict[str, list[str]] = defaultdict(list)  # property -> built-in datatype ranges
        self.restricted: dict[str, list[Restriction]] = defaultdict(list)  # property -> datatype restrictions
        for p, d in g.subject_objects(RDFS.range):
            if not isinstance(p, URIRef):
                continue
            restriction = datatype_restriction(g, d)
            if restriction is not None:  # its base is a range too; its facets are checked on the base's values
                if restriction.facets:
                    self.restricted[str(p)].append(restriction)
                d = restriction.base
            if str(d) in _FAMILY or str(d) in _UNION:
                self.ranges[str(p)].append(str(d))
        # a super-property's ranges hold for p's values (RDF 1.1 Semantics rdfs7 then rdfs3; OWL 2
        # SubDataPropertyOf with DataPropertyRange): p -> the ranges it inherits, and from where
        self.inherited: dict[tuple[str, str], str] = {}
        subs = {x for x in g.subjects(RDFS.subPropertyOf, None) if isinstance(x, URIRef)}
        subs |= {x for pair in g.subject_objects(OWL.equivalentProperty) for x in pair if isinstance(x, URIRef)}
        own_ranges = {p: list(v) for p, v in self.ranges.items()}
        own_restricted = {p: list(v) for p, v in self.restricted.items()}
        for x in sorted(subs):
            for q in sorted(str(y) for y in superproperties(g, x) if y != x):
                for d in own_ranges.get(q, ()):
                    if d not in self.ranges[str(x)]:
                        self.ranges[str(x)].append(d)
                        self.inherited[(str(x), d)] = q
                for r in own_restricted.get(q, ()):
                    if r not in self.restricted[str(x)]:
                        self.restricted[str(x)].append(r)
        # property -> [(class, max, datatype range counted or None)]
        self.max_card: dict[str, list[tuple[str, int, str | None]]] = defaultdict(list)
        for r in g.subjects(OWL.onProperty, None):
            p = g.value(r, OWL.onProperty)
            for pred in (OWL.maxCardinality, OWL.cardinality, OWL.maxQualifiedCardinality, OWL.qualifiedCardinality):
                n = g.value(r, pred)
                if n is None or not isinstance(p, URIRef):
                    continue
                try:
                    limit = int(n)
                except (TypeError, ValueError):
                    continue
                on_range = g.value(r, OWL.onDataRange)
                if g.value(r, OWL.onClass) is not None:
                    continue  # counts individuals: no unique-name assumption, never a literal clash
                if on_range is not None and str(on_range) not in _FAMILY and str(on_range) not in _UNION:
                    continue  # a range this pass cannot judge
                classes = {str(c) for c in g.subjects(RDFS.subClassOf, r) if isinstance(c, URIRef)}
                classes |= {str(c) for c in g.subjects(OWL.equivalentClass, r) if isinstance(c, URIRef)}
                for c in classes:
                    self.max_card[str(p)].append((c, limit, str(on_range) if on_range is not None else None))
        # the classes whose members this pass must remember: disjoint ones and cardinality-bound ones
        relevant = set(self.disjoint) | {c for rules in self.max_card.values() for c, _, _ in rules}
        self.supers = _superclasses(g, relevant)
        self.type_watch = {c: cs & relevant for c, cs in self.supers.items() if cs & relevant}
        self.node_classes: dict[Any, set[str]] = defaultdict(set)
        self.first_value: dict[tuple[Any, str], Any] = {}  # (s, functional p) -> its first literal
        self.iri_value: dict[tuple[Any, str], Any] = {}
        self.ifp_subject: dict[tuple[str, Any], Any] = {}
        self.card_values: dict[tuple[Any, str], set] = defaultdict(set)
        self.findings: list[Finding] = []
        self.n_triples = 0
        self._said_disjoint: set[tuple[Any, str, str]] = set()
        self.setup_s = time.perf_counter() - t0

    @property
    def axioms(self) -> dict[str, int]:
        """How many axioms of each kind the pass checks."""
        return {"functional": len(self.functional), "inverse_functional": len(self.inverse_functional),
                "disjoint_pairs": sum(len(v) for v in self.disjoint.values()) // 2,
                "datatype_ranges": sum(len(v) for v in self.ranges.values()),
                "datatype_facets": sum(len(r.facets) for v in self.restricted.values() for r in v),
                "max_cardinality": sum(len(v) for v in self.max_card.values())}

    def add(self, s: Any, p: Any, o: Any) -> None:
        """One triple (pyoxigraph terms), in file order."""
        self.n_triples += 1
        pv = p.value
        if pv == _RDF_TYPE:
            if isinstance(o, pyoxigraph.NamedNode):
                watched = self.type_watch.get(o.value)
                if watched:
                    self._member(s, watched)
            return
        is_lit = isinstance(o, pyoxigraph.Literal)
        if pv in self.functional:
            self._functional(s, pv, o, is_lit)
        if pv in self.inverse_functional and not is_lit:
            key = (pv, o)
            first = self.ifp_subject.setdefault(key, s)
            if first != s:
                self.findings.append(Finding(
                    severity="warning", code="inverse-functional-property", location=_text(s), term=_text(o),
                    message=f"shares with {_text(first)} the value {_text(o)} of the inverse-functional "
                            f"property <{pv}>: they are entailed owl:sameAs (OWL has no unique-name assumption); "
                            "a clash only if they are different individuals"))
        if is_lit:
            ranges = self.ranges.get(pv)
            if ranges:
                self._range(s, pv, o, ranges)
            restricted = self.restricted.get(pv)
            if restricted:
                self._facets(s, pv, o, restricted)
            if pv in self.max_card:
                vals = self.card_values[(s, pv)]
                if len(vals) < 64:  # more than any sane limit: enough to show the clash
                    vals.add((_literal_key(o), o.datatype.value if not o.language else _R + "langString"))

    def _functional(self, s: Any, pv: str, o: Any, is_lit: bool) -> None:
        if not is_lit:
            first_iri = self.iri_value.setdefault((s, pv), o)
            if first_iri != o:
                self.findings.append(Finding(
                    severity="warning", code="functional-property-iri", location=_text(s), term=_text(o),
                    message=f"the values {_text(first_iri)} and {_text(o)} of the functional "
                            f"property <{pv}>: they are entailed owl:sameAs (OWL has no unique-name assumption)"))
            return
        first_lit = self.first_value.setdefault((s, pv), o)  # the value itself: keys only on a second one
        if first_lit != o and _literal_key(first_lit) != _literal_key(o):
            self.findings.append(Finding(
                severity="error", code="functional-property", location=_text(s), term=_literal_text(o),
                message=f"two distinct values of the functional property <{pv}>: {_literal_text(first_lit)} and "
                        f"{_literal_text(o)} (at most one allowed)"))

    def _range(self, s: Any, pv: str, o: Any, ranges: list[str]) -> None:
        dt = _R + "langString" if o.language else o.datatype.value
        family = _FAMILY.get(dt)
        if family is None:
            return  # a datatype this pass does not know: not judged
        for d in ranges:
            allowed = _UNION.get(d) or {_FAMILY[d]}
            if family not in allowed:
                self.findings.append(Finding(
                    severity="error", code="datatype-range", location=_text(s), term=_literal_text(o),
                    message=f"the value {_literal_text(o)} of <{pv}> is outside its range <{d}>{self._via(pv, d)} "
                            f"(value spaces of <{dt}> and <{d}> are disjoint)"))
                return

    def _via(self, pv: str, d: str) -> str:
        """`` (the range of <q>, a super-property)`` for a range ``pv`` inherits, else ``""``."""
        q = self.inherited.get((pv, d))
        return f" (the range of <{q}>, a super-property)" if q else ""

    def _facets(self, s: Any, pv: str, o: Any, restrictions: list[Restriction]) -> None:
        dt = _R + "langString" if o.language else o.datatype.value
        for r in restrictions:
            # judged only in the base's value space: another family is datatype-range's clash, and a
            # datatype this pass does not know (the restricted datatype's own name) is not judged
            if _FAMILY.get(dt) is None or _FAMILY.get(dt) != _FAMILY.get(str(r.base)):
                continue
            why = facet_violation(r, o.value)
            if why:
                self.findings.append(Finding(
                    severity="error", code="datatype-facet", location=_text(s), term=_literal_text(o),
                    message=f"the value {_literal_text(o)} of <{pv}> is outside its range {r.describe()}: it {why}"))
                return

    def _member(self, s: Any, classes: set[str]) -> None:
        held = self.node_classes[s]
        new = classes - held
        if not new:
            return
        for c in new:
            for other in self.disjoint.get(c, ()):
                if other in held:
                    pair = (s, *sorted((c, other)))
                    if pair not in self._said_disjoint:
                        self._said_disjoint.add(pair)
                        self.findings.append(Finding(
                            severity="error", code="disjoint-classes", location=_text(s),
                            message=f"an instance of <{pair[1]}> and of <{pair[2]}>, which are "
                                    "declared disjoint"))
        held |= new

    def result(self) -> Result:
        """``Result(name="CS2-axioms")``: ``value`` ``False`` when an error was found; ``details`` hold
        the axioms checked, the violations per kind and the coverage (every triple)."""
        t0 = time.perf_counter()
        for (s, pv), vals in self.card_values.items():
            rules = self.max_card[pv]
            held = self.node_classes.get(s, set())
            for cls, limit, on_range in rules:
                if cls not in held:
                    continue
                allowed = None if on_range is None else (_UNION.get(on_range) or {_FAMILY[on_range]})
                counted = {k for k, dt in vals if allowed is None or _FAMILY.get(dt) in allowed}
                if len(counted) > limit:
                    self.findings.append(Finding(
                        severity="error", code="cardinality", location=_text(s),
                        message=f"an instance of <{cls}> with {len(counted)} distinct literal values of "
                                f"<{pv}>, at most {limit} allowed"))
        errors = sum(f.severity == "error" for f in self.findings)
        # the violations per kind, counted off the findings (each finding is one violation)
        details = {"axioms": self.axioms, "violations": dict(Counter(f.code for f in self.findings)),
                   "coverage": {"mode": "full", "triples": [self.n_triples, self.n_triples],
                                "method": "every triple, in SV2's pass"},
                   "method": "functional and inverse-functional properties, disjoint classes, datatype ranges and "
                             "their facets, and maximum cardinalities read off the ontology (told subclasses only)"}
        return Result("CS2-axioms", errors == 0, findings=self.findings, details=details,
                      elapsed_s=self.setup_s + time.perf_counter() - t0)


def _text(term: Any) -> str:
    return str(term)


def _superclasses(g: Graph, extra: set[str]) -> dict[str, set[str]]:
    """Every named class -> itself and its told superclasses (``rdfs:subClassOf``, ``owl:equivalentClass``
    between named classes, and those class expressions entail, :func:`pipeline.ontology.expression_subclasses`:
    a class equivalent to an intersection lies under each member; transitively)."""
    up: dict[str, set[str]] = defaultdict(set)
    for a, b in g.subject_objects(RDFS.subClassOf):
        if isinstance(a, URIRef) and isinstance(b, URIRef):
            up[str(a)].add(str(b))
    for a, b in expression_subclasses(g):
        up[str(a)].add(str(b))
    for a, b in g.subject_objects(OWL.equivalentClass):
        if isinstance(a, URIRef) and isinstance(b, URIRef):
            up[str(a)].add(str(b))
            up[str(b)].add(str(a))
    named = set(up) | {c for cs in up.values() for c in cs} | extra
    named |= {str(c) for c in g.subjects(RDF.type, OWL.Class) if isinstance(c, URIRef)}
    named |= {str(c) for pair in g.subject_objects(OWL.disjointWith) for c in pair if isinstance(c, URIRef)}
    named |= {str(c) for c in g.subjects(RDFS.subClassOf, None) if isinstance(c, URIRef)}
    out: dict[str, set[str]] = {}
    for c in named:
        seen, todo = {c}, [c]
        while todo:
            for nxt in up.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[c] = seen
    return out


