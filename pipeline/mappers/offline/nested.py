"""Entities in a record's nested objects (JSON members, XML child elements) for the offline mapper.

:mod:`.properties` opens a second entity of a record from a nested reference that names a property of
another class (``address.street`` -> a ``PostalAddress``). This module holds what follows from the
object the references lie in: its other members (:func:`sibling_members`), one join per referenced
object (:func:`one_join_per_object`) and the entity's key (:func:`ontology_identifier`,
:func:`member_id`, :func:`within_owner`).
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from rdflib import URIRef

from pipeline.compile.parts import (POSITION, encloses, every_occurrence_holds, part_separator, parts_of,
                                    repeating_part)
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits, range_kinds, value_fit, value_kind
from pipeline.mappers.offline.identity import designation_like, id_like, identifier_properties, iri_like
from pipeline.mappers.offline.names import NameMatcher, is_code_name
from pipeline.mappers.offline.skos import match_value_map

__all__ = ["parent", "one_join_per_object", "specialise_objects", "sibling_members", "ontology_identifier", "partial_key",
           "within_owner", "follow_owner_key", "member_id", "named_identifier", "identifies",
           "held_by_every_occurrence",
           "foreign_key_owners"]


def parent(ref: str) -> str:
    """The object a nested reference lies in (``address`` for ``address.city``; ``""`` for a flat one)."""
    return re.split(r"[/.](?=[^/.]*$)", ref)[0] if re.search(r"[/.]", ref) else ""


def one_join_per_object(info: SourceInfo, described: dict[URIRef, SourceInfo]) -> None:
    """Keep one foreign key per nested object and referenced source: the one on the target's key.

    The members of one object describe one referenced entity (``uni:course/@code``,
    ``uni:course/uni:title``, ``uni:course/@credits`` of a department all name one course); a join
    per member would repeat the relation row, and a join on a title or a number links every entity
    that happens to share the value. The join on the target's key (its identity) stays, else the
    first one found; the other members go back to the columns left to match."""
    owners = {o.name: o for o in described.values()}
    groups: dict[tuple[str, str], list[str]] = {}
    for r, fk in info.fks.items():
        if parent(r):
            groups.setdefault((parent(r), fk.target), []).append(r)
    for (_, target), refs in groups.items():
        if len(refs) < 2:
            continue
        key = owners[target].key if target in owners else ()
        keep = next((r for r in refs if (info.fks[r].target_ref,) == tuple(key)), refs[0])
        for r in refs:
            if r != keep:
                del info.fks[r]


def specialise_objects(info: SourceInfo, ontology: Ontology) -> None:
    """Members of one nested object that opened a class and its superclasses describe one entity of the
    most specific of them: its superclasses' properties go on it, not on a second entity.

    RDFS semantics: a property whose domain is ``Score`` is usable on a ``ScoreV3`` when ``ScoreV3
    rdfs:subClassOf Score`` (rdfs9: every ``ScoreV3`` is a ``Score``), and the members of one object
    describe one thing. So ``scoreV3.attackVector`` (domain ``ScoreV3``) and ``scoreV3.baseScore``
    (domain ``Score``) are values of one ``ScoreV3``, not of a ``ScoreV3`` and a ``Score``. The same holds
    for an object nested in it within the same occurrence (``impact.baseMetricV3.impactScore``, domain
    ``CVSSBaseMetric``, beside ``impact.baseMetricV3.cvssV3.attackVector``, domain ``CVSS3BaseMetric``):
    the outer object's entity is the inner one when the inner class is a strict subclass of the outer's
    and one class only is opened below it. Classes neither sub- nor superclass of each other (two kinds
    of thing in one object) stay apart, as does a nested object of the same class (a part of a part)."""
    def objects() -> dict[str, set[URIRef]]:
        found: dict[str, set[URIRef]] = {}
        for a in info.assignments:
            if a.cls != info.cls and parent(a.reference):
                found.setdefault(parent(a.reference), set()).add(a.cls)
        return found

    def move(obj: str, cls: URIRef, why: str) -> None:
        for a in info.assignments:
            if parent(a.reference) == obj and a.cls != info.cls and a.cls != cls:
                a.evidence.append(f"{ontology.compact(a.cls)} is a superclass of {ontology.compact(cls)}, {why}: "
                                  f"one entity {ontology.compact(cls)} (rdfs:subClassOf)")
                a.cls = cls

    for obj, classes in objects().items():
        most = [c for c in classes if classes <= ontology.superclasses(c)]
        if len(classes) > 1 and len(most) == 1:
            move(obj, most[0], f"which other members of the object {obj!r} opened")
    found = objects()
    part = {obj: {repeating_part(info.data, info.data.iterator, a.reference) for a in info.assignments
                  if parent(a.reference) == obj} for obj in found}
    for obj, classes in sorted(found.items(), key=lambda x: -len(x[0])):
        if len(classes) != 1:
            continue
        outer = next(iter(classes))
        inner = {c for d, cs in found.items() if encloses(info.data, obj, d)
                 and part[d] == part[obj] for c in cs}
        if len(inner) == 1 and (c := next(iter(inner))) != outer and outer in ontology.superclasses(c):
            move(obj, c, f"which members of an object nested in {obj!r} opened")
            found[obj] = {c}


def sibling_members(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, datatype_props: list[URIRef],
                     candidates: list[str], used: set[URIRef], score: Callable[..., float]) -> None:
    """Members of a nested object that already opened a second entity are matched to that entity's
    free properties with the ordinary :data:`MIN_SCORE`, not :data:`SECONDARY_SCORE`.

    Data evidence: the members of one object describe one thing. Once ``address.street`` and
    ``address.city`` opened a ``PostalAddress`` (each named at least :data:`SECONDARY_SCORE`), their
    sibling ``address.postcode`` is a value of that address, and its best free property of the class
    (``postalCode``, 0.66) is as good a name match as a column of the record's own class needs.
    Best pair first, as the other name matches; a member already taken or a foreign key is skipped."""
    by_object: dict[str, URIRef] = {}
    for a in info.assignments:
        if a.cls == info.cls:
            continue
        obj = parent(a.reference)
        if obj and by_object.setdefault(obj, a.cls) != a.cls:
            by_object[obj] = None  # two classes opened from one object: no single entity to extend
    for obj in [o for o, c in by_object.items() if c is None]:
        # unless all but one were opened by identifier members alone (lines.sku -> a Product): an identifier
        # names the entity it identifies, which the object refers to, as a foreign key does; the object's
        # own entity is the other class (lines.qty -> an OrderLine), and its other members are that entity's
        opened: dict[URIRef, list[str]] = {}
        for a in info.assignments:
            if a.cls != info.cls and parent(a.reference) == obj:
                opened.setdefault(a.cls, []).append(a.reference)
        by_id = {c for c, refs in opened.items() if all(id_like(r) for r in refs)}
        if len(opened) - len(by_id) == 1:
            by_object[obj] = next(c for c in opened if c not in by_id)
    done = {a.reference for a in info.assignments}
    # a flat record (CSV columns, top-level members) is one object: its leftover columns are members
    # of every second entity opened at that level (addressLocality opened a PostalAddress: postalCode
    # and addressRegion are that address's), each taking the best pair of all of them
    flat = sorted({a.cls for a in info.assignments if a.cls != info.cls and not parent(a.reference)}, key=str)

    def classes_of(r: str) -> list[URIRef]:
        if parent(r):
            cls = by_object.get(parent(r))
            return [cls] if cls is not None else []
        return flat

    # a property is one value of each entity: taken on one nested entity (the V3 score's baseScore), it is
    # still free on another entity of the record (the V2 score's). A flat column keeps the record-wide rule
    # (its entities share one object, where a property named twice is one column too many)
    taken: dict[URIRef, set[URIRef]] = {}
    for a in info.assignments:
        taken.setdefault(a.cls, set()).add(a.prop)

    def free(p: URIRef, r: str, cls: URIRef) -> bool:
        return p not in taken.get(cls, set()) if parent(r) else p not in used

    pairs = sorted(((score(matcher, r, p, []) * value_fit(ontology, p, info.data.values(r)), i, str(p), r, p, cls)
                    for i, r in enumerate(candidates)
                    if r not in done and r not in info.fks
                    for cls in classes_of(r)
                    for p in datatype_props if free(p, r, cls) and domain_fits(ontology, p, cls) == 1.0),
                   key=lambda x: (-x[0], x[1], x[2]))
    for score, _, _, r, p, cls in pairs:
        if r in done or not free(p, r, cls) or score < MIN_SCORE:
            continue
        done.add(r)
        used.add(p)
        taken.setdefault(cls, set()).add(p)
        where = f"a member of the object {parent(r)!r}" if parent(r) else "a column of the record"
        info.assignments.append(Assignment(r, p, cls, score, [
            f"{r!r} ~ {ontology.compact(p)} similarity {score:.2f}; {where}, "
            f"which holds an entity {ontology.compact(cls)}"]))
    # then by value kind, as .elimination does for the record's class: the one member left of a kind
    # (a date: members.since) and the one free property of the entity whose range admits it (startDate)
    # A member with a code for a name (chapter/@n) is no name evidence, but its values are (as .elimination
    # reads the record's own coded columns): it is judged here, on its object's entity, never on the record's
    members = [r for r in info.refs if r in candidates or (is_code_name(r) and r not in info.fks and r != info.lang_col
                                                           and match_value_map(ontology, r, info.data.values(r)) is None)]
    for obj, cls in by_object.items():
        if cls is None:
            continue
        left = [r for r in members if parent(r) == obj and r not in done and r not in info.fks]
        free_props = [p for p in datatype_props if p not in taken.get(cls, set()) and domain_fits(ontology, p, cls) == 1.0]
        kinds = {r: value_kind(info.data.values(r)) for r in left}
        for r in left:
            k = kinds[r]
            if k in (None, "text") or sum(1 for x in left if kinds[x] == k) != 1:
                continue
            fits = [p for p in free_props if k in range_kinds(ontology, p)]
            if len(fits) != 1:
                continue
            done.add(r)
            used.add(fits[0])
            taken.setdefault(cls, set()).add(fits[0])
            free_props.remove(fits[0])
            info.assignments.append(Assignment(r, fits[0], cls, MIN_SCORE, [
                f"{r!r} is the only {k} member of the object {obj!r} (an entity {ontology.compact(cls)}) and "
                f"{ontology.compact(fits[0])} its only free property whose range admits a {k}"], "values"))


def ontology_identifier(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                         cls: URIRef) -> tuple[str, ...]:
    """The one reference of a second entity mapped to a property the ontology declares an identifier of
    its class (``owl:hasKey``, ``owl:InverseFunctionalProperty``): ``members.person.pid`` as
    ``org:personId``. ``()`` when none or several. A property only *named* as an identifier does not
    count here (``postal code``: many addresses share one).

    Ontology semantics: two individuals with the same value of an inverse functional property or
    key are the same individual (OWL 2 RL rules prp-ifp, prp-key), so the value alone keys the
    entity; joining every member instead (``{familyName}_{email}_{givenName}_{pid}``) splits one
    person in two when a member differs and loses every record with an empty member."""
    mine = [a for a in info.assignments if a.cls == cls]
    ids = identifier_properties(ontology, matcher, cls, [a.prop for a in mine])
    refs = [a.reference for a in mine if ids.get(a.prop, "").startswith("owl:")]
    return (refs[0],) if len(refs) == 1 else ()


def partial_key(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, cls: URIRef,
                own: tuple[str, ...]) -> tuple[str, ...]:
    """The key of an entity of a repeating part that numbers its occurrences itself: its owner's key plus
    the member mapped to an identifier property of the class (:func:`.identity.identifier_properties`:
    ``chapter number``) when that member is the part's own value, every occurrence holds it and no two
    occurrences of one record share a value (``chapter/{@isbn}_{d:chapter/@n}``); ``()`` otherwise.

    A weak entity's partial key (its discriminator within the owner, as chapter numbers within a book):
    unique only within its owner, so never a key alone, but a name the data give each occurrence, kept
    when the document's order changes, where the position (:func:`within_owner`) is not."""
    if not info.key or set(info.key) & set(own):
        return ()
    props = {a.reference: a.prop for a in info.assignments if a.cls == cls and a.reference in own}
    ids = identifier_properties(ontology, matcher, cls, set(props.values()))
    for r in own:
        part = repeating_part(info.data, info.data.iterator, r)
        if props.get(r) not in ids or part is None or _object_of(r) != part \
                or not every_occurrence_holds(info.data, info.data.iterator, part, [r]):
            continue
        if all(len(set(vals)) == len(vals) for rec in info.data.records if (vals := list(rec.get(r) or ()))):
            return tuple(info.key) + (r,)
    return ()


