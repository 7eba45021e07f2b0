"""``make text2kg``: every Text2KGBench ontology with the offline extractor, next to the baselines.

Runs :func:`.harness.run_case` on the 19 DBpedia-WebNLG ontologies (test split, gold triples),
rescores the published Vicuna-13B and Alpaca-LoRA-13B extractions with the same scorer, and
prints one table: ontology x (E/A/P/R F1, triple F1, fidelity, adherence, validity, SV2/CS2/SHACL,
latency) with the baselines' triple F1 (rescored / published). Writes ``report.md`` and
``report.json`` under ``--out``.

Protocols: ``standard`` fits once on the training splits of all 19 ontologies (the relation
choice is restricted to the scored ontology's relations); ``loo`` (leave one ontology out, as in
the LettrIA paper's generalization setting) fits once per ontology without its training split.

    python -m pipeline.text.bench [--bench DIR] [--out out/text2kg] [--protocol standard|loo]
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import PipelineError
from .data import TextCase, benchmark_dir, load_sentences, ontology_names
from .harness import BASELINES, load_training, macro, published_baseline, rescore_baseline, run_case

__all__ = ["run_benchmark", "format_table", "main"]

log = logging.getLogger(__name__)


def _case(bench: Path, name: str, onto) -> TextCase:
    gold = load_sentences(bench / "ground_truth" / f"ont_{name}_ground_truth.jsonl")
    train = load_sentences(bench / "train" / f"ont_{name}_train.jsonl")
    return TextCase(name, bench / "ontologies" / f"{name}_ontology.json", onto,
                    load_sentences(bench / "test" / f"ont_{name}_test.jsonl"), {s.id: s for s in gold}, train,
                    f"http://example.org/text2kgbench/{name}/")


def run_benchmark(bench: Path, out: Path, protocol: str = "standard", validate: bool = True,
                  only: list[str] | None = None) -> dict[str, Any]:
    """Run the offline extractor on every ontology and rescore the baselines.

    Returns:
        ``{"protocol", "rows": {name: {"ours": scores, "validation": {...}, "<baseline>": scores,
        "<baseline> published": {...}}}, "macro": {...}, "elapsed_s"}``.
    """
    from .offline import OfflineExtractor
    t0 = time.perf_counter()
    names = ontology_names(bench)
    training = load_training(bench, names)
    cache = out / ".cache"
    shared = OfflineExtractor(cache_dir=cache).fit(training) if protocol == "standard" else None
    published = {b: published_baseline(bench, b) for b in BASELINES}
    rows: dict[str, Any] = {}
    ex = shared
    for name in (only or names):
        onto = training[name][0]
        case = _case(bench, name, onto)
        if protocol == "loo":
            ex = OfflineExtractor(cache_dir=cache).fit({n: v for n, v in training.items() if n != name})
        res = run_case(case, out / name, extractor=ex, protocol=protocol, validate=validate)
        row = {"ours": res["scores"], "validation": {k: v.get("value") for k, v in (res["validation"] or {}).items()},
               "kg_triples": res["kg_triples"], "dropped": res["dropped"]}
        for b in BASELINES:
            row[b] = rescore_baseline(bench, b, name, onto)
            row[f"{b} published"] = published[b].get(name)
        rows[name] = row
        log.info("%s: triple F1 %.3f (%d KG triples) in %.1f s", name, res["scores"]["triple"]["f1"],
                 res["kg_triples"], res["elapsed_s"])
    summary = {"ours": macro({n: r["ours"] for n, r in rows.items()})}
    for b in BASELINES:
        summary[b] = macro({n: r[b] for n, r in rows.items() if r[b]})
        pub = [r[f"{b} published"]["f1"] for r in rows.values() if r.get(f"{b} published")]
        summary[f"{b} published"] = {"f1": sum(pub) / len(pub) if pub else None}
    result = {"protocol": protocol, "rows": rows, "macro": summary, "elapsed_s": time.perf_counter() - t0,
              "similarity": getattr(ex, "similarity", None)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    (out / "report.md").write_text(format_table(result), encoding="utf-8")
    return result


def _f(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "pass" if x else "FAIL"
    return f"{x:.2f}"


def _v(x: Any) -> str:
    return "not run" if x is None else ("pass" if x else "FAIL")


def format_table(result: dict[str, Any]) -> str:
    """The Markdown table of :func:`run_benchmark`'s result (one row per ontology, then macro)."""
    head = ("| ontology | E F1 | A F1 | P F1 | R F1 | triple P | triple R | triple F1 | fidelity | adherence "
            "| validity | SV2 | CS2 | SHACL | latency s | Vicuna F1 resc./publ. | Alpaca F1 resc./publ. | beats both |")
    lines = [f"Protocol: {result['protocol']}. Triple F1: Text2KGBench (mean over sentences); "
             "E/A/P/R: LettrIA categories (micro F1).", "", head, "|" + "---|" * 18]

    def row(name: str, s: dict[str, Any], val: dict[str, Any], base: dict[str, Any]) -> str:
        tf = s["triple"]["f1"]
        bs = [(base.get(b) or {}).get("triple", {}).get("f1") for b in BASELINES]
        ps = [(base.get(f"{b} published") or {}).get("f1") for b in BASELINES]
        beats = all(tf is not None and tf > max(x for x in (b, p) if x is not None)
                    for b, p in zip(bs, ps) if b is not None or p is not None)
        return (f"| {name} | " + " | ".join(_f(s[c]["f1"]) for c in "EAPR") +
                f" | {_f(s['triple']['precision'])} | {_f(s['triple']['recall'])} | **{_f(tf)}** | "
                f"{_f(s['fidelity'])} | {_f(s['adherence'])} | {_f(s['validity'])} | "
                f"{_v(val.get('SV2'))} | {_v(val.get('CS2-owlrl'))} | {_v(val.get('SHACL'))} | "
                f"{s['latency_s']:.4f} | {_f(bs[0])} / {_f(ps[0])} | {_f(bs[1])} / {_f(ps[1])} | "
                f"{'yes' if beats else 'no'} |")

    for name, r in result["rows"].items():
        lines.append(row(name, r["ours"], r["validation"], r))
    m = result["macro"]
    base = {b: m[b] for b in BASELINES}
    base.update({f"{b} published": m[f"{b} published"] for b in BASELINES})
    lines.append(row("**macro**", m["ours"], {}, base).replace("not run", "-"))
    lines.append("")
    lines.append(f"Elapsed {result['elapsed_s']:.0f} s; nearest-sentence similarity: {result.get('similarity')}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line of ``make text2kg``; exit 2 when the benchmark folder is unusable."""
    p = argparse.ArgumentParser(prog="python -m pipeline.text.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", help="Text2KGBench DBpedia-WebNLG folder (default: $TEXT2KGBENCH_DIR or "
                                   "../shared/benchmarks/text2kgbench)")
    p.add_argument("--out", default="out/text2kg")
    p.add_argument("--protocol", choices=["standard", "loo"], default="standard")
    p.add_argument("--no-validate", dest="validate", action="store_false")
    p.add_argument("--only", nargs="+", help="ontology names (default: all)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "sentence_transformers", "LiteLLM"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    bench = Path(args.bench) if args.bench else benchmark_dir()
    try:
        result = run_benchmark(bench, Path(args.out), args.protocol, args.validate, args.only)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
