"""Benchmark: graph-layer scores across IRI schemes (``make bench-align``).

Usage::

    python -m pipeline.bench.alignment [--corpus DIR ...] [--runs DIR] [--scale N]

Three measurements of the content alignment (:mod:`pipeline.scoring.graph.resolution`):

* **Self-check on the real-mappings corpus.** Each case's reference KG is compared with a copy of
  itself whose entities all carry opaque IRIs (``urn:bench:<sha1>``; blank nodes stay blank), once
  as it is and once *perturbed* (30 % of the non-type statements dropped, 10 % of the remaining
  literals changed, seeded): the truth is known, so the alignment's recall (reference entities
  paired with their own copy, or with a reference entity whose description is identical up to
  case and spacing: such duplicates are interchangeable) and its errors are counted, with SA2 property F1 and SA4 through
  it. A reference that holds nothing but IRIs and types cannot be told apart under opaque IRIs:
  that is a property of the data, and shows as recall below 1.
* **The offline mapper's KGs** (``--runs``: the ``--out`` folder of ``kgc run <case.yaml>``): the
  exact-IRI and the aligned figures side by side, read from each case's ``graph_scores.json``.
* **Scale** (``--scale N``): a synthetic reference of ``N`` people (9 statements each) and a KG
  with the same facts under other IRIs and 5 % of its values changed; CPU seconds of
  :func:`pipeline.scoring.graph.score_graph` (both alignments, every measure) and peak resident
  memory of this process.

A benchmark, not a test: nothing is asserted; figures and their commands are in
docs/benchmarks/alignment.md.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, XSD

from pipeline.bench.real import corpus_cases
from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.rdffile import load_graph
from pipeline.scoring.graph import ALIGNED_NAMES, score_graph
from pipeline.scoring.graph.align import entities_of
from pipeline.scoring.graph.assertions import sa2, sa4
from pipeline.scoring.graph.resolution import resolve_entities, value_key

__all__ = ["opaque_copy", "self_check", "run_figures", "scale", "main"]

#: Share of non-type statements the perturbed copy drops, and of its literals it changes.
DROP, CHANGE = 0.3, 0.1


def opaque_copy(g: Graph, drop: float = 0.0, change: float = 0.0, seed: int = 0) -> tuple[Graph, dict]:
    """``g`` with every IRI entity renamed ``urn:bench:<sha1>``, optionally perturbed.

    Returns:
        ``(copy, {copy entity: original entity})`` (blank nodes map to themselves).
    """
    rnd = random.Random(seed)
    names = {e: URIRef("urn:bench:" + hashlib.sha1(str(e).encode()).hexdigest()[:16]) if isinstance(e, URIRef) else e
             for e in entities_of(g)}
    out = Graph()
    for s, p, o in sorted(g, key=str):  # sorted: the same perturbation whatever the parse order
        if p != RDF.type and drop and rnd.random() < drop:
            continue
        if isinstance(o, Literal) and change and rnd.random() < change:
            o = Literal(f"changed {rnd.randrange(10**6)}")
        out.add((names.get(s, s), p, names.get(o, o) if not isinstance(o, Literal) else o))
    return out, {v: k for k, v in names.items()}


def _description(g: Graph, e: Any) -> frozenset:
    """What ``g`` says of ``e``, values compared as the alignment compares them (case and spacing aside)."""
    return frozenset((p, value_key(str(o)) if isinstance(o, Literal) else o) for p, o in g.predicate_objects(e)
                     if not isinstance(o, BNode))


def self_check(reference: Graph, drop: float = 0.0, change: float = 0.0) -> dict[str, Any]:
    """The content alignment of an opaque (perturbed) copy of ``reference`` with ``reference``."""
    copy, truth = opaque_copy(reference, drop, change)
    t = time.process_time()
    al = resolve_entities(copy, reference)
    cpu = time.process_time() - t
    right = equivalent = 0
    for e, g in al.pairs.items():
        if truth.get(e) == g:
            right += 1
        elif truth.get(e) is not None and _description(reference, truth[e]) == _description(reference, g):
            equivalent += 1
    n_ref = len(entities_of(reference))
    scores = sa2(copy, reference, None, al)
    return {"entities": n_ref, "pairs": len(al.pairs), "right": right, "interchangeable": equivalent,
            "wrong": len(al.pairs) - right - equivalent, "recall": (right + equivalent) / n_ref if n_ref else None,
            "sa2_prop_f1": scores["SA2-prop-exact"].value, "sa4": sa4(copy, reference, al).value,
            "rounds": al.rounds, "cpu_s": cpu}


def run_figures(runs: Path) -> list[dict[str, Any]]:
    """Exact and aligned figures of every ``graph_scores.json`` under ``runs`` (a ``kgc run --out``)."""
    rows = []
    for f in sorted(runs.glob("*/*/graph_scores.json")):
        scores = json.loads(f.read_text(encoding="utf-8"))
        if "SA2-prop-aligned" not in scores:
            continue
        row: dict[str, Any] = {"case": f.parent.name}
        for exact, aligned in ALIGNED_NAMES.items():
            row[exact] = scores.get(exact, {}).get("value")
            row[aligned] = scores.get(aligned, {}).get("value")
        for side, name in (("exact", "SA2-type-exact"), ("aligned", "SA2-type-aligned")):
            al = (scores.get(name, {}).get("details") or {}).get("alignment") or {}
            row[f"pairs_{side}"] = al.get("n_pairs")
        row["reference_entities"] = (scores.get("CM3", {}).get("details") or {}).get("n_gold")
        rows.append(row)
    return rows


def scale(n: int, seed: int = 1) -> dict[str, Any]:
    """CPU seconds of :func:`score_graph` on a synthetic reference of ``n`` people (module docstring)."""
    ex = Namespace("http://example.org/")
    rnd = random.Random(seed)
    gold, kg = Graph(), Graph()
    cities = [f"City {i}" for i in range(200)]
    for i in range(n):
        g, p = ex[f"person/{i}"], URIRef(f"urn:kg:p{i * 7919 % 1000003}")
        facts = [(RDF.type, ex.Person), (ex.id, Literal(str(i))), (ex.name, Literal(f"Name {rnd.randrange(n)}")),
                 (ex.city, Literal(rnd.choice(cities))), (ex.age, Literal(rnd.randrange(90), datatype=XSD.integer)),
                 (ex.score, Literal(rnd.random())), (ex.member, Literal(rnd.random() < .5)),
                 (ex.code, Literal(f"C{rnd.randrange(1000)}")), (ex.knows, ex[f"person/{rnd.randrange(n)}"])]
        for pr, o in facts:
            gold.add((g, pr, o))
            if pr != ex.knows:
                kg.add((p, pr, Literal("changed") if rnd.random() < 0.05 else o))
    t = time.process_time()
    r = score_graph(kg, gold)
    return {"reference_triples": len(gold), "kg_triples": len(kg), "cpu_s": time.process_time() - t,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "SA2-prop-exact": r["SA2-prop-exact"].value, "SA2-prop-aligned": r["SA2-prop-aligned"].value,
            "CM3-aligned": r["CM3-aligned"].value}


def _f(v: Any) -> str:
    return "n/a" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0, or 2 when the corpus or the runs folder is not found."""
    ap = argparse.ArgumentParser(prog="bench-align", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", type=Path, help="a corpus folder (repeatable; default: as "
                    "bench-real: $REAL_MAPPINGS_DIR or ../shared/benchmarks/real-mappings, and data/real-mappings)")
    ap.add_argument("--runs", type=Path, help="the --out folder of `kgc run` on corpus cases: exact vs aligned")
    ap.add_argument("--scale", type=int, default=0, help="people in the synthetic scale reference (0: skip)")
    args = ap.parse_args(argv)
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    try:
        cases = corpus_cases(args.corpus)
    except InputError as exc:
        print(f"bench-align: {exc}", file=sys.stderr)
        return 2
    print("| case | reference entities | copy | pairs | right | interchangeable | wrong | recall | SA2 prop F1 | SA4 | CPU s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for manifest in cases:
        reference = load_graph(load_manifest(manifest).gold_graph, "reference KG")
        for label, drop, change in (("opaque IRIs", 0.0, 0.0), ("+ perturbed", DROP, CHANGE)):
            r = self_check(reference, drop, change)
            print(f"| {manifest.parent.name} | {r['entities']} | {label} | {r['pairs']} | {r['right']} | "
                  f"{r['interchangeable']} | {r['wrong']} | {_f(r['recall'])} | {_f(r['sa2_prop_f1'])} | "
                  f"{_f(r['sa4'])} | {r['cpu_s']:.2f} |")
    if args.runs:
        if not args.runs.is_dir():
            print(f"bench-align: --runs: folder not found: {args.runs}", file=sys.stderr)
            return 2
        names = ("SA2-type-exact", "SA2-prop-exact", "SA3", "SA4", "CM3")
        print("\n| case | pairs exact / aligned | " + " | ".join(f"{n.removesuffix('-exact')} exact / aligned"
                                                         for n in names) + " |")
        print("|---|---|" + "---|" * len(names))
        for row in run_figures(args.runs):
            print(f"| {row['case']} | {row['pairs_exact']} / {row['pairs_aligned']} of {row['reference_entities']} | "
                  + " | ".join(f"{_f(row[n])} / {_f(row[ALIGNED_NAMES[n]])}" for n in names) + " |")
    if args.scale:
        r = scale(args.scale)
        print(f"\nscale: reference {r['reference_triples']} triples, KG {r['kg_triples']} triples: score_graph "
              f"{r['cpu_s']:.1f} CPU s, peak RSS {r['peak_rss_mb']} MB; SA2 prop exact {_f(r['SA2-prop-exact'])}, "
              f"aligned {_f(r['SA2-prop-aligned'])}; CM3 aligned {_f(r['CM3-aligned'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
