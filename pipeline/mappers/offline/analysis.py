"""Per-source analysis for the offline mapper: keys, foreign keys, link files, classes, properties.

Decisions, in order (each records evidence and a confidence in [0, 1]):

1. candidate key of every source (:func:`choose_key`): an identifier-like
   reference that is a key, else the name-like references if they form a key,
   else the first minimal key (:func:`.profile.minimal_keys`);
2. foreign keys: a non-key reference whose values are all included in another
   source's single-reference key (unary inclusion dependency);
3. link files: sources whose references are (almost) all foreign keys to two
   different sources;
4. primary class of a source: ``0.5 * name fit + 0.5 * property fit``, where
   name fit is the similarity of the file stem (and XML record element) to the
   class, and property fit the mean best similarity of the references to
   properties whose domain fits the class (subclass closure);
5. properties: maximum-weight bipartite matching (Hungarian algorithm,
   ``scipy.optimize.linear_sum_assignment``) between references and datatype
   properties of the primary class; a leftover reference that matches a
   property of another class well opens a secondary entity in the same record;
   a leftover text column opens an entity of a class that an object property
   links to the record's classes (``Student`` in ``student_sport.csv`` ->
   ``Person``, through ``practises``), named by its best name-like property;
6. composite foreign keys: a source holding every column of another source's
   multi-column key, with its value tuples all included (``lives(fname,lname)``
   in ``persons(fname,lname)``).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS
from scipy.optimize import linear_sum_assignment

from ...fno import udfs
from ...ontology import Ontology
from ...sources import SourceData
from .identity import ID_WORDS, code_like, non_distinguishing, source_kinds
from .names import NameMatcher, is_code_name, reference_words, words
from .profile import (distinct_records, distinct_values, included, is_key, is_numeric, minimal_keys,
                      profile_datatype, value_counts)

__all__ = ["SourceInfo", "ForeignKey", "CompositeKey", "Assignment", "analyse_keys", "find_foreign_keys",
           "find_composite_keys", "choose_key", "choose_class", "assign_properties", "domain_fits", "value_fit",
           "identifier_entities", "MIN_SCORE", "SECONDARY_SCORE", "LINKED_SCORE"]

log = logging.getLogger(__name__)

#: Least similarity for a reference -> property assignment.
MIN_SCORE = 0.45
#: Least similarity for a reference to open an entity of another class in the same record.
SECONDARY_SCORE = 0.7
#: Least name similarity of a column to a class for it to open an entity of that class
#: when several linked classes compete (one linked class needs no name evidence).
LINKED_SCORE = 0.55

#: XSD range -> profiled datatypes whose values it accepts.
_NARROW = {"xsd:integer": {"xsd:integer", "xsd:gYear"}, "xsd:int": {"xsd:integer", "xsd:gYear"},
           "xsd:nonNegativeInteger": {"xsd:integer", "xsd:gYear"},
           "xsd:decimal": {"xsd:integer", "xsd:decimal", "xsd:gYear"},
           "xsd:double": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:float": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:boolean": {"xsd:boolean"}, "xsd:date": {"xsd:date"}, "xsd:dateTime": {"xsd:dateTime", "xsd:date"},
           "xsd:gYear": {"xsd:gYear"}}

#: Classes never opened as an entity of a record.
_GENERIC = {OWL.Thing, RDFS.Resource}

_ID_WORDS = ID_WORDS


@dataclass
class ForeignKey:
    """``source.reference`` values included in ``target.target_ref`` (the target's key)."""

    reference: str
    target: str
    target_ref: str
    coverage: float


@dataclass
class CompositeKey:
    """``source.refs`` value tuples all included in ``target.target_refs`` (the target's multi-column key)."""

    refs: tuple[str, ...]
    target: str
    target_refs: tuple[str, ...]


@dataclass
class Assignment:
    """A reference mapped to a datatype property of a class."""

    reference: str
    prop: URIRef
    cls: URIRef
    score: float
    evidence: list[str] = field(default_factory=list)


@dataclass
class SourceInfo:
    """Everything decided about one source.

    Attributes:
        data: the loaded source. name / stem: file name and stem.
        refs: references with at least one non-empty value.
        key: key references of the primary entity; key_evidence says why.
        fks: foreign keys by reference. link: ``True`` for a link file.
        cls: primary class (``None`` for link files); cls_score: its score.
        assignments: reference -> property decisions (primary and secondary classes).
        keys: class -> key references (secondary classes get their own).
        cfks: composite foreign keys (:func:`find_composite_keys`).
        borrowed: classes whose entities this source only refers to (another source,
            reached by a composite key, describes them); their rows are not emitted here.
        nonkeys: reference -> why it cannot key these records (constant across the files of a kind).
        lang_col: the reference holding each record's language code (:func:`.language.language_column`):
            it qualifies the record's text values (their language tag), it is no property value.
    """

    data: SourceData
    name: str
    stem: str
    refs: list[str]
    key: tuple[str, ...] = ()
    key_evidence: str = ""
    fks: dict[str, ForeignKey] = field(default_factory=dict)
    link: bool = False
    cls: URIRef | None = None
    cls_score: float = 0.0
    cls_evidence: str = ""
    assignments: list[Assignment] = field(default_factory=list)
    keys: dict[URIRef, tuple[str, ...]] = field(default_factory=dict)
    cfks: list[CompositeKey] = field(default_factory=list)
    borrowed: set[URIRef] = field(default_factory=set)
    nonkeys: dict[str, str] = field(default_factory=dict)
    lang_col: str | None = None


#: Identifier words that head a name in head-first word order (``id_author``; Spanish/French
#: ``cod_parada``, ``codigo_postal``, ``code_client``).
_ID_HEADS = {"id", "cod", "codigo", "code", "ident"}


def _id_like(ref: str) -> bool:
    w = words(ref.split("/")[-1].lstrip("@"), expand=False)
    return bool(w) and (w[-1] in _ID_WORDS or w[0] in _ID_HEADS)


def _name_words(ref: str) -> list[str]:
    """Words of a reference's last step other than identifier words (``shape_id`` -> ``["shape"]``)."""
    return [w for w in words(ref.split("/")[-1], expand=False) if w not in _ID_WORDS]


def _classes_named(matcher: NameMatcher, classes: Iterable[URIRef], name: list[str]) -> list[URIRef]:
    """Classes whose (first) name is exactly the words ``name``, sorted."""
    return sorted(c for c in classes if name and (n := matcher.names(c)) and n[0].split() == name)


def _is_identifier_property(matcher: NameMatcher, prop: URIRef) -> bool:
    """A property named like an identifier (``gtfs:id``, ``ex:code``)."""
    names = matcher.names(prop)
    return bool(set(words(names[0] if names else "")) & _ID_WORDS)


def _name_like(ref: str) -> bool:
    return "name" in words(ref.split("/")[-1].lstrip("@"))


def choose_key(data: SourceData, refs: list[str], context: str = "") -> tuple[tuple[str, ...], str]:
    """Key references for the records of ``data`` restricted to ``refs``.

    Args:
        data: the source. refs: candidate references. context: words of the
            file stem / class, to prefer ``stop_id`` over ``zone_id`` in ``stops``.
    Returns:
        ``(key, evidence)``; ``key`` is ``()`` when ``refs`` is empty.
    """
    records = distinct_records(data.records)
    single = [r for r in refs if _id_like(r) and is_key(records, (r,))]
    if not single:  # numeric codes identify too (ISBN, member numbers); quantities and years do not
        single = [r for r in refs if code_like(data.values(r)) and is_key(records, (r,))]
    if single:
        ctx = set(words(context))
        single.sort(key=lambda r: (-len(set(words(r)) & ctx), len(r), refs.index(r)))
        weak = _weak_entity_key(records, refs, data, context, single)
        if weak is not None:
            return weak
        return (single[0],), f"identifier-like reference {single[0]!r} is unique over {len(records)} distinct records"
    names = tuple(r for r in refs if _name_like(r))
    if names and is_key(records, names):
        return names, f"name-like reference(s) {list(names)} identify the {len(records)} distinct records"
    seq = _sequence_key(records, refs, data)
    if seq is not None:  # before other composite keys: (trip_id, stop_sequence), not (trip_id, arrival_time)
        return seq, (f"an identifier plus the sequence number {seq[1]!r} identify the {len(records)} "
                     "distinct records")
    text = [r for r in refs if not is_numeric(data.values(r))]
    keys = [k for k in minimal_keys(records, text or refs)]
    if keys:
        return keys[0], f"minimal key {list(keys[0])} over {len(records)} distinct records"
    if text:
        # identifiers plus a whole-number column: a sequence number (shape_id + shape_pt_sequence);
        # measurements (coordinates, distances) are never part of a key
        ordinal = [r for r in refs if r not in text and _whole_numbers(data.values(r))]
        keys = [k for k in minimal_keys(records, text + ordinal) if set(k) & set(text)]
        if keys:
            return keys[0], (f"minimal key {list(keys[0])} over {len(records)} distinct records "
                             f"(text references with whole-number column(s))")
    return tuple(refs), "no key found; all references used"


_SEQUENCE_WORDS = {"sequence", "seq", "order", "index", "position"}
#: Least share of records holding an identifier plus sequence number for the pair to key them.
SEQUENCE_COVERAGE = 0.9


def _singular(ws: list[str]) -> list[str]:
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in ws]


