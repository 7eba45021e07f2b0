"""Fit of the ontology to a source's data, and the primary class of a source (step 4 of :mod:`.analysis`).

:func:`value_fit` (values vs a property's XSD range) and :func:`domain_fits` (a property's domain
vs a class) are the measures property matching (:mod:`.properties`), coverage and the XML document
mapper build on; :func:`choose_class` combines name fit and property fit.
"""
from __future__ import annotations

import re

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.fno import udfs
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.names import NameMatcher, is_code_name, reference_words, words
from pipeline.mappers.offline.profile import (
    DATATYPE_PATTERNS,
    XSD_BOOLEAN,
    XSD_DATETIMESTAMP,
    XSD_TIME,
    decimal_comma_column,
    distinct_values,
    profile_datatype,
    value_counts,
)

__all__ = ["value_fit", "misfits", "domain_fits", "choose_class", "MOSTLY_FITS"]

#: XSD range -> profiled datatypes whose values it accepts.
_NARROW = {"xsd:integer": {"xsd:integer", "xsd:gYear"}, "xsd:int": {"xsd:integer", "xsd:gYear"},
           "xsd:nonNegativeInteger": {"xsd:integer", "xsd:gYear"},
           "xsd:decimal": {"xsd:integer", "xsd:decimal", "xsd:gYear"},
           "xsd:double": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:float": {"xsd:integer", "xsd:decimal", "xsd:double", "xsd:gYear"},
           "xsd:boolean": {"xsd:boolean"}, "xsd:date": {"xsd:date"}, "xsd:dateTime": {"xsd:dateTime"},
           "xsd:dateTimeStamp": {"xsd:dateTimeStamp"}, "xsd:gYear": {"xsd:gYear"}, "xsd:time": {"xsd:time"}}

#: Share of a column's non-empty values (repeats counted) that must fit a property's range for the
#: range to describe the column despite the rest: more than half, the plain meaning of "most". The
#: majority then says what the column holds, and the minority are faulty cells (a typo, ``n/a``),
#: which the guard drops one by one at materialize and reports; leaving the column unmapped would
#: lose the majority too. At half or below, the values say nothing about the column's kind (a code
#: column with some numeric codes), so the range is not taken as fitting.
MOSTLY_FITS = 0.5
#: Lexical forms a value must have to fit (what the guard's XSD check accepts): profiling's patterns,
#: except that ``xsd:boolean`` is exactly true/false/1/0 (``True`` needs toBoolean(), ``1`` does not)
#: and ``xsd:time`` needs its seconds (:data:`.profile.XSD_BOOLEAN`, :data:`.profile.XSD_TIME`).
#: A date is no ``xsd:dateTime`` (``2023-04-12``: XSD 1.1 Part 2, 3.3.7 requires the time of day) and
#: ``xsd:dateTimeStamp`` requires the time zone (3.4.28: ``2024-03-01T10:00:00`` is none).
_PROFILED = {**dict(DATATYPE_PATTERNS), "xsd:boolean": XSD_BOOLEAN, "xsd:time": XSD_TIME,
             "xsd:dateTimeStamp": XSD_DATETIMESTAMP}


def value_fit(ontology: Ontology, prop: URIRef, values: list[str]) -> float:
    """1.0 when the values fit the property's XSD range (or it has none), 0.3 when they do not.

    Only ranges narrower than string are tested (numbers, booleans, dates), with
    :func:`.profile.profile_datatype`'s lexical patterns; dates and booleans that the
    ``normalizeDate`` / ``normalizeBoolean`` functions turn into the range's form score 0.9.
    """
    ranges = {ontology.compact(r) for r in ontology.ranges(prop)}
    narrow = ranges & set(_NARROW)
    if not narrow or not values:
        return 1.0
    found, _ = profile_datatype(values)
    if any(found in _NARROW[r] for r in narrow):
        return 1.0
    if "xsd:gYear" in narrow and all(re.fullmatch(r"\d{4}", v) for v in distinct_values(values)):
        return 1.0  # four-digit whole numbers profile as xsd:integer but are gYear lexical forms
    if "xsd:date" in narrow and sum(n for v, n in value_counts(values).items()
                                    if udfs.normalize_date(v)) >= 0.8 * len(values):
        return 0.9  # dates in another lexical form: toDate() will normalise them (see .functions)
    if "xsd:boolean" in narrow and all(udfs.normalize_boolean(v) for v in value_counts(values)):
        return 0.9  # yes/no, Y/N ...: toBoolean() will normalise them
    if narrow & {"xsd:decimal", "xsd:double", "xsd:float"} and decimal_comma_column(values):
        return 0.9  # 8,99: toDecimal() will write the decimal point
    if "xsd:time" in narrow and all(udfs.normalize_time(v) for v in value_counts(values) if v.strip()):
        return 0.9  # 20:00, 8:05: toTime() will give them their seconds
    if narrow & {"xsd:dateTime", "xsd:dateTimeStamp"} and all(
            (out := udfs.normalize_datetime(v)) and ("xsd:dateTime" in narrow or XSD_DATETIMESTAMP.match(out))
            for v in value_counts(values) if v.strip()):
        return 0.9  # 2024-03-01 10:00+0100: toDateTime() will write the T, the seconds and hh:mm
    bad, n = misfits(values, narrow)
    if n and sum(bad.values()) < (1 - MOSTLY_FITS) * n:
        return 0.9  # most values fit: the rest are faulty cells, reported (coverage.misfit_findings)
    return 0.3


