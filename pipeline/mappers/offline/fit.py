"""How well the data fits the ontology's terms: values against a property's range, a property's domain
against a class, and the lexical kind of a column's values against the kinds a range admits.

:func:`value_fit` and :func:`misfits` test values against a property's XSD range with profiling's
lexical patterns (:mod:`.profile`); :func:`domain_fits` tests a property's domain against a class;
:func:`value_kind` and :func:`range_kinds` say what kind of values a column holds (a date, a whole
number, a decimal, a year, a boolean, a clock time, text) and which kinds a range admits. The
primary class (:mod:`.classes`), property matching (:mod:`.properties`, :mod:`.nested`), assignment
by elimination (:mod:`.elimination`), the XML document mapper and the unmapped-column findings
build on them.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL

from pipeline.fno import udfs
from pipeline.fno.dates import decide_date_order
from pipeline.fno.decimals import INTEGER_DATATYPES
from pipeline.ontology import Ontology, namespace
from pipeline.mappers.offline.profile import (
    DATATYPE_PATTERNS,
    MISSING_MARKERS,
    XSD_BOOLEAN,
    XSD_DATETIMESTAMP,
    XSD_TIME,
    decimal_comma_column,
    decimal_comma_share,
    distinct_values,
    integer_share,
    memoised,
    qualified_years,
    present_values,
    profile_datatype,
    unit_share,
    value_counts,
)

__all__ = ["has_time_of_day", "column_datetime", "value_fit", "misfits", "domain_fits", "domain_evidence", "foreign_domain", "DomainIndex", "FOREIGN_DOMAIN", "value_kind", "range_kinds", "MOSTLY_FITS", "QUALIFIED_FIT"]

#: XSD range -> profiled datatypes whose values it accepts.
_NARROW = {"xsd:integer": {"xsd:integer", "xsd:gYear"}, "xsd:int": {"xsd:integer", "xsd:gYear"},
           "xsd:nonNegativeInteger": {"xsd:integer", "xsd:gYear"},
           "xsd:decimal": {"xsd:integer", "xsd:decimal", "xsd:gYear"},
           "xsd:double": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:float": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:boolean": {"xsd:boolean"}, "xsd:date": {"xsd:date"}, "xsd:dateTime": {"xsd:dateTime"},
           "xsd:dateTimeStamp": {"xsd:dateTimeStamp"}, "xsd:gYear": {"xsd:gYear"}, "xsd:time": {"xsd:time"}}

#: The integer ranges of :data:`_NARROW` (xsd:integer and types derived from it), whose values ``toDecimal()``
#: reads from grouped or unit-bearing numbers (``1.512.491``)
_INTEGER_RANGES = {"xsd:" + t.rsplit("#", 1)[1] for t in INTEGER_DATATYPES} & set(_NARROW)

#: Share of a column's non-empty values (repeats counted) that must fit a property's range for the
#: range to describe the column despite the rest: more than half, the plain meaning of "most". The
#: majority then says what the column holds, and the minority are faulty cells (a typo, ``n/a``),
#: which the guard drops one by one at materialize and reports; leaving the column unmapped would
#: lose the majority too. Cells that say "no value" (``N/A``, ``-``) are not counted: they are no values
#: (``skipMissing()`` gives them none), so a column most of whose records lack a value is judged on the
#: values it has. At half or below, the values say nothing about the column's kind (a code
#: column with some numeric codes), so the range is not taken as fitting.
MOSTLY_FITS = 0.5
#: :func:`value_fit` of an ``xsd:gYear`` range for a column of years most of which carry a qualifier
#: (``c. 1660``: :func:`.profile.qualified_years`): the kind fits, the lexical form does not. Between
#: a fit (0.9) and a misfit (0.3), so that a name match (``year`` ~ ``m:year`` 1.0) still proposes the
#: property, and no weaker name does (0.6 x a similarity of 0.75 or less stays below
#: :data:`.analysis.MIN_SCORE`, 0.45).
QUALIFIED_FIT = 0.6
#: Lexical forms a value must have to fit (what the guard's XSD check accepts): profiling's patterns,
#: except that ``xsd:boolean`` is exactly true/false/1/0 (``True`` needs toBoolean(), ``1`` does not)
#: and ``xsd:time`` needs its seconds (:data:`.profile.XSD_BOOLEAN`, :data:`.profile.XSD_TIME`).
#: A date is no ``xsd:dateTime`` (``2023-04-12``: XSD 1.1 Part 2, 3.3.7 requires the time of day) and
#: ``xsd:dateTimeStamp`` requires the time zone (3.4.28: ``2024-03-01T10:00:00`` is none).
_PROFILED = {**dict(DATATYPE_PATTERNS), "xsd:boolean": XSD_BOOLEAN, "xsd:time": XSD_TIME,
             "xsd:dateTimeStamp": XSD_DATETIMESTAMP}


def has_time_of_day(value: str) -> bool:
    """``value`` is a date-time whose time of day is not midnight (``2024-02-02T01:01:00``): as an
    ``xsd:date`` it would lose that time (``toDate()`` keeps the date alone), so it fits no date range.
    A date-time at ``00:00:00`` loses nothing."""
    out = udfs.normalize_datetime(value)
    return bool(out) and not re.match(r"^[^T]*T00:00(:00(\.0+)?)?(Z|[+-]\d\d:\d\d)?$", out)


def column_datetime(values: Iterable[str]) -> Callable[[str], str | None]:
    """The reader ``toDateTime()`` applies to this column's values: :func:`pipeline.fno.udfs.normalize_datetime`
    with the day/month order the compiler decides for the column (:func:`pipeline.fno.dates.decide_date_order`),
    so a column of ``13/05/2026 14:00`` is read day-first here as in the compiled mapping. A column that no value
    decides (``01/03/2024 10:00``: a date both ways) or whose values point both ways is read year-first only:
    its day/month values are no date-times to the mapper, as they convert to nothing in the compiled mapping
    (which reports the order as undecided), so what the mapper checks is what the KG gets.

    Returns:
        ``value -> xsd:dateTime lexical form or None``.
    """
    order = decide_date_order(list(values)).order
    return lambda v: udfs.normalize_datetime(v, order)


def value_fit(ontology: Ontology, prop: URIRef, values: list[str]) -> float:
    """1.0 when the values fit the property's XSD range (or it has none), 0.3 when they do not.

    Only ranges narrower than string are tested (numbers, booleans, dates), with
    :func:`.profile.profile_datatype`'s lexical patterns; dates and booleans that the
    ``normalizeDate`` / ``normalizeBoolean`` functions turn into the range's form score 0.9 (dates: when
    more than half of the values, :data:`MOSTLY_FITS`, are dates ``toDate()`` reads), and so do numbers
    that ``toDecimal()`` reads (a decimal comma, one unit on the column; into an integer range also
    grouped thousands, ``1.512.491``: :func:`.profile.integer_share`) when more than half of them are.
    Cells that say "no value" (``N/A``, ``-``: :func:`.profile.present_values`) are no values and are
    not tested: ``skipMissing()`` gives them no triple (:mod:`.functions`). A column of nothing else
    has no value that fits (0.3).
    """
    ranges = {ontology.compact(r) for r in ontology.ranges(prop)}
    narrow = ranges & set(_NARROW)
    if not narrow or not values:
        return 1.0
    values = present_values(values)
    if not values:
        return 0.3
    found, _ = profile_datatype(values)
    if any(found in _NARROW[r] for r in narrow):
        return 1.0
    if "xsd:gYear" in narrow and all(re.fullmatch(r"\d{4}", v) for v in distinct_values(values)):
        return 1.0  # four-digit whole numbers profile as xsd:integer but are gYear lexical forms
    if "xsd:date" in narrow and memoised(values, "dates", lambda: sum(
            n for v, n in value_counts(values).items() if udfs.normalize_date(v) and not has_time_of_day(v))) \
            > MOSTLY_FITS * sum(value_counts(values).values()):
        # dates in another lexical form (5 Jan 2024, 13/03/2024 among ISO ones): toDate() will normalise them (see
        # .functions); as for every range, the majority says what the column holds and the rest are faulty cells
        return 0.9
    if "xsd:boolean" in narrow and all(udfs.normalize_boolean(v) for v in value_counts(values)):
        return 0.9  # yes/no, Y/N ...: toBoolean() will normalise them
    if narrow & {"xsd:decimal", "xsd:double", "xsd:float"} and decimal_comma_share(values) > MOSTLY_FITS:
        # 8,99: toDecimal() will write the decimal point; a minority no mark reads (€ 5,50) are faulty cells,
        # as below, which the function gives no value (counted: unmapped.misfit_findings)
        return 0.9
    if narrow & {"xsd:decimal", "xsd:double", "xsd:float"} and memoised(values, "unit", lambda: unit_share(values)) \
            > MOSTLY_FITS:
        return 0.9  # €1,250.00, 12.5%, 310,7 km²: one unit on the column, toDecimal() reads the numbers without it
    if narrow & _INTEGER_RANGES and memoised(values, "integer", lambda: integer_share(values)) > MOSTLY_FITS:
        # 1.512.491, 1,512,491, 120 kg: toDecimal() writes them as integers (grouping and a shared unit left out),
        # as it does the decimals above; the minority it gives no value are faulty cells
        return 0.9
    if "xsd:time" in narrow and all(udfs.normalize_time(v) for v in value_counts(values) if v.strip()):
        return 0.9  # 20:00, 8:05: toTime() will give them their seconds
    read = column_datetime(value_counts(values)) if narrow & {"xsd:dateTime", "xsd:dateTimeStamp"} else None
    if read is not None and all(
            (out := read(v)) and ("xsd:dateTime" in narrow or XSD_DATETIMESTAMP.match(out))
            for v in value_counts(values) if v.strip()):
        return 0.9  # 2024-03-01 10:00+0100: toDateTime() will write the T, the seconds and hh:mm
    bad, n = misfits(values, narrow)
    if n and sum(bad.values()) < (1 - MOSTLY_FITS) * n:
        return 0.9  # most values fit: the rest are faulty cells, reported (unmapped.misfit_findings)
    if "xsd:gYear" in narrow and qualified_years(values):
        # years, many approximate (c. 1660): the column holds what the range describes, but the qualified
        # values are outside its lexical space; the row is marked for review (unmapped.misfit_findings)
        return QUALIFIED_FIT
    return 0.3


def misfits(values: list[str], datatypes: set[str]) -> tuple[dict[str, int], int]:
    """The non-empty values that fit none of the XSD ``datatypes`` (compact names, keys of the
    lexical table ``_NARROW``; others accept every value), with their counts, and how many
    non-empty values there are.

    A value fits when it matches the lexical pattern of a profiled datatype the range accepts
    (``xsd:decimal`` accepts ``12.50`` and ``7``, not ``1e3`` nor ``abc``), as the guard's XSD
    check would accept it. Returns ``({value: count}, n_nonblank)``.
    """
    accept = frozenset().union(*(_NARROW[d] for d in datatypes if d in _NARROW)) if datatypes else frozenset()

    def compute() -> tuple[dict[str, int], int]:  # once per column and accepted set (every candidate property asks)
        counts = value_counts(values)
        n = sum(c for v, c in counts.items() if v and v.strip())
        if not accept:
            return {}, n
        pats = [_PROFILED[d] for d in sorted(accept)]
        return {v: c for v, c in counts.items() if v and v.strip() and not any(p.match(v.strip()) for p in pats)}, n
    bad, n = memoised(values, ("misfits", accept), compute)
    return dict(bad), n


#: :func:`domain_fits` of a property whose domain is a class of another vocabulary than the class's own:
#: the same as no domain (neither restricts the class, see :func:`domain_fits`).
FOREIGN_DOMAIN = 0.8


def _disjoint(ontology: Ontology, a: set[URIRef], b: set[URIRef]) -> bool:
    g = ontology.graph
    return any((x, OWL.disjointWith, y) in g or (y, OWL.disjointWith, x) in g for x in a for y in b)


def domain_fits(ontology: Ontology, prop: URIRef, cls: URIRef) -> float:
    """How well ``prop`` fits subjects of ``cls`` by its domain: 1.0 when a domain is ``cls`` or a
    superclass, or when the property has none and the one class of its vocabulary
    (:meth:`pipeline.ontology.Ontology.vocabulary_class`) is; 0.8 without domain (none declared, or only
    ``owl:Thing``/``rdfs:Resource``: usable on any class); :data:`FOREIGN_DOMAIN` when every domain is a
    class of another vocabulary than ``cls`` and its superclasses and none is declared disjoint with
    them; else 0.

    The third case is RDFS semantics across vocabularies: ``rdfs:domain`` infers the subject's class
    (RDF 1.1 Semantics, rdfs2), it forbids nothing, and a vocabulary's domain says how its own classes
    are used, not that a class it never heard of may not have the property (``geo:lat``, domain
    ``geo:SpatialThing``, on a ``gtfs:Stop``). Within one vocabulary the domain is a design decision,
    and another class of it does not take the property."""
    doms = ontology.domains(prop)
    if not doms:
        return 1.0 if ontology.vocabulary_class(prop) in ontology.superclasses(cls) else 0.8
    sup = ontology.superclasses(cls)
    if doms & sup:
        return 1.0
    return FOREIGN_DOMAIN if foreign_domain(ontology, prop, cls) else 0.0


def domain_evidence(ontology: Ontology, prop: URIRef, cls: URIRef) -> str:
    """The evidence line's words for how ``prop`` fits subjects of ``cls`` (the cases of :func:`domain_fits`):
    ``domain fits lib:Book``; ``no domain (usable on any class)``; for a domain of another vocabulary,
    ``domain p:Person of another vocabulary, not lib:Book: under RDFS (rdfs2) each subject becomes a
    p:Person too`` - what the row asserts, so a reviewer sees it; else ``domain ... does not fit ...``."""
    doms = ontology.domains(prop)
    c = ontology.compact
    if not doms:
        return "no domain (usable on any class)"
    shown = ", ".join(sorted(c(d) for d in doms))
    if doms & ontology.superclasses(cls):
        return f"domain fits {c(cls)}"
    if foreign_domain(ontology, prop, cls):
        return (f"domain {shown} of another vocabulary, not {c(cls)}: under RDFS (rdfs2) each subject becomes "
                f"a {shown} too")
    return f"domain {shown} does not fit {c(cls)}"


def foreign_domain(ontology: Ontology, prop: URIRef, cls: URIRef) -> bool:
    """Every domain of ``prop`` is a class of another vocabulary (namespace) than ``cls`` and its
    superclasses, none of them declared disjoint with them (the third case of :func:`domain_fits`)."""
    doms = ontology.domains(prop)
    sup = ontology.superclasses(cls)
    return bool(doms) and not doms & sup and not {namespace(d) for d in doms} & {namespace(c) for c in sup} \
        and not _disjoint(ontology, doms, sup)


class DomainIndex:
    """:func:`domain_fits` of many properties against many classes, by an index from each domain class to
    its properties: a class looks up the properties of its superclasses instead of testing every
    property (vocabularies of thousands of terms, such as schema.org, stay in seconds).

    Args:
        ontology: the vocabularies. props: the properties, in the order of :meth:`weights`.
    """

    def __init__(self, ontology: Ontology, props: list[URIRef]) -> None:
        self.ontology, self.n = ontology, len(props)
        self.by_domain: dict[URIRef, list[int]] = {}
        self.free: list[int] = []
        # a property of no domain is its vocabulary's one class's own (Ontology.vocabulary_class)
        self.by_vocabulary: dict[URIRef, list[int]] = {}
        self.by_namespaces: dict[frozenset[str], list[int]] = {}
        self.domains: dict[int, set[URIRef]] = {}
        for i, p in enumerate(props):
            doms = ontology.domains(p)
            if not doms:
                self.free.append(i)
                if (sole := ontology.vocabulary_class(p)) is not None:
                    self.by_vocabulary.setdefault(sole, []).append(i)
            for d in doms:
                self.by_domain.setdefault(d, []).append(i)
            if doms:
                self.domains[i] = doms
                self.by_namespaces.setdefault(frozenset(namespace(d) for d in doms), []).append(i)

    def weights(self, cls: URIRef, foreign: bool = True) -> np.ndarray:
        """``domain_fits`` of every property for ``cls`` as an array (shape ``(len(props),)``); with
        ``foreign=False`` a property of another vocabulary's domain counts 0 (see :func:`domain_fits`), and so
        does a property of no domain that another class owns as its vocabulary's one class
        (:meth:`pipeline.ontology.Ontology.vocabulary_class`)."""
        out = np.zeros(self.n)
        out[self.free] = 0.8
        if not foreign:
            # a property its vocabulary's one class owns is, to any other class, another vocabulary's (below)
            for idx in self.by_vocabulary.values():
                out[idx] = 0.0
        sup = self.ontology.superclasses(cls)
        own = {namespace(c) for c in sup}
        for spaces, idx in (self.by_namespaces.items() if foreign else ()):
            if not spaces & own:
                out[[i for i in idx if not _disjoint(self.ontology, self.domains[i], sup)]] = FOREIGN_DOMAIN
        for c in sup:
            out[self.by_domain.get(c, [])] = 1.0
            out[self.by_vocabulary.get(c, [])] = 1.0
        return out


_RANGE_KIND = {"integer": "integer", "int": "integer", "long": "integer", "short": "integer",
               "nonNegativeInteger": "integer", "positiveInteger": "integer", "decimal": "decimal",
               "double": "decimal", "float": "decimal", "date": "date", "dateTime": "dateTime", "dateTimeStamp": "dateTime", "gYear": "year",
               "boolean": "boolean", "string": "text", "langString": "text", "normalizedString": "text",
               "token": "text", "anyURI": "text", "Literal": "text", "time": "time"}


def value_kind(values: Iterable[str]) -> str | None:
    """Lexical kind of the non-empty ``values``: ``integer``, ``year`` (four-digit whole numbers
    1000-2999), ``decimal``, ``dateTime`` (ISO 8601 with the time of day), ``date`` (any form
    ``toDate()`` normalises, and eight-digit numbers that are all valid ISO 8601 basic dates
    YYYYMMDD), ``boolean``, ``text``;
    ``decimal`` also for numbers with a decimal comma (``8,99``: ``toDecimal()``), ``time`` (clock
    times ``toTime()`` reads: ``20:00``); ``year`` also for years with a qualifier (``c. 1660``,
    ``1660?``: :func:`.profile.qualified_years`); ``None`` without values. Cells that say "no value"
    (``N/A``, ``-``: :data:`.profile.MISSING_MARKERS`) are no values: ``300, N/A, 250`` is ``integer``."""
    vals = [v.strip() for v in values if v and v.strip() and v.strip() not in MISSING_MARKERS]
    if not vals:
        return None
    if all(re.fullmatch(r"[12]\d{3}", v) for v in vals) or qualified_years(vals):
        return "year"
    if all(re.fullmatch(r"[12]\d{3}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])", v) for v in vals) \
            and all(udfs.normalize_date(v) for v in vals):
        return "date"  # ISO 8601 basic form YYYYMMDD: eight digits that are all calendar dates
    dt, _ = profile_datatype(vals)
    if dt == "xsd:integer":
        return "integer"
    if dt in ("xsd:decimal", "xsd:double"):
        return "decimal"
    read = column_datetime(vals)
    if dt == "xsd:dateTime" or all(read(v) for v in vals):
        return "dateTime"  # also as databases and spreadsheets write them (a space for the T, day-first): toDateTime()
    if dt == "xsd:date" or all(udfs.normalize_date(v) for v in vals):
        return "date"
    if dt == "xsd:boolean":
        return "boolean"
    if decimal_comma_column(vals):
        return "decimal"
    if all(udfs.normalize_time(v) for v in vals):
        return "time"
    return "text"


def range_kinds(ontology: Ontology, prop: URIRef) -> set[str]:
    """Value kinds a property's literal range admits (no range: text). A decimal range admits
    whole numbers too, a whole-number range years (a count of four digits is still a count). A date
    range admits no date-times: an ``xsd:date`` has no time of day, so ``toDate()`` would cut it off
    (an observation time is no installation date)."""
    kinds = set()
    for r in ontology.ranges(prop) or {None}:
        local = re.split(r"[#/:]", str(r))[-1] if r is not None else "Literal"
        kinds.add(_RANGE_KIND.get(local, "text"))
    if "decimal" in kinds:
        kinds.add("integer")
    if "integer" in kinds:
        kinds.add("year")
    if "year" in kinds:
        kinds.add("integer")  # gYear values profile as whole numbers
    if "text" in kinds:
        kinds.add("time")  # a clock time is text to a text range (schema:Time, xsd:string)
    return kinds
