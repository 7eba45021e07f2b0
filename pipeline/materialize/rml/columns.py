"""The CSV columns an RML mapping reads, checked against each file's header before anything runs.

A reference to a column the file lacks is a mapping error, not a data error: every record would
give no term. The engine finds it only while it runs (pandas' ``usecols``), one rule at a time; this
pass finds every such reference at once, from the mapping and the files' first lines, so that a
mapping written by hand (RML or YARRRML) is refused where it was written.

What a TriplesMap over a CSV logical source reads (RML-Core, section "References"): ``rml:reference``
and the ``{...}`` placeholders of ``rml:template`` on its term maps, function inputs and language
maps, and ``rml:child`` of its join conditions; ``rml:parent`` is read from the parent TriplesMap's
source. Sources that are not local CSV files, and files whose header cannot be read, are left to the
loaders (they report them with their own line).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.term import Node

from pipeline.materialize.rml.check import mapping_nodes, triples_maps
from pipeline.materialize.rml.vocabulary import RML
from pipeline.materialize.views.view import template_references
from pipeline.sources.engine_copy import csv_dialect

__all__ = ["AbsentColumn", "absent_columns"]

_CSV = {str(RML.CSV), "http://semweb.mmlab.be/ns/ql#CSV"}


@dataclass(frozen=True)
class AbsentColumn:
    """One reference to a column a CSV file lacks.

    Attributes:
        triples_map: the TriplesMap whose rule reads it. node: the term map, join condition or
            function input holding the reference. name: the column name. file: the CSV file (as
            the mapping names it). header: the file's columns, in order.
    """

    triples_map: Node
    node: Node
    name: str
    file: str
    header: tuple[str, ...]


def _header(path: Path) -> tuple[str, ...] | None:
    """The first record of a CSV file (UTF-8, a byte-order mark skipped, its separator detected as
    every reader of kgc detects it: :func:`~pipeline.sources.engine_copy.csv_dialect`), ``None`` when
    unreadable."""
    try:
        delimiter, _ = csv_dialect(path)
        with path.open(encoding="utf-8-sig", newline="") as f:
            return tuple(next(csv.reader(f, delimiter=delimiter), []))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def _csv_file(g: Graph, tm: Node, base: Path) -> tuple[str, Path] | None:
    """``(name as written, path)`` of the local CSV file ``tm`` reads, else ``None``."""
    ls = g.value(tm, RML.logicalSource)
    src = g.value(ls, RML.source) if ls is not None else None
    if not isinstance(src, Literal):  # a source description (RML-IO), a database ...: the loaders' business
        return None
    formulation = g.value(ls, RML.referenceFormulation)
    if str(formulation) not in _CSV and not (formulation is None and str(src).lower().endswith(".csv")):
        return None
    path = Path(str(src))
    path = path if path.is_absolute() else base / path
    return (str(src), path) if path.is_file() else None


def _reads(g: Graph, node: Node) -> list[tuple[str, bool]]:
    """``(column, on the parent side)`` for each reference ``node`` itself holds."""
    out: list[tuple[str, bool]] = []
    for value in g.objects(node, RML.reference):
        out.append((str(value), False))
    for value in g.objects(node, RML.template):
        out += [(name, False) for name in template_references(str(value)) if name]
    out += [(str(v), False) for v in g.objects(node, RML.child)]
    out += [(str(v), True) for v in g.objects(node, RML.parent)]
    return out


def absent_columns(g: Graph, base: str | Path) -> list[AbsentColumn]:
    """Every reference of ``g`` (RML-Core vocabulary) to a column its CSV file lacks.

    Args:
        g: the mapping. base: the folder relative ``rml:source`` paths are relative to.
    Returns:
        One :class:`AbsentColumn` per (TriplesMap, node, column), in the order of the TriplesMaps
        and then of the nodes' walk; empty when every CSV reference names a column of its file.
    """
    base = Path(base)
    headers: dict[Path, tuple[str, ...] | None] = {}

    def header_of(tm: Node) -> tuple[str, tuple[str, ...]] | None:
        found = _csv_file(g, tm, base)
        if found is None:
            return None
        if found[1] not in headers:
            headers[found[1]] = _header(found[1])
        return None if headers[found[1]] is None else (found[0], headers[found[1]])

    out: list[AbsentColumn] = []
    for tm in triples_maps(g):
        own = header_of(tm)
        seen: set[Node] = set()
        for node in mapping_nodes(g, tm, seen):
            for name, parent_side in _reads(g, node):
                side = own
                if parent_side:
                    om = next(iter(g.subjects(RML.joinCondition, node)), None)
                    parent = g.value(om, RML.parentTriplesMap) if om is not None else None
                    side = header_of(parent) if parent is not None else None
                if side is not None and name not in side[1]:
                    out.append(AbsentColumn(tm, node, name, side[0], side[1]))
    return out
