"""Evidence in a column's values against the row that maps it: such rows are marked for review.

A row rests on a name match or on the kind of a column's values (:mod:`.confidence`); neither reads
whether the values are what the property is *named* for. Three tests do, each on every datatype row that
reads one column of its source (no template, no function):

* **A form the values lack.** A property named ``url``, ``homepage``, ``email`` or ``telephone``
  (:func:`.forms.named_form`) holds web addresses, e-mail addresses or telephone numbers whatever its
  range says (``xsd:string``, no range): that is what its name means to the people who write and query
  the vocabulary. When most of the column's values have no such form (dates under a ``URL_Date``
  element matched to ``cve:referenceUrl``), the column is not what the property says, however well the
  names matched. Assignment by elimination applies the same test before pairing (:mod:`.elimination`).
* **Codes under a generic kind.** A property named by nothing but a generic word for a kind or code
  (:data:`KIND_WORDS`: ``dct:type``, ``gtfs:code``) that no domain ties to the records' class (the row's
  ``own`` feature is 0, :mod:`.features`: no domain, a generic one, another vocabulary's) is a catch-all:
  a column matches it through that one word (``route_type``, ``location_type``, ``platform_code``), which
  says the column is *a* kind, not which property of the records it is. When the column's values are
  moreover a code list (each value repeated: at most half as many distinct values as values), the row
  would assert opaque codes (``0``, ``1``, ``100``) of a list the data does not define under a property
  that says nothing of them; whether they belong in the graph, as they are or through a value map onto
  concepts, is a person's call. A property the vocabulary declares for the class (``own`` above 0), a
  column whose values mostly differ (names, identifiers) and a property named by more than the generic
  word (``magnitudeType``, ``postalCode``) are left alone.

* **A reference written as text.** A column whose values all name records of a source by their key (a
  foreign key into another source, :func:`.keys.find_foreign_keys`, or into its own source,
  :func:`.keys.self_reference_columns`: STIX's ``source_ref`` and ``target_ref`` hold the ``id`` of other
  objects of the bundle) identifies those records; it is a relation to them, not a value of the record. A
  datatype row that writes it as a literal under a property of the record (``source_ref`` ->
  ``dct:source``) asserts opaque identifiers as text and hides the link; a person decides between a
  relation, the literal, or neither. A column that keys the row's own subject (it is in the subject
  template: the entity the values name, described by its identifier) is left alone.

A fourth test reads the rows together:

* **An entity one column opens.** Columns of a record that describe another thing than the record come in
  groups (an address's street, postcode and locality; a reference's URL, source and identifier). A
  secondary entity (not the source's primary class) that one datatype row alone describes, keyed by its
  own subject template, may rest on nothing but that one column's name resembling a property of some other
  class (``@CWE_ID`` -> ``cwe:relatedWeaknessViewId``, ``SOLTunnelIdentification`` -> ``era:Tunnel``): the
  value may as well be an attribute of the record's own entity under a term the vocabularies lack. That
  row is marked unless the vocabulary speaks for the entity: the column is its property's name word for
  word (``lines.sku`` -> ``s:sku``, whatever the basis recorded), the data's JSON-LD context defines it, or
  the column is the name of an entity that an object property of the record's class links (basis
  ``linked``: ``maker`` -> the ``m:Artist`` of ``m:createdBy``). Every relation of one record (basis
  ``record`` or ``record choice``) to or from a class whose every entity in the source is such a marked
  one is marked too: it is only as good as the entity it links.

Each marked row gets a **Review** reason (:attr:`pipeline.table.MappingRow.review`), appended to any it
had: the compiler does not assert it and a person decides.
"""
from __future__ import annotations

import re

from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.confidence import basis_of
from pipeline.mappers.offline.features import parse_features
from pipeline.mappers.offline.forms import named_form, value_form
from pipeline.mappers.offline.keys import self_reference_columns
from pipeline.mappers.offline.names import term_names, words

__all__ = ["KIND_WORDS", "generic_kind", "is_code_list", "form_doubt", "kind_doubt", "one_column_entities",
           "reference_columns", "reference_doubt",
           "mark_value_doubts", "mark_one_column_entities", "mark_doubtful_rows"]

#: Words that name a kind or a code of something without saying of what (a property named by these alone is
#: a catch-all: Dublin Core's ``type``, a ``code`` of any scheme).
KIND_WORDS = frozenset({"type", "kind", "category", "code"})


