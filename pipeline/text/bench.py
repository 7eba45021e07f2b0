"""``make text2kg`` and ``make text2kg-tekgen``: every ontology of a Text2KGBench part with the
offline extractor, next to the published baselines.

Reads either part of Text2KGBench (both name their files ``ontologies/<name>_ontology.json``,
``train/ont_<name>_train.jsonl``, ``test/ont_<name>_test.jsonl``,
``ground_truth/ont_<name>_ground_truth.jsonl``; Wikidata-TekGen also has
``validation/ont_<name>_validation.jsonl``): DBpedia-WebNLG (19 ontologies) or Wikidata-TekGen (10).
Runs :func:`.harness.run_case` on each ontology, rescores the published Vicuna-13B and
Alpaca-LoRA-13B extractions with the same scorer, and prints one table: ontology x (E/A/P/R F1,
triple F1 and Text2KGBench's own F1, each with the run's other sentences as evidence and with
each sentence alone (``corpus: false``), fidelity, adherence, validity, SV2/CS2/SHACL, latency)
with the baselines' Text2KGBench F1 (rescored / published). Writes ``report.md`` and
``report.json`` under ``--out``.

Training (``--protocol``):

* ``standard``: one fit on the training splits of all the part's ontologies (the relation
  choice is restricted to the scored ontology's relations);
* ``own``: one fit per ontology on its own training split only;
* ``loo``: one fit per ontology on the other ontologies of the part (the LettrIA paper's
  generalization setting); with ``--other DIR``, on every ontology of the other part too (the
  issue's zero-shot setting: no sentence of the scored ontology, all other ontologies of both
  parts);
* ``zero-shot``: one fit on the other part's training splits (``--other``): no training sentence
  of the scored ontology, nor of any ontology of its part - a user's new ontology;
* ``dev``: ``standard`` scored on the dev split (below), kept for ``make text2kg-dev``.

Scored split (``--split``): ``test`` (the test sentences and their ground truth), or ``dev``,
which never reads the test split: the part's ``validation`` split when it has one (Wikidata-TekGen),
else a deterministic held-out 20% of each ontology's training sentences (:func:`dev_split`,
grouped by subject; the fit then uses the other 80%). Design choices are made on ``dev``, never on
``test``. ``--errors`` also writes each ontology's per-sentence error classes
(:mod:`.error_analysis`) to ``<out>/<ontology>/errors.jsonl`` and their totals to ``<out>/errors.json``.

``--fits N`` repeats the whole run with N fits that differ only in the extractor's ``seed``
(:class:`.offline.OfflineExtractor`: the cross-fitting folds, the training order, the stacker's
draws; fit ``i`` uses seed ``s + i``, ``s`` the ``--set seed=`` given, default 0), each run under
``<out>/seed<seed>/``, and writes the mean, standard deviation and range over the fits of each
ontology's and the macro's scores (:func:`fit_spread`) to ``<out>/fits.md`` and ``<out>/fits.json``:
what a refit alone moves a score by, the bar a change must clear to be told from noise.

    python -m pipeline.text.bench [--bench DIR] [--out out/text2kg] [--protocol standard|own|loo|zero-shot|dev]
                                  [--split test|dev] [--other DIR] [--only NAME ...] [--errors] [--fits N]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from pipeline.errors import InputError, PipelineError
from pipeline.text.data import Sentence, TextOntology, load_sentences
from pipeline.text.error_analysis import CLASSES, write_errors
from pipeline.text.harness import BASELINES, load_training, macro, published_baseline, rescore_baseline, run_case
from pipeline.text.manifest import TextCase, benchmark_dir, ontology_names
from pipeline.text.offline import OfflineExtractor, setting_names

__all__ = ["run_benchmark", "format_table", "main", "dev_split", "parse_settings", "PROTOCOLS", "SPLITS",
           "other_part", "fit_spread", "format_spread"]

PROTOCOLS = ("standard", "own", "loo", "zero-shot", "dev")
SPLITS = ("test", "dev")

log = logging.getLogger(__name__)

Training = dict[str, tuple[TextOntology, list[Sentence]]]


def other_part(bench: Path) -> Path:
    """The other part of Text2KGBench beside ``bench`` (``text2kgbench`` <-> ``text2kgbench-tekgen``)."""
    bench = Path(bench)
    name = bench.name[:-len("-tekgen")] if bench.name.endswith("-tekgen") else bench.name + "-tekgen"
    return bench.parent / name


def _test_case(bench: Path, name: str, onto: TextOntology, train: list[Sentence]) -> TextCase:
    gold = load_sentences(bench / "ground_truth" / f"ont_{name}_ground_truth.jsonl")
    return TextCase(name, bench / "ontologies" / f"{name}_ontology.json", onto,
                    load_sentences(bench / "test" / f"ont_{name}_test.jsonl"), {s.id: s for s in gold}, train,
                    f"http://example.org/text2kgbench/{name}/")


def dev_split(sentences: list[Sentence], share: float = 0.2) -> tuple[list[Sentence], list[Sentence]]:
    """(fit, held-out) parts of training sentences, grouped by subject: the sentences are grouped
    by their alphabetically first subject name (normalized key; the id when no triple), the groups
    taken in the order of the SHA-1 of that name, and a group is held out while the held-out part
    stays within ``share`` + 10% of the sentences, until it reaches ``share``.

    Why grouped: WebNLG verbalises one triple set in several sentences, so a split by sentence id
    leaves 92% of the held-out triples stated in the fit part (the test split: 9%); grouped by
    subject, about 15% - the held-out part then looks like the test split to the fact memory and
    the lexicon. A few subjects fill most of an ontology's training split, hence the greedy fill
    rather than a hash modulo. Deterministic, independent of the sentence order.
    """
    groups: dict[str, list[Sentence]] = {}
    for s in sentences:
        groups.setdefault(s.subject_group, []).append(s)
    held_keys: set[str] = set()
    n_held, n = 0, len(sentences)
    for g in sorted(groups, key=lambda g: hashlib.sha1(g.encode("utf-8")).hexdigest()):
        if n_held >= share * n:
            break
        if n_held + len(groups[g]) <= (share + 0.1) * n:
            held_keys.add(g)
            n_held += len(groups[g])
    fit = [s for g, ss in groups.items() if g not in held_keys for s in ss]
    held = [s for g, ss in groups.items() if g in held_keys for s in ss]
    return fit, held


def _fits(protocol: str, names: list[str], training: Training, other: Training | None):
    """``(ontologies scored, training data)`` of each fit the protocol makes, in order.

    ``loo`` fits, for each scored ontology, on the part's other ontologies, plus every ontology of
    ``other`` when given.

    Raises:
        InputError: ``zero-shot`` without ``other``; ``loo`` with an ``other`` part that names an
            ontology as the scored part does (the two would be one training set).
    """
    if protocol == "standard":
        return [(names, training)]
    if protocol == "zero-shot":
        if not other:
            raise InputError("the zero-shot protocol trains on the other part of Text2KGBench: none found (--other DIR)")
        return [(names, other)]
    if protocol == "own":
        return [([n], {n: training[n]}) for n in names]
    other = other or {}
    same = sorted(set(other) & set(training))
    if same:
        raise InputError(f"--other names ontologies the scored part names too ({', '.join(same)}): leave one out "
                         "needs each ontology once (expected the other part of Text2KGBench)", key="other")
    return [([n], {**{m: v for m, v in training.items() if m != n}, **other}) for n in names]  # loo


def run_benchmark(bench: Path, out: Path, protocol: str = "standard", validate: bool = True,
                  only: list[str] | None = None, errors: bool = False,
                  settings: dict[str, Any] | None = None, split: str = "test",
                  other: Path | None = None) -> dict[str, Any]:
    """Run the offline extractor on every ontology of ``bench`` and rescore the baselines (on the
    test split; the dev split has no baselines).

    Args:
        bench: a Text2KGBench part (DBpedia-WebNLG or Wikidata-TekGen folder).
        out: output folder (one subfolder per ontology, ``report.md``, ``report.json``).
        protocol: one of :data:`PROTOCOLS` (see the module docstring; ``dev`` is ``standard`` on
            the dev split).
        validate: run SV2, CS2 and SHACL on each KG.
        only: ontology names to score (default: all).
        errors: write the error classes.
        settings: offline extractor settings.
        split: ``test`` or ``dev`` (see the module docstring).
        other: the other part (``zero-shot``: default :func:`other_part`; ``loo``: also trained on,
            when given).
    Returns:
        ``{"protocol", "split", "rows": {name: {"ours": scores, "ours one-document": scores or None,
        "validation": {...}, "<baseline>": scores, "<baseline> published": {...}, "training": [...]}},
        "macro": {...}, "elapsed_s", "cpu_s"}``.
    Raises:
        InputError: an unknown protocol or split, a part without ontologies, an ``only`` name it
            lacks, or no other part for ``zero-shot``.
    """
    if protocol not in PROTOCOLS or split not in SPLITS:
        raise InputError(f"unknown protocol {protocol!r} or split {split!r}; expected one of {', '.join(PROTOCOLS)} "
                         f"and one of {', '.join(SPLITS)}")
    if protocol == "dev":
        protocol, split = "standard", "dev"
    t0, c0 = time.perf_counter(), time.process_time()
    names = ontology_names(bench)
    unknown = [n for n in only or [] if n not in names]
    if unknown:
        raise InputError(f"--only {' '.join(unknown)}: no such ontology in {bench} (expected some of "
                         f"{', '.join(names)})", path=bench, key="only")
    training = load_training(bench, names)
    scored: dict[str, list[Sentence]] = {}
    if split == "dev":
        for n, (onto, sents) in list(training.items()):
            validation = bench / "validation" / f"ont_{n}_validation.jsonl"
            if validation.exists():
                scored[n] = load_sentences(validation)
            else:
                fit_part, scored[n] = dev_split(sents)
                training[n] = (onto, fit_part)
    other_training = None
    if protocol == "zero-shot" or (protocol == "loo" and other):
        other = Path(other) if other else other_part(bench)
        if protocol == "loo" and not (other / "ontologies").is_dir():
            raise InputError(f"--other {other}: no ontologies/ folder (expected a Text2KGBench part)", path=other)
        other_training = load_training(other, ontology_names(other)) if (other / "ontologies").is_dir() else None
    else:
        other = None
    published = {b: published_baseline(bench, b) for b in BASELINES}
    rows: dict[str, Any] = {}
    ex = None
    for group, train in _fits(protocol, list(only or names), training, other_training):
        ex = OfflineExtractor(**(settings or {})).fit(train)
        for name in group:
            rows[name] = _score_one(bench, out, name, training[name], scored.get(name), ex, protocol, validate,
                                    errors, published, sorted(train))
    summary = {"ours": macro({n: r["ours"] for n, r in rows.items()})}
    single = {n: r["ours one-document"] for n, r in rows.items() if r["ours one-document"]}
    summary["ours one-document"] = macro(single) if len(single) == len(rows) else None
    if errors:
        total: dict[str, int] = {}
        for r in rows.values():
            for c, v in r["errors"].items():
                total[c] = total.get(c, 0) + v
        summary["errors"] = total
        out.mkdir(parents=True, exist_ok=True)
        (out / "errors.json").write_text(json.dumps({"total": total, **{n: r["errors"] for n, r in rows.items()}},
                                                    indent=1), encoding="utf-8")
    for b in BASELINES:
        summary[b] = macro({n: r[b] for n, r in rows.items() if r[b]})
        pub = [r[f"{b} published"]["f1"] for r in rows.values() if r.get(f"{b} published")]
        summary[f"{b} published"] = {"f1": sum(pub) / len(pub) if pub else None}
    result = {"protocol": protocol, "split": split, "bench": str(bench), "other": str(other) if other else None,
              "rows": rows, "macro": summary,
              "elapsed_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
              "similarity": getattr(ex, "similarity", None)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    (out / "report.md").write_text(format_table(result), encoding="utf-8")
    return result


def _score_one(bench: Path, out: Path, name: str, own: tuple[TextOntology, list[Sentence]],
               dev: list[Sentence] | None, ex: OfflineExtractor, protocol: str, validate: bool, errors: bool,
               published: dict, training: list[str]) -> dict[str, Any]:
    """One ontology's row: our scores (with the corpus evidence as set, and each sentence alone),
    validation, error classes and the baselines'."""
    onto = own[0]
    if dev is not None:
        case = TextCase(name, bench / "ontologies" / f"{name}_ontology.json", onto, dev, {s.id: s for s in dev},
                        own[1], f"http://example.org/text2kgbench/{name}/")
    else:
        case = _test_case(bench, name, onto, own[1])
    res = run_case(case, out / name, extractor=ex, protocol=protocol, validate=validate)
    row = {"ours": res["scores"], "ours one-document": None, "training": training,
           "validation": {k: v.get("value") for k, v in (res["validation"] or {}).items()},
           "kg_triples": res["kg_triples"], "dropped": res["dropped"]}
    if ex.corpus and ex.stackers:
        # what a user whose text does not repeat its facts gets: each sentence scored alone
        ex.corpus = False
        try:
            row["ours one-document"] = run_case(case, out / name / "one-document", extractor=ex, protocol=protocol,
                                                validate=False)["scores"]
        finally:
            ex.corpus = True
    else:
        row["ours one-document"] = res["scores"]  # no corpus evidence used: the same figure
    for b in BASELINES:
        row[b] = rescore_baseline(bench, b, name, onto) if dev is None else None
        row[f"{b} published"] = published[b].get(name) if dev is None else None
    if errors:
        preds = [json.loads(line)["triples"] for line in
                 (out / name / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
        # the test split's sentences carry no triples: their gold is case.gold
        gold = [case.gold.get(s.id, s) if case.gold else s for s in case.sentences]
        row["errors"] = dict(write_errors(out / name / "errors.jsonl", gold, preds, onto, ex.lexicon))
    log.info("%s: triple F1 %.3f, Text2KGBench F1 %.3f (%d KG triples) in %.1f s", name,
             res["scores"]["triple"]["f1"], res["scores"]["t2kb"]["f1"], res["kg_triples"], res["elapsed_s"])
    return row


def _f(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "pass" if x else "FAIL"
    return f"{x:.2f}"


def _v(x: Any) -> str:
    return "not run" if x is None else ("pass" if x else "FAIL")


def _t2kb(scores: dict[str, Any] | None) -> float | None:
    return ((scores or {}).get("t2kb") or {}).get("f1")


def format_table(result: dict[str, Any]) -> str:
    """The Markdown table of :func:`run_benchmark`'s result (one row per ontology, then macro).

    ``beats both``: our Text2KGBench F1 is above each baseline's, rescored and published."""
    head = ("| ontology | E F1 | A F1 | P F1 | R F1 | triple F1 | triple F1 one-doc | T2KB F1 | T2KB F1 one-doc "
            "| fidelity | adherence | validity | SV2 | CS2 | SHACL | latency s | Vicuna T2KB resc./publ. "
            "| Alpaca T2KB resc./publ. | beats both |")
    trained = f" (also trained on {Path(result['other']).name})" if result.get("other") else ""
    lines = [f"Protocol: {result['protocol']}{trained}, split: {result.get('split', 'test')}. Triple F1: ours (values "
             "normalized, a prediction of a relation the gold lacks counts against it); T2KB F1: Text2KGBench's "
             "run_eval.py (the baselines' published metric); both mean over sentences; one-doc: each sentence "
             "alone (`corpus: false`). E/A/P/R: LettrIA categories (micro F1).", "", head, "|" + "---|" * 19]

    def row(name: str, s: dict[str, Any], one: dict[str, Any] | None, val: dict[str, Any],
            base: dict[str, Any]) -> str:
        tf = _t2kb(s)
        bs = [_t2kb(base.get(b)) for b in BASELINES]
        ps = [(base.get(f"{b} published") or {}).get("f1") for b in BASELINES]
        beats = all(tf is not None and tf > max(x for x in (b, p) if x is not None)
                    for b, p in zip(bs, ps) if b is not None or p is not None)
        return (f"| {name} | " + " | ".join(_f(s[c]["f1"]) for c in "EAPR") +
                f" | {_f(s['triple']['f1'])} | {_f((one or {}).get('triple', {}).get('f1'))} | **{_f(tf)}** | "
                f"{_f(_t2kb(one))} | {_f(s['fidelity'])} | {_f(s['adherence'])} | {_f(s['validity'])} | "
                f"{_v(val.get('SV2'))} | {_v(val.get('CS2-owlrl'))} | {_v(val.get('SHACL'))} | "
                f"{s['latency_s']:.4f} | {_f(bs[0])} / {_f(ps[0])} | {_f(bs[1])} / {_f(ps[1])} | "
                f"{('yes' if beats else 'no') if any(x is not None for x in bs + ps) else 'n/a'} |")

    for name, r in result["rows"].items():
        lines.append(row(name, r["ours"], r.get("ours one-document"), r["validation"], r))
    m = result["macro"]
    base = {b: m[b] for b in BASELINES}
    base.update({f"{b} published": m[f"{b} published"] for b in BASELINES})
    lines.append(row("**macro**", m["ours"], m.get("ours one-document"), {}, base).replace("not run", "-"))
    lines.append("")
    wins = sum(1 for r in result["rows"].values() if all(
        (_t2kb(r["ours"]) or 0) > max(x for x in (_t2kb(r.get(b)), (r.get(f"{b} published") or {}).get("f1"))
                                     if x is not None)
        for b in BASELINES if r.get(b) or r.get(f"{b} published")) and any(r.get(b) for b in BASELINES))
    if any(r.get(b) for r in result["rows"].values() for b in BASELINES):
        lines.append(f"Above both baselines (T2KB F1, rescored and published) on {wins} of {len(result['rows'])} "
                     "ontologies.")
    if m.get("errors"):
        lines.append("Gold triples by error class (spurious: predictions): " +
                     ", ".join(f"{c} {m['errors'].get(c, 0)}" for c in CLASSES) + ".")
    lines.append(f"Elapsed {result['elapsed_s']:.0f} s ({result.get('cpu_s', 0):.0f} CPU s in this process); "
                 f"nearest-sentence similarity: {result.get('similarity')}.")
    return "\n".join(lines) + "\n"


#: The scores :func:`fit_spread` summarises: (label, row key, metric) of each run's rows.
SPREAD_SCORES = (("triple F1", "ours", "triple"), ("T2KB F1", "ours", "t2kb"),
                 ("triple F1 one-doc", "ours one-document", "triple"),
                 ("T2KB F1 one-doc", "ours one-document", "t2kb"))


def fit_spread(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean, sample standard deviation (``n - 1``; 0.0 for one fit), minimum and maximum over
    several runs of :func:`run_benchmark` (one per fit) of each ontology's and the macro's F1 in
    :data:`SPREAD_SCORES`.

    Args:
        results: the runs, with the same ontologies (a run's ``seed`` key names its fit).
    Returns:
        ``{"seeds": [...], "rows": {ontology or "macro": {label: {"mean", "sd", "min", "max",
        "values"}}}}``; a score a run lacks (one-doc without a stacker is the corpus figure) is
        left out.
    Raises:
        ValueError: no run, or runs that scored different ontologies.
    """
    if not results or any(set(r["rows"]) != set(results[0]["rows"]) for r in results):
        raise ValueError("fit_spread needs runs of the same ontologies")
    names = list(results[0]["rows"]) + ["macro"]
    rows: dict[str, Any] = {}
    for name in names:
        row = {}
        for label, key, metric in SPREAD_SCORES:
            vals = []
            for r in results:
                scores = r["macro"][key] if name == "macro" else r["rows"][name][key]
                if scores and scores.get(metric) and scores[metric].get("f1") is not None:
                    vals.append(float(scores[metric]["f1"]))
            if len(vals) == len(results):
                mean = statistics.fmean(vals)
                sd = statistics.stdev(vals) if len(vals) > 1 else 0.0  # exact sums: equal values give 0.0
                row[label] = {"mean": mean, "sd": sd, "min": min(vals), "max": max(vals), "values": vals}
        rows[name] = row
    return {"seeds": [r.get("seed") for r in results], "rows": rows}


def format_spread(spread: dict[str, Any]) -> str:
    """:func:`fit_spread` as a Markdown table: per ontology and score, mean ± sd [min, max]."""
    labels = [label for label, _, _ in SPREAD_SCORES]
    lines = [f"Fits: {len(spread['seeds'])} (seeds {', '.join(str(s) for s in spread['seeds'])}); "
             "mean ± sample sd [min, max] over the fits.", "",
             "| ontology | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for name, row in spread["rows"].items():
        cells = [f"{row[lb]['mean']:.4f} ± {row[lb]['sd']:.4f} [{row[lb]['min']:.4f}, {row[lb]['max']:.4f}]"
                 if lb in row else "-" for lb in labels]
        lines.append(f"| {'**macro**' if name == 'macro' else name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def run_fits(fits: int, bench: Path, out: Path, settings: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """``fits`` runs of :func:`run_benchmark` (``kwargs``: its other arguments), fit ``i`` with the
    extractor's ``seed`` = ``settings``' seed (default 0) + ``i``, under ``<out>/seed<seed>``;
    writes ``<out>/fits.json`` and ``<out>/fits.md`` (:func:`fit_spread`) and returns the spread."""
    base = int(settings.get("seed", 0))
    results = []
    for i in range(fits):
        seed = base + i
        res = run_benchmark(bench, out / f"seed{seed}", settings={**settings, "seed": seed}, **kwargs)
        res["seed"] = seed
        results.append(res)
    spread = fit_spread(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fits.json").write_text(json.dumps(spread, indent=1), encoding="utf-8")
    (out / "fits.md").write_text(format_spread(spread), encoding="utf-8")
    return spread


def parse_settings(items: list[str]) -> dict[str, Any]:
    """``--set`` items (``KEY=VALUE``) as extractor keyword arguments: ``true``/``false`` ->
    bool, ``none``/``null`` -> None (a setting turned off: ``zero_shot=none``), an integer -> int
    (``k=3``, ``-1``), another number -> float (``0.25``, ``-0.5``, ``1e-3``), anything else the
    string; the values are then checked as the extractor checks them, before any data is read.

    Raises:
        InputError: an item without ``=``, with an empty key, a key that is no setting of
            :class:`.offline.OfflineExtractor` (the message lists them), or a value it rejects
            (``missing=-1``, ``decoder=beam``: the message names the setting and what it expected).
    """
    allowed = setting_names()
    settings: dict[str, Any] = {}
    for item in items:
        k, eq, v = item.partition("=")
        if not eq or not k:
            raise InputError(f"--set {item!r}: expected KEY=VALUE (threshold=0.2, zero_shot=none)")
        if k not in allowed:
            raise InputError(f"--set {item!r}: unknown setting {k!r}; expected one of {', '.join(allowed)}", key=k)
        words = {"true": True, "false": False, "none": None, "null": None}
        if v.lower() in words:
            settings[k] = words[v.lower()]
            continue
        try:
            settings[k] = int(v)
        except ValueError:
            try:
                settings[k] = float(v)
            except ValueError:
                settings[k] = v
    OfflineExtractor(**settings)  # the extractor's own checks (InputError), before any data is read
    return settings


def main(argv: list[str] | None = None) -> int:
    """Command line of ``make text2kg`` / ``make text2kg-tekgen``; exit 2 when the benchmark folder is unusable."""
    p = argparse.ArgumentParser(prog="python -m pipeline.text.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", help="a Text2KGBench part: DBpedia-WebNLG or Wikidata-TekGen folder (default: "
                                   "$TEXT2KGBENCH_DIR or ../shared/benchmarks/text2kgbench)")
    p.add_argument("--out", default="out/text2kg")
    p.add_argument("--protocol", choices=PROTOCOLS, default="standard")
    p.add_argument("--split", choices=SPLITS, default="test",
                   help="dev: the validation split (Wikidata-TekGen) or held-out training sentences; never the test split")
    p.add_argument("--other", help="the other part: --protocol zero-shot trains on it alone (default: the folder "
                                   "beside --bench with or without -tekgen); --protocol loo trains on it too "
                                   "(default: not)")
    p.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                   help="offline extractor settings (threshold=0.2, fact_memory=false, zero_shot=none ...), for dev experiments")
    p.add_argument("--errors", action="store_true", help="write per-sentence error classes (errors.jsonl)")
    p.add_argument("--no-validate", dest="validate", action="store_false")
    p.add_argument("--only", nargs="+", help="ontology names (default: all)")
    p.add_argument("--fits", type=int, default=1, metavar="N",
                   help="N fits differing only in the extractor's seed (--set seed=S: S..S+N-1; default 0..N-1), "
                        "each run under OUT/seed<seed>/; the mean and spread of every score in OUT/fits.md")
    args = p.parse_args(argv)
    if args.fits < 1:
        print(f"error: --fits {args.fits}: expected a whole number >= 1", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "sentence_transformers", "LiteLLM"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    bench = Path(args.bench) if args.bench else benchmark_dir()
    try:
        settings = parse_settings(args.set)
        if args.fits > 1:
            spread = run_fits(args.fits, bench, Path(args.out), settings, protocol=args.protocol,
                              validate=args.validate, only=args.only, errors=args.errors, split=args.split,
                              other=Path(args.other) if args.other else None)
            print(format_spread(spread))
            return 0
        result = run_benchmark(bench, Path(args.out), args.protocol, args.validate, args.only, args.errors, settings,
                               args.split, Path(args.other) if args.other else None)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
