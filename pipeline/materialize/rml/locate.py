"""The line of a user's RML document where a TriplesMap is written, for errors that name it.

The checks of the normalisation pass and the engine name a TriplesMap by its IRI
(``TriplesMap <file:///.../m.ttl#People>``); the user wrote it as ``<#People>``, ``:People`` or
``ex:People`` somewhere in a Turtle file. :func:`at_triples_map` finds the statement that
describes it (the line where the name starts a statement, else the first line naming it) and
gives the error that file and line.
"""
from __future__ import annotations

import re
from pathlib import Path

from pipeline.errors import InputError

__all__ = ["at_triples_map", "written_forms"]

_NAMED = re.compile(r"TriplesMap <([^>\s]+)>")
_PREFIX = re.compile(r"^\s*(?:@prefix|PREFIX)\s+([\w.-]*):\s*<([^>]*)>", re.I | re.M)
_BASE = re.compile(r"^\s*(?:@base|BASE)\s+<([^>]*)>", re.I | re.M)


def written_forms(iri: str, text: str, path: Path) -> list[str]:
    """How ``iri`` may be written in the Turtle ``text`` of ``path``: ``<iri>``, relative to the
    document's base or location (``<#People>``), and with each prefix the text declares
    (``ex:People``)."""
    forms = [f"<{iri}>"]
    bases = [m.group(1) for m in _BASE.finditer(text)] + [Path(path).absolute().as_uri()]
    for base in bases:
        if base and iri.startswith(base) and iri != base:
            forms.append(f"<{iri[len(base):]}>")
        folder = base.rsplit("/", 1)[0] + "/" if "/" in base else ""
        if folder and iri.startswith(folder):
            forms.append(f"<{iri[len(folder):]}>")
    for prefix, ns in _PREFIX.findall(text):
        local = iri[len(ns):] if ns and iri.startswith(ns) else None
        if local and re.fullmatch(r"[\w.-]*[\w-]|", local):
            forms.append(f"{prefix}:{local}")
    return forms


def _line_of(iri: str, files: list[Path]) -> tuple[Path, int, str] | None:
    """``(file, 1-based line, the name as written there)`` of the statement describing ``iri``;
    ``None`` when no file names it."""
    first = None
    for f in files:
        try:
            text = Path(f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        pattern = "|".join(re.escape(w) for w in written_forms(iri, text, f))
        starts = re.compile(rf"^\s*(?:{pattern})(?=[\s;,.]|$)")
        anywhere = re.compile(rf"(?<![\w:<-])(?:{pattern})(?=[\s;,.)\]]|$)")
        for n, line in enumerate(text.splitlines(), 1):
            if m := starts.search(line):
                return Path(f), n, m.group(0).strip()
            if first is None and (m := anywhere.search(line)):
                first = (Path(f), n, m.group(0))
    return first


def _value_line(path: Path, start: int, value: str) -> int | None:
    """The first line of ``path`` from line ``start`` on that holds ``value`` as a quoted Turtle string,
    or, for a value that is an absolute IRI (a datatype), as that IRI written (``xsd:integr``, ``<...>``)."""
    escaped = value.replace("\\", "\\\\")
    quoted = [f'"{escaped.replace(chr(34), chr(92) + chr(34))}"', f"'{escaped.replace(chr(39), chr(92) + chr(39))}'"]
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    lines = text.splitlines()
    iri = None
    if re.fullmatch(r"[A-Za-z][\w+.-]*:[^\s<>\"]+", value):
        forms = "|".join(re.escape(w) for w in written_forms(value, text, path))
        iri = re.compile(rf"(?<![\w:<-])(?:{forms})(?=[\s;,.)\]]|$)")
    return next((n for n, line in enumerate(lines[start - 1:], start)
                 if any(q in line for q in quoted) or (iri is not None and iri.search(line))), None)


def at_triples_map(exc: InputError, files: list[Path]) -> InputError:
    """``exc`` given the file and line where the first TriplesMap its message names is written.

    Args:
        exc: an error whose message names ``TriplesMap <IRI>`` (others are returned as they are,
            and so is one that has a line already). Its ``key``, when given, is the value (template,
            reference, constant) the faulty term map is written with: the line is then the first
            from the TriplesMap's on that holds it quoted.
        files: the RML documents the user gave (Turtle), in order.
    Returns:
        An error of the same class, ``<file>:<line>: <message>``, a ``file:`` IRI of the
        TriplesMap (a name relative to the document, ``<#People>``) written as in the file;
        ``exc`` when no line is found.
    """
    m = _NAMED.search(str(exc))
    if exc.line is not None or m is None:
        return exc
    found = _line_of(m.group(1), files)
    if found is None:
        return exc
    if exc.key:  # the term map written with this value: its line, from the TriplesMap's on
        found = (found[0], _value_line(found[0], found[1], exc.key) or found[1], found[2])
    text = str(exc)
    prefix = f"{exc.path}: " if exc.path else ""
    text = text[len(prefix):] if prefix and text.startswith(prefix) else text
    if m.group(1).startswith("file:"):  # the user's folder is no part of the name they wrote
        text = text.replace(f"<{m.group(1)}>", found[2])
    out = type(exc)(text, path=found[0], line=found[1], key=exc.key)
    out.__cause__ = exc.__cause__
    return out
