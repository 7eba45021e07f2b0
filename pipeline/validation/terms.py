"""Term-level checks: IRIs (RFC 3987), language tags (BCP 47), XSD lexical forms.

Each check returns a list of ``(severity, code, message)`` triples, empty when
the term is fine, so that the N-Triples checker (:mod:`.syntax`) can attach a
line and column. Severities follow Apache Jena RIOT's split: a violation of
the RFC/BCP/XSD grammar is an ``error``; a legal but discouraged form
(upper-case scheme, lower-case percent-encoding, unknown XSD datatype) is a
``warning``.

Sources: RFC 3987 section 2.2 (IRI ABNF), RFC 3986 section 3 (components),
RFC 5646 section 2.1 (language-tag ABNF), XML Schema 1.1 Part 2 section 3
(lexical spaces of the built-in datatypes).
"""
from __future__ import annotations

import datetime as _dt
import re

from rdflib.namespace import RDF, XSD

__all__ = ["check_iri", "check_langtag", "check_literal", "XSD_CHECKED"]

Issue = tuple[str, str, str]

# -- IRIs (RFC 3987 section 2.2) ----------------------------------------------
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_UCS_RANGES = ((0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF)) + tuple(
    (0x10000 * k, 0x10000 * k + 0xFFFD) for k in range(1, 15))
_PRIVATE_RANGES = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
_ASCII_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=%")
_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _char_ok(ch: str, in_query: bool) -> bool:
    if ch in _ASCII_OK:
        return True
    cp = ord(ch)
    if any(lo <= cp <= hi for lo, hi in _UCS_RANGES):
        return True
    return in_query and any(lo <= cp <= hi for lo, hi in _PRIVATE_RANGES)


def _describe(ch: str) -> str:
    return {" ": "space", "\t": "tab", "\n": "newline"}.get(ch, f"{ch!r} (U+{ord(ch):04X})")


# An IRI made of unreserved/reserved ASCII only, with a lower-case scheme, upper-case %XX, an
# authority without ':' (so no port to check) and at most one '#': legal and with nothing
# discouraged, so the character-by-character walk below is skipped (most IRIs of a KG).
_SAFE = r"A-Za-z0-9\-._~!$&'()*+,;=@"
_PCHARS = rf"(?:[{_SAFE}:/?\[\]]|%[0-9A-F]{{2}})*"
_FAST_IRI = re.compile(rf"[a-z][a-z0-9+.\-]*:(?://(?:[{_SAFE}]|%[0-9A-F]{{2}})*(?=[/?#]|$)|(?!//)){_PCHARS}(?:#{_PCHARS})?")


def check_iri(iri: str, *, relative_ok: bool = False) -> list[Issue]:
    """Check one IRI against RFC 3987.

    Args:
        iri: the IRI text, escapes already decoded.
        relative_ok: accept a relative reference (for ``xsd:anyURI`` values).
    Returns:
        ``(severity, code, message)`` triples; empty when the IRI is legal.
        Errors: relative IRI, illegal character, bad percent-encoding,
        non-numeric port, ``#`` inside the fragment. Warnings: upper-case
        letters in the scheme, lower-case hex digits in a percent-encoding.
    """
    if _FAST_IRI.fullmatch(iri):
        return []
    issues: list[Issue] = []
    m = _SCHEME.match(iri)
    if not m:
        if not relative_ok:
            issues.append(("error", "relative-iri", f"relative IRI (no scheme): <{iri}>"))
    elif m.group(1) != m.group(1).lower():
        issues.append(("warning", "iri-scheme-case", f"upper case in IRI scheme {m.group(1)!r}"))
    q = iri.find("?")
    for i, ch in enumerate(iri):
        if not _char_ok(ch, q != -1 and i > q):
            issues.append(("error", "bad-iri-char", f"bad character in IRI ({_describe(ch)}) at offset {i}: <{iri}>"))
            break
    if _PCT.search(iri):
        issues.append(("error", "bad-percent-encoding", f"'%' not followed by two hex digits in IRI: <{iri}>"))
    elif re.search(r"%[0-9A-F]?[a-f]", iri):
        issues.append(("warning", "iri-pct-case", f"lower-case hex digits in a percent-encoding: <{iri}>"))
    if iri.count("#") > 1:
        issues.append(("error", "bad-iri-fragment", f"'#' inside the fragment of IRI: <{iri}>"))
    if m and iri[m.end():].startswith("//"):
        authority = re.split(r"[/?#]", iri[m.end() + 2:], maxsplit=1)[0]
        hostport = authority.rsplit("@", 1)[-1]
        if not hostport.startswith("["):
            port = hostport.rsplit(":", 1)[1] if ":" in hostport else ""
            if port and not port.isdigit():
                issues.append(("error", "bad-iri-port", f"non-numeric port {port!r} in IRI: <{iri}>"))
    return issues


