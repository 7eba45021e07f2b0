"""CN4 statement-generation events from the one engine run that also builds the KG.

An event is one TriplesMap's class assertions (``<TM>#class``) or one of its predicates
(``<TM>#<predicate IRI>``); two predicate-object maps of a TriplesMap with the same
predicate form one event (:func:`pipeline.scoring.mapping.check_cn4` counts the events
whose statements another event also produces).

How: the engine copy of the mapping gets one graph map per TriplesMap on its subject map
(``rml:graphMap [ rml:constant <urn:kgc:cn4:N> ]``). By R2RML/RML-Core, a subject map's
graph map puts every triple of that TriplesMap (class assertions and predicate-object
maps, joins included) into that named graph, so one Morph-KGC run in N-Quads says which
TriplesMap produced each statement. Dropping the graph term gives the KG's triples,
which go through the materialize guards (:func:`pipeline.materialize.guard_triples`) as
in a plain run. Cost: one engine run in all, instead of one per TriplesMap; the only
extra is the graph term on each output line. A mapping with graph maps of its own is
rejected (:class:`MaterializeError`): the compiler emits none, and the tag would be ambiguous.
"""
from __future__ import annotations

import configparser
import io
from pathlib import Path
from typing import Callable

from rdflib import BNode, Graph, URIRef
from rdflib.namespace import RDF, XSD

from ...errors import MaterializeError

__all__ = ["EVENT_GRAPH", "event_mapping", "materialize_with_events"]

#: Prefix of the named graphs that tag each TriplesMap's output.
EVENT_GRAPH = "urn:kgc:cn4:"
_RDF_TYPE = f"<{RDF.type}>"


def event_mapping(engine_rml: Graph) -> tuple[Graph, dict[str, str]]:
    """Copy of ``engine_rml`` with a graph map ``<urn:kgc:cn4:N>`` on each TriplesMap's subject map.

    Returns:
        ``(mapping, graphs)``: the tagged mapping and ``{graph IRI: TriplesMap IRI}``.
    Raises:
        MaterializeError: the mapping has graph maps of its own.
    """
    from ...compile.rml import RML

    if any(engine_rml.triples((None, RML.graphMap, None))) or any(engine_rml.triples((None, RML.graph, None))):
        raise MaterializeError("CN4: the mapping has graph maps of its own; generation events cannot be tagged")
    g = Graph()
    for prefix, ns in engine_rml.namespaces():
        g.bind(prefix, ns)
    for t in engine_rml:
        g.add(t)
    graphs: dict[str, str] = {}
    for i, tm in enumerate(sorted(set(engine_rml.subjects(RDF.type, RML.TriplesMap)))):
        iri = f"{EVENT_GRAPH}{i}"
        graphs[iri] = str(tm)
        for sm in engine_rml.objects(tm, RML.subjectMap):
            gm = BNode()
            g.add((sm, RML.graphMap, gm))
            g.add((gm, RML.constant, URIRef(iri)))
    return g, graphs


def materialize_with_events(engine_rml: Graph, work_dir: Path, source_values: set[str], processes: int = 1,
                            locate: Callable[[str], tuple[str, int | None]] | None = None):
    """One Morph-KGC run that yields the guarded KG and the CN4 generation events.

    Args:
        engine_rml: the engine copy of the mapping (:func:`pipeline.materialize.engine_mapping`).
        work_dir: folder for the tagged mapping (``mapping.cn4.ttl``; created).
        source_values, processes, locate: as for :func:`pipeline.materialize.materialize`.
    Returns:
        ``(result, events)``: the :class:`pipeline.materialize.MaterializeResult` of the guarded
        triples (the KG), and ``[(event_id, {N-Triples statement, ...}), ...]`` sorted by id,
        over the KG's statements (what the guards drop belongs to no event; an event left
        without statements is no event, as when each TriplesMap ran alone).
    Raises:
        MaterializeError: Morph-KGC failed, or the mapping has graph maps of its own.
    """
    import morph_kgc

    from ...fno import UDF_FILE
    from ...materialize import ENGINE_INTEGER, guard_triples

    work_dir.mkdir(parents=True, exist_ok=True)
    tagged, graphs = event_mapping(engine_rml)
    path = work_dir / "mapping.cn4.ttl"
    tagged.serialize(path, format="turtle")
    config = configparser.ConfigParser()
    config["CONFIGURATION"] = {"output_format": "N-QUADS", "udfs": str(UDF_FILE),
                               "number_of_processes": str(processes), "logging_level": "ERROR", "na_values": ","}
    config["DataSource1"] = {"mappings": str(path)}
    buf = io.StringIO()
    config.write(buf)
    try:
        quads = morph_kgc.materialize_set(buf.getvalue())
    except SystemExit as exc:  # Morph-KGC exits on some mapping errors
        raise MaterializeError(f"Morph-KGC stopped on {path}: exit {exc.code}") from exc
    except Exception as exc:  # the engine raises many unrelated types; the message is what matters
        raise MaterializeError(f"Morph-KGC failed on {path}: {type(exc).__name__}: {exc}") from exc
    marker = f" <{EVENT_GRAPH}"
    triples: set[str] = set()
    by_event: dict[str, set[str]] = {}
    for quad in quads:
        body, sep, tail = quad.rstrip(" .").rpartition(marker)
        if not sep:  # a statement outside the tagged graphs: keep it in the KG, attribute it to nothing
            triples.add(quad)
            continue
        tm = graphs.get(f"{EVENT_GRAPH}{tail.rstrip('>')}")
        line = body + " ."
        triples.add(line)
        pred = body.split(" ", 2)[1]
        key = f"{tm}#class" if pred == _RDF_TYPE else f"{tm}#{pred[1:-1]}"
        by_event.setdefault(key, set()).add(line)
    result = guard_triples(sorted(triples), source_values, str(path), locate)
    kept = set(result.triples)
    engine_integer, integer = f"<{ENGINE_INTEGER}>", f"<{XSD.integer}>"
    as_kept: dict[str, str | None] = {}

    def written(line: str) -> str | None:
        """The KG statement an engine statement became (integers restored, white space trimmed), or None."""
        plain = line.replace(engine_integer, integer)
        if plain in kept:
            return plain
        if line not in as_kept:  # dropped or repaired by a guard: ask the guard about this one line
            alone = guard_triples([line], source_values, str(path)).triples
            as_kept[line] = alone[0] if alone else None
        return as_kept[line]

    events = []
    for key, lines in sorted(by_event.items()):
        statements = {w for w in map(written, lines) if w is not None}
        if statements:
            events.append((key, statements))
    return result, events
