"""Load-time checks of source files: what makes a file impossible to map, found before any
mapper or engine reads it, with the file, the line and what was expected.

Used by :func:`pipeline.sources.load.load_source` (``kgc run``, ``map``, ``compile``, ``score``,
``validate``) and by ``kgc materialize`` for the logical sources of an RML document.
A CSV quote that never closes, an XML entity the engine cannot expand (external entities are
never resolved: XXE), a JSON document without records, text that is not UTF-8: each is one
``error`` finding of stage ``source``; :func:`require_readable` turns them into an
:class:`~pipeline.errors.InputError` (exit 2).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from lxml import etree
from rdflib import Literal, URIRef

from pipeline.errors import InputError
from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.sources.columns import check_utf8
from pipeline.sources.model import SourceData

__all__ = ["NO_RECORDS", "unclosed_quote", "json_top_level", "parse_xml", "unresolved_entity", "read_error",
           "require_readable", "check_logical_sources", "xml_encoding"]


#: ``Finding.column`` of the warning that a source has no records (see :func:`require_readable`).
NO_RECORDS = "records"


def unclosed_quote(path: Path, delimiter: str) -> tuple[int, int] | None:
    """``(line, column)`` (1-based) of a quoted field that never closes, else ``None``.

    Called only when the file holds an odd number of ``"``: a file whose quoted fields all close
    (RFC 4180: quotes inside them doubled) holds an even number. A quote opens a field only at
    the field's start, as in the pandas C parser Morph-KGC reads CSV with; elsewhere it is data.
    """
    in_quotes, at_start, opened = False, True, None
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for lineno, line in enumerate(fh, 1):
            i = 0
            while i < len(line):
                ch = line[i]
                if in_quotes:
                    if ch == '"':
                        if line[i + 1:i + 2] == '"':
                            i += 1
                        else:
                            in_quotes = False
                elif ch == '"' and at_start:
                    in_quotes, opened = True, (lineno, i + 1)
                at_start = not in_quotes and ch in (delimiter, "\n", "\r")
                i += 1
    return opened if in_quotes else None


_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def json_top_level(src: Source, data) -> Finding | None:
    """An error when the document cannot hold records: a scalar at the top level, an empty
    array or object, or (without an iterator in the manifest) an array of scalars."""
    kind = _JSON_KINDS.get(type(data), type(data).__name__)
    why = None
    if not isinstance(data, (dict, list)):
        why = f"the top level is {kind}"
    elif not data:
        why = f"the top level is an empty {'array' if isinstance(data, list) else 'object'}: no records"
    elif isinstance(data, list) and not src.iterator and not any(isinstance(x, (dict, list)) for x in data):
        why = f"the top-level array holds {_JSON_KINDS.get(type(data[0]), 'scalar')} values, not records"
    if why is None:
        return None
    empty = isinstance(data, (dict, list)) and not data
    return Finding("source", str(src.path), f"{why}; nothing to map", line=1,
                   column=NO_RECORDS if empty else None, severity="warning" if empty else "error",
                   expected="an object or an array of objects, the records")


def parse_xml(path: Path) -> etree._ElementTree:
    """Parse without the network, never resolving external entities (XXE); internal entities
    are expanded as the engine's parser (expat) expands them, so both read the same text.

    Raises:
        lxml.etree.XMLSyntaxError: not well-formed.
    """
    safe = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    tree = etree.parse(str(path), safe)
    entities = list(tree.docinfo.internalDTD.iterentities()) if tree.docinfo.internalDTD is not None else []
    if entities and not any(e.system_url for e in entities):  # with an external one, _unresolved_entity says so
        tree = etree.parse(str(path), etree.XMLParser(resolve_entities="internal", no_network=True,
                                                      load_dtd=False, huge_tree=True))
    return tree


_XML_DECL = re.compile(rb"""^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def xml_encoding(path: Path) -> str | None:
    """The encoding an XML declaration names when it is not UTF-8 (``"ISO-8859-1"`` ...), else ``None``.
    The engine (Morph-KGC 2.10) opens XML as UTF-8 text whatever the declaration says."""
    with path.open("rb") as fh:
        m = _XML_DECL.match(fh.read(200))
    name = m.group(1).decode("ascii") if m else None
    return None if name is None or name.lower().replace("_", "-") in ("utf-8", "utf8") else name


def unresolved_entity(tree: etree._ElementTree) -> tuple[int | None, str] | None:
    """``(line, message)`` of the first entity reference left unexpanded (an external entity, or
    one an external DTD would define), else ``None``: the engine cannot read it."""
    ent = next(tree.iter(etree.Entity), None)
    if ent is None:
        return None
    dtd = tree.docinfo.internalDTD
    decl = next((e for e in dtd.iterentities() if e.name == ent.name), None) if dtd is not None else None
    if decl is not None and decl.system_url:
        why = (f"the entity &{ent.name}; is external (SYSTEM {decl.system_url!r}): kgc never resolves external "
               f"entities (security: XXE) and the engine cannot read them")
    else:
        url = tree.docinfo.system_url
        why = (f"the entity &{ent.name}; is not declared in the document" +
               (f" (its external DTD {url!r} is never loaded)" if url else ""))
    return ent.sourceline, why