# -- language tags (RFC 5646 section 2.1) --------------------------------------
_LANGTAG = re.compile(r"""^(
    (?P<lang>[A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4}|[A-Za-z]{5,8})
    (-[A-Za-z]{4})?                                   # script
    (-([A-Za-z]{2}|[0-9]{3}))?                        # region
    (-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*        # variants
    (-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*         # extensions
    (-[Xx](-[A-Za-z0-9]{1,8})+)?                      # private use
  |[Xx](-[A-Za-z0-9]{1,8})+                           # private use only
  |[Ii]-[A-Za-z]{2,8}                                # irregular grandfathered (i-klingon ...)
)$""", re.VERBOSE)


def check_langtag(tag: str) -> list[Issue]:
    """Check a language tag (without the ``@``) against the BCP 47 ABNF.

    Returns:
        ``[("error", "bad-language-tag", message)]`` when the tag is not
        well-formed per RFC 5646 section 2.1, or when its primary language subtag
        has four letters (RFC 5646 section 2.2.1 reserves those, so no language has
        one; in practice a missing value written as a tag: ``@None``, ``@null``) or
        five to eight (kept for registration, and the IANA Language Subtag Registry
        holds none: in practice a language's name, ``@english``, ``@French``; the
        W3C R2RML test RMLTC0015b expects ``english`` refused). Else ``[]``.
        Registry membership of 2-3 letter codes (is ``xx`` assigned?) is not checked.
    """
    m = _LANGTAG.match(tag)
    if m and all(len(p) <= 8 for p in tag.split("-")):
        if m.group("lang") and len(m.group("lang")) == 4:
            return [("error", "bad-language-tag", f"language tag @{tag}: a 4-letter primary language subtag is "
                     "reserved (RFC 5646 section 2.2.1); a missing value written as a tag?")]
        if m.group("lang") and len(m.group("lang")) >= 5:
            return [("error", "bad-language-tag", f"language tag @{tag}: a primary language subtag of 5-8 letters "
                     "is well-formed but names no language: RFC 5646 section 2.2.1 keeps them for registration and "
                     "the IANA registry has none (a language's name written as a tag? its ISO 639 code is the tag)")]
        return []
    return [("error", "bad-language-tag", f"language tag not valid per BCP 47: @{tag}")]


