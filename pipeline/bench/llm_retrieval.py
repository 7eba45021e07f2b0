"""Benchmark: are the gold terms among the ontology terms the LLM mapper sends?

Usage::

    python -m pipeline.bench.llm_retrieval [--blinkg DIR] [--real DIR] [--case NAME ...]

For BLINKG scenario 3 (gold: the properties and classes of the gold table) and the cases of the
shared real-mappings corpus (gold: the predicates and ``rdf:type`` classes of the reference KG that
the case's ontology declares), it runs :func:`pipeline.mappers.llm.retrieve.retrieve_terms` (what
``LLM_ONTOLOGY=retrieved`` sends) and prints, per case: terms sent of the ontology's total, the
Turtle size sent against the whole files (in tiktoken ``cl100k_base`` tokens), and the recall of
the gold terms among those sent, with the gold terms missed. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

from rdflib import RDF, URIRef

from pipeline.bench.blinkg import blinkg_cases, blinkg_dir
from pipeline.errors import InputError
from pipeline.manifest import Case, load_manifest
from pipeline.mappers.llm.prompt import subgraph_turtle
from pipeline.mappers.llm.retrieve import retrieve_terms
from pipeline.ontology import Ontology, load_ontology
from pipeline.rdffile import load_graph
from pipeline.sources.load import load_sources
from pipeline.table import read_table

__all__ = ["gold_terms_table", "gold_terms_graph", "measure", "main"]

ROOT = Path(__file__).resolve().parents[2]


def gold_terms_table(case: Case, ontology: Ontology) -> set[URIRef]:
    """The ontology's properties and classes named by the case's gold table."""
    out: set[URIRef] = set()
    for row in read_table(case.gold_table).rows:
        for cell in (row.ontology_property, row.entity_class, row.related_entity_class):
            for part in (cell or "").replace(" or ", "/").split("/"):
                iri = ontology.expand(part.strip()) if part.strip() else None
                if iri is not None and (iri in ontology.properties or iri in ontology.classes):
                    out.add(iri)
    return out


def gold_terms_graph(case: Case, ontology: Ontology) -> set[URIRef]:
    """The predicates and ``rdf:type`` classes of the case's reference KG that its ontology declares."""
    graph = load_graph(case.gold_graph, "reference KG")
    used = {p for p in graph.predicates() if p != RDF.type} | set(graph.objects(None, RDF.type))
    return {t for t in used if isinstance(t, URIRef) and (t in ontology.properties or t in ontology.classes)}


def _tokens(text: str) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
        return int(litellm.token_counter(model="gpt-4", text=text))
    except Exception:  # tokenizer unusable: characters / 4
        return len(text) // 4


def measure(case: Case, gold: str) -> dict:
    """Retrieval figures of one case; ``gold`` is ``"table"`` or ``"graph"``."""
    ontology = load_ontology(case.ontologies, case.prefixes)
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        sources = load_sources(case.sources, Path(tmp))
        got = retrieve_terms(ontology, sources)
    wanted = gold_terms_table(case, ontology) if gold == "table" else gold_terms_graph(case, ontology)
    whole = "\n\n".join(Path(p).read_text(encoding="utf-8", errors="replace") for p in case.ontologies)
    return {"case": f"{case.scenario}/{case.name}", "sent": len(got.terms), "total": got.total,
            "tokens_sent": _tokens(subgraph_turtle(ontology, got.terms)), "tokens_whole": _tokens(whole),
            "gold": len(wanted), "found": len(wanted & got.terms),
            "missed": sorted(ontology.compact(t) for t in wanted - got.terms), "method": got.method}


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; 0, or 2 when a benchmark folder is missing."""
    ap = argparse.ArgumentParser(prog="bench-llm-retrieval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--blinkg", default=None)
    ap.add_argument("--real", default=os.environ.get("REAL_MAPPINGS_DIR", str(ROOT.parent / "shared" / "benchmarks"
                                                                              / "real-mappings")))
    ap.add_argument("--case", action="append", default=None, help="only cases whose name contains this")
    args = ap.parse_args(argv)
    try:
        root = blinkg_dir(args.blinkg)
    except InputError as exc:
        print(f"bench-llm-retrieval: {exc}", file=sys.stderr)
        return 2
    cases = [(c, "table") for c in blinkg_cases(root)[0] if c.scenario == "scenario3" and c.gold_table]
    real = Path(args.real)
    for path in sorted(real.glob("*/case.yaml")) if real.is_dir() else []:
        try:
            case = load_manifest(path)
        except InputError as exc:
            print(f"bench-llm-retrieval: {path}: skipped ({exc})", file=sys.stderr)
            continue
        if case.gold_graph is not None:
            cases.append((case, "graph"))
    if args.case:
        cases = [(c, g) for c, g in cases if any(w in c.name for w in args.case)]
    print("| case | terms sent / ontology | Turtle tokens sent / whole files | gold terms found | missed |")
    print("|---|---:|---:|---:|---|")
    for case, gold in cases:
        m = measure(case, gold)
        recall = m["found"] / m["gold"] if m["gold"] else float("nan")
        print(f"| {m['case']} | {m['sent']} / {m['total']} | {m['tokens_sent']:,} / {m['tokens_whole']:,} | "
              f"{m['found']} / {m['gold']} ({recall:.2f}) | {', '.join(m['missed'][:8]) or '-'} |", flush=True)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)  # ill-typed literals of the reference KGs
    raise SystemExit(main())
