"""Transformation functions the offline mapper proposes from the data and the ontology.

* ``toDate()``: a literal typed ``xsd:date`` some of whose values are dates in another lexical form
  (``28/12/2020``, ``20201228``, ``5 Jan 2024`` among ISO dates) is normalised to ``YYYY-MM-DD`` (FnO
  ``normalizeDate``; a written timezone is kept). One such value is enough: the function gives the values
  already in xsd:date's form unchanged and no value to those that are no date in any form, which the raw
  literal would lose too. A column already in xsd:date's lexical form, zones included, gets none.
* ``toBoolean()``: a literal typed ``xsd:boolean`` whose values are yes/no, Y/N ... (FnO
  ``normalizeBoolean``).
* ``toDecimal()``: a literal typed ``xsd:decimal`` (double, float) whose column writes a decimal
  comma (``8,99``, ``1.234,56``; more than half of its values: :func:`.profile.decimal_comma_share`) gets the
  point (FnO ``normalizeDecimalComma``); the other values get none and are counted (:mod:`.unmapped`). So does
  one whose values carry one unit (``€1,250.00``, ``12.5%``, ``310,7 km²``: :func:`.profile.unit_share`), and a
  literal of an integer datatype whose values are integers with thousands grouped or one unit (``1.512.491``,
  ``1,512,491``: :func:`.profile.integer_share`), which the function writes without them.
* ``toTime()``: a literal typed ``xsd:time`` whose values are clock times without seconds
  (``20:00``, ``8:05``) gets them (``20:00:00``; FnO ``normalizeTime``).
* ``capitalize``: the property's range is a datatype restriction whose ``xsd:pattern`` the raw
  values miss but their title-cased form matches more often (GTFS ``gtfs:longName``).
* ``skipMissing()``: a literal of a datatype narrower than string some of whose cells say "no value"
  (``NA``, ``N/A``, ``-``: :data:`.profile.MISSING_MARKERS`) and that needs none of the above (each of
  which gives such cells no value too) gets no value for those cells, instead of an ill-typed literal.
* ``trim``: a literal none of the above normalises, some of whose values start or end with
  white space (an indented XML element's text, a padded CSV cell), gets it removed (GREL
  ``string_trim``): RML keeps a value as the source writes it, so ``"\n  Alice Smith\n"`` would
  be the literal, and a typed one (`` 42``) is outside its datatype's lexical space.

Each proposal appends its evidence to the row. The functions are the very ones the compiled
mapping runs (:mod:`pipeline.fno.udfs`), so what the mapper checks is what the KG gets.
"""
from __future__ import annotations

import logging
import re

from rdflib import BNode, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDFS, XSD

from pipeline.fno import udfs
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow
from pipeline.mappers.offline.fit import MOSTLY_FITS, column_datetime, has_time_of_day, misfits
from pipeline.mappers.offline.profile import MISSING_MARKERS, XSD_BOOLEAN, XSD_DATE, XSD_DATETIME, XSD_DATETIMESTAMP, XSD_TIME, decimal_comma_share, integer_share, unit_share
from pipeline.fno.decimals import INTEGER_DATATYPES, column_reader

__all__ = ["propose_functions", "range_patterns"]

log = logging.getLogger(__name__)

