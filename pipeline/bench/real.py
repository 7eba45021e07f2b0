"""Benchmark: the offline mapper on public cases that people mapped by hand (``make bench-real``).

Usage::

    python -m pipeline.bench.real [--corpus DIR ...] [--out DIR] [--case NAME] [--timeout S]

The corpus is every folder with a ``case.yaml`` (a kgc manifest whose ``gold.graph`` is the KG the
hand-written mapping produces) under ``$REAL_MAPPINGS_DIR`` (default
``../shared/benchmarks/real-mappings`` from the project root) and the project's own
``data/real-mappings/``; ``--corpus`` replaces both.

Per case, ``kgc map`` runs in a process of its own (CPU seconds, user plus system, and peak
resident memory of that process, from ``getrusage`` of a wrapper whose only child it is: the
load and map stages together), then ``kgc run --mapper replay`` of that table builds the KG
without evaluation. The KG is compared with the reference by
:func:`pipeline.scoring.graph.pairs.compare_graphs`, IRI-agnostic: classes, predicates and
(predicate, value) pairs, precision and recall, against the whole reference and against its
*reachable* part (statements whose terms the case's vocabularies declare); entities per class
against the reference; the sources that contributed (a record of theirs got a subject). The
table's rows marked ``review`` (when the mapper marks any) are counted apart: their share, and
the precision of the rows not marked, a row being right when at least half of the
(predicate, value) pairs its property gives on its class's entities are in the reference.

A benchmark, not a test: nothing is asserted; the goals are in docs/benchmarks/real.md.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.ontology import Ontology, load_ontology
from pipeline.rdffile import load_graph
from pipeline.scoring.graph.pairs import compare_graphs, declared_terms, graph_pairs

__all__ = ["corpus_cases", "bench_case", "main"]

_ROOT = Path(__file__).resolve().parents[2]
#: Where the shared corpus is read from when ``$REAL_MAPPINGS_DIR`` is not set.
DEFAULT_CORPUS = _ROOT.parent / "shared" / "benchmarks" / "real-mappings"
#: The project's own small cases (permissive licences, each with its PROVENANCE.md).
PROJECT_CORPUS = _ROOT / "data" / "real-mappings"

# Runs `argv` as its only child and prints the child's CPU seconds and peak RSS (KiB, Linux).
_WRAPPER = ("import json, resource, subprocess, sys; p = subprocess.run(sys.argv[1:]); "
            "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'rc': p.returncode, 'cpu_s': r.ru_utime + r.ru_stime, 'rss_kib': r.ru_maxrss}))")


def corpus_cases(roots: list[Path] | None = None) -> list[Path]:
    """The ``case.yaml`` files of the corpus, sorted by case folder name.

    Args:
        roots: corpus folders; ``None``: ``$REAL_MAPPINGS_DIR`` (or :data:`DEFAULT_CORPUS`) and
            :data:`PROJECT_CORPUS`, those that exist.
    Raises:
        InputError: a given root is not a folder, or no case is found.
    """
    if roots is None:
        roots = [Path(os.environ.get("REAL_MAPPINGS_DIR") or DEFAULT_CORPUS), PROJECT_CORPUS]
        roots = [r for r in roots if r.is_dir()]
    else:
        for r in roots:
            if not r.is_dir():
                raise InputError("corpus folder not found", path=r)
    cases = sorted((p for r in roots for p in r.glob("*/case.yaml")), key=lambda p: p.parent.name)
    if not cases:
        raise InputError(f"no case (*/case.yaml) found in {', '.join(map(str, roots)) or 'no corpus folder'} "
                         "(set REAL_MAPPINGS_DIR)")
    return cases


def _measured(argv: list[str], timeout: float) -> dict[str, Any]:
    try:
        out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "timeout": True}
    try:
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"rc": out.returncode, "error": out.stderr[-500:]}
    result["stderr"] = out.stderr[-2000:]
    return result


def _row_precision(table_json: Path, kg: Graph, ref_pairs: Counter, vocabulary: set[str],
                   ontology: Ontology) -> dict[str, Any]:
    """Rows marked for review and the precision of the others (see the module docstring)."""
    if not table_json.is_file():
        return {"rows": 0}
    rows = json.loads(table_json.read_text(encoding="utf-8")).get("rows", [])
    types: dict[Any, set[str]] = {}
    for s, o in kg.subject_objects(RDF.type):
        types.setdefault(s, set()).add(str(o))
    right = judged = review = 0
    for row in rows:
        if row.get("review"):
            review += 1
            continue
        prop = str(ontology.expand(row.get("ontology_property")) or "")
        cls = str(ontology.expand(row.get("entity_class")) or "")
        sub = Graph()
        for s, p, o in kg:
            if str(p) == prop and (not cls or cls in types.get(s, ())):
                sub.add((s, p, o))
        for s in set(sub.subjects()):  # the object's types, for "entity of" values
            for o in types.get(s, ()):
                sub.add((s, RDF.type, URIRef(o)))
        pairs = Counter({k: v for k, v in graph_pairs(sub, vocabulary).items() if k[0] == prop})
        if not pairs:
            continue
        judged += 1
        right += sum((pairs & ref_pairs).values()) >= 0.5 * sum(pairs.values())
    return {"rows": len(rows), "review": review, "judged": judged,
            "unmarked_precision": right / judged if judged else None}


def bench_case(manifest: Path, out: Path, timeout: float = 600.0) -> dict[str, Any]:
    """Map, materialize and score one corpus case; returns its figures (see the module docstring)."""
    case = load_manifest(manifest)
    folder = out / case.name
    folder.mkdir(parents=True, exist_ok=True)
    table = folder / "table.json"
    res: dict[str, Any] = {"case": case.name}
    mapped = _measured([sys.executable, "-m", "pipeline.cli", "-q", "map", str(manifest), str(table)], timeout)
    res["map"] = {k: v for k, v in mapped.items() if k != "stderr"}
    if mapped.get("rc") != 0:
        res["status"] = "map timed out" if mapped.get("timeout") else f"map exit {mapped.get('rc')}"
        res["detail"] = (mapped.get("stderr") or mapped.get("error") or "")[-300:]
        return res
    run = subprocess.run([sys.executable, "-m", "pipeline.cli", "-q", "run", str(manifest), "--mapper", "replay",
                          "--table", str(table), "--out", str(folder / "run"), "--no-evaluate"],
                         capture_output=True, text=True, timeout=timeout)
    case_dir = folder / "run" / case.scenario / case.name
    kg_path = case_dir / "kg.nt"
    kg = Graph()
    if kg_path.is_file():
        kg.parse(kg_path, format="nt")
    res["status"] = "ok" if run.returncode in (0, 1) and kg_path.is_file() else f"run exit {run.returncode}"
    run_json = case_dir / "run.json"
    coverage = json.loads(run_json.read_text(encoding="utf-8")).get("coverage", {}) if run_json.is_file() else {}
    res["sources"] = [len(case.sources), sum(1 for c in coverage.values() if c.get("records_with_subject"))]
    reference = load_graph(case.gold_graph, "reference KG")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    vocabulary = declared_terms([ontology.graph])
    res["all"] = compare_graphs(kg, reference, vocabulary).to_dict()
    res["reachable"] = compare_graphs(kg, reference, vocabulary, reachable=True).to_dict()
    res["rows"] = _row_precision(table, kg, graph_pairs(reference, vocabulary), vocabulary, ontology)
    return res


def _f(v: Any) -> str:
    return "n/a" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def render(results: list[dict[str, Any]]) -> str:
    """The Markdown tables of ``results`` (per case, then means over the cases)."""
    head = ("| case | status | map CPU s | map peak MiB | sources | class P/R | predicate P/R | pair P/R (all) "
            "| pair P/R (reachable) | entities within 20% | rows (review) | unmarked row precision |")
    lines = [head, "|" + "|".join(["---"] * 12) + "|"]
    for r in results:
        a, rr, m, rows = r.get("all", {}), r.get("reachable", {}), r.get("map", {}), r.get("rows", {})
        src = r.get("sources")
        lines.append("| " + " | ".join([
            r["case"], r.get("status", "?"), _f(m.get("cpu_s")),
            _f(m["rss_kib"] / 1024) if m.get("rss_kib") else "n/a",
            f"{src[1]} of {src[0]}" if src else "n/a",
            f"{_f(rr.get('class_precision'))} / {_f(rr.get('class_recall'))}",
            f"{_f(rr.get('predicate_precision'))} / {_f(rr.get('predicate_recall'))}",
            f"{_f(a.get('pair_precision'))} / {_f(a.get('pair_recall'))}",
            f"{_f(rr.get('pair_precision'))} / {_f(rr.get('pair_recall'))}",
            _f(rr.get("entities_within")),
            f"{rows.get('rows', 0)} ({rows.get('review', 0)})" if rows else "n/a",
            _f(rows.get("unmarked_precision")),
        ]) + " |")

    def mean(key: str, part: str = "reachable") -> str:
        return _f(_mean([r.get(part, {}).get(key) for r in results]))

    lines += ["", "Means over the cases (reachable reference unless said):", "",
              "| class P / R | predicate P / R | pair P / R (all) | pair P / R (reachable) | entities within 20% "
              "| unmarked row precision | every source contributes |", "|---|---|---|---|---|---|---|",
              f"| {mean('class_precision')} / {mean('class_recall')} | {mean('predicate_precision')} / "
              f"{mean('predicate_recall')} | {mean('pair_precision', 'all')} / {mean('pair_recall', 'all')} | "
              f"{mean('pair_precision')} / {mean('pair_recall')} | {mean('entities_within')} | "
              f"{_f(_mean([r.get('rows', {}).get('unmarked_precision') for r in results]))} | "
              f"{sum(1 for r in results if r.get('sources') and r['sources'][0] == r['sources'][1])} of "
              f"{len(results)} cases |"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0, or 2 when the corpus is not found."""
    ap = argparse.ArgumentParser(prog="bench-real", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", type=Path, help="a corpus folder (repeatable; default: "
                    "$REAL_MAPPINGS_DIR or ../shared/benchmarks/real-mappings, and data/real-mappings)")
    ap.add_argument("--out", type=Path, default=None, help="working folder (default: a temporary one)")
    ap.add_argument("--case", action="append", help="only this case (folder name; repeatable)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per stage and case (default: %(default)s)")
    args = ap.parse_args(argv)
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)  # ill-typed literals: SV2 reports them, not this
    try:
        cases = corpus_cases(args.corpus)
    except InputError as exc:
        print(f"bench-real: {exc}", file=sys.stderr)
        return 2
    if args.case:
        cases = [c for c in cases if c.parent.name in args.case]
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        out = args.out or Path(tmp)
        results = []
        for manifest in cases:
            print(f"{manifest.parent.name} ...", file=sys.stderr, flush=True)
            results.append(bench_case(manifest, out, args.timeout))
        (out / "bench-real.json").write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(render(results))
        if args.out:
            print(f"\nper-case figures: {out / 'bench-real.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
