"""The XSD facets of an OWL 2 datatype restriction, checked against a literal's lexical form.

What each facet demands of a value (OWL 2 Structural Specification, section 4, the facets of the
OWL 2 datatype map; XSD 1.1 Part 2, section 4.3): ``xsd:minInclusive``, ``xsd:maxInclusive``,
``xsd:minExclusive``, ``xsd:maxExclusive`` bound it (ordered types: the reals, floats, doubles,
date-times); ``xsd:length``, ``xsd:minLength``, ``xsd:maxLength`` bound the number of characters
of a string (4.3.1-4.3.3); ``xsd:pattern`` is a regular expression that must match the *whole*
lexical form (4.3.4: patterns are implicitly anchored, unlike SHACL's ``sh:pattern``, which is
SPARQL's ``REGEX`` and matches anywhere). ``xsd:totalDigits``, ``xsd:fractionDigits`` and
``rdf:langRange`` are not checked. The restriction itself is read by
:func:`pipeline.ontology.datatype_restriction`.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, XSD

from pipeline.ontology import Restriction

__all__ = ["facet_violation", "compiled_pattern", "anchored_pattern"]

_BOUNDS = {XSD.minInclusive: (">=", "minInclusive"), XSD.maxInclusive: ("<=", "maxInclusive"),
           XSD.minExclusive: (">", "minExclusive"), XSD.maxExclusive: ("<", "maxExclusive")}
_LENGTHS = (XSD.length, XSD.minLength, XSD.maxLength)
_REALS = {str(XSD) + t for t in ("decimal", "integer", "nonNegativeInteger", "nonPositiveInteger", "positiveInteger",
                                 "negativeInteger", "long", "int", "short", "byte", "unsignedLong", "unsignedInt",
                                 "unsignedShort", "unsignedByte", "double", "float")} | {str(OWL) + "real",
                                                                                         str(OWL) + "rational"}


def facet_violation(restriction: Restriction, lexical: str) -> str | None:
    """Why a value of lexical form ``lexical``, read as the restriction's base datatype, falls
    outside its facets (``is not >= 1 (minInclusive)``), or ``None`` when it satisfies every facet
    checked (module docstring). A value that cannot be read as its base where a bound applies is
    left to the syntax check (``None``)."""
    for facet, value in restriction.facets:
        if facet == XSD.pattern:
            rx = compiled_pattern(str(value))
            if rx is not None and rx.fullmatch(lexical) is None:
                return f"does not match the pattern {value.n3()}"
        elif facet in _LENGTHS:
            try:
                n = int(value)
            except (TypeError, ValueError):
                continue
            got = len(lexical)
            if (facet == XSD.length and got != n) or (facet == XSD.minLength and got < n) \
                    or (facet == XSD.maxLength and got > n):
                return f"has {got} characters, {str(facet).rsplit('#', 1)[-1]} {n}"
        elif facet in _BOUNDS:
            op, word = _BOUNDS[facet]
            a, b = _ordered(lexical, restriction.base), _ordered(str(value), restriction.base)
            if a is None or b is None:
                continue
            try:
                ok = {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]
            except TypeError:  # values of incomparable kinds (a date with and without a zone)
                continue
            if not ok:
                return f"is not {op} {value} ({word})"
    return None


def _ordered(lexical: str, base: URIRef) -> Any:
    """A value comparable with ``<`` for the bound facets: a Decimal for the reals, else rdflib's
    Python value for the base datatype; ``None`` when the form cannot be read so."""
    text = lexical.strip()
    if str(base) in _REALS:
        try:
            out = Decimal(text)
        except InvalidOperation:
            return None
        return out if out.is_finite() else None
    try:
        v = Literal(text, datatype=base).toPython()
    except Exception:  # noqa: BLE001 - an ill-typed literal: the syntax check reports it
        return None
    return None if isinstance(v, Literal) else v


def compiled_pattern(pattern: str) -> re.Pattern | None:
    """An XSD ``pattern`` facet compiled with Python's :mod:`re` (the two agree on the common syntax:
    character classes, quantifiers, groups, ``\\d``, ``\\s``); ``None`` for one :mod:`re` cannot read
    (XSD's ``\\i``, ``\\c``, character-class subtraction ``[a-z-[aeiou]]``), which is then not checked."""
    try:
        return re.compile(pattern)
    except re.error:
        return None


def anchored_pattern(pattern: str) -> str | None:
    """The SHACL ``sh:pattern`` (a SPARQL ``REGEX``, which matches anywhere) equal to an XSD pattern
    facet (which matches the whole value): ``^(?:pattern)$``; ``None`` when :func:`compiled_pattern`
    cannot read it."""
    return f"^(?:{pattern})$" if compiled_pattern(pattern) is not None else None
