"""Distributed materialization on Dask: the same KG as one process, with memory per worker bounded
by a block of the sources, not by their size.

Why Dask (``distributed``) rather than Spark: the engine (Morph-KGC), the guards and the FnO
functions are Python; Dask runs Python functions on Python worker processes as they are, with no
JVM-Python serialization and no Spark runtime to install, and a ``LocalCluster`` (tests, one
machine) and a scheduler address (``--scheduler tcp://host:8786``, a cluster) are the same code.

The driver parses nothing but the mapping: the engine's rule table (parsed once,
:func:`pipeline.materialize.engine.engine_rules`) is planned once
(:func:`pipeline.materialize.columnar.plan_rules`) and sent to every worker once
(``Client.scatter``); a worker of a cluster plans the same rules from it once, and the workers of a
local cluster, forked from the driver on Linux (:func:`start_method`), start with the driver's
plan. The job is then four kinds of tasks:

1. **scan** (per block of each CSV/TSV file): count the block's quotes, so that each block knows
   whether it starts inside a quoted field (:mod:`pipeline.materialize.blocks`). The driver cuts
   the files into blocks of ``block_size`` bytes from their length alone: it never reads them.
2. **map** (per block): the worker reads its own block's records, runs the rules without a join
   on them (:mod:`pipeline.materialize.columnar`), guards their statements
   (:class:`pipeline.materialize.guard.Guard`) and writes them sorted and without duplicates as a
   part file (``part-m<task>.nt``). For the joins it writes, per *bucket* of the join key
   (``pandas.util.hash_array`` of the key text, modulo the number of buckets), the child rows
   (subject, predicate, graph, key) and the parent pairs (key, parent term) of its records into
   a shuffle file in the work folder.
3. **reduce** (per bucket): the worker reads its bucket's section of every shuffle file, joins
   the child rows with the parent pairs of equal keys (the engine's equi-join), guards and writes
   ``part-r<bucket>.nt``. Both sides of a join are partitioned by the key, so no worker holds a
   whole parent: the number of buckets grows with the bytes of the files that take part in joins
   (one bucket per ``block_size``, at least one per worker).
4. **engine** (per Morph-KGC mapping partition the columnar path does not run: XML and JSON
   documents, quoted triples...): the engine runs the partition's rules as in one process
   (:func:`pipeline.materialize.materializer.materialize`'s engine path) on whole files.

The parts plus ``manifest.json`` (the parts, their statement counts, the findings) are a complete
output, as Spark and Hadoop users expect: each part is sorted and without duplicates, and a
statement may be in several parts. With ``merge`` (the default) the parts are merged (``sort -m
-u``, C locale) into the output file, which is then the single-process output byte for byte
(``tests/test_scale_distributed.py``). The guards' drop counts are summed over tasks: a statement
dropped by two tasks counts twice (one process counts it once).

Workers run one task at a time (the engine's corrections are process-wide): start workers with
one thread each (``dask worker --nthreads 1``). On a cluster the sources and the output's folder
must be on storage every worker reads and writes (a shared file system).

A run writes its parts (and the merged file) in ``<output>.parts.running/`` and puts them in place
only when it has finished (:func:`_swap`): an interrupted or failed re-run leaves the previous
parts, manifest and merged output as they were, and removes its own work folder.
"""
from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import logging
import math
import multiprocessing
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from pipeline.errors import InputError, MaterializeError
from pipeline.findings import Finding
from pipeline.materialize.blocks import Block, nominal_ranges, read_block, scan_block, split_file
from pipeline.materialize.columnar import (Unsupported, child_pairs, chunk_of, join_id, join_statements, parent_pairs,
                                           plan_rules, rule_statements, ParentIndex)
from pipeline.materialize.engine import (ENGINE_VERSION, EMPTY_VALUES, JOIN_MISSES, NO_VALUE, asserted_groups,
                                         engine_config, engine_rules, engine_run, note_join_misses)
from pipeline.materialize.guard import Guard
from pipeline.materialize.materializer import (findings_of, function_drops, join_drops, object_drops, run_engine_group,
                                               value_findings)
from pipeline.materialize.output import Runs, count_lines, merge_sorted, sort_command
from pipeline.materialize.rule_cache import rule_key

