"""What the offline mapper leaves out, and why: unmapped sources and columns, and values a mapped
column holds that its datatype does not admit.

One finding per unmapped source and column (:func:`unmapped_findings`) and per mapped column with
values outside its datatype (:func:`misfit_findings`).

A column no row reads is reported with its best candidate properties (name
similarity) and the reason each was not taken (similarity below
:data:`.analysis.MIN_SCORE`, property taken by another column, domain that does
not fit the source's class, value that is the same in every file). A source
without any row still gets its entity when the evidence supports it: its class
is named by the file / record element name and a key identifies its records
(:func:`entity_rows`); the key column fills the class's identifier property
(:func:`.identity.identifier_properties`) when it has one, else a class-only row
types the entities. Otherwise the source is a warning, never silent.
"""
from __future__ import annotations

import re
from collections import Counter

from rdflib import URIRef

from pipeline.findings import Finding
from pipeline.fno.decimals import INTEGER_DATATYPES, column_reader, decide_unit
from pipeline.ontology import Ontology
from pipeline.table import MappingRow, parse_concat
from pipeline.mappers.offline.analysis import MIN_SCORE, SourceInfo
from pipeline.mappers.offline.confidence import evidence_line
from pipeline.mappers.offline.fit import MOSTLY_FITS, domain_fits, misfits, value_fit
from pipeline.mappers.offline.identity import identifier_properties
from pipeline.mappers.offline.iris import form_properties, iri_form, iri_properties, is_web_iri_column
from pipeline.mappers.offline.language import language_names
from pipeline.mappers.offline.names import NameMatcher, reference_words, words
from pipeline.mappers.offline.nested import foreign_key_owners
from pipeline.mappers.offline.rows import range_fits
from pipeline.mappers.offline.profile import MISSING_MARKERS, distinct_records, included, is_key, present_values
from pipeline.mappers.offline.xmldoc import is_document

__all__ = ["used_references", "entity_rows", "unmapped_findings", "misfit_findings", "CLASS_NAME_SCORE"]

#: Least similarity of a file / record element name to a class for a source without rows to get
#: an entity of that class.
CLASS_NAME_SCORE = 0.6


def _relative(ref: str, info: SourceInfo) -> str:
    it = (info.data.iterator or "").rstrip("/")
    return ref[len(it) + 1:] if it and ref.startswith(it + "/") else ref


def used_references(rows: list[MappingRow], info: SourceInfo) -> set[str]:
    """References of ``info`` that some row reads (data reference, concat parts, template
    variables, language-tag references, join-condition columns of this source)."""
    used: set[str] = set()
    for row in rows:
        if row.source_file != info.name:
            if row.join_condition:
                used |= set(re.findall(rf"(?:^|[\s,(=]){re.escape(info.stem)}\.([\w:/@\-]+)", row.join_condition))
            continue
        refs = parse_concat(row.data_reference) or ([row.data_reference] if row.data_reference else [])
        if (row.datatype or "").upper() == "IRI" and "{" in (row.data_reference or ""):  # an IRI template (.iris)
            refs = re.findall(r"\{([^{}]+)\}", row.data_reference)
        refs += re.findall(r"\{([^{}]+)\}", row.subject_template or "")
        refs += re.findall(r"\$\(([^()]+)\)", row.subject_template or "")
        refs += re.findall(r"\{([^{}]+)\}", row.language_tag or "")
        for side in re.split(r"==|,|\band\b", row.join_condition or ""):
            side = side.strip()
            refs.append(side[len(info.stem) + 1:] if side.startswith(info.stem + ".") else side)  # stem may hold dots
        used |= {_relative(r.strip(), info) for r in refs if r}
    return used


