"""Data profiling for the offline mapper: datatypes, keys, inclusion dependencies.

* Datatype by lexical profiling: the most specific XSD type whose lexical
  space (XML Schema 1.1 Part 2, section 3.3) holds every non-empty value, in
  the order boolean, integer, decimal, double, date, dateTime, gYear, anyURI,
  else string.
* Keys: a set of references is a key when no two *distinct* records agree on
  it (exact duplicate records describe the same entity, as in BLINKG 1D/1G). On a
  CSV source a candidate is first tested on the documented sample of
  :func:`pipeline.sources.columns.sample_indices` (which can only reject), then on every record.
  A CSV held as its sample (profile-and-sample, :mod:`pipeline.sources.columns`): one column is a
  key when its value counts over all records show no empty and no repeated cell (exact duplicate
  records are then not set apart); several columns are tested on the sample.
* The statistics of a sampled column (distinct values, non-empty count, value counts) come from its
  counts over all records (:class:`~pipeline.sources.columns.Values` ``counts``), so datatypes and
  inclusion dependencies stay exact.
* Lexical tests (datatype, numbers, inclusion) run once per distinct value and are
  kept in the column's memo (:class:`pipeline.sources.columns.Values`): exact, at the cost of
  the distinct values, not of the records.
* Inclusion dependency ``A <= B``: every non-empty value of A is a value of B
  (the unary IND test of De Marchi et al., "Unary and n-ary inclusion
  dependency discovery in relational databases", JIIS 2009).
"""
from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import Callable, Sequence, TypeVar

from pipeline.fno import udfs
from pipeline.fno.decimals import column_reader, decide_decimal_mark, decide_unit
from pipeline.sources.columns import ColumnRecords, DistinctRecords, Values, sample_indices

__all__ = ["DATATYPE_PATTERNS", "XSD_BOOLEAN", "XSD_DATE", "XSD_TIME", "XSD_DATETIME", "XSD_DATETIMESTAMP", "MISSING_MARKERS",
           "present_values", "QUALIFIED_YEAR", "decimal_comma_column", "decimal_comma_share", "unit_share", "integer_share", "qualified_years", "profile_datatype", "is_numeric", "distinct_values", "nonblank_count", "value_counts",
           "distinct_records", "is_key", "minimal_keys", "included", "memoised"]

_T = TypeVar("_T")