def _weak_entity_key(records: list, refs: list[str], data: SourceData, context: str,
                     single: list[str]) -> tuple[tuple[str, ...], str] | None:
    """A weak entity's key: another identifier plus a sequence number (``stop_times``: ``trip_id`` +
    ``stop_sequence``), when no unique identifier names the file's entity (``stop_id`` names a stop,
    not a stop time, and is unique in a sample only by chance)."""
    entity = _singular(words(context, expand=False))
    if not entity or any(_singular(_name_words(r)) in ([], entity) for r in single):
        return None
    key = _sequence_key(records, refs, data)
    if key is None:
        return None
    return key, (f"weak entity: {key[0]!r} plus the sequence number {key[1]!r} identify the {len(records)} "
                 f"distinct records; no unique identifier names a {' '.join(entity)} "
                 f"({', '.join(repr(r) for r in single)} name other entities)")


def _sequence_key(records: list, refs: list[str], data: SourceData) -> tuple[str, str] | None:
    """``(identifier, sequence number)`` that together identify the records, or ``None``."""
    seq = [r for r in refs if _whole_numbers(data.values(r))
           and set(words(r.split("/")[-1], expand=False)) & _SEQUENCE_WORDS]
    for owner in (r for r in refs if _id_like(r)):
        for q in seq:
            if is_key(records, (owner, q)):
                return owner, q
    # a sequence number missing in a few records (a data fault: GTFS requires stop_sequence) still
    # identifies the others: it is a position by definition, while a time or measure that happens
    # to be unique in the sample is not an identifier
    for owner in (r for r in refs if _id_like(r)):
        for q in seq:
            have = [r for r in records if any(r.get(owner, ())) and any(r.get(q, ()))]
            if len(have) >= SEQUENCE_COVERAGE * len(records) and is_key(have, (owner, q)):
                return owner, q
    return None


