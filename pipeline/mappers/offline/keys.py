"""Keys of the offline mapper's sources: candidate keys, foreign keys, link files, composite foreign keys.

Steps 1-3 and 6 of :mod:`.analysis` (data evidence: uniqueness and inclusion of values, functional
dependencies, identifier-like names from :mod:`.identity`; once classes are chosen, the vocabulary's object
properties tie a column to the source it refers to, :func:`find_foreign_keys_named_by_relations`); classes
and properties are decided in :mod:`.classes` and :mod:`.properties`.
"""
from __future__ import annotations

import re

from rdflib import URIRef

from pipeline.compile.parts import holds_array
from pipeline.ontology import Ontology
from pipeline.sources.columns import DistinctRecords
from pipeline.sources.load import SourceData
from pipeline.mappers.offline.analysis import CompositeKey, ForeignKey, SourceInfo
from pipeline.mappers.offline.identity import ID_WORDS, code_like, id_like, name_like, name_words, non_distinguishing, source_kinds
from pipeline.mappers.offline.fit import domain_fits
from pipeline.mappers.offline.names import NameMatcher, is_code_name, own_words, words
from pipeline.mappers.offline.profile import (decimal_comma_column, distinct_records, distinct_values, included, is_key,
                                              is_numeric, minimal_keys)
from pipeline.mappers.offline.rows import range_fits

__all__ = ["choose_key", "analyse_keys", "find_foreign_keys", "find_foreign_keys_into_new_keys", "find_composite_keys", "find_self_references", "self_reference_columns",
           "find_foreign_keys_named_by_relations", "one_to_many_keys", "key_by_references", "SEQUENCE_COVERAGE", "DANGLING_INCLUSION",
           "RELATION_NAME_SCORE"]

def choose_key(data: SourceData, refs: list[str], context: str = "") -> tuple[tuple[str, ...], str]:
    """Key references for the records of ``data`` restricted to ``refs``.

    Args:
        data: the source. refs: candidate references. context: words of the
            file stem / class, to prefer ``stop_id`` over ``zone_id`` in ``stops``.
    Returns:
        ``(key, evidence)``; ``key`` is ``()`` when ``refs`` is empty.
    """
    records = distinct_records(data.records)
    single = [r for r in refs if id_like(r) and is_key(records, (r,))]
    if not single:  # numeric codes identify too (ISBN, member numbers); quantities and years do not
        single = [r for r in refs if code_like(data.values(r)) and is_key(records, (r,))]
    if single:
        ctx = set(words(context))
        single.sort(key=lambda r: (-len(set(words(r)) & ctx), len(r), refs.index(r)))
        weak = _weak_entity_key(records, refs, data, context, single)
        if weak is not None:
            return weak
        return (single[0],), f"identifier-like reference {single[0]!r} is unique over {len(records)} distinct records"
    names = tuple(r for r in refs if name_like(r))
    if names and is_key(records, names):
        return names, f"name-like reference(s) {list(names)} identify the {len(records)} distinct records"
    seq = _sequence_key(records, refs, data)
    if seq is not None:  # before other composite keys: (trip_id, stop_sequence), not (trip_id, arrival_time)
        return seq, (f"an identifier plus the sequence number {seq[1]!r} identify the {len(records)} "
                     "distinct records")
    # a number written with a decimal comma (`12 345,67`, `-2 500,00`: a French or German amount) is a
    # number as one with a point is: a measured quantity, no name of the record, whatever the locale
    text = [r for r in refs if not is_numeric(data.values(r)) and not decimal_comma_column(data.values(r))]
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
    if not entity or any(_singular(name_words(r)) in ([], entity) for r in single):
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
    for owner in (r for r in refs if id_like(r)):
        for q in seq:
            if is_key(records, (owner, q)):
                return owner, q
    # a sequence number missing in a few records (a data fault: GTFS requires stop_sequence) still
    # identifies the others: it is a position by definition, while a time or measure that happens
    # to be unique in the sample is not an identifier
    for owner in (r for r in refs if id_like(r)):
        for q in seq:
            if _key_where_present(records, owner, q):
                return owner, q
    return None


