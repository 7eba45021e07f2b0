"""Load-time checks of source files: what makes a file impossible to map, found before any
mapper or engine reads it, with the file, the line and what was expected.

Used by :func:`pipeline.sources.load.load_source` (``kgc run``, ``map``, ``compile``, ``score``,
``validate``) and by ``kgc materialize`` for the logical sources of an RML document.
A CSV quote that never closes, a NUL byte in a CSV file (the engine's CSV reader cuts the value
there), an XML entity the engine cannot expand (external entities are never resolved: XXE), a
JSON document without records, JSON or XML nested deeper than :data:`MAX_DEPTH` levels, text
that is not UTF-8: each is one ``error`` finding of stage ``source``; :func:`require_readable`
turns them into an :class:`~pipeline.errors.InputError` (exit 2).
"""
from __future__ import annotations

import csv
import itertools
import json
import re
from pathlib import Path
from xml.parsers import expat

from lxml import etree
from rdflib import Literal, URIRef

from pipeline.errors import InputError, json_syntax_error, not_utf8
from pipeline.findings import Finding
from pipeline.manifest import FORMATS, Source
from pipeline.sources.columns import check_utf8
from pipeline.sources.engine_copy import is_json_lines, parse_json_lines
from pipeline.sources.model import SourceData
from pipeline.sources.xml_parser import parse_file

__all__ = ["NO_RECORDS", "MAX_DEPTH", "xml_no_records", "unclosed_quote", "csv_nul_byte", "c1_controls",
           "repeated_header_lines", "csv_preamble", "json_top_level", "json_records", "json_too_deep", "xml_too_deep",
           "xml_amplification", "xml_parse_error", "parse_xml", "unresolved_entity", "read_error",
           "require_readable", "check_logical_sources", "xml_encoding"]


#: ``Finding.column`` of the warning that a source has no records (see :func:`require_readable`).
NO_RECORDS = "records"

#: Deepest nesting of JSON arrays/objects and XML elements kgc reads. Python's JSON decoder and
#: encoder (kgc's and the engine's) recurse once per level and stop at the interpreter's recursion
#: limit (1,000 frames, shared with the caller's stack), kgc's record walks recurse once per level
#: too, and libxml2 stops at 2,048 levels even with its huge-document option. 512 leaves every
#: reader room; real records are rarely nested beyond a few dozen levels.
MAX_DEPTH = 512

_DEPTH_EXPECTED = (f"at most {MAX_DEPTH} nested levels; flatten the structure or split the file "
                   "(kgc's readers and the engine's recurse once per level)")


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


def repeated_header_lines(path: Path, delimiter: str) -> list[int]:
    """Lines below the header of a CSV file that repeat it cell for cell.

    A spreadsheet printed or exported over pages repeats its header row at each page break; such
    a line is not a record (RFC 4180 section 2.3: one optional header line), and a record whose
    every cell is its own column's name carries no data. The file is scanned as bytes for lines
    equal to its first line and parsed with :mod:`csv` only when one is found (a quoted field
    spanning lines could hold such a line).

    Returns:
        The 1-based lines (of the file) of the records equal to the header, in order; ``[]`` when
        there is none or the file is empty.
    Raises:
        OSError: the file cannot be read.
    """
    with path.open("rb") as fh:
        first = fh.readline()
        head = first.removeprefix(b"\xef\xbb\xbf").rstrip(b"\r\n")
        if not head.strip() or not any(line.rstrip(b"\r\n") == head for line in fh):
            return []
    found: list[int] = []
    limit = csv.field_size_limit(2 ** 31 - 1)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            header = next(reader, None)
            end = reader.line_num
            for row in reader:
                start, end = end + 1, reader.line_num
                if row == header:
                    found.append(start)
    finally:
        csv.field_size_limit(limit)
    return found


#: Rows of a CSV file :func:`csv_preamble` reads: the lines above a table and enough of the table
#: to see the width its lines share.
PREAMBLE_SCAN_ROWS = 200


