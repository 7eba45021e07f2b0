"""A repeating part of a record is one entity per occurrence, not more values of the record's entity.

A JSON array of objects, or an XML element that repeats within one record, holds several things of
one kind (the releases of a software repository, each with its tag, name and date). When the
vocabulary lets the record's class take the members' properties (a release's class is a subclass of
the record's: a tag, a name and a date fit both), the property matching of the record
(:mod:`.properties`) would give the record's entity every occurrence's values at once: all the tags
and dates on one entity, the pairing of each tag with its own date lost; or, one property per
column, leave a release's ``name`` unmapped because the record's own ``name`` took the property.
The data say the members of one occurrence belong together and apart from the record: when two or
more of them name properties of a class (their declared domain is the class or a superclass) that an
object property relates to the record's class (:func:`part_class`), they are one entity of that class
per occurrence (:func:`occurrence_entities`), matched to that class's properties on their own, keyed
within their owner
(:func:`.nested.within_owner`: the owner's key and the occurrence's position) and related to the
record's entity by that property (:attr:`.analysis.SourceInfo.part_relations`).

A part inside another part (the sections of each chapter of a book, the CPE matches of each node of
a vulnerable configuration) holds things of the enclosing occurrence, which the record's relations say
nothing of: it is read the same way once the enclosing part's occurrences are entities of their own
(outer parts first), with their class in place of the record's: an object property from that class
relates each enclosing occurrence to the inner occurrences it holds
(:attr:`.analysis.SourceInfo.part_owners`), which are keyed by the owner's key and the positions of
every enclosing part (``{isbn}_{chapters.#}_{chapters.sections.#}``).

Left as they are: a part inside another part whose enclosing occurrences are no entity (or several),
a part with one member that names a property (the ``term`` of each ``keywords``
object is one more keyword of the record: a multi-valued property, nothing to pair), a part that no
class related to the record's fits (a vocabulary that flattens the parts onto the record's class has
nothing else to give them), and members another entity already took (a person nested in a release).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS
from scipy.optimize import linear_sum_assignment

from pipeline.compile.parts import part_separator, parts_of
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_evidence, domain_fits, value_fit
from pipeline.mappers.offline.names import NameMatcher, is_code_name, singular, words

__all__ = ["occurrence_entities", "part_class", "MIN_MEMBERS", "PART_NAME_SCORE"]

#: Least number of a part's members that must name properties of its class: one member is a
#: multi-valued property of the record, two or more are a thing whose values belong together.
MIN_MEMBERS = 2
#: Least name similarity of a part to a subclass of a relation's range for the subclass to be a candidate
#: (the range itself needs none: rdfs3 makes each object an instance of it).
PART_NAME_SCORE = 0.55

_GENERIC = {OWL.Thing, RDFS.Resource}


def _part_words(part: str) -> str:
    """The words of a part's own name (``releases`` for ``releases``, ``cat:edition`` -> ``edition``)."""
    last = [s for s in part.replace("/", ".").split(".") if s][-1]
    return " ".join(words(last.split(":")[-1]))


def _in_record(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, part: str,
               outer: str = "", owner: URIRef | None = None) -> bool:
    """Whether the occurrences of ``part`` belong to the record: the part lies in the record itself or under
    objects that are the record's or mere wrappers. An object between the record and the part is a
    wrapper when it holds nothing but the part (``authors/author``, ``references.reference_data``); one
    that holds values of its own is the record's when its name names no class but the record's class and
    its superclasses (NVD's ``cve`` object of a ``cve:CVE`` record); one named for another class is a
    thing of its own (``SOLTrack``, a track, holding the track's parameters), which the occurrences belong
    to rather than the record. A name names a class when the class's name ends it (``sol track`` ~
    ``Track``: an English compound's head is its last word). For a part inside another part ``outer``
    whose occurrences are entities of ``owner``, the same holds of the objects between ``outer`` and
    the part, with ``owner`` in place of the record's class."""
    sep = part_separator(info.data)
    steps = part.split(sep)
    own = ontology.superclasses(owner or info.cls)
    for i in range(len(outer.split(sep)) + 1 if outer else 1, len(steps)):
        wrapper = sep.join(steps[:i])
        if not any(r.startswith(wrapper + sep) and not r.startswith(part + sep) for r in info.refs):
            continue
        name = [singular(w) for w in words(steps[i - 1].split(":")[-1])]
        for c in ontology.classes:
            cname = [singular(w) for w in (matcher.names(c) or [""])[0].split()]
            if c not in own and cname and name[-len(cname):] == cname:
                return False
    return True