_XSD_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_XSD_INTEGER = re.compile(r"^[+-]?\d+$")
#: (ranges, the range's lexical form, does the whole column convert?, Function Name, Function
#: Output, evidence): a function is proposed when some values are not in the range's lexical
#: space and the function writes every value in it (decimal commas: decided per column).
_VALUE_FUNCTIONS = (
    ((XSD.boolean,), XSD_BOOLEAN, lambda vs: _share(vs, udfs.normalize_boolean) == 1.0,
     "toBoolean()", "value normalised to xsd:boolean (true/false)", "read as booleans"),
    ((XSD.decimal, XSD.double, XSD.float), _XSD_DECIMAL, lambda vs: decimal_comma_share(vs) > MOSTLY_FITS,
     "toDecimal()", "decimal comma read as a point (8,99 -> 8.99)", "write the decimal with a comma"),
    ((XSD.decimal, XSD.double, XSD.float), _XSD_DECIMAL, lambda vs: unit_share(vs) > MOSTLY_FITS,
     "toDecimal()", "number read without its unit (a currency, a percent sign, a unit symbol: km², kg)",
     "carry one unit (a currency, %, a unit symbol), which the literal leaves out"),
    (tuple(URIRef(t) for t in sorted(INTEGER_DATATYPES)), _XSD_INTEGER,
     lambda vs: integer_share(vs) > MOSTLY_FITS and _saves(vs, column_reader(vs, integer=True), _XSD_INTEGER),
     "toDecimal()", "number read as an integer, its thousands grouping or unit left out",
     "are integers with thousands grouped or one unit, which the literal leaves out"),
    ((XSD.time,), XSD_TIME, lambda vs: _share(vs, udfs.normalize_time) == 1.0,
     "toTime()", "time normalised to xsd:time (hh:mm:ss)", "read as clock times"),
    ((XSD.dateTime,), XSD_DATETIME, lambda vs: _share(vs, column_datetime(vs)) == 1.0,
     "toDateTime()", "date-time normalised to xsd:dateTime (T, seconds, zone hh:mm)", "read as date-times"),
    ((XSD.dateTimeStamp,), XSD_DATETIMESTAMP, lambda vs: _share(vs, _stamp(column_datetime(vs))) == 1.0,
     "toDateTime()", "date-time normalised to xsd:dateTime (T, seconds, zone hh:mm)", "read as date-times with a zone"),
)


def _saves(values: list[str], read, lexical: re.Pattern) -> bool:
    """Some value outside the range's ``lexical`` form is one the function ``read`` writes in it: the function
    saves a value (``1.512.491``). A column of plain integers and a faulty cell (``Summe``) needs none: the guard
    drops that cell either way."""
    return any(not lexical.match(v) and read(v) for v in values)


def _stamp(read):
    """A test that a value, read by the column's date-time reader ``read`` (:func:`.fit.column_datetime`),
    is a date-time with its zone (xsd:dateTimeStamp needs one: XSD 1.1 Part 2, 3.4.28)."""
    def test(value: str) -> bool:
        out = read(value)
        return bool(out) and bool(XSD_DATETIMESTAMP.match(out))
    return test
_SAMPLE = 200


def range_patterns(ontology: Ontology, prop: URIRef) -> list[str]:
    """``xsd:pattern`` facets of the datatype restrictions in ``rdfs:range`` of ``prop``."""
    out = []
    for rng in ontology.graph.objects(prop, RDFS.range):
        if not isinstance(rng, BNode):
            continue
        for restrictions in ontology.graph.objects(rng, OWL.withRestrictions):
            for facet in Collection(ontology.graph, restrictions):
                out += [str(p) for p in ontology.graph.objects(facet, XSD.pattern)]
    return out


def _raw_values(src: SourceData, reference: str) -> list[str]:
    """Every record's values of a row's reference (an XML one read in each record, not the first alone)."""
    return src.reference_values(reference)


def _values(raw: list[str]) -> list[str]:
    """The first distinct non-blank values of a reference, without surrounding white space."""
    return [v for v in dict.fromkeys(v.strip() for v in raw) if v][:_SAMPLE]


def _padded(raw: list[str]) -> tuple[int, int, str]:
    """``(values with leading/trailing white space, non-blank values, first such value)`` of a reference."""
    vals = [v for v in raw if v and v.strip()]
    padded = [v for v in vals if v != v.strip()]
    return len(padded), len(vals), padded[0] if padded else ""


def _share(values: list[str], test) -> float:
    return sum(1 for v in values if test(v)) / len(values) if values else 0.0