#: lexical patterns profiling tries in order, most specific first: (datatype, pattern).
DATATYPE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("xsd:boolean", re.compile(r"^(true|false)$", re.I)),
    ("xsd:integer", re.compile(r"^[+-]?\d+$")),
    ("xsd:decimal", re.compile(r"^[+-]?(\d+\.\d*|\.\d+)$")),
    ("xsd:double", re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^(INF|-INF|NaN)$")),
    ("xsd:date", re.compile(r"^\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$")),
    ("xsd:dateTime", re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")),
    ("xsd:gYear", re.compile(r"^\d{4}$")),
    ("xsd:anyURI", re.compile(r"^(https?|ftp|mailto|urn):\S+$", re.I)),
]

#: What a value must look like to be in an XSD lexical space where profiling's patterns are wider:
#: ``xsd:boolean`` is exactly true/false/1/0 (XSD 1.1 Part 2, 3.3.2) and ``xsd:time`` has its seconds
#: (3.3.8: ``20:00`` is no time). The fit checks and the function proposals both read these.
XSD_BOOLEAN = re.compile(r"^(true|false|1|0)$")
#: xsd:date (3.3.9): its timezone, when written, is part of the value.
XSD_DATE = dict(DATATYPE_PATTERNS)["xsd:date"]
XSD_TIME = re.compile(r"^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")
#: xsd:dateTime (3.3.7: the time of day with seconds) and xsd:dateTimeStamp (3.4.28: with its zone).
XSD_DATETIME = dict(DATATYPE_PATTERNS)["xsd:dateTime"]
XSD_DATETIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


#: A year with a qualifier of approximation or uncertainty, as catalogues write dates they do not know
#: exactly: ``c. 1660``, ``ca. 1658``, ``circa 1660``, ``approx. 1660``, ``about 1660`` (the "ca." of
#: Cataloging Cultural Objects, CCO 4.2, and of museum and archive catalogues) and the EDTF qualifiers
#: ``1660~`` (approximate), ``1660?`` (uncertain), ``1660%`` (both) of ISO 8601-2:2019 / EDTF level 1.
#: Such a value is a year in the data (a date, not a name), yet no ``xsd:gYear``: the qualifier is
#: information that lexical space cannot hold.
QUALIFIED_YEAR = re.compile(r"^(?:(?:c|ca|circa|approx|about)\.?\s*|~\s*)[12]\d{3}$|^[12]\d{3}\s*[~?%]$", re.I)
_PLAIN_YEAR = re.compile(r"^[12]\d{3}$")


def qualified_years(values: Sequence[str]) -> bool:
    """Every non-empty value is a year (four digits 1000-2999), plain or with a qualifier
    (:data:`QUALIFIED_YEAR`), and at least one has a qualifier: a column of years of which some are
    approximate. ``False`` without values or when every year is plain (then it is an ``xsd:gYear``
    or a whole number, see :func:`profile_datatype`)."""
    def compute() -> bool:
        distinct = _stripped(values)
        return any(QUALIFIED_YEAR.match(v) for v in distinct) \
            and all(_PLAIN_YEAR.match(v) or QUALIFIED_YEAR.match(v) for v in distinct)
    return memoised(values, "qualified_years", compute)


#: Cells that say "no value" in exported tables: pandas ``read_csv``'s default ``na_values`` and a
#: lone dash. A column of numbers with such cells is still a column of numbers; the marked cells
#: give no value (a function returns none for them, so they give no triple).
MISSING_MARKERS = udfs.MISSING_VALUES


def present_values(values: Sequence[str]) -> Sequence[str]:
    """``values`` without the cells that say "no value" (:data:`MISSING_MARKERS`: ``NA``, ``-``): what a test of
    the values against a range or a kind reads, since ``skipMissing()`` gives those cells no value at all.

    Returns ``values`` itself when it holds no marker; else a :class:`~pipeline.sources.columns.Values` of the
    other cells (with their ``counts`` over all records for a sampled column), kept in the column's memo so
    that later tests on it are memoised too."""
    def compute() -> Sequence[str]:
        if not any(v in MISSING_MARKERS for v in _stripped(values)):
            return values
        whole = _whole(values)
        counts = Counter({v: c for v, c in whole.items() if not v or v.strip() not in MISSING_MARKERS}) \
            if whole is not None else None
        return Values((v for v in values if not v or v.strip() not in MISSING_MARKERS), counts=counts)
    return memoised(values, "present", compute)


def decimal_comma_share(values: Sequence[str]) -> float:
    """Share (0..1) of a column's non-empty values, missing-value markers (:data:`MISSING_MARKERS`: ``NA``,
    ``-``) left out, that read as numbers with a decimal comma: each is read with the mark the column
    decides (:func:`pipeline.fno.decimals.decide_decimal_mark`, as the compiler will;
    :func:`pipeline.fno.udfs.normalize_decimal`), and some value must show the comma is no thousands
    separator: a comma followed by other than three digits (``8,99``, ``12,5``) or a point before a
    comma (``1.234,56``). ``1,500`` alone could be either, so it decides nothing (share 0). A cell no
    mark makes a number (``€ 5,50``, a typo) lowers the share: ``toDecimal()`` gives it no value."""
    vals = [v.strip() for v in values if v and v.strip() and v.strip() not in MISSING_MARKERS]
    mark = decide_decimal_mark(vals).mark if vals else None
    read = [v for v in vals if udfs.normalize_decimal(v, mark)]
    if not any(re.search(r",(\d{1,2}|\d{4,})$", v) or ("." in v and "," in v) for v in read):
        return 0.0
    return len(read) / len(vals)


def unit_share(values: Sequence[str]) -> float:
    """Share (0..1) of a column's non-empty values, missing-value markers left out, that ``toDecimal()``
    reads as numbers once the column's one unit is left out (a currency sign or ISO 4217 code, ``%``, a
    unit symbol such as ``km²``: :func:`pipeline.fno.decimals.decide_unit`, as the compiler decides it). 0
    unless every value with a digit carries the same unit (``€5``, ``$5``: amounts in two currencies are
    not one quantity)."""
    vals = [v.strip() for v in values if v and v.strip() and v.strip() not in MISSING_MARKERS]
    unit = decide_unit(vals) if vals else None
    if unit is None or unit.status != "shared":
        return 0.0
    read = column_reader(vals)
    return sum(1 for v in vals if read(v)) / len(vals)


def integer_share(values: Sequence[str]) -> float:
    """Share (0..1) of a column's non-empty values, missing-value markers left out, that ``toDecimal()``
    reads into an integer datatype (:func:`pipeline.fno.decimals.column_reader` with ``integer``, as the
    compiler reads them): ``1.512.491`` and ``1,512,491`` (thousands grouped), ``12 kg`` (a unit every
    value shares); ``12,5`` has a fraction and is none."""
    vals = [v.strip() for v in values if v and v.strip() and v.strip() not in MISSING_MARKERS]
    if not vals:
        return 0.0
    read = column_reader(vals, integer=True)
    return sum(1 for v in vals if read(v)) / len(vals)


def decimal_comma_column(values: Sequence[str]) -> bool:
    """The column writes numbers with a decimal comma: every non-empty value that is no missing-value
    marker reads as such a number (:func:`decimal_comma_share` is 1)."""
    return decimal_comma_share(values) == 1.0


def memoised(values: Sequence[str], name: str, compute: Callable[[], _T]) -> _T:
    """``compute()``, kept under ``name`` in the column's memo when ``values`` is a
    :class:`~pipeline.sources.columns.Values` (computed anew for any other sequence)."""
    memo = getattr(values, "memo", None)
    if memo is None:
        return compute()
    key = (name, len(values))
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _whole(values: Sequence[str]) -> Counter | None:
    """The occurrences of each value over all records when ``values`` is a sample of the column
    (:class:`~pipeline.sources.columns.Values` ``counts``, profile-and-sample), else ``None``."""
    return getattr(values, "counts", None)


def _distinct_raw(values: Sequence[str]) -> set[str] | Counter:
    """The distinct raw values, over all records."""
    whole = _whole(values)
    return whole if whole is not None else set(values)


def _stripped(values: Sequence[str]) -> frozenset[str]:
    """Distinct non-empty values, white space stripped (each distinct value stripped once)."""
    def compute() -> frozenset[str]:
        out = {v.strip() for v in _distinct_raw(values) if v}
        out.discard("")
        return frozenset(out)
    return memoised(values, "stripped", compute)


def _count_nonblank(values: Sequence[str]) -> int:
    whole = _whole(values)
    if whole is not None:
        return sum(c for v, c in whole.items() if v and v.strip())
    blank = [v for v in set(values) if not v or not v.strip()]
    return len(values) - sum(values.count(b) for b in blank) if blank else len(values)


def distinct_values(values: Sequence[str]) -> frozenset[str]:
    """The distinct non-empty values, white space stripped: what an all-values lexical test needs."""
    return _stripped(values)


def nonblank_count(values: Sequence[str]) -> int:
    """How many values are non-empty once stripped (repeats counted)."""
    return memoised(values, "nonblank", lambda: _count_nonblank(values))


def value_counts(values: Sequence[str]) -> Counter:
    """Occurrences of each raw value (a test per distinct value, weighted, replaces one per value)."""
    return memoised(values, "counts", lambda: _whole(values) or Counter(values))


def profile_datatype(values: Sequence[str]) -> tuple[str, str]:
    """Most specific XSD datatype of the non-empty ``values``.

    Every distinct value is tested (each once), so the answer holds for all values.

    Returns:
        ``(datatype, evidence)``, e.g. ``("xsd:double", "3/3 values match xsd:double")``.
        ``xsd:integer`` wins over ``xsd:gYear`` (four-digit integers are usually counts
        or codes); ``xsd:string`` when nothing else fits or there are no values.
    """
    if not isinstance(values, (list, tuple)):
        values = list(values)

    def compute() -> tuple[str, str]:
        distinct = _stripped(values)
        if not distinct:
            return "xsd:string", "no values; default xsd:string"
        n = _count_nonblank(values)
        for dt, pat in DATATYPE_PATTERNS:
            if all(pat.match(v) for v in distinct):
                return dt, f"{n}/{n} values match {dt}"
        return "xsd:string", f"{n} values fit no narrower XSD type"
    return memoised(values, "datatype", compute)


def is_numeric(values: Sequence[str]) -> bool:
    """True when every non-empty value is an integer, decimal or double (and there is one)."""
    def compute() -> bool:
        distinct = {v.strip() for v in _distinct_raw(values) if v}
        return bool(distinct) and all(DATATYPE_PATTERNS[3][1].match(v) for v in distinct)
    return memoised(values, "numeric", compute)


def distinct_records(records: Sequence[dict[str, list[str]]]) -> Sequence[dict[str, tuple[str, ...]]]:
    """Records with exact duplicates removed (values as tuples), in first-seen order.

    CSV records (:class:`~pipeline.sources.columns.ColumnRecords`) give a columnar
    :class:`~pipeline.sources.columns.DistinctRecords` (same records, built on access).
    """
    if isinstance(records, ColumnRecords):
        return records.distinct()
    seen, out = set(), []
    for r in records:
        frozen = tuple(sorted((k, tuple(v)) for k, v in r.items()))
        if frozen not in seen:
            seen.add(frozen)
            out.append({k: tuple(v) for k, v in r.items()})
    return out


def is_key(records: Sequence[dict[str, tuple[str, ...]]], refs: Sequence[str]) -> bool:
    """True when every record has a value for each of ``refs`` and no two records share them.

    On columnar records (:class:`~pipeline.sources.columns.DistinctRecords`) the test runs on the
    sample (:func:`~pipeline.sources.columns.sample_indices`) first: a duplicate or an empty value
    there is one in the whole source, so the sample can only reject; a key of the sample is
    then checked on every record. The answer is exact either way.
    """
    if isinstance(records, DistinctRecords):
        return _is_key_columns(records, refs)
    seen = set()
    for r in records:
        key = tuple(r.get(ref, ()) for ref in refs)
        if any(not v or not any(x for x in v) for v in key) or key in seen:
            return False
        seen.add(key)
    return bool(records)


def _is_key_columns(records: DistinctRecords, refs: Sequence[str]) -> bool:
    cols = [records.column(r) for r in refs]
    n = len(records)
    if not n or any(c is None for c in cols):
        return False
    whole = records.base.value_counts(refs[0]) if len(refs) == 1 else None
    if whole is not None:  # a sampled file: one column is a key when no cell is empty or repeated in any record
        return len(whole) == records.base.total and all(c == 1 for c in whole.values())
    idx = sample_indices(n)
    if len(idx) < n:
        keys = [tuple(c[i] for c in cols) for i in idx]
        if any("" in k for k in keys) or len(set(keys)) < len(keys):
            return False
    if any("" in c for c in cols):
        return False
    return len(set(cols[0]) if len(cols) == 1 else set(zip(*cols))) == n


def minimal_keys(records: Sequence[dict[str, tuple[str, ...]]], refs: Sequence[str], max_size: int = 3) -> list[tuple[str, ...]]:
    """All minimal keys of up to ``max_size`` references (no key contains a smaller key).

    Returns:
        Keys in order of size, then of reference order in ``refs``.
    """
    found: list[tuple[str, ...]] = []
    for size in range(1, max_size + 1):
        for combo in itertools.combinations(refs, size):
            if any(set(k) <= set(combo) for k in found):
                continue
            if is_key(records, combo):
                found.append(combo)
    return found


def included(child: Sequence[str], parent: Sequence[str]) -> float:
    """Share of the distinct non-empty ``child`` values found among ``parent`` values, in [0, 1].

    1.0 is a unary inclusion dependency; 0.0 when ``child`` has no value.
    """
    c = _stripped(child)
    if not c:
        return 0.0
    return len(c & _stripped(parent)) / len(c)
