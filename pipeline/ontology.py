"""Ontology and SKOS access: prefixes, terms, domains/ranges, labels, closest terms.

Loads OWL/RDFS ontologies and SKOS vocabularies from local files only (never over the network)
and answers the questions the compiler, the audit and the mappers ask: does this term exist and of
what kind, which prefix resolves ``epo:``, which class/property is the closest valid one.

Loading is linear in the size of the files: Turtle, N-Triples, N-Quads, TriG and RDF/XML are
parsed by pyoxigraph (Rust) straight into one rdflib graph (rdflib's own parsers, about five times
slower, read the other syntaxes and whatever pyoxigraph rejects, and give the error message when a
file does not parse). The syntax is the content's when the extension says otherwise (a ``.owl``
file holding Turtle). ``owl:imports`` are resolved from the files given and from an OASIS XML
catalog beside them (``catalog-v001.xml``, as Protégé writes it); an import found in neither is a
note naming it, never a download. Domains, ranges and class hierarchies are computed once per term.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from itertools import product
from math import prod
from pathlib import Path
from typing import Any, Iterable

import pyoxigraph
from lxml import etree
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rapidfuzz import fuzz, process
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from pipeline.errors import OntologyError
from pipeline.rdffile import SYNTAX_NAMES, locate_parse_error, rdf_format, refuse_remote_contexts
from pipeline.rdflists import members as _list_members
from pipeline.rdflists import LIST_PREDICATES, list_fault
from pipeline.rdflists import members as rdf_members

__all__ = ["WELL_KNOWN_PREFIXES", "Ontology", "load_ontology", "is_xsd_datatype", "is_langstring", "Restriction",
           "datatype_restriction", "superproperties", "disjoint_ranges", "VALUE_FAMILY", "VALUE_UNION",
           "UNIVERSAL_CLASSES", "BUILTIN_PROPERTIES", "BUILTIN_DATATYPES", "sniff_syntax",
           "closest_term", "DATATYPE_SPELLING", "namespace", "local_name", "expression_subclasses"]

#: Prefixes a table may use without the ontology declaring them (prefix.cc
#: consensus). ``epo`` is the eProcurement Ontology, whose files use ``:``.
WELL_KNOWN_PREFIXES: dict[str, str] = {
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "owl": str(OWL),
    "xsd": str(XSD),
    "skos": str(SKOS),
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dct": "http://purl.org/dc/terms/",
    "dcterms": "http://purl.org/dc/terms/",
    "schema": "http://schema.org/",
    "geo": "http://www.w3.org/2003/01/geo/wgs84_pos#",
    "gtfs": "http://vocab.gtfs.org/terms#",
    "epo": "http://data.europa.eu/a4g/ontology#",
    "org": "http://www.w3.org/ns/org#",
    "locn": "http://www.w3.org/ns/locn#",
    "time": "http://www.w3.org/2006/time#",
    "ex": "http://example.org/",
    "dc": "http://purl.org/dc/elements/1.1/",
}

_XSD_TYPES = {
    "string", "normalizedString", "token", "language", "boolean", "decimal", "integer", "int", "long",
    "short", "byte", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger",
    "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "double", "float", "date",
    "dateTime", "dateTimeStamp", "time", "duration", "dayTimeDuration", "yearMonthDuration", "gYear",
    "gYearMonth", "gMonth", "gMonthDay", "gDay", "anyURI", "hexBinary", "base64Binary", "Name", "NCName",
    "NMTOKEN",
}

#: Least similarity (normalised Levenshtein ratio of local names, :func:`closest_term`) at which a
#: datatype's name is offered for a datatype that names none: ``integr`` -> ``integer`` (0.92),
#: ``bool`` -> ``boolean`` (0.73); ``text`` is near none (0.5 to ``date``).
DATATYPE_SPELLING = 0.6

#: The datatypes a literal may have without any ontology declaring them: XSD's built-ins and RDF's,
#: with ``rdfs:Literal`` (the candidates offered for a datatype cell that names none).
BUILTIN_DATATYPES = tuple(sorted([URIRef(str(XSD) + t) for t in _XSD_TYPES]
                                 + [RDFS.Literal, RDF.langString, RDF.HTML, RDF.XMLLiteral]))

#: Classes every resource belongs to (RDF 1.1 Semantics 9.2: everything is an ``rdfs:Resource``; OWL 2
#: Direct Semantics: every individual is an ``owl:Thing``). A domain or range of one of them restricts
#: nothing: such a property is usable for any class.
UNIVERSAL_CLASSES = frozenset({OWL.Thing, RDFS.Resource})

#: Properties RDFS itself defines (RDF Schema 1.1, sections 5.4 and 6; its axiomatic triples give
#: ``rdfs:label`` and ``rdfs:comment`` the range ``rdfs:Literal`` and the domain ``rdfs:Resource``): a
#: term of every vocabulary, declared in a file or not.
BUILTIN_PROPERTIES = frozenset({RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy})

#: schema.org says where a property is expected with its own terms, not RDFS's
#: (https://schema.org/docs/datamodel.html): ``domainIncludes``/``rangeIncludes`` list the classes
#: (a union, without RDFS's inference).
_SCHEMA = ("http://schema.org/", "https://schema.org/")
_DOMAIN_INCLUDES = frozenset(URIRef(ns + "domainIncludes") for ns in _SCHEMA)
_RANGE_INCLUDES = frozenset(URIRef(ns + "rangeIncludes") for ns in _SCHEMA)
#: Most clauses a union of compound members is distributed into (:meth:`Ontology._clauses`); past it the
#: union is one clause of its named members. A union of n intersections of two classes gives 2**n
#: clauses: vocabularies write a handful at most.
_MAX_CLAUSES = 64
#: schema.org's DataTypes (https://schema.org/DataType) and the XSD datatype of their values.
_SCHEMA_DATATYPES = {"Text": XSD.string, "URL": XSD.anyURI, "Date": XSD.date, "DateTime": XSD.dateTime,
                     "Time": XSD.time, "Number": XSD.decimal, "Integer": XSD.integer, "Float": XSD.double,
                     "Boolean": XSD.boolean, "CssSelectorType": XSD.string, "PronounceableText": XSD.string,
                     "XPathType": XSD.string}

#: Namespaces of LinkML's metamodel (https://w3id.org/linkml/meta, prefix ``linkml:``; and biolinkml's, as the
#: metamodel was published before it moved, ``https://w3id.org/biolink/biolinkml/meta/``, which Biolink Model
#: releases to 2021 were generated with). Its OWL generator (``gen-owl``, default ``--type-objects``;
#: https://linkml.io/linkml/generators/owl.html) declares every slot an ``owl:ObjectProperty`` and a slot's
#: literal range as a "class-shadow of literals": a class typed ``TypeDefinition`` (the metamodel: "an element
#: whose instances are atomic scalar values that can be mapped to primitive types"), under a built-in type
#: (``typeof``) or stating its type's ``uri`` as ``rdfs:subClassOf [ owl:onProperty topValue ;
#: owl:onDataRange xsd:T ; owl:qualifiedCardinality 1 ]``.
_LINKML_META = ("https://w3id.org/linkml/", "https://w3id.org/biolink/biolinkml/meta/")
_LINKML_TOP_VALUE = frozenset(URIRef(ns + "topValue") for ns in _LINKML_META)
_LINKML_TYPE_DEFINITION = frozenset(URIRef(ns + "TypeDefinition") for ns in _LINKML_META)
#: LinkML's built-in types and the XSD datatype each stands for (linkml-model ``types.yaml``: a type's ``uri``),
#: by their local name in the metamodel namespace (``linkml:String``; biolinkml: ``meta/types/String``). Recent
#: generators leave the built-ins out of the OWL and name them in ranges and ``rdfs:subClassOf`` only. The
#: types whose ``uri`` is no datatype (``objectidentifier``: ``shex:iri``; ``nodeidentifier``) are nodes, not
#: literals, and ``date_or_datetime`` names none.
_LINKML_BUILTIN_TYPES = {
    "String": XSD.string, "Integer": XSD.integer, "Boolean": XSD.boolean, "Float": XSD.float,
    "Double": XSD.double, "Decimal": XSD.decimal, "Time": XSD.time, "Date": XSD.date, "Datetime": XSD.dateTime,
    "Uriorcurie": XSD.anyURI, "Curie": XSD.string, "Uri": XSD.anyURI, "Ncname": XSD.string,
    "Jsonpointer": XSD.string, "Jsonpath": XSD.string, "Sparqlpath": XSD.string}
_LINKML_BUILTINS = {URIRef(ns + sub + name): dt for ns in _LINKML_META for sub in ("", "types/")
                    for name, dt in _LINKML_BUILTIN_TYPES.items()}


def namespace(iri: URIRef | str) -> str:
    """The namespace of a term: its IRI up to the last ``#`` or ``/`` (``http://www.w3.org/2003/01/geo/wgs84_pos#``)."""
    s = str(iri)
    cut = max(s.rfind("#"), s.rfind("/"))
    return s[:cut + 1] if cut >= 0 else s


def is_xsd_datatype(iri: URIRef | str) -> bool:
    """True for XSD built-in datatypes, ``rdfs:Literal`` and ``rdf:langString``/``rdf:HTML``."""
    s = str(iri)
    if s.startswith(str(XSD)):
        return s[len(str(XSD)):] in _XSD_TYPES
    return s in {str(RDFS.Literal), str(RDF.langString), str(RDF.HTML), str(RDF.XMLLiteral)}


def is_langstring(iri: URIRef | str | None) -> bool:
    """True for ``rdf:langString`` and for any other IRI whose local name is ``langString``.

    ``xsd:langString`` is not defined by XSD or RDF, but hand-written ontologies and gold
    tables use it (BLINKG's do) meaning ``rdf:langString``; every stage (table audit, offline
    mapper, compiler, SHACL derivation) reads it so, through this one test.
    """
    return iri is not None and (str(iri) == str(RDF.langString) or local_name(str(iri)) == "langString")


def local_name(iri: str) -> str:
    """The local name of a term: its IRI after the last ``#``, ``/`` or ``:`` (a trailing ``/`` or ``#``
    ignored): ``Person`` for ``http://xmlns.com/foaf/0.1/Person``."""
    return re.split(r"[#/:]", iri.rstrip("/#"))[-1]


