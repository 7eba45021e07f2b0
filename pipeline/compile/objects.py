"""Objects of the plan: literal and value-map object term maps.

Literals: reference or ``concat`` of references, datatype (the cell, else the property's single
XSD range), language tag (constant, or a language map from a reference), FnO functions, and for
``toDate`` and ``toDateTime`` the day/month order, for ``toDecimal`` the decimal mark, decided from
the column's values. Value maps: code -> SKOS
concept through ``valueMap``, with the data's codes translated by a code-list crosswalk and the
input inferred when the row names none. Relations are in :mod:`.relations`.
"""
from __future__ import annotations

import json

from rdflib import URIRef
from rdflib.namespace import RDFS, XSD

from pipeline.compile.audit import IRI_MARKERS, iri_template, language_reference
from pipeline.compile.context import PlanContext
from pipeline.compile.model import Call, Term, term_references
from pipeline.compile.subjects import segments_term
from pipeline.compile.tag_or_datatype import tag_or_datatype
from pipeline.fno import function_for_name, udfs
from pipeline.fno.crosswalk import crosswalk_for_scheme
from pipeline.fno.dates import DMY, MDY, decide_date_order, stated_date_order
from pipeline.fno.decimals import COMMA, INTEGER_DATATYPES, POINT, decide_decimal_mark, decide_unit, stated_decimal_mark
from pipeline.ontology import is_langstring, is_xsd_datatype
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow, parse_concat, parse_value_map, quoted_constant
from pipeline.table.template import Segment, TemplateError, parse_template

__all__ = ["literal_object", "value_map_object"]

#: records whose values are tried first against a value map's keys (one hit decides, as with all)
_HEAD = 1000
_ORDER_NAMES = {DMY: "day-first (DD/MM/YYYY)", MDY: "month-first (MM/DD/YYYY)"}


def literal_object(ctx: PlanContext, row: MappingRow, src: SourceData) -> Term | None:
    """The object of a literal row: a reference, ``concat`` of references (joined with a space), a quoted
    constant (``'Government body'``), or a function of them, with its datatype or language (tag or language map); an IRI term map when
    the Datatype cell says IRI. ``None`` when a reference cannot be read (the finding says why)."""
    conflict = tag_or_datatype(ctx.onto, row)
    tag_cell = "" if conflict is not None and conflict.winner == "datatype" else row.language_tag
    datatype, language = _datatype(ctx, row, tag_cell)
    lang_ref = language_reference(tag_cell, src)
    if lang_ref is not None:
        language = None
        lang_ref = ctx.relative(lang_ref, src, row, "language_tag")
        if lang_ref is None:
            return None
    args = parse_concat(row.data_reference)
    if args is None and quoted_constant(row.data_reference) is not None and not src.has_reference(row.data_reference):
        args = [row.data_reference.strip()]  # a constant: what concat('Government body') writes, for every record
    if args:
        # BLINKG's expected graphs write concat(fname,lname) as "Bob Smith": two references side by side
        # join with a space; a quoted argument is the user's own separator (concat(a, ': ', b) is "x: y")
        segs: list[Segment] = []
        for a in args:
            quoted = a[:1] in "'\""
            if segs and not quoted and segs[-1].kind == "ref":
                segs.append(Segment("const", " "))
            segs.append(Segment("const", a[1:-1]) if quoted else Segment("ref", a))
        term = segments_term(ctx, segs, src, row, "data_reference", "literal")
    elif iri_template(row):  # an IRI made of the record's values, as a subject template makes a subject
        try:
            term = segments_term(ctx, parse_template(row.data_reference), src, row, "data_reference", "iri")
        except TemplateError:  # the audit names the fault
            return None
    else:
        ref = ctx.relative(row.data_reference, src, row, "data_reference")
        term = Term("reference", ref) if ref is not None else None
    if term is None:
        return None
    fn = function_for_name(row.function_name)  # an unknown name left the row out at the audit
    if fn in ("normalizeDate", "normalizeDateTime"):  # one date reader, one day/month rule
        term = Term("call", call=Call(fn, [term, _date_order(ctx, row, src, term, fn)]))
    elif fn == "normalizeDecimalComma":
        term = Term("call", call=Call(fn, [term, *_decimal_mark(ctx, row, src, term, datatype)]))
    elif fn:
        term = Term("call", call=Call(fn, [term]))
    if row.datatype and row.datatype.lower() in IRI_MARKERS:
        term.term_type = "iri"
        return term
    term.term_type, term.datatype, term.language = "literal", datatype, language
    term.language_ref = lang_ref
    return term