def read_error(path: Path, fmt: str, exc: Exception) -> Finding:
    """The finding for a source file that cannot be decoded or parsed at all.

    Args:
        path: the source file.
        fmt: ``csv``, ``json`` or ``xml``.
        exc: an ``OSError``, ``UnicodeDecodeError`` (``start`` as a byte offset in the file),
            ``json.JSONDecodeError`` or ``csv.Error``.
    Returns:
        An ``error`` finding of stage ``source`` with the line (and the column in the message)
        and what was expected.
    """
    line, why = getattr(exc, "lineno", None), str(exc)
    expected = f"a readable {fmt} file"
    if isinstance(exc, UnicodeDecodeError):
        with path.open("rb") as fh:
            head = fh.read(exc.start)
        line, column = head.count(b"\n") + 1, exc.start - (head.rfind(b"\n") + 1) + 1
        bad = exc.object[exc.start:exc.end].hex(" ")
        why = f"not UTF-8: byte(s) {bad} at line {line}, column {column} (byte offset {exc.start})"
        expected = "UTF-8 text; convert a Latin-1 / Windows-1252 file with iconv -f latin1 -t utf-8"
        with path.open("rb") as fh:
            head = fh.read(2)
        if head in (b"\xff\xfe", b"\xfe\xff"):  # a UTF-16 byte-order mark: Excel's "Unicode text"
            why = f"not UTF-8: the file is UTF-16 (byte-order mark {head.hex(' ')})"
            expected = "UTF-8 text; convert it with iconv -f utf-16 -t utf-8"
    elif isinstance(exc, json.JSONDecodeError):
        why = f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        expected = "a JSON document"
    elif isinstance(exc, OSError):
        why = f"cannot read the file: {exc.strerror or exc}"
    return Finding("source", str(path), why, line=line, expected=expected)


def require_readable(sources: list[SourceData]) -> None:
    """Stop on sources that cannot be mapped (bad input), before any mapper or engine reads them.

    A source without records (a CSV with only its header, an empty JSON array or object) is a
    warning when the case has other sources with records (an empty table is legitimate: none of
    its data reaches the KG, and the report says so); when *every* source is empty there is
    nothing to map, and that is bad input.

    Raises:
        InputError: naming up to three unreadable sources with file, line and what was expected,
            e.g. ``people.csv:2: unclosed quote: ... (expected: a closing ")``.
    """
    bad = [f for s in sources for f in s.findings if f.stage == "source" and f.severity == "error"]
    empty = [f for s in sources for f in s.findings if f.stage == "source" and f.column == NO_RECORDS]
    if sources and len(empty) == len(sources):
        bad += empty
    if bad:
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in bad[:3]) + more)


_FORMULATIONS = {"CSV": "csv", "JSONPath": "json", "XPath": "xml"}


def _check_file(path: Path, fmt: str) -> Finding | None:
    """The first reason the engine cannot read ``path`` at all, else ``None``. A file without
    records is no error here: an RML mapping over an empty source yields an empty graph
    (W3C RML test case RMLTC0000)."""
    try:
        if fmt == "csv":
            opened = unclosed_quote(path, ",") if check_utf8(path) % 2 else None
            if opened:
                return Finding("source", str(path), f"unclosed quote: the quoted field opened at line {opened[0]}, "
                               f"column {opened[1]} runs to the end of the file", line=opened[0],
                               expected='a closing "; a quote inside a quoted field is written ""')
        elif fmt == "json":
            data = json.loads(path.read_text(encoding="utf-8-sig"))
            if not isinstance(data, (dict, list)):
                return Finding("source", str(path), f"the top level is {_JSON_KINDS.get(type(data), 'a scalar')}",
                               line=1, expected="an object or an array of objects, the records")
        elif fmt == "xml":
            declared = xml_encoding(path)
            if declared:
                return Finding("source", str(path), f"XML declared in {declared}: the engine reads XML as UTF-8 "
                               "whatever the declaration says", line=1,
                               expected=f"UTF-8: convert it with iconv -f {declared} -t utf-8 and declare "
                               "encoding=\"UTF-8\"; kgc run and kgc map read a converted copy themselves")
            try:
                entity = unresolved_entity(parse_xml(path))
            except etree.XMLSyntaxError as exc:
                return Finding("source", str(path), f"XML is not well-formed: {exc.msg}", line=exc.lineno,
                               expected="well-formed XML")
            if entity is not None:
                return Finding("source", str(path), entity[1], line=entity[0],
                               expected="entities declared in the document itself, no SYSTEM or PUBLIC entity, "
                               "no external DTD; replace the reference by its text")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return read_error(path, fmt, exc)
    return None


def check_logical_sources(rml) -> list[Finding]:
    """Load-time checks of every local file an RML document reads (the engine copy's sources).

    Args:
        rml: a normalised RML graph (``http://w3id.org/rml/`` vocabulary, sources as absolute
            file names, see :mod:`pipeline.materialize.rml.normalize`).
    Returns:
        One ``error`` finding per file the engine cannot read (see :func:`_check_file`); the
        format comes from ``rml:referenceFormulation``, else from the file's extension.
    """
    ns = "http://w3id.org/rml/"
    out: list[Finding] = []
    seen: set[str] = set()
    for ls, src in rml.subject_objects(URIRef(ns + "source")):
        path = Path(str(src))
        if not isinstance(src, Literal) or str(src) in seen or not path.is_file():
            continue
        seen.add(str(src))
        formulation = rml.value(ls, URIRef(ns + "referenceFormulation"))
        fmt = _FORMULATIONS.get(str(formulation).rsplit("/", 1)[-1].rsplit("#", 1)[-1]) if formulation else None
        fmt = fmt or {".csv": "csv", ".tsv": "csv", ".json": "json", ".xml": "xml"}.get(path.suffix.lower())
        finding = _check_file(path, fmt) if fmt else None
        if finding is not None:
            out.append(finding)
    return out
