"""Subject IRI templates: parse ``{column}``, ``$(xpath)`` and ``$(replace(xpath,'a','b'))``.

Gold tables write templates as RML-style ``http://ex.org/person/{ID}``, as
prefixed names (``ex:agency/{agency_id}``) and, in scenario 3, with embedded
XPath expressions ``$(...)`` that may call ``replace(...)``. A template is
parsed into a list of :class:`Segment`; the compiler turns segments into an
``rml:template`` or, when a function is involved, into an FNML execution.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.table.cells import split_arguments

__all__ = ["Segment", "TemplateError", "parse_template", "placeholder", "expand_template_prefix", "FUNCTIONS", "closing_paren",
           "SCHEMES", "is_absolute_iri"]

#: IRI schemes whose IRIs have no ``//`` and are no prefixed names (RFC 8141, 6068, 4151, 2397 ...).
SCHEMES = frozenset({"urn", "mailto", "tag", "data", "tel", "did", "geo", "file", "http", "https", "ftp"})

_ABSOLUTE_IRI = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|(?:%s):)[^\s<>\"{}|\\^`]*$" % "|".join(sorted(SCHEMES)), re.I)


def is_absolute_iri(value: str) -> bool:
    """``value`` is an absolute IRI as written: a scheme followed by ``//`` (``http://``), or one of
    :data:`SCHEMES` (``urn:``, ``mailto:``), and no character RFC 3987 excludes (white space, ``<>"{}|\\^```).
    A prefixed name (``ex:a``) is none: its prefix is no scheme of :data:`SCHEMES`."""
    return bool(_ABSOLUTE_IRI.match(value))


#: Functions allowed inside ``$(...)`` and their argument count after the input.
FUNCTIONS = {"replace": 2}


class TemplateError(ValueError):
    """A template cannot be parsed (unbalanced braces/parentheses, unknown function)."""


@dataclass(frozen=True)
class Segment:
    """One piece of a template.

    Attributes:
        kind: ``const`` (text), ``ref`` (a reference's value) or ``call`` (a function of a reference).
        value: the text (``const``) or the reference (``ref``/``call``).
        function: function name for ``call`` (``replace``).
        args: constant arguments of the call, unquoted.
    """

    kind: str
    value: str
    function: str | None = None
    args: tuple[str, ...] = field(default_factory=tuple)

    def references(self) -> list[str]:
        """References this segment reads (``[]`` for constants)."""
        return [] if self.kind == "const" else [self.value]


def _split_args(text: str) -> list[str]:
    try:
        args = split_arguments(text)
    except ValueError as exc:
        raise TemplateError(str(exc)) from exc
    return args or [""]


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    raise TemplateError(f"expected a quoted string, found {text!r}")


def closing_paren(text: str, start: int) -> int:
    """Index of the ``)`` that closes the ``(`` at ``start`` (quotes respected).

    Raises:
        TemplateError: the parenthesis is never closed.
    """
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise TemplateError(f"unbalanced parentheses: '$(' at position {start - 1} is never closed")


def _expression(expr: str) -> Segment:
    m = re.match(r"^([A-Za-z_][\w\-]*)\s*\((.*)\)$", expr.strip(), re.S)
    if m and m.group(1) in FUNCTIONS:
        args = _split_args(m.group(2))
        if len(args) != 1 + FUNCTIONS[m.group(1)]:
            raise TemplateError(f"{m.group(1)}() takes {1 + FUNCTIONS[m.group(1)]} arguments, found {len(args)}")
        return Segment("call", args[0], m.group(1), tuple(_unquote(a) for a in args[1:]))
    if m and not expr.strip().startswith(("/", ".")) and "/" not in m.group(1):
        raise TemplateError(f"unknown function {m.group(1)!r} in $({expr}); known: {', '.join(FUNCTIONS)}")
    return Segment("ref", expr.strip())


def _placeholder_end(template: str, start: int) -> int:
    """Index of the ``}`` that closes the placeholder opened at ``start``, past the braces escaped in
    it (RML-Core templates: a brace that delimits no reference is written ``\\{``, ``\\}``, in a
    reference too: ``{\\{id\\}}`` reads the column ``{id}``); -1 when none does."""
    i = start + 1
    while i < len(template):
        if template[i] == "\\" and i + 1 < len(template):
            i += 2
            continue
        if template[i] == "}":
            return i
        i += 1
    return -1


def placeholder(name: str) -> str:
    """The placeholder of a template that reads the column or path ``name``: ``{name}``, its braces
    escaped (``{id}`` -> ``{\\{id\\}}``), which :func:`parse_template` reads back as ``name``."""
    return "{" + name.replace("{", "\\{").replace("}", "\\}") + "}"


def parse_template(template: str) -> list[Segment]:
    """Parse a subject template into segments.

    Args:
        template: e.g. ``http://ex.org/p/{ID}`` or ``http://x/codice_$(replace(/entry/id,'a',''))``; a
            brace that is text, outside a placeholder or in a column's name, is escaped: ``\\{``.
    Returns:
        Segments in order; adjacent constants merged.
    Raises:
        TemplateError: unbalanced ``{}``/``$()``, empty variable, unknown function.
    """
    segments: list[Segment] = []
    i, const = 0, ""
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template) and template[i + 1] in "{}":
            const += template[i + 1]
            i += 2
            continue
        if template.startswith("$(", i):
            end = closing_paren(template, i + 1)
            if const:
                segments.append(Segment("const", const))
                const = ""
            inner = template[i + 2:end]
            if not inner.strip():
                raise TemplateError("empty $() expression")
            segments.append(_expression(inner))
            i = end + 1
            continue
        if ch == "{":
            end = _placeholder_end(template, i)
            if end < 0:
                raise TemplateError(f"unbalanced braces: '{{' at position {i} is never closed")
            name = re.sub(r"\\([{}])", r"\1", template[i + 1:end]).strip()
            if not name:
                raise TemplateError(f"empty variable '{{}}' at position {i}")
            if const:
                segments.append(Segment("const", const))
                const = ""
            segments.append(Segment("ref", name))
            i = end + 1
            continue
        if ch == "}":
            raise TemplateError(f"unbalanced braces: '}}' at position {i} has no opening '{{'")
        const += ch
        i += 1
    if const:
        segments.append(Segment("const", const))
    return segments


def expand_template_prefix(template: str, prefixes: dict[str, str]) -> str:
    """Expand a leading ``prefix:`` of a template (``ex:agency/{id}``) with ``prefixes``.

    Templates that already start with a scheme (``http://``) or an unknown
    prefix are returned unchanged.
    """
    m = re.match(r"^([A-Za-z][\w\-]*):(?!//)", template)
    if m and m.group(1) in prefixes:
        return prefixes[m.group(1)] + template[m.end():]
    return template
