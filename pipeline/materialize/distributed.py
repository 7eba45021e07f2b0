"""Distributed materialization: Morph-KGC on Dask workers, one partition of the sources each.

Why Dask (``distributed``) rather than Spark: the engine (Morph-KGC), the guards and the
FnO functions are Python; Dask runs Python functions on Python worker processes as they
are, with no JVM-Python serialization and no Spark runtime (about 300 MB) to install, and
its ``LocalCluster`` (tests, one machine) and a scheduler URL (``--master tcp://host:8786``,
a cluster) are the same code path. The work splits into independent engine runs, which
needs a task scheduler, not Spark's dataframe engine.

Plan (:func:`plan_partitions`), for ``N`` partitions of an engine mapping:

* **Sources**: each CSV source is split by row ranges into ``N`` files (``csv`` module, so
  quoted newlines stay inside their row; every part keeps the header). XML and JSON
  documents are not split: a TriplesMap over one is asserted in one partition only
  (chosen by a stable hash of its path), and left out of the others.
* **Joins: the parent side is broadcast.** In every partition, each join's
  ``rml:parentTriplesMap`` is repointed to a non-asserted copy of the parent TriplesMap
  that reads the *whole* parent source, so a child row finds its parent whatever
  partition it falls in; the parent's own triples still come from its partitions.
* **Workers** run :func:`pipeline.materialize.materializer.materialize` (Morph-KGC, then the output
  guards, :mod:`pipeline.materialize.guard`) on their partition's mapping and
  write ``part-NNNNN.nt`` (sorted, unique statements).
* **Merge**: the sorted parts are merged (``heapq.merge``, streaming, memory O(parts))
  and duplicate statements removed, so the merged file is the single-process output,
  byte for byte. Guard drop counts are summed over partitions (a statement dropped in
  two partitions counts twice).

The partition files live under ``<output>.parts/``: on a cluster that folder (and the
sources) must be on storage every worker can read, e.g. a shared file system.
"""
from __future__ import annotations

import csv
import hashlib
import heapq
import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.errors import InputError, MaterializeError
from pipeline.findings import Finding
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.vocabulary import RML

__all__ = ["DistributedResult", "plan_partitions", "materialize_distributed"]

LOGGER = logging.getLogger(__name__)
_DROPPED = re.compile(r"^(\d+) (.*)$")


@dataclass
class DistributedResult:
    """Outcome of a distributed run.

    Attributes:
        merged: the merged N-Triples file; parts: the per-partition files.
        triples: statements in ``merged``; dropped: guard drops summed over partitions.
        findings: the guards' findings, counts summed over partitions.
        timings: seconds per phase (``plan``, ``cluster``, ``workers``, ``merge``).
        partitions: partitions run; workers: Dask workers used; broadcast: join parents broadcast.
    """

    merged: Path
    parts: list[Path] = field(default_factory=list)
    triples: int = 0
    dropped: int = 0
    findings: list[Finding] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    partitions: int = 0
    workers: int = 0
    broadcast: int = 0