def _whole_numbers(values: list[str]) -> bool:
    vals = distinct_values(values)  # each distinct value tested once
    return bool(vals) and all(re.fullmatch(r"[+-]?\d+(\.0+)?", v) for v in vals)


def analyse_keys(infos: list[SourceInfo]) -> None:
    """Set :attr:`SourceInfo.key` of every source (before classes are known).

    References that do not tell apart the records of the files of one kind
    (:func:`.identity.non_distinguishing`) are no key candidates and go into
    :attr:`SourceInfo.nonkeys` with the reason.
    """
    for group in source_kinds([i.data for i in infos]):
        members = [infos[i] for i in group]
        shared = [r for r in members[0].refs if all(r in m.refs for m in members)]
        bad = non_distinguishing([m.data for m in members], shared)
        for m in members:
            m.nonkeys = dict(bad)
    for info in infos:
        refs = [r for r in info.refs if r not in info.nonkeys]
        info.key, info.key_evidence = choose_key(info.data, refs or info.refs, info.stem)
        if info.nonkeys:
            info.key_evidence += "; not keys: " + "; ".join(info.nonkeys.values())


def find_foreign_keys(infos: list[SourceInfo]) -> None:
    """Fill :attr:`SourceInfo.fks` and :attr:`SourceInfo.link` from unary inclusion dependencies."""
    for s in infos:
        for ref in s.refs:
            best: ForeignKey | None = None
            for t in infos:
                if t is s or len(t.key) != 1:
                    continue
                cov = included(s.data.values(ref), t.data.values(t.key[0]))
                name_hint = bool(set(words(ref)) & (set(words(t.stem)) | set(words(t.key[0]))))
                if cov == 1.0 and (best is None or name_hint):
                    best = ForeignKey(ref, t.name, t.key[0], cov)
            if best:
                s.fks[ref] = best
        targets = {fk.target for fk in s.fks.values()}
        if len(s.fks) >= 2 and len(targets) >= 2 and len(s.refs) - len(s.fks) <= 1:
            s.link = True
        elif len(s.key) == 1 and (ref_is_own_key := [r for r in s.key if r in s.fks]):
            # (a part of a composite key that is a foreign key names the owner of a weak entity: kept)
            for r in ref_is_own_key:
                del s.fks[r]  # a source's own key included in another key: same entity, not a link


