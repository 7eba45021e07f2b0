"""YARRRML (https://rml.io/yarrrml/spec/), the YAML form of RML, in both directions.

* :mod:`.read`: a YARRRML document -> the RML kgc runs (RML-Core + RML-FNML), a reader of the
  specification's syntax with its shortcuts; what kgc does not run is refused by name (exit 2);
* :mod:`.write`: the RML kgc compiles -> YARRRML that kgc and yarrrml-parser both read;
* :mod:`.syntax`: YAML with line numbers, templates and references, function shortcuts;
* :mod:`.prefixes`: the predefined prefixes (RDFa 1.1 initial context) and prefixed names.
"""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph

from pipeline.compile.yarrrml.read import YarrrmlMapping, parse_yarrrml
from pipeline.compile.yarrrml.write import to_yarrrml
from pipeline.errors import InputError, not_utf8_error

__all__ = ["to_yarrrml", "from_yarrrml", "read_yarrrml", "load_yarrrml", "YarrrmlMapping", "SUFFIXES"]

#: File suffixes read as YARRRML (yarrrml-parser's tests use all of them).
SUFFIXES = (".yarrrml", ".yml", ".yaml")


def from_yarrrml(text: str, base: str | Path = ".") -> Graph:
    """The RML graph of the YARRRML document ``text`` (relative ``access`` paths relative to ``base``).

    Raises:
        InputError: see :func:`~pipeline.compile.yarrrml.read.parse_yarrrml`.
    """
    return parse_yarrrml(text, base).graph


def load_yarrrml(path: str | Path, *, prefixes: dict[str, str] | None = None,
                 base_iri: str | None = None) -> YarrrmlMapping:
    """Read the YARRRML file ``path`` (relative ``access`` paths relative to its folder).

    Args:
        path: the file. prefixes: prefixes known besides the predefined ones (a manifest's).
        base_iri: the base IRI of relative IRIs when the document has no ``base``.
    Raises:
        InputError: unreadable file or content kgc does not run (the message names the file and line).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the YARRRML file: {exc.strerror}", path=p) from exc
    except UnicodeDecodeError as exc:
        raise not_utf8_error(p, exc) from exc
    return parse_yarrrml(text, p.resolve().parent, path=p, prefixes=prefixes, base_iri=base_iri)


def read_yarrrml(path: str | Path) -> Graph:
    """:func:`load_yarrrml`'s RML graph.

    Raises:
        InputError: see :func:`load_yarrrml`.
    """
    return load_yarrrml(path).graph