def within_owner(info: SourceInfo, own: tuple[str, ...]) -> tuple[str, ...]:
    """The key of an entity with no identifier of its own: its owner's key plus its position in the
    owner when it is one of a repeating part of the record (``{id}_{members.#}``), else its values.

    An object in a list of its owner (a post in an organisation's ``members``) has no identity
    outside the owner, as a weak entity: its own values alone (``membership/CEO``) would merge the
    CEOs of every organisation into one. Its values with the owner's key would still merge two equal
    occurrences of one record (two authors with the same name) and lose an occurrence with an empty
    member (a template with no value makes no IRI); the position (RML-LV's index ``<part>.#``, read
    per occurrence by the compiler's logical view) tells every occurrence apart, when the members lie
    in one (innermost) repeating part, some are the part's own values and every occurrence holds
    some of those. A member in a non-repeating object inside an occurrence (``loans.extra.curator``,
    ``m:loan/m:extra/m:note``), held by a few occurrences only, is one more value of its occurrence:
    keying by the values instead would give no IRI to every occurrence lacking it. Otherwise (a list
    the data do not show as a repeating part, an entity read only from members deeper in the part)
    the owner's key plus the values.

    A single nested JSON object (``conditions`` of a reading, ``impact.baseMetricV3`` of a CVE: an object,
    no array, with no identifier of its own) is one entity per owner: it is keyed by the owner's key alone
    (``conditions/{readingId}``; the class path tells it from the owner, and a record holds one entity per
    class). Its values are what it measures, not what identifies it: keyed by them, the conditions of two
    readings with equal temperature and humidity would be one entity, and a reading lacking one member
    would lose its conditions. When some records lack the object, the key adds the one member every
    record holding the object has (:func:`_presence_member`): a template with no value makes no IRI, so a
    record without the object gets no empty entity and no link to one; the owner's key still tells the
    entities apart. So is an entity of values read once per record beside lists of single values
    (:func:`_values_of_one_entity`: a CAPEC pattern's ``@Status`` beside its ``Mitigations/Mitigation``):
    each list is a multi-valued property of the one entity, and keyed by its values the lists would be
    combined as a cross product."""
    listed = any(len(rec.get(r, ())) > 1 for rec in info.data.records for r in own)
    # JSON tells an object from an array by its syntax; an XML child element may repeat in the next
    # document whatever this one shows (its schema decides), so it keeps the values below
    if not listed and info.data.source.format == "json" and info.key and not set(info.key) & set(own) \
            and all(parent(r) for r in own) \
            and all(repeating_part(info.data, info.data.iterator, r) is None for r in own):
        present = _presence_member(info, own)
        return tuple(info.key) + (own if present is None else present)
    if listed and info.key and not set(info.key) & set(own):
        parts = {repeating_part(info.data, info.data.iterator, r) for r in own}
        part = next(iter(parts))
        # only when some members are the part's own values (authors.name in authors; lib:author/@id) and
        # every occurrence holds some of them (each author has a name or a birth year): an entity read
        # only from members deeper in the part (a tunnel in some sections of a line) is something inside
        # an occurrence, which may be absent or repeat, and which its position does not name
        direct = [r for r in own if _object_of(r) == part]
        if len(parts) == 1 and part is not None and direct and \
                every_occurrence_holds(info.data, info.data.iterator, part, direct):
            # a part inside another (the components of each line of an order) is numbered within each
            # enclosing occurrence too: the position of the innermost alone numbers the occurrences of the
            # record where the part is read on its own, but within its enclosing occurrence where a relation
            # reads the two together (RML-LV nests the iterable fields), so the two would name different things
            sep = part_separator(info.data)
            chain = parts_of(info.data, info.data.iterator, f"{part}{sep}{POSITION}") or [part]
            return tuple(info.key) + tuple(f"{p}{sep}{POSITION}" for p in chain)
        if _values_of_one_entity(info, own, parts):
            present = _presence_member(info, own)
            return tuple(info.key) + (own if present is None else present)
        return tuple(info.key) + own
    return own


