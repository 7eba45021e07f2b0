"""When two RDF literals are the same value: the one definition every graph score and CQ uses.

Two comparisons are defined here.

* **Same value** (:func:`term_key`, strict): the comparison of SA2, SA3, SA4, CN3, CM3 and the
  competency-question answers (PQ1-PQ6). Literals are equal when their values are equal in the
  XSD value space (XML Schema 1.1 Part 2, section 2.2 and 3.3), as SPARQL's ``=`` sees them
  (SPARQL 1.1 section 17.3, numeric type promotion):

  - numbers (``xsd:decimal`` and the types derived from it such as ``xsd:integer`` and
    ``xsd:int``, ``xsd:double``, ``xsd:float``) are one numeric value space:
    ``"9.5"^^xsd:decimal``, ``"9.50"^^xsd:decimal``, ``"9.5E0"^^xsd:double`` are one value, and
    ``"20"^^xsd:integer`` equals ``"20.00"^^xsd:decimal``; a double is compared at its shortest
    decimal form (``"0.1"^^xsd:double`` equals ``"0.1"^^xsd:decimal``); ``NaN`` equals ``NaN``
    (a scoring key must be reflexive, although IEEE says otherwise);
  - ``xsd:boolean``: ``"1"`` and ``"true"`` are one value;
  - dates and times (``xsd:dateTime``, ``xsd:date``, ``xsd:time``, durations): the value rdflib
    parses, so ``"2020-01-01T01:00:00+01:00"`` equals ``"2020-01-01T00:00:00Z"``; a value with a
    time zone never equals one without (XSD leaves their order undetermined);
  - language-tagged strings: the same text and the same tag, the tag case-insensitive (BCP 47);
  - a plain literal is an ``xsd:string`` (RDF 1.1); strings and every other datatype (and a
    lexical form that is not valid for its datatype) compare by datatype and lexical form.

* **Loose** (:func:`loose_key`): datatype and language ignored, numbers by value, other text
  trimmed, whitespace-collapsed and case-folded; used where a value is looked for whatever its
  typing (CN5 duplicates, CM2 source information, the content alignment's value features).
"""
from __future__ import annotations

import datetime as _dt
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from rdflib import Literal
from rdflib.namespace import RDF, XSD

__all__ = ["term_key", "loose_key", "loose_text_key", "canonical_number", "NUMERIC_TYPES"]

_X = str(XSD)
#: XSD numeric datatypes (decimal, its derived integer types, double, float): one value space here.
NUMERIC_TYPES = frozenset(_X + n for n in (
    "decimal", "integer", "long", "int", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
    "double", "float"))
_FLOATING = frozenset((_X + "double", _X + "float"))
_BOOLEAN = _X + "boolean"
_STRING = str(XSD.string)
_LANG_STRING = str(RDF.langString)


def canonical_number(text: str) -> str | None:
    """A numeral in one canonical decimal form (``"1.50"``, ``"1.5E0"`` -> ``"1.5"``; ``"007"`` -> ``"7"``),
    or None when ``text`` is no finite number.

    Args:
        text: a lexical form (leading and trailing spaces allowed).
    Returns:
        The shortest plain decimal numeral of the same value, without exponent, or None.
    """
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    if not value.is_finite():
        return None
    value = value.normalize()
    return format(value, "f") if value == value.to_integral() else str(value)


@lru_cache(maxsize=1 << 16)
def _number_key(lexical: str, floating: bool) -> str | None:
    text = lexical.strip()
    if floating:
        try:
            f = float(text)
        except ValueError:
            return None
        if f != f:
            return "NaN"
        if f in (float("inf"), float("-inf")):
            return "INF" if f > 0 else "-INF"
        text = repr(f)  # the shortest decimal that reads back as this double
    return canonical_number(text)


def term_key(t: Any) -> Any:
    """A hashable key under which two RDF terms count as the same value (see the module docstring).

    Args:
        t: an rdflib term (IRI, blank node or literal) or any other hashable value.
    Returns:
        ``t`` itself for anything but a literal; for a literal
        ``("lit", value space, language, value)``: value space ``"numeric"`` for the numeric types,
        else the datatype IRI (``rdf:langString`` for a language-tagged string); the value a
        canonical numeral, a Python ``bool``/``date``/``datetime``/``time``, or the lexical form.
    """
    if not isinstance(t, Literal):
        return t
    lang = (t.language or "").lower()
    if lang:
        return ("lit", _LANG_STRING, lang, str(t))
    dt = str(t.datatype) if t.datatype else _STRING
    if dt in NUMERIC_TYPES:
        n = _number_key(str(t), dt in _FLOATING)
        if n is not None:
            return ("lit", "numeric", "", n)
        return ("lit", dt, "", str(t))
    if dt == _BOOLEAN:
        text = str(t).strip()
        if text in ("true", "1", "false", "0"):
            return ("lit", dt, "", text in ("true", "1"))
        return ("lit", dt, "", str(t))
    if dt != _STRING:
        v = t.value
        if isinstance(v, (_dt.date, _dt.time, _dt.timedelta)) or type(v).__name__ == "Duration":
            try:
                hash(v)
                return ("lit", dt, "", v)
            except TypeError:
                pass
    return ("lit", dt, "", str(t))


def loose_key(lit: Literal) -> tuple:
    """Datatype- and language-blind key of a literal: ``("num", canonical numeral)`` or
    ``("str", whitespace-collapsed, case-folded text)``."""
    return _loose_key(str(lit))


@lru_cache(maxsize=1 << 16)
def _loose_key(text: str) -> tuple:
    text = text.strip()
    n = canonical_number(text) if text[:1].isdigit() or text[:1] in ("+", "-", ".") else None
    if n is not None:
        return ("num", n)
    return ("str", " ".join(text.split()).casefold())


def loose_text_key(text: str) -> str:
    """The loose key of a lexical form as one string (numbers canonical, other text as it is)."""
    text = text.strip()
    n = canonical_number(text) if text[:1].isdigit() or text[:1] in ("+", "-", ".") else None
    return n if n is not None else text
