"""A user's own RDF ontology (OWL or RDFS, any RDF syntax) as the ontology of a text case.

Text2KGBench writes its ontologies as JSON (:func:`.data.load_ontology`); a knowledge engineer's
ontology is an OWL or RDFS file. :func:`rdf_text_ontology` reads one through
:func:`pipeline.ontology.load_ontology` (the syntax from the extension or the content, local
``owl:imports``) and gives the :class:`~.data.TextOntology` the extractor works with:

* each named class is a concept, named by its label (``rdfs:label``/``skos:prefLabel``, English
  or untagged first), else by its local name; ``rdfs:subClassOf`` links between named classes are
  its hierarchy;
* each property with a domain or a range (``owl:ObjectProperty``, ``owl:DatatypeProperty``,
  ``rdf:Property``) is a relation named by its label, else its local name; its domain is its one
  named domain class, its range its named
  class, or for a datatype the benchmark's range name (:data:`RANGE_NAMES`: ``xsd:integer`` is a
  ``number``), with the declared datatype kept for the literals (:attr:`.data.Relation.datatype`);
  no range leaves the range open (each value typed by what it is);
* a domain or range that is a union of named classes (``rdfs:domain [ owl:unionOf ( a:Museum
  a:Person ) ]``, OWL 2 Structural Specification 8.1.1 ObjectUnionOf; or schema.org's
  ``domainIncludes``/``rangeIncludes``, which list a union) is a class of its own, named by its
  members' names joined with ``or`` (``Museum or Person``), that each member is a subclass of
  (:attr:`.data.TextOntology.unions`). The KG types no subject or object by it: which member a
  name is, the sentence does not say, and its membership in the union follows from the
  property's own domain (range). Several named domains without a union (their intersection, RDFS
  2.2.4) leave the relation without a domain, as before;
* a property typed ``owl:SymmetricProperty`` is a symmetric relation (:attr:`.data.Relation.symmetric`:
  a sentence may state it in both directions);
* every term keeps its own IRI (:attr:`.data.TextOntology.term_iris`), so the KG uses the
  ontology's terms, and the KG is validated against the ontology as written.

Two terms with one label are named by their local names (a name must say one term).
"""
from __future__ import annotations

import logging
from pathlib import Path

from rdflib import OWL, RDF, RDFS, XSD, URIRef

from pipeline.ontology import load_ontology as load_rdf, local_name
from pipeline.rdflists import members as rdf_members
from pipeline.text.data import Relation, TextOntology

__all__ = ["rdf_text_ontology", "RANGE_NAMES", "is_rdf_file"]

log = logging.getLogger(__name__)

_NUMBERS = ("integer", "int", "long", "short", "byte", "decimal", "double", "float", "nonNegativeInteger",
            "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
            "unsignedShort", "unsignedByte")
#: XSD datatypes of a property's range -> the range name of the extractor (:data:`.normalize.DATATYPES`):
#: what kind of value the sentences write for it. Other datatypes (``xsd:anyURI``, ``rdf:langString``,
#: ``rdfs:Literal``) are text: ``string``.
RANGE_NAMES: dict[URIRef, str] = {**{XSD[n]: "number" for n in _NUMBERS},
                                  XSD.date: "date", XSD.dateTime: "Date", XSD.dateTimeStamp: "Date",
                                  XSD.gYear: "Year"}


def is_rdf_file(path: Path) -> bool:
    """True when ``path`` holds an RDF ontology rather than Text2KGBench's JSON: its first character
    other than white space (and a byte-order mark) is neither ``{`` nor ``[`` (Turtle, RDF/XML,
    N-Triples ... never start so), or it is JSON-LD (JSON 1.1 keywords ``@context``/``@graph``/``@id``
    in its head, and no ``concepts`` member). Anything else, unreadable files included, is left to
    the JSON reader, whose error names the file."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            head = fh.read(65536).lstrip()
    except OSError:
        return False
    if not head:
        return False
    if not head.startswith(("{", "[")):
        return True
    return any(k in head for k in ('"@context"', '"@graph"', '"@id"')) and '"concepts"' not in head


def _names(terms: list[URIRef], label) -> dict[URIRef, str]:
    """Each term's name: its first label, else its local name; terms sharing a name get local names."""
    first = {t: (label(t) or local_name(t)) for t in terms}
    seen: dict[str, int] = {}
    for n in first.values():
        seen[n.lower()] = seen.get(n.lower(), 0) + 1
    return {t: (n if seen[n.lower()] == 1 else local_name(t)) for t, n in first.items()}