def _values_of_one_entity(info: SourceInfo, own: tuple[str, ...], parts: set[str | None]) -> bool:
    """Whether ``own`` are the values of one entity per record: some members are read once per record, and
    each repeating part holds one member of ``own``, its occurrences' own value, in no enclosing repeating
    part (a list of single values is a multi-valued property, as :mod:`.occurrences` reads a part with one
    member), so no occurrence is a thing of its own that a position would name. A list inside a repeating
    part (the scopes of each of a pattern's consequences) belongs to that part's occurrences."""
    if None not in parts:
        return False
    for part in parts - {None}:
        inside = [r for r in own if repeating_part(info.data, info.data.iterator, r) == part]
        if len(inside) != 1 or part not in (inside[0], _object_of(inside[0])) \
                or len(parts_of(info.data, info.data.iterator, inside[0])) != 1:
            return False
    return True


def identifies(info: SourceInfo, key: tuple[str, ...], own: tuple[str, ...]) -> bool:
    """Whether the values of ``key`` determine the values of the entity's other members ``own`` in the
    data (the functional dependency ``key -> own``, which a key of the entity implies: Codd's relational
    model). Only records holding one value of each key member are read (a flat column, a single nested
    object); an empty value contradicts nothing. ``False`` when one key value occurs with two different
    values of another member (the postal code ``37240`` with two street addresses): the values name
    something many entities share, not the entity."""
    rest = [r for r in own if r not in key]
    if not key or not rest:
        return True
    seen: dict[tuple[str, ...], dict[str, str]] = {}
    for rec in info.data.records:
        k = [[str(v).strip() for v in rec.get(r) or () if str(v).strip()] for r in key]
        if any(len(v) != 1 for v in k):
            continue
        known = seen.setdefault(tuple(v[0] for v in k), {})
        for r in rest:
            vals = [str(v).strip() for v in rec.get(r) or () if str(v).strip()]
            if len(vals) != 1:
                continue
            if known.setdefault(r, vals[0]) != vals[0]:
                return False
    return True


