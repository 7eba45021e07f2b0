# Our FnO functions, loaded by Morph-KGC through its `udfs` option.
# Morph-KGC execs this file after defining the `udf` decorator, so it imports
# nothing from our package: each function is self-contained. The function and
# parameter IRIs are listed in pipeline/fno/__init__.py (FUNCTIONS).
import json as _json
import re as _re
from datetime import date as _date
from urllib.parse import quote as _quote

_FN = "https://w3id.org/kgc-pipeline/function#"

try:
    udf  # noqa: B018 - defined by Morph-KGC before it runs this file
except NameError:  # imported as a module (the offline mapper reuses the functions): no registry
    def udf(fun_id, **params):  # noqa: ARG001
        return lambda funct: funct


@udf(fun_id=_FN + "valueMap", value=_FN + "value", table=_FN + "map")
def value_map(value, table):
    """Look ``value`` up in the JSON object ``table`` (code -> IRI); None when absent."""
    if value is None:
        return None
    return _json.loads(table).get(str(value).strip())


@udf(fun_id=_FN + "percentEncode", value=_FN + "value")
def percent_encode(value):
    """Percent-encode a value for use inside an IRI (RFC 3986 unreserved kept), as R2RML templates do."""
    if value is None:
        return None
    return _quote(str(value), safe="-._~")


@udf(fun_id=_FN + "normalizeDate", value=_FN + "value", order=_FN + "order")
def normalize_date(value, order=None):
    """Normalise a date to xsd:date (YYYY-MM-DD); None when it is no date.

    Year-first forms are read as they are: ISO (``2024-03-04``, a time or zone after it ignored),
    ``2024/03/04``, compact ``20240304``. Day/month forms (``03/04/2024``, ``-`` or ``.`` too)
    follow ``order``: ``DMY`` day-first, ``MDY`` month-first, ``YMD`` none (such values give
    None: the compiler passes it for a column whose order nothing decides, see
    pipeline/fno/dates.py). Without ``order`` (a quick parse check) day-first is tried first.
    A month written as a word (``29 April 2003``, ``April 29, 2003``, ``29 de abril de 2003``)
    needs no order.
    """
    if value is None:
        return None
    v = str(value).strip()
    m = _re.fullmatch(r"(\d{4})(\d{2})(\d{2})", v) or _re.match(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)", v)
    if m:
        return _iso_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    named = _named_month_date(v)
    if named:
        return named
    m = _re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", v)
    if not m:
        return None
    a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if order == "DMY":
        return _iso_date(year, b, a)
    if order == "MDY":
        return _iso_date(year, a, b)
    if order is None:
        return _iso_date(year, b, a) or _iso_date(year, a, b)
    return None


#: Month names (English, Spanish; full and abbreviated) -> month number.
_MONTHS = {name: i + 1 for i, names in enumerate((
    "january jan enero ene", "february feb febrero", "march mar marzo", "april apr abril abr",
    "may mayo", "june jun junio", "july jul julio", "august aug agosto ago",
    "september sep sept septiembre setiembre set", "october oct octubre", "november nov noviembre",
    "december dec diciembre dic")) for name in names.split()}


def _named_month_date(v):
    """``29 April 2003``, ``April 29, 2003``, ``29-Apr-2003``, ``29 de abril de 2003`` -> ``2003-04-29``: a
    month written as a word names itself, so no day/month order is involved; None otherwise."""
    day = r"(\d{1,2})(?:st|nd|rd|th|º)?"
    month = r"([A-Za-zÀ-ÿ]+)\.?"
    m = _re.fullmatch(day + r"[\s/-]+(?:de\s+)?" + month + r"[\s/,-]+(?:de(?:l)?\s+)?(\d{4})", v, _re.IGNORECASE)
    if m:
        d, name, year = m.group(1), m.group(2), m.group(3)
    else:
        m = _re.fullmatch(month + r"\s+" + day + r",?\s+(\d{4})", v, _re.IGNORECASE)
        if not m:
            return None
        name, d, year = m.group(1), m.group(2), m.group(3)
    month_no = _MONTHS.get(name.lower())
    return _iso_date(int(year), month_no, int(d)) if month_no else None