def propose_functions(rows: list[MappingRow], sources: dict[str, SourceData], ontology: Ontology) -> int:
    """Add ``toDate()``, ``toBoolean()``, ``toDecimal()``, ``toTime()``, ``capitalize`` or ``trim`` to the
    literal rows whose data needs them (module docstring).

    Args:
        rows: the mapper's rows (changed in place).
        sources: source file name -> loaded source.
        ontology: for datatypes and range restrictions.
    Returns:
        The number of rows that got a function.
    """
    added = 0
    for row in rows:
        if row.function_name or not row.data_reference or row.related_entity_class \
                or ((row.datatype or "").upper() == "IRI" and "{" in row.data_reference):  # an IRI template
            continue
        src = sources.get(row.source_file or "")
        cells = _raw_values(src, row.data_reference) if src is not None else []
        values = _values(cells)
        if not values:
            continue
        # cells that say "no value" (NA, -) are none: each function below gives them no value, and whether a
        # column needs the function is judged on the other cells
        present = [v for v in values if v not in MISSING_MARKERS]
        if ontology.expand(row.datatype) == XSD.date and any(has_time_of_day(v) for v in values):
            # toDate() would cut the time of day off (2024-02-02T01:01 -> 2024-02-02): no function, and the
            # row is shown for review, its values do not fit the range
            why = (f"values of {row.data_reference!r} carry a time of day (e.g. "
                   f"{next(v for v in values if has_time_of_day(v))!r}) that {row.datatype} cannot hold: "
                   "check the property (a date-time one?) before asserting the row")
            row.review = f"{row.review}; {why}" if row.review else why
            continue
        # toDate() writes every value already in xsd:date's form as it is (zones kept) and gives no value where the
        # raw one is no xsd:date either, so once it reads one value not in that form (5 Jan 2024 among ISO dates) it
        # loses nothing and saves that value: the guard would drop it as an ill-typed literal. However few the
        # dates in another form, and whatever the share of values no reader takes (spring 2024: dropped either
        # way, and reported, by the function or by the guard)
        if ontology.expand(row.datatype) == XSD.date \
                and any(not XSD_DATE.match(v) and udfs.normalize_date(v) for v in present):
            row.function_name, row.function_output = "toDate()", "date normalised to xsd:date (YYYY-MM-DD)"
            row.evidence.append(f"{_share(present, udfs.normalize_date):.0%} of the values parse as dates, "
                                f"{_share(present, XSD_DATE.match):.0%} are already xsd:date")
            added += 1
            continue
        rule = next((r for r in _VALUE_FUNCTIONS if ontology.expand(row.datatype) in r[0]
                     and present and _share(present, r[1].match) < 1.0 and r[2](present)), None)
        if rule is not None:  # values not in the range's lexical space that a function writes in it
            row.function_name, row.function_output = rule[3], rule[4]
            row.evidence.append(f"values {', '.join(sorted(set(present))[:4])} {rule[5]}")
            added += 1
            continue
        bad, _ = misfits(values, {row.datatype}) if row.datatype else ({}, 0)
        marked = sorted(set(bad) & MISSING_MARKERS)
        if marked:  # cells that say "no value" (NA, -): none instead of an ill-typed literal; other misfits stay
            row.function_name, row.function_output = "skipMissing()", "cells NA, N/A, null, NaN, - give no value"
            row.evidence.append(f"cells that are no {row.datatype} but missing-value markers: "
                                f"{', '.join(marked[:4])}")
            added += 1
            continue
        prop = ontology.expand(row.ontology_property)
        for pattern in range_patterns(ontology, prop) if prop is not None else []:
            try:
                rx = re.compile(pattern)
            except re.error:
                continue
            raw, titled = _share(values, rx.search), _share(values, lambda v: rx.search(v.title()))
            if titled > raw:
                row.function_name, row.function_output = "capitalize", "Input string in capital format"
                row.evidence.append(f"range pattern {pattern!r} matches {raw:.0%} of the values as they are, "
                                    f"{titled:.0%} capitalised")
                added += 1
                break
        else:
            n, total, first = _padded(cells)
            if n:
                row.function_name, row.function_output = "trim", "leading and trailing white space removed"
                row.evidence.append(f"{n} of {total} values start or end with white space (e.g. {first!r})")
                added += 1
    log.debug("offline mapper: %d transformation function(s) proposed", added)
    return added