def find_composite_keys(infos: list[SourceInfo]) -> None:
    """Fill :attr:`SourceInfo.cfks`: sources holding all columns of another source's multi-column key
    (same names) whose distinct value tuples are all among the target's key tuples."""
    for s in infos:
        for t in infos:
            if t is s or len(t.key) < 2 or not all(k in s.refs for k in t.key):
                continue
            have = {tuple(tuple(r.get(k, ())) for k in t.key) for r in s.data.records}
            want = {tuple(tuple(r.get(k, ())) for k in t.key) for r in t.data.records}
            have = {h for h in have if all(h)}
            if have and have <= want:
                s.cfks.append(CompositeKey(t.key, t.name, t.key))


def value_fit(ontology: Ontology, prop: URIRef, values: list[str]) -> float:
    """1.0 when the values fit the property's XSD range (or it has none), 0.3 when they do not.

    Only ranges narrower than string are tested (numbers, booleans, dates), with
    :func:`.profile.profile_datatype`'s lexical patterns; dates and booleans that the
    ``normalizeDate`` / ``normalizeBoolean`` functions turn into the range's form score 0.9.
    """
    ranges = {ontology.compact(r) for r in ontology.ranges(prop)}
    narrow = ranges & set(_NARROW)
    if not narrow or not values:
        return 1.0
    found, _ = profile_datatype(values)
    if any(found in _NARROW[r] for r in narrow):
        return 1.0
    if "xsd:gYear" in narrow and all(re.fullmatch(r"\d{4}", v) for v in distinct_values(values)):
        return 1.0  # four-digit whole numbers profile as xsd:integer but are gYear lexical forms
    if "xsd:date" in narrow and sum(n for v, n in value_counts(values).items()
                                    if udfs.normalize_date(v)) >= 0.8 * len(values):
        return 0.9  # dates in another lexical form: toDate() will normalise them (see .functions)
    if "xsd:boolean" in narrow and all(udfs.normalize_boolean(v) for v in value_counts(values)):
        return 0.9  # yes/no, Y/N ...: toBoolean() will normalise them
    return 0.3


def domain_fits(ontology: Ontology, prop: URIRef, cls: URIRef) -> float:
    """1.0 when a domain of ``prop`` is ``cls`` or a superclass, 0.8 without domain, else 0."""
    doms = ontology.domains(prop)
    if not doms:
        return 0.8
    return 1.0 if doms & ontology.superclasses(cls) else 0.0