def _iso_date(year, month, day):
    """``YYYY-MM-DD`` when the date exists (no 2024-02-30), else None."""
    try:
        return _date(year, month, day).isoformat()
    except ValueError:
        return None


@udf(fun_id=_FN + "concat", first=_FN + "first", second=_FN + "second")
def concat(first, second):
    """Concatenate two strings; None when either is None (RML null semantics)."""
    if first is None or second is None:
        return None
    return f"{first}{second}"


_TRUE = {"1", "true", "t", "yes", "y", "si", "sí", "s", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


@udf(fun_id=_FN + "normalizeBoolean", value=_FN + "value")
def normalize_boolean(value):
    """Normalise yes/no, 1/0, true/false (any case) to xsd:boolean's ``true``/``false``; None otherwise."""
    if value is None:
        return None
    v = str(value).strip().lower()
    return "true" if v in _TRUE else "false" if v in _FALSE else None


_CLOCK = _re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")


@udf(fun_id=_FN + "normalizeTime", value=_FN + "value")
def normalize_time(value):
    """Normalise a clock time to xsd:time's lexical form ``hh:mm:ss`` (XSD 1.1 Part 2, 3.3.8): ``20:00``
    -> ``20:00:00``, ``8:05`` -> ``08:05:00``; fractions and a zone are kept. None for anything else
    (``24:00``, ``25:00``, ``8pm``): no value, no triple."""
    if value is None:
        return None
    m = _CLOCK.match(str(value).strip())
    if not m:
        return None
    h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if h > 23 or mi > 59 or sec > 59:
        return None
    return f"{h:02d}:{mi:02d}:{sec:02d}{m.group(4) or ''}{m.group(5) or ''}"


_DATETIME = _re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$")


@udf(fun_id=_FN + "normalizeDateTime", value=_FN + "value")
def normalize_datetime(value):
    """An ISO 8601 date-time as databases and spreadsheets write it, in xsd:dateTime's lexical form
    (XSD 1.1 Part 2, 3.3.7): a space for the ``T`` (``2024-03-01 10:00:00`` -> ``2024-03-01T10:00:00``),
    no seconds (``10:00`` -> ``10:00:00``), a zone offset without its colon or minutes (``+0100``,
    ``+01`` -> ``+01:00``). A zone is kept, never invented. None for anything else (day-first dates,
    impossible dates or times): no value, no triple."""
    if value is None:
        return None
    m = _DATETIME.match(str(value).strip())
    if not m:
        return None
    day, h, mi, sec, frac, zone = m.groups()
    try:
        _date.fromisoformat(day)
    except ValueError:
        return None
    if int(h) > 23 or int(mi) > 59 or int(sec or 0) > 59:
        return None
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        zone = f"{zone[0]}{digits[:2]}:{digits[2:4] or '00'}"
        if int(digits[:2]) > 14 or int(digits[2:4] or 0) > 59:
            return None
    return f"{day}T{h}:{mi}:{sec or '00'}{frac or ''}{zone or ''}"


#: Cells that say "no value" (pandas ``read_csv``'s default ``na_values`` and a lone dash).
MISSING_VALUES = frozenset({"#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                      "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null", "-"})


@udf(fun_id=_FN + "skipMissing", value=_FN + "value")
def skip_missing(value):
    """The value as it is, None for a cell that says "no value" (``NA``, ``N/A``, ``null``, ``NaN``,
    ``-``: pandas' default ``na_values``): no value, no triple, instead of an ill-typed literal."""
    if value is None or str(value).strip() in MISSING_VALUES:
        return None
    return value


_DECIMAL_COMMA = _re.compile(r"^([+-]?)(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$")


@udf(fun_id=_FN + "normalizeDecimalComma", value=_FN + "value")
def normalize_decimal_comma(value):
    """A number written with a decimal comma (``8,99``, ``1.234,56``: point as thousands separator)
    in xsd:decimal's lexical form (``8.99``, ``1234.56``); whole numbers stay (``12``). None for
    anything else (``8.99`` in such a column is no number of that form): no value, no triple."""
    if value is None:
        return None
    m = _DECIMAL_COMMA.match(str(value).strip())
    if not m:
        return None
    return f"{m.group(1)}{m.group(2).replace('.', '')}" + (f".{m.group(3)}" if m.group(3) else "")



# IDLab's condition functions (FnOio/idlab-functions-java, functions_idlab.ttl), the functions
# YARRRML conditions compile to (yarrrml-parser writes `condition` as trueCondition(strBoolean =
# <condition>, str = <value>)). Registered under the current namespace and the one RMLMapper and
# YARRRML documents used before it (http://example.com/idlab/function/), with the parameters the
# FnO description names (GREL's valueParameter/valueParameter2 for equal and notEqual).
_IDLAB = "https://w3id.org/imec/idlab/function#"
_IDLAB_OLD = "http://example.com/idlab/function/"
_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"


def _true(value):
    """A condition's result: the boolean an inner function returned, or the text ``true``."""
    return value is True or (isinstance(value, str) and value == "true")


@udf(fun_id=_IDLAB + "trueCondition", strBoolean=_IDLAB + "strBoolean", value=_IDLAB + "str")
@udf(fun_id=_IDLAB_OLD + "trueCondition", strBoolean=_IDLAB_OLD + "strBoolean", value=_IDLAB_OLD + "str")
def true_condition(strBoolean, value):  # noqa: N803 - the FnO parameter's name
    """``value`` where the condition ``strBoolean`` is true, else None (no value, no triple)."""
    return value if _true(strBoolean) else None


@udf(fun_id=_IDLAB + "equal", a=_GREL + "valueParameter", b=_GREL + "valueParameter2")
@udf(fun_id=_IDLAB_OLD + "equal", a=_GREL + "valueParameter", b=_GREL + "valueParameter2")
def idlab_equal(a, b):
    """Whether the two values are the same text (Java's ``String.equals``; a missing value equals nothing)."""
    return a is not None and b is not None and str(a) == str(b)


@udf(fun_id=_IDLAB + "notEqual", a=_GREL + "valueParameter", b=_GREL + "valueParameter2")
@udf(fun_id=_IDLAB_OLD + "notEqual", a=_GREL + "valueParameter", b=_GREL + "valueParameter2")
def idlab_not_equal(a, b):
    """Whether the two values differ (a missing value differs from everything)."""
    return not idlab_equal(a, b)


@udf(fun_id=_IDLAB + "stringContainsOtherString", text=_IDLAB + "str", other=_IDLAB + "otherStr",
     delimiter=_IDLAB + "delimiter")
@udf(fun_id=_IDLAB_OLD + "stringContainsOtherString", text=_IDLAB_OLD + "str", other=_IDLAB_OLD + "otherStr",
     delimiter=_IDLAB_OLD + "delimiter")
def string_contains_other_string(text, other, delimiter):
    """Whether ``other`` is one of the parts of ``text`` split at ``delimiter`` (a regular expression,
    as Java's ``String.split``)."""
    if text is None or other is None or delimiter is None:
        return False
    return str(other) in _re.split(str(delimiter), str(text))


@udf(fun_id=_IDLAB + "isNull", text=_IDLAB + "str")
@udf(fun_id=_IDLAB_OLD + "isNull", text=_IDLAB_OLD + "str")
def is_null(text):
    """Whether the value is missing (None or an empty cell)."""
    return text is None or text == ""
