"""Run an extractor on text cases: outputs, KG, graph validation, scores, provenance.

:func:`run_case` writes, under ``out/<case>/``:

=====================  ============================================================
``outputs.jsonl``      per sentence: id, sentence, triples, validity, latency, cost
``kg.nt``              the KG (:func:`.rdf.kg_graph`); ``dropped.json`` what was left out
``ontology.ttl``       the ontology as OWL (:func:`.rdf.ontology_graph`)
``graph_validation.json``  SV2, CS2 (owlrl) and SHACL results, as for every other KG
``scores.json``        ``status`` (:func:`run_status`), then :func:`.metrics.score_ontology` over the
                       sentences extracted (:func:`scored_results`) when the case has gold triples;
                       ``not_scored`` (why) instead when none of them has a gold entry
``provenance.json``    ``status``, extractor, model, settings, prompt hashes, tokens, cost, versions
=====================  ============================================================

:func:`.bench.run_benchmark` runs every Text2KGBench ontology and rescores the published baselines.
"""
from __future__ import annotations

import json
import logging
import platform
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from pipeline.errors import InputError
from pipeline.llm import LLMError, LLMSettings
from pipeline.text import run_folder
from pipeline.text.data import Sentence, TextOntology, load_ontology, load_sentences
from pipeline.text.fit_cache import Fit, FitCache
from pipeline.text.heartbeat import Heartbeat, peak_memory
from pipeline.text.llm import LLMExtractor
from pipeline.text.manifest import TextCase, benchmark_dir, ontology_names, tekgen_dir
from pipeline.text.metrics import Output, macro, score_ontology
from pipeline.text.offline import OfflineExtractor
from pipeline.text.rdf import kg_graph, ontology_graph
from pipeline.text.schema import validate_triples
from pipeline.validation.consistency import owlrl_consistency
from pipeline.validation.result import Result
from pipeline.validation.shacl import validate_shacl
from pipeline.validation.syntax import check_ntriples

__all__ = ["EXTRACTORS", "BASELINES", "run_case", "run_status", "scored_results", "validate_kg", "rescore_baseline", "published_baseline",
           "load_training", "macro", "general_training", "training_setting"]