def rdf_text_ontology(path: str | Path, name: str | None = None) -> TextOntology:
    """Read an OWL/RDFS ontology file (and its local imports) as a text case's ontology.

    Args:
        path: the ontology file (Turtle, RDF/XML, N-Triples, JSON-LD ...; syntax by extension or content).
        name: the ontology's id (default: the file's stem).
    Returns:
        A :class:`TextOntology` whose ``term_iris`` give every concept and relation its IRI, and
        whose ``rdf_files`` name the file, so the KG is validated against the ontology as written.
    Raises:
        OntologyError (an :class:`~pipeline.errors.InputError`): the file cannot be read or parsed
            (file and line named), or declares no class and no property.
    """
    path = Path(path)
    onto = load_rdf([path])
    for note in onto.notes:
        log.info("%s: %s", path, note)
    label = lambda t: (onto.labels(t) or [""])[0].strip()  # noqa: E731 - English or untagged first
    classes = sorted(c for c in onto.classes if isinstance(c, URIRef) and c != OWL.Thing)
    class_name = _names(classes, label)
    # annotation properties describe terms and files (dct:creator of the ontology), not the domain
    notes = set(onto.graph.subjects(RDF.type, OWL.AnnotationProperty))
    props = sorted(p for p in onto.properties
                   if p not in notes or p in onto.object_properties or p in onto.datatype_properties)
    prop_name = _names(props, label)
    rels: dict[str, Relation] = {}
    iris: dict[tuple[str, str], str] = {("class", n): str(c) for c, n in class_name.items()}
    unions: dict[str, list[str]] = {}
    for p in props:
        named = sorted(d for d in onto.domains(p) if d in class_name)
        domain = class_name[named[0]] if len(named) == 1 else _union(onto, p, "domain", class_name, unions)
        unread = _unread_expression(onto, p, "domain", class_name)
        if unread:
            domain = ""
            log.warning("%s: %s: rdfs:domain is a class expression kgc does not read (%s): the relation has "
                        "no domain and is never extracted", path, prop_name[p], unread)
        datatype, rng = "", ""
        data = sorted(onto.datatype_ranges(p))
        objects = sorted(r for r in onto.ranges(p) if r in class_name and r not in data)
        if len(data) == 1 and not objects:
            rng = RANGE_NAMES.get(data[0], "string")
            datatype = str(data[0]) if str(data[0]).startswith(str(XSD)) else ""
        elif len(objects) == 1 and not data:
            rng = class_name[objects[0]]
        elif objects and not data and _union(onto, p, "range", class_name, unions):
            rng = _union(onto, p, "range", class_name, unions)
        elif data or p in onto.datatype_properties:
            rng = "string"  # literals of several datatypes, or an owl:DatatypeProperty without a range
        unread = _unread_expression(onto, p, "range", class_name)
        if unread and objects and not data:
            rng = ""
            log.warning("%s: %s: rdfs:range is a class expression kgc does not read (%s): the range is left "
                        "open (each value typed by what it is)", path, prop_name[p], unread)
        rel = Relation(prop_name[p], domain, rng, local_name(p), datatype,
                       (p, RDF.type, OWL.SymmetricProperty) in onto.graph)
        rels[rel.name] = rel
        iris[("relation", rel.name)] = str(p)
    if not rels:
        log.warning("%s: the ontology has no properties: no triple can be extracted", path)
    parents: dict[str, set[str]] = {}
    for c in classes:
        for sup in onto.graph.objects(c, RDFS.subClassOf):
            if sup in class_name and sup != c:
                parents.setdefault(class_name[c], set()).add(class_name[sup])
    for union, members in unions.items():
        for m in members:
            parents.setdefault(m, set()).add(union)  # each member is a subclass of the union
    return TextOntology(name or path.stem, [class_name[c] for c in classes], rels, parents, "",
                        {n: local_name(c) for c, n in class_name.items()}, term_iris=iris, rdf_files=[str(path)],
                        unions=unions)


