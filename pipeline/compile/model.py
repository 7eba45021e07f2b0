"""Plan data model of the compiler: TriplesMaps, term maps, FnO calls, predicate-object maps, and the
references a term map reads (:func:`term_references`)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rdflib import URIRef

from pipeline.findings import Finding
from pipeline.sources.load import SourceData

__all__ = ["Term", "Call", "ObjectSpec", "PredicateObject", "ViewNode", "ViewPlan", "TriplesMapPlan", "Plan", "term_references"]


@dataclass
class Call:
    """An FnO function call: :data:`pipeline.fno.FUNCTIONS` key and arguments
    (``str`` constants or :class:`Term` values, in parameter order)."""

    function: str
    args: list


@dataclass
class Term:
    """A term map: ``kind`` is ``template``, ``reference``, ``constant`` or ``call``.

    ``term_type`` is ``"iri"`` or ``"literal"``; ``datatype``/``language`` for literals;
    ``language_ref`` a reference whose value is each literal's language tag (a language map).
    """

    kind: str
    value: str | None = None
    call: Call | None = None
    term_type: str = "literal"
    datatype: URIRef | None = None
    language: str | None = None
    language_ref: str | None = None


@dataclass
class ObjectSpec:
    """Object of a predicate-object map: a term, or a parent TriplesMap with join conditions
    (``joins``: list of (child reference, parent reference))."""

    term: Term | None = None
    parent: str | None = None
    joins: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class PredicateObject:
    """One predicate-object map, from one table row (``line``)."""

    predicate: URIRef
    objects: list[ObjectSpec]
    line: int


@dataclass
class ViewNode:
    """An RML-LV iterable field of a logical view: the occurrences of one repeating part, inside the
    occurrence of the enclosing part the view iterates (or inside the record).

    Attributes:
        part: the part's path relative to a record, as the table names it (``authors``,
            ``cat:Attack_Pattern/cat:Consequences/cat:Consequence``).
        name: the field's name (``authors``, ``Consequence``), unique among its siblings.
        iterator: the field's iterator, relative to the enclosing occurrence (``$.authors[*]``,
            ``cat:Consequences/cat:Consequence``).
        fields: reference relative to one occurrence (``name``, ``.``, ``@xml:lang``) -> the name of
            the expression field nested in the iterable field.
        children: the iterable fields of parts inside this one that the view iterates.
    """

    part: str
    name: str
    iterator: str
    fields: dict[str, str] = field(default_factory=dict)
    children: list["ViewNode"] = field(default_factory=list)


@dataclass
class ViewPlan:
    """An RML-LV logical view on a logical source that iterates repeating parts of its records
    (:mod:`pipeline.compile.nesting`, :mod:`pipeline.compile.views`).

    While the plan is built, a TriplesMap's view names the part it must iterate (``part``); the
    views pass then gives each TriplesMap a view with only the fields its term maps read, the
    parts nested as the data nest them (``nodes``).

    Attributes:
        id: the view's name in the mapping. source / iterator: the owner's logical source.
        part: the part the TriplesMap iterates (one subject, or one value, per occurrence).
        name: the iterable field's name (``authors``, ``title``), for messages.
        part_iterator: the part's iterator relative to a record (``$.authors[*]``, ``dc:title``).
        fields: record-level reference -> expression field name.
        nodes: the iterable fields at the record level (each with its nested fields).
    """

    id: str
    source: SourceData
    iterator: str | None
    part: str
    name: str
    part_iterator: str
    fields: dict[str, str] = field(default_factory=dict)
    nodes: list[ViewNode] = field(default_factory=list)


@dataclass
class TriplesMapPlan:
    """A TriplesMap: logical source, subject map with classes, predicate-object maps.

    ``source_path`` overrides how the logical source's path is written (an equivalent spelling
    of the same file, see :func:`pipeline.compile.relations.join_twin`). ``owner``: for a TriplesMap
    reading a repeating part of another one's records (:mod:`pipeline.compile.nesting`), the id of
    that TriplesMap, whose subjects it shares. ``view``: the logical view the TriplesMap iterates
    (its terms stay written in the records' references; the emitter binds them to the view's fields).
    """

    id: str
    source: SourceData
    iterator: str | None
    subject: Term
    template: str
    classes: list[URIRef] = field(default_factory=list)
    poms: list[PredicateObject] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    source_path: str | None = None
    owner: str | None = None
    view: ViewPlan | None = None


@dataclass
class Plan:
    """All TriplesMaps plus the findings of the plan pass and the lines compiled."""

    triples_maps: list[TriplesMapPlan] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    compiled_lines: list[int] = field(default_factory=list)
    dropped_lines: list[int] = field(default_factory=list)


def term_references(term: Term) -> list[str]:
    """References a term map reads: template variables, references, and call arguments."""
    if term.kind == "reference":
        return [term.value]
    if term.kind == "template":
        return [m.group(1).replace("\\{", "{").replace("\\}", "}")
                for m in re.finditer(r"(?<!\\)\{((?:[^{}\\]|\\.)*)\}", term.value)]
    if term.kind == "call" and term.call is not None:
        return [r for a in term.call.args if isinstance(a, Term) for r in term_references(a)]
    return []
