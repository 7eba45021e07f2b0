"""Data profiling for the offline mapper: datatypes, keys, inclusion dependencies, languages.

* Datatype by lexical profiling: the most specific XSD type whose lexical
  space (XML Schema 1.1 Part 2, section 3.3) holds every non-empty value, in
  the order boolean, integer, decimal, double, date, dateTime, gYear, anyURI,
  else string.
* Keys: a set of references is a key when no two *distinct* records agree on
  it (exact duplicate records describe the same entity, as in BLINKG 1D/1G).
* Inclusion dependency ``A <= B``: every non-empty value of A is a value of B
  (the unary IND test of De Marchi et al., "Unary and n-ary inclusion
  dependency discovery in relational databases", JIIS 2009).
* Language: lingua restricted to candidate languages; a file-name hint
  (``city_es.csv``) is separate evidence that outweighs detection on short values.
"""
from __future__ import annotations

import itertools
import logging
import re
from functools import lru_cache
from typing import Sequence

__all__ = ["profile_datatype", "is_numeric", "distinct_records", "is_key", "minimal_keys",
           "included", "language_hint", "detect_language", "CANDIDATE_LANGUAGES"]

log = logging.getLogger(__name__)

#: ISO 639-1 codes the detector chooses among (BLINKG data: English and Spanish, plus neighbours).
CANDIDATE_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "ca")

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("xsd:boolean", re.compile(r"^(true|false)$", re.I)),
    ("xsd:integer", re.compile(r"^[+-]?\d+$")),
    ("xsd:decimal", re.compile(r"^[+-]?(\d+\.\d*|\.\d+)$")),
    ("xsd:double", re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^(INF|-INF|NaN)$")),
    ("xsd:date", re.compile(r"^\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$")),
    ("xsd:dateTime", re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")),
    ("xsd:gYear", re.compile(r"^\d{4}$")),
    ("xsd:anyURI", re.compile(r"^(https?|ftp|mailto|urn):\S+$", re.I)),
]


def profile_datatype(values: Sequence[str]) -> tuple[str, str]:
    """Most specific XSD datatype of the non-empty ``values``.

    Returns:
        ``(datatype, evidence)``, e.g. ``("xsd:double", "3/3 values match xsd:double")``.
        ``xsd:integer`` wins over ``xsd:gYear`` (four-digit integers are usually counts
        or codes); ``xsd:string`` when nothing else fits or there are no values.
    """
    vals = [v.strip() for v in values if v and v.strip()]
    if not vals:
        return "xsd:string", "no values; default xsd:string"
    for dt, pat in _PATTERNS:
        if all(pat.match(v) for v in vals):
            return dt, f"{len(vals)}/{len(vals)} values match {dt}"
    return "xsd:string", f"{len(vals)} values fit no narrower XSD type"


def is_numeric(values: Sequence[str]) -> bool:
    """True when every non-empty value is an integer, decimal or double (and there is one)."""
    vals = [v for v in values if v]
    return bool(vals) and all(_PATTERNS[3][1].match(v.strip()) for v in vals)


def distinct_records(records: Sequence[dict[str, list[str]]]) -> list[dict[str, tuple[str, ...]]]:
    """Records with exact duplicates removed (values as tuples), in first-seen order."""
    seen, out = set(), []
    for r in records:
        frozen = tuple(sorted((k, tuple(v)) for k, v in r.items()))
        if frozen not in seen:
            seen.add(frozen)
            out.append({k: tuple(v) for k, v in r.items()})
    return out


def is_key(records: Sequence[dict[str, tuple[str, ...]]], refs: Sequence[str]) -> bool:
    """True when every record has a value for each of ``refs`` and no two records share them."""
    seen = set()
    for r in records:
        key = tuple(r.get(ref, ()) for ref in refs)
        if any(not v or not any(x for x in v) for v in key) or key in seen:
            return False
        seen.add(key)
    return bool(records)


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
    c = {v.strip() for v in child if v and v.strip()}
    if not c:
        return 0.0
    p = {v.strip() for v in parent if v}
    return len(c & p) / len(c)


def language_hint(file_name: str) -> str | None:
    """Language code from a file-name suffix (``city_es.csv`` -> ``es``), if one of the candidates."""
    m = re.search(r"[_\-.]([a-z]{2})(?:\.[a-z]+)?$", file_name.lower())
    return m.group(1) if m and m.group(1) in CANDIDATE_LANGUAGES else None


@lru_cache(maxsize=1)
def _detector():
    from lingua import IsoCode639_1, LanguageDetectorBuilder
    codes = [getattr(IsoCode639_1, c.upper()) for c in CANDIDATE_LANGUAGES]
    return LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()


def detect_language(values: Sequence[str]) -> tuple[str | None, float]:
    """Language of text values with lingua, restricted to :data:`CANDIDATE_LANGUAGES`.

    Args:
        values: the column's values (numbers and empties are skipped; at most 50 used).
    Returns:
        ``(code, confidence)``: ISO 639-1 code and lingua's confidence in [0, 1]
        for the joined text; ``(None, 0.0)`` when there is no text or lingua is missing.
    """
    text = " . ".join(v for v in values[:50] if v and not re.fullmatch(r"[\d\s.,:+\-/]*", v))
    if not text:
        return None, 0.0
    try:
        det = _detector()
    except ImportError:
        return None, 0.0
    conf = det.compute_language_confidence_values(text)
    if not conf:
        return None, 0.0
    best = conf[0]
    return best.language.iso_code_639_1.name.lower(), float(best.value)
