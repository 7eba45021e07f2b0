"""Extracted triples -> RDF: the ontology as OWL, the KG as N-Triples.

* :func:`ontology_graph` - the JSON ontology as OWL in Text2KGBench's namespaces
  (``<iri>concepts#C`` classes, ``<iri>relations#r`` properties; a namespace ending in ``#`` holds
  both, ``<iri>C`` and ``<iri>r``). The published OWL files declare
  every relation an ``owl:ObjectProperty``, also those whose range is ``number``, ``string`` or
  ``Date``; here those are ``owl:DatatypeProperty`` with the XSD range of
  :data:`.normalize.DATATYPES` (``Date``: the union of ``xsd:date`` and ``xsd:gYear``, since
  WebNLG dates are days or years alone), so that literals validate against them.
  Classes and relations with a Wikidata id (``Q5``, ``P19``) are named by it, as in the
  benchmark's published OWL files; a relation without a range is an ``rdf:Property`` (its values
  are names or literals). An ontology read from RDF (:mod:`.owl`) is written as its files say,
  and its terms keep their own IRIs.
* :func:`kg_graph` - one resource per entity, IRI = base IRI + the name (Text2KGBench's ``_``
  read as spaces) IRI-safe as ``kgc materialize`` encodes template values,
  :func:`pipeline.materialize.engine.iri_safe`: ``Émile_Zola`` -> ``Émile%20Zola``,
  ``Arion_(comicsCharacter)`` -> ``Arion%20%28comicsCharacter%29``, so a KG from text and one from
  a table template ``{name}`` mint the same IRI for one name; ``rdf:type`` from ``subType``/``objType``;
  literals typed from the property's range (an RDF ontology's declared XSD datatype when it has one).
  A value that is not a valid lexical form of the
  range's datatype is not written and is reported (never written silently).
"""
from __future__ import annotations

import re
from typing import Any

from rdflib import OWL, RDF, RDFS, XSD, BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection

from pipeline.materialize.engine import iri_safe
from pipeline.ontology import load_ontology as load_rdf
from pipeline.text.data import TextOntology
from pipeline.validation.terms import check_literal
from pipeline.text.normalize import DATATYPES, clean_name, date_value, normalize_value, number_value

__all__ = ["ontology_graph", "kg_graph", "entity_iri", "typed_literal"]


def _ns(onto: TextOntology) -> tuple[Namespace, Namespace]:
    """Namespaces of classes and relations: a namespace ending in ``#`` holds both (a user's
    ``ontology_iri``); one ending in ``/`` gets Text2KGBench's ``concepts#`` and ``relations#``."""
    if onto.iri.endswith("#"):
        return Namespace(onto.iri), Namespace(onto.iri)
    return Namespace(onto.iri + "concepts#"), Namespace(onto.iri + "relations#")


def _local(name: str) -> str:
    return iri_safe(re.sub(r"\s+", "_", name.strip()))


def _class(onto: TextOntology, name: str) -> URIRef:
    """IRI of a class: its own (an RDF ontology's), else minted from its id (Wikidata's ``Q5`` for
    ``human``) or its name in the classes' namespace."""
    own = onto.term_iris.get(("class", name))
    return URIRef(own) if own else _ns(onto)[0][_local(onto.concept_ids.get(name, name))]


def _prop(onto: TextOntology, rel) -> URIRef:
    """IRI of a relation: its own (an RDF ontology's), else minted from its id (Wikidata's ``P19``) or
    its name in the relations' namespace."""
    own = onto.term_iris.get(("relation", rel.name))
    return URIRef(own) if own else _ns(onto)[1][_local(rel.id or rel.name)]


def ontology_graph(onto: TextOntology) -> Graph:
    """OWL classes and object/datatype properties with ``rdfs:domain``/``rdfs:range`` (and
    ``rdfs:subClassOf`` where the ontology has a hierarchy); for an ontology read from RDF
    (:attr:`TextOntology.rdf_files`), those files' triples as written (with their local imports), so
    the KG is judged by the user's own axioms.

    Raises:
        OntologyError: an RDF file of the ontology can no longer be read."""
    if onto.rdf_files:
        return load_rdf(onto.rdf_files).graph
    c, r = _ns(onto)
    g = Graph()
    g.bind("c", c)
    g.bind("r", r)
    g.add((URIRef(onto.iri.rstrip("/#")), RDF.type, OWL.Ontology))
    classes = set(onto.concepts) | {x.domain for x in onto.relations.values()} | \
        {x.range for x in onto.relations.values() if not x.is_datatype}
    for name in sorted(n for n in classes if n):
        g.add((_class(onto, name), RDF.type, OWL.Class))
        g.add((_class(onto, name), RDFS.label, Literal(name)))
    for sub, sups in onto.parents.items():
        for sup in sups:
            g.add((_class(onto, sub), RDFS.subClassOf, _class(onto, sup)))
    for rel in onto.relations.values():
        p = _prop(onto, rel)
        g.add((p, RDFS.label, Literal(rel.name)))
        if rel.domain:
            g.add((p, RDFS.domain, _class(onto, rel.domain)))
        if rel.open_range:
            # no range declared: its values are names or literals, as each triple says
            g.add((p, RDF.type, RDF.Property))
        elif rel.is_datatype:
            g.add((p, RDF.type, OWL.DatatypeProperty))
            if rel.range in ("Date", "date"):
                # WebNLG's dates are days or years alone: the range is xsd:date or xsd:gYear
                dt = BNode()
                g.add((dt, RDF.type, RDFS.Datatype))
                members = BNode()
                Collection(g, members, [XSD.date, XSD.gYear])
                g.add((dt, OWL.unionOf, members))
                g.add((p, RDFS.range, dt))
            else:
                g.add((p, RDFS.range, XSD[DATATYPES[rel.range]]))
        else:
            g.add((p, RDF.type, OWL.ObjectProperty))
            g.add((p, RDFS.range, _class(onto, rel.range)))
    return g