def csv_preamble(path: Path, delimiter: str = ",") -> Finding | None:
    """The error for lines above a CSV file's table (a title, notes, a date), else ``None``.

    Statistics downloads (the World Bank's indicator files, several statistics offices' exports)
    put a few lines of metadata above the header. Every reader of the file (kgc's, the engine's
    pandas, RML's CSV reference formulation) takes line 1 for the header, so the metadata's cells
    become the column names and the real header a record. RFC 4180 section 2 has one optional
    header line followed by records "containing the same number of fields throughout the file":
    the table starts at the first row of the width that row and every non-blank row after it
    share, when every non-blank row above it fills at most half that width. Both conditions
    hold for a preamble and fail for a table with a few long rows (those rows are not shared by
    the rest) or with a header shorter by one trailing cell (more than half the width). Read on
    the first :data:`PREAMBLE_SCAN_ROWS` rows.

    Returns:
        An ``error`` finding of stage ``source`` naming the table's header line, the lines above
        it and how to drop them; ``None`` when line 1 starts the table (or the file has fewer than
        two rows of the table's width, or a width below 2).
    Raises:
        OSError, UnicodeDecodeError: the file cannot be read as UTF-8.
    """
    limit = csv.field_size_limit(2 ** 31 - 1)
    rows: list[tuple[int, list[str]]] = []  # (line the row starts on, cells), blank rows left out
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            end = 0
            for row in itertools.islice(reader, PREAMBLE_SCAN_ROWS):
                start, end = end + 1, reader.line_num
                if any(c.strip() for c in row):
                    rows.append((start, row))
    except csv.Error:
        return None  # a malformed row: the loader's other checks say where
    finally:
        csv.field_size_limit(limit)
    for i in range(1, len(rows)):
        width = len(rows[i][1])
        if width < 2 or len(rows) - i < 2 or len(rows[i - 1][1]) == width:
            continue
        if all(len(r) == width for _, r in rows[i:]) and \
                all(sum(1 for c in r if c.strip()) <= width / 2 for _, r in rows[:i]):
            header = rows[i][0]
            above = header - 1  # blank lines above the header included
            filled = max(sum(1 for c in r if c.strip()) for _, r in rows[:i])
            return Finding("source", str(path), f"line {header} starts the table: lines 1-{above} hold at most "
                           f"{filled} filled cell(s) each (a title or notes above the header), while line {header} "
                           f"and the {len(rows) - i - 1} record(s) below it hold {width} cells each; every reader "
                           "takes line 1 for the header", line=header, column="header",
                           expected=f"the header on line 1 (RFC 4180 section 2: one header line, then records of as "
                           f"many fields): remove lines 1-{above}, e.g. tail -n +{header} {path.name} > "
                           f"{path.stem}.table{path.suffix or '.csv'}")
    return None


def csv_nul_byte(path: Path, delimiter: str = ",") -> Finding | None:
    """The error for a NUL byte (U+0000) in a CSV file, else ``None``.

    The engine's CSV reader (the pandas C parser inside Morph-KGC) ends a value at a NUL byte, so
    ``An\\0n`` would become ``An`` without a word; no CSV value can hold one. A file where NUL bytes
    alternate with text is UTF-16 without a byte-order mark, and the message says so.

    Returns:
        An ``error`` finding of stage ``source`` with the record's line, the column's name and the
        character position of the first NUL in its line.
    """
    size = nuls = 0
    first = None
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 24), b""):
            at = chunk.find(b"\0")
            if at >= 0:
                if first is None:
                    first = size + at
                nuls += chunk.count(b"\0")
            size += len(chunk)
    if first is None:
        return None
    if nuls * 4 >= size:  # one byte in four or more: text in a two-byte encoding
        return Finding("source", str(path), f"the file holds {nuls:,} NUL bytes in {size:,}: it looks like UTF-16 "
                       "without a byte-order mark, not UTF-8", line=1,
                       expected="UTF-8 text; convert it with iconv -f utf-16le -t utf-8 (or utf-16be)")
    with path.open("rb") as fh:
        head = fh.read(first)
    line = head.count(b"\n") + 1
    text = head[head.rfind(b"\n") + 1:].decode("utf-8", errors="replace")
    column, name = len(text) + 1, None
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = next(reader, [])
        start = reader.line_num + 1
        for row in reader:  # the record and column holding it (a quoted value may span lines)
            hit = next((i for i, cell in enumerate(row) if "\0" in cell), None)
            if hit is not None:
                line = start
                name = header[hit] if hit < len(header) else f"cell {hit + 1}"
                break
            start = reader.line_num + 1
        else:
            if any("\0" in cell for cell in header):
                line, name = 1, "header"
    where = f" in column {name!r}" if name else ""
    return Finding("source", str(path), f"a NUL byte (U+0000){where} at line {line}, character {column}: the "
                   "engine's CSV reader would cut the value there", line=line, column=name,
                   expected="no NUL bytes in a CSV file; remove them (tr -d '\\000' < in.csv > out.csv) or "
                   "write the value another way")


