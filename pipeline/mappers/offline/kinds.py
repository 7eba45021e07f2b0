"""Records of several kinds in one array, each naming its kind in a member: one logical source per kind.

A STIX bundle lists techniques, tactics, groups, mitigations and the relationships between them in one
array, each object saying what it is in ``"type"``; JSON-LD's ``@type``, GeoJSON's ``type``, many APIs'
``kind`` or ``resourceType`` do the same. Mapped as one source, every record gets the class of the
majority and the members of the other kinds land on entities they do not describe. A person writes
one logical source per kind. Rule (data evidence, no member name needed):

* a *kind member* is a top-level member whose value in every record is a JSON string of text (no date,
  time, number or flag: those group records by when or how much, not by what they are), taking few
  values (at most half as many as there are records: a code list, each value repeated on average);
* grouped by its value, the records differ in which members they have: every member that some records
  have and others lack is had by all or by none of each group's records, at least one such member is
  had by all records of one group of at least :data:`MIN_RECORDS` records and by none of another, and
  no two such groups have the same members. A flag or a category that says nothing of a record's
  structure (``gender``, ``status``) does not tell its groups apart that way;
* among several kind members, the one whose groups tell apart the most members.

Each kind is then a source of its own (:func:`split`: :mod:`pipeline.sources.selection`, read through a
JSONPath filter iterator), named after the kind (``attack-pattern``), so that its properties and foreign
keys are found on its own records (a reference to the identifiers of one kind joins that kind), and the
kind member, constant within it, is no property value. Then:

* its key is the key of all the file's records (:func:`file_key`): a kind of one record has every member
  unique and cannot tell which identifies it;
* its class comes from evidence only (:func:`kind_class`): the kind's name, else its own members'
  property domains, else ``owl:Thing``; a row tying a property with a domain or range to such an
  ``owl:Thing`` entity is marked for review (:func:`mark_untyped_rows`);
* a literal row whose values are identifiers of records of other kinds (a STIX relationship's
  ``source_ref``, whose targets are of several kinds, so no one join states it) is marked for review
  (:func:`mark_references_across_kinds`).
"""
from __future__ import annotations

from dataclasses import dataclass

from rdflib import URIRef
from rdflib.namespace import OWL

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.classes import SUBCLASS_EVIDENCE
from pipeline.mappers.offline.fit import value_kind
from pipeline.mappers.offline.keys import analyse_keys
from pipeline.mappers.offline.names import NameMatcher, own_words, words
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow
from pipeline.sources.selection import select, selection_name

__all__ = ["MIN_RECORDS", "RecordKind", "kind_member", "split", "own_members", "record_kinds", "kind_class",
           "file_key", "mark_untyped_rows", "mark_references_across_kinds"]

#: A group needs this many records for the members its records share to say something of the kind.
MIN_RECORDS = 2


@dataclass(frozen=True)
class RecordKind:
    """What the mapper keeps of one kind of record of a split file (see the module docstring).

    Attributes:
        member: the kind member (constant within the kind: no property value).
        own: the members at most half of the file's kinds have (:func:`own_members`).
        key: the key of all the file's records, whatever their kind (:func:`file_key`); ``key_evidence`` why.
        file: the whole file, every kind.
    """
    member: str
    own: frozenset[str]
    key: tuple[str, ...]
    key_evidence: str
    file: SourceData


def _told_apart(data: SourceData, groups: dict[str, list[int]]) -> int:
    """How many members the groups tell apart (module docstring); 0 when they do not tell the kinds apart."""
    n = len(data.records)
    have = {r: {i for i, rec in enumerate(data.records) if rec.get(r)} for r in data.references}
    optional = {r: s for r, s in have.items() if 0 < len(s) < n}
    big = [set(idx) for idx in groups.values() if len(idx) >= MIN_RECORDS]
    if len(big) < 2:
        return 0
    decided = []
    for r, s in optional.items():
        if all(not (g & s) or g <= s for g in map(set, groups.values())):
            decided.append(r)
    separating = [r for r in decided if any(g <= have[r] for g in big) and any(not (g & have[r]) for g in big)]
    if not separating:
        return 0
    profiles = [frozenset(r for r in decided if g <= have[r]) for g in big]
    if len(set(profiles)) != len(profiles):
        return 0
    return len(decided)


