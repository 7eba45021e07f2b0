"""Columns of web addresses as the IRI objects of an object property (``download_url`` -> ``dcat:downloadURL``).

A column whose every value is an absolute ``http``/``https`` IRI names resources on the web, and RDF
identifies a resource by its IRI (RDF 1.1 Concepts, 1.2): the value is the object itself, not a
description of it. Vocabularies model such links as object properties, often with no range or a
range no data describes (DCAT 3's ``dcat:downloadURL`` and ``dcat:accessURL``: range
``rdfs:Resource``; FOAF's ``foaf:homepage``: range ``foaf:Document``; ``schema:url``). Such a column
is mapped to the best-named such property usable on the records' class, with the Datatype cell
``IRI`` (the compiler writes an IRI term map); no entity of the range class is minted, since no
source describes one. A value that is not an absolute IRI (a bare code ``0042``) is never turned
into one: only columns whose values already are IRIs qualify.
"""
from __future__ import annotations

import re

from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits
from pipeline.mappers.offline.names import NameMatcher, reference_words

__all__ = ["is_web_iri_column", "iri_properties", "assign_iri_columns"]

#: An absolute http(s) IRI: scheme, authority, no character RFC 3987 excludes from an IRI.
_WEB_IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`/?#]+[^\s<>\"{}|\\^`]*$", re.I)

#: Ranges that restrict nothing (every resource is one).
_UNIVERSAL = {RDFS.Resource, OWL.Thing}


def is_web_iri_column(values: list[str]) -> bool:
    """True when ``values`` hold at least one non-empty value and every non-empty one is an absolute
    ``http``/``https`` IRI."""
    seen = [v.strip() for v in values if v.strip()]
    return bool(seen) and all(_WEB_IRI.match(v) for v in seen)


def iri_properties(ont: Ontology, cls: URIRef, object_props: list[URIRef],
                   described: set[URIRef]) -> list[URIRef]:
    """Object properties usable on ``cls`` whose objects a column of IRIs may name: no range, a universal
    range (``rdfs:Resource``, ``owl:Thing``), or only range classes no source describes (a source
    describing the range gives the relation through its key instead); SKOS concept ranges are left to
    the value maps."""
    out = []
    for p in object_props:
        if p not in ont.object_properties or domain_fits(ont, p, cls) <= 0:
            continue
        ranges = ont.ranges(p) - _UNIVERSAL
        if SKOS.Concept in ranges or any(c in ont.superclasses(d) for c in ranges for d in described):
            continue
        out.append(p)
    return out


def assign_iri_columns(info: SourceInfo, ont: Ontology, matcher: NameMatcher, object_props: list[URIRef],
                       described: set[URIRef]) -> None:
    """Assign each unassigned column of web IRIs of ``info`` to the best-named free object property of
    :func:`iri_properties` on the primary class (similarity at least :data:`.analysis.MIN_SCORE`).

    The assignment's property is an object property; :meth:`.rows.RowBuilder.datatype_rows` writes it
    with the Datatype ``IRI``.
    """
    if info.cls is None or info.cls in info.borrowed:
        return
    cands = iri_properties(ont, info.cls, object_props, described)
    if not cands:
        return
    taken = {(a.cls, a.prop) for a in info.assignments}
    assigned = {a.reference for a in info.assignments}
    skip = {*info.key, *info.fks, info.lang_col}
    for ref in info.refs:
        if ref in assigned or ref in skip or not is_web_iri_column(info.data.values(ref)):
            continue
        text = " ".join(reference_words(ref))
        scored = sorted(((matcher.score(text, p), str(p), p) for p in cands if (info.cls, p) not in taken),
                        reverse=True)
        if not scored or scored[0][0] < MIN_SCORE:
            continue
        score, _, p = scored[0]
        rng = sorted(ont.compact(r) for r in ont.ranges(p))
        info.assignments.append(Assignment(
            ref, p, info.cls, score, [f"{ref!r} ~ {ont.compact(p)} similarity {score:.2f} (lexical+embeddings)",
                                      f"every value of {ref!r} is an absolute http(s) IRI: the value identifies the "
                                      f"resource, written as an IRI object of the object property {ont.compact(p)} "
                                      f"(range {', '.join(rng) if rng else 'none'}, which no source describes)"]))
        taken.add((info.cls, p))