def _date_order(ctx: PlanContext, row: MappingRow, src: SourceData, term: Term, fn: str = "normalizeDate") -> str:
    """The day/month order of the row's date column, from its values (:mod:`pipeline.fno.dates`),
    decided here so that the engine converts every value alike; reported unless plain. For
    ``toDate`` (``fn`` ``normalizeDate``), values with a time of day are counted in a warning:
    ``toDate`` gives them no value (xsd:date holds no time; truncating it would lose it silently)."""
    refs = term_references(term)
    values = _column_values(ctx, src, refs)
    decided = decide_date_order([str(v) for v in values],
                                stated_date_order(row.function_name, row.function_output))
    hint = "state the order in the Function Output cell, e.g. 'MM/DD/YYYY'"
    if decided.status == "decided":
        ctx.find(row, "function_name", f"dates of {', '.join(refs)} are {_ORDER_NAMES[decided.order]} "
                 f"(shown by {', '.join(decided.evidence)})", severity="info")
    elif decided.status in ("ambiguous", "conflict"):
        why = "every day/month value fits both orders" if decided.status == "ambiguous" else \
            "some values are day-first and others month-first"
        ctx.find(row, "function_name", f"dates of {', '.join(refs)}: the day/month order cannot be told ({why}: "
                 f"{', '.join(decided.evidence)}); no order is guessed and those values are left out",
                 hint, severity="warning")
    if decided.invalid:
        ctx.find(row, "function_name", f"{len(decided.invalid)} value(s) of {', '.join(refs)} are no date in the "
                 f"{_ORDER_NAMES.get(decided.order, 'year-first')} order ({', '.join(decided.invalid[:3])}); "
                 "left out", "a date", severity="warning")
    if fn == "normalizeDate":
        timed = sorted({str(v).strip() for v in values if v is not None and udfs.normalize_date(str(v)) is None
                        and udfs.normalize_datetime(str(v), decided.order) is not None})
        if timed:
            ctx.find(row, "function_name", f"{sum(1 for v in values if v is not None and str(v).strip() in timed)} "
                     f"value(s) of {', '.join(refs)} carry a time of day ({', '.join(timed[:3])}): toDate() gives them "
                     "no value, as xsd:date holds no time (toDateTime() with xsd:dateTime keeps it)",
                     "toDateTime() and xsd:dateTime to keep the time",
                     severity="warning")
    return decided.order


def _column_values(ctx: PlanContext, src: SourceData, refs: list[str]) -> list:
    """Every record's values of the references ``refs`` (XML: by the iterator's path, as a
    relative XPath would read the first record only)."""
    it = (ctx.iterator(src) or "").rstrip("/")
    return [v for r in refs for v in (src.xpath(r if r.startswith("/") else f"{it}/{r}")
                                      if src.source.format == "xml" else src.values(r))]


_MARK_NAMES = {COMMA: "a decimal comma ('.' or a space groups thousands)",
               POINT: "a decimal point (',' or a space groups thousands)"}