def part_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, part: str,
               matches: Callable[[URIRef], list[tuple[str, URIRef, float]]],
               object_props: list[URIRef], described: frozenset[URIRef] = frozenset(), owner: URIRef | None = None
               ) -> tuple[URIRef, URIRef, float, list[tuple[str, URIRef, float]]] | None:
    """The class of the occurrences of ``part``, the object property relating the record's class to it, and
    the members' properties on that class.

    Candidates: ``(property, class)`` where the object property's domain is the record's class or a
    superclass (a property with no domain says nothing of this record) and the class is a range of it, or
    a subclass of a range whose name the part's name fits (:data:`PART_NAME_SCORE`: ``releases`` ~
    ``SoftwareVersion`` under a range ``Software``); not ``owl:Thing``, ``rdfs:Resource``, a SKOS
    class, nor a class of ``described`` (another source describes its entities: an occurrence then names
    one of them, which a foreign key links, and keyed by its position it would be a second copy).
    ``matches(cls)`` gives the members' one-to-one matching with the class's properties; a candidate needs
    :data:`MIN_MEMBERS` of them whose property's domain is the class or a superclass
    (:func:`.fit.domain_fits` 1.0): a property of no domain is usable on any class and says nothing of
    which class its subject has (RDFS infers a class from declared domains only, rdfs2), and one whose
    domain is another vocabulary's class says the subject is of that class, not of the candidate. The
    best has the most members matched, then the highest name similarity of the part to the property or
    the class (``releases`` ~ ``hasVersion``), then the range itself before a subclass. ``owner``: the class the relation starts from in place of
    the record's (the entities of an enclosing part's occurrences).

    Returns:
        ``(class, property, name similarity, matches)``, or ``None`` when no candidate has enough members.
    """
    text = _part_words(part)
    below: dict[URIRef, list[URIRef]] = {}
    for k in sorted(ontology.classes):
        for sup in ontology.superclasses(k):
            below.setdefault(sup, []).append(k)
    best = None
    seen: dict[URIRef, list] = {}
    for o in object_props:
        if not ontology.domains(o) or domain_fits(ontology, o, owner or info.cls) < 1.0:
            continue
        for rng in sorted(ontology.ranges(o) & ontology.classes):
            for k in below.get(rng, [rng]):
                if k in _GENERIC or k in described or str(k).startswith(str(SKOS)) \
                        or (k != rng and matcher.score(text, k) < PART_NAME_SCORE):
                    continue
                if k not in seen:
                    seen[k] = matches(k)
                # a property with no domain says nothing of its subject's class (no rdfs2 inference), nor does
                # one of another vocabulary's domain (it says the subject is of that class): only members whose
                # property's domain is the class or a superclass name properties *of* the class
                if sum(domain_fits(ontology, p, k) >= 1.0 for _, p, _ in seen[k]) < MIN_MEMBERS:
                    continue
                sim = max(matcher.score(text, o), matcher.score(text, k))
                rank = (len(seen[k]), round(sim, 6), int(k == rng), str(o), str(k))
                if best is None or rank > best[0]:
                    best = (rank, (k, o, sim, seen[k]))
    return None if best is None else best[1]


