"""Read an RDF file in the syntax its extension names (gold graphs, ``kgc score --kg``).

A gold KG may come from any tool, so it may be N-Triples, Turtle, N-Quads,
RDF/XML or JSON-LD. The syntax is taken from the file extension (like
rdflib's ``guess_format``, but with a closed list so that an unknown
extension is a clear input error instead of a parser guessing). Quads
(``.nq``, ``.trig``) are read as the union of their graphs: scoring compares
triples.
"""
from __future__ import annotations

from pathlib import Path

from rdflib import Dataset, Graph

from .errors import InputError

__all__ = ["RDF_FORMATS", "rdf_format", "load_graph"]

#: file extension -> rdflib parser name
RDF_FORMATS: dict[str, str] = {
    ".nt": "nt", ".ttl": "turtle", ".n3": "n3", ".nq": "nquads", ".trig": "trig",
    ".rdf": "xml", ".owl": "xml", ".xml": "xml", ".jsonld": "json-ld", ".json": "json-ld",
}
_QUADS = {"nquads", "trig"}


def rdf_format(path: str | Path) -> str | None:
    """rdflib parser name for ``path``'s extension (case-insensitive), ``None`` when unknown."""
    return RDF_FORMATS.get(Path(path).suffix.lower())


def load_graph(path: str | Path, what: str = "RDF file") -> Graph:
    """Parse an RDF file by its extension.

    Args:
        path: the file (``.nt .ttl .n3 .nq .trig .rdf .owl .xml .jsonld .json``).
        what: how error messages name the file (``"gold graph"``).
    Returns:
        A :class:`rdflib.Graph` with every triple (for quad syntaxes, of every graph).
    Raises:
        InputError: unknown extension (lists the known ones), missing file, or a syntax
            error (the parser's message, with the format it was read as).
    """
    path = Path(path)
    fmt = rdf_format(path)
    if fmt is None:
        raise InputError(f"{what}: unknown RDF syntax for extension {path.suffix or '(none)'!r}; "
                         f"expected one of {' '.join(sorted(RDF_FORMATS))}", path=path)
    if not path.is_file():
        raise InputError(f"{what}: file not found", path=path)
    try:
        if fmt in _QUADS:
            ds = Dataset()
            ds.parse(path, format=fmt)
            g = Graph()
            for s, p, o, _ in ds.quads((None, None, None, None)):
                g.add((s, p, o))
            return g
        return Graph().parse(path, format=fmt)
    except Exception as exc:  # rdflib raises parser-specific types
        raise InputError(f"{what}: not valid {fmt} ({type(exc).__name__}: {str(exc)[:300]})", path=path) from exc