def _decimal_mark(ctx: PlanContext, row: MappingRow, src: SourceData, term: Term,
                  datatype: URIRef | None = None) -> list[str]:
    """The arguments after the value of the row's ``toDecimal()`` call: the column's decimal mark,
    from its values or the format the table states, and its unit when the values carry one
    (:mod:`pipeline.fno.decimals`), decided here so that the engine reads every value alike;
    reported when values depend on the mark, carry two units, or are no number. ``datatype``: the
    literals' datatype; an integer one admits no reading with a fraction (``523.026`` -> 523026)."""
    refs = term_references(term)
    cols = ", ".join(refs)
    values = [str(v) for v in _column_values(ctx, src, refs) if v is not None]
    unit = decide_unit(values)
    if unit.status == "shared":
        ctx.find(row, "function_name", f"numbers of {cols} carry the unit {unit.unit!r} "
                 f"({', '.join(unit.evidence)}): read without it, the unit is not in the literal", severity="info")
    elif unit.status == "mixed":
        ctx.find(row, "function_name", f"numbers of {cols} carry different units ({', '.join(unit.evidence)}): "
                 "values in two units (two currencies, km and m) are not one quantity, so the values with a unit are "
                 "left out", "one unit per column (or a column of units or currency codes beside the number)",
                 severity="warning")
    elif unit.status == "partial":
        ctx.find(row, "function_name", f"some numbers of {cols} carry a unit ({', '.join(unit.evidence)}) and "
                 "others none: a unit on some cells only is no unit of the column, so the values with it are left out",
                 "one unit on every value, or on none", severity="warning")
    integer = datatype is not None and str(datatype) in INTEGER_DATATYPES
    decided = decide_decimal_mark(values, stated_decimal_mark(row.function_name, row.function_output), unit.unit,
                                  integer=integer)
    hint = "state the format in the Function Output cell, e.g. '#,##0.00' (decimal point) or '#.##0,00'"
    if decided.status == "decided":
        read = "; read so: " + ", ".join(f"{v} -> {udfs.normalize_decimal(v, decided.mark, unit.unit)}"
                                         for v in decided.ambiguous[:3]) if decided.ambiguous else ""
        whole = f", read as xsd:{str(datatype).rsplit('#', 1)[-1]} values, which have no fraction" if integer else ""
        ctx.find(row, "function_name", f"numbers of {cols} are written with {_MARK_NAMES[decided.mark]} "
                 f"(shown by {', '.join(decided.evidence)}{whole}){read}", severity="info")
    elif decided.ambiguous and decided.mark not in _MARK_NAMES:
        why = "no value shows which one the column uses" if decided.status == "ambiguous" else \
            f"some values write a decimal comma and others a decimal point ({', '.join(decided.evidence)})"
        first = decided.ambiguous[0]
        example = (f"{first} -> {udfs.normalize_decimal(first, POINT, unit.unit)} or "
                   f"{udfs.normalize_decimal(first, COMMA, unit.unit)}")
        ctx.find(row, "function_name", f"numbers of {cols}: {len(decided.ambiguous)} value(s) read a thousand times "
                 f"apart with a decimal point or a decimal comma ({'; '.join([example, *decided.ambiguous[1:3]])}) "
                 f"and {why}; no reading is guessed and those values are left out", hint, severity="warning")
    if unit.status in ("mixed", "partial"):  # told above: the values with a unit
        decided.invalid = [v for v in decided.invalid if udfs.value_unit(udfs.accounting_negative(v) or v)[0] is None]
    if decided.invalid:
        under = _MARK_NAMES[decided.mark] if decided.mark in _MARK_NAMES else "either decimal mark"
        ctx.find(row, "function_name", f"{len(decided.invalid)} value(s) of {cols} are no number written with "
                 f"{under} ({', '.join(decided.invalid[:3])}); left out", "a number", severity="warning")
    return [decided.mark, unit.unit] if unit.unit else [decided.mark]


def _datatype(ctx: PlanContext, row: MappingRow, lang: str | None) -> tuple[URIRef | None, str | None]:
    """``(datatype, language tag)`` of the literals a row writes (``(None, None)``: a plain literal);
    ``lang``: the Language Tag cell, empty when the Datatype cell wins over it
    (:func:`pipeline.compile.tag_or_datatype.tag_or_datatype`)."""
    dt = ctx.onto.expand(row.datatype) if row.datatype and row.datatype.lower() not in IRI_MARKERS else None
    if lang:
        return None, lang
    if dt is None and not row.datatype:
        # no datatype cell: a literal takes the property's XSD range (rdfs:range), as the
        # scenario-1 expected graphs do for ex:id
        prop = ctx.onto.expand(row.ontology_property)
        ranges = sorted(r for r in (ctx.onto.ranges(prop) if prop else set()) if is_xsd_datatype(r))
        dt = ranges[0] if len(ranges) == 1 else None
    if is_langstring(dt):
        ctx.find(row, "language_tag", "rdf:langString without a language tag; plain literal written",
                 "a language tag", severity="warning")
        return None, None
    if dt in (XSD.string, RDFS.Literal):
        # rdfs:Literal is the class of all literals, no datatype: a plain literal says the same
        return None, None
    return dt, None