#: A C1 control character (U+0080-U+009F) in UTF-8: the bytes C2 80 ... C2 9F.
_C1 = re.compile(rb"\xc2[\x80-\x9f]")


def c1_controls(path: Path) -> Finding | None:
    """The warning for C1 control characters (U+0080-U+009F) in a UTF-8 source, else ``None``.

    No text uses them (XML 1.0, section 2.2, asks authors to avoid them; Unicode gives them no
    printable meaning), while bytes 0x80-0x9F are the printable ``€ ‚ „ … – — “ ”`` ... of
    Windows-1252: a file holding C1 controls is almost always a Windows-1252 file converted as if
    it were ISO-8859-1 (``iconv -f latin1``), its ``€`` now U+0080 in every literal and IRI.

    Returns:
        A ``warning`` finding of stage ``source`` with the line and character of the first one and
        the number in the file.
    """
    first, count, size, tail = None, 0, 0, b""
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 24), b""):
            data = tail + chunk  # a pair split across two chunks is found in the next one
            hits = list(_C1.finditer(data))
            if hits and first is None:
                first = size - len(tail) + hits[0].start()
            count += len(hits)
            tail = data[-1:] if data.endswith(b"\xc2") else b""
            size += len(chunk)
    if first is None:
        return None
    with path.open("rb") as fh:
        head = fh.read(first + 2)
    line = head.count(b"\n", 0, first) + 1
    column = len(head[head.rfind(b"\n", 0, first) + 1:first].decode("utf-8", errors="replace")) + 1
    char = head[first:].decode("utf-8", errors="replace")
    meant = bytes([ord(char)]).decode("cp1252", errors="replace")
    return Finding("source", str(path), f"{count:,} C1 control character(s), the first U+{ord(char):04X} at line "
                   f"{line}, character {column} ({meant!r} in Windows-1252): a Windows-1252 file converted as if it "
                   "were Latin-1?", line=line,
                   expected="printable text; convert the original file with iconv -f cp1252 -t utf-8",
                   severity="warning")


def _deep_position(text: str, limit: int) -> tuple[int, int] | None:
    """(line, column) of the first ``[`` or ``{`` that opens level ``limit + 1`` of a JSON text,
    outside strings; ``None`` when no level is that deep. Iterative: any depth is scanned."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        tok = m.group()
        if tok == "[" or tok == "{":
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, m.start()) + 1
                return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        elif tok == "]" or tok == "}":
            depth -= 1
    return None


def _json_depth_exceeds(data, limit: int) -> bool:
    """Whether the parsed JSON ``data`` nests arrays/objects deeper than ``limit`` (iterative)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def json_too_deep(path: Path, text: str, data=None) -> Finding | None:
    """The error for JSON nested deeper than :data:`MAX_DEPTH` levels, else ``None``.

    Args:
        path: the file (for the finding). text: its text.
        data: the parsed document; ``None`` when parsing stopped at the recursion limit (or the
            document is ``null``: the text is scanned then).
    Returns:
        An ``error`` finding of stage ``source`` naming the line and column where the nesting
        passes the limit.
    """
    if data is not None and not (isinstance(data, (dict, list)) and _json_depth_exceeds(data, MAX_DEPTH)):
        return None
    where = _deep_position(text, MAX_DEPTH)
    if where is None:
        if data is None and text.strip() != "null":
            where = (1, 1)  # the decoder gave up below MAX_DEPTH levels (a lower recursion limit)
        else:
            return None
    line, column = where
    return Finding("source", str(path), f"JSON nested too deeply: more than {MAX_DEPTH} levels of arrays/objects "
                   f"(level {MAX_DEPTH + 1} opens at line {line}, column {column})", line=line,
                   column="nesting", expected=_DEPTH_EXPECTED)


