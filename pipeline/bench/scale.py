"""``make bench-scale``: our stages next to Morph-KGC alone, at growing KG sizes.

Workload (generated, deterministic): BLINKG scenario 2 'complete' (GTFS, nine CSV files,
~32,000 engine triples) replicated ``k`` times: row ``j`` of an output file is row
``j mod n`` of the input, and every key column (``*_id``, ``parent_station``) of copy
``j // n > 0`` gets the suffix ``-k<copy>``, so copies mint new IRIs and joins stay
within a copy. ``--seed`` shuffles the row order of each file. The gold table is
replayed (``kgc compile`` of ``expected_table.md``).

Per size, in one run and interleaved (engine, ours, engine, ours ... for ``--repeat``),
each command as its own process, wall time and peak RSS from ``os.wait4``:

* ``engine``: ``python -m morph_kgc`` on the compiled RML, writing N-Triples;
* ``compile``, ``materialize`` (guards included), ``validate``: the ``kgc`` commands;
* ``distributed``: ``kgc materialize --distributed --no-merge`` (Dask, local cluster) when
  installed: its sorted parts and manifest; then ``merge``: the ``sort -m -u`` that
  ``--distributed`` without ``--no-merge`` runs (:func:`pipeline.materialize.distributed.merge_command`),
  measured on its own, into the file compared with the single-process output;
* ``map``: ``kgc map`` (the offline mapper) on the same sources; and once more on its own
  workload whose largest source (``stop_times.csv``) has ``--map-rows`` records (default
  1,000,000; about 2M records in all nine files), time and peak RSS.

Printed and written (``<out>/scale.json``, ``<out>/scale.md``): triples (engine vs ours,
the difference explained by the guards' drop counts), seconds and MB per stage, the ratios
(compile+materialize / engine; validate / materialize) and each stage's log-log slope
over sizes (least squares of log seconds on log triples; 1.0 is linear).
"""
from __future__ import annotations

import argparse
import compileall
import csv
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pipeline.bench.proctree import measure
from pipeline.materialize.distributed import merge_command
from pipeline.materialize.engine import engine_config
from pipeline.materialize.output import count_lines, sort_command

__all__ = ["generate", "run_stage", "dask_workers", "slope", "main"]

#: Engine triples of one copy of scenario 2 'complete' with its gold table (measured).
TRIPLES_PER_COPY = 32_156
_KEY = re.compile(r"(_id|^parent_station)$")
_DROPPED = re.compile(r"(\d+) triple\(s\) dropped")
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000, "10M": 10_000_000}


