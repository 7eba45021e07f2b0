"""What a JSON-LD source says of its own members, as mapping evidence (JSON-LD 1.1, https://www.w3.org/TR/json-ld11/).

A JSON source with a ``@context`` (read by :mod:`pipeline.sources.jsonld`) states what its members mean; the
data's author wrote it, so it outranks any similarity of names:

* **Properties.** A member of the records' node whose term definition expands to a property the case's
  vocabularies declare (``"latitude": {"@id": "geo:lat", "@type": "xsd:float"}``) is mapped to it (basis
  ``context``), on the entity of the records' class. The definition's XSD datatype is the row's Datatype;
  ``"@type": "@id"`` or ``"@vocab"`` makes the values IRIs (Datatype ``IRI``, section 4.2.3); ``@language``
  (the term's, else the context's default for a term without a datatype) is the Language Tag, ``null`` none;
  ``@container`` ``@set``/``@list`` change nothing (an array's values are values either way), and the keys
  of a ``@language`` container are the tags of their texts (section 4.6.2). A literal member of an
  ``owl:ObjectProperty`` (no ``"@type": "@id"``: JSON-LD writes a string) and IRIs for an
  ``owl:DatatypeProperty`` contradict the vocabulary: the row is marked for review with both sides.
* **Terms the vocabularies do not declare.** The author says what the member means, but the user's
  vocabularies have no such term (``"capacity": "mv:totalCapacity"`` and no MobiVoc loaded): kgc maps only
  to the vocabularies it is given, so the member is matched by name as any other, and its row's evidence,
  or its unmapped-column warning, says what the context defines it as (``info.context_notes``), so that the
  engineer can load that vocabulary or confirm the match.
* **The node's IRI.** The ``@id`` member (or its alias) of the records' node, when each record has one
  value and every value is an absolute IRI as written (a compact IRI of the context is no IRI of the data:
  the table would have to rewrite it), is the subject: its Subject Generation is ``{that member}``, which
  the compiler writes as the IRI in the value. It keys the entity and is no property value.
* **The node's class.** The ``@type`` member (or alias) is read with the context's expansion (terms,
  ``@vocab``, compact IRIs) by :func:`type_iris`, for :func:`.classes.type_column`.

The records' node is the object holding the ``@type`` member of their class, else the one holding their
``@id``, else the record itself; members of other nodes (objects inside it that the mapper opens as entities of
their own) are left to the nested-object rules, with their notes.
"""
from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, XSD

from pipeline.ontology import Ontology
from pipeline.sources.jsonld import Definition
from pipeline.sources.model import SourceData
from pipeline.table.template import is_absolute_iri
from pipeline.mappers.offline.analysis import Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_evidence

__all__ = ["definition", "type_iris", "defines_other", "node_iri", "node_path", "context_assignments"]

def definition(data: SourceData, ref: str) -> Definition | None:
    """The JSON-LD definition of the member at ``ref`` (``None``: no JSON-LD, or members defined otherwise
    in other records)."""
    return data.jsonld.definitions.get(ref) if data.jsonld is not None else None


def _parent(ref: str) -> str:
    return ref.rsplit(".", 1)[0] if "." in ref else ""


def node_path(data: SourceData, ref: str) -> str:
    """The path of the node object a member belongs to: its parent object, through ``@nest`` objects (their
    members are the node's own, section 4.4) and language maps (``name.en`` is a value of ``name``)."""
    d = definition(data, ref)
    path = _parent(_parent(ref)) if d is not None and d.language_member else _parent(ref)
    while path and (p := definition(data, path)) is not None and p.keyword == "@nest":
        path = _parent(path)
    return path


def type_iris(data: SourceData, ref: str) -> set[URIRef] | None:
    """The IRIs the ``@type`` member at ``ref`` names, expanded by the context; ``None`` when ``ref`` is no
    ``@type`` member of a JSON-LD source (or any of its values cannot be expanded)."""
    d = definition(data, ref)
    if d is None or d.keyword != "@type":
        return None
    iris = data.jsonld.iris.get(ref, {})
    values = {v.strip() for v in data.values(ref) if v and v.strip()}
    if not values or any(v not in iris for v in values):
        return None
    return {URIRef(iris[v]) for v in values}


def defines_other(data: SourceData, ref: str) -> bool:
    """The context defines the member at ``ref`` as a property IRI: it is no type member, whatever its name
    (``"type": "dct:type"``)."""
    d = definition(data, ref)
    return d is not None and d.iri is not None