def named_identifier(info: SourceInfo, own: tuple[str, ...]) -> tuple[str, ...]:
    """The key of a second entity of a record (its references ``own``) by its members named as identifiers
    (:func:`.identity.id_like`: ``venue_id``, ``postalCode``), when their values identify it
    (:func:`identifies`); ``()`` when none is so named.

    A name says a column holds codes, not whose identity they are: a postal code is named as a code and
    is the address's value, shared by every address of a district. When the data refute the
    identifier (a code with two street addresses), keyed by it the addresses of one district would be one
    entity, each with every street (a lossy key). The entity holds one value of each member per record
    then (a flat record, a single nested object), so the record holds one such entity: it is keyed within
    its owner, by the owner's key (``postalAddress/{identifier}``; when some records lack every member,
    with the one member every other record holds, :func:`_presence_member`, so that no record gets an
    empty entity). The owner's key overlapping the entity's members, or a member read several times per
    record, keys nothing here (``()``; the next rules of :func:`.properties.assign_properties` decide)."""
    ids = tuple(r for r in own if id_like(r))
    # a value that may repeat (a member of a list) keys the entity only when no other member does: an
    # occurrence holding two would be two subjects, one holding none no subject (as for a record's key);
    # so a member of a part keys only when every occurrence of the part holds it
    once = tuple(r for r in ids if repeating_part(info.data, info.data.iterator, r) is None)
    ids = once or tuple(r for r in ids if held_by_every_occurrence(info, r))
    if not ids or identifies(info, ids, own):
        return ids
    if not info.key or set(info.key) & set(own) or any(
            len(rec.get(r) or ()) > 1 for rec in info.data.records for r in own):
        return ()
    present = _presence_member(info, own)
    return tuple(info.key) + (own if present is None else present)