def xml_too_deep(path: Path, tree: etree._ElementTree | None = None, message: str = "") -> Finding | None:
    """The error for XML nested deeper than :data:`MAX_DEPTH` elements, else ``None``.

    Args:
        path: the file. tree: the parsed document (``None``: the parser stopped, ``message`` says why).
    Returns:
        An ``error`` finding of stage ``source`` with the line of the first element that is too deep.
    """
    if tree is not None:
        # the elements at depth MAX_DEPTH + 1, level by level in libxml2: shallow documents end early
        hits = tree.xpath("/*" * (MAX_DEPTH + 1))
        if not hits:
            return None
        line = hits[0].sourceline
    elif "Excessive depth" in message:
        line = None
    else:
        return None
    at = f" (the element at line {line} is at level {MAX_DEPTH + 1})" if line else ""
    return Finding("source", str(path), f"XML nested too deeply: more than {MAX_DEPTH} levels of elements{at}",
                   line=line, column="nesting", expected=_DEPTH_EXPECTED)


_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def _json_kind(value) -> str:
    """``an object``, ``an array``, ``a number`` ... for a parsed JSON value (a float subclass is a number)."""
    if isinstance(value, bool):
        return "a boolean"
    return next((k for t, k in _JSON_KINDS.items() if isinstance(value, t)), type(value).__name__)


def json_records(path: Path, iterator: str, records: list, lines: list[int] | None = None
                 ) -> tuple[list, Finding | None]:
    """The records that are JSON objects, and a finding for those that are not.

    A reference reads a record's members by name (RML-Core, JSONPath relative to the iterated
    node), so a record that is an array (a table row exported without its column names: pandas
    ``orient="split"``, Socrata's ``data``), a string or a number has nothing a reference can name;
    read as records, its values would become one bag of values under an empty name.

    Args:
        path: the source file (named in the finding). iterator: the JSONPath that selected ``records``.
        records: the values the iterator selects.
        lines: the line of a JSON Lines file each of ``records`` is on (they are its lines' values),
            named instead of the record's number and the iterator, which the user did not write.
    Returns:
        ``(the object records, finding)``: an ``error`` when no record is an object (nothing to map:
        bad input), a ``warning`` naming how many are left out when some are, ``None`` when all are.
    """
    bad = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    if not bad:
        return records, None
    first = records[bad[0]]
    kind = _json_kind(first)
    shown = json.dumps(first, ensure_ascii=False, default=str)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    hint = ("; a table exported as rows of values beside a list of column names ('columns' + 'data', pandas "
            "orient=\"split\") reads as records once written as objects (pandas to_json(orient=\"records\"))"
            if isinstance(first, list) else "")
    kept = [r for r in records if isinstance(r, dict)]
    # a JSON Lines file's records are its lines: named by line, without the iterator kgc chose for them
    where, what, few = ((f"line {lines[bad[0]]}", "lines (one JSON value each) hold", "no objects") if lines is not None
                        else (f"record {bad[0] + 1}", f"records the iterator {iterator!r} selects are", "not objects"))
    line = lines[bad[0]] if lines is not None else None
    if not kept:
        return [], Finding("source", str(path), f"the {what} {kind.split(' ')[-1]}s, not objects "
                           f"({where}: {shown}): a reference reads a record's members by name, and these have none; "
                           f"nothing to map", line, column="iterator",
                           value=iterator, expected=f"records that are JSON objects ({{\"id\": ..., \"name\": ...}})"
                           f"{hint}")
    others = ""
    if lines is not None and len(bad) > 1:  # the user's lines to fix, a few of them
        shown_lines = [str(lines[i]) for i in bad[1:4]] + (["..."] if len(bad) > 4 else [])
        others = f"; also line{'s' if len(bad) > 2 else ''} {', '.join(shown_lines)}"
    return kept, Finding("source", str(path), f"{len(bad)} of the {len(records)} {what} {few} ({where} is "
                         f"{kind}: {shown}{others}): a reference reads a record's members by name, so none of their "
                         "values is read", line, column="iterator", value=iterator,
                         expected="records that are JSON objects", severity="warning")


