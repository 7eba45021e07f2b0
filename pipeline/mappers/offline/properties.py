"""Property matching of the offline mapper (step 5 of :mod:`.analysis`).

References are matched to datatype properties of the source's primary class (Hungarian
algorithm); leftover references open secondary entities in the same record (a property of another
class, an identifier column naming a class no source describes, a text column of a class an object
property links to the record). Keys are in :mod:`.keys`, the primary class in :mod:`.classes`.
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS, XSD
from scipy.optimize import linear_sum_assignment

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, ForeignKey, SourceInfo
from pipeline.mappers.offline.fit import domain_evidence, domain_fits, foreign_domain, range_kinds, value_fit, value_kind
from pipeline.mappers.offline.language import language_members, language_variants, takes_tagged_string
from pipeline.mappers.offline.iris import named_iri_columns
from pipeline.mappers.offline.identity import (ID_WORDS, id_like, identifier_properties, name_like, name_words,
                                                names_another_scheme)
from pipeline.mappers.offline.names import NameMatcher, is_code_name, reference_words, singular, words
from pipeline.mappers.offline.occurrences import occurrence_entities
from pipeline.mappers.offline.nested import (member_id, one_join_per_object, ontology_identifier, parent, partial_key,
                                             named_identifier, sibling_members, specialise_objects,
                                             within_owner)
from pipeline.mappers.offline.profile import distinct_records, included, is_key, is_numeric

__all__ = ["assign_properties", "identifier_entities", "specialise_properties", "SECONDARY_SCORE", "LINKED_SCORE"]

#: Least similarity for a reference to open an entity of another class in the same record.
SECONDARY_SCORE = 0.7
#: Least name similarity of a flat column with another class's property for the column to be that entity's value
#: rather than a weak match of the record's own class (:func:`_names_other_entity`): the property's name word for word.
EXACT_SCORE = 0.9
#: Least name similarity of a column to a class for it to open an entity of that class
#: when several linked classes compete (one linked class needs no name evidence).
LINKED_SCORE = 0.55

#: Classes never opened as an entity of a record.
_GENERIC = {OWL.Thing, RDFS.Resource}


def _classes_named(matcher: NameMatcher, classes: Iterable[URIRef], name: list[str]) -> list[URIRef]:
    """Classes whose (first) name is exactly the words ``name``, sorted."""
    return sorted(c for c in classes if name and (n := matcher.names(c)) and n[0].split() == name)


def _is_identifier_property(matcher: NameMatcher, prop: URIRef) -> bool:
    """A property named like an identifier (``gtfs:id``, ``ex:code``)."""
    names = matcher.names(prop)
    return bool(set(words(names[0] if names else "")) & ID_WORDS)


def _is_name_property(matcher: NameMatcher, prop: URIRef) -> bool:
    """A property named as a name, title or label (``authorName``, ``dc:title``) and not as an identifier."""
    w = set(words(" ".join(matcher.names(prop)), expand=False))
    return bool(w & {"name", "title", "label"}) and not w & ID_WORDS


def _score(matcher: NameMatcher, ref: str, prop: URIRef, context: list[str]) -> float:
    """Name similarity of a reference to a property; with ``context`` (the words of the file stem, for the
    records' own entity) also read in that context, and without the entity's own words (``agency_name``
    in ``agency.csv`` is the agency's name: :func:`.names.own_words`)."""
    own = " ".join(reference_words(ref))
    best = max(matcher.score(own, prop), matcher.score(" ".join(context + reference_words(ref, 0)), prop) - 0.05)
    if context:
        entity = {singular(w) for w in context}
        rest = [w for w in reference_words(ref) if singular(w) not in entity]
        if rest and len(rest) < len(reference_words(ref)):
            best = max(best, matcher.score(" ".join(rest), prop))
    return best


def _joint_assignment(scores: np.ndarray, exact: np.ndarray, literal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The one-to-one assignment of references (rows) to properties (columns), lexicographic: the most pairs
    whose reference names the property word for word (``exact``, :meth:`.names.NameMatcher.named_exactly`),
    of them the most spelled as the property's name (``literal``, :meth:`.names.NameMatcher.named_literally`,
    no translation or abbreviation read), then the highest sum of ``scores``; only pairs of at least
    ``MIN_SCORE`` count as exact. A word-for-word name is stronger evidence than any partial one
    (``prev_symbol`` ~ ``bl:symbol`` 0.75 says "a previous symbol", not "the symbol"), so ``symbol``
    keeps ``bl:symbol`` (0.95) rather than yield it for the sum of two weaker pairs (``symbol`` ~
    ``bl:has_chemical_formula`` 0.59 besides). Of two columns ``name`` and ``nombre``, both naming ``ex:name``
    and ``ex:nombre`` (labelled "name"@en, "nombre"@es) once Spanish is read, each takes the one it spells.

    ``scores``: (references x properties) floats in [0, 1.2]; ``exact``, ``literal``: booleans of that shape.
    Returns ``scipy.optimize.linear_sum_assignment``'s row and column indices. When the plain maximum sum
    already has as many exact and literal pairs, it is returned as is (its choice among equal sums kept).
    """
    exact = exact & (scores >= MIN_SCORE)
    literal = literal & exact
    plain = linear_sum_assignment(-scores)

    def counts(rows: np.ndarray, cols: np.ndarray) -> tuple[int, int]:
        return int(exact[rows, cols].sum()), int(literal[rows, cols].sum())

    if not exact.any():
        return plain
    # each tier outweighs everything below it: a literal pair more than any sum of scores, an exact pair more
    # than every literal pair and score together
    step = float(scores.sum()) + 1.0
    tiered = scores + literal * step + exact * step * (min(scores.shape) + 1)
    best = linear_sum_assignment(-tiered)
    return plain if counts(*best) == counts(*plain) else best


def assign_properties(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                      datatype_props: list[URIRef], described: dict[URIRef, SourceInfo] | None = None,
                      object_props: list[URIRef] = ()) -> None:
    """Match references to datatype properties (primary class first, then secondary classes).

    ``described``: class -> the source whose primary class it is. ``object_props``: the relations that
    may make the members of a repeating part one entity per occurrence (:mod:`.occurrences`). A reference that would open a
    second entity of a class another source describes, and whose values all occur in a unique
    column of that source, refers to those entities: it becomes a foreign key (one entity per
    key, never a second copy of the referenced entity)."""
    if info.cls is None:
        return
    # a code name (X17) is no name evidence: such columns are left to .elimination (values, keys)
    context = words(info.stem)
    fits = {p: domain_fits(ontology, p, info.cls) for p in datatype_props}
    # members and properties already mapped by what the data states (a JSON-LD context, .jsonld) stay so
    stated = {a.reference for a in info.assignments}
    taken = {a.prop for a in info.assignments if a.cls == info.cls}
    mine = [p for p in datatype_props if fits[p] > 0 and p not in taken]
    # the records' language column tags the text columns; it is also the value of a property of the
    # class whose range is xsd:language (dcterms:language), which states the language itself
    speaks = any(XSD.language in ontology.ranges(p) for p in mine)
    candidates = [r for r in info.refs if r not in info.fks and (r != info.lang_col or speaks)
                  and not is_code_name(r) and r not in stated]
    # a column of e-mail addresses or telephone numbers that a property of resources names word for word
    # (phone ~ foaf:phone) is written as IRIs (.iris), not matched with a text property a synonym reaches
    as_iris = named_iri_columns(info, ontology, matcher, candidates, list(object_props), mine, set(described or {}))
    candidates = [r for r in candidates if r not in as_iris]
    # a property of another vocabulary whose domain is one of its own classes (geo:lat on a gtfs:Stop) fits
    # a flat column of the record; a nested object (address.street) is rather an entity of that class
    foreign = {p for p in mine if foreign_domain(ontology, p, info.cls)}
    key = info.key[0] if len(info.key) == 1 else None
    # a nested reference named for another class's property (cat:supplier/cat:name ~ supplierName)
    # is that entity's value, not a weaker match of the record's own class (productName)
    elsewhere = [p for p in datatype_props if (p not in mine or p in foreign) and ontology.domains(p)]
    mine_nested = [p for p in mine if p not in foreign]
    refs = [r for r in candidates if r == key or not _names_other_entity(matcher, ontology, info, r, mine_nested,
                                                                        elsewhere)]
    if refs and mine:
        # the record key is the entity's identifier: it fits an identifier property best
        # (stop_id, not zone_id, is the gtfs:id of a stop)
        id_props = {p for p in mine if _is_identifier_property(matcher, p)}
        # an identifier of a named scheme (ORCID) is no match for the data set's own key (author_id)
        for p in identifier_properties(ontology, matcher, info.cls, mine):
            named = (ontology.labels(p) or [ontology.compact(p)])[0]
            for r in refs:
                if names_another_scheme(matcher, r, p, info.cls, info.stem):
                    info.barred[(r, p)] = (f"{r!r} is named as an identifier, the data's own keys, and "
                                           f"{ontology.compact(p)} ({named!r}) names a scheme of identifiers "
                                           "the column's name does not")
        # nor is a name: an identifier column (author_id) holds keys, not what people call the entity
        for p in mine:
            if _is_name_property(matcher, p):
                for r in refs:
                    if id_like(r) and not name_like(r) and not is_code_name(r):
                        info.barred[(r, p)] = (f"{r!r} is named as an identifier, which holds keys, and "
                                               f"{ontology.compact(p)} is a name, what people call the entity")
        for p in foreign:
            for r in refs:
                if parent(r):
                    info.barred[(r, p)] = (f"{r!r} is a member of a nested object, rather an entity of "
                                           f"{ontology.compact(p)}'s own domain than a value of the record's class")
        barred = set(info.barred)

        def pair(r: str, p: URIRef) -> float:
            base = ((_score(matcher, r, p, context) + (0.2 if r == key and p in id_props else 0.0))
                    * value_fit(ontology, p, info.data.values(r)) * (0.0 if (r, p) in barred else 1.0))
            # a property usable on any class (no domain: RDFS 1.1 section 4.1) fits the class less than its
            # own ones, a prior among names that are merely similar; a column named by the property's name word
            # for word (`name` ~ foaf:name) takes it at full fit over a property of the class whose name adds a
            # word the column does not say (foaf:lastName). The prior still decides whether the column is
            # mapped at all: the exact name says which property, not that the column is the class's value
            if base * fits[p] >= MIN_SCORE and not ontology.domains(p) and matcher.named_exactly(r, info.stem, p):
                return base
            return base * fits[p]

        m = np.array([[pair(r, p) for p in mine] for r in refs])
        # the exact name says which property, not that the column is the class's value: a property whose domain
        # is another vocabulary's class (foreign) keeps its weak prior and no exact-name priority
        rows, cols = _joint_assignment(
            m, np.array([[p not in foreign and matcher.named_exactly(r, info.stem, p) for p in mine] for r in refs],
                        dtype=bool),
            np.array([[matcher.named_literally(r, info.stem, p) for p in mine] for r in refs], dtype=bool))
        for i, j in zip(rows, cols):
            if m[i, j] >= MIN_SCORE:
                info.assignments.append(Assignment(refs[i], mine[j], info.cls, float(m[i, j]),
                                                   [f"{refs[i]!r} ~ {ontology.compact(mine[j])} similarity "
                                                    f"{m[i, j]:.2f} ({matcher.mode}), "
                                                    f"{domain_evidence(ontology, mine[j], info.cls)}"]))
    language_variant_members(info, ontology, candidates)
    done = {a.reference for a in info.assignments}
    used = {a.prop for a in info.assignments}
    # best pair first: of two references naming one property (venue.id, venue.name ~ venueName) the
    # one that names it best takes it, whatever the order of the columns
    pairs = sorted(((_score(matcher, r, p, []) * value_fit(ontology, p, info.data.values(r)), i, str(p), r, p)
                    for i, r in enumerate(candidates) if r not in done
                    for p in datatype_props if p not in used and ontology.domains(p)),
                   key=lambda x: (-x[0], x[1], x[2]))
    for score, _, _, r, p in pairs:
        if r in done or p in used:
            continue
        done.add(r)  # its best free property decides, as a name decides once
        if score >= SECONDARY_SCORE:
            cls = _domain_named_by(ontology, matcher, p, r)
            if cls is None:
                continue
            owner = (described or {}).get(cls)
            if owner is not None and owner is not info:
                col = _referenced_column(info.data.values(r), owner)
                if col is not None:
                    info.fks[r] = ForeignKey(r, owner.name, col, 1.0)
                # else: the entities of that class are the ones another source describes; values that
                # occur in none of its unique columns cannot be tied to them, and an entity keyed by
                # this value would be a second, unjoinable copy of the class (one entity per key)
                continue
            used.add(p)
            info.assignments.append(Assignment(r, p, cls, score, [
                f"{r!r} ~ {ontology.compact(p)} similarity {score:.2f}; its domain "
                f"{ontology.compact(cls)} is a second entity in the same record"]))
    one_join_per_object(info, described or {})
    specialise_objects(info, ontology)
    occurrence_entities(info, ontology, matcher, datatype_props, list(object_props), _score,
                        frozenset(c for c, o in (described or {}).items() if o is not info))
    sibling_members(info, ontology, matcher, datatype_props, candidates, used, _score)
    _linked_entities(info, ontology, matcher, datatype_props, set(described or {}) - {info.cls})
    specialise_properties(info, ontology, matcher, datatype_props)
    # in the source's order of references, not the assignments' (score) order: a key built of them must not
    # change its IRIs when a similarity moves by a rounding error
    where = {r: i for i, r in enumerate(info.refs)}
    own_of = {c: tuple(sorted((x.reference for x in info.assignments if x.cls == c), key=lambda r: where.get(r, len(where))))
              for c in {a.cls for a in info.assignments}}
    others = {r for c, refs in own_of.items() if c != info.cls for r in refs}
    if info.key and set(info.key) <= others and own_of.get(info.cls):
        own = own_of[info.cls]  # the record key names another entity: the primary one has its own
        info.key = tuple(r for r in own if id_like(r)) or tuple(r for r in own if name_like(r)) or own
        info.key_evidence = f"{list(info.key)}: the record key belongs to another entity of the record"
    for cls, own in own_of.items():
        if cls == info.cls:
            info.keys[cls] = info.key
        else:  # a second entity in a record is identified by its own values
            info.keys[cls] = (ontology_identifier(info, ontology, matcher, cls)
                              or named_identifier(info, own) or member_id(info, own, matcher.names(cls))
                              or partial_key(info, ontology, matcher, cls, own) or within_owner(info, own))
    if info.cls not in info.keys:
        info.keys[info.cls] = info.key


def specialise_properties(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                          datatype_props: list[URIRef]) -> None:
    """Give a name-matched column the sub-property its name names as well as the property it took.

    A column named word for word by a property and by one of its sub-properties (``description`` ~
    ``schema:description`` and ``sd:description``, ``rdfs:subPropertyOf schema:description``, domain
    ``sd:Software``) is a value of both: by RDFS (RDF 1.1 Semantics, rdfs7) a statement of the
    sub-property entails the super-property's, so the sub-property says what the other says and what
    its own vocabulary adds, and a reader of either vocabulary finds the value. The sub-property is
    taken when its name is the column's word for word (:meth:`.names.NameMatcher.named_exactly`), its
    domain fits the entity's class at least as well as the property taken (:func:`.fit.domain_fits`),
    its range admits the values as well (:func:`.fit.value_fit`) and no other column of that entity took
    it; of several, the most specific (one that is a sub-property of the others), then the best named.
    Only rows of a name match (basis ``name``) move: what the data states (a JSON-LD context) stays."""
    taken = {(a.cls, a.prop) for a in info.assignments}
    for a in info.assignments:
        if a.basis != "name" or a.datatype is not None or a.iri_of is not None:
            continue
        values = info.data.values(a.reference)
        fit, vfit = domain_fits(ontology, a.prop, a.cls), value_fit(ontology, a.prop, values)
        subs = [q for q in datatype_props if a.prop in ontology.superproperties(q) - {q}
                and q not in ontology.superproperties(a.prop)
                and (a.cls, q) not in taken and domain_fits(ontology, q, a.cls) >= fit > 0
                and value_fit(ontology, q, values) >= vfit and matcher.named_exactly(a.reference, info.stem, q)]
        if not subs:
            continue
        # the most specific first (a sub-property of every other candidate), then the best named
        q = max(subs, key=lambda q: (len(ontology.superproperties(q) & set(subs)),
                                     _score(matcher, a.reference, q, []), str(q)))
        taken.discard((a.cls, a.prop))
        taken.add((a.cls, q))
        a.evidence.append(f"{a.reference!r} names {ontology.compact(q)} word for word too, a sub-property of "
                          f"{ontology.compact(a.prop)} ({domain_evidence(ontology, q, a.cls)}): its statement "
                          f"entails {ontology.compact(a.prop)}'s (RDFS rdfs7) and says more")
        a.prop = q


def language_variant_members(info: SourceInfo, ontology: Ontology, candidates: list[str]) -> None:
    """Give the variants of a text in other languages the property one of them took: the other members of
    a language map (``name.en`` ~ ``ex:name``: ``name.de`` and ``name.fr`` too,
    :func:`.language.language_members`) and the columns whose names differ by a language code alone
    (``label_en`` ~ ``ex:label``: ``label_fr`` too, :func:`.language.language_variants`).

    They hold one text in several languages, and a property takes one value per language
    (``rdf:langString``, RDF 1.1 Concepts 3.3; the member name is its tag, JSON-LD 1.1 section 4.2.4; a
    SKOS thesaurus writes one ``skos:prefLabel`` per language, SKOS Reference section 5.4): the one-to-one
    matching of columns to properties would keep one language and drop the others. Only for a property
    that admits a tagged string (:func:`.language.takes_tagged_string`: range ``rdf:langString``,
    ``rdfs:Literal`` or none; not ``xsd:string``, whose values carry no tag), and only a variant no
    property took yet whose values are text (numbers have no language: ``it_budget`` beside
    ``hr_budget`` are departments)."""
    done = {a.reference for a in info.assignments}
    for a in list(info.assignments):
        if not takes_tagged_string(ontology, a.prop):
            continue
        members = language_members(info.refs, a.reference)
        variants = {} if members else language_variants(a.reference, info.refs)
        for r in members or variants:
            # a text has a language; numbers (it_budget beside hr_budget: departments) have none
            if r not in done and r in candidates and not is_numeric(info.data.values(r)):
                done.add(r)
                why = (f"a member of the language map {parent(r)!r}, whose {a.reference!r}" if members else
                       f"{a.reference!r} in another language (their names differ by a language code alone), and "
                       f"{a.reference!r}")
                info.assignments.append(Assignment(r, a.prop, a.cls, a.score, [
                    f"{r!r}: {why} took {ontology.compact(a.prop)} (similarity {a.score:.2f}); one value per "
                    f"language"]))


def _names_other_entity(matcher: NameMatcher, ontology: Ontology, info: SourceInfo, ref: str,
                         mine: list[URIRef], elsewhere: list[URIRef]) -> bool:
    """A nested reference (``venue.name``, ``cat:supplier/cat:name``) that a property of another class
    names better than any property of the record's class, with at least :data:`SECONDARY_SCORE`.

    Its parent object is another entity of the record (the supplier of a product); the record's class
    takes it only when its own property is the better name. A flat column is that other entity's value
    only when it is that property's name word for word (:data:`EXACT_SCORE`: ``streetAddress`` ~
    ``schema:streetAddress``, domain ``PostalAddress``) and no property of the record's class names it
    (below :data:`SECONDARY_SCORE`: ``has address`` 0.55): a flat record is one object, so a weaker
    match on the record's own class is left to the Hungarian assignment otherwise."""
    if not elsewhere:
        return False
    nested = len([s for s in re.split(r"[/.]", ref) if s and s not in ("$", "*")]) >= 2
    values = info.data.values(ref)
    theirs = max(_score(matcher, ref, p, []) * value_fit(ontology, p, values) for p in elsewhere)
    ours = max((_score(matcher, ref, p, []) * value_fit(ontology, p, values) for p in mine), default=0.0)
    if not nested:
        return theirs >= EXACT_SCORE and ours < SECONDARY_SCORE
    return theirs >= SECONDARY_SCORE and theirs > ours


def _referenced_column(values: list[str], owner: SourceInfo) -> str | None:
    """The owner's key, else another unique column of the owner, holding every value of ``values``."""
    records = distinct_records(owner.data.records)
    cands = list(owner.key[:1]) if len(owner.key) == 1 else []
    cands += [c for c in owner.refs if c not in cands]
    for c in cands:
        if included(values, owner.data.values(c)) == 1.0 and is_key(records, (c,)):
            return c
    return None


def _domain_named_by(ontology: Ontology, matcher: NameMatcher, prop: URIRef, ref: str) -> URIRef | None:
    """The class of a second entity read at ``ref`` through ``prop``: its single domain class, or, of
    a union domain, the class (or a subclass of one) that the reference names (``shape_id`` ->
    Shape; ``stop_id`` -> Stop, a subclass of the domain's Location); ``None`` when none is named."""
    doms = sorted(ontology.domains(prop))
    if len(doms) == 1:
        return doms[0]
    named = _classes_named(matcher, (c for c in ontology.classes if ontology.superclasses(c) & set(doms)),
                           name_words(ref))
    return named[0] if len(named) == 1 else None


def identifier_entities(infos: list[SourceInfo], ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
                        datatype_props: list[URIRef]) -> None:
    """Open an entity for an identifier column that names a class no source describes.

    ``shape_id`` in ``shapes.csv`` (class ShapePoint) names ``Shape``; ``service_id`` in
    ``calendar.csv`` (CalendarRule) names ``Service``. When no source has that class as its
    primary class (then the column would be a foreign key, which the relation rows handle) and
    an identifier-named datatype property (``gtfs:id``) has the class in its domain, the column
    becomes that property of an entity of the class keyed by the column; the same-record relation
    rows then link it to the record's other entities. Run after :func:`assign_properties`.
    """
    primary = {i.cls for i in infos if i.cls is not None}
    id_props = [p for p in datatype_props if _is_identifier_property(matcher, p)]
    for info in infos:
        if info.cls is None or info.link:
            continue
        done = {a.reference for a in info.assignments}
        for r in info.refs:
            if r in done or r in info.fks or not id_like(r):
                continue
            named = _classes_named(matcher, classes, name_words(r))
            if len(named) != 1 or named[0] in primary or named[0] in info.keys:
                continue
            cls = named[0]
            props = sorted((p for p in id_props if domain_fits(ontology, p, cls) == 1.0), key=str)
            if not props:
                continue
            info.assignments.append(Assignment(r, props[0], cls, 0.8, [
                f"identifier column {r!r} names class {ontology.compact(cls)}, which no source describes",
                f"{ontology.compact(props[0])} is an identifier property whose domain covers {ontology.compact(cls)}"],
                "identifier"))
            info.keys[cls] = (r,)
            done.add(r)


def _linked_entities(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                     datatype_props: list[URIRef], elsewhere: set[URIRef] = frozenset()) -> None:
    """Open entities of classes linked to the record's classes from leftover text columns.

    A column left unassigned whose values are text (words: some value has a letter; not numbers in
    any notation such as a decimal comma ``9,99``, dates, years with a qualifier such as ``c. 1660``
    or codes of digits, as :func:`.fit.value_kind` reads them; not identifiers) is an
    entity of a class that an object property links (domain/range, subclass closure) to a
    class already in the record: the only such class, or the one its name resembles most
    (at least :data:`LINKED_SCORE`). Its value fills that class's best name-like property: one named as a
    name, title or label, or one the column's name matches (:data:`MIN_SCORE`); with neither, no entity.
    While the record's own class has a free text property (the value could be of the record's own
    entity), the column's name must fit the other entity (the class, the relation or the property it
    fills) better than it fits any such property: a name that says no more of another entity opens none.
    Classes in ``elsewhere`` (another source describes their entities) are not opened here: a text
    value of this record is no key of those entities, and keying one by it would mint a copy.
    An attribute of an element mapped as a value (``height/@unit``) qualifies that value (its unit,
    currency, scheme) and opens no entity. Columns whose names fit a free property best go first
    (``artist/name`` ~ agent name before ``title/@type``), not in column order.
    """
    done = {a.reference for a in info.assignments}
    present: set[URIRef] = {a.cls for a in info.assignments} | ({info.cls} if info.cls is not None else set())
    used = {a.prop for a in info.assignments}
    oprops = sorted(p for p in ontology.object_properties if ontology.domains(p) and ontology.ranges(p))
    free = [p for p in datatype_props if p not in used]
    order = {r: -max((_score(matcher, r, p, []) for p in free), default=0.0) for r in info.refs
             if r not in done and r not in info.fks}
    for r in sorted(order, key=order.get):
        values = info.data.values(r)
        # a code name gives no sign of another entity
        if r in done or r in info.fks or r == info.lang_col or is_code_name(r) or id_like(r) \
                or is_numeric(values) or not any(v.strip() for v in values) \
                or not any(ch.isalpha() for v in values for ch in v) or value_kind(values) != "text" \
                or ("/@" in r and r.rsplit("/@", 1)[0] in done):
            continue
        linked: dict[URIRef, URIRef] = {}
        for p in oprops:
            for c in sorted(present):
                for dom, rng in ((ontology.domains(p), ontology.ranges(p)), (ontology.ranges(p), ontology.domains(p))):
                    if rng & ontology.superclasses(c):
                        for k in sorted(dom):
                            if k in ontology.classes and k not in present and k not in _GENERIC \
                                    and k not in elsewhere \
                                    and not str(k).startswith(str(SKOS)):
                                linked.setdefault(k, p)
        if not linked:
            continue
        text = " ".join(reference_words(r))
        scored = sorted(((matcher.score(text, k), str(k), k) for k in linked), reverse=True)
        sim, _, cls = scored[0]
        if len(linked) > 1 and sim < LINKED_SCORE:
            continue
        props = [p for p in datatype_props if p not in used and domain_fits(ontology, p, cls) == 1.0]
        # the text names the entity, so it fills a property that is a name (its names say name, title or
        # label) or one the column's own name matches; a word merely spelled like "name" (foaf:age, 0.50)
        # is neither, and asserting the text as its value states something the data never said
        cands = sorted(((max(_score(matcher, r, p, []), matcher.score("name", p) if _is_name_property(matcher, p)
                             else 0.0) * value_fit(ontology, p, values), str(p), p) for p in props), reverse=True)
        if not cands or cands[0][0] < MIN_SCORE:
            continue
        score, _, p = cands[0]
        # a column of the record is first an attribute of the record's own entity; a second entity is one more
        # claim, which the column's name must make: it must fit the class, the relation or the property it would
        # fill better than it fits any free text property of the record's own class (where every property
        # assignment sends a column: to the best of its names). `maker` ~ m:createdBy 0.39 against the artwork's
        # m:title 0.23 names the linked m:Artist; Zweckbestimmung, the purpose of a budget line, ~ ex:ministryName
        # 0.22, ex:ofMinistry 0.20, ex:Ministry 0.15 against the budget line's ex:section 0.29 names no ministry
        # (opened, every purpose would be one): the column is left to the record's own properties (elimination,
        # joint assignment) or unmapped with its candidates. A record class with no free text property has no
        # place for the value (Student in BLINKG 1C's student_sport.csv, whose ex:Sport has its name: the student is
        # the linked ex:Person)
        named = max(sim, matcher.score(text, linked[cls]), _score(matcher, r, p, []))
        own = [_score(matcher, r, q, []) for q in datatype_props if q not in used
               and domain_fits(ontology, q, info.cls) == 1.0 and "text" in range_kinds(ontology, q)] \
            if info.cls is not None else []
        if own and named <= max(own):
            continue
        used.add(p)
        present.add(cls)
        info.assignments.append(Assignment(r, p, cls, score, [
            f"{r!r} holds text values and {ontology.compact(linked[cls])} links {ontology.compact(cls)} to the "
            f"record's entities" + ("" if len(linked) == 1 else f"; name similarity {sim:.2f} to "
                                    f"{ontology.compact(cls)}"),
            f"{ontology.compact(p)} is the name-like property of {ontology.compact(cls)} ({score:.2f})"], "linked"))