def follow_owner_key(info: SourceInfo, old: tuple[str, ...]) -> None:
    """Rekey the entities keyed within their owner (:func:`within_owner`: the owner's key, then a position
    or values) by the owner's final key, when the record's key changed after they were keyed (an identifier
    preferred to a name, a candidate key other sources refer to).

    Keyed by a key the owner is no longer identified by (``softwareVersion/{name}_{releases.#}`` beside
    ``software/{repository}``), two owners sharing that value (two repositories named ``alpha``) would
    share their parts' IRIs; keyed by the owner's own key, a part's IRI names its owner as the owner's
    IRI does."""
    new = tuple(info.key)
    old = tuple(old)
    if not old or not new or new == old:
        return
    for cls, key in list(info.keys.items()):
        if cls != info.cls and len(key) > len(old) and tuple(key[:len(old)]) == old:
            info.keys[cls] = new + tuple(r for r in key[len(old):] if r not in new)


def _presence_member(info: SourceInfo, own: tuple[str, ...]) -> tuple[str, ...] | None:
    """What an owner-keyed entity's key needs besides the owner's key for records lacking the object:
    ``()`` when every record holds a value of some member of ``own``; else the first member that every
    record holding any of them holds (``(conditions.temperature,)``); ``None`` when no member is held by
    all of them (the caller keys by the owner's key and the values)."""
    def held(rec: dict, r: str) -> bool:
        return any(str(v).strip() for v in rec.get(r, ()))

    holding = [rec for rec in info.data.records if any(held(rec, r) for r in own)]
    if len(holding) == len(info.data.records):
        return ()
    return next(((r,) for r in own if all(held(rec, r) for rec in holding)), None)


