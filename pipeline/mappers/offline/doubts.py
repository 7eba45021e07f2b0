"""Evidence in a column's values and names against the row that maps it: such rows are marked for review.

A row rests on a name match or on the kind of a column's values (:mod:`.confidence`); neither reads
whether the values are what the property is *named* for, nor what the column's name says beyond its
resemblance. Five tests do, each on every datatype row that reads one column of its source (no template; the
three that read values, no function either):

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

* **A column that names another thing.** In an English compound name the last word is the head and says what
  the thing is; the words before it qualify it (the right-hand head rule: Williams, On the notions "lexically
  related" and "head of a word", Linguistic Inquiry 12, 1981): a ``Postal Code Regex`` is a regular expression,
  a ``Publication_Month`` a month, ``versionEndIncluding`` a bound on versions. A column matched by a name's
  resemblance (basis ``name`` or ``subject key``, not an exact name) whose own name (its last path step) has two
  words or more, whose head is none of the property's words and one of whose qualifiers is the head of the
  property's name (``Postal Code Regex`` -> ``gn:postalCode``, ``relationship_type`` -> ``dct:relation``) is a
  *head* of the thing the property names, not that thing. A head that is a synonym of the property's head
  (``studio_mail`` -> ``studioEmail``) leaves the property's head out of the qualifiers and is not doubted; a
  last word that is a language code (``label_en``) marks the text's language and is left out first. The row
  is marked unless the head is a word that designates the qualified thing (:data:`DESIGNATORS`: ``readmeUrl``
  -> ``sd:readme``, ``tagName`` -> ``sd:tag``, whose value the URL or name stands for) or the name holds a
  Spanish word (Spanish puts the head first: ``fecha_inicio``).
  Words compare by singular, abbreviation (:func:`.names.abbreviates`) or a shared stem (the first five
  letters: ``relationship`` and ``relation``, ``publication`` and ``publisher``).
* **The class's own word for the column.** A property the vocabulary does not declare for the row's class
  (``own`` below 1: no domain, a generic one, a superclass's or another vocabulary's) is a second choice when a
  property declared for the class (its domain the class or a superclass) is named by the column's words
  qualified by the class's name (``capec:referenceTitle`` of ``capec:Reference`` for a ``Title`` column matched
  to ``dct:title``; ``gtfs:routeType`` for ``route_type`` matched to ``dct:type``): the vocabulary's authors
  named the class's own attribute of that name, and a person decides between the two.

A last test reads the rows together:

* **An entity one column opens.** Columns of a record that describe another thing than the record come in
  groups (an address's street, postcode and locality; a reference's URL, source and identifier). A
  secondary entity (not the source's primary class) that one datatype row alone describes, keyed by its
  own subject template, may rest on nothing but that one column's name resembling a property of some other
  class (``@CWE_ID`` -> ``cwe:relatedWeaknessViewId``, ``SOLTunnelIdentification`` -> ``era:Tunnel``): the
  value may as well be an attribute of the record's own entity under a term the vocabularies lack. That
  row is marked unless the vocabulary speaks for the entity: the column is its property's name word for
  word (``lines.sku`` -> ``s:sku``, whatever the basis recorded), the data's JSON-LD context defines it, or
  the column is the name of an entity that an object property of the record's class links (basis
  ``linked``: ``maker`` -> the ``m:Artist`` of ``m:createdBy``). A word-for-word name does not speak for the
  entity when the column is a member of a nested object whose other members (two or more) describe another
  entity and the column is no identifier (nor a linked entity's name, nor defined by a JSON-LD context): the
  members of one object describe one thing, and the word names a property of a class the object is not
  (NVD's ``reference_data.name`` -> ``capec:name`` beside the reference's ``url`` and ``refsource``). Every relation of one record (basis
  ``record`` or ``record choice``) to or from a class whose every entity in the source is such a marked
  one is marked too: it is only as good as the entity it links.

Each marked row gets a **Review** reason (:attr:`pipeline.table.MappingRow.review`), appended to any it
had: the compiler does not assert it and a person decides.
"""
from __future__ import annotations

import re

import pycountry
from rdflib import OWL, RDFS, URIRef

from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.confidence import basis_of
from pipeline.mappers.offline.features import parse_features
from pipeline.mappers.offline.forms import named_form, value_form
from pipeline.mappers.offline.identity import id_like
from pipeline.mappers.offline.keys import self_reference_columns
from pipeline.mappers.offline.language import ISO_639_1
from pipeline.mappers.offline.names import SPANISH, abbreviates, reference_steps, singular, term_names, words
from pipeline.mappers.offline.nested import parent