def _candidates(info: SourceInfo, ref: str, ont: Ontology, matcher: NameMatcher, dprops: list[URIRef],
                rows: list[MappingRow], described: frozenset[URIRef] | set[URIRef] = frozenset()) -> list[str]:
    text = " ".join(reference_words(ref))
    taken = {r.ontology_property: r.data_reference for r in rows if r.source_file == info.name}
    values = info.data.values(ref)
    # a column of web IRIs may be the objects of an object property (.iris): those are candidates too
    links = set(iri_properties(ont, info.cls, sorted(ont.object_properties), described)) \
        if info.cls is not None and is_web_iri_column(values) else set()
    # so may a column of e-mail addresses or global telephone numbers, as mailto: / tel: IRIs (.iris)
    form = iri_form(values) if info.cls is not None else None
    links |= set(form_properties(ont, info.cls, sorted(ont.properties), described, form)) if form else set()
    scored = sorted(((matcher.score(text, p), str(p), p) for p in [*dprops, *sorted(links)]), reverse=True)[:3]
    out = []
    for score, _, p in scored:
        c = ont.compact(p)
        fit = 1.0 if p in links else value_fit(ont, p, values)
        if score < MIN_SCORE:
            why = f"similarity {score:.2f} below {MIN_SCORE}"
        elif score * fit < MIN_SCORE:
            bad, n = misfits(present_values(values), {ont.compact(r) for r in ont.ranges(p)})
            why = (f"similarity {score:.2f}, but the values do not fit its range (only {n - sum(bad.values())} "
                   f"of {n} do; more than half must)" if bad else
                   f"similarity {score:.2f}, but the values do not fit its range")
            units = decide_unit(present_values(values)) if bad else None
            if units is not None and units.status == "mixed":
                why += (f"; they carry different units ({', '.join(units.evidence[:4])}): values in two "
                        "units are not one quantity")
        elif c in taken:
            why = f"similarity {score:.2f}; property taken by {taken[c]!r}"
        elif info.cls is not None and domain_fits(ont, p, info.cls) == 0.0:
            doms = ", ".join(sorted(ont.compact(d) for d in ont.domains(p)))
            why = f"similarity {score:.2f}; its domain {doms} is not the source's class {ont.compact(info.cls)}"
        elif ref == info.lang_col:  # the column was held as the records' language, and no text row took it
            why = (f"similarity {score:.2f}; not assigned: its values are language codes, held for the language "
                   "tags of text columns, and no mapped property takes a language-tagged string")
        elif (ref, p) in info.barred:  # ruled out by the assignment, whatever the similarity
            why = f"similarity {score:.2f}; not assigned: {info.barred[(ref, p)]}"
        elif (other := next((a.reference for a in info.assignments if a.prop == p and a.reference != ref), None)):
            why = f"similarity {score:.2f}; {other!r} matched it better"
        elif not any(r.source_file == info.name for r in rows):
            why = f"similarity {score:.2f}; no entity was made for the source's records"
        elif is_document(info):
            why = (f"similarity {score:.2f}; not assigned: the file is read as one document, whose attributes "
                   "qualify their element (a code list, a scheme) and are no values of their own" if "@" in ref
                   else f"similarity {score:.2f}; not assigned: the document's one-to-one pairing of elements with "
                   "properties paired neither with the other")
        else:  # no column took the property and none matched it better: say only that
            why = (f"similarity {score:.2f}; not assigned, though no other column took it: no entity the mapper "
                   "made for the records takes it")
        out.append(f"{c} ({why})")
    return out