def _object_of(ref: str) -> str:
    """The object (JSON) or element (XML) whose own value ``ref`` reads: ``authors`` for
    ``authors.name``; ``lib:author`` for ``lib:author/lib:name`` (a child's text) and ``lib:author/@id``
    (an attribute); ``lib:author/lib:name`` for ``lib:author/lib:name/@lang``."""
    if "/" not in ref:
        return parent(ref)
    steps = ref.split("/")
    return "/".join(steps[:-1])


def member_id(info: SourceInfo, own: tuple[str, ...], class_names: Iterable[str] = ()) -> tuple[str, ...]:
    """The identifier member of the object a second entity's references lie in (``venue.id`` for
    ``venue.name`` and ``venue.geo.lat``; ``cat:supplier/@id`` for ``cat:supplier/cat:name``): an
    object's own ``id`` names it, so it keys the entity even when no property takes its value.
    Of several such objects the innermost; ``()`` when there is none, two ids compete, or the data refute
    it (:func:`identifies`: RINF's ``OPRailwayLocation/@NationalIdentNum``, the number of the line a
    location lies on, with 17 kilometre points of one line: it names the line, not the location).
    A member named as an IRI whose values are absolute IRIs (:func:`.identity.iri_like`: NVD's
    ``cpe_match.cpe23Uri``) is such a member too: an IRI identifies its resource (RDF 1.1 Concepts 1.2),
    where the object's other values (a CPE match's version bounds, mostly absent) would key nothing.
    So is a member named as the entity's class (``class_names``, :func:`.identity.designation_like`) whose
    values are codes, each once over all occurrences: CSAF's ``vulnerabilities.cve`` (``CVE-2023-0052``) of
    a ``cve:CVE``, read from ``vulnerabilities.references.url``, keys the vulnerability (one entity per
    CVE, however many references it lists), not each reference's position."""
    def holds(p: str) -> bool:
        return bool(p) and all(r.startswith(p) and r[len(p):len(p) + 1] in "/." for r in own)

    # an identifier member that is another entity's value names that entity (lines.sku of a Product read in
    # an order line), not the object: it keys the product, and every line of one product is no one line
    others = {a.reference for a in info.assignments if a.reference not in own}
    ids = [r for r in info.refs if r not in own and r not in info.fks and r not in others and holds(parent(r))
           and (id_like(r) or iri_like(r, info.data.values(r))
                or designation_like(r, class_names, info.data.values(r)))]
    if not ids:
        return ()
    deepest = max(len(parent(r)) for r in ids)
    ids = [r for r in ids if len(parent(r)) == deepest]
    return (ids[0],) if len(ids) == 1 and identifies(info, (ids[0],), own) \
        and held_by_every_occurrence(info, ids[0]) else ()