__all__ = ["BLOCK_SIZE", "DistributedResult", "materialize_distributed", "merge_command", "parse_size", "start_method"]

LOGGER = logging.getLogger(__name__)

#: Default bytes of a source block (one map task; its memory grows with this, not with the data).
BLOCK_SIZE = 4 << 20
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:i?[bB])?\s*$")
#: One task at a time per worker process: the engine's corrections replace module attributes.
_ENGINE_LOCK = threading.Lock()
#: What a local cluster's worker processes import before they are forked (the forkserver's preload).
_PRELOAD = ("distributed", "numpy", "pandas", "morph_kgc.materializer", "pipeline.materialize.distributed")
#: Dask's background work a local cluster does without: a statistical profiler sampling every
#: task thread each 10 ms, event-loop and system monitors several times a second. Measured on two
#: idle workers, they cost about 3% of a core per process, which adds up over a long job.
_QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
          "distributed.admin.system-monitor.interval": "5s", "distributed.admin.system-monitor.gil.enabled": False,
          "distributed.worker.memory.monitor-interval": "1s"}
#: Per worker process: the rule table and its plan, by the payload's token.
_STATE: dict[str, tuple] = {}


def parse_size(text: str | int) -> int:
    """Bytes of a size such as ``8M``, ``64MiB``, ``512k`` or ``1048576``.

    Raises:
        InputError: not a size.
    """
    if isinstance(text, int):
        return text
    m = _SIZE.match(str(text))
    if not m:
        raise InputError(f"not a size: {text!r} (expected e.g. 8M, 64MiB, 1048576)")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()])


@dataclass
class DistributedResult:
    """Outcome of a distributed run.

    Attributes:
        merged: the merged output file (``None`` with ``merge=False``). manifest: ``manifest.json``.
        parts: the sorted part files (``.nt``; ``.nq`` for named graphs).
        n_triples, n_quads: statements in the merged file (``None`` without it).
        dropped: guard drops summed over tasks. findings: the guards' findings, counts summed.
        timings: seconds per phase. workers: Dask workers. tasks: tasks per kind.
        blocks: source blocks read. buckets: join-key buckets.
    """

    merged: Path | None
    manifest: Path
    parts: list[Path] = field(default_factory=list)
    n_triples: int | None = None
    n_quads: int | None = None
    dropped: int = 0
    findings: list[Finding] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    workers: int = 0
    tasks: dict[str, int] = field(default_factory=dict)
    blocks: int = 0
    buckets: int = 0


@dataclass
class _Payload:
    """What every worker gets once: the engine's rule table and configuration."""

    token: str
    rml_df: Any
    fnml_df: Any
    ini: str
    http_api: str


def _plan(payload: _Payload) -> tuple:
    """``(rml_df, fnml_df, config, rules, engine groups, groups the columnar path cannot run)``
    of a payload, as every worker uses it."""
    from morph_kgc.args_parser import load_config_from_argument

    config = load_config_from_argument(payload.ini)
    config.set("CONFIGURATION", "http_api_df", payload.http_api)
    groups = asserted_groups(payload.rml_df)
    rules, rest = plan_rules(groups, payload.rml_df, payload.fnml_df, config)
    return payload.rml_df, payload.fnml_df, config, rules, groups, rest


def _state(payload: _Payload) -> tuple:
    """:func:`_plan` of the payload in this process (planned once per payload; a worker forked
    from the driver finds the driver's)."""
    if payload.token not in _STATE:
        _STATE.clear()
        _STATE[payload.token] = _plan(payload)
    return _STATE[payload.token]


class _Clock:
    """Adds the task thread's CPU seconds since the last call to ``into[phase]`` (the manifest's
    ``cpu_s``: where the workers' time goes)."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into, self.last = into, time.thread_time()

    def __call__(self, phase: str) -> None:
        now = time.thread_time()
        self.into[phase] = self.into.get(phase, 0.0) + now - self.last
        self.last = now


def _part(runs: Runs, parts: Path, name: str) -> dict[str, Any]:
    """Seal a task's sorted runs into its part files (one per graph kind); their paths and counts."""
    runs.seal()
    out = {}
    for named in (False, True):
        files = runs.files[named]
        if not files:
            continue
        path = parts / f"{name}.{'nq' if named else 'nt'}"
        n = merge_sorted(files, path, runs.sort) if len(files) > 1 else _move(files[0], path)
        out[str(path)] = n
    return out


