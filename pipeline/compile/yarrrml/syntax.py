"""YARRRML's lexical layer: the YAML document with line numbers, and the values written in it.

* :func:`load_document` reads YAML keeping every scalar as the text written (``yes``, ``2.1``,
  ``007`` stay strings, as in yarrrml-parser's YAML reader; only ``null``/``~``/nothing is
  ``None``), every mapping as a :class:`Node` that remembers the line of each key.
* :func:`split_value` splits a YARRRML value into text and ``$(reference)`` parts (spec section 5,
  templates): ``\\$(`` is a literal ``$(``; inside a reference ``\\(`` and ``\\)`` are parentheses.
  A reference ends at the ``)`` that balances its ``$(`` (so ``$(concat(a,b))`` is one
  reference); when none balances it, at the first unescaped ``)``, as yarrrml-parser reads it.
* :func:`function_shortcut` reads ``grel:toUpperCase(grel:valueParameter = $(name))``.
"""
from __future__ import annotations

import yaml

from pipeline.table.cells import split_arguments

__all__ = ["Node", "Seq", "load_document", "line_of", "split_value", "is_function_shortcut", "function_shortcut",
           "escape_reference"]


class Node(dict):
    """A YAML mapping; ``lines`` maps each key to its 1-based line, ``line`` is the mapping's own."""

    line: int | None = None
    lines: dict


class Seq(list):
    """A YAML sequence with its 1-based ``line``."""

    line: int | None = None


class _Loader(yaml.SafeLoader):
    """SafeLoader whose scalars are strings (but for null) and whose collections know their lines."""


# only null is resolved implicitly: booleans, numbers and dates stay the text the author wrote
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag == "tag:yaml.org,2002:null"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def _mapping(loader: _Loader, node: yaml.MappingNode) -> Node:
    out = Node()
    out.line = node.start_mark.line + 1
    out.lines = {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> Seq:
    out = Seq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load_document(text: str):
    """The YAML document ``text`` (see the module docstring).

    Raises:
        yaml.YAMLError: not YAML (``problem_mark`` has the line).
        RecursionError: collections nested too deeply for the YAML composer.
    """
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader


def line_of(container, key=None) -> int | None:
    """The line of ``key`` in a :class:`Node` (else of the container itself), ``None`` if unknown."""
    if isinstance(container, Node) and key is not None and key in container.lines:
        return container.lines[key]
    return getattr(container, "line", None)


def _close(text: str, start: int) -> int | None:
    """Index of the ``)`` closing the ``$(`` whose ``(`` is at ``start``: balanced, else the first
    unescaped ``)``; ``None`` when there is none."""
    depth, first, i = 0, None, start
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "()":
            i += 2
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            first = i if first is None else first
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return first


def split_value(text: str) -> list[tuple[str, str]]:
    """A YARRRML value -> ``[("text", s) | ("ref", reference)]`` (see the module docstring).

    Raises:
        ValueError: a ``$(`` that no ``)`` closes.
    """
    parts: list[tuple[str, str]] = []
    buf: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("\\$(", i):
            buf.append("$(")
            i += 3
        elif text.startswith("$(", i):
            end = _close(text, i + 1)
            if end is None:
                raise ValueError(f"'$(' at position {i + 1} of {text!r} is never closed by ')'")
            if buf:
                parts.append(("text", "".join(buf)))
                buf = []
            parts.append(("ref", text[i + 2:end].replace("\\(", "(").replace("\\)", ")")))
            i = end + 1
        else:
            buf.append(text[i])
            i += 1
    if buf:
        parts.append(("text", "".join(buf)))
    return parts


def escape_reference(reference: str) -> str:
    """``reference`` as written inside ``$( )``: its parentheses escaped, so that every reader
    (yarrrml-parser ends a reference at the first ``)``) reads the same reference."""
    return reference.replace("(", "\\(").replace(")", "\\)")


def is_function_shortcut(text: str) -> bool:
    """``name(...)``: a function called with its parameters inline (yarrrml-parser's test)."""
    return "(" in text and text.rfind(")") > text.find("(") and not text.startswith("$(")


def function_shortcut(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``fn(p1 = v1, p2 = "v2")`` -> ``(fn, [(p1, v1), (p2, v2)])``.

    A parameter without a prefix takes the function's (``grel:toUpperCase(valueParameter = ...)``);
    quotes around a value are dropped. Commas inside ``$( )`` or quotes do not split.

    Raises:
        ValueError: a parameter without ``=``, a quoted string never closed.
    """
    name = text[:text.find("(")].strip()
    inner = text[text.find("(") + 1:text.rfind(")")]
    prefix = name.split(":", 1)[0] if ":" in name else ""
    params = []
    for arg in split_arguments(inner):  # the table's function cells split the same way
        if "=" not in arg:
            raise ValueError(f"parameter {arg.strip()!r} of {text!r} has no '= value'")
        param, value = (s.strip() for s in arg.split("=", 1))
        if ":" not in param and prefix:
            param = f"{prefix}:{param}"
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        params.append((param, value))
    return name, params