def kind_member(data: SourceData) -> tuple[str, dict[str, list[int]]] | None:
    """The member naming the kind of ``data``'s records, with the record indices of each kind (in file
    order), or ``None`` when no member tells kinds of record apart (module docstring).

    Args:
        data: a loaded JSON source whose records are the items of an array.
    Returns:
        ``("type", {"attack-pattern": [0, 4, ...], "relationship": [...], ...})`` or ``None``.
    """
    raw = data._json
    if data.source.format != "json" or raw is None or len(raw) != len(data.records) or len(raw) < 2 * MIN_RECORDS:
        return None
    best = None
    for member in dict.fromkeys(k for rec in raw if isinstance(rec, dict) for k in rec):
        if not all(isinstance(rec, dict) and isinstance(rec.get(member), str) and rec[member].strip()
                   for rec in raw):
            continue
        groups: dict[str, list[int]] = {}
        for i, rec in enumerate(raw):
            groups.setdefault(rec[member], []).append(i)
        if not 2 <= len(groups) <= len(raw) / 2 or value_kind(groups) != "text":
            continue  # a kind is named: dates, numbers and flags group records by when or how much, not what
        if any(selection_name(data, member, v) is None for v in groups):
            continue
        told = _told_apart(data, groups)
        if told and (best is None or told > best[0]):
            best = (told, member, groups)
    return (best[1], best[2]) if best else None


def split(data: SourceData, taken: set[str]) -> tuple[str, list[SourceData]] | None:
    """One source per kind of record of ``data`` (see :func:`kind_member`), in the order the kinds first occur.

    Args:
        data: a loaded source.
        taken: stems of the case's sources: a file whose kinds would take one of them (a ``malware.json``
            beside a bundle with malware) is not split.
    Returns:
        ``(kind member, sources)``, each source named ``<file>[?(@.<member>=="<kind>")]`` with the kind as
        its stem; ``None`` when the records are of one kind.
    """
    found = kind_member(data)
    if found is None:
        return None
    member, groups = found
    if any(v in taken for v in groups):
        return None
    subs = [select(data, member, v) for v in groups]
    if any(s is None for s in subs):
        return None
    return member, subs


def own_members(subs: list[SourceData]) -> dict[str, set[str]]:
    """The members of each kind that at most half of the kinds have (``kill_chain_phases`` of ATT&CK's
    techniques; not ``created`` nor ``description``, which nearly every kind of object has), by the kind's
    source name: what the kind says of itself, where a member most kinds have says what records are in
    general."""
    have: dict[str, int] = {}
    for s in subs:
        for r in set(s.references):
            have[r] = have.get(r, 0) + 1
    return {s.source.name: {r for r in s.references if have[r] <= len(subs) / 2} for s in subs}


def record_kinds(data: SourceData, member: str, subs: list[SourceData]) -> dict[str, RecordKind]:
    """Each kind's :class:`RecordKind`, by the name of its source.

    Args:
        data: the whole file. member: its kind member. subs: one source per kind, as :func:`split` gives them.
    """
    own = own_members(subs)
    key, why = file_key(data, member)
    return {s.source.name: RecordKind(member, frozenset(own[s.source.name]), tuple(key), why, data) for s in subs}


def kind_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
               props: list[URIRef], own: set[str]) -> tuple[URIRef, str]:
    """The class of the records of one kind, from evidence only: never a guessed class.

    * the kind's name holds every word of a name of a class (``malware`` ~ ``Malware``, ``x-mitre-tactic`` ~
      ``Tactic``): that class (the one whose name holds the most words, then the first by IRI);
    * else a member of the kind's own (``own``: at most half of the kinds have it) names a property at
      :data:`.classes.SUBCLASS_EVIDENCE` whose ``rdfs:domain`` is a class (RDF 1.1 Semantics rdfs2: the
      domain of a property entails the class of its subject; ``x_mitre_is_subtechnique`` ~
      ``isSubtechnique``, domain ``Technique``): the class the most such members entail;
    * else ``owl:Thing``, which every individual is (OWL 2 Direct Semantics): the records keep their
      values, and no class is asserted that nothing in the data or the vocabulary states.

    Args:
        info: the kind's source (its stem is the kind). ontology / matcher: as the mapper's.
        classes: candidate classes. props: candidate properties (datatype and object properties).
        own: the kind's own members (:func:`own_members`).
    Returns:
        ``(class, evidence)``.
    """
    kind = set(words(info.stem, expand=False))
    named = []
    for cls in classes:
        held = [len(w) for n in matcher.names(cls) if (w := set(words(n, expand=False))) and w <= kind]
        if held:
            named.append((max(held), str(cls), cls))
    if named:
        cls = max(named)[2]
        return cls, f"the kind {info.stem!r} names {ontology.compact(cls)} (every word of its name)"
    pool = set(classes)
    votes: dict[URIRef, list[str]] = {}
    for r in info.refs:
        if r not in own:
            continue
        text = own_words(r, info.stem)
        for p in props:
            if matcher.score(text, p) >= SUBCLASS_EVIDENCE:
                for d in ontology.domains(p) & pool:
                    votes.setdefault(d, []).append(f"{r!r} ~ {ontology.compact(p)}")
    if votes:
        cls = max(votes, key=lambda c: (len(votes[c]), str(c)))
        return cls, (f"members of the kind {info.stem!r} name properties whose domain is {ontology.compact(cls)} "
                     f"({'; '.join(sorted(set(votes[cls])))}; rdfs:domain, RDF 1.1 Semantics rdfs2)")
    return OWL.Thing, (f"the kind {info.stem!r} names no class of the vocabularies and none of its own members "
                       "names a property whose domain is one: its records are typed owl:Thing (OWL 2: every "
                       "individual is one), no class is guessed")


