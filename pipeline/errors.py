"""One error hierarchy for the whole package.

Library code raises these; only the CLI turns them into exit codes
(0 success, 1 the KG fails validation, 2 bad input).
"""
from __future__ import annotations

__all__ = [
    "PipelineError",
    "InputError",
    "TableParseError",
    "ManifestError",
    "OntologyError",
    "CompileError",
    "MaterializeError",
    "RMLError",
    "on_user_file",
    "json_syntax_error",
    "not_utf8",
    "not_utf8_error",
    "interruption_in",
]


class PipelineError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(PipelineError):
    """Bad user input: a file that is missing, unreadable or malformed.

    Attributes:
        path: the offending file (or ``None`` when not file-bound).
        line: 1-based line number when known.
        key: the key/column/cell concerned when known.
    """

    def __init__(self, message: str, *, path: object = None, line: int | None = None,
                 key: str | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.key = key
        where = ""
        if self.path:
            where = self.path
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(f"{where}{message}")


class TableParseError(InputError):
    """A mapping table file cannot be read at all (not one bad row: a bad file)."""


class ManifestError(InputError):
    """A scenario manifest is invalid (unknown key, missing file, unknown format)."""


class OntologyError(InputError):
    """An ontology or SKOS file cannot be parsed."""


class CompileError(PipelineError):
    """The mapping table cannot be turned into any RML at all."""


class MaterializeError(PipelineError):
    """Morph-KGC failed on the compiled mapping."""


class RMLError(InputError):
    """An RML mapping is invalid or the engine cannot run it (bad input: exit 2).

    The message names the TriplesMap and the term map concerned and the cause, e.g.
    ``TriplesMap <#People> references parent TriplesMap <#Cities>, which reads another
    logical source, without a join condition``.
    """


def on_user_file(exc: InputError, path: object) -> InputError:
    """``exc`` named on the file the user has, when the engine ran a copy of it.

    The engine runs copies of a mapping (``mapping.morph-kgc.ttl``, ``cn4/mapping.cn4.ttl``,
    ``gold/mapping.morph-kgc.ttl``) whose TriplesMaps keep the names of the user's file; an error
    on the copy is re-addressed to ``path`` and says which copy ran.

    Args:
        exc: the error raised on the copy (its ``path`` is the copy).
        path: the file the user wrote or got from a run (``mapping.rml.ttl``, a gold table ...).
    Returns:
        An error of the same class: ``<path>: <message> (the engine ran the copy <copy>)``; the
        copy's line number is dropped (it is no line of ``path``).
    """
    text = str(exc)
    prefix = f"{exc.path}" + (f":{exc.line}" if exc.line is not None else "") + ": " if exc.path else ""
    message = text[len(prefix):] if prefix and text.startswith(prefix) else text
    copy = f" (the engine ran the copy {exc.path})" if exc.path and str(exc.path) != str(path) else ""
    out = type(exc)(f"{message}{copy}", path=path, key=exc.key)
    out.__cause__ = exc.__cause__
    return out


#: ``json.JSONDecodeError.msg`` (its start) -> what the reader expected there
_JSON_EXPECTED = {
    "Expecting value": "a value: an object, an array, a string, a number, true, false or null",
    "Expecting ',' delimiter": "',' between two elements, or the closing ']' or '}'",
    "Expecting ':' delimiter": "':' after the member name",
    "Expecting property name enclosed in double quotes": 'a member name in double quotes ("name")',
    "Extra data": "one JSON document per file, nothing after it",
    "Unterminated string": 'the closing " of the string',
    "Invalid control character": "control characters escaped inside strings (\\n, \\t)",
    "Invalid \\escape": "an escape of JSON (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
}


def json_syntax_error(exc, text: str) -> tuple[int, str, str]:
    """What a JSON syntax error means for the person who wrote the file, on one line.

    Python's decoder says where it stopped, which after a trailing comma (``},`` before ``]``,
    the commonest hand-editing slip) is the next line and "Expecting value"; the comma's own
    line and "trailing comma" are what the user needs. Used for JSON sources and JSON mapping
    tables alike.

    Args:
        exc: the ``json.JSONDecodeError`` (``pos`` a character offset into ``text``).
        text: the text that was decoded.
    Returns:
        ``(line, reason, expected)``: the 1-based line to show, the reason (with the column),
        and what was expected there.
    """
    pos = exc.pos
    if not text.strip():
        return 1, "the file is empty", "a JSON document"
    before = text[:pos].rstrip()
    close = text[pos:pos + 1]
    if before.endswith(",") and close in ("]", "}") and exc.msg.startswith(("Expecting value", "Expecting property")):
        comma = len(before) - 1
        line = text.count("\n", 0, comma) + 1
        what = "another value or ']'" if close == "]" else "another member or '}'"
        return line, "trailing comma after the last element", what
    expected = next((v for k, v in _JSON_EXPECTED.items() if exc.msg.startswith(k)), "a JSON document")
    return exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})", expected


