# Our FnO functions, loaded by Morph-KGC through its `udfs` option.
# Morph-KGC execs this file after defining the `udf` decorator, so it imports
# nothing from our package: each function is self-contained. The function and
# parameter IRIs are listed in pipeline/fno/__init__.py (FUNCTIONS).
import json as _json
import re as _re
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


@udf(fun_id=_FN + "normalizeDate", value=_FN + "value")
def normalize_date(value):
    """Normalise a date to xsd:date (YYYY-MM-DD): accepts YYYYMMDD, DD/MM/YYYY, DD-MM-YYYY, ISO with time."""
    if value is None:
        return None
    v = str(value).strip()
    m = _re.fullmatch(r"(\d{4})(\d{2})(\d{2})", v)
    if m:
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    m = _re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", v)
    if m:
        return f"{m.group(3)}-{int(m.group(2)):02d}-{int(m.group(1)):02d}"
    m = _re.match(r"(\d{4}-\d{2}-\d{2})", v)
    return m.group(1) if m else None


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
