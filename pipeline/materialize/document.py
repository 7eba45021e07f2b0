"""Materialize a normalised RML document: the engine, what is computed beside it, and its logical targets.

:func:`materialize_document` is what ``kgc materialize`` runs on the result of
:func:`pipeline.materialize.rml.normalize.normalize_rml`:

* the engine copy through :func:`pipeline.materialize.materializer.materialize` (Morph-KGC and
  the output guards);
* RML-CC collections (:mod:`pipeline.materialize.gather`), guarded with the engine's statements;
* RML-IO logical targets (:mod:`pipeline.materialize.targets`): one engine run per target, with
  the TriplesMaps of that target asserted, written in the target's serialization, compression
  and encoding; the statements without a target go to the output file (the default target).
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph
from rdflib import Graph
from rdflib.namespace import RDF

from pipeline.materialize.gather import GatherPlan, gather_statements
from pipeline.materialize.materializer import MaterializeResult, guard_triples, materialize
from pipeline.materialize.rml.check import triples_maps
from pipeline.materialize.rml.normalize import Normalized
from pipeline.materialize.rml.vocabulary import RML
from pipeline.materialize.targets import LogicalTarget, check_target_paths, write_target

__all__ = ["DocumentResult", "materialize_document"]


@dataclass
class DocumentResult:
    """The default output's :class:`~pipeline.materialize.materializer.MaterializeResult` and the
    logical targets written.

    Attributes:
        result: the default target (the output file); its findings include every target's.
        targets: ``(logical target, file written, statements)`` per logical target.
    """

    result: MaterializeResult
    targets: list[tuple[LogicalTarget, Path, int]] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        return self.result.dropped


def _variant(g: Graph, asserted: set[str]) -> Graph:
    """A copy of the engine graph in which only the TriplesMaps ``asserted`` are asserted."""
    out = Graph()
    for t in g:
        out.add(t)
    for tm in triples_maps(g):
        if (tm, RDF.type, RML.NonAssertedTriplesMap) in g or str(tm) in asserted:
            continue
        out.remove((tm, RDF.type, RML.TriplesMap))
        out.remove((tm, RDF.type, RML.AssertedTriplesMap))
        out.add((tm, RDF.type, RML.NonAssertedTriplesMap))
    return out


def _run(graph: Graph, engine_file: Path, output: Path, fmt: str | None, extra: list[str] | None, processes: int,
         locate, overlap: bool, columnar: bool = True) -> MaterializeResult:
    """The engine on ``engine_file`` (the serialization of ``graph``) plus ``extra``; without an
    asserted TriplesMap (all computed beside the engine) only ``extra``, guarded the same way."""
    if any((tm, RDF.type, RML.NonAssertedTriplesMap) not in graph for tm in triples_maps(graph)):
        return materialize(engine_file, processes=processes, output=output, fmt=fmt, locate=locate,
                           overlap=overlap, extra=extra, columnar=columnar)
    result = guard_triples(extra or [], str(engine_file), locate)
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    result.write(output, fmt)
    result.n_triples, result.n_quads, result.path = len(result.triples), len(result.quads), Path(output)
    result.triples, result.quads = [], []
    return result


def materialize_document(norm: Normalized, engine_file: Path, output: Path, fmt: str | None = None,
                         processes: int = 1, locate: Callable[[str, str], tuple[str, int | None]] | None = None,
                         overlap: bool = False, columnar: bool = True) -> DocumentResult:
    """Materialize a normalised RML document (engine copy already written to ``engine_file``).

    Args:
        norm: the normalised document (its gather maps and logical targets, if any).
        engine_file: the engine copy of ``norm.graph``.
        output: the default target; fmt: its syntax (``nt``, ``nq``, ``trig``).
        processes, locate, overlap, columnar: as for :func:`~pipeline.materialize.materializer.materialize`.
    Returns:
        A :class:`DocumentResult`.
    Raises:
        RMLError, MaterializeError: as :func:`~pipeline.materialize.materializer.materialize`; a
            gather map that cannot be evaluated.
    """
    plan = norm.targets
    if plan is None:
        extra = gather_statements(norm.gathers) if norm.gathers is not None else None
        return DocumentResult(_run(norm.graph, engine_file, output, fmt, extra, processes, locate, overlap, columnar))
    check_target_paths(plan, Path(output))
    written: list[tuple[LogicalTarget, Path, int]] = []
    findings: list = []
    default: MaterializeResult | None = None
    dropped = 0
    # one engine run per distinct set of asserted TriplesMaps: targets that take the same
    # statements (and the default target) share it
    runs: dict[frozenset, list] = {}
    for key in [None, *plan.targets]:
        asserted = frozenset(tm for tm, ts in plan.assignment.items() if (key in ts if key is not None else not ts))
        runs.setdefault(asserted, []).append(key)
    with tempfile.TemporaryDirectory(prefix=".kgc-targets-", dir=Path(output).resolve().parent) as tmp:
        for i, (asserted, keys) in enumerate(runs.items()):
            variant = engine_file.with_name(f"{engine_file.stem}.target{i}.ttl")
            graph = _variant(norm.graph, set(asserted))
            graph.serialize(variant, format="turtle")
            extra = None
            if norm.gathers is not None:
                rules = [r for r in norm.gathers.rules if str(r[0]) in asserted]
                extra = gather_statements(GatherPlan(norm.gathers.graph, rules, norm.gathers.where)) if rules else None
            quads = Path(tmp) / f"target{i}.nq"
            try:
                r = _run(graph, variant, quads, "nq", extra, processes, locate, overlap, columnar)
            finally:
                variant.unlink(missing_ok=True)
            dropped += r.dropped
            for key in keys:
                if key is None:
                    default = r
                    _write_default(quads, Path(output), fmt)
                    r.path = Path(output)
                else:
                    target = plan.targets[key]
                    written.append((target, write_target(quads, target), r.n_triples + r.n_quads))
            if None not in keys:
                findings += [f for f in r.findings if "yields no triple" not in f.message]
    default.dropped = dropped
    default.findings += findings
    return DocumentResult(default, written)


def _write_default(quads: Path, output: Path, fmt: str | None) -> None:
    """The default target's file from the N-Quads of its run: as they are (``nq``), the default
    graph only (``nt``), or TriG."""
    output.parent.mkdir(parents=True, exist_ok=True)
    fmt = fmt or {".nq": "nq", ".trig": "trig"}.get(output.suffix, "nt")
    if fmt == "nq":
        shutil.copyfile(quads, output)
        return
    parsed = pyoxigraph.parse(str(quads), "application/n-quads")
    with open(output, "wb") as out:
        if fmt == "trig":
            pyoxigraph.serialize(parsed, out, "application/trig")
        else:
            pyoxigraph.serialize((pyoxigraph.Triple(q.subject, q.predicate, q.object) for q in parsed
                                  if isinstance(q.graph_name, pyoxigraph.DefaultGraph)), out, "application/n-triples")
