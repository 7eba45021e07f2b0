"""How a local cluster starts its workers, and how the benchmark finds them and their memory.

The workers of a local cluster are forked from the driver on Linux and find its plan; workers
started by a forkserver plan the rules from the shipped payload: both write the single-process
output byte for byte.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline.materialize.distributed as dist_mod
from pipeline.bench.proctree import measure
from pipeline.bench.scale import dask_workers
from pipeline.materialize.distributed import materialize_distributed, start_method
from pipeline.materialize.materializer import materialize

pytest.importorskip("distributed")
MAPPING = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/o#> .
<#Stop> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "stops.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/stop/{id}" ; rml:class ex:Stop ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] .
<#Time> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "times.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/time/{trip}/{seq}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:stop ; rml:objectMap [ rml:parentTriplesMap <#Stop> ;
      rml:joinCondition [ rml:child "stop" ; rml:parent "id" ] ] ] .
"""


def _case(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "m.rml.ttl").write_text(MAPPING, encoding="utf-8")
    stops = ["id,name"] + [f"s{i},{'' if i % 9 == 0 else f'Stop {i}'}" for i in range(300)]
    (folder / "stops.csv").write_text("\n".join(stops) + "\n", encoding="utf-8")
    times = ["trip,seq,stop"] + [f"t{j // 10},{j % 10},s{(j * 7) % 320}" for j in range(900)]
    (folder / "times.csv").write_text("\n".join(times) + "\n", encoding="utf-8")
    return folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked from the driver on Linux only")
def test_forked_and_forkserver_workers_write_the_single_process_output(tmp_path, monkeypatch):
    folder = _case(tmp_path / "case")
    monkeypatch.chdir(folder)
    from pipeline.materialize.rml.normalize import normalize_rml
    import rdflib

    graph = rdflib.Graph().parse(data=MAPPING, format="turtle")
    norm = normalize_rml(graph, mapping_dir=folder)
    engine = tmp_path / "m.morph-kgc.ttl"
    norm.graph.serialize(engine, format="turtle")
    single = materialize(engine, output=tmp_path / "single.nt")
    expected = (tmp_path / "single.nt").read_bytes()
    assert start_method() == "fork" and single.n_triples > 1000
    forked = materialize_distributed(engine, tmp_path / "fork.nt", workers=2, block_size=1500)
    assert (tmp_path / "fork.nt").read_bytes() == expected
    assert forked.tasks["reduce"] == forked.buckets >= 2 and forked.blocks >= 8
    cpu = json.loads(forked.manifest.read_text())["task_cpu_s"]  # where the workers' time went, per phase
    assert {"map read", "map rules", "map guard", "map join sides", "reduce join"} <= set(cpu)
    assert all(v >= 0 for v in cpu.values())
    monkeypatch.setattr(dist_mod, "start_method", lambda: "forkserver")
    dist_mod._STATE.clear()  # nothing planned here for the forkserver's workers to inherit
    served = materialize_distributed(engine, tmp_path / "served.nt", workers=2, block_size=1500)
    assert (tmp_path / "served.nt").read_bytes() == expected
    assert served.n_triples == forked.n_triples == single.n_triples


def test_the_benchmark_finds_forked_workers_and_their_own_memory():
    root = "/venv/bin/python3 /venv/bin/kgc -q materialize m.ttl kg.nt --distributed"
    procs = [
        {"pid": 11, "parent": 10, "cmd": root, "peak_mb": 400.0, "own_mb": 180.0, "cpu_s": 3.0},   # forked worker
        {"pid": 12, "parent": 10, "cmd": root, "peak_mb": 190.0, "own_mb": 175.0, "cpu_s": 2.0},   # forked worker
        {"pid": 13, "parent": 11, "cmd": root, "peak_mb": 180.0, "own_mb": 180.0, "cpu_s": 0.1},   # sort before exec
        {"pid": 14, "parent": 11, "cmd": "/usr/bin/sort -u -S 16M", "peak_mb": 17.0, "own_mb": 17.0, "cpu_s": 0.4},
        {"pid": 15, "parent": 10, "cmd": "/usr/bin/sort -m -u", "peak_mb": 40.0, "own_mb": 40.0, "cpu_s": 0.3},
        {"pid": 21, "parent": 10, "cmd": "python3 -c from multiprocessing.forkserver import main; main(1)",
         "peak_mb": 500.0, "own_mb": 110.0, "cpu_s": 1.0},
        {"pid": 22, "parent": 21, "cmd": "python3 -c from multiprocessing.forkserver import main; main(1)",
         "peak_mb": 200.0, "own_mb": 150.0, "cpu_s": 1.0},                                          # forkserver worker
    ]
    assert [p["pid"] for p in dask_workers(procs, root)] == [11, 12, 22]
    assert [p["pid"] for p in dask_workers(procs)] == [22]


def test_measure_reports_a_child_s_own_peak_apart_from_its_subtree(tmp_path):
    code = ("import os, time\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    block = bytearray(80 << 20)\n"  # the child's own 80 MB, written so they are resident
            "    time.sleep(0.6)\n"
            "    os._exit(0)\n"
            "os.waitpid(pid, 0)\n")
    # measured from a fresh process: this one may have children of its own (a forkserver) that
    # measure(), a subreaper, would wait for
    probe = ("import json, sys; from pathlib import Path; from pipeline.bench.proctree import measure; "
             f"u = measure([sys.executable, '-c', {code!r}], Path({str(tmp_path / 'log.txt')!r})); "
             "print(json.dumps({'rc': u.rc, 'root_cmd': u.root_cmd, 'processes': u.processes}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    usage = json.loads(done.stdout)
    assert usage["rc"] == 0 and usage["root_cmd"].startswith(sys.executable)
    child = next(p for p in usage["processes"] if p["cmd"] == usage["root_cmd"])
    assert child["own_mb"] >= 80 and child["peak_mb"] >= child["own_mb"]


def test_full_blocks_with_a_short_last_one_read_as_the_whole_file(tmp_path):
    import pandas as pd

    from pipeline.materialize.blocks import nominal_ranges, read_block, scan_block, split_file

    path = tmp_path / "s.csv"
    rows = ["id,name"] + [f's{i},"Stop {i},\n{i % 4}"' if i % 5 == 0 else f"s{i},Stop {i}" for i in range(40)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    size = path.stat().st_size
    whole = pd.read_table(path, sep=",", index_col=False, dtype=str, keep_default_na=False, na_filter=False)
    assert nominal_ranges(10, 4) == [(0, 4), (4, 8), (8, 10)] and nominal_ranges(0, 4) == [(0, 0)]
    for block in (1, 3, 7, 16, 61, size - 1, size, size + 5):  # last blocks of 1 byte up to a whole block
        ranges = nominal_ranges(size, block)
        assert all(b - a == block for a, b in ranges[:-1]) and ranges[-1][1] == size
        blocks = split_file(str(path), ranges, [scan_block(str(path), a, b, ",") for a, b in ranges])
        parts = pd.concat([read_block(b, "CSV", ["id", "name"]) for b in blocks], ignore_index=True)
        assert parts.equals(whole), block