def not_utf8(path, exc: UnicodeDecodeError) -> tuple[int, str, str]:
    """Where a file is not UTF-8 and how to convert it, for the person who has to fix it.

    Python's codec error gives a byte offset only; this gives the line and column, the bytes, and
    what they are in Windows-1252: the encoding spreadsheet programs on Windows write (Excel's
    "CSV"), of which ISO-8859-1 (Latin-1) is the printable subset. Bytes 0x80-0x9F are C1 control
    characters in ISO-8859-1 and printable characters in Windows-1252 (``€``, ``–``, ``“`` ...), so
    converting with ``-f latin1`` would turn them into control characters; the WHATWG Encoding
    Standard maps the label ``latin1`` to windows-1252 for this reason. Used for data sources,
    mapping tables, RML and YARRRML files alike.

    Args:
        path: the file (its first ``exc.start`` bytes are read again for the line).
        exc: the ``UnicodeDecodeError``, ``start`` a byte offset in the file.
    Returns:
        ``(line, reason, expected)``: the 1-based line, the reason (column, bytes, offset), and
        what was expected with the ``iconv`` command that converts the file.
    """
    with open(path, "rb") as fh:
        head = fh.read(exc.start)
        bad = fh.read(max(exc.end - exc.start, 1))
        fh.seek(0)
        bom = fh.read(2)
    if bom in (b"\xff\xfe", b"\xfe\xff"):  # a UTF-16 byte-order mark: Excel's "Unicode text"
        return 1, f"not UTF-8: the file is UTF-16 (byte-order mark {bom.hex(' ')})", \
            "UTF-8 text; convert it with iconv -f utf-16 -t utf-8"
    line, column = head.count(b"\n") + 1, exc.start - (head.rfind(b"\n") + 1) + 1
    try:
        meant = f", {bad.decode('cp1252')!r} in Windows-1252"
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D: no character in Windows-1252 either
        meant = ""
    why = f"not UTF-8: byte(s) {bad.hex(' ')} at line {line}, column {column} (byte offset {exc.start}{meant})"
    return line, why, "UTF-8 text; convert a Windows-1252 (or Latin-1) file with iconv -f cp1252 -t utf-8"


def not_utf8_error(path, exc: UnicodeDecodeError, kind: type[InputError] = InputError,
                   what: str = "") -> InputError:
    """The error to raise for a user file that is not UTF-8 (:func:`not_utf8`'s line, reason and advice).

    Args:
        path: the file. exc: the decoding error (``start`` a byte offset in the file).
        kind: the :class:`InputError` subclass (a manifest, a mapping table ...).
        what: words before the reason (``cannot read mapping table``), or none.
    """
    line, why, expected = not_utf8(path, exc)
    return kind(f"{what + ': ' if what else ''}{why} (expected: {expected})", path=path, line=line)


def interruption_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM, :func:`pipeline.cli.main`) behind ``exc``, ``None`` when there is none.

    Python turns some interruptions into other errors: one landing while a class body is set up
    (an import) comes out as ``RuntimeError: Error calling __set_name__ ...`` whose ``__cause__`` is the
    ``KeyboardInterrupt`` (CPython 3.11; 3.12 adds a note instead). Such an error is the interruption,
    not a crash of kgc, and is said as one. The chain of ``__cause__``/``__context__`` is followed.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