# -- XSD lexical forms (XML Schema 1.1 Part 2 section 3) -----------------------
_TZ = r"(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_INT = r"[+-]?[0-9]+"
_DEC = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
_YEAR = r"-?([1-9][0-9]{4,}|[0-9]{4})"
_TIME = r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?"
_PATTERNS: dict[str, str] = {
    "integer": _INT, "decimal": _DEC,
    "double": rf"({_DEC}([eE][+-]?[0-9]+)?|[+-]?INF|NaN)",
    "boolean": r"(true|false|1|0)",
    "date": rf"{_YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]){_TZ}",
    "dateTime": rf"{_YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T({_TIME}){_TZ}",
    "time": rf"({_TIME}){_TZ}",
    "gYear": rf"{_YEAR}{_TZ}",
    "gYearMonth": rf"{_YEAR}-(0[1-9]|1[0-2]){_TZ}",
    "gMonth": rf"--(0[1-9]|1[0-2]){_TZ}",
    "gMonthDay": rf"--(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]){_TZ}",
    "gDay": rf"---(0[1-9]|[12][0-9]|3[01]){_TZ}",
    "duration": r"-?P(?=[0-9]|T[0-9])([0-9]+Y)?([0-9]+M)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?",
    "dayTimeDuration": r"-?P(?=[0-9]|T[0-9])([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?",
    "yearMonthDuration": r"-?P(?=[0-9])([0-9]+Y)?([0-9]+M)?",
    "hexBinary": r"([0-9a-fA-F]{2})*",
    "base64Binary": r"(([A-Za-z0-9+/] ?){4})*(([A-Za-z0-9+/] ?){2}==|([A-Za-z0-9+/] ?){3}=)?",
    "language": r"[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*",
    "NCName": r"[A-Za-z_][\w.\-]*", "Name": r"[A-Za-z_:][\w.\-:]*", "NMTOKEN": r"[\w.\-:]+",
}
_PATTERNS["float"] = _PATTERNS["double"]
_PATTERNS["dateTimeStamp"] = _PATTERNS["dateTime"][:-1]  # the same with the timezone required
_INT_RANGES: dict[str, tuple[int | None, int | None]] = {
    "nonNegativeInteger": (0, None), "positiveInteger": (1, None), "nonPositiveInteger": (None, 0),
    "negativeInteger": (None, -1), "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1),
    "short": (-2**15, 2**15 - 1), "byte": (-128, 127), "unsignedLong": (0, 2**64 - 1),
    "unsignedInt": (0, 2**32 - 1), "unsignedShort": (0, 2**16 - 1), "unsignedByte": (0, 255),
}
_COMPILED = {k: re.compile(rf"^({v})$") for k, v in _PATTERNS.items()}
_FREE = {"string", "normalizedString", "token", "anyURI"}
#: Local names of the XSD datatypes whose lexical forms are checked.
XSD_CHECKED = frozenset(_COMPILED) | frozenset(_INT_RANGES) | frozenset(_FREE)


def _calendar_ok(local: str, lex: str) -> bool:
    m = re.match(r"^-?(\d{4,})-(\d{2})-(\d{2})", lex)
    if local in {"date", "dateTime", "dateTimeStamp"} and m:
        year = int(m.group(1)) % 400 or 400  # proleptic Gregorian leap rule repeats every 400 years
        try:
            _dt.date(year, int(m.group(2)), int(m.group(3)))
        except ValueError:
            return False
    if local == "gMonthDay":
        mm, dd = int(lex[2:4]), int(lex[5:7])
        return dd <= (29 if mm == 2 else 30 if mm in (4, 6, 9, 11) else 31)
    return True


def check_literal(lexical: str, datatype: str | None, lang: str | None = None) -> list[Issue]:
    """Check a literal's lexical form against its datatype and its language tag.

    Args:
        lexical: the lexical form, escapes decoded.
        datatype: datatype IRI (``None`` for a plain or language-tagged literal).
        lang: language tag without ``@`` (``None`` when absent).
    Returns:
        ``(severity, code, message)`` triples. ``ill-typed-literal`` (error) when
        an XSD datatype's lexical space or value range is violated;
        ``unknown-xsd-datatype`` (warning) for a name in the XSD namespace that is
        no built-in datatype; ``bad-language-tag`` (error) per :func:`check_langtag`;
        ``langstring-without-tag`` (error) for ``rdf:langString`` written as a datatype.
        Datatypes outside XSD are not checked.
    """
    issues: list[Issue] = []
    if lang is not None:
        issues += check_langtag(lang)
    if not datatype:
        return issues
    if datatype == str(RDF.langString):
        return issues + [("error", "langstring-without-tag", "rdf:langString needs a language tag, not a datatype")]
    if not datatype.startswith(str(XSD)):
        return issues
    local = datatype[len(str(XSD)):]
    short = f"xsd:{local}"
    if local not in XSD_CHECKED:
        return issues + [("warning", "unknown-xsd-datatype", f"unknown datatype {short}")]
    bad = ("error", "ill-typed-literal", f"lexical form {lexical!r} not valid for datatype {short}")
    if local in _INT_RANGES:
        if not _COMPILED["integer"].match(lexical):
            return issues + [bad]
        lo, hi = _INT_RANGES[local]
        v = int(lexical)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return issues + [("error", "ill-typed-literal",
                              f"value {lexical!r} out of range for datatype {short}")]
        return issues
    if local == "anyURI":
        if any(c in lexical for c in ' <>"{}|\\^`') or _PCT.search(lexical):
            return issues + [bad]
        return issues
    if local in _FREE:
        return issues
    if not _COMPILED[local].match(lexical) or not _calendar_ok(local, lexical):
        return issues + [bad]
    return issues
