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
which go through the materialize guards (:mod:`pipeline.materialize.guard`) as
in a plain run. Cost: one engine run in all, instead of one per TriplesMap; the only
extra is the graph term on each output line. A mapping with graph maps of its own cannot be
tagged (:func:`event_mapping` raises :class:`MaterializeError`; the compiler emits none): it
runs untagged and CN4 is reported not run.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Callable

from rdflib import BNode, Graph, URIRef
from rdflib.namespace import RDF

from pipeline.compile.rml import RML
from pipeline.errors import MaterializeError
from pipeline.materialize.materializer import MaterializeResult, materialize

__all__ = ["EVENT_GRAPH", "event_mapping", "materialize_with_events"]

#: Prefix of the named graphs that tag each TriplesMap's output.
EVENT_GRAPH = "urn:kgc:cn4:"
#: an event graph term after a statement in a finding's examples
_EVENT_TERM = re.compile(r" <" + re.escape(EVENT_GRAPH) + r"\d+>")
_RDF_TYPE = f"<{RDF.type}>"


def event_mapping(engine_rml: Graph) -> tuple[Graph, dict[str, str]]:
    """Copy of ``engine_rml`` with a graph map ``<urn:kgc:cn4:N>`` on each TriplesMap's subject map.

    Returns:
        ``(mapping, graphs)``: the tagged mapping and ``{graph IRI: TriplesMap IRI}``.
    Raises:
        MaterializeError: the mapping has graph maps of its own.
    """
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


def materialize_with_events(engine_rml: Graph, work_dir: Path, processes: int = 1,
                            locate: Callable[[str, str], tuple[str, int | None]] | None = None,
                            shown_as: str | None = None):
    """One guarded Morph-KGC run that yields the KG and the CN4 generation events.

    The tagged copy of the mapping (:func:`event_mapping`) runs through
    :func:`pipeline.materialize.materializer.materialize` (engine corrections, guards, explained errors);
    each kept statement's graph names the TriplesMap that generated it, and dropping the
    graph gives the KG. A mapping with graph maps of its own cannot be tagged: it runs
    untagged and ``events`` is ``None`` (CN4 not run).

    Args:
        engine_rml: the engine copy of the mapping (:func:`pipeline.materialize.rml.normalize.normalize_rml`).
        work_dir: folder for the tagged mapping (``mapping.cn4.ttl``; created).
        processes, locate: as for :func:`pipeline.materialize.materializer.materialize`.
        shown_as: the mapping file findings name instead of the tagged copy (the user's RML).
    Returns:
        ``(result, events)``: the :class:`pipeline.materialize.materializer.MaterializeResult` of the KG, and
        ``[(event_id, {N-Triples statement, ...}), ...]`` sorted by id over the KG's statements
        (what the guards drop belongs to no event), or ``None``.
    Raises:
        RMLError, MaterializeError: as :func:`pipeline.materialize.materializer.materialize`.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        tagged, graphs = event_mapping(engine_rml)
    except MaterializeError:  # graph maps of the user's own: keep them, no events
        path = work_dir / "mapping.ttl"
        engine_rml.serialize(path, format="turtle")
        return materialize(path, processes=processes, locate=locate), None
    path = work_dir / "mapping.cn4.ttl"
    tagged.serialize(path, format="turtle")
    run = materialize(path, processes=processes, locate=locate)
    marker = f" <{EVENT_GRAPH}"
    triples: set[str] = set(run.triples)
    by_event: dict[str, set[str]] = {}
    for quad in run.quads:
        body, sep, tail = quad.rstrip(" .").rpartition(marker)
        if not sep:  # cannot happen (every subject map is tagged); keep the statement as it is
            triples.add(quad)
            continue
        tm = graphs.get(f"{EVENT_GRAPH}{tail.rstrip('>')}")
        line = body + " ."
        triples.add(line)
        pred = body.split(" ", 2)[1]
        key = f"{tm}#class" if pred == _RDF_TYPE else f"{tm}#{pred[1:-1]}"
        by_event.setdefault(key, set()).add(line)
    # the tagging is internal: findings show the statements without their event graph, and name the
    # user's mapping rather than the tagged copy
    findings = [replace(f, value=_EVENT_TERM.sub("", f.value) if f.value else f.value,
                        file=shown_as if shown_as and f.file == str(path) else f.file) for f in run.findings]
    result = MaterializeResult(sorted(triples), findings=findings, dropped=run.dropped)
    return result, sorted(by_event.items())