__all__ = ["KIND_WORDS", "DESIGNATORS", "UNIT_WORDS", "generic_kind", "is_code_list", "form_doubt", "kind_doubt", "head_doubt",
           "own_term_doubt", "one_column_entities",
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


#: Head words that designate the thing their qualifiers name (its name, identifier, address or code): a column
#: ``readmeUrl`` stands for the readme, ``tagName`` for the tag.
DESIGNATORS = frozenset({"name", "id", "identifier", "url", "uri", "iri", "link", "code", "number", "label", "title",
                         "key", "ref", "reference"})

#: Bases of a column matched by the resemblance of its name (:mod:`.confidence`), not word for word.
_RESEMBLANCE_BASES = ("name", "subject key")


def _alike(a: str, b: str) -> bool:
    """Two words are alike: equal once singular (:func:`.names.singular`), one abbreviating the other
    (:func:`.names.abbreviates`), or sharing their first five letters (a stem: ``relation``, ``relationship``)."""
    a, b = singular(a), singular(b)
    return a == b or abbreviates(a, b) or abbreviates(b, a) or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def _own_name(reference: str | None) -> str:
    """The last path step of a reference (``capec:Publication_Month`` of an XPath, ``tags`` of ``a.b.tags``),
    without an attribute's ``@`` (:func:`.names.words` drops a namespace prefix)."""
    steps = reference_steps(reference)
    return steps[-1] if steps else ""


#: Last words of a column name that give its value's unit, not what the value is: ISO 4217 currency codes
#: (pycountry) and the symbols of the SI base units, their common multiples and the non-SI units accepted
#: for use with the SI (SI Brochure, 9th edition, tables 2 and 8), plus per cent.
UNIT_WORDS = frozenset({c.alpha_3.lower() for c in pycountry.currencies} | {
    "m", "km", "cm", "mm", "kg", "g", "mg", "s", "ms", "mol", "cd", "l", "ml", "min", "h", "d", "ha", "t",
    "kwh", "kw", "w", "pct", "percent"})


def head_doubt(row: MappingRow, ontology: Ontology) -> str | None:
    """The review reason of a row matched by resemblance (basis ``name`` or ``subject key``) whose column's own
    name (:func:`_own_name`; two words or more, no Spanish word, without a last word that is an ISO 639-1 code,
    ``label_en``, or a unit of :data:`UNIT_WORDS`, ``price_eur``) has a head (last word) alike none of the property's words and not one of :data:`DESIGNATORS`,
    while another of its words is alike the head of one of the property's names (:func:`_alike`); else
    ``None``."""
    found = basis_of(row)
    prop = ontology.expand(row.ontology_property)
    if found is None or found[0] not in _RESEMBLANCE_BASES or prop is None:
        return None
    name = _own_name(row.data_reference)
    raw = words(name, expand=False)
    if set(raw) & set(SPANISH):
        return None
    # a last word that is a language code marks the text's language (label_en), and one that is a currency or a
    # unit the value's unit (price_eur, length_km), not what the column is
    ws = words(" ".join(raw[:-1])) if len(raw) >= 2 and (raw[-1] in ISO_639_1 or raw[-1] in UNIT_WORDS) \
        else words(name)
    if len(ws) < 2 or ws[-1] in DESIGNATORS:
        return None
    names = [n.split() for n in term_names(ontology, prop)]
    head, qualifiers = ws[-1], ws[:-1]
    # the column is a <head> of what the property names: the property's own head qualifies the column's
    if any(_alike(head, w) for n in names for w in n) or not any(_alike(q, n[-1]) for q in qualifiers for n in names):
        return None
    shown = re.sub(r"^[A-Za-z][\w\-]*:(?=[A-Za-z])", "", name)
    return (f"the column names another thing: {shown!r} is a {head} (the last word of its name), matched to "
            f"{row.ontology_property} through what qualifies it ({' '.join(qualifiers)}): check the property")


#: Classes of everything, whose name ("thing", "resource") qualifies nothing and whose domain ties a property to no
#: class in particular.
_GENERIC_CLASSES = frozenset({OWL.Thing, RDFS.Resource})


def own_term_doubt(row: MappingRow, ontology: Ontology) -> str | None:
    """The review reason of a row whose property is not declared for its class (``own`` below 1 in its features
    line; a row without one is left alone) when a property whose domain is the class or a superclass has a name
    made of the column's own words (:func:`_own_name`, singular) and words of the names of the class or a
    superclass, at least one of them (``owl:Thing`` and ``rdfs:Resource`` count as neither); else ``None``."""
    features = parse_features(row.evidence)
    prop, cls = ontology.expand(row.ontology_property), ontology.expand(row.entity_class)
    if features is None or features["own"] >= 1 or prop is None or cls is None:
        return None
    classes = (ontology.superclasses(cls) | {cls}) - _GENERIC_CLASSES
    class_words = {singular(w) for c in classes for n in term_names(ontology, c) for w in n.split()}
    column = {singular(w) for w in words(_own_name(row.data_reference))} - class_words
    if not column:
        return None
    for other in sorted(ontology.properties):
        if other == prop or not ontology.domains(other) & classes:
            continue
        for n in term_names(ontology, other):
            ws = {singular(w) for w in n.split()}
            if ws - class_words == column and ws & class_words:
                return (f"the class's own word for the column: {ontology.compact(other)}, declared for "
                        f"{row.entity_class}, is named {n!r}, the column's words qualified by the class's name, "
                        f"where {row.ontology_property} is not declared for it: check which property is meant")
    return None


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


def _object_describes_another(row: MappingRow, rows: list[MappingRow], primary: URIRef | None,
                              ontology: Ontology) -> str | None:
    """The class of another secondary entity that two or more other members of the row's object (the nested
    object its column lies in, :func:`.nested.parent`) describe, when there is one; ``None`` for a flat column,
    an identifier column (``lines.sku``: an identifier names the entity it identifies, which the object refers
    to, as a foreign key does) or an object whose other members describe no such entity.

    The members of one object describe one thing: ``url`` and ``refsource`` of an NVD ``reference_data``
    object describe its ``cve:Reference``, and its ``name``, named word for word by ``capec:name`` (domain
    ``capec:CAPEC``), is that reference's name, not a pattern of CAPEC's: the vocabulary's word names the
    member, not the object it lies in."""
    obj = parent(row.data_reference or "")
    if not obj or id_like(row.data_reference or ""):
        return None
    others: dict[str, set[str]] = {}
    for r in rows:
        if r.source_file != row.source_file or r.subject_template == row.subject_template or not r.ontology_property \
                or r.related_entity_class or r.class_only or not r.data_reference \
                or ontology.expand(r.entity_class) == primary or parent(r.data_reference) != obj:
            continue
        others.setdefault(r.entity_class, set()).add(r.data_reference)
    return next((c for c, refs in sorted(others.items()) if len(refs) >= 2), None)


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
    """Mark for review (changed in place) each row that :func:`form_doubt`, :func:`kind_doubt`,
    :func:`reference_doubt`, :func:`head_doubt` or :func:`own_term_doubt` doubts: rows that
    read one reference of their source (``data_reference`` in :attr:`.analysis.SourceInfo.refs`) by a property;
    the tests of values only when no function rewrites them (the tests of names read the column's name, which a
    function such as ``trim`` leaves as it is); their features line must be in the evidence
    (:func:`.features.describe_rows` runs first)."""
    by_name = {i.name: i for i in infos}
    references = {i.name: reference_columns(i) for i in infos}
    for row in rows:
        info = by_name.get(row.source_file)
        if info is None or not row.ontology_property or ontology.expand(row.ontology_property) is None \
                or row.related_entity_class or row.data_reference not in info.refs:
            continue
        found = [head_doubt(row, ontology), own_term_doubt(row, ontology)]
        if not row.function_name:
            values = [v.strip() for v in info.data.values(row.data_reference) if v and v.strip()]
            found = [form_doubt(row, values, ontology), kind_doubt(row, values, ontology),
                     reference_doubt(row, references[info.name]), *found]
        for why in found:
            if why:
                _mark(row, why)


def mark_one_column_entities(rows: list[MappingRow], infos: list[SourceInfo], ontology: Ontology) -> None:
    """Mark for review (changed in place) the rows of the entities one column opens (:func:`one_column_entities`)
    by a resemblance alone: the entity's row, unless its basis is one of :data:`_NAMED_BASES` or its column is
    its property's name word for word, and then still when its object's other members describe another entity
    (:func:`_object_describes_another`; a JSON-LD context's definition and a linked entity's name stand); and the
    relations of one record (basis ``record`` or ``record choice``, :func:`.confidence.basis_of`) to or from a class whose every entity in the source is such a marked one."""
    single, classes = one_column_entities(rows, infos, ontology)
    primary = {i.name: i.cls for i in infos}
    for row in single:
        found = basis_of(row)
        if (found is not None and found[0] in _NAMED_BASES) or _named_word_for_word(row, ontology):
            # the vocabulary's word names the member; but when the other members of its object describe another
            # entity, the object is that entity, and the word names a property of a class the object is not
            # (a JSON-LD context's definition and a linked entity's name stand: the data, or a relation of the
            # record's class, speak for the entity, not a resemblance of names)
            other = _object_describes_another(row, rows, primary.get(row.source_file), ontology) \
                if found is None or found[0] not in ("context", "linked") else None
            if other is None:
                classes.discard((row.source_file, row.entity_class))
                continue
            _mark(row, f"an entity one column opens: {row.data_reference!r} alone describes the {row.entity_class} "
                       f"of its record, while the other members of its object describe the {other}: the column may "
                       f"be that entity's value under a term the vocabularies lack; check the class and the property")
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