def choose_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
                 props: list[URIRef]) -> None:
    """Set the primary class of a (non-link) source from its name and its references."""
    names = [" ".join(words(info.stem))]
    it = (info.data.iterator or "").rstrip("]*[").split("/")[-1].split(".")[-1]
    if it and it not in ("$", ""):
        names.append(" ".join(words(it)))
    # code names (X17) say nothing about the class: the file name and the kinds of their values decide
    refs = [r for r in info.refs if r not in info.fks and r != info.lang_col and not is_code_name(r)]
    coded = [r for r in info.refs if r not in info.fks and r != info.lang_col and is_code_name(r)]
    from .elimination import value_kind  # (elimination builds on this module)
    coded_kinds = [value_kind(info.data.values(r)) for r in coded]
    best: tuple[float, URIRef | None, str] = (-1.0, None, "")
    for cls in classes:
        name_fit = max(matcher.score(n, cls) for n in names)
        fits = [p for p in props if domain_fits(ontology, p, cls) == 1.0]
        prop_fit = 0.0
        if refs and fits:
            prop_fit = float(np.mean([max(matcher.score(" ".join(reference_words(r)), p) for p in fits) for r in refs]))
        if not refs and coded:
            prop_fit = _kind_fit(ontology, fits, coded_kinds)
        score = 0.5 * name_fit + 0.5 * prop_fit if refs or coded else name_fit
        if score > best[0]:
            best = (score, cls, f"name fit {name_fit:.2f} ({names[0]!r}), property fit {prop_fit:.2f} "
                                f"over {len(refs)} reference(s)")
    info.cls_score, info.cls, info.cls_evidence = best


def _kind_fit(ontology: Ontology, props: list[URIRef], kinds: list[str | None]) -> float:
    """Share of columns and properties that pair up by value kind (maximum bipartite matching of
    column kinds to the kinds the properties' ranges admit, over the larger of the two counts): a
    source of dates, prices and counts fits a class whose properties range over those, not a class
    of names only."""
    from .elimination import range_kinds

    if not props or not kinds:
        return 0.0
    m = np.array([[1.0 if k in range_kinds(ontology, p) else 0.0 for p in props] for k in kinds])
    rows, cols = linear_sum_assignment(-m)
    return float(m[rows, cols].sum()) / max(len(kinds), len(props))


def _score(matcher: NameMatcher, ref: str, prop: URIRef, context: list[str]) -> float:
    own = " ".join(reference_words(ref))
    return max(matcher.score(own, prop), matcher.score(" ".join(context + reference_words(ref, 0)), prop) - 0.05)