def occurrence_entities(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, datatype_props: list[URIRef],
                        object_props: list[URIRef], score: Callable[..., float],
                        described: frozenset[URIRef] = frozenset()) -> None:
    """Make the members of each repeating part of ``info``'s records one entity per occurrence (module
    docstring), replacing what the record's class took of them.

    Parts of the record (:func:`_in_record`; a part inside an object named for another class holds things
    of that object), and parts inside another part whose occurrences are entities of one class
    (:func:`_occurrence_class`; read after it, that class in place of the record's); a part some of whose
    members opened an entity already (the nested-object rules: :func:`.nested.sibling_members`) gives
    that entity the members the record's class took (:func:`_opened_class`); the part's class is none of
    the record's other entities' (a track's parameters inside a track are no second track). A part's
    members: references whose innermost repeating part it is (members of an object nested in an
    occurrence included), with values, neither a foreign key, the record's key nor taken by an entity
    other than the record's; a code name (``X17``) says nothing and is left out. Each candidate class's
    matching is the Hungarian algorithm on ``score(matcher, ref, prop, [])`` times the value fit and the domain fit
    (:func:`.fit.domain_fits`, > 0), pairs of at least :data:`.analysis.MIN_SCORE`. The members' earlier
    assignments to the record's class are replaced; the relation is recorded in ``info.part_relations``
    for the relation rows (:meth:`.rows.RowBuilder.object_rows`). ``described``: the classes other sources
    describe (:func:`part_class`). Run after the record's own property
    matching and before the entities' keys are chosen."""
    if info.cls is None or info.data.source.format not in ("json", "xml"):
        return
    others = {a.reference for a in info.assignments if a.cls != info.cls}
    present = frozenset(a.cls for a in info.assignments if a.cls != info.cls)
    parts: dict[str, list[str]] = {}
    opened: set[str] = set()
    for r in info.refs:
        if r in others:
            opened.update(parts_of(info.data, info.data.iterator, r))
        if r in info.fks or r in info.key or r in others or r == info.lang_col or is_code_name(r):
            continue
        chain = parts_of(info.data, info.data.iterator, r)
        if chain:
            parts.setdefault(chain[-1], []).append(r)
    c = ontology.compact
    # outer parts first: a part inside another (the sections of each chapter of a book) holds things of
    # the enclosing occurrence, not of the record, so it is read only once that occurrence is an entity,
    # related to it by the relations of that entity's class (the record's say nothing of it)
    for part, members in sorted(parts.items(), key=lambda kv: (len(parts_of(info.data, info.data.iterator,
                                                                            kv[1][0])), kv[0])):
        chain = parts_of(info.data, info.data.iterator, members[0])
        outer, owner = "", None
        if len(chain) > 1:
            outer = chain[-2]
            owner = _occurrence_class(info, outer)
            if owner is None:
                continue
        if not _in_record(info, ontology, matcher, part, outer, owner):
            continue
        values = {r: info.data.values(r) for r in members}

        def matches(cls: URIRef, taken: frozenset[URIRef] = frozenset()) -> list[tuple[str, URIRef, float]]:
            props = [p for p in datatype_props if p not in taken and domain_fits(ontology, p, cls) > 0]
            if not props:
                return []
            m = np.array([[score(matcher, r, p, []) * value_fit(ontology, p, values[r]) * domain_fits(ontology, p, cls)
                           for p in props] for r in members])
            rows, cols = linear_sum_assignment(-m)
            return [(members[i], props[j], float(m[i, j])) for i, j in zip(rows, cols) if m[i, j] >= MIN_SCORE]

        if part in opened:
            # some members already opened an entity of the occurrence (a reference's url): the members the
            # record's class took are that entity's values too, matched to its free properties
            found = _opened_class(info, part, matches)
            if found is None:
                continue
            cls, pairs = found
            why = f"the entity of each occurrence of the repeating part {part!r}, which its other members opened"
        else:
            if len(members) < MIN_MEMBERS:
                continue
            # the enclosing parts' classes count too: a node inside a node is no second entity of that class
            taken = present | frozenset(k for p in chain[:-1] if (k := _occurrence_class(info, p)) is not None)
            found = part_class(info, ontology, matcher, part, matches, object_props, described | taken, owner)
            if found is None:
                continue
            cls, rel, sim, pairs = found
            why = (f"one per occurrence of the repeating part {part!r} ({c(rel)} relates {c(owner or info.cls)} "
                   f"to it; the part's name fits it {sim:.2f})")
            info.part_relations[cls] = (rel, part, sim)
            if owner is not None:
                info.part_owners[cls] = owner
        info.assignments = [a for a in info.assignments if a.reference not in members]
        for r, p, s in pairs:
            info.assignments.append(Assignment(r, p, cls, s, [
                f"{r!r} ~ {c(p)} similarity {s:.2f} ({matcher.mode}), {domain_evidence(ontology, p, cls)}",
                f"{r!r} is a member of an occurrence: a value of its {c(cls)}, {why}, not one more value of the "
                f"record's {c(info.cls)}"]))


def _occurrence_class(info: SourceInfo, part: str) -> URIRef | None:
    """The class of the entities read one per occurrence of ``part``: the one class other than the record's
    whose references lie in ``part`` itself (its innermost repeating part), and not deeper; ``None`` when
    there is none or several."""
    found = {a.cls for a in info.assignments if a.cls != info.cls
             and (parts_of(info.data, info.data.iterator, a.reference) or [None])[-1] == part}
    return found.pop() if len(found) == 1 else None


def _opened_class(info: SourceInfo, part: str, matches: Callable[..., list[tuple[str, URIRef, float]]]
                  ) -> tuple[URIRef, list[tuple[str, URIRef, float]]] | None:
    """Of the classes members of ``part`` opened, the one whose free properties (those its entity does not
    have yet) take most of the members the record's class took, then the higher sum of their scores;
    ``None`` when none takes one."""
    mine: dict[URIRef, set[URIRef]] = {}
    for a in info.assignments:
        if a.cls != info.cls and (parts_of(info.data, info.data.iterator, a.reference) or [None])[-1] == part:
            mine.setdefault(a.cls, set()).add(a.prop)
    best = None
    for cls in sorted(mine, key=str):
        pairs = matches(cls, frozenset(mine[cls]))
        rank = (len(pairs), sum(s for _, _, s in pairs))
        if pairs and (best is None or rank > best[0]):
            best = (rank, cls, pairs)
    return None if best is None else best[1:]