def _split_csv(path: Path, n: int, out: Path) -> list[Path]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    size = -(-len(body) // n) if body else 0
    tag = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    parts = []
    for i in range(n):
        part = out / f"p{i:05d}" / f"{path.stem}-{tag}{path.suffix}"
        part.parent.mkdir(parents=True, exist_ok=True)
        with open(part, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(body[i * size:(i + 1) * size])
        parts.append(part)
    return parts


def _copy_node(g: Graph, node: Any, into: Graph) -> Any:
    """Deep copy of a blank-node subtree of ``g`` into ``into`` (IRIs are shared, not copied)."""
    if not isinstance(node, BNode):
        return node
    new = BNode()
    for p, o in g.predicate_objects(node):
        into.add((new, p, _copy_node(g, o, into)))
    return new


def plan_partitions(engine_rml: Graph, n: int, work: Path) -> tuple[list[Graph], int]:
    """One mapping per partition (see the module docstring).

    Args:
        engine_rml: the engine copy of a compiled mapping (absolute ``rml:source`` paths).
        n: partitions (>= 1).
        work: folder for the partitioned source files (created).
    Returns:
        ``(mappings, broadcast)``: ``n`` mapping graphs, and the number of join parents broadcast.
    Raises:
        InputError: a source file of the mapping does not exist.
    """
    maps = sorted(set(engine_rml.subjects(RDF.type, RML.TriplesMap)))
    source_of = {tm: engine_rml.value(engine_rml.value(tm, RML.logicalSource), RML.source) for tm in maps}
    split: dict[str, list[Path]] = {}
    owner: dict[str, int] = {}
    for tm, src in source_of.items():
        path = Path(str(src))
        if not path.is_file():
            raise InputError("source file of the mapping not found", path=path)
        key = str(path)
        if key in split or key in owner:
            continue
        fmt = engine_rml.value(engine_rml.value(tm, RML.logicalSource), RML.referenceFormulation)
        if fmt == RML.CSV and n > 1:
            split[key] = _split_csv(path, n, work)
        else:  # a document: one partition reads it whole
            owner[key] = int(hashlib.sha1(key.encode()).hexdigest(), 16) % n
    parents = sorted(set(engine_rml.objects(None, RML.parentTriplesMap)))
    mappings = []
    for i in range(n):
        g = Graph()
        for prefix, ns in engine_rml.namespaces():
            g.bind(prefix, ns)
        for t in engine_rml:
            g.add(t)
        for tm, src in source_of.items():
            key = str(src)
            ls = g.value(tm, RML.logicalSource)
            if key in split:
                g.set((ls, RML.source, Literal(str(split[key][i]))))
            elif owner[key] != i:
                g.remove((tm, RDF.type, RML.TriplesMap))
                g.add((tm, RDF.type, RML.NonAssertedTriplesMap))
        for parent in parents:  # broadcast: joins read the parent's whole source
            full = URIRef(f"{parent}__broadcast")
            g.add((full, RDF.type, RML.NonAssertedTriplesMap))
            g.add((full, RML.logicalSource, _copy_node(engine_rml, engine_rml.value(parent, RML.logicalSource), g)))
            g.add((full, RML.subjectMap, _copy_node(engine_rml, engine_rml.value(parent, RML.subjectMap), g)))
            for om in list(g.subjects(RML.parentTriplesMap, parent)):
                g.set((om, RML.parentTriplesMap, full))
        mappings.append(g)
    return mappings, len(parents)


def _run_partition(mapping_file: str, part_file: str) -> dict[str, Any]:
    """Worker task: engine + guards on one partition; writes the part file (sorted, streamed)."""
    t0 = time.perf_counter()
    result = materialize(Path(mapping_file), output=Path(part_file), fmt="nt")
    return {"part": part_file, "triples": result.n_triples, "dropped": result.dropped,
            "findings": [f.to_dict() for f in result.findings], "s": time.perf_counter() - t0}


def _merge(parts: list[Path], out: Path) -> int:
    # the parts stay (kept for users who skip the merged file): merge copies of nothing, read in place
    files = [open(p, "rb") for p in parts]
    n, last = 0, None
    try:
        with open(out, "wb") as fh:
            for line in heapq.merge(*files):
                if line != last:
                    fh.write(line)
                    n += 1
                    last = line
    finally:
        for f in files:
            f.close()
    return n


def _sum_findings(found: list[dict[str, Any]], parts_dir: Path, where: str) -> list[Finding]:
    """The guards' findings of all partitions, one per (file, line, reason), counts summed;
    a partition's mapping file is named as ``where`` (the mapping the user gave)."""
    merged: dict[tuple, list] = {}
    for f in found:
        m = _DROPPED.match(f["message"])
        count, reason = (int(m.group(1)), m.group(2)) if m else (1, f["message"])
        file = where if str(f["file"]).startswith(str(parts_dir)) else f["file"]
        key = (file, f.get("line"), reason, f.get("severity"))
        if key in merged:
            merged[key][0] += count
        else:
            merged[key] = [count, f]
    out = []
    for (file, line, reason, severity), (count, f) in merged.items():
        message = f"{count} {reason}" if _DROPPED.match(f["message"]) else reason
        out.append(Finding(f.get("stage", "materialize"), file, message, line=line, column=f.get("column"),
                           value=f.get("value"), expected=f.get("expected"), severity=severity or "error"))
    return out


def materialize_distributed(engine_rml: Graph, output: Path, partitions: int,
                            master: str | None = None, where: str | None = None) -> DistributedResult:
    """Materialize ``engine_rml`` on Dask workers and merge (see the module docstring).

    Args:
        engine_rml: the engine copy of the mapping (:func:`pipeline.materialize.rml.normalize.normalize_rml`).
        output: merged N-Triples file; parts go to ``<output>.parts/``.
        partitions: number of partitions (>= 1).
        master: a Dask scheduler address (``tcp://host:8786``); ``None`` starts a local
            cluster on 127.0.0.1 with one single-threaded worker process per core (at most
            ``partitions``).
        where: the mapping file named in findings (default: ``output``).
    Returns:
        A :class:`DistributedResult`.
    Raises:
        InputError: ``partitions < 1`` or a source file is missing.
        MaterializeError: dask.distributed is not installed, or a worker's engine run failed.
    """
    if partitions < 1:
        raise InputError(f"--partitions must be at least 1, got {partitions}")
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise MaterializeError("distributed mode needs dask.distributed: pip install 'blinkg-pipeline[test]' "
                               "(or distributed==2026.8.0)") from exc
    logging.getLogger("distributed").setLevel(logging.WARNING)  # the scheduler's INFO lines are not ours
    result = DistributedResult(Path(output), partitions=partitions)
    work = Path(f"{output}.parts")
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    mappings, result.broadcast = plan_partitions(engine_rml, partitions, work)
    files = []
    for i, g in enumerate(mappings):
        path = work / f"p{i:05d}" / "mapping.ttl"
        path.parent.mkdir(parents=True, exist_ok=True)
        g.serialize(path, format="turtle")
        files.append(path)
    result.timings["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cluster = None
    if master is None:
        n_workers = max(1, min(partitions, os.cpu_count() or 1))
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=logging.WARNING)
    client = Client(cluster if cluster is not None else master)
    try:
        result.workers = len(client.scheduler_info().get("workers", {}))
        result.timings["cluster"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        futures = [client.submit(_run_partition, str(f), str(work / f"part-{i:05d}.nt"), pure=False)
                   for i, f in enumerate(files)]
        try:
            outs = client.gather(futures)
        except MaterializeError:
            raise
        except Exception as exc:  # a worker's error arrives re-raised with its own type
            raise MaterializeError(f"a partition failed on a worker: {type(exc).__name__}: {exc}") from exc
        result.timings["workers"] = time.perf_counter() - t0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    t0 = time.perf_counter()
    result.parts = [Path(o["part"]) for o in outs]
    result.triples = _merge(result.parts, result.merged)
    result.dropped = sum(o["dropped"] for o in outs)
    result.findings = _sum_findings([f for o in outs for f in o["findings"]], work, where or str(output))
    result.timings["merge"] = time.perf_counter() - t0
    LOGGER.info("distributed: %d partitions on %d workers, %d triples, %s", partitions, result.workers,
                result.triples, {k: round(v, 2) for k, v in result.timings.items()})
    return result
