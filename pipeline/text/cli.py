"""``kgc text``: extract a KG from the sentences of text manifests (or write Text2KGBench manifests)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.validation.verdict import check_reason, check_word
from pipeline.text.harness import run_case
from pipeline.text.manifest import benchmark_dir, load_case, text2kgbench_manifests

__all__ = ["PARSERS", "add_parser", "command"]


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register the ``text`` subcommand on ``sub`` (the CLI's subparsers)."""
    t = sub.add_parser(
        "text", parents=[common], help="extract a KG from sentences (text manifests), validate and score it",
        description="For each text manifest (kind: text; ontology, sentences, optional gold and train): "
                    "extract triples with the offline extractor (default) or an LLM (LLM_MODEL, LLM_API_BASE, "
                    "LLM_API_KEY), write out/<case>/outputs.jsonl, kg.nt, ontology.ttl, graph_validation.json "
                    "(SV2, CS2, SHACL), scores.json (with gold) and provenance.json. Without 'train' the offline "
                    "extractor is zero-shot: it learns from the other ontologies of Text2KGBench ($TEXT2KGBENCH_DIR "
                    "and its -tekgen part) and says so. A fitted extractor is kept in $KGC_CACHE_DIR/text-fits "
                    "(default ~/.cache/kgc; KGC_CACHE_DIR=0: off) and loaded by the next run with the same training "
                    "data, settings and code. Exit 0 when every KG passes "
                    "validation, 1 when one fails or a check does not run, 2 on bad input. --text2kgbench DIR writes one manifest per "
                    "Text2KGBench ontology instead. Example: kgc text data/manifests/text2kgbench/1_university.yaml")
    t.add_argument("manifests", nargs="*", help="text manifest files or folders of them")
    t.add_argument("--extractor", default="offline", choices=["offline", "llm"])
    t.add_argument("--protocol", default="standard", choices=["standard", "loo"],
                   help="loo: the offline extractor never trains on the case's own ontology (zero-shot, as "
                        "without 'train')")
    t.add_argument("-o", "--out", default="out/text",
                   help="folder for each case's outputs, KG, validation and scores (default: %(default)s)")
    t.add_argument("--no-validate", dest="validate", action="store_false", help="skip SV2, CS2 and SHACL")
    t.add_argument("--text2kgbench", nargs="?", const="", metavar="DIR",
                   help="write Text2KGBench manifests (DIR default: $TEXT2KGBENCH_DIR or "
                        "../shared/benchmarks/text2kgbench) to --manifests-out")
    t.add_argument("--manifests-out", default="data/manifests/text2kgbench")
    t.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    """Run ``kgc text``; library errors propagate to the CLI, which maps them to exit 2."""
    if args.text2kgbench is not None:
        bench = Path(args.text2kgbench) if args.text2kgbench else benchmark_dir()
        paths = text2kgbench_manifests(bench, Path(args.manifests_out))
        print(f"{len(paths)} text manifests written under {args.manifests_out} (benchmark: {bench})")
        return 0
    if not args.manifests:
        raise InputError("give text manifests (or --text2kgbench to write them)")
    files: list[Path] = []
    for p in map(Path, args.manifests):
        if p.is_dir():
            files.extend(sorted(p.glob("*.yaml")))
        elif p.exists():
            files.append(p)
        else:
            raise InputError("manifest or folder not found", path=p)
    failed = False
    for f in files:
        case = load_case(f)
        res = run_case(case, Path(args.out) / case.name, kind=args.extractor, protocol=args.protocol,
                       validate=args.validate, progress=None if args.quiet else _stderr_line)
        s = res["scores"]
        val = res["validation"] or {}
        checks = _checks(val) if val else "validation not run"
        score = (f"triple F1 {s['triple']['f1']:.3f}, E/A/P/R F1 " +
                 "/".join("n/a" if s[c]["f1"] is None else f"{s[c]['f1']:.2f}" for c in "EAPR")) if s else \
            f"not scored ({res['not_scored']})" if res.get("not_scored") else "no gold"
        # sentences without gold count their predictions as false positives; gold without a sentence is
        # in no score: both said on the line, not only in warnings that -q hides
        n_s, n_g = (s.get("n_sentences_without_gold", 0), s.get("n_gold_without_sentence", 0)) if s else (0, 0)
        unpaired = ([f"{n_s} sentence{'s' if n_s != 1 else ''} without a gold entry, scored against no triples"]
                    if n_s else []) + ([f"{n_g} gold entr{'y' if n_g == 1 else 'ies'} of no sentence id, in no score"]
                                       if n_g else [])
        if unpaired:
            score += f" ({'; '.join(unpaired)})"
        how = {"trained": "trained on its own sentences", "zero-shot": "zero-shot: no training sentence of this "
               "ontology", "no relations": "the ontology has none"}[res["setting"]] + \
            (f", {len(res['training_ontologies'])} training ontologies"
             if args.extractor == "offline" and res["setting"] != "no relations" else "") + \
            (f", {_FIT[res['fit']['source']]}" if res.get("fit") else "")
        print(f"{case.name}: {res['setting']} ({how}); {res['n_sentences']} sentences, {res['kg_triples']} KG "
              f"triples ({res['dropped']} left out); {score}; {checks}")
        # a check that applied and did not run is no pass (as `kgc validate` counts it)
        failed |= any(check_word(v) in ("fails", "not run") for v in val.values())
    return 1 if failed else 0


def _checks(val: dict[str, dict[str, Any]]) -> str:
    """The case line's validation part: ``SV2 pass, CS2-owlrl FAIL, SHACL not run (timeout ...)``; checks
    that do not apply, with their reason once: ``SV2, CS2-owlrl, SHACL not applicable (no triples to check)``."""
    words = {k: check_word(v) for k, v in val.items()}
    na = [k for k, w in words.items() if w == "n/a"]
    parts = [f"{k} {_WORD[w]}" + (f" ({check_reason(val[k])})" if w == "not run" else "")
             for k, w in words.items() if w != "n/a"]
    if na:
        reasons = sorted({check_reason(val[k]) for k in na})
        parts.append(f"{', '.join(na)} not applicable ({'; '.join(reasons)})")
    return ", ".join(parts)


#: check_word's outcome as the case line writes it.
_WORD = {"passes": "pass", "fails": "FAIL", "not run": "not run"}


#: How the run's offline extractor was obtained (:class:`.fit_cache.Fit`), for the summary line.
_FIT = {"cache": "fit loaded from the cache", "fitted": "fitted on this run"}


def _stderr_line(line: str) -> None:
    """A stage line of ``kgc text`` on standard error (``-q`` leaves them out)."""
    print(f"kgc text: {line}", file=sys.stderr, flush=True)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"text": add_parser}