def json_top_level(src: Source, data) -> Finding | None:
    """An error when the document cannot hold records: a scalar at the top level, an empty
    array or object, or (without an iterator in the manifest) an array of scalars."""
    kind = _json_kind(data)
    why = None
    if not isinstance(data, (dict, list)):
        why = f"the top level is {kind}"
    elif not data:
        why = f"the top level is an empty {'array' if isinstance(data, list) else 'object'}: no records"
    elif isinstance(data, list) and not src.iterator and not any(isinstance(x, (dict, list)) for x in data):
        why = f"the top-level array holds {_json_kind(data[0])} values, not records"
    if why is None:
        return None
    empty = isinstance(data, (dict, list)) and not data
    return Finding("source", str(src.path), f"{why}; nothing to map", line=1,
                   column=NO_RECORDS if empty else None, severity="warning" if empty else "error",
                   expected="an object or an array of objects, the records")


def xml_no_records(path: Path, root: etree._Element) -> Finding | None:
    """The "no records" warning for an XML document whose root element holds nothing: no child
    element, no attribute, no text (``<orders/>``, the export of an empty day), else ``None``.
    :func:`require_readable` makes it an error when no source of the case has records."""
    if len(root) or root.attrib or (root.text or "").strip():
        return None
    return Finding("source", str(path), f"no records (the root element <{etree.QName(root).localname}> has no child "
                   "elements); nothing to map", line=root.sourceline, column=NO_RECORDS,
                   expected="records: elements inside the root element", severity="warning")


def parse_xml(path: Path) -> etree._ElementTree:
    """Parse as the engine reads (:func:`pipeline.sources.xml_parser.parse_file`: internal-subset
    attribute defaults applied, nothing external read, never resolving external entities: XXE);
    internal entities are expanded as the engine's parser (expat) expands them, so both read the same text.

    Raises:
        lxml.etree.XMLSyntaxError: not well-formed.
    """
    tree = parse_file(path)
    entities = list(tree.docinfo.internalDTD.iterentities()) if tree.docinfo.internalDTD is not None else []
    if entities and not any(e.system_url for e in entities):  # with an external one, _unresolved_entity says so
        tree = parse_file(path, resolve_entities="internal")
    return tree


def _entity_references(path: Path) -> tuple[dict[str, str], list[tuple[str, int]]]:
    """The internal entities ``path`` declares (name -> replacement text) and the references to them
    in its content, ``(name, line)`` in document order, read without expanding any (expat: with a
    default handler, a reference in content is reported, not expanded)."""
    declared: dict[str, str] = {}
    refs: list[tuple[str, int]] = []
    parser = expat.ParserCreate()

    def declaration(name, is_parameter, value, *_):
        if not is_parameter and value is not None:
            declared.setdefault(name, value)  # the first declaration binds (XML 1.0, section 4.2)

    def default(data):
        if data.startswith("&") and data.endswith(";") and data[1:-1] in declared:
            refs.append((data[1:-1], parser.CurrentLineNumber))
    parser.EntityDeclHandler, parser.DefaultHandler = declaration, default
    try:
        with path.open("rb") as fh:
            parser.ParseFile(fh)
    except (expat.ExpatError, OSError):  # a reference in an attribute value is expanded, and may stop it
        pass
    return declared, refs


def xml_amplification(path: Path, message: str) -> Finding | None:
    """The error for XML that libxml2 refused for entity amplification (a "billion laughs"
    document: entities nested in entities, each reference multiplying the text), else ``None``.

    The document is well-formed (XML 1.0, section 4 allows such declarations); the parser refuses
    to expand it past its amplification limit, which protects memory. libxml2's own message names
    line 1, column 7 and a C function; this one names the reference and what it expands to.

    Args:
        path: the XML file. message: the parser's error message.
    Returns:
        An ``error`` finding of stage ``source`` at the line of the reference that expands most.
    """
    if "amplification" not in message and "entity reference loop" not in message:
        return None
    declared, refs = _entity_references(path)
    sizes: dict[str, tuple[float, int]] = {}

    def size(name: str, seen: frozenset = frozenset()) -> tuple[float, int]:
        """(characters the entity expands to, depth of nesting); a loop is infinite."""
        if name in seen:
            return float("inf"), len(seen)
        if name not in sizes:
            inner = [size(m, seen | {name}) for m in re.findall(r"&([^\s&;]+);", declared.get(name, ""))
                     if m in declared]
            plain = len(re.sub(r"&[^\s&;]+;", "", declared.get(name, "")))
            sizes[name] = (plain + sum(n for n, _ in inner), 1 + max((d for _, d in inner), default=0))
        return sizes[name]
    worst = max(refs, key=lambda r: size(r[0])[0], default=None)
    if worst is None:
        return Finding("source", str(path), "XML refused: its entities would expand past the parser's limit "
                       "(entities nested in entities, a \"billion laughs\" document)", line=None,
                       expected="entities that expand to text of about their own size; replace the references "
                       "by the text meant")
    n, depth = size(worst[0])
    if n == float("inf"):
        return Finding("source", str(path), f"XML is not well-formed: the entity &{worst[0]}; refers to itself "
                       "through the entities it holds (XML 1.0, well-formedness constraint: No Recursion)",
                       line=worst[1], expected="entities that do not refer to themselves")
    return Finding("source", str(path), f"the entity &{worst[0]}; expands to {int(n):,} characters through entities "
                   f"nested {depth} deep (a \"billion laughs\" document): refused, past the XML parser's limit on "
                   "entity expansion", line=worst[1],
                   expected="entities that expand to text of about their own size; replace the reference by the "
                   "text meant")