def generic_kind(ontology: Ontology, prop) -> bool:
    """Whether every name of ``prop`` (local name and labels, :func:`.names.term_names`) is made of
    :data:`KIND_WORDS` alone (``dct:type`` "Type", ``gtfs:code``; not ``magnitudeType``)."""
    names = term_names(ontology, prop)
    return bool(names) and all(set(n.split()) <= KIND_WORDS for n in names)


def is_code_list(values: list[str]) -> bool:
    """Whether the non-empty ``values`` (one per record, stripped) are codes of a list: at least two values
    and at most half as many distinct values as values (each value repeated on average)."""
    return len(values) >= 2 and 2 * len(set(values)) <= len(values)


def form_doubt(row: MappingRow, values: list[str], ontology: Ontology) -> str | None:
    """The review reason of a row whose property's name promises a form (:func:`.forms.named_form`) that at
    most half of the column's non-empty ``values`` have, else ``None`` (no form promised, no value)."""
    promised = named_form(ontology, ontology.expand(row.ontology_property))
    if promised is None or not values or value_form(values) == promised:
        return None
    return (f"values contradict the property's name: {row.ontology_property} is named for a {promised} and most "
            f"values of {row.data_reference!r} ({values[0][:40]!r} ...) are none: check the property")


def kind_doubt(row: MappingRow, values: list[str], ontology: Ontology) -> str | None:
    """The review reason of a row whose property is a generic kind (:func:`generic_kind`) no domain ties to the
    row's class (``own`` 0 in its features line; a row without one is left alone) and whose column's non-empty
    ``values`` are a code list (:func:`is_code_list`), else ``None``."""
    features = parse_features(row.evidence)
    if features is None or features["own"] > 0 or not generic_kind(ontology, ontology.expand(row.ontology_property)) \
            or not is_code_list(values):
        return None
    return (f"codes under a generic kind: {row.ontology_property} is named only as a kind or code and no domain ties "
            f"it to {row.entity_class}, and {row.data_reference!r} holds a code list ({len(set(values))} distinct of "
            f"{len(values)} values): check whether and how the codes belong in the graph")


def reference_columns(info: SourceInfo) -> dict[str, str]:
    """The columns of ``info`` whose values all name records of a source by their key: ``{reference: "source.key"}``,
    its foreign keys (:attr:`.analysis.SourceInfo.fks`, found by :mod:`.keys`) and the columns naming other records
    of its own source (:func:`.keys.self_reference_columns`)."""
    found = {ref: f"{fk.target}.{fk.target_ref}" for ref, fk in info.fks.items()}
    for ref in self_reference_columns(info):
        found.setdefault(ref, f"{info.name}.{info.key[0]}")
    return found


def reference_doubt(row: MappingRow, references: dict[str, str]) -> str | None:
    """The review reason of a datatype row (a property, no related class) whose column is one of ``references``
    (:func:`reference_columns` of its source) and is not in the row's subject template, else ``None``."""
    ref = row.data_reference
    target = references.get(ref or "")
    if target is None or row.related_entity_class or "{" + ref + "}" in (row.subject_template or ""):
        return None
    return (f"a reference written as text: the values of {ref!r} are keys of the records of {target}, so the "
            f"column links to them, and {row.ontology_property} would assert the identifiers as literals: check "
            "whether a relation to those records is meant")


#: Bases of a relation between two entities of one record (:mod:`.confidence`).
_RECORD_BASES = ("record", "record choice")
#: Bases of an entity's one row that the vocabulary, not a resemblance, speaks for: the column is the property's
#: name word for word, the data's JSON-LD context defines it, or the column is the name of an entity an object
#: property of the record's class links (:mod:`.properties`).
_NAMED_BASES = ("exact name", "context", "linked")


def _named_word_for_word(row: MappingRow, ontology: Ontology) -> bool:
    """The row's column's own name (its last path step, words not expanded) is one of its property's names
    (``lines.sku`` and ``s:sku``, ``aliases`` and ``attack:aliases``), whatever the basis recorded."""
    steps = [s for s in re.split(r"[/.]", row.data_reference or "") if s and s not in ("$", "*")]
    own = " ".join(words(steps[-1].lstrip("@"), expand=False)) if steps else ""
    prop = ontology.expand(row.ontology_property)
    return bool(own) and prop is not None and own in term_names(ontology, prop)