def entity_rows(info: SourceInfo, ont: Ontology, matcher: NameMatcher, dprops: list[URIRef], base: str,
                template) -> tuple[list[MappingRow], str]:
    """An entity for a source without rows, when its class is named by the source (similarity at least
    :data:`CLASS_NAME_SCORE`) and a key identifies its records.

    Its key column as the class's identifier property when the class has one and the key is one column;
    else a class-only row (:attr:`pipeline.table.MappingRow.class_only`): the records' entities typed with
    the class and keyed as every entity is, with no property (a vocabulary of classes alone still types
    them: ``rdf:type`` needs no property of the vocabulary, RDF 1.1 Semantics). A source whose key is every
    column joined (no key found) gets none: its subjects would identify nothing.

    Returns:
        ``(rows, reason)``: one row, else ``([], why not)``.
    """
    if info.cls is None or not info.key or info.key_evidence.startswith("no key found"):
        return [], "no class or no key"
    names = [" ".join(words(info.stem))]
    it = (info.data.iterator or "").rstrip("]*[").split("/")[-1]
    if it and it != "$":
        names.append(" ".join(words(it)))
    fit = max(matcher.score(n, info.cls) for n in names)
    if fit < CLASS_NAME_SCORE:
        return [], f"the source's name fits {ont.compact(info.cls)} only {fit:.2f} (< {CLASS_NAME_SCORE})"
    cls = ont.compact(info.cls)
    ids = identifier_properties(ont, matcher, info.cls, [p for p in dprops if domain_fits(ont, p, info.cls) == 1.0])
    head = [evidence_line("entity", 0.5 * fit), f"no column matched a property; the source name fits {cls} ({fit:.2f})"]
    tail = f"subject key: {info.key_evidence}"
    if ids and len(info.key) == 1:
        prop = sorted(ids, key=str)[0]
        return [MappingRow(data_reference=info.key[0], source_file=info.name, ontology_property=ont.compact(prop),
                           entity_class=cls, subject_template=template(info, info.cls), datatype="xsd:string",
                           confidence=round(0.5 * fit, 3),
                           evidence=[*head, f"{ont.compact(prop)} identifies it: {ids[prop]}", tail])], ""
    why = f"{cls} has no identifier property" if not ids else f"the key {list(info.key)} is several columns"
    return [MappingRow(source_file=info.name, entity_class=cls, subject_template=template(info, info.cls),
                       confidence=round(0.5 * fit, 3),
                       evidence=[*head, f"{why}: a class-only row types the records' entities", tail])], ""


def unmapped_findings(infos: list[SourceInfo], rows: list[MappingRow], ont: Ontology, matcher: NameMatcher,
                      dprops: list[URIRef]) -> list[Finding]:
    """One warning per source without rows and per column no row reads (with candidates)."""
    out: list[Finding] = []
    described = {i.cls for i in infos if i.cls is not None and not i.link}
    for info in infos:
        mine = [r for r in rows if r.source_file == info.name]
        if not mine:
            out.append(Finding("map", str(info.data.source.path), f"no row maps {info.name}: none of its "
                               f"{len(info.refs)} column(s) matched a property of the ontology"
                               + (f" (best class {ont.compact(info.cls)}: {info.cls_evidence})" if info.cls else ""),
                               column="source_file", value=info.name, expected="rows for every source",
                               severity="warning"))
        used = used_references(rows, info)
        for ref in info.refs:
            if ref in used:
                continue
            if ref in info.nonkeys:
                why = [info.nonkeys[ref]]
            elif ref in info.fks and info.cls is not None:
                why = [_foreign_key_reason(info, ref, infos, ont)]
            else:
                why = _candidates(info, ref, ont, matcher, dprops, rows, described)
            what = "best candidates: " + ("; ".join(why) or "none") if ref not in info.nonkeys else why[0]
            what = _value_lists(info, ref, infos) + _language_names(ref, info) + what
            if ref in info.context_notes:  # what the data's JSON-LD context says it means (jsonld.py)
                what = f"{info.context_notes[ref]}; {what}"
            out.append(Finding("map", str(info.data.source.path), f"column {ref!r} of {info.name} is not mapped; "
                               f"{what}", column="data_reference",
                               value=ref, expected="a row reading every column with data", severity="warning"))
        for ref, why in info.data.unaddressable.items():
            out.append(Finding("map", str(info.data.source.path), f"column {ref!r} of {info.name} is not mapped: "
                               f"{why}", column="data_reference", value=ref, severity="warning"))
    return out