def held_by_every_occurrence(info: SourceInfo, ref: str) -> bool:
    """Whether every occurrence of the repeating part ``ref`` lies in holds a value of it (``True`` for a
    reference read once per record).

    A key names each thing it keys: a template with no value makes no IRI, so an occurrence lacking its
    key member is no entity at all (ATT&CK's ``external_references``: 33 of 97 hold an ``external_id``,
    the other 64, citations, hold a source name, a description and a URL). A member some occurrences
    lack keys nothing; the occurrences are then keyed within their owner (:func:`within_owner`), as the
    partial key of a weak entity must be held by every occurrence (:func:`partial_key`)."""
    part = repeating_part(info.data, info.data.iterator, ref)
    return part is None or every_occurrence_holds(info.data, info.data.iterator, part, [ref])


def foreign_key_owners(info: SourceInfo, ref: str, target: URIRef | None) -> list[URIRef]:
    """The classes whose entity the foreign key ``ref`` of ``info`` may relate to the referenced records,
    most specific first: the entity of the repeating part ``ref`` lies in, then the record's.

    A member of an occurrence of a repeating part (``items.sku`` in an order's ``items``) is a value of
    that occurrence, as its siblings are (``items.qty`` and ``items.price`` made an ``:OrderLine`` per
    occurrence): it names the product of one order line, and the record's entity (the order) holds many
    of them. So the relation is looked for from the part's entity first (``:product``, domain
    ``:OrderLine``); the record's class follows, for a vocabulary that relates the record to the
    referenced class directly. The part's entity is the one class its other members opened (one class
    only), unless that class is the referenced one (the occurrence is the referenced entity, read in
    place: nothing relates it to itself). A single nested object, or a flat column, has the record's
    class alone."""
    obj = parent(ref)
    if not obj or info.cls is None or repeating_part(info.data, info.data.iterator, ref) is None:
        return [info.cls] if info.cls is not None else []
    classes = {a.cls for a in info.assignments if a.cls != info.cls and parent(a.reference) == obj}
    if len(classes) != 1 or classes == {target}:
        return [info.cls]
    return [classes.pop(), info.cls]
