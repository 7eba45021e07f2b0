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

A column of e-mail addresses or of global telephone numbers names a resource too, by an IRI of a
scheme of its own: the mailbox ``mailto:ana@example.org`` (RFC 6068), the line ``tel:+34911234567``
(RFC 3966). Vocabularies model them as such (FOAF's ``foaf:mbox``, "an Internet mailbox", and
``foaf:phone``, "specified using fully qualified tel: URI scheme", are object properties). Such a column
is mapped to a property whose name promises the form (:func:`.forms.named_form`) and whose values are
resources (an object property as above, or a property whose every range is a class), with the
Function Name ``mailto()`` / ``tel()`` and the Datatype ``IRI`` (:data:`IRI_FORMS`); every value must
convert (a local number lacks the context RFC 3966 needs, and is no IRI column).

An identifier column of an entity no source describes (``trips.service_id``: ``gtfs:service``, range
``gtfs:Service``, and no source of services) names that entity by its identifier: the object is the IRI
the table's convention makes of it (``{base}service/{service_id}``, :func:`assign_identifier_iris`).
"""
from __future__ import annotations

import re

from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS

from pipeline.fno import udfs
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits
from pipeline.mappers.offline.forms import named_form
from pipeline.mappers.offline.identity import id_like, name_words
from pipeline.mappers.offline.names import NameMatcher, reference_words, singular, words

__all__ = ["is_web_iri_column", "iri_properties", "assign_iri_columns", "assign_identifier_iris", "IRI_FORMS",
           "iri_form", "form_properties", "function_output", "named_iri_columns"]

#: An absolute http(s) IRI: scheme, authority, no character RFC 3987 excludes from an IRI.
_WEB_IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`/?#]+[^\s<>\"{}|\\^`]*$", re.I)

#: Ranges that restrict nothing (every resource is one).
_UNIVERSAL = {RDFS.Resource, OWL.Thing}


def is_web_iri_column(values: list[str]) -> bool:
    """True when ``values`` hold at least one non-empty value and every non-empty one is an absolute
    ``http``/``https`` IRI."""
    seen = [v.strip() for v in values if v.strip()]
    return bool(seen) and all(_WEB_IRI.match(v) for v in seen)


#: Forms of text values (:mod:`.forms`) that name a resource by an IRI of their own scheme -> the table function
#: that writes it (:mod:`pipeline.fno`: ``fn:mailto``, RFC 6068; ``fn:tel``, RFC 3966).
IRI_FORMS = {"e-mail": "mailto()", "phone": "tel()"}
_CONVERT = {"e-mail": udfs.mailto, "phone": udfs.tel}
#: What Function Output says of each function.
_OUTPUT = {"mailto()": "the address as its mailto: IRI (RFC 6068)",
           "tel()": "the number as its tel: IRI (RFC 3966), visual separators removed"}


def function_output(function: str | None) -> str | None:
    """The Function Output cell of a row calling ``function`` of :data:`IRI_FORMS` (what the function writes),
    else ``None``."""
    return _OUTPUT.get(function) if function else None


def iri_form(values: list[str]) -> str | None:
    """The form of :data:`IRI_FORMS` whose function writes every non-empty value of ``values`` as an IRI (at
    least one value), else ``None``: ``e-mail`` for addresses, ``phone`` for global telephone numbers."""
    seen = [v.strip() for v in values if v and v.strip()]
    return next((form for form, convert in _CONVERT.items() if seen and all(convert(v) for v in seen)), None)


def form_properties(ont: Ontology, cls: URIRef, props: list[URIRef], described: set[URIRef], form: str) -> list[URIRef]:
    """Properties usable on ``cls`` whose name promises ``form`` (:func:`.forms.named_form`: ``foaf:mbox``
    e-mail) and whose values are resources: an object property of :func:`iri_properties`, or a property of
    no OWL kind whose every range is a class no source describes (a datatype property's values are literals)."""
    out = []
    for p in props:
        if named_form(ont, p) != form or p in ont.datatype_properties or domain_fits(ont, p, cls) <= 0:
            continue
        if p in ont.object_properties:
            out += iri_properties(ont, cls, [p], described)
            continue
        ranges = ont.ranges(p) - _UNIVERSAL
        if ranges and all(r in ont.classes for r in ranges) and SKOS.Concept not in ranges \
                and not any(c in ont.superclasses(d) for c in ranges for d in described):
            out.append(p)
    return out


def named_iri_columns(info: SourceInfo, ont: Ontology, matcher: NameMatcher, refs: list[str],
                      object_props: list[URIRef], text_props: list[URIRef], described: set[URIRef]) -> set[str]:
    """The columns of ``refs`` that a property of resources names word for word, to be written as IRIs
    (:func:`assign_iri_columns`) rather than matched with a text property.

    Such a column's every value has a form of :data:`IRI_FORMS` (:func:`iri_form`), a property of
    :func:`form_properties` on the records' class is its name word for word
    (:meth:`.names.NameMatcher.named_exactly`: ``phone`` ~ ``foaf:phone``) and none of ``text_props`` (the
    datatype properties the column could take) is: a name that matches by itself says which property,
    whatever other property a synonym reaches (``schema:telephone``); ``email`` beside ``schema:email``
    keeps the text."""
    if info.cls is None or info.cls in info.borrowed:
        return set()
    out = set()
    for ref in refs:
        form = iri_form(info.data.values(ref))
        if form is None or any(matcher.named_exactly(ref, info.stem, p) for p in text_props):
            continue
        if any(matcher.named_exactly(ref, info.stem, p)
               for p in form_properties(ont, info.cls, object_props, described, form)):
            out.add(ref)
    return out


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
    taken = {(a.cls, a.prop) for a in info.assignments}
    assigned = {a.reference for a in info.assignments}
    skip = {*info.key, *info.fks, info.lang_col}
    for ref in info.refs:
        if ref in assigned or ref in skip:
            continue
        form = iri_form(info.data.values(ref))
        if form is not None:
            _assign_form(info, ont, matcher, ref, form_properties(ont, info.cls, object_props, described, form),
                         form, taken)
            continue
        if not is_web_iri_column(info.data.values(ref)):
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


def _assign_form(info: SourceInfo, ont: Ontology, matcher: NameMatcher, ref: str, cands: list[URIRef], form: str,
                 taken: set) -> None:
    """Assign ``ref``, a column of ``form`` (:func:`iri_form`), to the best-named free property of ``cands``. The
    property's name promises the form and every value has it: that is the evidence (basis ``values``, at least
    the elimination's confidence, 0.5), a name match (``phone`` ~ ``foaf:phone``) adds to it."""
    scored = sorted(((matcher.score(" ".join(reference_words(ref)), p), str(p), p) for p in cands
                     if (info.cls, p) not in taken), reverse=True)
    if not scored:
        return
    score, _, p = scored[0]
    function = IRI_FORMS[form]
    by_name = score >= MIN_SCORE
    info.assignments.append(Assignment(
        ref, p, info.cls, score if by_name else max(score, _FORM_SCORE),
        [f"{ref!r} ~ {ont.compact(p)} similarity {score:.2f} (lexical+embeddings)",
         f"every value of {ref!r} is {'an e-mail address' if form == 'e-mail' else 'a global telephone number'} and "
         f"the name of {ont.compact(p)} promises {'e-mail addresses' if form == 'e-mail' else 'telephone numbers'}: "
         f"each value written as its IRI by {function}, {_OUTPUT[function]}"],
        "name" if by_name else "values", function=function))
    taken.add((info.cls, p))


#: Confidence of a column paired with a property by its values' form alone (the elimination's:
#: :data:`.elimination.ELIMINATION_SCORE`).
_FORM_SCORE = 0.5


def _own_identifier(ref: str, info: SourceInfo, ont: Ontology) -> bool:
    """``ref`` is named as an identifier of the records' own entity: its words other than identifier words
    (:func:`.identity.name_words`: ``event`` of ``event_id``) are, singular, the words of the file stem
    (``events``) or of the records' class's local name or a label (``s:Event``)."""
    own = {singular(w) for w in name_words(ref)}
    if not own:
        return False
    names = [info.stem] + ([re.split(r"[#/:]", str(info.cls))[-1], *ont.labels(info.cls)] if info.cls else [])
    return any(own == {singular(w) for w in words(n, expand=False)} for n in names)


#: Least name match of an identifier column's other words with an object property (:data:`.classes.SUBCLASS_EVIDENCE`:
#: a name match, ``service`` ~ ``gtfs:service``).
IDENTIFIER_RELATION = 0.7


def assign_identifier_iris(info: SourceInfo, ont: Ontology, matcher: NameMatcher, object_props: list[URIRef],
                           described: set[URIRef]) -> None:
    """Assign each free identifier column of ``info`` that names a relation to an entity no source describes.

    A column named as an identifier (``service_id``: :func:`.identity.id_like`) holds the identifier of an
    entity; when its other words name an object property usable on the records' class at a name match's
    level (:data:`IDENTIFIER_RELATION`: ``service`` ~ ``gtfs:service``) whose range is one class of the
    vocabularies that no source describes (with no subclass a source describes: else the column would be
    a foreign key into that source, found by its values), the record is related to that entity, and the
    entity is identified by the column's value. RDF names an entity by an IRI (RDF 1.1 Concepts 1.2), so
    the object is the IRI the table's convention makes of the identifier (``{base}service/{service_id}``,
    the template a source of services would give its subjects), written as an IRI object (Datatype
    ``IRI``). No type triple is written: ``rdfs:range`` already entails it (rdfs3), and no source says
    anything else about the entity. The record's own key, its foreign keys, its language column and columns
    already taken are left alone; a code name (``X17``) names nothing. So is an identifier named after the
    records' own entity (``event_id`` in ``events.csv`` of ``s:Event``, :func:`_own_identifier`), a key or
    not: it identifies the record, no other entity. A range whose members the vocabularies declare (an
    enumeration, :meth:`pipeline.ontology.Ontology.members`) takes no minted IRI: its members are given,
    and a column naming them is mapped onto them (:meth:`.rows.RowBuilder.skos_rows`).
    """
    if info.cls is None or info.cls in info.borrowed or info.link:
        return
    taken = {(a.cls, a.prop) for a in info.assignments}
    assigned = {a.reference for a in info.assignments}
    skip = {*info.key, *info.fks, info.lang_col, *(r for k in info.keys.values() for r in k)}
    cands = [p for p in object_props if p in ont.object_properties or ont.ranges(p) & ont.classes]
    for ref in info.refs:
        if ref in assigned or ref in skip or not id_like(ref) or is_web_iri_column(info.data.values(ref)) \
                or _own_identifier(ref, info, ont):
            continue
        text = " ".join(name_words(ref))
        if not text:
            continue
        scored = sorted(((matcher.score(text, p), str(p), p) for p in cands
                         if (info.cls, p) not in taken and domain_fits(ont, p, info.cls) > 0), reverse=True)
        if not scored or scored[0][0] < IDENTIFIER_RELATION:
            continue
        score, _, p = scored[0]
        ranges = {r for r in ont.ranges(p) if r in ont.classes} - _UNIVERSAL
        if len(ranges) != 1:
            continue
        rng = next(iter(ranges))
        if rng == SKOS.Concept or str(rng).startswith(str(SKOS)) or rng in ont.enumerated_classes \
                or any(rng in ont.superclasses(d) for d in described):
            continue
        info.assignments.append(Assignment(
            ref, p, info.cls, score, [f"identifier column {ref!r} ~ {ont.compact(p)} similarity {score:.2f} "
                                      "(lexical+embeddings)",
                                      f"{ont.compact(p)} ranges over {ont.compact(rng)}, which no source describes: "
                                      f"the value identifies a {ont.compact(rng)}, written as its IRI (no type "
                                      "triple: rdfs:range entails it)"],
            "identifier", iri_of=rng))
        taken.add((info.cls, p))