def _key_where_present(records: list, owner: str, q: str) -> bool:
    """``(owner, q)`` identifies the records holding both, and they are at least
    :data:`SEQUENCE_COVERAGE` of all. Columnar records are tested on their columns (one pass over
    two lists: a million records in well under a second, not a dict built per record)."""
    if isinstance(records, DistinctRecords):
        a, b = records.column(owner), records.column(q)
        if a is None or b is None:
            return False
        pairs = [(x, y) for x, y in zip(a, b) if x and y]
        return bool(pairs) and len(pairs) >= SEQUENCE_COVERAGE * len(records) and len(set(pairs)) == len(pairs)
    have = [r for r in records if any(r.get(owner, ())) and any(r.get(q, ()))]
    return len(have) >= SEQUENCE_COVERAGE * len(records) and is_key(have, (owner, q))


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
        # a value that may repeat in a record (a JSON array, even of one value; an element repeating within a
        # record) is no key of the record while another reference is: a record holding two values would be two
        # subjects, and an entity per occurrence of a part keyed by its position would combine every value of
        # both (a cross product)
        once = [r for r in refs if not holds_array(info.data, info.data.iterator, r)]
        info.key, info.key_evidence = choose_key(info.data, once or refs or info.refs, info.stem)
        if info.nonkeys:
            info.key_evidence += "; not keys: " + "; ".join(info.nonkeys.values())


def _alternate_keys(t: SourceInfo) -> list[str]:
    """Columns of ``t`` other than its key that are unique over its records and hold text (a column of
    whole numbers is unique by chance as often as not: ranks, counts)."""
    if len(t.key) != 1:
        return []
    records = distinct_records(t.data.records)
    return [c for c in t.refs if c != t.key[0] and not _whole_numbers(t.data.values(c))
            and is_key(records, (c,))]


def _names_source(ref: str, stem: str) -> bool:
    """A word of ``ref`` is a word of the file name ``stem``, singular, or a compound whose head (its
    last part, as English compounds go) is one: ``playlist_subgenre`` names ``genres``."""
    own = {w for w in _singular(words(stem)) if len(w) >= 3}
    return any(w in own or any(len(o) >= 4 and w.endswith(o) for o in own) for w in _singular(words(ref)))


def _chance_inclusion(ref: str, s: SourceInfo, t: SourceInfo, name_hint: bool) -> bool:
    """The values of ``s.ref`` fall among the whole-number key of ``t`` by chance, not by reference.

    A key of whole numbers numbers its records ``1..n``, and every column of small whole numbers (a
    type code, a count, a direction, a rank) is included in such a range whether or not it refers to
    the records: an inclusion dependency is a foreign key's necessary condition, not evidence of one
    (Codd's relational model defines the key; which column refers to it is the schema's say). Such an
    inclusion counts only when the column's name says it refers: it names ``t`` (a word of its file
    name or key, singular: ``route_id`` in ``routes``; :func:`_names_source`) or is named as an
    identifier (``_id``, ``_ref``, ``_no``: :func:`.identity.id_like`). A code-named column (``X17``)
    says nothing either way and keeps the inclusion. A key of text or of fixed-width codes is no
    range that other numbers fall into, so its inclusions stand."""
    if name_hint or is_code_name(ref) or id_like(ref) or _names_source(ref, t.stem):
        return False
    return _whole_numbers(t.data.values(t.key[0])) and _whole_numbers(s.data.values(ref)) \
        and not code_like(t.data.values(t.key[0]))


#: Least share (exclusive) of a column's distinct values that another source's key must hold for the column to
#: refer to it when some are not there (dangling references): more than half, "most", as a column whose values
#: mostly fit a range is mapped to it (:data:`.fit.MOSTLY_FITS`).
DANGLING_INCLUSION = 0.5


def _shape(value: str) -> str:
    """The character classes of ``value``: letters ``a``, digits ``9``, the rest as written (``ST009`` ->
    ``aa999``)."""
    return re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "9", value))