def _schema_local(iri: str) -> str | None:
    """The local name of a schema.org term (either scheme), else ``None``."""
    for ns in _SCHEMA:
        if iri.startswith(ns):
            return iri[len(ns):]
    return None


@dataclass
class Ontology:
    """An ontology plus SKOS vocabularies loaded into one rdflib graph.

    Attributes:
        graph: all triples of the ontology and SKOS files (and of the imports resolved locally).
        prefixes: prefix -> namespace, from the files' declarations, then the
            manifest's extra prefixes, then :data:`WELL_KNOWN_PREFIXES`.
        prefix_origin: prefix -> ``"declared"``, ``"manifest"`` or ``"well-known"``.
        files: the files loaded, in order (imports found through a catalog included).
        notes: what loading repaired or could not do, each ``"<file>: <what>"`` (undeclared well-known
            prefixes, a syntax other than the extension's, imports not resolved).

    The graph is read once: domains, ranges, hierarchies and labels are computed once per term and
    kept, so the graph must not be changed after loading.
    """

    graph: Graph
    prefixes: dict[str, str] = field(default_factory=dict)
    prefix_origin: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _cached(self, kind: str, key: Any, compute) -> Any:
        k = (kind, key)
        if k not in self._memo:
            self._memo[k] = compute()
        return self._memo[k]

    # -- prefixed names -------------------------------------------------
    def expand(self, term: str | None) -> URIRef | None:
        """Expand ``prefix:local``, ``<IRI>`` or an absolute IRI into a :class:`URIRef`.

        Returns ``None`` for empty input, an unknown prefix or text that is no IRI.
        """
        if not term:
            return None
        t = term.strip().strip("<>").strip()
        if re.match(r"^[a-zA-Z][\w+.\-]*://", t):
            return URIRef(t)
        m = re.match(r"^([A-Za-z_][\w\-.]*)?:(.*)$", t)
        if m:
            ns = self.prefixes.get(m.group(1) or "")
            if ns is not None and " " not in m.group(2):
                return URIRef(ns + m.group(2))
        return None

    def compact(self, iri: URIRef | str) -> str:
        """Return ``prefix:local`` for ``iri`` when a known prefix covers it, else the IRI."""
        s = str(iri)
        return self._cached("compact", s, lambda: self._compact(s))

    def _compact(self, s: str) -> str:
        best: str | None = None
        for p, ns in sorted(self.prefixes.items()):
            if p and s.startswith(ns) and (best is None or len(ns) > len(self.prefixes[best])):
                best = p
        if best:
            local = s[len(self.prefixes[best]):]
            if re.fullmatch(r"[\w\-.]*", local):
                return f"{best}:{local}"
        return s

    # -- term kinds -------------------------------------------------------
    @cached_property
    def declared_classes(self) -> frozenset[URIRef]:
        """The named classes class axioms make classes, datatypes and the universal classes left out:
        ``owl:Class``/``rdfs:Class`` subjects, both ends of ``rdfs:subClassOf``,
        ``owl:equivalentClass``, ``owl:disjointWith`` and ``owl:complementOf``, the objects of
        ``owl:onClass``, the subject and members of ``owl:disjointUnionOf``, and the named members of
        every ``owl:intersectionOf``/``owl:unionOf`` such an end is (OWL 2 RDF-Based Semantics, section 5:
        the domain and range of these properties are classes, and the members of a class's intersection
        or union are classes). An ``owl:equivalentClass`` or ``owl:disjointWith`` with a data range at
        either end (a named datatype defined by a datatype restriction, OWL 2 Structural Specification
        9.4) relates datatypes."""
        g = self.graph
        # a blank node typed owl:Class is an expression written in place (a domain's union): its members are
        # classes where it is used (an rdfs:domain's: implied_classes), not declared ones
        named: set[Any] = {s for t in (OWL.Class, RDFS.Class) for s in g.subjects(RDF.type, t) if isinstance(s, URIRef)}
        ends: set[Any] = {x for pair in g.subject_objects(RDFS.subClassOf) for x in pair}
        for pred in (OWL.equivalentClass, OWL.disjointWith):
            for a, b in g.subject_objects(pred):
                if not (self._is_data_range(a) or self._is_data_range(b)):
                    ends.update((a, b))
        ends.update(x for pair in g.subject_objects(OWL.complementOf) for x in pair)
        ends.update(g.objects(None, OWL.onClass))
        for c, lst in g.subject_objects(OWL.disjointUnionOf):
            ends.add(c)
            ends.update(rdf_members(g, lst))
        out: set[URIRef] = set(named)
        for e in ends:
            out |= self._class_expr(e)
        return frozenset(c for c in out if isinstance(c, URIRef) and c not in UNIVERSAL_CLASSES
                         and not self.is_datatype(c))

    def _is_data_range(self, node: Any) -> bool:
        """Whether ``node`` is a data range: a datatype (:meth:`is_datatype`), a named datatype defined by a
        datatype restriction, or a blank node typed ``rdfs:Datatype`` or built with ``owl:onDatatype`` /
        ``owl:datatypeComplementOf`` (OWL 2 Mapping to RDF Graphs, Table 4)."""
        if isinstance(node, URIRef):
            return self.is_datatype(node) or datatype_restriction(self.graph, node) is not None
        return (node, RDF.type, RDFS.Datatype) in self.graph or any(
            self.graph.value(node, p) is not None for p in (OWL.onDatatype, OWL.datatypeComplementOf))

    @cached_property
    def classes(self) -> frozenset[URIRef]:
        """Named classes: the terms class axioms make classes (:attr:`declared_classes`: declarations,
        both ends of ``rdfs:subClassOf``/``owl:equivalentClass``/``owl:disjointWith``, members of a class's
        intersection or union ...) and the classes that RDFS semantics implies, except datatypes (a user
        datatype written ``rdfs:subClassOf xsd:float`` is no class, nor is a schema.org DataType such as
        ``schema:Text``) and the universal classes ``owl:Thing`` and ``rdfs:Resource``.

        RDFS entailment rules rdfs2/rdfs3 (RDF 1.1 Semantics, section 9.2.1) make every value of
        ``rdfs:domain`` a class, and every value of ``rdfs:range`` of a property that is not an
        ``owl:DatatypeProperty`` a class too (RDFS vocabularies such as EBUCore declare classes only
        this way). The range of a datatype property is a data range (OWL 2), never a class here.
        """
        out = set(self.declared_classes)
        data = set(self.graph.subjects(RDF.type, OWL.DatatypeProperty))
        for p, d in self.graph.subject_objects(RDFS.domain):
            out |= self._class_expr(d)
        for p, r in self.graph.subject_objects(RDFS.range):
            if p not in data:
                out |= self._class_expr(r)
        return frozenset(c for c in out if isinstance(c, URIRef) and c not in UNIVERSAL_CLASSES
                         and not self.is_datatype(c))

    def implied_classes(self) -> frozenset[URIRef]:
        """Classes known only through ``rdfs:domain``/``rdfs:range`` (no class axiom names them)."""
        return frozenset(self.classes - self.declared_classes)

    @cached_property
    def undescribed_superclasses(self) -> frozenset[URIRef]:
        """Classes the files only name in another's axiom and never describe: the object of an
        ``rdfs:subClassOf`` (or a member of an intersection, the other end of an equivalence), the
        subject of no triple (no declaration, label, comment nor superclass of its own) and no domain or
        range. RDFS makes it a class (the range of ``rdfs:subClassOf`` is
        ``rdfs:Class``), but it is a term of a vocabulary that was not loaded (FOAF's
        ``foaf:Person rdfs:subClassOf contact:Person``; OWL 2 Structural Specification 5.8.1 would have it
        declared): nothing loaded says what it is, so any record fits it vacuously."""
        described = set(self.graph.subjects())
        described |= {c for pred in (RDFS.domain, RDFS.range) for o in self.graph.objects(None, pred)
                      for c in self._class_expr(o)}
        return frozenset(c for c in self.classes if c not in described)

    @cached_property
    def undescribed_equivalents(self) -> frozenset[URIRef]:
        """Classes the files only declare and state equivalent to a class they describe: no triple has
        one as subject beside ``rdf:type`` and ``owl:equivalentClass`` (no label, comment nor superclass
        of its own), no domain or range names it, and an ``owl:equivalentClass`` partner is described
        (schema.org's ``foaf:Person a rdfs:Class`` beside ``schema:Person owl:equivalentClass foaf:Person``).
        Equivalent classes have the same instances (OWL 2 Direct Semantics, EquivalentClasses), so the
        described partner types records with the same meaning, in the term the vocabulary describes; the
        other is a term of a vocabulary not loaded."""
        plain = {RDF.type, OWL.equivalentClass}
        named = {c for pred in (RDFS.domain, RDFS.range, *_DOMAIN_INCLUDES, *_RANGE_INCLUDES)
                 for o in self.graph.objects(None, pred) for c in self._class_expr(o)}

        def bare(c: URIRef) -> bool:
            return c not in named and all(p in plain for p in self.graph.predicates(c, None))
        return frozenset(c for c in self.classes if bare(c) and any(
            isinstance(x, URIRef) and x != c and x in self.classes and not bare(x)
            for x in (*self.graph.objects(c, OWL.equivalentClass), *self.graph.subjects(OWL.equivalentClass, c))))

    def equivalents(self, cls: URIRef) -> set[URIRef]:
        """``cls`` and the classes equivalent to it: each a superclass of the other (:meth:`superclasses`,
        ``owl:equivalentClass`` either way and mutual ``rdfs:subClassOf``). Returns a new set."""
        return {c for c in self.superclasses(cls) if cls in self.superclasses(c)}

    @cached_property
    def _schema_datatypes(self) -> frozenset[URIRef]:
        """schema.org DataTypes the files declare (typed ``schema:DataType``, and their subclasses)."""
        roots = {s for ns in _SCHEMA for s in self.graph.subjects(RDF.type, URIRef(ns + "DataType"))
                 if isinstance(s, URIRef)}
        out, todo = set(roots), list(roots)
        while todo:
            for s in self.graph.subjects(RDFS.subClassOf, todo.pop()):
                if isinstance(s, URIRef) and s not in out:
                    out.add(s)
                    todo.append(s)
        return frozenset(out)

    @cached_property
    def linkml_types(self) -> dict[URIRef, URIRef]:
        """LinkML types the files hold as classes (:data:`_LINKML_META`) -> the datatype of their values.

        A LinkML type is a class typed the metamodel's ``TypeDefinition``, a class stating a type's ``uri``
        (``rdfs:subClassOf [ owl:onProperty linkml:topValue ; owl:onDataRange xsd:T ]``), a built-in type of
        the metamodel named in the files (:data:`_LINKML_BUILTINS`: ``linkml:String``), and a class under one
        of these (``typeof``: Biolink's ``bl:LabelType rdfs:subClassOf metatype:String``). Its datatype is
        the ``owl:onDataRange`` it states, else its built-in's ``uri`` (``types.yaml``), else its nearest
        LinkML superclass's; ``rdfs:Literal`` for a ``TypeDefinition`` whose chain names none (a type of a
        schema not loaded: its instances are still "atomic scalar values"). A type whose ``uri`` is no
        datatype (``objectidentifier``: ``shex:iri``, its values are nodes) is left out, as is any class of no
        such statement: nothing here is read from a term's name outside the metamodel's namespaces."""
        g = self.graph

        def stated(c: URIRef) -> URIRef | None:
            for r in g.objects(c, RDFS.subClassOf):
                if isinstance(r, BNode) and g.value(r, OWL.onProperty) in _LINKML_TOP_VALUE:
                    d = g.value(r, OWL.onDataRange)
                    if isinstance(d, URIRef):
                        return d
            return None
        found = {c for t in _LINKML_TYPE_DEFINITION for c in g.subjects(RDF.type, t) if isinstance(c, URIRef)}
        found |= {c for c in g.subjects(RDFS.subClassOf, None) if isinstance(c, URIRef) and stated(c) is not None}
        found |= {b for b in _LINKML_BUILTINS if (None, None, b) in g or (b, None, None) in g}
        todo = list(found)
        while todo:  # the classes under a type (typeof)
            for c in g.subjects(RDFS.subClassOf, todo.pop()):
                if isinstance(c, URIRef) and c not in found:
                    found.add(c)
                    todo.append(c)
        if not found:
            return {}

        def datatype(c: URIRef, seen: frozenset) -> URIRef | None:
            d = stated(c) or _LINKML_BUILTINS.get(c)
            if d is not None:
                return d
            for sup in sorted(x for x in g.objects(c, RDFS.subClassOf) if x in found and x not in seen):
                d = datatype(sup, seen | {c})
                if d is not None:
                    return d
            return None
        out: dict[URIRef, URIRef] = {}
        for c in sorted(found):
            d = datatype(c, frozenset())
            if d is None:
                out[c] = RDFS.Literal
            elif is_xsd_datatype(d):
                out[c] = d
        return out

    def is_datatype(self, iri: URIRef | str) -> bool:
        """True for XSD built-ins, ``rdfs:Literal``, ``rdf:langString``, ``rdfs:Datatype`` subjects,
        schema.org DataTypes (``schema:Text``, ``schema:Date`` ...) and LinkML types (:attr:`linkml_types`)."""
        if is_xsd_datatype(iri):
            return True
        ref = URIRef(str(iri))
        return (ref, RDF.type, RDFS.Datatype) in self.graph or ref in self._schema_datatypes \
            or (_schema_local(str(iri)) in _SCHEMA_DATATYPES) or ref in self.linkml_types

    @cached_property
    def linkml_literal_slots(self) -> frozenset[URIRef]:
        """``owl:ObjectProperty`` subjects whose every stated ``rdfs:range`` (at least one) is a LinkML type
        (:attr:`linkml_types`): LinkML slots of a literal range, which LinkML's own RDF writes as literals of
        the type's ``uri`` (the OWL generator's "class-shadows of literals"), so read as datatype properties."""
        if not self.linkml_types:
            return frozenset()
        out = set()
        for p in self.graph.subjects(RDF.type, OWL.ObjectProperty):
            ranges = list(self.graph.objects(p, RDFS.range))
            if isinstance(p, URIRef) and ranges and all(r in self.linkml_types for r in ranges):
                out.add(p)
        return frozenset(out)

    def is_linkml_slot(self, prop: URIRef) -> bool:
        """Whether ``prop`` is a slot of a LinkML schema: typed the metamodel's ``SlotDefinition``, or of a
        stated range that is a LinkML type (:attr:`linkml_types`)."""
        return any((prop, RDF.type, URIRef(ns + "SlotDefinition")) in self.graph for ns in _LINKML_META) \
            or any(r in self.linkml_types for r in self.graph.objects(prop, RDFS.range))

    @cached_property
    def object_properties(self) -> frozenset[URIRef]:
        """``owl:ObjectProperty`` subjects, but LinkML's slots of a literal range (:attr:`linkml_literal_slots`)."""
        return frozenset(p for p in self.graph.subjects(RDF.type, OWL.ObjectProperty) if isinstance(p, URIRef)
                         and p not in self.linkml_literal_slots)

    @cached_property
    def datatype_properties(self) -> frozenset[URIRef]:
        """``owl:DatatypeProperty`` subjects and LinkML's slots of a literal range (:attr:`linkml_literal_slots`)."""
        return frozenset(p for p in self.graph.subjects(RDF.type, OWL.DatatypeProperty) if isinstance(p, URIRef)) \
            | self.linkml_literal_slots

    @cached_property
    def properties(self) -> frozenset[URIRef]:
        """Every property the files declare: object, datatype, annotation and ``rdf:Property`` subjects
        (the RDFS built-ins of :data:`BUILTIN_PROPERTIES` are known to :meth:`kind` without it)."""
        out = set(self.object_properties | self.datatype_properties)
        for t in (RDF.Property, OWL.AnnotationProperty, OWL.FunctionalProperty):
            out.update(p for p in self.graph.subjects(RDF.type, t) if isinstance(p, URIRef))
        return frozenset(out)

    @cached_property
    def deprecated(self) -> frozenset[URIRef]:
        """Terms the files mark ``owl:deprecated true`` (OWL 2 Structural Specification, section 5.5: a
        built-in annotation property; true means the entity should no longer be used). Only the literal
        ``true`` (``"true"^^xsd:boolean``, ``"true"``, ``"1"``) counts: ``false`` deprecates nothing."""
        return frozenset(s for s, o in self.graph.subject_objects(OWL.deprecated)
                         if isinstance(s, URIRef) and isinstance(o, Literal) and str(o).strip().lower() in ("true", "1"))

    @cached_property
    def annotation_uses(self) -> dict[URIRef, int]:
        """Annotation properties of the vocabularies -> how many of their classes and properties carry a
        literal value of it.

        An annotation property is one a file declares ``owl:AnnotationProperty``, or one the files use as
        such: a predicate, declared no other kind of property, with a literal value on a class, a property
        or an ontology header of the vocabularies (``emmo:Alloy skos:prefLabel "Alloy"``; RDF 1.1
        Semantics rdf1: every predicate is an ``rdf:Property``; OWL 2 Structural Specification 10.2.1: an
        annotation assertion on an entity is such a triple). The terms of RDF, RDFS and OWL count only for RDFS's own properties
        (:data:`BUILTIN_PROPERTIES`: ``rdfs:label``), the rest of them describe vocabularies. The count
        (terms only, not headers: a header's ``dct:title`` names the document) says which of several
        naming properties the vocabularies name their own terms with."""
        meta = (str(RDF), str(RDFS), str(OWL))
        declared = {p for p in self.graph.subjects(RDF.type, OWL.AnnotationProperty) if isinstance(p, URIRef)}
        other = self.properties - declared
        uses: dict[URIRef, int] = {p: 0 for p in declared}
        headers = [o for o in self.graph.subjects(RDF.type, OWL.Ontology) if isinstance(o, URIRef)]
        for terms, count in ((sorted(self.classes | self.properties), 1), (headers, 0)):
            for t in terms:
                for p in {p for p, o in self.graph.predicate_objects(t) if isinstance(o, Literal)
                          and isinstance(p, URIRef)}:
                    if p in other or (str(p).startswith(meta) and p not in BUILTIN_PROPERTIES):
                        continue
                    uses[p] = uses.get(p, 0) + count
        return uses

    @cached_property
    def annotation_properties(self) -> frozenset[URIRef]:
        """The annotation properties of :attr:`annotation_uses` (declared or used as such)."""
        return frozenset(self.annotation_uses)

    @cached_property
    def concepts(self) -> frozenset[URIRef]:
        """SKOS concepts: typed ``skos:Concept`` or listed as top concepts / scheme members."""
        out = set(self.graph.subjects(RDF.type, SKOS.Concept))
        out.update(self.graph.objects(None, SKOS.hasTopConcept))
        out.update(self.graph.subjects(SKOS.inScheme, None))
        return frozenset(c for c in out if isinstance(c, URIRef))

    @cached_property
    def _typed(self) -> dict[URIRef, frozenset[URIRef]]:
        """Class -> the named resources typed with it directly, other than terms of the vocabularies."""
        terms = self.classes | self.properties | frozenset(self.graph.subjects(RDF.type, OWL.Ontology))
        out: dict[URIRef, set[URIRef]] = {}
        for s, c in self.graph.subject_objects(RDF.type):
            if isinstance(s, URIRef) and isinstance(c, URIRef) and c in self.classes and s not in terms:
                out.setdefault(c, set()).add(s)
        return {c: frozenset(m) for c, m in out.items()}

    def members(self, cls: URIRef) -> frozenset[URIRef]:
        """The named individuals of ``cls`` the files declare: resources typed ``cls`` or one of its subclasses
        (``rdf:type``, and RDFS rule rdfs9 for the subclasses; ``schema:EventScheduled a
        schema:EventStatusType``, a SKOS concept typed with a class too), other than classes, properties and
        ontology headers. Empty for a class of no declared member."""
        def compute() -> frozenset[URIRef]:
            return frozenset(m for c, ms in self._typed.items() if cls in self.superclasses(c) for m in ms)
        return self._cached("members", cls, compute)

    @cached_property
    def enumerated_classes(self) -> frozenset[URIRef]:
        """The classes of at least one declared member (:meth:`members`)."""
        return frozenset(sup for c in self._typed for sup in self.superclasses(c) if sup in self.classes)

    @cached_property
    def sorted_terms(self) -> tuple[list[URIRef], list[URIRef]]:
        """``(properties, classes)`` sorted, computed once: the pools closest-term suggestions draw from."""
        return sorted(self.properties | BUILTIN_PROPERTIES), sorted(self.classes)

    def kind(self, iri: URIRef) -> str | None:
        """Return ``"class"``, ``"object_property"``, ``"datatype_property"``,
        ``"property"``, ``"concept"``, ``"datatype"`` or ``None`` (unknown term).

        The RDFS built-ins (``rdfs:label``, ``rdfs:comment`` ...) are properties of every vocabulary, and
        ``owl:Thing`` and ``rdfs:Resource`` (:data:`UNIVERSAL_CLASSES`, the class of every individual
        and of every resource) classes of every vocabulary, though never among :attr:`classes`."""
        if iri in self.object_properties:
            return "object_property"
        if iri in self.datatype_properties:
            return "datatype_property"
        if iri in self.properties or iri in BUILTIN_PROPERTIES or iri in self.annotation_properties:
            return "property"
        if iri in self.classes or iri in UNIVERSAL_CLASSES:
            return "class"
        if iri in self.concepts:
            return "concept"
        if self.is_datatype(iri):
            return "datatype"
        return None

    # -- schema -----------------------------------------------------------
    def _class_expr(self, node, _open: frozenset = frozenset()) -> set[URIRef]:
        if isinstance(node, URIRef):
            return {node}
        if isinstance(node, BNode) and node not in _open:  # a union holding itself is a fault, not a loop
            out: set[URIRef] = set()
            for pred in (OWL.unionOf, OWL.intersectionOf):
                lst = self.graph.value(node, pred)
                if lst is not None:
                    for member in rdf_members(self.graph, lst):
                        out |= self._class_expr(member, _open | {node})
            return out
        return set()

    def _clauses(self, node, _open: frozenset = frozenset()) -> list[frozenset[URIRef]]:
        """A class expression (or data range) as clauses that all hold, any member of a clause sufficing
        (conjunctive normal form over named terms).

        A named term is one clause of itself; ``owl:intersectionOf`` gives the clauses of every member
        (OWL 2 Direct Semantics: ObjectIntersectionOf's extension is the intersection of its members');
        ``owl:unionOf`` one clause per choice of a clause of each member (distribution:
        (A and B) or C = (A or C) and (B or C)), flattened to one clause of all its named members past
        :data:`_MAX_CLAUSES` choices (looser, never stricter). What restricts nothing gives no clause: a
        universal class (:data:`UNIVERSAL_CLASSES`), a union holding one or holding an expression that
        names no class (a property restriction: its instances need be in no named member), and such an
        expression itself."""
        if isinstance(node, URIRef):
            return [] if node in UNIVERSAL_CLASSES else [frozenset({node})]
        if not isinstance(node, BNode) or node in _open:  # a list holding itself is a fault, not a loop
            return []
        inner = _open | {node}
        lst = self.graph.value(node, OWL.intersectionOf)
        if lst is not None:
            return [c for m in rdf_members(self.graph, lst) for c in self._clauses(m, inner)]
        lst = self.graph.value(node, OWL.unionOf)
        if lst is None:
            return []
        choices = [self._clauses(m, inner) for m in rdf_members(self.graph, lst)]
        if not choices or any(not c for c in choices):
            return []
        if prod(len(c) for c in choices) > _MAX_CLAUSES:
            return [frozenset().union(*(m for c in choices for m in c))]
        return [frozenset().union(*pick) for pick in product(*choices)]

    def _axiom_clauses(self, prop: URIRef, stated: URIRef, includes: frozenset[URIRef], schema=None) \
            -> tuple[frozenset[URIRef], ...]:
        """The clauses of ``prop``'s ``stated`` axioms (``rdfs:domain`` or ``rdfs:range``) and of its
        super-properties', each axiom holding (RDF 1.1 Semantics rules rdfs2/rdfs3 with rdfs7; OWL 2
        ``ObjectPropertyDomain`` ...), plus one clause of the classes schema.org's ``includes`` predicates
        list for it and its super-properties (``schema`` maps each listed term): a listing entails nothing,
        any class listed is a documented use (https://schema.org/docs/datamodel.html), so listings are
        never intersected (``schema:name``, listed on ``schema:Thing``, stays usable on an event when an
        equivalent ``og:title`` is listed on ``schema:CreativeWork``). Clauses are kept once; one that a
        narrower clause implies (a superset of it) is left out."""
        out: list[frozenset[URIRef]] = []
        listed: set[URIRef] = set()
        for p in sorted(self.superproperties(prop), key=str):
            for o in self.graph.objects(p, stated):
                out += self._clauses(o)
            listed |= {schema(c) if schema else c for pred in includes for o in self.graph.objects(p, pred)
                       for c in self._class_expr(o)}
        if listed and not listed & UNIVERSAL_CLASSES:
            out.append(frozenset(listed))
        unique = list(dict.fromkeys(out))
        return tuple(c for c in unique if not any(o < c for o in unique))

    def domain_clauses(self, prop: URIRef) -> tuple[frozenset[URIRef], ...]:
        """The domain of ``prop`` as clauses (:meth:`_clauses`): every clause holds of each subject, any
        class of a clause sufficing. Two ``rdfs:domain`` axioms are two clauses (each holds: a subject is
        an instance of both), ``[ owl:intersectionOf (A B) ]`` the clauses ``{A}`` and ``{B}``,
        ``[ owl:unionOf (A B) ]`` the one clause ``{A, B}``; schema.org's ``domainIncludes`` one clause
        of every class listed for the property and its super-properties. Empty: no domain (none stated, or a universal class)."""
        return self._cached("domain_clauses", prop, lambda: self._axiom_clauses(prop, RDFS.domain, _DOMAIN_INCLUDES))

    def range_clauses(self, prop: URIRef) -> tuple[frozenset[URIRef], ...]:
        """The range of ``prop`` as clauses, read as :meth:`domain_clauses` (``rdfs:range``; schema.org's
        ``rangeIncludes`` with its DataTypes read as their XSD datatype); ``rdfs:Literal`` for the RDFS
        built-ins ``rdfs:label``/``rdfs:comment`` when no file says otherwise. Several datatype ranges
        all hold: a value's datatype must meet each clause (RDF 1.1 Semantics rule rdfs3; OWL 2
        ``DataPropertyRange``), a choice of datatypes being one ``owl:unionOf``. A LinkML type is read as
        its datatype (:attr:`linkml_types`: ``bl:LabelType`` -> ``xsd:string``), and a LinkML slot's own
        range replaces its parent slot's (LinkML's slot ``is_a``: a slot inherits the parent's range unless it
        states its own; ``bl:update_date``, range ``Date``, under ``bl:node_property``, range ``String``)."""
        def compute() -> tuple[frozenset[URIRef], ...]:
            out = self._axiom_clauses(prop, RDFS.range, _RANGE_INCLUDES, self._schema_datatype)
            if not out and prop in (RDFS.label, RDFS.comment):
                return (frozenset({RDFS.Literal}),)
            if self.linkml_types:  # a LinkML type is read as the datatype it stands for
                if self.is_linkml_slot(prop):  # a slot's own range overrides its parent slot's (LinkML is_a)
                    own = tuple(dict.fromkeys(c for o in self.graph.objects(prop, RDFS.range)
                                              for c in self._clauses(o)))
                    out = own or out
                out = tuple(dict.fromkeys(frozenset(self.linkml_types.get(t, t) for t in c) for c in out))
            return out
        return self._cached("range_clauses", prop, compute)

    def meets(self, term: URIRef, clause: frozenset[URIRef]) -> bool:
        """Whether every instance (or value) of ``term`` is in some member of ``clause``: a member is
        ``term`` or one of its superclasses (:meth:`superclasses`), a datatype whose value space holds
        ``term``'s (owlrl's table of XSD derivations: ``xsd:int`` under ``xsd:integer``), or
        ``rdfs:Literal`` for a datatype (``rdf:PlainLiteral`` for ``xsd:string`` and ``rdf:langString``)."""
        if term in clause or clause & self.superclasses(term) or clause & set(OWL_Datatype_Subsumptions.get(term, ())):
            return True
        if RDFS.Literal in clause and self.is_datatype(term):
            return True
        return RDF.PlainLiteral in clause and (term == XSD.string or is_langstring(term))

    def _conjoined(self, clauses: tuple[frozenset[URIRef], ...]) -> frozenset[URIRef]:
        """One set of named terms for ``clauses``, read as any of them: the clause itself when there is one;
        for several, the terms (members and classes of the ontology) that meet every clause
        (:meth:`meets`), the widest of them, so that a class is within the clauses exactly when one of these
        is among its superclasses. When no named term meets every clause (datatypes whose value spaces
        are disjoint, which loading notes; classes no class of the files lies under), the members of the
        clauses: a looser reading the set cannot avoid, the compiler's checks read the clauses themselves."""
        if len(clauses) <= 1:
            return clauses[0] if clauses else frozenset()
        members = frozenset().union(*clauses)
        pool = members | (self.classes if members & self.classes else frozenset())
        fit = {t for t in pool if all(self.meets(t, c) for c in clauses)}

        def wider(k: URIRef, t: URIRef) -> bool:  # k strictly wider than t
            return k != t and self.meets(t, frozenset({k})) and not self.meets(k, frozenset({t}))
        widest = frozenset(t for t in fit if not any(wider(k, t) for k in fit))
        return widest or members

    def domains(self, prop: URIRef) -> set[URIRef]:
        """Named classes a property is used on, read as any of them (a class fits when one of them is
        among its superclasses): the one clause of :meth:`domain_clauses` as written (an ``rdfs:domain``,
        a union's members, a ``domainIncludes`` listing), or for several clauses (two ``rdfs:domain``
        axioms, an ``owl:intersectionOf``) the widest classes within all of them (:meth:`_conjoined`);
        inherited from super-properties; empty for none, or a universal class. Returns a new set."""
        return set(self._cached("domains", prop, lambda: self._read_as_any(prop, self.domain_clauses(prop),
                                                                          _DOMAIN_INCLUDES)))

    def _read_as_any(self, prop: URIRef, clauses: tuple[frozenset[URIRef], ...],
                     includes: frozenset[URIRef]) -> frozenset[URIRef]:
        """:meth:`_conjoined` of ``clauses``; but when schema.org's ``includes`` predicates list terms for
        ``prop`` or a super-property, every member: the listing documents where the vocabulary uses the
        property, and the mapper follows it as schema.org's data model reads it (any of them), as it did
        an ``rdfs:domain`` another file adds (``schema:name rdfs:domain schema:CreativeWork`` beside its
        listing on ``schema:Thing``; the compiler's audit, reading the clauses, warns of the entailment)."""
        listed = {c for p in self.superproperties(prop) for pred in includes for o in self.graph.objects(p, pred)
                  for c in self._class_expr(o)}
        if listed:
            schema = self._schema_datatype if includes == _RANGE_INCLUDES else (lambda c: c)
            return frozenset().union(*clauses, {schema(c) for c in listed}) - UNIVERSAL_CLASSES if clauses \
                else frozenset()
        return self._conjoined(clauses)

    def vocabulary_class(self, prop: URIRef) -> URIRef | None:
        """The class a datatype property of no domain describes by its vocabulary: the one class that the
        property's namespace (:func:`namespace`) has, else ``None``.

        A small application vocabulary often declares one class and the attributes of its instances
        without ``rdfs:domain`` (``scs:SeismicActivity`` beside ``scs:magnitude``, ``scs:auth``): the
        vocabulary defines no other kind of thing for them to describe. This is how vocabularies are
        written, not an entailment: the property stays usable on any class (:meth:`domains` is empty).
        Only the vocabulary's own document says which classes it has: the files must hold the
        ``owl:Ontology`` whose IRI is the namespace (``<http://w3id.org/semcon/ns/seismic>`` for
        ``scs:``), else the terms are a fragment of a vocabulary quoted in another's file (a hand-made
        selection of DCMI terms holding ``dct:Agent`` and a domainless ``dct:identifier``: Dublin Core has
        some twenty classes). ``None`` then, and when the property is no ``owl:DatatypeProperty`` (a
        relation of no domain, such as ``isPartOf``, relates things of any kind), when any domain is
        written for it or a super-property, a universal one too (``rdfs:domain owl:Thing`` says "of
        anything"), or when its namespace has no class or several; a class the files only name as
        another's superclass (:attr:`undescribed_superclasses`: ``foaf:Document`` in a vocabulary
        importing nothing of FOAF) is no class of its namespace here, as nothing loaded describes it."""
        def compute() -> URIRef | None:
            if prop not in self.datatype_properties or any(
                    self.graph.value(p, pred) is not None for p in self.superproperties(prop)
                    for pred in (RDFS.domain, *_DOMAIN_INCLUDES)):
                return None
            if namespace(prop).rstrip("#/") not in self._ontology_documents:
                return None
            own = self._classes_by_namespace.get(namespace(prop), ())
            return own[0] if len(own) == 1 else None
        return self._cached("vocabulary_class", prop, compute)

    @cached_property
    def _ontology_documents(self) -> frozenset[str]:
        """The IRIs of the ``owl:Ontology`` nodes the files hold, without a trailing ``#`` or ``/``."""
        return frozenset(str(o).rstrip("#/") for o in self.graph.subjects(RDF.type, OWL.Ontology)
                         if isinstance(o, URIRef))

    @cached_property
    def _classes_by_namespace(self) -> dict[str, tuple[URIRef, ...]]:
        """namespace -> the classes of :attr:`classes` in it that the files describe (sorted)."""
        out: dict[str, list[URIRef]] = {}
        for c in sorted(self.classes - self.undescribed_superclasses):
            out.setdefault(namespace(c), []).append(c)
        return {ns: tuple(cs) for ns, cs in out.items()}

    def ranges(self, prop: URIRef) -> set[URIRef]:
        """Named classes or datatypes of a property's values, read as any of them: the one clause of
        :meth:`range_clauses` as written (an ``rdfs:range``, a union's members, a ``rangeIncludes`` listing
        with schema.org's DataTypes as their XSD datatype: ``schema:Text`` -> ``xsd:string``), or for
        several clauses the widest terms within all of them (:meth:`_conjoined`: ranges ``xsd:integer``
        and ``xsd:nonNegativeInteger`` give ``xsd:nonNegativeInteger``); inherited; ``rdfs:Literal`` for
        the RDFS built-ins ``rdfs:label``/``rdfs:comment`` when no file says otherwise; empty for none,
        or a universal class. Returns a new set."""
        return set(self._cached("ranges", prop, lambda: self._read_as_any(prop, self.range_clauses(prop),
                                                                         _RANGE_INCLUDES)))

    def _schema_datatype(self, cls: URIRef) -> URIRef:
        """A schema.org DataType as its XSD datatype (``rdfs:Literal`` for one the table does not know);
        any other class unchanged."""
        local = _schema_local(str(cls))
        if local in _SCHEMA_DATATYPES:
            return _SCHEMA_DATATYPES[local]
        return RDFS.Literal if cls in self._schema_datatypes else cls

    def datatype_ranges(self, prop: URIRef) -> set[URIRef]:
        """Ranges of ``prop`` that are datatypes: XSD/RDF built-ins and ``rdfs:Datatype`` subjects,
        and, for an ``owl:DatatypeProperty``, any declared range that is no class (OWL 2: the range
        of a data property is a data range, so the GTFS ontology's ``gtfs:url rdfs:range foaf:page``
        makes ``foaf:page`` the datatype of its values). A datatype restriction (a named datatype it
        defines, or one written in place) gives its base datatype: OWL 2 gives a defined datatype no
        lexical space (Structural Specification, section 9.4), so literals carry the base and the
        facets constrain their values (:func:`datatype_restriction`)."""
        data = prop in self.datatype_properties
        out = set()
        for r in self.ranges(prop):
            if self.is_datatype(r) or (data and r not in self.classes):
                restriction = datatype_restriction(self.graph, r)
                out.add(restriction.base if restriction is not None else r)
        for p in self.superproperties(prop):
            for r in self.graph.objects(p, RDFS.range):
                restriction = datatype_restriction(self.graph, r) if isinstance(r, BNode) else None
                if restriction is not None:
                    out.add(restriction.base)
        return out

    def superclasses(self, cls: URIRef) -> set[URIRef]:
        """Reflexive-transitive closure of ``cls`` over ``rdfs:subClassOf``, ``owl:equivalentClass``
        (either direction: OWL 2 equivalent classes are subclasses of each other) and the subclass
        relations class expressions entail (:func:`expression_subclasses`: a class equivalent to an
        intersection lies under each member), named classes only. Returns a new set."""
        return set(self._cached("superclasses", cls, lambda: _closure(self.graph, cls, RDFS.subClassOf,
                                                                      OWL.equivalentClass, self._expression_up)))

    @cached_property
    def _expression_up(self) -> dict[URIRef, frozenset[URIRef]]:
        """Named class -> the named superclasses class expressions give it (:func:`expression_subclasses`)."""
        out: dict[URIRef, set[URIRef]] = {}
        for sub, sup in expression_subclasses(self.graph):
            out.setdefault(sub, set()).add(sup)
        return {c: frozenset(s) for c, s in out.items()}

    def superproperties(self, prop: URIRef) -> set[URIRef]:
        """Reflexive-transitive closure of ``prop`` over ``rdfs:subPropertyOf`` and
        ``owl:equivalentProperty`` (either direction). Returns a new set."""
        return set(self._cached("superproperties", prop, lambda: _closure(self.graph, prop, RDFS.subPropertyOf,
                                                                         OWL.equivalentProperty)))

    def labels(self, iri: URIRef) -> list[str]:
        """``rdfs:label``, ``skos:prefLabel``/``altLabel`` texts of ``iri`` (English first). Returns a new list."""
        def compute() -> tuple[str, ...]:
            found: list[tuple[int, str]] = []
            for pred in (RDFS.label, SKOS.prefLabel, SKOS.altLabel):
                for lit in self.graph.objects(iri, pred):
                    if isinstance(lit, Literal):
                        found.append((0 if lit.language in (None, "en") else 1, str(lit)))
            return tuple(t for _, t in sorted(found))
        return list(self._cached("labels", iri, compute))

    def comment(self, iri: URIRef) -> str:
        """The ``rdfs:comment`` (else ``skos:definition``) of ``iri``, English or untagged first,
        then by text, so the choice does not depend on rdflib's hash order ('' when none)."""
        def compute() -> str:
            for pred in (RDFS.comment, SKOS.definition):
                found = sorted((0 if getattr(lit, "language", None) in (None, "en") else 1, str(lit))
                               for lit in self.graph.objects(iri, pred))
                if found:
                    return found[0][1]
            return ""
        return self._cached("comment", iri, compute)

    def verbalise(self, iri: URIRef) -> str:
        """Label and comment of a term as one text (local name when it has no label)."""
        labels = self.labels(iri)
        head = labels[0] if labels else local_name(str(iri))
        c = self.comment(iri)
        return f"{head}: {c}" if c else head

    def closest(self, text: str, candidates: Iterable[URIRef], min_score: float = 0.0) -> tuple[URIRef | None, float]:
        """:func:`closest_term` (kept on the ontology, where the audit looks for its terms); of candidates
        whose local names are equally close, one in the namespace ``text`` is written in: ``foaf:Persn`` ->
        ``foaf:Person``, not FOAF's superclass ``contact:Person`` (the prefix is part of what was written)."""
        cands = list(candidates)
        written = self.expand(text)
        if written is not None:
            ns = str(written)[:len(str(written)) - len(local_name(str(written)))]
            cands.sort(key=lambda c: not str(c).startswith(ns))  # stable; closest_term keeps the first of ties
        return closest_term(text, cands, min_score)