def misfits(values: list[str], datatypes: set[str]) -> tuple[dict[str, int], int]:
    """The non-empty values that fit none of the XSD ``datatypes`` (compact names, keys of the
    lexical table ``_NARROW``; others accept every value), with their counts, and how many
    non-empty values there are.

    A value fits when it matches the lexical pattern of a profiled datatype the range accepts
    (``xsd:decimal`` accepts ``12.50`` and ``7``, not ``1e3`` nor ``abc``), as the guard's XSD
    check would accept it. Returns ``({value: count}, n_nonblank)``.
    """
    accept = set().union(*(_NARROW[d] for d in datatypes if d in _NARROW)) if datatypes else set()
    counts = value_counts(values)
    n = sum(c for v, c in counts.items() if v and v.strip())
    if not accept:
        return {}, n
    pats = [_PROFILED[d] for d in accept]
    bad = {v: c for v, c in counts.items() if v and v.strip() and not any(p.match(v.strip()) for p in pats)}
    return bad, n


def domain_fits(ontology: Ontology, prop: URIRef, cls: URIRef) -> float:
    """1.0 when a domain of ``prop`` is ``cls`` or a superclass, 0.8 without domain, else 0."""
    doms = ontology.domains(prop)
    if not doms:
        return 0.8
    return 1.0 if doms & ontology.superclasses(cls) else 0.0


def choose_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
                 props: list[URIRef]) -> None:
    """Set the primary class of a (non-link) source from its name and its references."""
    names = [" ".join(words(info.stem))]
    it = (info.data.iterator or "").rstrip("]*[").split("/")[-1].split(".")[-1]
    if it and it not in ("$", ""):
        names.append(" ".join(words(it)))
    # code names (X17) say nothing about the class: the file name and the kinds of their values decide
    refs = [r for r in info.refs if r not in info.fks and r != info.lang_col and not is_code_name(r)]
    coded = [r for r in info.refs if r not in info.fks and r != info.lang_col and is_code_name(r)]
    from pipeline.mappers.offline.elimination import value_kind  # (elimination builds on this module)
    coded_kinds = [value_kind(info.data.values(r)) for r in coded]
    best: tuple[float, URIRef | None, str] = (-1.0, None, "")
    for cls in classes:
        name_fit = max(matcher.score(n, cls) for n in names)
        fits = [p for p in props if domain_fits(ontology, p, cls) == 1.0]
        prop_fit = 0.0
        if refs and fits:
            prop_fit = float(np.mean([max(matcher.score(" ".join(reference_words(r)), p) for p in fits) for r in refs]))
        if not refs and coded:
            prop_fit = _kind_fit(ontology, fits, coded_kinds)
        score = 0.5 * name_fit + 0.5 * prop_fit if refs or coded else name_fit
        if score > best[0]:
            best = (score, cls, f"name fit {name_fit:.2f} ({names[0]!r}), property fit {prop_fit:.2f} "
                                f"over {len(refs)} reference(s)")
    info.cls_score, info.cls, info.cls_evidence = best


def _kind_fit(ontology: Ontology, props: list[URIRef], kinds: list[str | None]) -> float:
    """Share of columns and properties that pair up by value kind (maximum bipartite matching of
    column kinds to the kinds the properties' ranges admit, over the larger of the two counts): a
    source of dates, prices and counts fits a class whose properties range over those, not a class
    of names only."""
    from pipeline.mappers.offline.elimination import range_kinds

    if not props or not kinds:
        return 0.0
    m = np.array([[1.0 if k in range_kinds(ontology, p) else 0.0 for p in props] for k in kinds])
    rows, cols = linear_sum_assignment(-m)
    return float(m[rows, cols].sum()) / max(len(kinds), len(props))