def _dangling_foreign_key(ref: str, s: SourceInfo, infos: list[SourceInfo]) -> ForeignKey | None:
    """A foreign key some of whose values the referenced source lacks: ``obs.station_id`` -> ``stations``
    when one station of the observations is missing from the station list (``ST009``).

    Real exports reference records another file does not hold (a station closed, a list cut at a date), and
    a relation lost for one dangling value loses it for every record. An inclusion dependency that holds for
    most values is a foreign key with faults when the data say so in two more ways: a word of the column's
    name other than identifier words names the referenced source (a word of its file name, singular:
    ``station_id`` names ``stations.csv``), or the column has the name of its key (``sku`` and ``sku``; a
    shared word alone is no sign: ``UniqueOPID/@Value`` and ``SOLOPEnd/@Value`` share ``Value``, the XML
    attribute every element of the file has), and every value not found has the shape of the
    key's values (``ST009`` as ``ST001``: a key of that scheme, not a value of another kind). Without the
    name the inclusion may be chance (BLINKG's ``location_type`` 0/1 among route short names), and a key of
    whole numbers ``1..n`` holds most small numbers of any column whatever its name (``route_type`` in
    ``routes.route_id``), so it takes no dangling reference (a fixed-width code does). At least two distinct values must be found, and more than
    :data:`DANGLING_INCLUSION` of them. The foreign key keeps the values not found (:attr:`ForeignKey.missing`):
    its relation row is marked for review with their count (:mod:`.rows`), and the compiler reports the
    unmatched join keys when the KG is made."""
    values = distinct_values(s.data.values(ref))
    own = {w for w in _singular(words(ref, expand=False)) if w not in ID_WORDS and len(w) >= 3}
    if len(values) < 2:
        return None
    best: ForeignKey | None = None
    for t in infos:
        if t is s or len(t.key) != 1:
            continue
        if not own & set(_singular(words(t.stem, expand=False))) and ref.lower() != t.key[0].lower():
            continue
        key_values = t.data.values(t.key[0])
        if _whole_numbers(key_values) and not code_like(key_values):
            continue  # a key numbering its records 1..n holds most small numbers of any column
        keys = distinct_values(key_values)
        found, missing = values & keys, values - keys
        coverage = len(found) / len(values)
        if len(found) < 2 or coverage <= DANGLING_INCLUSION or not missing:
            continue
        shapes = {_shape(k) for k in keys}
        if any(_shape(v) not in shapes for v in missing):
            continue
        if best is None or coverage > best.coverage:
            best = ForeignKey(ref, t.name, t.key[0], coverage, tuple(sorted(missing)))
    return best


def find_foreign_keys(infos: list[SourceInfo]) -> None:
    """Fill :attr:`SourceInfo.fks` and :attr:`SourceInfo.link` from unary inclusion dependencies.

    A column whose values are all among the values of another source's key is a foreign key to it.
    Failing that, one whose (two or more distinct) values are all among another *unique* text column
    of a source that its name names (``playlist_genre`` in ``genres.csv``'s ``genre_name``) refers to
    that source by the alternate key (a unique column is a candidate key: Codd's relational model; the
    inclusion dependency is the foreign key's definition); the join is on that column. Failing both, one
    that names the source and whose values are mostly, not all, in its key refers to it with dangling values
    (:func:`_dangling_foreign_key`)."""
    alternates = {t.name: _alternate_keys(t) for t in infos}
    for s in infos:
        for ref in s.refs:
            best: ForeignKey | None = None
            for t in infos:
                if t is s or len(t.key) != 1:
                    continue
                cov = included(s.data.values(ref), t.data.values(t.key[0]))
                name_hint = bool(set(words(ref)) & (set(words(t.stem)) | set(words(t.key[0]))))
                if cov == 1.0 and not _chance_inclusion(ref, s, t, name_hint) and (best is None or name_hint):
                    best = ForeignKey(ref, t.name, t.key[0], cov)
            if best is None and ref not in s.key and len(distinct_values(s.data.values(ref))) >= 2 \
                    and not _whole_numbers(s.data.values(ref)):
                for t in infos:
                    if t is s or not _names_source(ref, t.stem):
                        continue
                    for c in alternates[t.name]:
                        if included(s.data.values(ref), t.data.values(c)) == 1.0:
                            best = ForeignKey(ref, t.name, c, 1.0)
                            break
                    if best:
                        break
            if best is None and ref not in s.key:
                best = _dangling_foreign_key(ref, s, infos)
            if best:
                s.fks[ref] = best
        targets = {fk.target for fk in s.fks.values()}
        if len(s.fks) >= 2 and len(targets) >= 2 and len(s.refs) - len(s.fks) <= 1:
            s.link = True
        elif len(s.key) == 1 and (ref_is_own_key := [r for r in s.key if r in s.fks]):
            # (a part of a composite key that is a foreign key names the owner of a weak entity: kept)
            for r in ref_is_own_key:
                del s.fks[r]  # a source's own key included in another key: same entity, not a link