def closest_term(text: str, candidates: Iterable[URIRef], min_score: float = 0.0) -> tuple[URIRef | None, float]:
    """Closest candidate to ``text`` by normalised Levenshtein ratio on local names.

    Args:
        text: a term as written (``epo:hasIndentifierValue``, or an IRI).
        candidates: IRIs to choose from.
        min_score: minimum similarity in [0, 1].
    Returns:
        ``(iri, score)`` with score in [0, 1], the first of equally close candidates; ``(None, 0.0)`` when
        nothing reaches ``min_score``.
    """
    cands = list(candidates)
    if not cands or not text:
        return None, 0.0
    key = local_name(text.strip("<>"))
    names = [local_name(str(c)) for c in cands]
    best = process.extractOne(key, names, scorer=fuzz.ratio)
    if best is None or best[1] / 100 < min_score:
        return None, 0.0
    return cands[best[2]], best[1] / 100


# -- loading ---------------------------------------------------------------------------------------

#: the syntaxes pyoxigraph 0.3 parses, by rdflib parser name -> MIME type
_OXIGRAPH = {"nt": "application/n-triples", "turtle": "text/turtle", "nquads": "application/n-quads",
             "trig": "application/trig", "xml": "application/rdf+xml"}
#: rdflib parser names of the Turtle family: N-Triples is Turtle, N-Quads is TriG, N3 extends Turtle
_TURTLE_FAMILY = {"turtle", "nt", "n3", "trig", "nquads"}
_TTL_PREFIX = re.compile(r"(?:^|[\s.])(?:@prefix|PREFIX)\s+([A-Za-z][\w.\-]*)?:\s*<([^>\s]*)>", re.M)
_XML_PREFIX = re.compile(r"\bxmlns:([A-Za-z_][\w.\-]*)\s*=\s*[\"']([^\"']*)[\"']")
_CATALOG_NS = "urn:oasis:names:tc:entity:xmlns:xml:catalog"