def generate(blinkg: Path, k: float, out: Path, seed: int = 0) -> Path:
    """Write ``k`` copies of scenario 2 'complete' under ``out`` and a manifest for them.

    Args:
        blinkg: the BLINKG benchmark folder.
        k: copies (fractional: the first ``round(n*k)`` rows of each file).
        out: folder to write (created).
        seed: shuffles each file's row order (``random.Random(seed)``).
    Returns:
        The manifest path (``out/manifest.yaml``; ontology, SKOS and gold table stay in ``blinkg``).
    """
    src = blinkg / "scenarios" / "scenario2" / "complete"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = []
    for path in sorted(src.glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        header, body = rows[0], rows[1:]
        keys = [i for i, h in enumerate(header) if _KEY.search(h)]
        total = max(1, round(len(body) * k)) if body else 0
        order = list(range(total))
        rng.shuffle(order)
        with open(out / path.name, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            for j in order:
                copy, row = divmod(j, len(body))
                rec = list(body[row])
                if copy:
                    for i in keys:
                        if rec[i]:
                            rec[i] = f"{rec[i]}-k{copy}"
                w.writerow(rec)
        names.append(path.name)
    lines = ["name: complete", "scenario: scenario2", "base_iri: http://example.org/", "sources:"]
    lines += [f"- path: {out / n}\n  format: csv" for n in names]
    lines += ["ontologies:", f"- {src / 'ontology.ttl'}", "skos:", f"- {src / 'skos.ttl'}",
              "prefixes:", "  ex: http://example.org/", "gold:", f"  table: {src / 'expected_table.md'}"]
    manifest = out / "manifest.yaml"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


def run_stage(cmd: list[str], log: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one command and measure its whole process tree (:func:`pipeline.bench.proctree.measure`).

    Returns:
        ``{"rc", "s" (wall), "cpu_s", "mem_mb" (peak of the RSS summed over the tree), "rss_mb"
        (peak of the largest process), "worker_mb" (peak RSS of the largest Dask worker process
        itself), "worker_tree_mb" (peak of the largest worker's subtree: with its ``sort``
        processes, and with a child caught between fork and exec counted at its parent's size),
        both ``None`` when there was no worker, "workers", "processes"}``.
    """
    u = measure(cmd, log, cwd=cwd, env=env)
    # a command's forked guard worker has its command line too: Dask workers only in a distributed run
    workers = dask_workers(u.processes, u.root_cmd if "--distributed" in cmd else "")
    return {"rc": u.rc, "s": u.wall_s, "cpu_s": u.cpu_s, "mem_mb": u.peak_sum_mb, "rss_mb": u.peak_process_mb,
            "worker_mb": max((p["own_mb"] for p in workers), default=None),
            "worker_tree_mb": max((p["peak_mb"] for p in workers), default=None),
            "workers": [{"own_mb": p["own_mb"], "tree_mb": p["peak_mb"], "cpu_s": p["cpu_s"]} for p in workers],
            "processes": len(u.processes) + 1}


def dask_workers(processes: list[dict], root_cmd: str = "") -> list[dict]:
    """The Dask worker processes among a command's (:attr:`pipeline.bench.proctree.Usage.processes`):
    spawned ones (``spawn_main``), those forked by a forkserver (whose parent is the server), and
    those forked from the command itself (``root_cmd``: children of the root with its command line;
    their own children caught before ``exec`` are not workers)."""
    cmd = {p["pid"]: p["cmd"] for p in processes}
    return [p for p in processes if "spawn_main" in p["cmd"]
            or ("forkserver" in p["cmd"] and "forkserver" in cmd.get(p["parent"], ""))
            or (root_cmd and p["cmd"] == root_cmd and p["parent"] not in cmd)]


def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ``log y`` on ``log x`` (``None`` with fewer than two points)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return round(sum((p[0] - mx) * (p[1] - my) for p in pts) / den, 2) if den else None


def _count_lines(path: Path) -> int:
    return count_lines(path) if path.exists() else 0


def _engine_config(rml: Path, out_nt: Path, work: Path, processes: int) -> Path:
    """The engine's configuration for the peer run, written by the materializer's own writer (paths
    holding ``$``, ``%`` or ``,`` escaped as Morph-KGC reads them)."""
    path = work / "engine.ini"
    path.write_text(engine_config(rml, processes, output_file=out_nt), encoding="utf-8")
    return path


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the repeats of one stage (``None`` where a figure is missing)."""
    out: dict[str, Any] = {"rc": runs[-1]["rc"], "runs": len(runs)}
    for key in ("s", "cpu_s", "mem_mb", "rss_mb", "worker_mb", "worker_tree_mb"):
        values = [r[key] for r in runs if r.get(key) is not None]
        out[key] = round(statistics.median(values), 2) if values else None
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def _bench_size(label: str, k: float, blinkg: Path, root: Path, seed: int, repeat: int,
                distributed: bool, workers: int, processes: int, baseline: Path | None,
                skip: frozenset[str] = frozenset(), block_size: str | None = None) -> dict[str, Any]:
    work = root / label
    manifest = generate(blinkg, k, work / "data", seed)
    bin_dir = Path(sys.executable).parent
    kgc = str(bin_dir / "kgc")
    gold_table = blinkg / "scenarios" / "scenario2" / "complete" / "expected_table.md"
    stages: dict[str, list[dict[str, Any]]] = {}
    sides = {"": None} if baseline is None else {"": None, "base:": baseline}

    def add(name: str, cmd: list[str], pythonpath: Path | None = None,
            extra_env: dict[str, str] | None = None) -> dict[str, Any]:
        env = None
        if pythonpath is not None or extra_env:
            env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath is not None else {}),
                   **(extra_env or {})}
        r = run_stage(cmd, work / f"{name.replace(':', '-')}.log", env=env)
        stages.setdefault(name, []).append(r)
        print(f"  {label} {name}: {r['cpu_s']} s CPU, {r['mem_mb']} MB summed ({r['rss_mb']} MB largest process"
              + (f", {r['worker_mb']} MB largest worker ({r['worker_tree_mb']} MB with its children)"
                 if r.get("worker_mb") else "") + f"), {r['s']} s wall, "
              f"exit {r['rc']}", flush=True)
        return r

    eng = work / "engine.nt"
    for _ in range(repeat):
        # interleaved: engine, ours (and the baseline), engine, ours ...: drifts of a shared machine hit both
        for tag, path in sides.items():
            rml, kg = work / f"{tag.rstrip(':') or 'ours'}.rml.ttl", work / f"{tag.rstrip(':') or 'ours'}.nt"
            if tag == "":
                cfg = _engine_config(rml, eng, work, processes)
            add(tag + "compile", [kgc, "-q", "compile", str(manifest), str(gold_table), str(rml)], path)
            if tag == "":
                eng.unlink(missing_ok=True)
                add("engine", [sys.executable, "-m", "morph_kgc", str(cfg)])
            add(tag + "materialize", [kgc, "-q", "materialize", str(rml), str(kg), "--manifest", str(manifest),
                                      "--processes", str(processes)], path)
            if distributed:
                _distributed(add, tag, path, kgc, rml, work, manifest, workers, block_size)
            if "validate" not in skip:
                add(tag + "validate", [kgc, "-q", "validate", str(manifest), str(kg), "--out",
                                       str(work / f"{tag.rstrip(':') or 'ours'}-validation.json")], path)
    if "map" not in skip:
        add("map", [kgc, "-q", "map", str(manifest), str(work / "table.json")])
    kg = work / "ours.nt"
    dropped = sum(int(m) for m in _DROPPED.findall((work / "materialize.log").read_text(encoding="utf-8")))
    n_engine, n_ours = _count_lines(eng), _count_lines(kg)
    med = {name: _median(runs) for name, runs in stages.items()}
    validation = {}
    if (work / "ours-validation.json").exists():
        for name, r in json.loads((work / "ours-validation.json").read_text(encoding="utf-8")).items():
            validation[name] = {"value": r.get("value"), "status": r.get("status"), "elapsed_s": r.get("elapsed_s"),
                                "coverage": (r.get("details") or {}).get("coverage")}
    row: dict[str, Any] = {"size": label, "copies": round(k, 3), "engine_triples": n_engine, "our_triples": n_ours,
                           "dropped_by_guards": dropped, "unexplained": n_engine - n_ours - dropped,
                           "stages": med, "validation": validation}
    for tag in sides:
        if tag and (work / f"{tag.rstrip(':')}.nt").exists():
            row["baseline_identical"] = (work / "base.nt").read_bytes() == kg.read_bytes()
    if distributed and (work / "dist.nt").exists():
        row["distributed_identical"] = _same_file(work / "dist.nt", kg)
    if distributed:
        parts = json.loads((work / "dist.nt.parts" / "manifest.json").read_text(encoding="utf-8"))
        row["distributed_run"] = {k: parts.get(k) for k in ("blocks", "buckets", "block_size", "tasks", "task_cpu_s")}
        row["distributed_workers"] = {name: [r["workers"] for r in runs] for name, runs in stages.items()
                                      if name.endswith("distributed")}
    eng_cpu, eng_mem = med["engine"]["cpu_s"], med["engine"]["mem_mb"]
    for tag in sides:
        comp, mat = med[tag + "compile"], med[tag + "materialize"]
        key = "ours" if not tag else "base"
        row[f"cpu_{key}_engine"] = _ratio(comp["cpu_s"] + mat["cpu_s"], eng_cpu)
        row[f"mem_{key}_engine"] = _ratio(max(comp["mem_mb"] or 0, mat["mem_mb"] or 0), eng_mem)
        row[f"cpu_validate_{key}"] = _ratio(med[tag + "validate"]["cpu_s"], mat["cpu_s"]) if "validate" not in skip \
            else None
        if distributed:
            dist = med[tag + "distributed"]["cpu_s"]
            row[f"cpu_distributed_{key}"] = _ratio(dist, mat["cpu_s"])
            if tag + "merge" in med:  # the parts merged into one file, as --distributed without --no-merge
                row[f"cpu_distributed_merged_{key}"] = _ratio(dist + med[tag + "merge"]["cpu_s"], mat["cpu_s"])
    for f in (eng, work / "dist.nt", work / "basedist.nt", work / "base.nt"):  # big files: keep ours.nt only
        if f.exists() and f.stat().st_size > 50_000_000:
            f.unlink()
            shutil.rmtree(f"{f}.parts", ignore_errors=True)
    return row


def _distributed(add, tag: str, path: Path | None, kgc: str, rml: Path, work: Path, manifest: Path, workers: int,
                 block_size: str | None) -> None:
    """The distributed stages of one side: ``kgc materialize --distributed --no-merge`` (parts and
    manifest), then ``merge``: the parts merged by the command ``--distributed`` runs without
    ``--no-merge``, measured on its own. A baseline checkout whose command has no ``--no-merge`` runs
    its ``--distributed`` with its own merge (and ``--partitions``), in one stage."""
    out = work / f"{tag.rstrip(':')}dist.nt"
    cmd = [kgc, "-q", "materialize", str(rml), str(out), "--manifest", str(manifest), "--distributed"]
    source = ((path or Path(__file__).resolve().parents[2]) / "pipeline" / "commands" / "materialize.py")
    if "--no-merge" not in source.read_text(encoding="utf-8"):
        add(tag + "distributed", cmd + ["--partitions", str(workers)], path)
        return
    add(tag + "distributed", cmd + ["--workers", str(workers), "--no-merge"]
        + (["--block-size", block_size] if block_size else []), path)
    parts = Path(f"{out}.parts")
    sort = sort_command()
    if sort is None:
        return
    files = sorted(parts.glob("part-*.nt"))
    add(tag + "merge", merge_command(sort, files, out, parts), None, {"LC_ALL": "C"})

def _same_file(a: Path, b: Path) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def _markdown(rows: list[dict[str, Any]], slopes: dict[str, float | None]) -> str:
    names = [n for n in rows[0]["stages"] if n != "map"] + (["map"] if "map" in rows[0]["stages"] else [])
    head = ["size", "triples engine / ours (dropped)"] + [f"{n}: CPU s (MB summed)" for n in names]
    head += ["(compile+mat) / engine: CPU (memory)", "validate / mat CPU",
             "distributed / mat CPU: parts, merged (MB largest worker)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["size"], f"{r['engine_triples']:,} / {r['our_triples']:,} ({r['dropped_by_guards']:,}"
                 + (f", {r['unexplained']:+,} unexplained" if r["unexplained"] else "") + ")"]
        cells += [f"{r['stages'][n]['cpu_s']} ({r['stages'][n]['mem_mb']:.0f})" if r["stages"][n]["mem_mb"] is not None
                  else f"{r['stages'][n]['cpu_s']}" for n in names]
        base = f" [before: {r['cpu_base_engine']}x ({r['mem_base_engine']}x)]" if "cpu_base_engine" in r else ""
        cells += [f"{r['cpu_ours_engine']}x ({r['mem_ours_engine']}x){base}", f"{r['cpu_validate_ours']}x"]
        dist = r["stages"].get("distributed")
        before = (f" [before: {r.get('cpu_distributed_base')}x, {r.get('cpu_distributed_merged_base')}x "
                  f"({r['stages']['base:distributed']['worker_mb']})]" if "base:distributed" in r["stages"] else "")
        cells.append(f"{r.get('cpu_distributed_ours')}x, {r.get('cpu_distributed_merged_ours')}x ({dist['worker_mb']})"
                     + before if dist else "")
        out.append("| " + " | ".join(cells) + " |")
    out.append("| log-log slope of CPU s | | " + " | ".join(str(slopes.get(n)) for n in names) + " | | | |")
    return "\n".join(out) + "\n"


def bench_map_rows(rows: int, blinkg: Path, root: Path, seed: int, repeat: int = 1,
                   baseline: Path | None = None) -> dict[str, Any]:
    """``kgc map`` on a workload whose largest source (``stop_times.csv``) has ``rows`` records.

    Args:
        rows: records of the largest source. repeat: runs (medians). baseline: a kgc checkout run
            too, interleaved (``PYTHONPATH``).
    Returns:
        ``{"rows": {file: records}, "rc", "s", "cpu_s", "mem_mb", "rss_mb", "runs", "table_rows"}``
        (medians; ``"baseline"``: the same for the baseline checkout).
    """
    work = root / f"map-{rows}"
    src = blinkg / "scenarios" / "scenario2" / "complete" / "stop_times.csv"
    per_copy = _count_lines(src) - 1
    manifest = generate(blinkg, rows / per_copy, work / "data", seed)
    counts = {p.name: _count_lines(p) - 1 for p in sorted((work / "data").glob("*.csv"))}
    out = work / "table.json"
    kgc = str(Path(sys.executable).parent / "kgc")
    runs: dict[str, list] = {"": [], "base": []}
    for _ in range(repeat):
        for tag, path in (("", None), ("base", baseline)):
            if tag and path is None:
                continue
            env = {**os.environ, "PYTHONPATH": str(path)} if path is not None else None
            r = run_stage([kgc, "-q", "map", str(manifest), str(work / f"{tag or 'ours'}-table.json")],
                          work / f"map{tag}.log", env=env)
            print(f"  map {rows:,}{' (baseline)' if tag else ''}: {r['cpu_s']} s CPU, {r['mem_mb']} MB summed, "
                  f"{r['s']} s wall, exit {r['rc']}", flush=True)
            runs[tag].append(r)
    result = _median(runs[""])
    if runs["base"]:
        result["baseline"] = _median(runs["base"])
    out = work / "ours-table.json"
    result["rows"] = counts
    result["table_rows"] = len(json.loads(out.read_text(encoding="utf-8"))["rows"]) if out.exists() else None
    for p in (work / "data").glob("*.csv"):  # ~170 MB of generated CSV: not kept
        p.unlink()
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m pipeline.bench.scale`` (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--blinkg", default=os.environ.get("BLINKG_DIR", "../shared/benchmarks/blinkg"))
    p.add_argument("--out", default="out/bench-scale")
    p.add_argument("--sizes", default=os.environ.get("BENCH_SCALE_SIZES", "10k,100k,1M"),
                   help="comma-separated: 10k, 100k, 1M, 10M (10M also with BENCH_SCALE_10M=1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=int(os.environ.get("BENCH_SCALE_REPEAT", "3")),
                   help="interleaved runs of every stage per size; the figures are medians (default: %(default)s)")
    p.add_argument("--workers", type=int, default=2, help="Dask workers of the distributed run (local cluster)")
    p.add_argument("--no-distributed", dest="distributed", action="store_false")
    p.add_argument("--block-size", default=None,
                   help="source bytes per map task of the distributed run, e.g. 4M (default: kgc's own)")
    p.add_argument("--processes", type=int, default=int(os.environ.get("BENCH_SCALE_PROCESSES", "1")),
                   help="worker processes of the engine alone (number_of_processes) and of `kgc materialize "
                        "--processes`: the same on both sides (Morph-KGC's own default is 2 x CPUs)")
    p.add_argument("--map-rows", type=int, default=int(os.environ.get("BENCH_SCALE_MAP_ROWS", "1000000")),
                   help="records of the largest source in the extra `kgc map` run (0: skip it)")
    p.add_argument("--baseline", default=os.environ.get("BENCH_SCALE_BASELINE") or None,
                   help="another kgc checkout (its folder holding pipeline/) run interleaved as 'base:' stages, "
                        "for before/after figures in one run")
    p.add_argument("--skip", default="", help="stages left out, comma-separated: validate, map (e.g. at 10M, where "
                                             "they cost more than the rest together)")
    args = p.parse_args(argv)
    skip = frozenset(s.strip() for s in args.skip.split(",") if s.strip())
    if skip - {"validate", "map"}:
        print(f"--skip: unknown stage(s) {sorted(skip - {'validate', 'map'})}; expected validate, map", file=sys.stderr)
        return 2
    blinkg = Path(args.blinkg).resolve()
    if not (blinkg / "scenarios" / "scenario2" / "complete").is_dir():
        print(f"BLINKG scenario 2 not found under {blinkg} (set BLINKG_DIR)", file=sys.stderr)
        return 2
    labels = [s.strip() for s in args.sizes.split(",") if s.strip()]
    if os.environ.get("BENCH_SCALE_10M") == "1" and "10M" not in labels:
        labels.append("10M")
    bad = [s for s in labels if s not in SIZES]
    if bad:
        print(f"unknown size(s) {bad}; expected some of {list(SIZES)}", file=sys.stderr)
        return 2
    baseline = Path(args.baseline).resolve() if args.baseline else None
    if baseline is not None and not (baseline / "pipeline" / "__init__.py").is_file():
        print(f"--baseline {baseline}: no pipeline/ package there", file=sys.stderr)
        return 2
    distributed = args.distributed
    if distributed:
        try:
            import distributed as _  # noqa: F401
        except ImportError:
            print("note: dask.distributed is not installed; the distributed stage is left out", file=sys.stderr)
            distributed = False
    root = Path(args.out).resolve()
    # an installed package has its bytecode compiled (pip does that, and the engine's package has
    # it); an editable checkout run with PYTHONDONTWRITEBYTECODE=1 would compile every one of our
    # modules again in every timed process (about 0.05 s of CPU each)
    for folder in (Path(__file__).resolve().parents[1], *([baseline / "pipeline"] if baseline else [])):
        compileall.compile_dir(str(folder), quiet=1)
    rows = []
    for label in labels:
        print(f"size {label}:", flush=True)
        rows.append(_bench_size(label, SIZES[label] / TRIPLES_PER_COPY, blinkg, root, args.seed, args.repeat,
                                distributed, args.workers, args.processes, baseline, skip, args.block_size))
    xs = [r["engine_triples"] for r in rows]
    slopes = {n: slope(xs, [r["stages"][n]["cpu_s"] for r in rows]) for n in rows[0]["stages"]}
    result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "processes": args.processes,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": args.seed, "repeat": args.repeat,
              "commit": _commit(), "baseline": str(baseline) if baseline else None, "sizes": rows, "slopes": slopes}
    if args.map_rows > 0:
        print(f"kgc map, largest source {args.map_rows:,} records:", flush=True)
        result["map_rows"] = bench_map_rows(args.map_rows, blinkg, root, args.seed, args.repeat, baseline)
    (root / "scale.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    md = _markdown(rows, slopes)
    print()
    print(md)
    notes = []
    for r in rows:
        if "distributed_identical" in r:
            notes.append(f"{r['size']}: distributed output identical to the single-process output: "
                         f"{'yes' if r['distributed_identical'] else 'NO'}")
        if "baseline_identical" in r:
            notes.append(f"{r['size']}: baseline output identical to ours: {'yes' if r['baseline_identical'] else 'NO'}")
        for name, v in r["validation"].items():
            notes.append(f"{r['size']} {name}: {v['value']} ({v['status']}, {v['elapsed_s']} s)"
                         + (f" coverage: {v['coverage']}" if v.get("coverage") else ""))
    if "map_rows" in result:
        m = result["map_rows"]
        line = (f"kgc map on {sum(m['rows'].values()):,} records (largest source {max(m['rows'].values()):,}): "
                f"{m['cpu_s']} s CPU, {m['mem_mb']} MB summed ({m['rss_mb']} MB largest process), exit {m['rc']}, "
                f"{m['table_rows']} table rows")
        if "baseline" in m:
            line += f"; baseline {m['baseline']['cpu_s']} s CPU, {m['baseline']['mem_mb']} MB"
        notes.append(line)
    for n in notes:
        print(n)
    (root / "scale.md").write_text(md + "\n" + "\n".join(notes) + "\n", encoding="utf-8")
    print(f"written: {root / 'scale.json'}, {root / 'scale.md'}")
    return 0


def _commit() -> str | None:
    """The checkout's commit (``None`` outside git)."""
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
                              cwd=Path(__file__).resolve().parent)
    except OSError:
        return None
    return done.stdout.strip() or None


if __name__ == "__main__":
    sys.exit(main())