def _move(src: Path, dst: Path) -> int:
    shutil.move(str(src), str(dst))
    return count_lines(dst)


def _guard_out(guard: Guard) -> dict[str, Any]:
    return {"dropped": {k: [v[0], list(v[1])] for k, v in guard.dropped.items()}, "repaired": sorted(guard.repaired),
            "join_misses": guard.join_misses, "nested": guard.nested}


def _scan(path: str, start: int, end: int, delimiter: str) -> tuple[int, bool, bool]:
    return scan_block(path, start, end, delimiter)


def _concat(pieces: list, sizes: list[int]) -> Any:
    """A term column from the pieces of several map tasks (each an array or one ``str`` for all its rows)."""
    if all(isinstance(p, str) for p in pieces) and len(set(pieces)) == 1:
        return pieces[0]
    return np.concatenate([np.full(n, p, dtype=object) if isinstance(p, str) else p for p, n in zip(pieces, sizes)])


def _buckets_of(keys: Any, buckets: int) -> Any:
    import pandas as pd

    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return (pd.util.hash_array(np.asarray(keys, dtype=object)) % np.uint64(buckets)).astype(np.int64)


def _map(payload: _Payload, block: Block, source_type: str, parts: str, buckets: int, task: int) -> dict[str, Any]:
    """A block: its rules without a join guarded into a part file; the join sides into a shuffle file."""
    rml_df, fnml_df, config, rules, _, _ = _state(payload)
    local = [(i, r) for i, r in enumerate(rules) if r.path == block.path and r.join is None]
    children = [(i, r) for i, r in enumerate(rules) if r.path == block.path and r.join is not None]
    sides = {join_id(r.join): r.join for r in rules if r.join is not None and r.join.path == block.path}
    columns = list(dict.fromkeys([*(c for _, r in local + children for c in r.refs),
                                  *(c for j in sides.values() for c in (*j.parent_keys, *j.term.refs))]))
    out: dict[str, Any] = {"parts": {}, "failed": [], "rows": 0, "shuffle": None, "guard": None, "cpu": {}}
    clock = _Clock(out["cpu"])
    with _ENGINE_LOCK, engine_run(), tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:
        try:
            chunk = chunk_of(read_block(block, source_type, columns))
            clock("map read")
        except (Unsupported, ValueError, UnicodeDecodeError) as exc:
            LOGGER.info("the engine runs the rules of %s: %s", block.path, exc)
            out["failed"] = sorted({r.partition for _, r in local + children})
            return out
        guard, runs = Guard(), Runs(Path(tmp), stream=True)
        failed: set[str] = set()
        # the block's records with an empty cell, per column its rules read (summed over the blocks)
        out["empty_block"] = [[str(r.row["logical_source_value"]), c, int(chunk.missing(c).sum())]
                              for _, r in local + children for c in r.refs]
        for _, rule in local:
            try:
                cols, n = rule_statements(rule, chunk, None)
            except Unsupported:
                failed.add(rule.partition)
                continue
            clock("map rules")
            if n:
                out["rows"] += n
                guard.frame(cols, runs, None, rule.trusted)
            clock("map guard")
        sections: list[dict] = [{} for _ in range(buckets)]
        for i, rule in children:
            try:
                terms, keys = child_pairs(rule, chunk)
            except Unsupported:
                failed.add(rule.partition)
                continue
            b = _buckets_of(keys, buckets)
            for k in np.unique(b):
                sel = b == k
                sections[k][("c", i)] = ([t if isinstance(t, str) else t[sel] for t in terms], keys[sel])
        for side_id, join in sides.items():
            try:
                keys, terms = parent_pairs(join, chunk)
            except Unsupported:
                failed.update(r.partition for r in rules if r.join is not None and join_id(r.join) == side_id)
                continue
            b = _buckets_of(keys, buckets)
            for k in np.unique(b):
                sel = b == k
                sections[k][("p", side_id)] = (keys[sel], terms[sel])
        clock("map join sides")
        if any(sections):
            path = Path(parts) / "shuffle" / f"m{task:06d}.pkl"
            offsets = []
            with open(path, "wb") as fh:
                for section in sections:
                    start = fh.tell()
                    if section:
                        pickle.dump(section, fh, protocol=pickle.HIGHEST_PROTOCOL)
                    offsets.append((start, fh.tell() - start))
            out["shuffle"] = (str(path), offsets)
        clock("map shuffle write")
        if NO_VALUE:  # rows a function gave no value for: counted per block (summed over blocks by the driver)
            import pandas as pd

            function_drops(guard, pd.DataFrame([r.row for _, r in local + children]), fnml_df)
        out["parts"] = _part(runs, Path(parts), f"part-m{task:06d}")
        clock("map part")
        out["guard"] = _guard_out(guard)
        out["failed"] = sorted(failed)
    return out


