"""Parsers for the structured cells of a mapping table.

Gold tables are hand-written: these functions accept every variant found in
the BLINKG tables and return typed values, never raising on odd text (they
return ``None`` or an empty result and let the audit report it).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.fno import function_for_name

__all__ = [
    "clean_cell",
    "IRI_FIELDS",
    "split_source_hint",
    "split_arguments",
    "parse_concat",
    "quoted_constant",
    "JoinPair",
    "parse_join_condition",
    "parse_value_map",
    "split_function_cell",
    "split_class_alternatives",
    "EMPTY_MARKERS",
]

#: Cell texts that mean "no value".
EMPTY_MARKERS = frozenset({"", "-", "\u2013", "\u2014", "n/a", "none", "null"})

_SOURCE_PREFIX = re.compile(r"^(?P<file>[\w.\-]+\.(?:csv|json|xml|tsv))\s+(?P<ref>\S.*)$", re.I)
_SOURCE_SUFFIX = re.compile(r"^(?P<ref>[^()]+?)\s+\((?P<file>[\w.\-]+)\)$")
_CONCAT = re.compile(r"^concat\s*\((?P<args>.*)\)$", re.I | re.S)
#: Datatype-cell texts that mean "the object is an IRI", not a literal.
IRI_MARKERS = frozenset({"uri", "iri", "object property", "anyuri-iri", "rr:iri", "rml:iri"})

_IDENT_CALL = re.compile(r"^[A-Za-z_][\w\-]*(\(\))?$")


#: Fields whose cell is one IRI (or IRI template): written in angle brackets, as Turtle and SPARQL
#: write an IRI, the cell is the IRI between them.
IRI_FIELDS = frozenset({"ontology_property", "entity_class", "related_entity_class", "subject_template", "datatype"})

_IRIREF = re.compile(r"^<([^<>\s]+)>$")


def clean_cell(raw: str | None, field: str | None = None) -> str | None:
    """Normalise one cell: strip whitespace and backtick quoting; empty markers -> ``None``.

    Args:
        raw: the cell text as split from the Markdown row (may be ``None``).
        field: the cell's column (:data:`pipeline.table.model.FIELDS` name); in a column of
            :data:`IRI_FIELDS` a cell written as Turtle's ``IRIREF`` (``<http://ex.org/p/{id}>``,
            RDF 1.1 Turtle section 6.3) is the text between the brackets: ``<`` and ``>`` cannot
            occur in an IRI (RFC 3987), so they only delimit it.
    Returns:
        The cleaned text, or ``None`` for empty/``-`` cells.
    """
    if raw is None:
        return None
    text = raw.replace("`", "").strip()
    text = re.sub(r"[ \t]+", " ", text)
    if text.lower() in EMPTY_MARKERS:
        return None
    if field in IRI_FIELDS and (m := _IRIREF.match(text)):
        return m.group(1)
    return text


def split_source_hint(reference: str | None) -> tuple[str | None, str | None]:
    """Split a source-file hint off a data reference.

    Accepts ``student.csv Name`` and ``agency_id (routes.csv)`` /
    ``date (calendar_dates)`` (a file stem without extension).

    Returns:
        ``(source_file, reference)``; ``source_file`` is ``None`` when there is no hint.
    """
    if not reference:
        return None, reference
    m = _SOURCE_PREFIX.match(reference)
    if m:
        return m.group("file"), m.group("ref").strip()
    m = _SOURCE_SUFFIX.match(reference)
    if m and not reference.lower().startswith("concat"):
        return m.group("file"), m.group("ref").strip()
    return None, reference


def split_arguments(text: str) -> list[str]:
    """Split a function's argument text on top-level commas (not inside quotes or brackets).

    Arguments are stripped; quoted ones keep their quotes. ``"a, 'x,y', f(b,c)"`` gives
    ``["a", "'x,y'", "f(b,c)"]``.

    Raises:
        ValueError: a quoted string is never closed.
    """
    args, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if quote:
        raise ValueError(f"unterminated string in {text!r}")
    if cur.strip():
        args.append(cur.strip())
    return args


def parse_concat(reference: str | None) -> list[str] | None:
    """Return the argument references of ``concat(a,b,...)``, or ``None`` if not a concat.

    Arguments are split with :func:`split_arguments`; quoted arguments (``' '``) keep
    their quotes so callers can tell constants apart. An unterminated quote gives ``None``.
    """
    if not reference:
        return None
    m = _CONCAT.match(reference.strip())
    if not m:
        return None
    try:
        return split_arguments(m.group("args"))
    except ValueError:
        return None


def quoted_constant(reference: str | None) -> str | None:
    """The text of a Data Reference cell that is one quoted string (``'Government body'``, ``"SE"``), else ``None``.

    Such a cell is a constant, the same value for every record, as a quoted argument of ``concat`` is
    (``concat(lname, ', ', fname)``); ``concat('a', 'b')`` and ``'a', 'b'`` are not one quoted string.
    """
    text = (reference or "").strip()
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    try:
        return text[1:-1] if split_arguments(text) == [text] and text[0] not in text[1:-1] else None
    except ValueError:
        return None


@dataclass(frozen=True)
class JoinPair:
    """One equality of a join condition: ``child_source.child_ref == parent_source.parent_ref``.

    ``child_source``/``parent_source`` are the file stems written before the
    column (``None`` when the condition names only columns, e.g. ``id==id``).
    """

    child_source: str | None
    child_ref: str
    parent_source: str | None
    parent_ref: str


_EQ = re.compile(r"\s*(?:==|=)\s*")


def _side(text: str, sources: tuple[str, ...] = ()) -> tuple[str | None, str]:
    text = text.strip().strip("()")
    # a file name may hold dots itself (books.v2.csv: stem books.v2): the longest known name
    # followed by a dot is the source, the rest the column
    for name in sources:
        if len(text) > len(name) + 1 and text[len(name)] == "." and text[:len(name)].lower() == name.lower():
            return name, text[len(name) + 1:].strip()
    if "." in text and not text.startswith("/") and "/" not in text:
        src, ref = text.split(".", 1)
        return src.strip() or None, ref.strip()
    return None, text


def parse_join_condition(cell: str | None, sources: Iterable[str] = ()) -> list[list[JoinPair]]:
    """Parse a join-condition cell into alternatives of conjunctions.

    ``a.x==b.y and a.z==b.w`` and ``x=x, y=y`` are conjunctions (one
    alternative with two pairs); ``... or ...`` separates alternatives (the
    gold GTFS tables use it for "join either calendar or calendar_dates").

    Args:
        cell: the Join Condition cell.
        sources: the source names a side may start with (file stems, ``books.v2`` for
            ``books.v2.csv``). A side starting with one of them plus a dot is split after the
            longest such name, so a name holding dots is read whole; other sides are split at
            their first dot (an XPath side, holding ``/``, is not split).

    Returns:
        A list of alternatives, each a list of :class:`JoinPair`; ``[]`` when
        the cell is empty or holds no equality.
    """
    known = tuple(sorted({s for s in sources if s}, key=len, reverse=True))
    if not cell:
        return []
    alternatives = []
    for alt in re.split(r"\s+or\s+", cell.strip(), flags=re.I):
        pairs = []
        for part in re.split(r"\s*(?:,|\band\b|&&)\s*", alt, flags=re.I):
            if not part.strip():
                continue
            sides = _EQ.split(part.strip(), maxsplit=1)
            if len(sides) != 2 or not sides[0].strip() or not sides[1].strip():
                continue
            cs, cr = _side(sides[0], known)
            ps, pr = _side(sides[1], known)
            pairs.append(JoinPair(cs, cr, ps, pr))
        if pairs:
            alternatives.append(pairs)
    return alternatives


_MAP_ITEM = re.compile(
    r"(?P<key>[^\s<>]+?)\s*(?:->|\u2192|:)\s*<?(?P<iri>https?://[^\s<>]+?)>?(?=\s|<br|$)",
    re.I,
)


def parse_value_map(cell: str | None) -> dict[str, str]:
    """Parse a value-map output cell into ``{code: IRI}``.

    Accepts ``0->IRI``, ``1 → <IRI>``, ``OP_DATPRO: <IRI>``, items separated by
    ``<br>`` or only by spaces (one gold row forgets a ``<br>``). Text that is
    no map (``Input string in capital format``) yields ``{}``.
    """
    if not cell:
        return {}
    text = re.sub(r"<br\s*/?>", " ", cell, flags=re.I)
    out: dict[str, str] = {}
    for m in _MAP_ITEM.finditer(text):
        key = m.group("key").strip().rstrip(":")
        if key.lower().startswith("http"):
            continue
        out[key] = m.group("iri")
    return out


def split_function_cell(name: str | None, output: str | None) -> tuple[str | None, str | None]:
    """Recover the function name when a table wrote ``name output`` in the output cell.

    Some gold tables leave *Function Name* as ``-`` and write
    ``locationTypeSKOS 0 -> ...`` or ``capitalize Input string ...`` in
    *Function Output*. Returns ``(name, output)`` unchanged when the name is
    present or the first token does not look like a function name (see
    :func:`_looks_like_function`).
    """
    if name or not output:
        return name, output
    parts = output.split(None, 1)
    if len(parts) == 2 and _looks_like_function(parts[0]) and not re.match(r"^(->|\u2192|:)", parts[1]):
        return parts[0], parts[1].strip()
    return name, output


def _looks_like_function(token: str) -> bool:
    """``f()``, a camelCase name or a known function alias; plain words (``ISO 3166``, ``URI``,
    ``literal, e.g.``) that LLM answers write in the output cell are not function names."""
    if not _IDENT_CALL.match(token) or not token[0].islower():
        return False
    return token.endswith("()") or any(c.isupper() for c in token) or function_for_name(token) is not None


_CURIE = r"[A-Za-z][\w\-]*:[A-Za-z_][\w\-]*"
_ALTERNATIVES = re.compile(rf"^{_CURIE}(?:\s*/\s*{_CURIE})+$")


def split_class_alternatives(cell: str | None) -> list[str]:
    """Split ``gtfs:Stop/gtfs:Station`` (several prefixed classes) into a list.

    A single value (including a full IRI with slashes) is returned as ``[value]``;
    ``None`` gives ``[]``.
    """
    if not cell:
        return []
    if _ALTERNATIVES.match(cell):
        return [c.strip() for c in cell.split("/")]
    return [cell]
