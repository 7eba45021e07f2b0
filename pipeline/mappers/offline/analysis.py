"""Per-source analysis for the offline mapper: what is decided about each source, and in which order.

Decisions, in order (each records evidence and a confidence in [0, 1]):

1. candidate key of every source (:func:`.keys.choose_key`): an identifier-like
   reference that is a key, else the name-like references if they form a key,
   else the first minimal key (:func:`.profile.minimal_keys`);
2. foreign keys (:func:`.keys.find_foreign_keys`): a non-key reference whose values are all
   included in another source's single-reference key (unary inclusion dependency);
3. link files: sources whose references are (almost) all foreign keys to two
   different sources;
4. primary class of a source (:func:`.classes.choose_class`): ``0.5 * name fit + 0.5 * property
   fit``, where name fit is the similarity of the file stem (and XML record element) to the
   class, and property fit the mean best similarity of the references to
   properties whose domain fits the class (subclass closure);
5. properties (:func:`.properties.assign_properties`): maximum-weight bipartite matching
   (Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``) between references and datatype
   properties of the primary class; a leftover reference that matches a
   property of another class well opens a secondary entity in the same record;
   a leftover text column opens an entity of a class that an object property
   links to the record's classes (``Student`` in ``student_sport.csv`` ->
   ``Person``, through ``practises``), named by its best name-like property;
6. composite foreign keys (:func:`.keys.find_composite_keys`): a source holding every column of
   another source's multi-column key, with its value tuples all included (``lives(fname,lname)``
   in ``persons(fname,lname)``), or identifier-named columns into another candidate key, which then keys
   that source (``shipments(order_id,line_no)`` in ``order_lines``).

This module holds the records of those decisions (:class:`SourceInfo` and its parts) and the
least similarity every property assignment needs (:data:`MIN_SCORE`); keys and foreign keys are
in :mod:`.keys`, fit measures in :mod:`.fit`, the primary class in :mod:`.classes`, property matching in
:mod:`.properties`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import URIRef

from pipeline.sources.load import SourceData

__all__ = ["SourceInfo", "ForeignKey", "CompositeKey", "Assignment", "MIN_SCORE"]

#: Least similarity for a reference -> property assignment.
MIN_SCORE = 0.45


@dataclass
class ForeignKey:
    """``source.reference`` values included in ``target.target_ref`` (the target's key); ``coverage``: the
    share of the reference's distinct values found there, ``missing``: those not found (dangling references,
    :func:`.keys.find_foreign_keys`)."""

    reference: str
    target: str
    target_ref: str
    coverage: float
    missing: tuple[str, ...] = ()


@dataclass
class CompositeKey:
    """``source.refs`` value tuples all included in ``target.target_refs`` (the target's multi-column key)."""

    refs: tuple[str, ...]
    target: str
    target_refs: tuple[str, ...]


@dataclass
class Assignment:
    """A reference mapped to a datatype property of a class; ``basis``: the kind of evidence the
    decision rests on (:data:`.confidence.BASES`), ``score`` its raw strength in [0, 1]; ``review``:
    why a person must confirm the row before it is asserted (``None``: asserted); ``iri_of``: for an object
    property, the class of the entity whose identifier the column holds (its IRI, by the table's subject
    convention, is the object: :func:`.iris.assign_identifier_iris`); ``datatype`` / ``language``: the Datatype
    and Language Tag the data itself states (a JSON-LD term definition, :mod:`.jsonld`), written as given
    (``language`` ``""``: the data says the values have none); ``None``: decided from the vocabulary and values;
    ``function``: the table function that writes each value as the IRI object (``mailto()``: :data:`.iris.IRI_FORMS`)."""

    reference: str
    prop: URIRef
    cls: URIRef
    score: float
    evidence: list[str] = field(default_factory=list)
    basis: str = "name"
    review: str | None = None
    iri_of: URIRef | None = None
    datatype: str | None = None
    language: str | None = None
    function: str | None = None


@dataclass
class SourceInfo:
    """Everything decided about one source.

    Attributes:
        data: the loaded source. name / stem: file name and stem.
        refs: references with at least one non-empty value.
        key: key references of the primary entity; key_evidence says why.
        fks: foreign keys by reference. link: ``True`` for a link file.
        cls: primary class (``None`` for link files); cls_score: its score; cls_name_fit: how well the
            file (or record element) name fits it, in [0, 1].
        assignments: reference -> property decisions (primary and secondary classes).
        keys: class -> key references (secondary classes get their own).
        cfks: composite foreign keys (:func:`find_composite_keys`).
        borrowed: classes whose entities this source only refers to (another source,
            reached by a composite key, describes them); their rows are not emitted here.
        nonkeys: reference -> why it cannot key these records (constant across the files of a kind).
        key_notes: warnings about the key (records left without a subject, an identifier not taken),
            reported as the mapper's findings.
        lang_col: the reference holding each record's language code (:func:`.language.language_column`):
            it qualifies the record's text values (their language tag), it is no property value.
        part_relations: class -> ``(object property, part, name similarity)`` for the entities read one per
            occurrence of a repeating part (:mod:`.occurrences`): the property relating the record's entity
            to each of them.
        self_relations: reference -> the object property that relates a record to the record of the same
            source its values name (:mod:`.hierarchy`: ``parentID`` -> ``skos:broader``).
        file_lang: the language the file's name gives its texts among files of one kind
            (:func:`.language.file_languages`: ``thesaurus-fr-hierarchy.csv`` -> ``fr``).
        part_owners: class -> the class of the entities whose occurrences enclose the part its entities are read
            from, for a part inside another part (:mod:`.occurrences`); the property of ``part_relations``
            relates that class's entities, not the record's, to them.
        typed: ``(reference, class)`` when a member of the records states their class
            (:func:`.classes.type_column`: a JSON-LD ``@type`` naming a class of the vocabularies); that
            reference is then no property value and is left out of ``refs``.
        node_iri: the member whose values are the IRIs of the records' entities (a JSON-LD ``@id``,
            :func:`.jsonld.node_iri`): it keys the primary entity, whose subject is that IRI as written
            (Subject Generation ``{node_iri}``); no property value, left out of ``refs``.
        context_notes: reference -> what the source's JSON-LD context says of a member it maps no row
            by (a term the vocabularies do not declare, a property of another node): added to the
            evidence of the member's row, or to its unmapped-column warning.
        barred: ``(reference, property) -> why`` for the pairs the property assignment ruled out whatever
            their similarity (:func:`.properties.assign_properties`): the reason an unmapped column's
            candidate was not assigned (:mod:`.unmapped`).
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
    cls_name_fit: float = 0.0
    cls_evidence: str = ""
    assignments: list[Assignment] = field(default_factory=list)
    keys: dict[URIRef, tuple[str, ...]] = field(default_factory=dict)
    cfks: list[CompositeKey] = field(default_factory=list)
    borrowed: set[URIRef] = field(default_factory=set)
    nonkeys: dict[str, str] = field(default_factory=dict)
    lang_col: str | None = None
    key_notes: list[str] = field(default_factory=list)
    typed: tuple[str, URIRef] | None = None
    node_iri: str | None = None
    context_notes: dict[str, str] = field(default_factory=dict)
    part_relations: dict[URIRef, tuple[URIRef, str, float]] = field(default_factory=dict)
    self_relations: dict[str, URIRef] = field(default_factory=dict)
    file_lang: str | None = None
    part_owners: dict[URIRef, URIRef] = field(default_factory=dict)
    barred: dict[tuple[str, URIRef], str] = field(default_factory=dict)