def find_foreign_keys_into_new_keys(infos: list[SourceInfo], before: dict[str, tuple[str, ...]]) -> None:
    """Look for foreign keys again into the sources whose key changed since :func:`find_foreign_keys`.

    Foreign keys are found before classes and properties are known, into each source's first key
    candidate; the ontology's identifier may replace it later (:func:`.identity.prefer_identifier_key`:
    ``UniqueOPID`` maps to ``era:uopid``, an identifier of ``era:OperationalPoint``). Every unique column
    is a candidate key (Codd's relational model), so an inclusion dependency into the new key is a foreign
    key as much as one into the first: ``SectionOfLine/SOLOPStart/@Value``, whose values are all operational
    points' ``UniqueOPID`` values, refers to them. Only columns no decision has taken yet are read (a
    column already mapped to a property stays so), with the same tests as the first pass (all values
    included, no chance inclusion of small whole numbers). A source's own key counts too when it keys
    records of another class than the referenced ones (a section of line keyed by its end point is no
    operational point): the key of a chance (a minimal key) is no sign that both are one entity.

    Args:
        infos: every source, after identifier keys are chosen. before: source name -> its key when
            :func:`find_foreign_keys` ran.
    """
    changed = [t for t in infos if len(t.key) == 1 and before.get(t.name) != t.key and t.cls is not None]
    for s in infos:
        if s.link or s.cls is None:
            continue
        for ref in _open_columns(s):
            for t in changed:
                if t is s or (ref in s.key and t.cls == s.cls):
                    continue
                values = s.data.values(ref)
                if len(distinct_values(values)) < 2 or included(values, t.data.values(t.key[0])) < 1.0:
                    continue
                hint = bool(set(words(ref)) & (set(words(t.stem)) | set(words(t.key[0]))))
                if not _chance_inclusion(ref, s, t, hint):
                    s.fks[ref] = ForeignKey(ref, t.name, t.key[0], 1.0)
                    break


def _open_columns(s: SourceInfo) -> list[str]:
    """The columns of ``s`` no decision has taken: not mapped to a property, not a foreign key, not its
    language column, and not in its key unless that key is a minimal key of chance."""
    taken = {a.reference for a in s.assignments} | set(s.fks) | {s.lang_col}
    return [ref for ref in s.refs
            if ref not in taken and not (ref in s.key and not s.key_evidence.startswith("minimal key"))]


#: Least name similarity of a column to an object property for the property's range to tie the column to the
#: source describing that class (a name match's level, as :data:`.classes.SUBCLASS_EVIDENCE`).
RELATION_NAME_SCORE = 0.7