def _reduce(payload: _Payload, bucket: int, inputs: list[tuple[str, int, int]], parts: str, task: int) -> dict[str, Any]:
    """A bucket of join keys: each join's child rows with the parent pairs of the same keys."""
    rml_df, fnml_df, config, rules, _, _ = _state(payload)
    cpu: dict[str, float] = {}
    clock = _Clock(cpu)
    child: dict[int, list] = {}
    parent: dict[tuple, list] = {}
    for path, start, length in inputs:
        if not length:
            continue
        with open(path, "rb") as fh:
            fh.seek(start)
            section = pickle.loads(fh.read(length))  # noqa: S301 - written by this job's map tasks
        for (kind, key), value in section.items():
            (child.setdefault(key, []) if kind == "c" else parent.setdefault(key, [])).append(value)
    clock("reduce shuffle read")
    out: dict[str, Any] = {"parts": {}, "rows": 0, "guard": None, "failed": [], "cpu": cpu}
    with _ENGINE_LOCK, tempfile.TemporaryDirectory(prefix="kgc-reduce-") as tmp:
        guard, runs = Guard(), Runs(Path(tmp), stream=True)
        sides: dict[tuple, ParentIndex] = {}
        for i in sorted(child):
            rule = rules[i]
            side_id = join_id(rule.join)
            keys = np.concatenate([c[1] for c in child[i]])
            if side_id not in parent:  # no parent record has a key of this bucket: every child key is lost
                note_join_misses(rule.row, list(rule.join.child_keys), list(rule.join.parent_keys), keys, [])
                continue
            if side_id not in sides:
                sides[side_id] = ParentIndex.from_pairs(np.concatenate([k for k, _ in parent[side_id]]),
                                                        np.concatenate([t for _, t in parent[side_id]]))
            # keys are partitioned by hash: a key no parent of this bucket has, no parent has at all
            lost = sides[side_id].keys.get_indexer(keys) < 0
            if lost.any():
                note_join_misses(rule.row, list(rule.join.child_keys), list(rule.join.parent_keys), keys[lost],
                                 sides[side_id].keys)
            terms = [_concat([c[0][j] for c in child[i]], [len(c[1]) for c in child[i]]) for j in range(3)]
            cols, n = join_statements(terms, keys, sides[side_id])
            clock("reduce join")
            if n:
                out["rows"] += n
                guard.frame(cols, runs, None, rule.trusted)
            clock("reduce guard")
        out["parts"] = _part(runs, Path(parts), f"part-r{task:06d}")
        clock("reduce part")
        guard.take_join_misses(JOIN_MISSES)
        out["guard"] = _guard_out(guard)
    return out


def _engine(payload: _Payload, partition: str, parts: str, task: int) -> dict[str, Any]:
    """One Morph-KGC mapping partition run by the engine, as in one process."""
    rml_df, fnml_df, config, _, groups, _ = _state(payload)
    group = next(g for g in groups if str(g.iloc[0]["mapping_partition"]) == partition)
    with _ENGINE_LOCK, engine_run(), tempfile.TemporaryDirectory(prefix="kgc-engine-") as tmp:
        EMPTY_VALUES.clear()
        guard, runs, rows, empty = run_engine_group(group, rml_df, fnml_df, config, Path(tmp))
        return {"parts": _part(runs, Path(parts), f"part-e{task:06d}"), "rows": rows, "guard": _guard_out(guard),
                "empty": [[k[0], k[1], v] for k, v in empty.items()], "failed": []}