def _foreign_key_reason(info: SourceInfo, ref: str, infos: list[SourceInfo], ont: Ontology) -> str:
    """Why the foreign key ``ref`` of ``info`` gave no relation row, as the object properties between the
    two sources' classes show it in either direction (a parent -> child property such as
    ``dcat:distribution`` links them too)."""
    fk = info.fks[ref]
    head = f"foreign key to {fk.target}.{fk.target_ref}" + (
        f" ({len(fk.missing)} of its distinct values not there, e.g. {fk.missing[0]!r})" if fk.missing else "")
    target = next((i for i in infos if i.name == fk.target), None)
    if target is None or target.cls is None:
        return f"{head}, but no class was chosen for {fk.target}"
    owners = foreign_key_owners(info, ref, target.cls)  # the entity of its repeating part first, then the record's
    src, dst = " or ".join(ont.compact(o) for o in owners), ont.compact(target.cls)
    links = [(d, r) for o in owners for d, r in ((o, target.cls), (target.cls, o))
             if any(domain_fits(ont, p, d) > 0 and range_fits(ont, p, r) for p in ont.object_properties)]
    if not links:
        return f"{head}, but no object property links {src} and {dst} in either direction"
    return (f"{head}; an object property links {' and '.join(f'{ont.compact(d)} to {ont.compact(r)}' for d, r in links)}"
            ", but no row was made for it")


def _language_names(ref: str, info: SourceInfo) -> str:
    """``"its values name languages (English -> en, ...): ..."`` for a language column of names, else ``""``."""
    found = language_names(ref, info.data.values(ref))
    if not found:
        return ""
    shown = ", ".join(f"{k} -> {v}" for k, v in list(found.items())[:4])
    return (f"its values name languages ({shown}), but a language tag is a BCP 47 code: add a column of the "
            f"codes and put it in the Language Tag cells ({{column}}) to tag each record's text; ")


#: Separators of several values in one cell ("A4;A7", "red|blue").
_LIST_SEPARATORS = (";", "|")


def _value_lists(info: SourceInfo, ref: str, infos: list[SourceInfo]) -> str:
    """``"its cells hold ';'-separated lists of authors.csv's author_id (e.g. 'A4;A7'): ... "`` when some
    cells of ``ref`` join several values with one separator and every part is a value of a unique
    column of a source (a key), else ``""``.

    Such a column is a relation whose cells hold several foreign keys: no single-valued reference
    joins it (the joined cell 'A4;A7' matches no key), so it stays unmapped; the engineer must split
    it (one value per record, e.g. a link file) for the relation to be mapped."""
    values = [v.strip() for v in info.data.values(ref) if v.strip()]
    for sep in _LIST_SEPARATORS:
        joined = [v for v in values if sep in v]
        if not joined:
            continue
        parts = [x.strip() for v in values for x in v.split(sep) if x.strip()]
        for other in infos:
            for col in other.refs:
                if (other is not info or col != ref) and included(parts, other.data.values(col)) == 1.0 \
                        and is_key(distinct_records(other.data.records), (col,)):
                    return (f"its cells hold {sep!r}-separated lists of {other.name}'s {col} (e.g. {joined[0]!r}): "
                            f"a reference reads one value per cell, so no join matches them; split the column "
                            f"(one value per record, e.g. a link file) to map the relation; ")
    return ""


