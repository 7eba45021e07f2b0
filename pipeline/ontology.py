"""Ontology and SKOS access: prefixes, terms, domains/ranges, labels, closest terms.

Loads OWL/RDFS ontologies and SKOS vocabularies with rdflib from local files
only (never over the network) and answers the questions the compiler, the
audit and the mappers ask: does this term exist and of what kind, which
prefix resolves ``epo:``, which class/property is the closest valid one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Iterable

from rapidfuzz import fuzz, process
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from pipeline.errors import OntologyError
from pipeline.rdffile import parse_error, rdf_format, syntax_hint

__all__ = ["WELL_KNOWN_PREFIXES", "Ontology", "load_ontology", "is_xsd_datatype", "is_langstring"]

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
    return iri is not None and (str(iri) == str(RDF.langString) or _local_name(str(iri)) == "langString")


def _local_name(iri: str) -> str:
    return re.split(r"[#/:]", iri.rstrip("/#"))[-1]


@dataclass
class Ontology:
    """An ontology plus SKOS vocabularies loaded into one rdflib graph.

    Attributes:
        graph: all triples of the ontology and SKOS files.
        prefixes: prefix -> namespace, from the files' declarations, then the
            manifest's extra prefixes, then :data:`WELL_KNOWN_PREFIXES`.
        prefix_origin: prefix -> ``"declared"``, ``"manifest"`` or ``"well-known"``.
        files: the files loaded, in order.
        notes: repairs made while loading (undeclared well-known prefixes).
    """

    graph: Graph
    prefixes: dict[str, str] = field(default_factory=dict)
    prefix_origin: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
    def classes(self) -> frozenset[URIRef]:
        """Named classes: ``owl:Class``/``rdfs:Class`` subjects, ``rdfs:subClassOf`` ends and the classes
        that RDFS semantics implies, except datatypes (a user datatype written ``rdfs:subClassOf
        xsd:float`` is no class).

        RDFS entailment rules rdfs2/rdfs3 (RDF 1.1 Semantics, section 9.2.1) make every value of
        ``rdfs:domain`` a class, and every value of ``rdfs:range`` of a property that is not an
        ``owl:DatatypeProperty`` a class too (RDFS vocabularies such as EBUCore declare classes only
        this way). The range of a datatype property is a data range (OWL 2), never a class here.
        """
        out = {s for t in (OWL.Class, RDFS.Class) for s in self.graph.subjects(RDF.type, t)}
        for s, o in self.graph.subject_objects(RDFS.subClassOf):
            out.update({s, o})
        data = set(self.graph.subjects(RDF.type, OWL.DatatypeProperty))
        for p, d in self.graph.subject_objects(RDFS.domain):
            out |= self._class_expr(d)
        for p, r in self.graph.subject_objects(RDFS.range):
            if p not in data:
                out |= self._class_expr(r)
        return frozenset(c for c in out if isinstance(c, URIRef) and c != OWL.Thing and c != RDFS.Resource
                         and not self.is_datatype(c))

    def implied_classes(self) -> frozenset[URIRef]:
        """Classes known only through ``rdfs:domain``/``rdfs:range`` (not declared as a class)."""
        declared = {s for t in (OWL.Class, RDFS.Class) for s in self.graph.subjects(RDF.type, t)}
        declared |= {x for pair in self.graph.subject_objects(RDFS.subClassOf) for x in pair}
        return frozenset(self.classes - declared)

    def is_datatype(self, iri: URIRef | str) -> bool:
        """True for XSD built-ins, ``rdfs:Literal``, ``rdf:langString`` and ``rdfs:Datatype`` subjects."""
        return is_xsd_datatype(iri) or (URIRef(str(iri)), RDF.type, RDFS.Datatype) in self.graph

    @cached_property
    def object_properties(self) -> frozenset[URIRef]:
        """``owl:ObjectProperty`` subjects."""
        return frozenset(p for p in self.graph.subjects(RDF.type, OWL.ObjectProperty) if isinstance(p, URIRef))

    @cached_property
    def datatype_properties(self) -> frozenset[URIRef]:
        """``owl:DatatypeProperty`` subjects."""
        return frozenset(p for p in self.graph.subjects(RDF.type, OWL.DatatypeProperty) if isinstance(p, URIRef))

    @cached_property
    def properties(self) -> frozenset[URIRef]:
        """Every property: object, datatype, annotation and ``rdf:Property`` subjects."""
        out = set(self.object_properties | self.datatype_properties)
        for t in (RDF.Property, OWL.AnnotationProperty, OWL.FunctionalProperty):
            out.update(p for p in self.graph.subjects(RDF.type, t) if isinstance(p, URIRef))
        return frozenset(out)

    @cached_property
    def concepts(self) -> frozenset[URIRef]:
        """SKOS concepts: typed ``skos:Concept`` or listed as top concepts / scheme members."""
        out = set(self.graph.subjects(RDF.type, SKOS.Concept))
        out.update(self.graph.objects(None, SKOS.hasTopConcept))
        out.update(self.graph.subjects(SKOS.inScheme, None))
        return frozenset(c for c in out if isinstance(c, URIRef))

    def kind(self, iri: URIRef) -> str | None:
        """Return ``"class"``, ``"object_property"``, ``"datatype_property"``,
        ``"property"``, ``"concept"``, ``"datatype"`` or ``None`` (unknown term)."""
        if iri in self.object_properties:
            return "object_property"
        if iri in self.datatype_properties:
            return "datatype_property"
        if iri in self.properties:
            return "property"
        if iri in self.classes:
            return "class"
        if iri in self.concepts:
            return "concept"
        if self.is_datatype(iri):
            return "datatype"
        return None

    # -- schema -----------------------------------------------------------
    def _class_expr(self, node) -> set[URIRef]:
        if isinstance(node, URIRef):
            return {node}
        if isinstance(node, BNode):
            out: set[URIRef] = set()
            for pred in (OWL.unionOf, OWL.intersectionOf):
                lst = self.graph.value(node, pred)
                if lst is not None:
                    for member in Collection(self.graph, lst):
                        out |= self._class_expr(member)
            return out
        return set()

    def domains(self, prop: URIRef) -> set[URIRef]:
        """Named classes of ``rdfs:domain`` (unions flattened), inherited from super-properties."""
        out: set[URIRef] = set()
        for p in self.superproperties(prop):
            for d in self.graph.objects(p, RDFS.domain):
                out |= self._class_expr(d)
        return out

    def ranges(self, prop: URIRef) -> set[URIRef]:
        """Named classes or datatypes of ``rdfs:range`` (unions flattened), inherited."""
        out: set[URIRef] = set()
        for p in self.superproperties(prop):
            for r in self.graph.objects(p, RDFS.range):
                out |= self._class_expr(r)
        return out

    def datatype_ranges(self, prop: URIRef) -> set[URIRef]:
        """Ranges of ``prop`` that are datatypes: XSD/RDF built-ins and ``rdfs:Datatype`` subjects,
        and, for an ``owl:DatatypeProperty``, any declared range that is no class (OWL 2: the range
        of a data property is a data range, so the GTFS ontology's ``gtfs:url rdfs:range foaf:page``
        makes ``foaf:page`` the datatype of its values)."""
        data = prop in self.datatype_properties
        return {r for r in self.ranges(prop) if self.is_datatype(r) or (data and r not in self.classes)}

    def superclasses(self, cls: URIRef) -> set[URIRef]:
        """Reflexive-transitive ``rdfs:subClassOf`` closure of ``cls`` (named classes only)."""
        return {c for c in self.graph.transitive_objects(cls, RDFS.subClassOf) if isinstance(c, URIRef)}

    def superproperties(self, prop: URIRef) -> set[URIRef]:
        """Reflexive-transitive ``rdfs:subPropertyOf`` closure of ``prop``."""
        return {p for p in self.graph.transitive_objects(prop, RDFS.subPropertyOf) if isinstance(p, URIRef)}

    def labels(self, iri: URIRef) -> list[str]:
        """``rdfs:label``, ``skos:prefLabel``/``altLabel`` texts of ``iri`` (English first)."""
        found: list[tuple[int, str]] = []
        for pred in (RDFS.label, SKOS.prefLabel, SKOS.altLabel):
            for lit in self.graph.objects(iri, pred):
                if isinstance(lit, Literal):
                    found.append((0 if lit.language in (None, "en") else 1, str(lit)))
        return [t for _, t in sorted(found)]

    def comment(self, iri: URIRef) -> str:
        """The ``rdfs:comment`` (else ``skos:definition``) of ``iri``, English or untagged first,
        then by text, so the choice does not depend on rdflib's hash order ('' when none)."""
        for pred in (RDFS.comment, SKOS.definition):
            found = sorted((0 if getattr(lit, "language", None) in (None, "en") else 1, str(lit))
                           for lit in self.graph.objects(iri, pred))
            if found:
                return found[0][1]
        return ""

    def verbalise(self, iri: URIRef) -> str:
        """Label and comment of a term as one text (local name when it has no label)."""
        labels = self.labels(iri)
        head = labels[0] if labels else _local_name(str(iri))
        c = self.comment(iri)
        return f"{head}: {c}" if c else head

    def closest(self, text: str, candidates: Iterable[URIRef], min_score: float = 0.0) -> tuple[URIRef | None, float]:
        """Closest candidate to ``text`` by normalised Levenshtein ratio on local names.

        Args:
            text: a term as written (``epo:hasIndentifierValue``).
            candidates: IRIs to choose from.
            min_score: minimum similarity in [0, 1].
        Returns:
            ``(iri, score)`` with score in [0, 1]; ``(None, 0.0)`` when nothing reaches ``min_score``.
        """
        cands = list(candidates)
        if not cands or not text:
            return None, 0.0
        key = _local_name(text.strip("<>"))
        names = [_local_name(str(c)) for c in cands]
        best = process.extractOne(key, names, scorer=fuzz.ratio)
        if best is None or best[1] / 100 < min_score:
            return None, 0.0
        return cands[best[2]], best[1] / 100