def find_foreign_keys_named_by_relations(infos: list[SourceInfo], ontology: Ontology, matcher: NameMatcher,
                                         object_props: list[URIRef]) -> None:
    """Foreign keys into a unique column of a source that the column's name ties to through the vocabulary.

    A column whose values are all in a unique text column of another source (a candidate key, Codd's
    relational model; not its first key: ``organizations.member`` in ``people.nick``, the people keyed by
    ``name``) refers to that source when its name names, at a name match's level
    (:data:`RELATION_NAME_SCORE`), an object property usable on its records' class whose range is the other
    source's class (``member`` ~ ``foaf:member``, domain ``foaf:Organization``, range ``foaf:Person``):
    ``rdfs:range`` makes the property's objects entities of that class (RDF 1.1 Semantics, rdfs3), and the
    inclusion dependency says which. The vocabulary stands in for the file name :func:`find_foreign_keys`
    asks of an alternate key (``member`` names no ``people``). Whole numbers and a single value are left
    out (they fall into any unique column by chance), as are columns a decision took, and a key column
    unless the key is a minimal key of chance (:func:`one_to_many_keys` then reads the records again).
    Runs after classes and properties are chosen."""
    alternates = {t.name: [*t.key[:1], *_alternate_keys(t)] for t in infos if len(t.key) == 1}
    for s in infos:
        if s.link or s.cls is None:
            continue
        for ref in _open_columns(s):
            values = s.data.values(ref)
            if len(distinct_values(values)) < 2 or _whole_numbers(values):
                continue
            text = own_words(ref, s.stem)
            for t in infos:
                if t is s or t.cls is None or t.link or t.name not in alternates:
                    continue
                # the inclusion first (set operations), the vocabulary only for a column it holds for
                col = next((c for c in alternates[t.name] if included(values, t.data.values(c)) == 1.0), None)
                if col is not None and any(domain_fits(ontology, p, s.cls) > 0 and range_fits(ontology, p, t.cls)
                                           and matcher.score(text, p) >= RELATION_NAME_SCORE for p in object_props):
                    s.fks[ref] = ForeignKey(ref, t.name, col, 1.0)
                    break


def key_by_references(infos: list[SourceInfo]) -> None:
    """Key a source by the column other sources refer to it by, when its key is one of chance.

    A foreign key refers to a candidate key of the referenced relation (Codd's relational model): the column
    other records use to name these records is the one the data set identifies them by. People keyed by their
    given name (``name``: the name-like columns that happen to tell two records apart) while
    ``organizations.member`` refers to them by ``nick`` are keyed by ``nick``: two people sharing a first
    name would otherwise be one entity, and a person's IRI would not be the one the members' references
    spell. Only a key of chance is replaced (name-like columns or a minimal key, never an identifier-named
    column nor an ontology identifier: :func:`choose_key`, :func:`.identity.prefer_identifier_key`), and only
    when every foreign key into the source, from other sources, uses the one column. Runs after the foreign
    keys into alternate keys are found (:func:`find_foreign_keys`, :func:`find_foreign_keys_named_by_relations`).
    """
    for t in infos:
        if t.link or t.cls is None or len(t.key) != 1 or not t.key_evidence.startswith(("name-like", "minimal key")):
            continue
        refs = [(s, fk) for s in infos if s is not t for fk in s.fks.values() if fk.target == t.name]
        cols = {fk.target_ref for _, fk in refs}
        if len(cols) != 1 or (col := next(iter(cols))) == t.key[0] or col not in t.refs:
            continue
        records = distinct_records(t.data.records)
        if not is_key(records, (col,)):
            continue
        old = t.key
        named = ", ".join(sorted({f"{s.name}.{fk.reference}" for s, fk in refs}))
        t.key = (col,)
        t.key_evidence = (f"{col!r} is unique over {len(records)} distinct records and other sources refer to "
                          f"them by it ({named}): a foreign key names a candidate key, so it identifies the "
                          f"records (the key of chance was {list(old)})")
        for cls, key in list(t.keys.items()):
            if key == old:
                t.keys[cls] = t.key