def assign_properties(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                      datatype_props: list[URIRef], described: dict[URIRef, SourceInfo] | None = None) -> None:
    """Match references to datatype properties (primary class first, then secondary classes).

    ``described``: class -> the source whose primary class it is. A reference that would open a
    second entity of a class another source describes, and whose values all occur in a unique
    column of that source, refers to those entities: it becomes a foreign key (one entity per
    key, never a second copy of the referenced entity)."""
    if info.cls is None:
        return
    # a code name (X17) is no name evidence: such columns are left to .elimination (values, keys)
    refs = [r for r in info.refs if r not in info.fks and r != info.lang_col and not is_code_name(r)]
    context = words(info.stem)
    mine = [p for p in datatype_props if domain_fits(ontology, p, info.cls) > 0]
    if refs and mine:
        # the record key is the entity's identifier: it fits an identifier property best
        # (stop_id, not zone_id, is the gtfs:id of a stop)
        key = info.key[0] if len(info.key) == 1 else None
        id_props = {p for p in mine if _is_identifier_property(matcher, p)}
        m = np.array([[(_score(matcher, r, p, context) + (0.2 if r == key and p in id_props else 0.0))
                       * domain_fits(ontology, p, info.cls)
                       * value_fit(ontology, p, info.data.values(r)) for p in mine] for r in refs])
        rows, cols = linear_sum_assignment(-m)
        for i, j in zip(rows, cols):
            if m[i, j] >= MIN_SCORE:
                info.assignments.append(Assignment(refs[i], mine[j], info.cls, float(m[i, j]),
                                                   [f"{refs[i]!r} ~ {ontology.compact(mine[j])} similarity "
                                                    f"{m[i, j]:.2f} ({matcher.mode}), domain fits "
                                                    f"{ontology.compact(info.cls)}"]))
    done = {a.reference for a in info.assignments}
    used = {a.prop for a in info.assignments}
    for r in refs:
        if r in done:
            continue
        cands = [(_score(matcher, r, p, []) * value_fit(ontology, p, info.data.values(r)), p)
                 for p in datatype_props if p not in used and ontology.domains(p)]
        if not cands:
            continue
        score, p = max(cands, key=lambda x: x[0])
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
    _linked_entities(info, ontology, matcher, datatype_props, set(described or {}) - {info.cls})
    own_of = {c: tuple(x.reference for x in info.assignments if x.cls == c) for c in {a.cls for a in info.assignments}}
    others = {r for c, refs in own_of.items() if c != info.cls for r in refs}
    if info.key and set(info.key) <= others and own_of.get(info.cls):
        own = own_of[info.cls]  # the record key names another entity: the primary one has its own
        info.key = tuple(r for r in own if _id_like(r)) or tuple(r for r in own if _name_like(r)) or own
        info.key_evidence = f"{list(info.key)}: the record key belongs to another entity of the record"
    for cls, own in own_of.items():
        if cls == info.cls:
            info.keys[cls] = info.key
        else:  # a second entity in a record is identified by its own values
            info.keys[cls] = tuple(r for r in own if _id_like(r)) or own
    if info.cls not in info.keys:
        info.keys[info.cls] = info.key


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
                           _name_words(ref))
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
            if r in done or r in info.fks or not _id_like(r):
                continue
            named = _classes_named(matcher, classes, _name_words(r))
            if len(named) != 1 or named[0] in primary or named[0] in info.keys:
                continue
            cls = named[0]
            props = sorted((p for p in id_props if domain_fits(ontology, p, cls) == 1.0), key=str)
            if not props:
                continue
            info.assignments.append(Assignment(r, props[0], cls, 0.8, [
                f"identifier column {r!r} names class {ontology.compact(cls)}, which no source describes",
                f"{ontology.compact(props[0])} is an identifier property whose domain covers {ontology.compact(cls)}"]))
            info.keys[cls] = (r,)
            done.add(r)


def _linked_entities(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                     datatype_props: list[URIRef], elsewhere: set[URIRef] = frozenset()) -> None:
    """Open entities of classes linked to the record's classes from leftover text columns.

    A column left unassigned whose values are text (not numbers, not identifiers) is an
    entity of a class that an object property links (domain/range, subclass closure) to a
    class already in the record: the only such class, or the one its name resembles most
    (at least :data:`LINKED_SCORE`). Its value fills that class's best name-like property.
    Classes in ``elsewhere`` (another source describes their entities) are not opened here: a text
    value of this record is no key of those entities, and keying one by it would mint a copy.
    """
    done = {a.reference for a in info.assignments}
    present: set[URIRef] = {a.cls for a in info.assignments} | ({info.cls} if info.cls is not None else set())
    used = {a.prop for a in info.assignments}
    oprops = sorted(p for p in ontology.object_properties if ontology.domains(p) and ontology.ranges(p))
    for r in info.refs:
        values = info.data.values(r)
        # a code name gives no sign of another entity
        if r in done or r in info.fks or r == info.lang_col or is_code_name(r) or _id_like(r) \
                or is_numeric(values) or not any(v.strip() for v in values):
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
        cands = sorted(((max(_score(matcher, r, p, []), matcher.score("name", p)) * value_fit(ontology, p, values),
                         str(p), p) for p in props), reverse=True)
        if not cands or cands[0][0] < MIN_SCORE:
            continue
        score, _, p = cands[0]
        used.add(p)
        present.add(cls)
        info.assignments.append(Assignment(r, p, cls, score, [
            f"{r!r} holds text values and {ontology.compact(linked[cls])} links {ontology.compact(cls)} to the "
            f"record's entities" + ("" if len(linked) == 1 else f"; name similarity {sim:.2f} to "
                                    f"{ontology.compact(cls)}"),
            f"{ontology.compact(p)} is the name-like property of {ontology.compact(cls)} ({score:.2f})"]))