#: The facets OWL 2 allows in a datatype restriction (Structural Specification, section 4).
FACETS = frozenset({XSD.minInclusive, XSD.maxInclusive, XSD.minExclusive, XSD.maxExclusive, XSD.length,
                    XSD.minLength, XSD.maxLength, XSD.pattern, XSD.totalDigits, XSD.fractionDigits,
                    URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#langRange")})


@dataclass(frozen=True)
class Restriction:
    """An OWL 2 datatype restriction: a datatype narrowed by XSD facets (Structural Specification,
    section 7.5; RDF mapping: a node with ``owl:onDatatype`` and ``owl:withRestrictions``, a list of
    nodes each giving one facet). It is a property's range directly (``rdfs:range [ owl:onDatatype
    xsd:integer ; owl:withRestrictions ( [ xsd:minInclusive 1 ] ) ]``) or through a named datatype it
    defines (section 9.4, ``o:ISBN13 owl:equivalentClass [ owl:onDatatype xsd:string ; ... ]``). A
    datatype so defined has an empty lexical space (section 9.4): no literal may carry it, so a
    literal of such a range is written with the base datatype and the facets constrain its value.

    Attributes:
        base: the built-in (or other named) datatype restricted, ``owl:onDatatype``; for a named
            datatype defined from another restricted one, the innermost base.
        facets: ``(facet IRI, value)`` pairs, those of every level of a chain of definitions.
        name: the named datatype defined by the restriction, or ``None`` (a restriction written in
            place, as a blank node).
    """

    base: URIRef
    facets: tuple[tuple[URIRef, Literal], ...]
    name: URIRef | None = None

    def describe(self, g: Graph | None = None) -> str:
        """``xsd:integer[minInclusive 1]``: the base and facets as OWL's functional syntax writes them."""
        def short(iri: URIRef) -> str:
            if str(iri).startswith(str(XSD)):
                return "xsd:" + str(iri)[len(str(XSD)):]
            return g.namespace_manager.normalizeUri(iri) if g is not None else f"<{iri}>"
        parts = [f"{str(f).rsplit('#', 1)[-1]} {v.n3() if isinstance(v, Literal) and str(f) == str(XSD.pattern) else v}"
                 for f, v in self.facets]
        return f"{short(self.base)}[{', '.join(parts)}]"


_XS, _RD = str(XSD), str(RDF)
#: Value-space family of each built-in datatype (OWL 2 datatype map, plus the XSD types outside it).
VALUE_FAMILY: dict[str, str] = {
    **{_XS + t: "real" for t in ("decimal", "integer", "nonNegativeInteger", "nonPositiveInteger",
                                "positiveInteger", "negativeInteger", "long", "int", "short", "byte",
                                "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")},
    str(OWL) + "real": "real", str(OWL) + "rational": "real",
    _XS + "double": "double", _XS + "float": "float",
    **{_XS + t: "string" for t in ("string", "normalizedString", "token", "language", "Name", "NCName",
                                  "NMTOKEN")},
    _RD + "langString": "langString", _XS + "boolean": "boolean", _XS + "hexBinary": "hexBinary",
    _XS + "base64Binary": "base64Binary", _XS + "anyURI": "anyURI",
    _XS + "dateTime": "dateTime", _XS + "dateTimeStamp": "dateTime", _XS + "date": "date", _XS + "time": "time",
    _XS + "gYear": "gYear", _XS + "gYearMonth": "gYearMonth", _XS + "gMonth": "gMonth", _XS + "gDay": "gDay",
    _XS + "gMonthDay": "gMonthDay", _XS + "duration": "duration", _XS + "dayTimeDuration": "duration",
    _XS + "yearMonthDuration": "duration", _RD + "XMLLiteral": "XMLLiteral",
}
#: Ranges whose value space holds several families.
VALUE_UNION: dict[str, set[str]] = {str(RDFS.Literal): set(VALUE_FAMILY.values()) | {"*"},
                                   _RD + "PlainLiteral": {"string", "langString"}}


def disjoint_ranges(g: Graph, prop: URIRef) -> tuple[URIRef, URIRef] | None:
    """Two built-in datatypes stated as ``rdfs:range`` of ``prop`` (or of a super-property,
    :func:`superproperties`) whose value spaces are disjoint, else ``None``.

    Several ``rdfs:range`` axioms all hold (RDF 1.1 Semantics, rule rdfs3; OWL 2 ``DataPropertyRange``):
    a value must be in each, i.e. in their intersection, and the value spaces of distinct primitive
    XSD types are disjoint (XSD 1.1 Part 2, section 2.4; families of :data:`VALUE_FAMILY`), so no
    literal can be a value of such a property. Vocabularies written by hand often list "the accepted
    datatypes" so, meaning a union (``owl:unionOf``). ``rdfs:Literal`` and ``rdf:PlainLiteral`` hold
    several families; a datatype outside :data:`VALUE_FAMILY` is not judged.

    Returns:
        The first such pair in IRI order, or ``None``.
    """
    stated = sorted({str(r) for q in superproperties(g, prop) for r in g.objects(q, RDFS.range)
                     if isinstance(r, URIRef)})
    for i, a in enumerate(stated):
        for b in stated[i + 1:]:
            fa = VALUE_UNION.get(a) or ({VALUE_FAMILY[a]} if a in VALUE_FAMILY else None)
            fb = VALUE_UNION.get(b) or ({VALUE_FAMILY[b]} if b in VALUE_FAMILY else None)
            if fa and fb and not (fa & fb) and "*" not in fa | fb:
                return URIRef(a), URIRef(b)
    return None


def superproperties(g: Graph, prop: URIRef) -> frozenset[URIRef]:
    """Reflexive-transitive closure of ``prop`` over ``rdfs:subPropertyOf`` and ``owl:equivalentProperty``
    (either direction) in the graph ``g``: the properties whose domain and range hold for ``prop``'s
    triples (RDF 1.1 Semantics, rules rdfs7 with rdfs2 and rdfs3; OWL 2 ``SubObjectPropertyOf``,
    ``SubDataPropertyOf``)."""
    return _closure(g, prop, RDFS.subPropertyOf, OWL.equivalentProperty)


def expression_subclasses(g: Graph) -> list[tuple[URIRef, URIRef]]:
    """``(subclass, superclass)`` pairs of named classes that the class expressions of ``g`` entail, beyond
    the ``rdfs:subClassOf``/``owl:equivalentClass`` triples between named classes:

    * ``C owl:equivalentClass`` (either way) or ``rdfs:subClassOf`` an ``owl:intersectionOf``: ``C`` is a
      subclass of each member (OWL 2 RL rules cls-int2 with cax-eqc1/cax-eqc2, scm-int with scm-sco;
      OWL 2 Direct Semantics, ObjectIntersectionOf);
    * ``C owl:equivalentClass`` (either way) an ``owl:unionOf``, or ``C owl:disjointUnionOf`` a list:
      each member is a subclass of ``C`` (OWL 2 RL rule scm-uni; DisjointUnion, Structural
      Specification 9.1.4).

    Nested intersections (of an intersection) and unions (of a union) are flattened; members that are
    other expressions (restrictions, complements) name no class and give no pair.
    """
    def named(node: Any, op: URIRef, _open: frozenset = frozenset()) -> set[URIRef]:
        if isinstance(node, URIRef):
            return {node}
        if not isinstance(node, BNode) or node in _open:
            return set()
        head = g.value(node, op)
        if head is None:
            return set()
        return {m for x in rdf_members(g, head) for m in named(x, op, _open | {node})}

    out: list[tuple[URIRef, URIRef]] = []
    for pred in (OWL.equivalentClass, RDFS.subClassOf):
        for a, b in g.subject_objects(pred):
            pairs = [(a, b), (b, a)] if pred == OWL.equivalentClass else [(a, b)]
            for c, expr in pairs:
                if not isinstance(c, URIRef) or not isinstance(expr, BNode):
                    continue
                out += [(c, m) for m in named(expr, OWL.intersectionOf) if m != c]
                if pred == OWL.equivalentClass:
                    out += [(m, c) for m in named(expr, OWL.unionOf) if m != c]
    for c, lst in g.subject_objects(OWL.disjointUnionOf):
        if isinstance(c, URIRef):
            out += [(m, c) for m in rdf_members(g, lst) if isinstance(m, URIRef) and m != c]
    return list(dict.fromkeys(out))


def _closure(g: Graph, start: URIRef, up: URIRef, same: URIRef,
             extra: dict[URIRef, frozenset[URIRef]] | None = None) -> frozenset[URIRef]:
    """Reflexive-transitive closure of ``start`` over ``up``, ``same`` (either direction) and the
    ``extra`` edges (term -> terms above it); named terms only."""
    out, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for y in (*g.objects(x, up), *g.objects(x, same), *g.subjects(same, x), *(extra or {}).get(x, ())):
            if isinstance(y, URIRef) and y not in out:
                out.add(y)
                todo.append(y)
    return frozenset(out)


def datatype_restriction(g: Graph, node: Any, _seen: frozenset = frozenset()) -> Restriction | None:
    """The datatype restriction ``node`` is or, for a named datatype, is defined as (an
    ``owl:equivalentClass`` with such a node, read both ways); ``None`` otherwise.

    Args:
        g: the ontology graph.
        node: a range (an IRI or a blank node).
    Returns:
        The :class:`Restriction`, with the facets of every level when the base is itself a named
        restricted datatype; ``None`` when ``node`` is no datatype restriction.
    """
    if node in _seen:
        return None
    if isinstance(node, URIRef):
        for other in [*g.objects(node, OWL.equivalentClass), *g.subjects(OWL.equivalentClass, node)]:
            if isinstance(other, BNode):
                inner = datatype_restriction(g, other, _seen | {node})
                if inner is not None:
                    return Restriction(inner.base, inner.facets, node)
        return None
    if not isinstance(node, BNode):
        return None
    base = g.value(node, OWL.onDatatype)
    if not isinstance(base, URIRef):
        return None
    facets: list[tuple[URIRef, Literal]] = []
    for lst in g.objects(node, OWL.withRestrictions):
        for item in _list_members(g, lst):
            facets += [(p, o) for p, o in g.predicate_objects(item) if p in FACETS and isinstance(o, Literal)]
    inner = datatype_restriction(g, base, _seen | {node})
    if inner is not None:
        return Restriction(inner.base, (*inner.facets, *facets))
    return Restriction(base, tuple(facets))


def sniff_syntax(head: str) -> str | None:
    """The RDF syntax a file's first characters show (rdflib parser name), ``None`` when they do not tell.

    RDF/XML: an XML document whose root element is ``rdf:RDF`` (RDF 1.1 XML Syntax, 2.6); Turtle: a
    ``@prefix``/``@base``/``PREFIX``/``BASE`` directive or a first statement opening with an IRI
    (N-Triples is Turtle); JSON-LD: a JSON object or array. OWL/XML, OWL functional and Manchester
    syntax give ``None`` (see :func:`pipeline.rdffile.syntax_hint`).

    Args:
        head: the file's first few thousand characters.
    """
    text = head.lstrip("\ufeff \t\r\n")
    while text.startswith("#"):  # Turtle comment lines
        text = text.split("\n", 1)[1].lstrip() if "\n" in text else ""
    if text.startswith("<?xml") or text.startswith("<!") or re.match(r"<[A-Za-z_][\w.\-]*:?[\w.\-]*[\s>]", text):
        body = re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(\[.*?\])?\s*>", "", text, flags=re.S).lstrip()
        root = re.match(r"<([\w.\-]+:)?([\w.\-]+)", body)
        if root and root.group(2) == "RDF":
            return "xml"
        if root or text.startswith(("<?xml", "<!")):
            return None
    if text[:1] in "{[":
        return "json-ld"
    if re.match(r"(@prefix|@base)\b", text) or re.match(r"(PREFIX|BASE)\s", text, re.I):
        return "turtle"
    if re.match(r"<[^<>\s\"]*>\s*(<|[A-Za-z_][\w.\-]*:|a\s)", text):
        return "turtle"
    return None


@dataclass
class _File:
    """One file as read: its triples (rdflib terms), the prefixes it declares, its syntax."""

    path: str
    triples: list[tuple[Any, Any, Any]]
    prefixes: dict[str, str]


class _Terms:
    """pyoxigraph terms -> rdflib terms, one :class:`URIRef` per IRI; blank nodes kept apart per file."""

    def __init__(self) -> None:
        self.iris: dict[str, URIRef] = {}

    def convert(self, term: Any, bnodes: str) -> Any:
        kind = type(term)
        if kind is pyoxigraph.NamedNode:
            iri = self.iris.get(term.value)
            if iri is None:
                iri = self.iris[term.value] = URIRef(term.value)
            return iri
        if kind is pyoxigraph.Literal:
            if term.language:
                return Literal(term.value, lang=term.language)
            dt = term.datatype.value
            # rdflib's parsers write a simple literal without a datatype (RDF 1.1: it is xsd:string)
            return Literal(term.value) if dt == str(XSD.string) else Literal(term.value, datatype=self.convert(
                term.datatype, bnodes))
        if kind is pyoxigraph.BlankNode:
            return BNode(bnodes + term.value)
        return None  # an RDF-star quoted triple: no ontology statement


def _read_file(path: str, number: int, terms: _Terms, notes: list[str]) -> _File:
    """Parse one file (see :func:`load_ontology`). Raises :class:`OntologyError`."""
    p = Path(path)
    if not p.is_file():
        raise OntologyError("ontology file not found", path=path)
    try:
        with open(p, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4000)
    except OSError as exc:
        raise OntologyError(f"cannot read ontology: {exc}", path=path) from exc
    if not head.strip():  # a file saved empty, a failed download: no syntax to sniff, nothing to parse
        raise OntologyError("empty file (expected: an ontology in Turtle, RDF/XML, N-Triples, JSON-LD ...)", path=path)
    by_extension = rdf_format(p)
    sniffed = sniff_syntax(head)
    fmt = by_extension
    if sniffed is not None and not (sniffed == by_extension or {sniffed, by_extension} <= _TURTLE_FAMILY):
        if by_extension is not None:
            notes.append(f"{path}: the file holds {SYNTAX_NAMES[sniffed]}, not the {SYNTAX_NAMES[by_extension]} its "
                         f"extension {p.suffix!r} names; read as {SYNTAX_NAMES[sniffed]}")
        fmt = sniffed
    strict = ""
    if fmt in _OXIGRAPH:
        try:
            bnodes = f"f{number}b"
            triples = []
            for st in pyoxigraph.parse(str(p), _OXIGRAPH[fmt], base_iri=p.resolve().as_uri()):
                t = (terms.convert(st.subject, bnodes), terms.convert(st.predicate, bnodes),
                     terms.convert(st.object, bnodes))
                if None not in t:
                    triples.append(t)
            text = p.read_text(encoding="utf-8", errors="replace")
            pattern = _XML_PREFIX if fmt == "xml" else _TTL_PREFIX
            prefixes: dict[str, str] = {}
            for m in pattern.finditer(text):
                if re.match(r"[a-zA-Z][\w+.\-]*:", m.group(2)):
                    prefixes.setdefault(m.group(1) or "", m.group(2))
            return _File(path, triples, prefixes)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            pass  # rdflib reads what pyoxigraph's strict parsers reject, or says why it cannot
        except OSError as exc:
            if exc.errno is not None or exc.filename:
                raise OntologyError(f"cannot read ontology: {exc.strerror or exc}", path=path) from exc
            # pyoxigraph 0.3 reports RDF/XML that is not well-formed as an OSError without the
            # line; rdflib's parser gives the line, pyoxigraph's message what was expected
            strict = " ".join(str(exc).split())
    if fmt == "json-ld":  # rdflib would download a remote @context: refused, nothing is fetched
        refuse_remote_contexts(p, "ontology")
    g = Graph(bind_namespaces="none")
    try:
        _parse_with_prefix_repair(g, path, notes, fmt)
    except FileNotFoundError as exc:
        raise OntologyError("ontology file not found", path=path) from exc
    except Exception as exc:  # rdflib raises many parser-specific types
        line, why = locate_parse_error(path, fmt, exc)
        why += f" ({strict})" if strict and strict not in why else ""
        read_as = f"as {SYNTAX_NAMES[fmt]}" if fmt else f"(extension {p.suffix or '(none)'!r} unknown, read as Turtle)"
        raise OntologyError(f"cannot parse ontology {read_as}: {why}", path=path, line=line) from exc
    return _File(path, list(g), {str(k): str(v) for k, v in g.namespaces()})


@dataclass
class _Catalogs:
    """What the OASIS XML catalogs (``catalog-v001.xml``) beside the given files say.

    Attributes:
        entries: import IRI (without a trailing ``/`` or ``#``) -> the local file a catalog maps it to.
        read: the catalog files read.
        unusable: catalog file -> why none of its elements is an entry (a root in another namespace).
    """

    entries: dict[str, Path] = field(default_factory=dict)
    read: list[Path] = field(default_factory=list)
    unusable: dict[Path, str] = field(default_factory=dict)

    def why_unresolved(self, iri: str) -> str:
        """Why no catalog resolves ``iri``, in the words of a note (``no catalog-v001.xml beside the
        files maps it``, or what the catalogs found hold)."""
        local = self.entries.get(iri.rstrip("/#"))
        if local is not None:
            return f"the catalog maps it to {local}, which does not exist"
        if not self.read:
            return "no catalog-v001.xml beside the files maps it"
        said = [f"{cat} {why}" for cat, why in self.unusable.items()]
        mapped = [str(cat) for cat in self.read if cat not in self.unusable]
        if mapped:
            said.append(f"{', '.join(mapped)} {'maps' if len(mapped) == 1 else 'map'} no such IRI")
        return "; ".join(said)


def _catalog(folders: Iterable[Path]) -> _Catalogs:
    """The OASIS XML catalogs (``catalog-v001.xml``) in ``folders``, read (OASIS XML Catalogs 1.1).

    A catalog element is one of the namespace ``urn:oasis:names:tc:entity:xmlns:xml:catalog``
    (section 6.1; elements without a namespace are read too, as Protégé's older catalogs write
    them); a catalog whose root is in another namespace (SGML's TR9401) holds no entry, and is
    listed in :attr:`_Catalogs.unusable` with why, so that a note can name it.

    Raises:
        OntologyError: a catalog is not well-formed XML (its file, line and the parser's message):
            the imports it maps could not be resolved, and saying "no catalog maps it" would send
            the user away from the cause.
    """
    out = _Catalogs()
    for folder in dict.fromkeys(folders):
        cat = folder / "catalog-v001.xml"
        if not cat.is_file():
            continue
        try:
            root = etree.parse(str(cat)).getroot()
        except etree.XMLSyntaxError as exc:
            why = re.sub(r", line \d+, column \d+$", "", exc.msg or str(exc))
            raise OntologyError(f"the XML catalog is not well-formed XML ({why}), so the owl:imports it maps "
                                f"cannot be resolved (expected: an OASIS XML catalog, "
                                f"<catalog xmlns=\"{_CATALOG_NS}\">)", path=str(cat), line=exc.lineno) from exc
        out.read.append(cat)
        entries = [el for el in root.iter(f"{{{_CATALOG_NS}}}uri", "uri")]
        if not entries:
            ns = etree.QName(root).namespace
            found = f"its root <{etree.QName(root).localname}> is in the namespace {ns}" if ns \
                else f"its root is <{etree.QName(root).localname}>"
            out.unusable[cat] = (f"holds no <uri> entry in the XML Catalogs namespace {_CATALOG_NS} ({found}; "
                                 "OASIS XML Catalogs 1.1, section 6.1)")
        for el in entries:
            name, uri = el.get("name"), el.get("uri")
            if name and uri and not re.match(r"[a-zA-Z][\w+.\-]*:", uri):
                out.entries.setdefault(name.rstrip("/#"), (folder / uri).resolve())
    return out


def _ontology_iris(triples: list[tuple[Any, Any, Any]]) -> tuple[set[str], list[str]]:
    """``(IRIs naming the ontologies of a file (owl:Ontology subjects and their versionIRI), its imports)``."""
    named: set[str] = set()
    imports: list[str] = []
    for s, p, o in triples:
        if p == RDF.type and o == OWL.Ontology and isinstance(s, URIRef):
            named.add(str(s).rstrip("/#"))
        elif p == OWL.versionIRI:
            named.add(str(o).rstrip("/#"))
        elif p == OWL.imports and isinstance(o, URIRef):
            imports.append(str(o))
    return named, imports


def _note_list_faults(files: list[_File], graph: Graph, notes: list[str]) -> None:
    """A note per malformed RDF list (cyclic, a node without ``rdf:first``, no ``rdf:nil``) that an
    OWL or SHACL list predicate points to; such lists are read up to the fault."""
    wanted = {URIRef(p) for p in LIST_PREDICATES}
    for f in files:
        for s, p, o in f.triples:
            if p in wanted:
                fault = list_fault(graph, o)
                if fault:
                    name = str(p).replace(str(OWL), "owl:").replace("http://www.w3.org/ns/shacl#", "sh:")
                    notes.append(f"{f.path}: the {name} list of {_short(s)} is malformed ({fault}); its members "
                                 "are read up to the fault")


def _note_disjoint_ranges(files: list[_File], graph: Graph, notes: list[str]) -> None:
    """A note per property that states datatype ranges with no common value (:func:`disjoint_ranges`),
    naming the file of its first such ``rdfs:range``; a sub-property inheriting the pair is not noted again."""
    def shown(iri: URIRef) -> str:
        try:
            return graph.namespace_manager.curie(str(iri), generate=False)
        except (KeyError, ValueError):
            return f"<{iri}>"

    for p in sorted({x for x in graph.subjects(RDFS.range, None) if isinstance(x, URIRef)}):
        pair = disjoint_ranges(graph, p)
        if pair is None or not any((p, RDFS.range, r) in graph for r in pair):
            continue
        where = next((f.path for f in files for t in f.triples if t[0] == p and t[1] == RDFS.range and t[2] in pair),
                     files[0].path if files else "ontology")
        notes.append(f"{where}: the ranges of {shown(p)}, {shown(pair[0])} and {shown(pair[1])}, have no common value "
                     "(every rdfs:range holds, and their value spaces are disjoint): no literal can be a value of "
                     "it, and the shapes derived from the ranges reject every value; a choice of datatypes is one "
                     "range, an owl:unionOf")


def _short(term: Any) -> str:
    """A term as a note names it: a blank node as such, an IRI in angle brackets."""
    return "a blank node" if isinstance(term, BNode) else f"<{term}>"


def _unify_schema_org(files: list[_File], notes: list[str]) -> None:
    """Read schema.org terms in the scheme the given schema.org vocabulary declares them in.

    schema.org treats ``http://schema.org/X`` and ``https://schema.org/X`` as the same term
    (https://schema.org/docs/faq.html#19); vocabularies written against one refer to the other.
    When the files declare schema.org terms in one scheme (rdfs:Class / rdf:Property subjects), the
    IRIs of the other scheme are rewritten to it, with a note."""
    declared = {ns: 0 for ns in _SCHEMA}
    for f in files:
        for s, p, o in f.triples:
            if p == RDF.type and o in (RDFS.Class, RDF.Property) and isinstance(s, URIRef):
                for ns in _SCHEMA:
                    if str(s).startswith(ns):
                        declared[ns] += 1
    if not any(declared.values()):
        return
    keep = max(_SCHEMA, key=lambda ns: declared[ns])
    other = next(ns for ns in _SCHEMA if ns != keep)

    def fix(t: Any) -> Any:
        return URIRef(keep + str(t)[len(other):]) if isinstance(t, URIRef) and str(t).startswith(other) else t

    for f in files:
        if any(isinstance(t, URIRef) and str(t).startswith(other) for tr in f.triples for t in tr):
            f.triples = [(fix(s), fix(p), fix(o)) for s, p, o in f.triples]
            notes.append(f"{f.path}: schema.org terms written <{other}...> read as <{keep}...>, the scheme of the "
                         "given schema.org vocabulary (schema.org treats both as one term)")


def load_ontology(files: Iterable[str | Path], extra_prefixes: dict[str, str] | None = None) -> Ontology:
    """Load ontology and SKOS files, with the imports they name that are available locally.

    The syntax is the extension's (Turtle, RDF/XML, N-Triples, N-Quads, TriG, N3, JSON-LD), or the
    content's when that shows another (:func:`sniff_syntax`; a note says so). An ``owl:imports`` is
    resolved when the imported ontology's IRI (or version IRI) is that of a given file, or an OASIS
    XML catalog ``catalog-v001.xml`` in the folder of a given file maps it to a local file (loaded
    too, with its own imports); otherwise a note names it: nothing is fetched from the network.

    Args:
        files: local files; nothing is fetched from the network.
        extra_prefixes: prefixes from the manifest (e.g. ``{"ex": base IRI}``);
            they override well-known ones but not the files' own declarations.
    Returns:
        The loaded :class:`Ontology`.
    Raises:
        OntologyError: a file is missing or cannot be parsed (names the file and line), or the files
            declare no class and no property.
    """
    paths = [str(f) for f in files]
    notes: list[str] = []
    terms = _Terms()
    read = [_read_file(f, i, terms, notes) for i, f in enumerate(paths)]
    named: dict[str, str] = {}
    wanted: list[tuple[str, str]] = []
    for f in read:
        own, imports = _ontology_iris(f.triples)
        named.update({iri: f.path for iri in own})
        wanted += [(iri, f.path) for iri in imports]
    folders = [Path(p).resolve().parent for p in paths]
    catalog = _catalog(folders) if any(iri.rstrip("/#") not in named for iri, _ in wanted) else _Catalogs()
    loaded = {str(Path(p).resolve()) for p in paths}
    missing: dict[str, str] = {}
    while wanted:
        iri, by = wanted.pop(0)
        key = iri.rstrip("/#")
        if key in named:
            continue
        local = catalog.entries.get(key)
        if local is None or not local.is_file():
            missing.setdefault(iri, by)
            continue
        if str(local) in loaded:
            named[key] = str(local)
            continue
        f = _read_file(str(local), len(read), terms, notes)
        read.append(f)
        loaded.add(str(local))
        paths.append(str(local))
        own, imports = _ontology_iris(f.triples)
        named.update({i: f.path for i in own | {key}})
        wanted += [(i, f.path) for i in imports]
    unresolved = {iri: by for iri, by in missing.items() if iri.rstrip("/#") not in named}
    for iri, by in unresolved.items():
        notes.append(f"{by}: owl:imports <{iri}> is not resolved: no given file is that ontology and "
                     f"{catalog.why_unresolved(iri)}, so its terms are not loaded (nothing is fetched from the "
                     "network); add its file to the manifest's ontologies to use them")
    _unify_schema_org(read, notes)
    graph = Graph(bind_namespaces="none")
    for f in read:
        graph.addN((s, p, o, graph) for s, p, o in f.triples)
    _note_list_faults(read, graph, notes)
    declared: dict[str, str] = {}
    for f in read:
        for p, ns in f.prefixes.items():
            declared.setdefault(p, ns)
    prefixes: dict[str, str] = {}
    origin: dict[str, str] = {}
    for source, mapping in (("well-known", WELL_KNOWN_PREFIXES), ("manifest", extra_prefixes or {}),
                            ("declared", declared)):
        for p, ns in mapping.items():
            prefixes[p] = ns
            origin[p] = source
    for p, ns in prefixes.items():
        graph.bind(p, ns, override=True, replace=True)
    _note_disjoint_ranges(read, graph, notes)
    onto = Ontology(graph=graph, prefixes=prefixes, prefix_origin=origin, files=paths, notes=notes)
    if paths and not onto.classes and not onto.properties:
        # nothing to map onto: say so at load, not as "the table has no rows" after the mapper ran
        n = len(graph)
        if unresolved:  # the terms are in an import not found: name it and how to supply it, not only the symptom
            shown = ", ".join(f"<{iri}>" for iri in list(unresolved)[:3]) + (", ..." if len(unresolved) > 3 else "")
            raise OntologyError(
                f"no class or property is declared ({n} triples read) and its owl:imports {shown} "
                f"{'is' if len(unresolved) == 1 else 'are'} not resolved: no given file is that ontology and "
                f"{catalog.why_unresolved(next(iter(unresolved)))} (nothing is fetched from the network); list the imported "
                "ontology's file under the manifest's ontologies, or add a catalog-v001.xml mapping its IRI to a "
                "local file", path=", ".join(paths))
        raise OntologyError(f"no class or property is declared ({n} triples read): expected an ontology "
                            "with owl:Class/rdfs:Class and property declarations", path=", ".join(paths))
    return onto


def _parse_with_prefix_repair(g: Graph, path: str, notes: list[str], fmt: str | None = None) -> None:
    """Parse ``path`` with rdflib (``fmt``: rdflib's parser name, ``None``: by extension); a Turtle file
    using a well-known prefix it never declares (BLINKG's ``dc:`` in the GTFS SKOS files) is parsed
    again with that declaration added, and noted."""
    added: list[str] = []
    text: str | None = None
    while True:
        try:
            if text is None:
                g.parse(path, format=fmt) if fmt else g.parse(path)
            else:
                g.parse(data=text, format="turtle", publicID=Path(path).resolve().as_uri())
            break
        except Exception as exc:
            m = re.search(r'Prefix "([^"]*):" not bound', str(exc))
            if not m or m.group(1) not in WELL_KNOWN_PREFIXES or m.group(1) in added:
                raise
            added.append(m.group(1))
            if text is None:
                text = Path(path).read_text(encoding="utf-8")
            # on the first line, so that the parser's line numbers stay the file's
            text = f"@prefix {m.group(1)}: <{WELL_KNOWN_PREFIXES[m.group(1)]}> . " + text
            g.remove((None, None, None))
    for p in added:
        notes.append(f"{path}: prefix '{p}:' used but not declared; read as <{WELL_KNOWN_PREFIXES[p]}>")