def load_ontology(files: Iterable[str | Path], extra_prefixes: dict[str, str] | None = None) -> Ontology:
    """Load ontology and SKOS files (Turtle, RDF/XML, N-Triples ...; format guessed by suffix).

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
    graph = Graph(bind_namespaces="none")
    declared: dict[str, str] = {}
    paths = [str(f) for f in files]
    notes: list[str] = []
    for f in paths:
        g = Graph(bind_namespaces="none")
        try:
            _parse_with_prefix_repair(g, f, notes)
        except FileNotFoundError as exc:
            raise OntologyError("ontology file not found", path=f) from exc
        except Exception as exc:  # rdflib raises many parser-specific types
            line, why = parse_error(exc)
            fmt = rdf_format(f)
            read_as = f"as {fmt}" if fmt else f"(extension {Path(f).suffix or '(none)'!r} unknown, read as turtle)"
            raise OntologyError(f"cannot parse ontology {read_as}: {why}{syntax_hint(f)}", path=f,
                                line=line) from exc
        for p, ns in g.namespaces():
            declared.setdefault(str(p), str(ns))
        graph += g
    prefixes: dict[str, str] = {}
    origin: dict[str, str] = {}
    for source, mapping in (("well-known", WELL_KNOWN_PREFIXES), ("manifest", extra_prefixes or {}),
                            ("declared", declared)):
        for p, ns in mapping.items():
            prefixes[p] = ns
            origin[p] = source
    for p, ns in prefixes.items():
        graph.bind(p, ns, override=True, replace=True)
    onto = Ontology(graph=graph, prefixes=prefixes, prefix_origin=origin, files=paths, notes=notes)
    if paths and not onto.classes and not onto.properties:
        # nothing to map onto: say so at load, not as "the table has no rows" after the mapper ran
        raise OntologyError(f"no class or property is declared ({len(graph)} triples read): expected an ontology "
                            "with owl:Class/rdfs:Class and property declarations", path=", ".join(paths))
    return onto


def _parse_with_prefix_repair(g: Graph, path: str, notes: list[str]) -> None:
    """Parse ``path``; a Turtle file using a well-known prefix it never declares (BLINKG's
    ``dc:`` in the GTFS SKOS files) is parsed again with that declaration added, and noted."""
    added: list[str] = []
    text: str | None = None
    while True:
        try:
            if text is None:
                g.parse(path)
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
            text = f"@prefix {m.group(1)}: <{WELL_KNOWN_PREFIXES[m.group(1)]}> .\n" + text
            g.remove((None, None, None))
    for p in added:
        notes.append(f"{path}: prefix '{p}:' used but not declared; read as <{WELL_KNOWN_PREFIXES[p]}>")