def entity_iri(base_iri: str, name: str) -> URIRef:
    """IRI of an entity: ``base_iri`` + its name as ``kgc materialize`` writes a template value
    (:func:`~pipeline.materialize.engine.iri_safe`; ``AWH_Engineering_College`` and ``AWH Engineering
    College`` are one name, ``AWH%20Engineering%20College``), so that a KG from text and one from a
    table template ``{name}`` over the same names mint one IRI per name."""
    return URIRef(base_iri + iri_safe(" ".join(clean_name(name).split())))


def typed_literal(value: str, range_name: str) -> Literal | None:
    """The literal of ``value`` for a datatype range (``None``: not a valid lexical form).

    ``number`` -> ``xsd:decimal``; ``Date``/``date`` -> ``xsd:date``, or ``xsd:gYear`` for a year
    alone; ``Year`` -> ``xsd:gYear``; ``string`` -> ``xsd:string``.
    """
    v = normalize_value(value, range_name)
    if range_name == "number":
        n = number_value(v)
        return None if n is None else Literal(n, datatype=XSD.decimal)
    if range_name in ("Date", "date", "Year"):
        d = date_value(v)
        if d is None:
            return None
        if len(d) == 4:
            return Literal(d, datatype=XSD.gYear)
        return None if range_name == "Year" else Literal(d, datatype=XSD.date)
    return Literal(v, datatype=XSD.string)


def kg_graph(outputs: list[tuple[str, list[dict[str, str]]]], onto: TextOntology,
             base_iri: str) -> tuple[Graph, list[dict[str, Any]]]:
    """The KG of ``[(sentence id, triples)]`` and the triples left out.

    Triples whose relation is not in the ontology, and literals that are not valid for the
    range, are left out; each appears in the returned list with ``sentence``, ``triple`` and
    ``reason``.
    """
    g = Graph()
    dropped = []
    for sid, triples in outputs:
        for t in triples:
            rel = onto.relations.get(onto.resolve(t.get("rel", "")) or "")
            if rel is None:
                dropped.append({"sentence": sid, "triple": t, "reason": "relation not in the ontology"})
                continue
            s = entity_iri(base_iri, t["sub"])
            # a relation without a range: a date or a number is a literal, a name an entity
            literal_range = rel.range if rel.is_datatype else \
                (t.get("objType") if rel.open_range and t.get("objType") in DATATYPES else None)
            if literal_range:
                lit = typed_literal(t["obj"], literal_range)
                if lit is None:
                    dropped.append({"sentence": sid, "triple": t,
                                    "reason": f"not a valid {literal_range} value for xsd:{DATATYPES[literal_range]}"})
                    continue
                if rel.datatype and rel.is_datatype and str(lit.datatype) != rel.datatype:
                    # the ontology's own datatype (xsd:integer, not the range name's xsd:decimal), when
                    # the value is in its lexical space; else the triple is left out, said
                    bad = [m for sev, _, m in check_literal(str(lit), rel.datatype) if sev == "error"]
                    if bad:
                        dropped.append({"sentence": sid, "triple": t, "reason": bad[0]})
                        continue
                    lit = Literal(str(lit), datatype=URIRef(rel.datatype))
                g.add((s, _prop(onto, rel), lit))
            else:
                o = entity_iri(base_iri, t["obj"])
                g.add((s, _prop(onto, rel), o))
                obj_type = t.get("objType") or rel.range
                if obj_type and (obj_type in onto.concepts or obj_type == rel.range) and obj_type not in onto.unions:
                    g.add((o, RDF.type, _class(onto, obj_type)))
            sub_type = t.get("subType") or rel.domain
            if sub_type and sub_type not in onto.unions:  # a union's member is not known; the domain entails the union
                g.add((s, RDF.type, _class(onto, sub_type)))
    return g, dropped