def one_column_entities(rows: list[MappingRow], infos: list[SourceInfo],
                        ontology: Ontology) -> tuple[list[MappingRow], set]:
    """The secondary entities that one datatype row alone describes: ``(their rows, {(source, class)})``.

    A secondary entity is a subject template of a source (``source_file``) whose datatype rows (a property,
    no related class, not class-only) are of a class other than the source's primary class
    (:attr:`.analysis.SourceInfo.cls`; classes compared expanded by ``ontology``); it is a one-column entity when
    exactly one such row has that template. The set holds the ``(source, class)`` pairs (the class as the rows
    write it) whose every template in the source is a one-column entity."""
    primary = {i.name: i.cls for i in infos}
    groups: dict[tuple, list[MappingRow]] = {}
    for row in rows:
        if row.ontology_property and not row.related_entity_class and not row.class_only:
            groups.setdefault((row.source_file, row.subject_template), []).append(row)
    single, by_class = [], {}
    for (source, _), members in groups.items():
        classes = {r.entity_class for r in members}
        if source not in primary or primary[source] is None:
            continue
        secondary = {c for c in classes if ontology.expand(c) != primary[source]}
        alone = len(members) == 1 and bool(secondary)
        if alone:
            single.append(members[0])
        for c in classes:
            by_class[(source, c)] = by_class.get((source, c), True) and alone and c in secondary
    return single, {k for k, ok in by_class.items() if ok}


def _mark(row: MappingRow, why: str) -> None:
    row.review = f"{row.review}; {why}" if row.review else why


def mark_value_doubts(rows: list[MappingRow], infos: list[SourceInfo], ontology: Ontology) -> None:
    """Mark for review (changed in place) each row that :func:`form_doubt`, :func:`kind_doubt` or
    :func:`reference_doubt` doubts: rows that
    read one reference of their source (``data_reference`` in :attr:`.analysis.SourceInfo.refs`) by a property,
    with no function; their features line must be in the evidence (:func:`.features.describe_rows` runs
    first)."""
    by_name = {i.name: i for i in infos}
    references = {i.name: reference_columns(i) for i in infos}
    for row in rows:
        info = by_name.get(row.source_file)
        if info is None or not row.ontology_property or ontology.expand(row.ontology_property) is None \
                or row.function_name or row.related_entity_class or row.data_reference not in info.refs:
            continue
        values = [v.strip() for v in info.data.values(row.data_reference) if v and v.strip()]
        for why in (form_doubt(row, values, ontology), kind_doubt(row, values, ontology),
                    reference_doubt(row, references[info.name])):
            if why:
                _mark(row, why)


def mark_one_column_entities(rows: list[MappingRow], infos: list[SourceInfo], ontology: Ontology) -> None:
    """Mark for review (changed in place) the rows of the entities one column opens (:func:`one_column_entities`)
    by a resemblance alone: the entity's row, unless its basis is one of :data:`_NAMED_BASES` or its column is
    its property's name word for word; and the relations of one record (basis ``record`` or ``record choice``,
    :func:`.confidence.basis_of`) to or from a class whose every entity in the source is such a marked one."""
    single, classes = one_column_entities(rows, infos, ontology)
    for row in single:
        found = basis_of(row)
        if (found is not None and found[0] in _NAMED_BASES) or _named_word_for_word(row, ontology):
            classes.discard((row.source_file, row.entity_class))
            continue
        _mark(row, f"an entity one column opens: {row.data_reference!r} alone describes the {row.entity_class} "
                   f"of its record ({found[0] if found else 'no'} evidence), which may as well be an attribute of "
                   "the record's own entity: check the class and the property")
    for row in rows:
        found = basis_of(row)
        if row.related_entity_class and found is not None and found[0] in _RECORD_BASES:
            other = next((c for c in (row.entity_class, row.related_entity_class) if (row.source_file, c) in classes),
                         None)
            if other is not None:
                _mark(row, f"relation to an entity one column opens: every {other} of {row.source_file} is described "
                           "by one column alone, and the relation is only as good as that entity: check both")


def mark_doubtful_rows(rows: list[MappingRow], infos: list[SourceInfo], ontology: Ontology) -> None:
    """Mark for review (changed in place) the rows :func:`mark_value_doubts` and :func:`mark_one_column_entities`
    doubt."""
    mark_value_doubts(rows, infos, ontology)
    mark_one_column_entities(rows, infos, ontology)
