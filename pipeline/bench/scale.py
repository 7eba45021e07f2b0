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
* ``distributed``: ``kgc materialize --distributed`` (Dask, local cluster) when installed;
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
import configparser
import csv
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pipeline.fno import UDF_FILE
from pipeline.materialize.output import count_lines

__all__ = ["generate", "run_stage", "slope", "main"]

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


def run_stage(cmd: list[str], log: Path, cwd: Path | None = None) -> dict[str, Any]:
    """Run one command as a child process; its wall seconds, CPU seconds (user + system: less
    sensitive than wall time to other jobs on a shared machine), peak RSS (MB) and exit code.

    The peak RSS is ``ru_maxrss`` of :func:`os.wait4` on that child (Linux: KiB; it covers the
    child and the grandchildren it waited for). stdout and stderr go to ``log``.
    """
    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return {"s": round(time.perf_counter() - t0, 2), "rss_mb": round(usage.ru_maxrss / 1024, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "rc": proc.returncode}


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
    cfg = configparser.ConfigParser()
    cfg["CONFIGURATION"] = {"output_file": str(out_nt), "output_format": "N-TRIPLES", "udfs": str(UDF_FILE),
                            "logging_level": "ERROR", "na_values": ",", "number_of_processes": str(processes)}
    cfg["DataSource1"] = {"mappings": str(rml)}
    path = work / "engine.ini"
    with open(path, "w", encoding="utf-8") as fh:
        cfg.write(fh)
    return path


def _bench_size(label: str, k: float, blinkg: Path, root: Path, seed: int, repeat: int,
                distributed: bool, partitions: int, processes: int) -> dict[str, Any]:
    work = root / label
    manifest = generate(blinkg, k, work / "data", seed)
    bin_dir = Path(sys.executable).parent
    kgc = str(bin_dir / "kgc")
    gold_table = blinkg / "scenarios" / "scenario2" / "complete" / "expected_table.md"
    rml, kg, eng = work / "mapping.rml.ttl", work / "kg.nt", work / "engine.nt"
    stages: dict[str, list[dict[str, Any]]] = {}

    def add(name: str, cmd: list[str]) -> dict[str, Any]:
        r = run_stage(cmd, work / f"{name}.log")
        stages.setdefault(name, []).append(r)
        print(f"  {label} {name}: {r['s']} s, {r['rss_mb']} MB, exit {r['rc']}", flush=True)
        return r

    for _ in range(repeat):
        add("compile", [kgc, "-q", "compile", str(manifest), str(gold_table), str(rml)])
        cfg = _engine_config(rml, eng, work, processes)
        add("engine", [sys.executable, "-m", "morph_kgc", str(cfg)])
        add("materialize", [kgc, "-q", "materialize", str(rml), str(kg), "--manifest", str(manifest),
                            "--processes", str(processes)])
        if distributed:
            add("distributed", [kgc, "-q", "materialize", str(rml), str(work / "kg-distributed.nt"), "--manifest",
                                str(manifest), "--distributed", "--partitions", str(partitions)])
    add("map", [kgc, "-q", "map", str(manifest), str(work / "table.json")])
    add("validate", [kgc, "-q", "validate", str(manifest), str(kg), "--out", str(work / "validation.json")])
    dropped = sum(int(m) for m in _DROPPED.findall((work / "materialize.log").read_text(encoding="utf-8")))
    n_engine, n_ours = _count_lines(eng), _count_lines(kg)
    med = {name: {"s": statistics.median(r["s"] for r in runs), "rss_mb": max(r["rss_mb"] for r in runs),
                  "cpu_s": statistics.median(r["cpu_s"] for r in runs), "rc": runs[-1]["rc"]}
           for name, runs in stages.items()}
    validation = {}
    if (work / "validation.json").exists():
        for name, r in json.loads((work / "validation.json").read_text(encoding="utf-8")).items():
            validation[name] = {"value": r.get("value"), "status": r.get("status"), "elapsed_s": r.get("elapsed_s"),
                                "coverage": (r.get("details") or {}).get("coverage")}
    row: dict[str, Any] = {"size": label, "copies": round(k, 3), "engine_triples": n_engine, "our_triples": n_ours,
                           "dropped_by_guards": dropped, "unexplained": n_engine - n_ours - dropped,
                           "stages": med, "validation": validation}
    if distributed and (work / "kg-distributed.nt").exists():
        row["distributed_identical"] = (work / "kg-distributed.nt").read_bytes() == kg.read_bytes()
    eng_s = med["engine"]["s"]
    ours = med["compile"]["s"] + med["materialize"]["s"]
    row["ratio_ours_engine"] = round(ours / eng_s, 2) if eng_s else None
    # CPU seconds (user + system, the sort child included): what other jobs on a shared machine disturb least
    eng_cpu = med["engine"]["cpu_s"]
    ours_cpu = med["compile"]["cpu_s"] + med["materialize"]["cpu_s"]
    row["ratio_ours_engine_cpu"] = round(ours_cpu / eng_cpu, 2) if eng_cpu else None
    row["ratio_rss"] = round(max(med["compile"]["rss_mb"], med["materialize"]["rss_mb"]) / med["engine"]["rss_mb"], 2)
    row["ratio_validate_materialize"] = round(med["validate"]["s"] / med["materialize"]["s"], 2)
    for f in (eng, work / "kg-distributed.nt"):  # big files: keep kg.nt only for inspection
        if f.exists() and f.stat().st_size > 50_000_000:
            f.unlink()
    return row


def _markdown(rows: list[dict[str, Any]], slopes: dict[str, float | None]) -> str:
    names = [n for n in ("engine", "compile", "materialize", "distributed", "map", "validate")
             if n in rows[0]["stages"]]
    head = ["size", "triples engine / ours (dropped)"] + [f"{n} s (MB)" for n in names]
    head += ["(compile+mat) / engine: wall (CPU)", "RSS ours / engine", "validate / mat"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["size"], f"{r['engine_triples']:,} / {r['our_triples']:,} ({r['dropped_by_guards']:,}"
                 + (f", {r['unexplained']:+,} unexplained" if r["unexplained"] else "") + ")"]
        cells += [f"{r['stages'][n]['s']} ({r['stages'][n]['rss_mb']:.0f})" for n in names]
        cells += [f"{r['ratio_ours_engine']}x ({r.get('ratio_ours_engine_cpu')}x)", f"{r['ratio_rss']}x",
                  f"{r['ratio_validate_materialize']}x"]
        out.append("| " + " | ".join(cells) + " |")
    out.append("| log-log slope | | " + " | ".join(str(slopes.get(n)) for n in names) + " | | | |")
    return "\n".join(out) + "\n"


def bench_map_rows(rows: int, blinkg: Path, root: Path, seed: int) -> dict[str, Any]:
    """``kgc map`` on a workload whose largest source (``stop_times.csv``) has ``rows`` records.

    Returns:
        ``{"rows": {file: records}, "s", "rss_mb", "rc", "table_rows"}``.
    """
    work = root / f"map-{rows}"
    src = blinkg / "scenarios" / "scenario2" / "complete" / "stop_times.csv"
    per_copy = _count_lines(src) - 1
    manifest = generate(blinkg, rows / per_copy, work / "data", seed)
    counts = {p.name: _count_lines(p) - 1 for p in sorted((work / "data").glob("*.csv"))}
    out = work / "table.json"
    r = run_stage([str(Path(sys.executable).parent / "kgc"), "-q", "map", str(manifest), str(out)], work / "map.log")
    r["rows"] = counts
    r["table_rows"] = len(json.loads(out.read_text(encoding="utf-8"))["rows"]) if out.exists() else None
    for p in (work / "data").glob("*.csv"):  # ~170 MB of generated CSV: not kept
        p.unlink()
    return r


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m pipeline.bench.scale`` (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--blinkg", default=os.environ.get("BLINKG_DIR", "../shared/benchmarks/blinkg"))
    p.add_argument("--out", default="out/bench-scale")
    p.add_argument("--sizes", default=os.environ.get("BENCH_SCALE_SIZES", "10k,100k,1M"),
                   help="comma-separated: 10k, 100k, 1M, 10M (10M also with BENCH_SCALE_10M=1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=1, help="runs of engine/compile/materialize per size (median)")
    p.add_argument("--partitions", type=int, default=2, help="partitions of the distributed run")
    p.add_argument("--no-distributed", dest="distributed", action="store_false")
    p.add_argument("--processes", type=int, default=int(os.environ.get("BENCH_SCALE_PROCESSES", "1")),
                   help="worker processes of the engine alone (number_of_processes) and of `kgc materialize "
                        "--processes`: the same on both sides (Morph-KGC's own default is 2 x CPUs)")
    p.add_argument("--map-rows", type=int, default=int(os.environ.get("BENCH_SCALE_MAP_ROWS", "1000000")),
                   help="records of the largest source in the extra `kgc map` run (0: skip it)")
    args = p.parse_args(argv)
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

    compileall.compile_dir(str(Path(__file__).resolve().parents[1]), quiet=1)
    rows = []
    for label in labels:
        print(f"size {label}:", flush=True)
        rows.append(_bench_size(label, SIZES[label] / TRIPLES_PER_COPY, blinkg, root, args.seed, args.repeat,
                                distributed, args.partitions, args.processes))
    xs = [r["engine_triples"] for r in rows]
    slopes = {n: slope(xs, [r["stages"][n]["s"] for r in rows]) for n in rows[0]["stages"]}
    result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "processes": args.processes,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": args.seed, "sizes": rows,
              "slopes": slopes}
    if args.map_rows > 0:
        print(f"kgc map, largest source {args.map_rows:,} records:", flush=True)
        result["map_rows"] = bench_map_rows(args.map_rows, blinkg, root, args.seed)
    (root / "scale.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    md = _markdown(rows, slopes)
    (root / "scale.md").write_text(md, encoding="utf-8")
    print()
    print(md)
    for r in rows:
        if "distributed_identical" in r:
            print(f"  {r['size']} distributed output identical to the single-process output: "
                  f"{'yes' if r['distributed_identical'] else 'NO'}")
        for name, v in r["validation"].items():
            cov = v.get("coverage")
            print(f"  {r['size']} {name}: {v['value']} ({v['status']}, {v['elapsed_s']} s)"
                  + (f" coverage: {cov}" if cov else ""))
    if "map_rows" in result:
        m = result["map_rows"]
        line = (f"kgc map on {sum(m['rows'].values()):,} records (largest source {max(m['rows'].values()):,}): "
                f"{m['s']} s wall, {m['cpu_s']} s CPU, {m['rss_mb']:.0f} MB, exit {m['rc']}, {m['table_rows']} table rows")
        print(line)
        (root / "scale.md").write_text(md + "\n" + line + "\n", encoding="utf-8")
    print(f"written: {root / 'scale.json'}, {root / 'scale.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