def node_iri(info: SourceInfo) -> tuple[str, str] | None:
    """``(reference, evidence)`` of the ``@id`` member whose values are the IRIs of the records' node, else
    ``None``: the member beside the records' type member (:attr:`.analysis.SourceInfo.typed`), else at the
    record's top; one value per record and every value an absolute IRI, unchanged by the context's expansion."""
    data = info.data
    if data.jsonld is None:
        return None
    ids = [r for r in data.references if (d := definition(data, r)) is not None and d.keyword == "@id"]
    where = node_path(data, info.typed[0]) if info.typed is not None else ""
    ref = next((r for r in ids if node_path(data, r) == where), None)
    if ref is None:
        return None
    iris = data.jsonld.iris.get(ref, {})
    per_record = [rec.get(ref, []) for rec in data.records]
    if any(len(vs) > 1 for vs in per_record):
        return None
    values = [vs[0].strip() for vs in per_record if vs and vs[0].strip()]
    if not values or any(iris.get(v) != v or not is_absolute_iri(v) for v in values):
        return None
    lacking = sum(1 for vs in per_record if not (vs and vs[0].strip()))
    why = (f"{ref!r} is the JSON-LD @id of the records' node ({definition(data, ref).term!r}): its value is the "
           f"node's IRI (JSON-LD 1.1 section 3.3), the subject as written")
    if lacking:
        why += f"; {lacking} record(s) have none (blank nodes in JSON-LD) and get no subject"
    return ref, why


def _datatype(ont: Ontology, d: Definition) -> str | None:
    """The Datatype cell a definition states: ``IRI`` for ``@id``/``@vocab``, an XSD datatype compacted,
    else ``None`` (no coercion, ``@json``, ``rdf:langString`` without its tag, a datatype of no XSD)."""
    if d.datatype in ("@id", "@vocab"):
        return "IRI"
    if d.datatype and d.datatype.startswith(str(XSD)):
        return ont.compact(d.datatype)
    return None


def _describe(ont: Ontology, d: Definition) -> str:
    """``'latitude' as geo:lat (@type xsd:float)``: what a definition says, compacted by the case's prefixes."""
    said = [f"@type {d.datatype if d.datatype.startswith('@') else ont.compact(d.datatype)}"] if d.datatype else []
    if d.language is not None:
        said.append(f"@language {d.language or 'null'}")
    if d.container:
        said.append("@container " + ", ".join(sorted(d.container)))
    return f"{d.term!r} as {ont.compact(d.iri)}" + (f" ({'; '.join(said)})" if said else "")


def context_assignments(info: SourceInfo, ont: Ontology) -> None:
    """Map the members of the records' node that the context defines as properties of the vocabularies
    (appended to ``info.assignments``, basis ``context``); note in ``info.context_notes`` each member it
    defines as a term the vocabularies do not declare, or as a property of another node.

    Runs once the records' class is known and before any name matching, which then leaves these members
    and properties alone."""
    data = info.data
    if data.jsonld is None:
        return
    where = node_path(data, info.typed[0]) if info.typed is not None else (
        node_path(data, info.node_iri) if info.node_iri else "")
    taken = {(a.prop, None) for a in info.assignments if a.cls == info.cls}
    for ref in info.refs:
        d = definition(data, ref)
        if d is None or d.iri is None or d.reverse:
            continue
        prop = URIRef(d.iri)
        slot = (prop, d.language if d.language_member else None)  # a language map holds one text per language
        said = _describe(ont, d)
        if prop == RDF.type or ont.kind(prop) not in ("object_property", "datatype_property", "property"):
            info.context_notes[ref] = (f"the JSON-LD @context defines {said}, which the vocabularies do not "
                                       "declare as a property: matched by name; load the vocabulary that "
                                       "declares it to map it as the data says")
            continue
        if info.cls is None or node_path(data, ref) != where or slot in taken or info.cls in info.borrowed:
            info.context_notes[ref] = f"the JSON-LD @context defines {said}"
            continue
        dt = _datatype(ont, d)
        evidence = [f"the JSON-LD @context of {info.name} defines {said}",
                    domain_evidence(ont, prop, info.cls)]
        if d.datatype and dt is None and d.datatype not in ("@json", str(RDF.langString)):
            evidence.append(f"the context's datatype {ont.compact(d.datatype)} is no XSD datatype: the datatype "
                            "is decided as for any column")
        review = None
        if prop in ont.object_properties and dt != "IRI":
            review = (f"{ont.compact(prop)} is an owl:ObjectProperty but the JSON-LD context gives {d.term!r} no "
                      "\"@type\": \"@id\": its values are strings there; check which the data means")
        elif dt == "IRI" and (prop, RDF.type, OWL.DatatypeProperty) in ont.graph:
            review = (f"the JSON-LD context makes the values of {d.term!r} IRIs (\"@type\": \"{d.datatype}\") but "
                      f"{ont.compact(prop)} is an owl:DatatypeProperty (literal values); check which the data means")
        language = None if dt is not None else d.language
        info.assignments.append(Assignment(ref, prop, info.cls, 1.0, evidence, basis="context", review=review,
                                           datatype=dt, language=language))
        taken.add(slot)