log = logging.getLogger(__name__)
EXTRACTORS = ("offline", "llm")
BASELINES = {"Vicuna-13B": "Vicuna13B", "Alpaca-LoRA-13B": "AlpacaLora13B"}


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("blinkg-pipeline", "rdflib", "pyshacl", "owlrl", "scikit-learn", "litellm", "jsonschema", "nltk"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def validate_kg(kg_path: Path, kg: Any, onto_graph: Any) -> dict[str, Any]:
    """SV2 (strict N-Triples), CS2 (OWL 2 RL, owlrl) and SHACL (shapes derived from the ontology)
    of a written KG, as :func:`pipeline.run.evaluate.graph_validation` runs them for mapped KGs.
    An empty KG is not validated: each check is reported not applicable (no triples to check)."""
    if len(kg) == 0:
        return {n: Result.not_applicable(n, "no triples to check").to_dict()
                for n in ("SV2", "CS2-owlrl", "SHACL")}
    return {"SV2": check_ntriples(kg_path).to_dict(), "CS2-owlrl": owlrl_consistency(kg, onto_graph).to_dict(),
            "SHACL": validate_shacl(kg, onto_graph).to_dict()}


def _training(case: TextCase, protocol: str, extra: dict[str, tuple[TextOntology, list[Sentence]]] | None):
    own = case.ontology.name.removeprefix("ont_")
    train = dict(extra or {})
    if case.train:
        train[own] = (case.ontology, case.train)
    if protocol == "loo":
        train.pop(own, None)
    return train


def general_training(ontology: TextOntology) -> dict[str, tuple[TextOntology, list[Sentence]]]:
    """The zero-shot setting's training data: the training splits of every Text2KGBench ontology
    found (DBpedia-WebNLG at :func:`.manifest.benchmark_dir`, Wikidata-TekGen at
    :func:`.manifest.tekgen_dir`) but ``ontology`` itself (same id), ``{name: (ontology,
    sentences)}``; empty when neither part is there."""
    out = {}
    for bench in (benchmark_dir(), tekgen_dir()):
        if not (bench / "ontologies").is_dir() or not (bench / "train").is_dir():
            continue
        names = [n for n in ontology_names(bench) if f"ont_{n}" != ontology.name and n != ontology.name]
        out.update(load_training(bench, names))
    return out


def training_setting(extractor: Any, ontology: TextOntology) -> str:
    """``trained`` when the extractor learned from sentences of ``ontology``, else ``zero-shot``."""
    own = ontology.name.removeprefix("ont_")
    names = {o for o, _ in getattr(extractor, "train_sents", [])}
    return "trained" if own in names or ontology.name in names else "zero-shot"


class _NoRelations:
    """The extractor of an ontology without relations: no triple for any sentence."""

    name = "none"

    def extract(self, texts: list[str], ontology: TextOntology) -> list[list[dict[str, str]]]:
        return [[] for _ in texts]


def run_case(case: TextCase, out: Path, *, extractor: Any = None, kind: str = "offline", protocol: str = "standard",
             extra_training: dict[str, tuple[TextOntology, list[Sentence]]] | None = None,
             validate: bool = True, llm_settings: LLMSettings | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Extract, write the KG, validate and score one text case.

    ``out`` is fresh for the run; an earlier run's folder is kept until the run ends
    (:mod:`.run_folder`): a run stopped by Ctrl-C or SIGTERM is recorded (``status: stopped``, the
    stage) in ``<out>.interrupted/`` and the earlier run stays in ``out``.

    Args:
        case: the loaded manifest.
        out: output folder of this case (created).
        extractor: an already fitted extractor (else one of ``kind`` is built from the case).
        kind: ``offline`` or ``llm``.
        protocol: ``standard``, or ``loo`` (the offline extractor never trains on this ontology).
            With no training sentence of the case's ontology (no ``train``, or ``loo``), the offline
            extractor is fitted on the other ontologies of Text2KGBench (:func:`general_training`):
            the zero-shot setting.
        extra_training: training data of other ontologies, ``{name: (ontology, sentences)}``.
        validate: run SV2, CS2 and SHACL on the KG.
        progress: called with a line as each stage starts (the fit, the extraction, validation), with
            the time since the start and the peak memory, and once a minute while a stage runs
            (:class:`.heartbeat.Heartbeat`): a zero-shot fit takes tens of minutes, which a user must
            not wait through in silence;
            and when the fit is done: loaded from the cache (:class:`.fit_cache.FitCache`, the file
            named) or fitted (and stored: the same training data, settings and code load it next time).
    Returns:
        ``{"case", "extractor", "setting" (``trained``: the extractor learned from sentences of this
        ontology; ``zero-shot``: not), "training_ontologies", "n_sentences", "scores" (or None),
        "not_scored" (why a case with gold has no scores: no sentence scored has a gold entry; else None),
        "validation", "kg_triples", "dropped", "fit", "elapsed_s"}``; ``fit``: how the offline
        extractor was obtained when this call fitted it, ``{"source": "cache" (loaded from
        :class:`.fit_cache.FitCache`) or "fitted", "file" (where it is stored, or None), "note" (why
        not stored), "key"}``, else None (an extractor given, or the LLM).
    Raises:
        InputError: unknown ``kind``, or an offline extractor with no training sentence of the
            case's ontology and no Text2KGBench to learn from (:func:`general_training`).
        LLMError: the LLM could not be asked (server unreachable, key refused, unknown model): raised
            after ``outputs.jsonl``, the (empty) KG and ``provenance.json`` are written; the other
            sentences were not sent.
        KeyboardInterrupt: Ctrl-C or SIGTERM; its message names the stage and where this run's
            files and the earlier run are.
    """
    if kind not in EXTRACTORS:
        raise InputError(f"unknown extractor {kind!r}; expected one of {', '.join(EXTRACTORS)}")
    previous = run_folder.begin(out)
    where = {"stage": "reading the training sentences", "t0": time.perf_counter()}
    try:
        res = _run(case, out, where, extractor=extractor, kind=kind, protocol=protocol,
                   extra_training=extra_training, validate=validate, llm_settings=llm_settings, progress=progress)
    except KeyboardInterrupt as exc:
        signal = str(exc) or "Ctrl-C"
        why = f"interrupted: {signal}"
        record = {"case": case.name, "manifest": str(case.path), "status": "stopped", "reason": why,
                  "stage": where["stage"], "sentences_total": len(case.sentences), "extractor": kind,
                  "protocol": protocol, "settings": dict(case.offline) if kind == "offline" else None,
                  "elapsed_s": time.perf_counter() - where["t0"], "versions": _versions()}
        placed = run_folder.interrupted(out, previous, record, case.gold is not None)
        raise KeyboardInterrupt(f"{signal}; {case.name} stopped while {where['stage']}: {placed}") from exc
    except LLMError:  # a stopped run with its record written in out is this run's result
        if (out / "provenance.json").exists():
            run_folder.end(previous)
        else:
            run_folder.failed(out, previous)
        raise
    except BaseException:
        run_folder.failed(out, previous)
        raise
    run_folder.end(previous)
    return res


def _run(case: TextCase, out: Path, where: dict[str, Any], *, extractor: Any, kind: str, protocol: str,
         extra_training: dict[str, tuple[TextOntology, list[Sentence]]] | None, validate: bool,
         llm_settings: LLMSettings | None, progress: Callable[[str], None] | None) -> dict[str, Any]:
    """:func:`run_case` in ``out`` (fresh); ``where["stage"]`` names the stage running."""
    fit: Fit | None = None
    t0 = where["t0"]

    def say(stage: str) -> None:
        where["stage"] = stage
        if progress is not None:
            progress(f"{case.name}: {stage} ({time.perf_counter() - t0:.1f} s, peak memory {peak_memory()})")

    texts = [s.text for s in case.sentences]
    train = _training(case, protocol, extra_training)
    if not case.ontology.relations:  # said when the ontology was read: no relation, no triple
        extractor = _NoRelations()
    # a stage that runs for minutes (a step of the zero-shot fit) is repeated once a minute; stopped
    # before validation, which forks (a thread must not be running then: validation.parallel)
    with Heartbeat(progress, case.name, lambda: where["stage"], t0):
        if extractor is None:
            if kind == "offline":
                zero_shot = case.ontology.name.removeprefix("ont_") not in train
                if zero_shot:  # what the extractor learned on other ontologies' training sentences
                    train.update(general_training(case.ontology))
                    if not train:
                        raise InputError("no training sentences: give 'train' in the manifest, or make "
                                         "Text2KGBench readable (TEXT2KGBENCH_DIR) for the zero-shot setting",
                                         path=case.path, key="train")
                n_train = sum(len(ss) for _, ss in train.values())
                fitting = (f"zero-shot: fitting the offline extractor on {n_train:,} training sentences of "
                           f"{len(train)} other ontologies (no training sentence of this one)" if zero_shot else
                           f"fitting the offline extractor on {n_train:,} training sentences of {len(train)} "
                           f"ontolog{'y' if len(train) == 1 else 'ies'}")

                def starting() -> None:
                    log.info("%s: %s", case.name, fitting)
                    say(fitting)

                def prepare(ex: OfflineExtractor) -> None:
                    if ex.zero_shot_for(case.ontology) and ex.relations(case.ontology):
                        ex.label_model  # fitted on first use: stored with the fit, not redone on the next run
                fit = FitCache().fitted(
                    case.offline, train,
                    lambda: OfflineExtractor(**case.offline).fit(train, lambda s: say(f"fitting: {s}")),
                    prepare, starting)
                extractor = fit.extractor
                done = (f"{'zero-shot: ' if zero_shot else ''}the offline extractor for {n_train:,} training "
                        f"sentences of {len(train)} {'other ' if zero_shot else ''}"
                        f"ontolog{'y' if len(train) == 1 else 'ies'} "
                        f"{fit.describe()}")
                log.info("%s: %s", case.name, done)
                say(done)
            else:
                extractor = LLMExtractor([s for _, ss in train.values() for s in ss], settings=llm_settings)
        say(f"extracting triples from {len(texts):,} sentences")
        start = time.perf_counter()
        raw = extractor.extract(texts, case.ontology)
    per_sentence = (time.perf_counter() - start) / max(len(texts), 1)
    results = []
    for s, r in zip(case.sentences, raw):
        if isinstance(r, list):  # offline: triples only; its output is checked like any other
            errors = validate_triples(r)
            r = {"triples": r, "valid": not errors, "errors": errors, "latency_s": per_sentence, "cost_usd": 0.0}
        results.append({"id": s.id, "sentence": s.text, **r})
    with open(out / "outputs.jsonl", "w", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    onto_g = ontology_graph(case.ontology)
    onto_g.serialize(out / "ontology.ttl", format="turtle")
    kg, dropped = kg_graph([(r["id"], r["triples"]) for r in results], case.ontology, case.base_iri)
    kg_path = out / "kg.nt"
    # sorted lines: two runs of one input give the same file, and a diff of two runs shows what changed
    # (rdflib writes N-Triples in its store's order)
    lines = sorted(set(kg.serialize(format="nt", encoding="utf-8").decode("utf-8").splitlines()) - {""})
    kg_path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (out / "dropped.json").write_text(json.dumps(dropped, indent=1, ensure_ascii=False), encoding="utf-8")
    fatal = getattr(extractor, "fatal", None)  # the LLM could not be asked: no KG to judge
    validation = None
    if validate and not fatal:
        say("validating the KG (SV2, CS2, SHACL)")
        validation = validate_kg(kg_path, kg, onto_g)
    where["stage"] = "writing the validation, scores and provenance"
    if validation is not None:
        (out / "graph_validation.json").write_text(json.dumps(validation, indent=1, default=str), encoding="utf-8")
    status = run_status(results, fatal)
    scores = None
    not_scored = None
    if case.gold is not None:
        scored = scored_results(results, fatal)
        if not any(r["id"] in case.gold for r in scored):
            # no gold to compare with: F1 0.000 would be a measurement that was not made
            not_scored = ("no sentence was answered" if not scored else
                          f"none of the {len(scored)} sentence(s) {'answered ' if fatal else ''}has a gold entry")
            scored = []
        if scored:
            outputs = [Output(r["id"], r["sentence"], case.gold[r["id"]].triples if r["id"] in case.gold else [],
                              r["triples"], r["valid"], r["latency_s"], r["cost_usd"]) for r in scored]
            scores = score_ontology(outputs, case.ontology)
            # scored against no triples (their predictions are false positives): said, not hidden
            no_gold = [r["id"] for r in scored if r["id"] not in case.gold]
            scores["n_sentences_without_gold"] = len(no_gold)
            if no_gold:
                log.warning("%s: %d sentences have no gold entry and are scored against no triples: %s%s", case.path,
                            len(no_gold), ", ".join(no_gold[:5]), " ..." if len(no_gold) > 5 else "")
            # a gold entry no sentence has (a misspelt id): its triples are in no score, so recall would
            # look higher than it is without a word
            ids = {s.id for s in case.sentences}
            orphans = sorted(g for g in case.gold if g not in ids)
            scores["n_gold_without_sentence"] = len(orphans)
            if orphans:
                log.warning("%s: %d gold entries have no sentence of that id and are scored nowhere: %s%s", case.path,
                            len(orphans), ", ".join(orphans[:5]), " ..." if len(orphans) > 5 else "")
        # a stopped run's file says so first; its figures (if any) cover only the sentences answered
        (out / "scores.json").write_text(json.dumps({**status, **(scores or {"not_scored": not_scored}),
                                                     "n_sentences": len(results), "scored_sentences": len(scored)},
                                                    indent=1), encoding="utf-8")
    # a relation without a domain gives no subType: no extractor writes it (one without a range
    # takes its object's type from the value)
    unusable = sorted(n for n, r in case.ontology.relations.items() if not r.domain)
    if unusable:
        log.warning("%s: relations without a domain are never extracted: %s", case.path, ", ".join(unusable))
    setting = "no relations" if isinstance(extractor, _NoRelations) else \
        training_setting(extractor, case.ontology) if kind == "offline" else \
        ("trained" if case.ontology.name.removeprefix("ont_") in train else "zero-shot")
    prov = {"case": case.name, "manifest": str(case.path), **status, "extractor": getattr(extractor, "name", kind),
            "setting": setting,
            "relations_never_extracted": unusable,
            "protocol": protocol, "training_ontologies": sorted({o for o, _ in getattr(extractor, "train_sents", [])}
                                                                 or train),
            "similarity": getattr(extractor, "similarity", None),
            "fit": None if fit is None else {"source": fit.source, "file": str(fit.path) if fit.path else None,
                                             "note": fit.note or None, "key": fit.key},
            "settings": extractor.settings.public() if hasattr(extractor, "settings") else
            extractor.public_settings() if hasattr(extractor, "public_settings") else None,
            "model": getattr(getattr(extractor, "settings", None), "model", "offline"),
            "prompt_hashes": sorted({r["prompt_hash"] for r in results if r.get("prompt_hash")}),
            "prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in results),
            "completion_tokens": sum(r.get("completion_tokens") or 0 for r in results),
            "cost_usd": sum(r.get("cost_usd") or 0.0 for r in results),
            "latency_s_mean": sum(r["latency_s"] for r in results) / max(len(results), 1),
            "versions": _versions()}
    (out / "provenance.json").write_text(json.dumps(prov, indent=1, default=str), encoding="utf-8")
    if fatal:
        sent = status["sentences_sent"]
        raise LLMError(f"{case.name}: {fatal} ({sent} of {len(results)} sentence(s) sent; outputs, KG and "
                       f"provenance so far in {out})", provenance=prov)
    return {"case": case.name, "extractor": prov["extractor"], "setting": setting,
            "training_ontologies": prov["training_ontologies"], "n_sentences": len(results), "scores": scores,
            "not_scored": not_scored,
            "validation": validation, "kg_triples": len(kg), "dropped": len(dropped), "fit": prov["fit"],
            "elapsed_s": time.perf_counter() - t0}


def run_status(results: list[dict[str, Any]], fatal: str | None) -> dict[str, Any]:
    """What ``scores.json`` and ``provenance.json`` say first about how the run ended.

    Args:
        results: one per sentence, as ``outputs.jsonl`` holds them (``error`` ``"not sent: ..."`` for a
            sentence never sent, another ``error`` for a request that got no answer).
        fatal: why the extractor stopped (:attr:`pipeline.text.llm.LLMExtractor.fatal`), or ``None``.
    Returns:
        ``{"status": "complete"}``, or ``{"status": "stopped", "reason", "sentences_sent",
        "sentences_answered", "sentences_valid", "sentences_total"}`` (counts of sentences).
    """
    if not fatal:
        return {"status": "complete"}
    sent = [r for r in results if not str(r.get("error") or "").startswith("not sent")]
    answered = [r for r in sent if not r.get("error")]
    return {"status": "stopped", "reason": fatal, "sentences_sent": len(sent), "sentences_answered": len(answered),
            "sentences_valid": sum(1 for r in answered if r.get("valid")), "sentences_total": len(results)}


def scored_results(results: list[dict[str, Any]], fatal: str | None) -> list[dict[str, Any]]:
    """The sentences a run's scores cover: all of a complete run; of a stopped run, those the model
    answered (a sentence never sent or never answered was not extracted: scoring it as "no triples"
    would report a measurement that was not made), and none when no answer was valid (there is no
    extraction to measure: F1 0 with a perfect conformance and no hallucination would read as one)."""
    if not fatal:
        return results
    answered = [r for r in results if not r.get("error")]
    return answered if any(r.get("valid") for r in answered) else []


def _baseline_file(bench: Path, model_dir: str, name: str) -> Path | None:
    """The published responses of ``model_dir`` for ontology ``name``: DBpedia-WebNLG's
    ``<name>_<tag>_responses.jsonl`` or Wikidata-TekGen's ``ont_<name>_*responses*.jsonl``."""
    folder = bench / "baselines" / model_dir / "llm_responses"
    own = folder / f"{name}_{BASELINES[model_dir]}_responses.jsonl"
    return own if own.exists() else next(iter(sorted(folder.glob(f"ont_{name}_*responses*.jsonl"))), None)


def rescore_baseline(bench: Path, model_dir: str, name: str, onto: TextOntology) -> dict[str, Any] | None:
    """Score a published baseline's extracted triples (``llm_responses/``) with our scorer.

    Every gold sentence is scored (one the baseline has no response for gets no triples), as
    Text2KGBench's ``run_eval.py`` averages over the gold sentences. Structural validity, latency
    and cost are not applicable (free-text answers, not published). Returns ``None`` when the
    baseline file is missing.

    Raises:
        InputError: a response line that is not JSON (file and line named).
    """
    path = _baseline_file(bench, model_dir, name)
    gt = bench / "ground_truth" / f"ont_{name}_ground_truth.jsonl"
    if path is None or not gt.exists():
        return None
    gold = load_sentences(gt)
    responses: dict[str, list[dict[str, str]]] = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"expected a JSON object per line ({exc})", path=path, line=i) from exc
        # a repeated id: the last line counts (run_eval.py reads the lines into a dict)
        responses[str(d.get("id"))] = [
            {"sub": str(t[0]), "rel": str(t[1]), "obj": str(t[2])} for t in d.get("triples") or []
            if isinstance(t, list) and len(t) == 3]
    outputs = [Output(g.id, g.text, g.triples, responses.get(g.id, [])) for g in gold]
    scores = score_ontology(outputs, onto)
    scores["validity"] = scores["latency_s"] = scores["cost_usd"] = None
    return scores


def published_baseline(bench: Path, model_dir: str) -> dict[str, dict[str, float]]:
    """The baseline's published per-ontology averages over all test sentences: DBpedia-WebNLG's
    ``eval_metrics/avg_eval_results.jsonl``, Wikidata-TekGen's ``eval_metrics/ont_llm_avg_stats*.jsonl``
    (rows of ``type`` ``all_test_cases``; the ``selected_test_cases`` rows are a subset)."""
    folder = bench / "baselines" / model_dir / "eval_metrics"
    files = [folder / "avg_eval_results.jsonl"] + sorted(folder.glob("ont_llm_avg_stats*.jsonl"))
    out: dict[str, dict[str, float]] = {}
    for path in (p for p in files if p.exists()):
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line) if line.strip() else {}
            name = d.get("onto") or d.get("id")
            if name and name not in out and d.get("type", "all_test_cases") == "all_test_cases":
                out[name] = {k[4:]: float(v) for k, v in d.items() if k.startswith("avg_")}
        break
    return out


def load_training(bench: Path, names: list[str]) -> dict[str, tuple[TextOntology, list[Sentence]]]:
    """Training splits of the benchmark's ontologies, ``{name: (ontology, sentences)}``."""
    return {n: (load_ontology(bench / "ontologies" / f"{n}_ontology.json", own=False),
                load_sentences(bench / "train" / f"ont_{n}_train.jsonl")) for n in names}