def xml_parse_error(path: Path, exc: etree.XMLSyntaxError, parsed: Path | None = None) -> Finding:
    """The error for XML that does not parse: nested too deeply (:func:`xml_too_deep`), refused for
    entity amplification (:func:`xml_amplification`), else not well-formed (libxml2's message).

    Args:
        path: the file the finding names. exc: the parser's error.
        parsed: the file that was parsed, when it is a copy of ``path`` (declared prefixes).
    """
    return xml_too_deep(path, None, exc.msg) or xml_amplification(parsed or path, exc.msg) or Finding(
        "source", str(path), f"XML is not well-formed: {exc.msg}", line=exc.lineno, expected="well-formed XML")


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
        line, why, expected = not_utf8(path, exc)
    elif isinstance(exc, json.JSONDecodeError):
        line, why, expected = json_syntax_error(exc, exc.doc)
    elif isinstance(exc, OSError):
        why = f"cannot read the file: {exc.strerror or exc}"
    return Finding("source", str(path), why, line=line, expected=expected)


def require_readable(sources: list[SourceData]) -> None:
    """Stop on sources that cannot be mapped (bad input), before any mapper or engine reads them.

    A source without records (a CSV with only its header, an empty JSON array or object, an
    iterator that selects nothing) is a warning when the case has other sources with records (an empty table is legitimate: none of
    its data reaches the KG, and the report says so); when *every* source is empty there is
    nothing to map, and that is bad input.

    Raises:
        InputError: naming up to three unreadable sources with file, line and what was expected,
            e.g. ``people.csv:2: unclosed quote: ... (expected: a closing ")``.
    """
    bad = [f for s in sources for f in s.findings if f.stage == "source" and f.severity == "error"]
    # no records: an empty file, or an iterator that selects nothing (a namespace prefix forgotten)
    empty = [f for s in sources for f in s.findings if f.stage == "source" and NO_RECORDS in (f.column, f.code)]
    if sources and len({f.file for f in empty}) == len(sources):
        bad += empty
    if bad:
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected}"
                                   + (f"; closest valid: {f.candidate}" if f.candidate else "") + ")"
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
            return csv_nul_byte(path) or csv_preamble(path)
        elif fmt == "json":
            text = path.read_text(encoding="utf-8-sig")
            try:
                data = parse_json_lines(text) if is_json_lines(path) else json.loads(text)
            except RecursionError:
                return json_too_deep(path, text)
            deep = json_too_deep(path, text, data)
            if deep is not None:
                return deep
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
                tree = parse_xml(path)
            except etree.XMLSyntaxError as exc:
                return xml_parse_error(path, exc)
            deep = xml_too_deep(path, tree)
            if deep is not None:
                return deep
            entity = unresolved_entity(tree)
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
        if not isinstance(src, Literal) or not path.is_file() or str(path.resolve()) in seen:
            continue
        seen.add(str(path.resolve()))  # one file named two ways (relative, absolute) is checked once
        formulation = rml.value(ls, URIRef(ns + "referenceFormulation"))
        fmt = _FORMULATIONS.get(str(formulation).rsplit("/", 1)[-1].rsplit("#", 1)[-1]) if formulation else None
        fmt = fmt or next((f for f, suffixes in FORMATS.items() if path.suffix.lower() in suffixes), None)
        finding = _check_file(path, fmt) if fmt else None
        if finding is not None:
            out.append(finding)
    return out