def _depends_on(records: list | DistinctRecords, det: tuple[str, ...], dep: str) -> bool:
    """The functional dependency ``det -> dep`` holds over ``records``: records agreeing on ``det`` agree on
    ``dep``. Columnar records are read column by column (no dict per record)."""
    if isinstance(records, DistinctRecords):
        cols = [records.column(d) for d in (*det, dep)]
        if any(c is None for c in cols):
            return False
        rows = zip(zip(*cols[:-1]), cols[-1])
    else:
        rows = ((tuple(tuple(r.get(d, ())) for d in det), tuple(r.get(dep, ()))) for r in records)
    seen: dict = {}
    for k, v in rows:
        if seen.setdefault(k, v) != v:
            return False
    return True


def one_to_many_keys(infos: list[SourceInfo]) -> None:
    """Drop a foreign key from a minimal key of chance when the rest of the key identifies the entity.

    ``organizations.csv`` (``name``, ``homepage``, ``member``) repeats each organization once per member:
    no column alone tells the records apart, and the first minimal key, ``(name, member)``, would make one
    organization per membership (``UPM_ocorcho``, ``UPM_dachafra``) and leave no link to any person. When a
    column of that key is a foreign key (``member`` -> ``people.nick``), the rest of the key holds no
    foreign key, and every other column is functionally dependent on the rest alone (``name -> homepage``:
    a partial dependency on the key, which second normal form puts in a relation of its own, the entity's;
    E. F. Codd, "Further normalization of the data base relational model", 1971), the records are one
    entity per value of the rest with a one-to-many relation to the referenced records: the rest keys the
    entity and the foreign key gives one link per record. At least one other column must depend on the
    rest (a dependency holding for no column says nothing: ``(title, author_id)`` of books keeps both, two
    books may share a title). Keys chosen for other reasons (identifiers, a sequence number) stay."""
    for s in infos:
        if s.link or len(s.key) < 2 or not s.key_evidence.startswith("minimal key"):
            continue
        fk = [r for r in s.key if r in s.fks]
        if len(fk) != 1:
            continue
        rest = tuple(r for r in s.key if r != fk[0])
        others = [r for r in s.refs if r not in s.key]
        records = distinct_records(s.data.records)
        if not others or not all(_depends_on(records, rest, r) for r in others):
            continue
        old = s.key
        target = s.fks[fk[0]]
        s.key = rest
        s.key_evidence = (f"{list(rest)} identify the entity: {', '.join(repr(r) for r in others)} "
                          f"{'depends' if len(others) == 1 else 'depend'} on "
                          f"{' and '.join(repr(r) for r in rest)} alone over {len(records)} distinct records; "
                          f"{fk[0]!r}, a foreign key to {target.target}.{target.target_ref}, repeats per entity "
                          f"(one-to-many), so it is no part of the key (the minimal key was {list(old)})")
        for cls, key in list(s.keys.items()):
            if key == old:
                s.keys[cls] = rest


def find_composite_keys(infos: list[SourceInfo]) -> None:
    """Fill :attr:`SourceInfo.cfks`: sources holding all columns of another source's multi-column key
    (same names) whose distinct value tuples are all among the target's key tuples; failing that, a
    composite reference into another candidate key of the target (:func:`_composite_reference`)."""
    for s in infos:
        for t in infos:
            if t is s:
                continue
            if len(t.key) < 2 or not all(k in s.refs for k in t.key):
                ck = _composite_reference(s, t)
                if ck is not None:
                    s.cfks.append(ck)
                continue
            have = {tuple(tuple(r.get(k, ())) for k in t.key) for r in s.data.records}
            want = {tuple(tuple(r.get(k, ())) for k in t.key) for r in t.data.records}
            have = {h for h in have if all(h)}
            if have and have <= want:
                s.cfks.append(CompositeKey(t.key, t.name, t.key))


#: Keys of chance (:func:`choose_key`): columns that happen to tell the records apart, not ones named to.
_CHANCE_KEYS = ("minimal key", "name-like", "no key found")