def file_key(data: SourceData, member: str) -> tuple[tuple[str, ...], str]:
    """The key of every record of the file ``data`` (all kinds together), with its evidence.

    A kind of few records (ATT&CK's one matrix, one identity) has every member unique, so its own records
    cannot tell which identifies them; the key of all the file's records does, for every kind (one
    identifier scheme across the array: STIX's ``id``), and a reference of one kind to another's records
    then joins on it.

    Args:
        data: the whole file (every kind). member: the kind member (no key: it repeats within a kind).
    Returns:
        ``(key references, evidence)`` as :func:`.keys.analyse_keys` finds them on all records.
    """
    refs = [r for r in data.references if r != member and r not in data.unaddressable and r not in data.markup
            and any(v.strip() for v in data.values(r))]
    whole = SourceInfo(data, data.source.name or data.source.path.name, data.source.stem, refs)
    analyse_keys([whole])
    return whole.key, whole.key_evidence


def mark_untyped_rows(rows: list[MappingRow], ontology: Ontology) -> None:
    """Mark for review, in place, a row about an ``owl:Thing`` entity (a kind whose class nothing states,
    :func:`kind_class`) whose property's ``rdfs:domain`` (the row's subject is one) or ``rdfs:range`` (its
    related entity is one) names a class: nothing ties the property to that entity, so the property is a
    person's choice (a relation's join itself is data evidence)."""
    thing = OWL.Thing
    for row in rows:
        prop = ontology.expand(row.ontology_property) if row.ontology_property else None
        if prop is None:
            continue
        ends = []
        if ontology.expand(row.entity_class or "") == thing and ontology.domains(prop) - {thing}:
            ends.append("subject")
        if row.related_entity_class and ontology.expand(row.related_entity_class) == thing \
                and ontology.ranges(prop) - {thing}:
            ends.append("object")
        if ends:
            why = (f"an entity whose class nothing states (owl:Thing, the row's {' and '.join(ends)}): no "
                   f"{'domain' if ends[0] == 'subject' else 'range'} ties {row.ontology_property} to it; check the "
                   "property")
            row.review = f"{row.review}; {why}" if row.review else why


def mark_references_across_kinds(rows: list[MappingRow], infos: list[SourceInfo],
                                 kinds: dict[str, RecordKind]) -> None:
    """Mark for review, in place, a literal row of a kind whose values are all identifiers of the file's records
    of other kinds (a STIX relationship's ``source_ref``: a technique's or a group's ``id``): the member links
    to those records, of several kinds, so no one join states it, and a literal property would assert the
    identifiers as text.

    Args:
        rows: the table's rows. infos: every source. kinds: a kind's source name -> its :class:`RecordKind`.
    """
    by_name = {i.name: i for i in infos}
    for row in rows:
        info = by_name.get(row.source_file or "")
        kind = kinds.get(row.source_file or "")
        key = kind.key if kind is not None else ()
        ref = row.data_reference
        if info is None or len(key) != 1 or not ref or row.related_entity_class or ref in info.key:
            continue
        values = {v for v in info.data.values(ref) if v}
        mine = {v for v in info.data.values(key[0]) if v}
        whole = kind.file
        ids = {v for v in whole.values(key[0]) if v}
        if values and values <= ids and not values <= mine:
            why = (f"a reference written as text: the values of {ref!r} are identifiers ({key[0]!r}) of records of "
                   f"other kinds of {whole.source.name or whole.source.path.name}, so the "
                   f"member links to them, and {row.ontology_property} would assert the identifiers as literals: "
                   "check whether a relation to those records is meant")
            row.review = f"{row.review}; {why}" if row.review else why