def start_method() -> str:
    """How a local cluster starts its worker processes (``multiprocessing`` start method).

    ``fork`` on Linux: the workers are copies of this process and start with what it has imported
    and planned (no imports, no plan per worker). Measured at 10M triples, the same tasks took 1.5x
    the CPU seconds on workers started by a forkserver; the likely cause is the
    ``MALLOC_TRIM_THRESHOLD_=64k`` Dask sets for the processes it starts anew (freed memory handed
    back to the system at once), which a forked copy does not read. Elsewhere ``forkserver`` where
    there is one: one server process imports what the tasks need (:data:`_PRELOAD`) and the
    workers are forked from it, so the imports are paid once, not once per worker as with
    ``spawn`` (Dask's default, the last resort).
    """
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _client(workers: int, scheduler: str | None) -> tuple[Any, Any]:
    """A Dask client on ``scheduler``, or on a local cluster of ``workers`` single-threaded processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise MaterializeError("distributed mode needs dask.distributed: pip install 'blinkg-pipeline[distributed]' "
                               "(or distributed==2026.8.0)") from exc
    logging.getLogger("distributed").setLevel(logging.WARNING)  # the scheduler's INFO lines are not ours
    # a task cancelled on a worker (the run interrupted) is no warning of ours; set before the
    # workers are forked, which inherit it
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    if scheduler:
        return Client(scheduler), None
    settings = dict(_QUIET)
    method = start_method()
    settings["distributed.worker.multiprocessing-method"] = method
    if method == "forkserver":
        import dask
        from distributed.utils import get_mp_context

        with dask.config.set(settings):
            get_mp_context().set_forkserver_preload(list(_PRELOAD))
    import dask

    # the scheduler's HTTP server starts whatever the dashboard setting (None means its default port,
    # 8787, and a warning on the console when another cluster holds it): a free port of this host
    with dask.config.set(settings), _sigint_held():
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", silence_logs=logging.WARNING)
    client = Client(cluster)
    client.run(_quiet_worker_logs)
    return client, cluster


@contextlib.contextmanager
def _sigint_held():
    """SIGINT blocked in the calling (main) thread while a local cluster starts.

    Ctrl-C on a terminal sends SIGINT to every process of the foreground group, the Dask worker
    processes too, each of which then ends on its own ``KeyboardInterrupt`` with a traceback on the
    console. A signal mask is inherited by the threads a thread creates (the cluster's event loop)
    and the processes they fork (POSIX ``pthread_sigmask``, ``fork``), and kept across ``exec``, so
    the workers started meanwhile never receive SIGINT: the command alone does, closes the cluster
    (which stops its workers) and says so in one line. A Ctrl-C during the start is delivered to the
    command when the mask is restored. Elsewhere than in the main thread of a POSIX process: no change.
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _quiet_worker_logs() -> None:
    """Run on each worker of a local cluster: its own Dask logs off, memory warnings kept.

    A worker forked from the command writes its log lines on the user's console. A task's failure
    reaches the command through its future (and is said there, with the task named); what the
    worker logs besides is the teardown of an interrupted run (a heartbeat to a scheduler that has
    just closed, with its traceback), which the command already says in one line."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)
    for name in ("distributed.worker.memory", "distributed.nanny.memory"):  # "worker at 80% memory": the user's to see
        logging.getLogger(name).setLevel(logging.WARNING)


def materialize_distributed(mapping_file: Path, output: Path, *, workers: int = 2, scheduler: str | None = None,
                            block_size: int = BLOCK_SIZE, merge: bool = True, fmt: str = "nt",
                            where: str | None = None,
                            locate: Callable[[str, str], tuple[str, int | None]] | None = None) -> DistributedResult:
    """Materialize an engine mapping on Dask workers (see the module docstring).

    Args:
        mapping_file: the engine copy of the mapping (:func:`pipeline.materialize.rml.normalize.normalize_rml`).
        output: the merged file; parts, shuffle files and ``manifest.json`` go to ``<output>.parts/``
            (written in ``<output>.parts.running/``, renamed when the run has finished).
        workers: worker processes of the local cluster (ignored with ``scheduler``).
        scheduler: a Dask scheduler address (``tcp://host:8786``); ``None``: a local cluster on 127.0.0.1.
        block_size: bytes of source per map task (memory per task grows with it).
        merge: merge the parts into ``output``; ``False``: the parts and the manifest are the output.
        fmt: ``nt`` (the default graph only) or ``nq`` (named graphs too) for the merged file.
        where: the mapping file named in findings (default: ``mapping_file``). locate: as for
            :func:`pipeline.materialize.materializer.materialize`.
    Returns:
        A :class:`DistributedResult`.
    Raises:
        InputError: ``workers < 1`` or a bad block size.
        MaterializeError: dask.distributed is missing, or a task failed (named).
    """
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    if block_size < 1:
        raise InputError(f"--block-size must be positive, got {block_size}")
    mapping_file, output = Path(mapping_file), Path(output)
    final = Path(f"{output}.parts")
    parts = _work_folder(output)
    try:
        result = _run(mapping_file, output, parts, workers, scheduler, block_size, merge, fmt, where, locate)
    except BaseException:  # an error or an interruption: the previous result stays as it was
        _quiet_interrupt()
        shutil.rmtree(parts, ignore_errors=True)
        raise
    _swap(parts, final, output if merge else None)
    result.manifest = final / "manifest.json"
    result.parts = [final / p.name for p in result.parts]
    return result


def _work_folder(output: Path) -> Path:
    """The folder a run writes its parts in, ``<output>.parts.running/`` (emptied), after finishing
    the swap of an earlier run that was interrupted during :func:`_swap`."""
    final, previous = Path(f"{output}.parts"), Path(f"{output}.parts.previous")
    if previous.exists():
        if final.exists():  # interrupted after the new parts were in place: finish the swap
            if (final / _MERGED).exists():
                os.replace(final / _MERGED, output)
            shutil.rmtree(previous)
        else:  # interrupted between the two renames: the previous result back in place
            previous.rename(final)
    work = Path(f"{output}.parts.running")
    if work.exists():
        shutil.rmtree(work)
    (work / "shuffle").mkdir(parents=True)
    return work


#: The merged output inside the work folder until the swap.
_MERGED = "merged.tmp"


def _swap(work: Path, final: Path, output: Path | None) -> None:
    """Put a finished run in place: ``work`` becomes ``final`` (the previous parts are removed only
    then) and the merged file replaces ``output``. Each step is a rename on one file system; an
    interruption between them is finished by the next run (:func:`_work_folder`)."""
    previous = Path(f"{final}.previous")
    if final.exists():
        final.rename(previous)
    work.rename(final)
    if output is not None:
        os.replace(final / _MERGED, output)
    if previous.exists():
        shutil.rmtree(previous)


def _quiet_interrupt() -> None:
    """Silence what Dask and asyncio log while a run is torn down before its end (futures cancelled
    with ``AllExit``, nannies killing their workers): the CLI says the interruption in one line."""
    for name in ("distributed", "asyncio", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    # only when Dask was imported whole: an interruption during its import leaves it half-imported,
    # and importing it again here would end in a second error instead of the interruption's line
    spec = sys.modules.get("distributed.deploy.spec")
    if spec is None or not hasattr(spec, "close_clusters"):
        return
    # a cluster interrupted while it started is closed by Dask at exit, which then prints the
    # interruption's traceback ("Exception ignored in atexit callback"): closed quietly instead
    atexit.unregister(spec.close_clusters)
    atexit.register(_close_clusters_quietly, spec.close_clusters)


def _close_clusters_quietly(close: Callable[[], None]) -> None:
    with contextlib.suppress(BaseException):
        close()


def _run(mapping_file: Path, output: Path, parts: Path, workers: int, scheduler: str | None, block_size: int,
         merge: bool, fmt: str, where: str | None,
         locate: Callable[[str, str], tuple[str, int | None]] | None) -> DistributedResult:
    """The distributed run of :func:`materialize_distributed`, writing in the work folder ``parts``
    (the merged file too, as :data:`_MERGED`)."""
    result = DistributedResult(output if merge else None, parts / "manifest.json")
    t0 = time.perf_counter()
    rml_df, fnml_df, config = engine_rules(mapping_file)
    ini = engine_config(mapping_file, 1, output_format="N-QUADS")
    # the workers' plan depends on the rule table, i.e. on the document, its location and the
    # configuration: the token is their digest (a file's mtime does not change within a clock tick)
    token = rule_key(Path(mapping_file).read_bytes(), ini, ENGINE_VERSION, str(Path(mapping_file).resolve()))
    payload = _Payload(token, rml_df, fnml_df, ini, config.get("CONFIGURATION", "http_api_df"))
    # local workers forked from this process find the plan made (remote ones make it from the payload)
    _STATE.clear()
    _STATE[token] = _plan(payload)
    rules, rest = _STATE[token][3], _STATE[token][5]
    files = {}
    for rule in rules:
        files.setdefault(rule.path, rule.source_type)
        if rule.join is not None:
            files.setdefault(rule.join.path, rule.join.source_type)
    joined = {r.path for r in rules if r.join is not None} | {r.join.path for r in rules if r.join is not None}
    n_buckets = 0
    if joined:
        n_buckets = max(workers if not scheduler else 1, math.ceil(sum(os.path.getsize(p) for p in joined) / block_size))
    result.timings["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    client, cluster = _client(workers, scheduler)
    ids = itertools.count()
    outs: list[dict] = []
    try:
        result.workers = len(client.scheduler_info().get("workers", {}))
        result.timings["cluster"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        shipped = client.scatter(payload, broadcast=True)
        ranges = {p: nominal_ranges(os.path.getsize(p), block_size) for p in files}
        scans = {p: client.map(_scan, [p] * len(r), [a for a, _ in r], [b for _, b in r],
                               ["," if files[p] == "CSV" else "\t"] * len(r), pure=False)
                 for p, r in ranges.items() if len(r) > 1}
        blocks = {p: split_file(p, ranges[p], client.gather(scans[p])) if p in scans
                  else [Block(p, 0, 0, os.path.getsize(p))] for p in files}
        result.blocks = sum(len(b) for b in blocks.values())
        map_futures = [client.submit(_map, shipped, b, files[p], str(parts), n_buckets, next(ids), pure=False)
                       for p in files for b in blocks[p]]
        engine_futures = [client.submit(_engine, shipped, str(g.iloc[0]["mapping_partition"]), str(parts), next(ids),
                                        pure=False) for g in rest]
        maps = _gather(client, map_futures, "a map task")
        failed = sorted({p for m in maps for p in m["failed"]})
        engine_futures += [client.submit(_engine, shipped, p, str(parts), next(ids), pure=False) for p in failed]
        reduce_futures = []
        for k in range(n_buckets):
            inputs = [(m["shuffle"][0], *m["shuffle"][1][k]) for m in maps if m["shuffle"] is not None]
            reduce_futures.append(client.submit(_reduce, shipped, k, inputs, str(parts), next(ids), pure=False))
        outs = maps + _gather(client, reduce_futures, "a reduce task") + _gather(client, engine_futures,
                                                                                 "an engine task")
        result.tasks = {"scan": sum(len(s) for s in scans.values()), "map": len(map_futures),
                        "reduce": len(reduce_futures), "engine": len(engine_futures)}
        result.buckets = n_buckets
        result.timings["tasks"] = time.perf_counter() - t0
    except BaseException:
        _quiet_interrupt()  # before the client closes: its event loop logs the futures it cancels
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    shutil.rmtree(parts / "shuffle", ignore_errors=True)
    t0 = time.perf_counter()
    guard, empty, per_block = Guard(), {}, {}
    part_counts: dict[str, int] = {}
    cpu: dict[str, float] = {}
    for o in outs:
        part_counts.update(o["parts"])
        for k, v in o.get("cpu", {}).items():
            cpu[k] = cpu.get(k, 0.0) + v
        if o.get("guard"):
            guard.merge(Guard(dropped={tuple(k): v for k, v in o["guard"]["dropped"].items()},
                              repaired=set(o["guard"]["repaired"]), join_misses=o["guard"].get("join_misses") or {},
                              nested=o["guard"].get("nested") or {}))
        for source, reference, n in o.get("empty", []):
            empty[(source, reference)] = max(empty.get((source, reference), 0), n)
        for source, reference, n in {(s, r, n) for s, r, n in o.get("empty_block", [])}:  # one count per rule
            per_block[(source, reference)] = per_block.get((source, reference), 0) + n
    for key, n in per_block.items():  # the blocks of a file hold each record once: their counts add up
        empty[key] = max(empty.get(key, 0), n)
    result.parts = sorted(Path(p) for p in part_counts)
    join_drops(guard, str(mapping_file))  # over all buckets: a key one parent lacks may be another's
    object_drops(guard)
    result.dropped = sum(c for c, _ in guard.dropped.values())
    result.findings = findings_of(guard, where or str(mapping_file), locate) + value_findings(guard, empty)
    if merge:
        result.n_triples, result.n_quads = _merge(result.parts, parts / _MERGED, fmt, parts)
    result.timings["merge"] = time.perf_counter() - t0
    manifest = {"format": "N-Triples (.nt: default graph) and N-Quads (.nq: named graphs), one statement a line",
                "parts": [{"path": p.name, "statements": part_counts[str(p)]} for p in result.parts],
                "sorted": "each part, byte order (C locale); a statement may be in several parts",
                "merged": {"path": str(output), "triples": result.n_triples, "quads": result.n_quads} if merge else None,
                "mapping": str(where or mapping_file), "tasks": result.tasks, "blocks": result.blocks,
                "buckets": result.buckets, "block_size": block_size, "workers": result.workers,
                "dropped": result.dropped, "findings": [f.to_dict() for f in result.findings],
                "timings_s": {k: round(v, 3) for k, v in result.timings.items()},
                "task_cpu_s": {k: round(v, 3) for k, v in sorted(cpu.items())}}
    result.manifest.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    LOGGER.info("distributed: %d blocks, %d buckets, tasks %s on %d workers, %s", result.blocks, n_buckets,
                result.tasks, result.workers, {k: round(v, 2) for k, v in result.timings.items()})
    return result


def _gather(client: Any, futures: list, what: str) -> list[dict]:
    try:
        return client.gather(futures)
    except MaterializeError:
        raise
    except Exception as exc:  # a worker's error arrives re-raised with its own type
        raise MaterializeError(f"{what} failed on a worker: {type(exc).__name__}: {exc}") from exc


def _merge(parts: list[Path], output: Path, fmt: str, work: Path) -> tuple[int, int]:
    """Merge the sorted parts into ``output`` (``nt``: the default graph; ``nq``: then the named
    graphs, as one process writes them); the parts stay. Returns ``(triples, quads)``."""
    default = [p for p in parts if p.suffix == ".nt"]
    named = [p for p in parts if p.suffix == ".nq"]
    output.parent.mkdir(parents=True, exist_ok=True)
    n_triples = _merge_copy(default, output, work)
    n_quads = 0
    if named:
        quads = work / "named.nq.tmp"
        n_quads = _merge_copy(named, quads, work)
        if fmt != "nt":
            with open(output, "ab") as out, open(quads, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
        quads.unlink()
    return n_triples, n_quads


def merge_command(sort: str, files: list[Path], out: Path, work: Path) -> list[str]:
    """The ``sort -m -u`` command line that merges sorted part files into ``out`` (run it with
    ``LC_ALL=C``); ``work``: its temporary files. A larger input buffer than sort's default: far
    fewer reads over many parts."""
    return [sort, "-m", "-u", "-S", "64M", "--batch-size", "64", "-T", str(work), "-o", str(out), *map(str, files)]


def _merge_copy(files: list[Path], out: Path, work: Path) -> int:
    """``sort -m -u`` of sorted files into ``out`` without consuming them (``merge_sorted`` moves a single run)."""
    if not files:
        out.write_bytes(b"")
        return 0
    sort = sort_command()
    if sort is not None:
        done = subprocess.run(merge_command(sort, files, out, work), env={**os.environ, "LC_ALL": "C"})
        if done.returncode != 0:
            raise MaterializeError(f"sort -m exited with {done.returncode} while merging the parts")
        return count_lines(out)
    copies = []
    for i, f in enumerate(files):  # heapq path: merge_sorted deletes its inputs, so it merges copies
        copy = work / f"merge-{i:06d}.tmp"
        shutil.copyfile(f, copy)
        copies.append(copy)
    return merge_sorted(copies, out, None)