def value_map_object(ctx: PlanContext, row: MappingRow, src: SourceData) -> Term | None:
    """The object of a value-map row: ``valueMap`` from the input reference (inferred when the row names
    none) to concept IRIs, keyed by the data's codes; ``None`` when no input can be read."""
    mapping = parse_value_map(row.function_output)
    ref = row.data_reference
    if not ref:
        ref, mapping = _infer_coded_input(ctx, row, src, mapping)
        if ref is None:
            return None
    rel = ctx.relative(ref, src, row, "data_reference")
    if rel is None:
        return None
    mapping = _translate_codes(ctx, row, src, rel, mapping)
    return Term("call", call=Call("valueMap", [Term("reference", rel), json.dumps(mapping, sort_keys=True)]),
                term_type="iri")


def _translate_codes(ctx: PlanContext, row: MappingRow, src: SourceData, rel: str,
                     mapping: dict[str, str]) -> dict[str, str]:
    """When the data's codes are not the map's keys (CODICE ``9`` vs EU ``open``), key the
    map by the data's codes through the crosswalk of the map's concept scheme."""
    if src.source.format != "xml" and {v.strip() for v in src.head_values(rel, _HEAD)} & set(mapping):
        return mapping  # what all values give when one of them is a key (a large CSV is not parsed)
    values = {v.strip() for v in src.reference_values(rel)}
    values.discard("")
    if not values or values & set(mapping):
        return mapping
    cw = crosswalk_for_scheme(list(mapping.values()))
    if cw is None or not values & set(cw.codes):
        ctx.find(row, "function_output", f"no value of {rel} ({', '.join(sorted(values)[:5])}) is a key of the "
                 "value map, and no crosswalk translates them", "map keys that occur in the data",
                 severity="warning")
        return mapping
    by_key = {iri.rstrip("/").rsplit("/", 1)[-1]: iri for iri in mapping.values()}
    ctx.find(row, "function_output", f"codes of {rel} translated to the map's keys with crosswalk {cw.name!r}",
             "map keys that occur in the data", cw.name, severity="info")
    return {code: by_key[key] for code, key in cw.codes.items() if key in by_key}


def _infer_coded_input(ctx: PlanContext, row: MappingRow, src: SourceData, mapping: dict[str, str]):
    cw = crosswalk_for_scheme(list(mapping.values()))
    if cw is not None and src.source.format == "xml":
        hits = [r for r in src.references if r.endswith("/@listURI") and
                any(cw.source_list in v for v in src.values(r))]
        if hits:
            ref = f"{(src.iterator or '').rstrip('/')}/{hits[0][:-len('/@listURI')]}"
            by_key = {iri.rstrip("/").rsplit("/", 1)[-1]: iri for iri in mapping.values()}
            composed = {code: by_key[key] for code, key in cw.codes.items() if key in by_key}
            ctx.find(row, "data_reference", f"no data reference for {row.function_name!r}; input read from "
                     f"{ref} (its listURI names code list {cw.source_list}), codes translated with "
                     f"crosswalk {cw.name!r}", "a data reference", ref, severity="warning")
            return ref, composed
    keys = set(mapping)
    best, score = None, 0.0
    for r in src.references:
        vals = set(src.values(r))
        if vals and (s := len(vals & keys) / len(vals)) > score:
            best, score = r, s
    if best and score >= 0.5:
        ref = best if src.source.format != "xml" else f"{(src.iterator or '').rstrip('/')}/{best}"
        ctx.find(row, "data_reference", f"no data reference for {row.function_name!r}; input inferred from "
                 f"values ({score:.0%} of the values of {best} are map keys)", "a data reference", ref,
                 severity="warning")
        return ref, mapping
    ctx.find(row, "data_reference", f"function {row.function_name!r} has no input and none could be inferred",
             "a data reference feeding the function")
    return None, mapping