def _composite_reference(s: SourceInfo, t: SourceInfo) -> CompositeKey | None:
    """A composite foreign key of ``s`` into a candidate key of ``t`` other than the one chosen, which
    then keys ``t``: ``shipments(order_id, line_no)`` -> ``order_lines(order_id, line_no)`` while the
    order lines were keyed by ``(order_id, product)``, two columns that happen to tell them apart.

    The columns both sources have by name, every one named as an identifier (``_id``, ``_no``:
    :func:`.identity.id_like`), form a minimal key of ``t`` of two or three columns, and every tuple of
    ``s`` over them is one of ``t``'s: a composite inclusion dependency into a candidate key, the
    definition of a composite foreign key (Codd's relational model), with the names saying that the
    columns identify. A foreign key names a candidate key of the relation it refers to, so that key
    identifies ``t``'s records, as for a single column (:func:`key_by_references`); only a key of chance
    is replaced (a unique identifier column keys ``t`` as it is). ``s`` keyed by exactly those columns
    holds the same entities (one-to-one), no reference. ``None`` when nothing qualifies."""
    if t.link or s.link or len(t.key) == 1 and not t.key_evidence.startswith(_CHANCE_KEYS):
        return None
    shared = [c for c in t.refs if c in s.refs and id_like(c)]
    if len(shared) < 2:
        return None
    records = distinct_records(t.data.records)
    for key in minimal_keys(records, shared):
        if len(key) < 2 or set(s.key) == set(key):
            continue
        have = {tuple(tuple(r.get(k, ())) for k in key) for r in s.data.records}
        have = {h for h in have if all(h)}
        want = {tuple(tuple(r.get(k, ())) for k in key) for r in t.data.records}
        if not have or not have <= want:
            continue
        if tuple(t.key) != key:
            if not t.key_evidence.startswith(_CHANCE_KEYS):
                return None
            old = t.key
            t.key = key
            t.key_evidence = (f"{list(key)} identify the {len(records)} distinct records and {s.name} refers to "
                              f"them by these columns (each of its {len(have)} distinct tuples is one of "
                              f"{t.name}'s): a foreign key names a candidate key (the key of chance was "
                              f"{list(old)})")
        return CompositeKey(key, t.name, key)
    return None


def find_self_references(info: SourceInfo) -> None:
    """A column left unmapped whose values all name other records of its own source (``parent`` ->
    ``id``: an organisation's parent organisation, a station's parent station) becomes a foreign key
    to the source itself, so a relation row with a self-join can link the two records.

    Data evidence, as :func:`find_foreign_keys` (a unary inclusion dependency into the source's own
    single key), made safe for a key it is also in: the column is no value of the record (no
    property took it), at least one value differs from the record's own key (else it is a copy of
    the key), and the key is not whole numbers (a rank or quantity falls inside 1..n by chance).
    Whether a relation follows is the ontology's call (an object property whose domain and range
    fit the class, in :mod:`.rows`); else the unmapped-column warning (:mod:`.unmapped`) names the foreign key."""
    if info.cls is None:
        return
    taken = {a.reference for a in info.assignments} | set(info.fks)
    for ref in self_reference_columns(info):
        if ref not in taken:
            info.fks[ref] = ForeignKey(ref, info.name, info.key[0], 1.0)


def self_reference_columns(info: SourceInfo) -> list[str]:
    """The columns of ``info`` whose values all name other records of the same source (``parentID`` ->
    ``id``), in reference order: :func:`find_self_references`'s data evidence without its "no property took
    it" test; a column that is a foreign key into another source too (files of one kind, the same records in
    several languages) counts, its own source being the one it is read with. Empty for a link file, a source of several key columns or of a key of whole numbers."""
    if info.link or len(info.key) != 1:
        return []
    key = info.key[0]
    keys = info.data.values(key)
    if not keys or all(re.fullmatch(r"[+-]?\d+", v.strip()) for v in keys if v.strip()):
        return []
    out = []
    for ref in info.refs:
        if ref in (key, info.lang_col) or included(info.data.values(ref), keys) < 1.0:
            continue
        if any(v.strip() and v.strip() not in {k.strip() for k in rec.get(key, ())}
               for rec in info.data.records for v in rec.get(ref, ())):
            out.append(ref)
    return out
