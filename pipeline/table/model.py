"""The tabular mapping: one typed record per data reference (BLINKG style).

A :class:`MappingTable` is the contract between the map stage (mappers) and
the compile stage. Cell values are kept as *cleaned text* (no backticks,
no surrounding whitespace, ``-`` and empty cells as ``None``) and prefixed
names stay as written (``ex:Person``); IRI expansion happens against an
:class:`pipeline.ontology.Ontology` when a table is compiled or scored, so
that the table as parsed remains what the author wrote.

The columns follow BLINKG (Chaves-Fraga et al., "BLINKG: a benchmark for
LLM-based knowledge graph construction", section 3.2): data reference,
ontology property, entity class, related entity class, subject generation,
join condition, datatype, language annotation, function name, function output.
``source_file`` is split out of the data-reference cell ("student.csv Name",
"agency_id (routes.csv)").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["COLUMNS", "TASK_COLUMNS", "REVIEW_COLUMN", "MappingRow", "MappingTable", "json_schema"]

#: Field names in table order, with the header written by the writers.
COLUMNS: dict[str, str] = {
    "data_reference": "Data Reference",
    "source_file": "Source File",
    "ontology_property": "Ontology Property",
    "entity_class": "Entity Class",
    "related_entity_class": "Related Entity Class",
    "subject_template": "Subject Generation",
    "join_condition": "Join Condition",
    "datatype": "Datatype",
    "language_tag": "Language Tag",
    "function_name": "Function Name",
    "function_output": "Function Output",
}

#: The column a mapper writes after the BLINKG columns when it marks rows for review (field, header).
#: A marked row is kept in the table but not asserted in the KG; clearing its cell accepts it.
REVIEW_COLUMN: tuple[str, str] = ("review", "Review")

#: BLINKG task name -> field holding its prediction.
TASK_COLUMNS: dict[str, str] = {
    "Data Reference": "data_reference",
    "Ontology Property": "ontology_property",
    "Entity Class": "entity_class",
    "Related Entity Class": "related_entity_class",
    "Subject Generation": "subject_template",
    "Join Condition": "join_condition",
    "Datatype": "datatype",
    "Language Annotation": "language_tag",
    "Function Name": "function_name",
    "Function Output": "function_output",
}


@dataclass
class MappingRow:
    """One row of a mapping table: one data reference mapped to one property, or a class-only row that
    only types the subjects of its template (:attr:`class_only`).

    Attributes:
        data_reference: CSV column, JSONPath, XPath or ``concat(a,b)``; ``None``
            for rows that only link two entities (object property by join or
            same-record relation).
        source_file: file name the reference belongs to (``student.csv``), or
            ``None`` when the table does not say.
        ontology_property: property as written (prefixed name or IRI).
        entity_class: class of the subject, as written. Several alternatives
            written ``a/b/c`` in a gold table are kept verbatim.
        related_entity_class: class of the object for object properties.
        subject_template: subject IRI template: ``{col}`` variables, or the
            scenario-3 ``$(xpath)`` / ``$(replace(xpath,'a','b'))`` form.
        join_condition: as written (``student.Sport==sport.ID``).
        datatype: datatype as written (``xsd:date``), or a non-datatype marker
            found in gold tables (``Object Property``, ``URI``).
        language_tag: BCP 47 tag without ``@`` (``en``), or a reference whose value is each
            record's tag: ``{lang}``, or the bare name of a column/path of the source
            (compiled to ``rml:languageMap [ rml:reference "lang" ]``).
        function_name: transformation function name (``capitalize``).
        function_output: as written (value-map lists ``a -> IRI <br> ...``).
        line: 1-based line of the row in its file (0 when built in memory).
        confidence: mapper's confidence in [0, 1], ``None`` for hand tables.
        evidence: free-form mapper evidence (why this row was proposed).
        review: why the row needs a person's check (the mapper's confidence was below its threshold),
            ``None`` for a row to assert. A marked row stays in the table but the compiler leaves it out
            of the KG and lists it first in ``audit.md``; removing the mark (an empty Review cell)
            accepts it.
    """

    data_reference: str | None = None
    source_file: str | None = None
    ontology_property: str | None = None
    entity_class: str | None = None
    related_entity_class: str | None = None
    subject_template: str | None = None
    join_condition: str | None = None
    datatype: str | None = None
    language_tag: str | None = None
    function_name: str | None = None
    function_output: str | None = None
    line: int = 0
    confidence: float | None = None
    evidence: list[str] = field(default_factory=list)
    review: str | None = None

    @property
    def class_only(self) -> bool:
        """Whether the row only types its subjects: no Ontology Property, Data Reference, Related Entity
        Class nor Join Condition. With its Entity Class and Subject Generation it compiles to a TriplesMap
        with a subject map and ``rml:class`` and no predicate-object map (R2RML 6.4: a subject map's classes
        give ``rdf:type`` triples on their own), for entities whose vocabulary has no property for any of
        their columns."""
        return not (self.ontology_property or self.data_reference or self.related_entity_class
                    or self.join_condition)

    def cells(self) -> dict[str, str | None]:
        """Return the table cells (the :data:`COLUMNS` fields) as a dict."""
        return {name: getattr(self, name) for name in COLUMNS}

    def to_dict(self) -> dict[str, Any]:
        """Return every field as JSON-ready data (cells, line, confidence, evidence)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MappingRow":
        """Build a row from :meth:`to_dict` output; unknown keys raise ``KeyError``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise KeyError(f"unknown mapping-row field(s) {unknown}; expected some of {sorted(names)}")
        return cls(**data)


@dataclass
class MappingTable:
    """An ordered list of :class:`MappingRow` plus where it came from.

    Attributes:
        rows: the rows in file order.
        source: path or description of where the table was read from.
        notes: parser notes about the file itself (e.g. a header name that was
            recognised only approximately); per-row problems go to the audit.
        columns: the fields the header of a Markdown or CSV table names, in order (empty for
            JSON and for tables built in code).
        ignored_headers: ``(header, line)`` of each header of a Markdown or CSV table that names no
            mapping-table column (its cells are not read), as written, line 1-based.
    """

    rows: list[MappingRow] = field(default_factory=list)
    source: str = ""
    notes: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    ignored_headers: list[tuple[str, int]] = field(default_factory=list)

    def __iter__(self) -> Iterator[MappingRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"source": str, "notes": [...], "rows": [row dict, ...]}``."""
        return {"source": self.source, "notes": list(self.notes),
                "rows": [r.to_dict() for r in self.rows]}

    @property
    def marked(self) -> list[MappingRow]:
        """The rows marked for review (:attr:`MappingRow.review`), in table order."""
        return [r for r in self.rows if r.review]

    def written_columns(self) -> dict[str, str]:
        """The columns the Markdown and CSV writers write: :data:`COLUMNS`, and :data:`REVIEW_COLUMN` when a
        row is marked (a table without marks keeps the BLINKG columns only)."""
        return {**COLUMNS, **(dict([REVIEW_COLUMN]) if self.marked else {})}


def json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of a mapping table as LLMs are asked to emit it.

    Shape: ``{"rows": [{<column>: string|null, ...}, ...]}``; only the
    :data:`COLUMNS` fields are part of the schema (provenance fields are ours).
    """
    props = {
        name: {"type": ["string", "null"], "title": title}
        for name, title in COLUMNS.items()
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://w3id.org/blinkg-pipeline/mapping-table.schema.json",
        "title": "Mapping table",
        "description": "One row per data reference mapped to an ontology property (BLINKG columns).",
        "type": "object",
        "required": ["rows"],
        "additionalProperties": False,
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": props,
                    "required": ["ontology_property", "entity_class", "subject_template"],
                    "additionalProperties": False,
                },
            }
        },
    }