#: schema.org's ``domainIncludes`` / ``rangeIncludes``: the classes they list are a union.
_INCLUDES = {"domain": tuple(URIRef(ns + "domainIncludes") for ns in ("http://schema.org/", "https://schema.org/")),
             "range": tuple(URIRef(ns + "rangeIncludes") for ns in ("http://schema.org/", "https://schema.org/"))}


def _unread_expression(onto, prop: URIRef, side: str, class_name: dict[URIRef, str]) -> str:
    """The kind of the first ``rdfs:domain`` (``rdfs:range``) value of ``prop`` (or a super-property)
    that is a class expression other than a named class or a union of named classes
    (``owl:complementOf``, ``owl:intersectionOf``, ``owl:Restriction``, a union with such a member),
    else ``""``: reading only its named parts would type subjects by a class the expression does
    not entail (``Museum`` for ``Museum or not Person``)."""
    axiom = RDFS.domain if side == "domain" else RDFS.range
    for sp in sorted(onto.superproperties(prop)):
        for o in onto.graph.objects(sp, axiom):
            if isinstance(o, URIRef):
                continue
            union = onto.graph.value(o, OWL.unionOf)
            if union is not None and all(isinstance(m, URIRef) for m in rdf_members(onto.graph, union)):
                continue
            if (o, RDF.type, RDFS.Datatype) in onto.graph or onto.graph.value(o, OWL.onDatatype) is not None:
                continue  # a data range: read as its datatype
            if union is not None:
                return "owl:unionOf with a member that is no named class"
            kinds = [k for k in (OWL.intersectionOf, OWL.complementOf, OWL.oneOf) if onto.graph.value(o, k) is not None]
            return "owl:" + local_name(kinds[0]) if kinds else "owl:Restriction" \
                if (o, RDF.type, OWL.Restriction) in onto.graph else "a blank node that is no union of named classes"
    return ""


def _union(onto, prop: URIRef, side: str, class_name: dict[URIRef, str], unions: dict[str, list[str]]) -> str:
    """The name of the union class that is ``prop``'s domain (``side`` ``"domain"``) or range, else ``""``.

    A union is one ``rdfs:domain`` (``rdfs:range``) statement, the property's or a super-property's,
    whose value is an ``owl:unionOf`` list of named classes, or only schema.org ``domainIncludes``
    (``rangeIncludes``) statements; its members must all be classes of the ontology
    (``class_name``). Anything else (several statements: their intersection; a member that is no
    named class) gives ``""``. A union found is recorded in ``unions`` (name -> member names)."""
    axiom = RDFS.domain if side == "domain" else RDFS.range
    stated = [(pred, o) for sp in sorted(onto.superproperties(prop)) for pred in (axiom, *_INCLUDES[side])
              for o in onto.graph.objects(sp, pred)]
    if stated and all(pred in _INCLUDES[side] for pred, _ in stated):
        members = [o for _, o in stated]
    elif len(stated) == 1 and onto.graph.value(stated[0][1], OWL.unionOf) is not None:
        members = rdf_members(onto.graph, onto.graph.value(stated[0][1], OWL.unionOf))
    else:
        return ""
    if len(set(members)) < 2 or not all(m in class_name for m in members):
        return ""
    names = sorted({class_name[m] for m in members})
    union = " or ".join(names)
    unions[union] = names
    return union