def misfit_findings(infos: list[SourceInfo], rows: list[MappingRow]) -> list[Finding]:
    """One warning per datatype-property row whose column has values that do not fit the row's datatype.

    A column is mapped when most of its values fit the property's range (:data:`.fit.MOSTLY_FITS`);
    the others become ill-typed literals, which the guard drops at materialize. The warning says so
    before the run: how many of the column's non-empty values do not fit, with up to three examples.
    A row most of whose values do not fit (a name match against the values' form, such as years with
    a qualifier for an ``xsd:gYear``: :data:`.fit.QUALIFIED_FIT`) is also marked for review (changed in
    place). Rows with a transformation function are skipped (the function changes the values), except
    ``skipMissing()``, which changes none: its cells that say "no value" are counted in an info, and the
    other values are checked as above.
    """
    by_name = {i.name: i for i in infos}
    out: list[Finding] = []
    for row in rows:
        info = by_name.get(row.source_file)
        if info is None or not row.datatype or not row.data_reference \
                or parse_concat(row.data_reference) or not info.data.has_reference(row.data_reference):
            continue
        if row.function_name:  # the function reads the values; cells marked as missing give no triple
            marked = Counter(v.strip() for v in info.data.values(row.data_reference) if v.strip() in MISSING_MARKERS)
            if marked:
                out.append(Finding("map", str(info.data.source.path), f"column {row.data_reference!r} of {info.name} "
                                   f"({row.ontology_property}, {row.function_name}): {sum(marked.values())} cell(s) "
                                   f"say no value ({', '.join(repr(v) for v, _ in marked.most_common(3))}): they give "
                                   "no triple", column="data_reference", value=row.data_reference, severity="info"))
            if row.function_name == "toDecimal()":
                out += _unread_decimals(info, row)
            if row.function_name != "skipMissing()":
                continue
        bad, n = misfits(present_values(info.data.values(row.data_reference)), {row.datatype})
        if not bad:
            continue
        k = sum(bad.values())
        shown = ", ".join(repr(v) for v in sorted(bad, key=lambda v: (-bad[v], v))[:3])
        if k > (1 - MOSTLY_FITS) * n:
            # most values would be dropped: the property was chosen on its name against the values' form
            # (years with a qualifier, c. 1660, for an xsd:gYear), weak evidence for asserting the row
            why = (f"{k} of the {n} values of {row.data_reference!r} are no {row.datatype} (e.g. {shown}): "
                   "asserted, the row would lose them; confirm the property, or write the values in its form")
            row.review = f"{row.review}; {why}" if row.review else why
        out.append(Finding("map", str(info.data.source.path), f"column {row.data_reference!r} of {info.name} maps "
                           f"to {row.ontology_property} with datatype {row.datatype}, but {k} of its {n} values do "
                           f"not fit it (e.g. {shown}); the guard drops those literals at materialize",
                           column="datatype", value=row.datatype, expected=f"values of {row.datatype}",
                           severity="warning"))
    return out


def _unread_decimals(info: SourceInfo, row: MappingRow) -> list[Finding]:
    """A warning for a ``toDecimal()`` row some of whose values the function gives no value (``€ 5,50``
    in a column of ``12,00``; ``12,5`` into an integer datatype): read as the compiler reads the column,
    with its decided unit and decimal mark (:func:`pipeline.fno.decimals.column_reader`). The mapper
    proposes the function when most values read (:func:`.profile.decimal_comma_share`,
    :func:`.profile.unit_share`, :func:`.profile.integer_share`)."""
    vals = [v.strip() for v in present_values(info.data.values(row.data_reference)) if v and v.strip()]
    integer = _expanded(row.datatype) in INTEGER_DATATYPES
    read = column_reader(vals, integer=integer)
    bad = Counter(v for v in vals if not read(v))
    if not bad:
        return []
    shown = ", ".join(repr(v) for v, _ in bad.most_common(3))
    what = f"integers ({row.datatype})" if integer else "numbers"
    return [Finding("map", str(info.data.source.path), f"column {row.data_reference!r} of {info.name} maps to "
                    f"{row.ontology_property} with toDecimal(), but {sum(bad.values())} of its {len(vals)} values "
                    f"are no {what} in the column's form (decimal mark, unit) (e.g. {shown}): they give no triple",
                    column="function_name", value=row.function_name, expected=f"{what} toDecimal() reads",
                    severity="warning")]


def _expanded(datatype: str | None) -> str | None:
    """A Datatype cell's IRI for the ``xsd:`` prefix the mapper writes (``xsd:integer``), else the cell."""
    if not datatype:
        return None
    return "http://www.w3.org/2001/XMLSchema#" + datatype[4:] if datatype.startswith("xsd:") else datatype
