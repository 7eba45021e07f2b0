"""FnO functions the compiler may call from RML-FNML, keyed by IRI.

GREL built-ins (which Morph-KGC and RMLMapper both implement) are used where
they fit; our own functions live in :data:`UDF_FILE` and are handed to
Morph-KGC through its ``udfs`` option.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rdflib import Namespace, URIRef

__all__ = ["FN", "GREL", "FnoFunction", "FUNCTIONS", "TABLE_FUNCTIONS", "UDF_FILE", "FILTERS", "function_for_name",
           "written_name"]

FN = Namespace("https://w3id.org/kgc-pipeline/function#")
GREL = Namespace("http://users.ugent.be/~bjdmeest/function/grel.ttl#")
UDF_FILE = Path(__file__).with_name("udfs.py")


@dataclass(frozen=True)
class FnoFunction:
    """An FnO function: its IRI and its parameter IRIs in call order."""

    iri: URIRef
    params: tuple[URIRef, ...]
    description: str


FUNCTIONS: dict[str, FnoFunction] = {
    "valueMap": FnoFunction(FN.valueMap, (FN.value, FN.map), "code -> IRI lookup in a JSON map"),
    "percentEncode": FnoFunction(FN.percentEncode, (FN.value,), "percent-encode for IRI use"),
    "normalizeDate": FnoFunction(FN.normalizeDate, (FN.value, FN.order),
                                 "date -> xsd:date lexical form; order DMY/MDY/YMD decided per column"),
    "normalizeBoolean": FnoFunction(FN.normalizeBoolean, (FN.value,), "yes/no, 1/0 -> xsd:boolean lexical form"),
    "normalizeDecimalComma": FnoFunction(FN.normalizeDecimalComma, (FN.value, FN.mark, FN.unit),
                                         # the description is the LLM prompt's (a new text re-asks every cached call);
                                         # fn:unit, optional: a currency sign, ISO 4217 code or % (compiler.md)
                                         "8,99 / 1.234,56 / 1,234.50 -> xsd:decimal lexical form; decimal mark "
                                         "decided per column"),
    "normalizeTime": FnoFunction(FN.normalizeTime, (FN.value,), "hh:mm, h:mm -> xsd:time lexical form hh:mm:ss"),
    "skipMissing": FnoFunction(FN.skipMissing, (FN.value,), "NA, N/A, null, NaN, - -> no value; others as they are"),
    "normalizeDateTime": FnoFunction(FN.normalizeDateTime, (FN.value, FN.order),
                                     "2024-03-01 10:00+0100, 31/12/2024 14:05 -> xsd:dateTime lexical form "
                                     "2024-03-01T10:00:00+01:00; date order as normalizeDate's"),
    "concat": FnoFunction(FN.concat, (FN.first, FN.second), "string concatenation"),
    "mailto": FnoFunction(FN.mailto, (FN.value,), "e-mail address -> mailto: IRI (RFC 6068), @ kept; a cell of several "
                          "addresses -> one IRI each; no value for what is no address"),
    "tel": FnoFunction(FN.tel, (FN.value,), "global telephone number -> tel: IRI (RFC 3966), visual separators "
                       "removed, an extension as ;ext=; no value for a local number (no +country code) or what is no number"),
    "replace": FnoFunction(GREL.string_replace, (GREL.valueParameter, GREL.p_string_find, GREL.p_string_replace),
                           "GREL replace"),
    "toUpperCase": FnoFunction(GREL.toUpperCase, (GREL.valueParameter,), "GREL upper case"),
    "toLowerCase": FnoFunction(GREL.toLowerCase, (GREL.valueParameter,), "GREL lower case"),
    "toTitlecase": FnoFunction(GREL.string_toTitlecase, (GREL.valueParameter,), "GREL title case"),
    "trim": FnoFunction(GREL.string_trim, (GREL.valueParameter,), "GREL trim: leading and trailing white space removed"),
}

_IDLAB = "https://w3id.org/imec/idlab/function#"
_IDLAB_OLD = "http://example.com/idlab/function/"
#: Functions whose purpose is to give no value for some inputs (a value that says "missing", a
#: condition that does not hold): their no-value is the mapping's intent, not a value lost, so the
#: materialize stage does not count it. Every other function that gives no value for a record
#: whose referenced values are there drops that value, and is reported.
FILTERS = frozenset({str(FN.skipMissing), _IDLAB + "decide", _IDLAB + "trueCondition", _IDLAB_OLD + "trueCondition",
                     _IDLAB_OLD + "decide", "http://users.ugent.be/~bjdmeest/function/grel.ttl#controls_if"})

#: The one-argument functions a mapping table names, as the offline mapper writes them, with their
#: :data:`FUNCTIONS` key (the LLM mapper's prompt lists them; value maps are described there apart).
TABLE_FUNCTIONS = (("toDate()", "normalizeDate"), ("toBoolean()", "normalizeBoolean"),
                   ("toDecimal()", "normalizeDecimalComma"), ("toTime()", "normalizeTime"),
                   ("toDateTime()", "normalizeDateTime"), ("skipMissing()", "skipMissing"),
                   ("capitalize", "toTitlecase"), ("toUpperCase", "toUpperCase"), ("toLowerCase", "toLowerCase"),
                   ("trim", "trim"), ("mailto()", "mailto"), ("tel()", "tel"))

#: Function names written in mapping tables -> :data:`FUNCTIONS` key.
#: ``capitalize`` ("Input string in capital format", BLINKG scenario 2) is read as
#: capitalised words, GREL ``toTitlecase``: the GTFS ontology's ``xsd:pattern`` on
#: ``gtfs:longName`` (``^([A-Z][a-z]*)(\s[A-Z][a-z]*)*$``) asks for exactly that, and an
#: upper-cased name makes the KG inconsistent with it (HermiT).
_ALIASES = {
    "capitalize": "toTitlecase", "capitalise": "toTitlecase", "uppercase": "toUpperCase", "upper": "toUpperCase",
    "touppercase": "toUpperCase", "lowercase": "toLowerCase", "lower": "toLowerCase", "tolowercase": "toLowerCase",
    "titlecase": "toTitlecase", "totitlecase": "toTitlecase", "todate": "normalizeDate", "normalizedate": "normalizeDate",
    "formatdate": "normalizeDate", "date": "normalizeDate", "toboolean": "normalizeBoolean",
    "normalizeboolean": "normalizeBoolean", "boolean": "normalizeBoolean",
    "todecimal": "normalizeDecimalComma", "normalizedecimalcomma": "normalizeDecimalComma",
    "decimalcomma": "normalizeDecimalComma", "totime": "normalizeTime", "normalizetime": "normalizeTime", "time": "normalizeTime",
    "trim": "trim", "strip": "trim", "stringtrim": "trim",
    "skipmissing": "skipMissing", "missing": "skipMissing",
    "todatetime": "normalizeDateTime", "normalizedatetime": "normalizeDateTime", "datetime": "normalizeDateTime",
    "mailto": "mailto", "tomailto": "mailto", "tel": "tel", "totel": "tel",
}


def function_for_name(name: str | None) -> str | None:
    """Map a table's function name (``capitalize``, ``toDate()``) to a :data:`FUNCTIONS` key, else ``None``."""
    if not name:
        return None
    key = re.sub(r"[^a-z]", "", name.lower())
    return _ALIASES.get(key)


#: Function IRI -> the name a mapping table writes for it (``toDecimal()``), for messages.
_WRITTEN = {str(FUNCTIONS[key].iri): name for name, key in TABLE_FUNCTIONS}


def written_name(iri: str) -> str:
    """A function as a user writes it: the mapping table's name of a function the table names
    (``toDecimal()`` for ``fn:normalizeDecimalComma``), else the IRI's local name with ``()``."""
    name = _WRITTEN.get(iri)
    return name if name is not None else re.split(r"[#/]", iri.rstrip("#/"))[-1] + "()"
