"""Run an extractor on text cases: outputs, KG, graph validation, scores, provenance.

:func:`run_case` writes, under ``out/<case>/``:

=====================  ============================================================
``outputs.jsonl``      per sentence: id, sentence, triples, validity, latency, cost
``kg.nt``              the KG (:func:`.rdf.kg_graph`); ``dropped.json`` what was left out
``ontology.ttl``       the ontology as OWL (:func:`.rdf.ontology_graph`)
``graph_validation.json``  SV2, CS2 (owlrl) and SHACL results, as for every other KG
``scores.json``        :func:`.metrics.score_ontology` when the case has gold triples
``provenance.json``    extractor, model, settings, prompt hashes, tokens, cost, versions
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
from typing import Any

from pipeline.errors import InputError
from pipeline.llm import LLMError, LLMSettings
from pipeline.text.data import Sentence, TextOntology, load_ontology, load_sentences
from pipeline.text.llm import LLMExtractor
from pipeline.text.manifest import TextCase
from pipeline.text.metrics import Output, macro, score_ontology
from pipeline.text.offline import OfflineExtractor
from pipeline.text.rdf import kg_graph, ontology_graph
from pipeline.text.schema import validate_triples
from pipeline.validation.consistency import owlrl_consistency
from pipeline.validation.result import Result
from pipeline.validation.shacl import validate_shacl
from pipeline.validation.syntax import check_ntriples

__all__ = ["EXTRACTORS", "BASELINES", "run_case", "validate_kg", "rescore_baseline", "published_baseline",
           "load_training", "macro"]

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
    An empty KG is not validated: each check is reported not applicable."""
    if len(kg) == 0:
        return {n: Result.not_applicable(n, "empty KG: nothing to validate").to_dict()
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


def run_case(case: TextCase, out: Path, *, extractor: Any = None, kind: str = "offline", protocol: str = "standard",
             extra_training: dict[str, tuple[TextOntology, list[Sentence]]] | None = None,
             validate: bool = True, llm_settings: LLMSettings | None = None) -> dict[str, Any]:
    """Extract, write the KG, validate and score one text case.

    Args:
        case: the loaded manifest.
        out: output folder of this case (created).
        extractor: an already fitted extractor (else one of ``kind`` is built from the case).
        kind: ``offline`` or ``llm``.
        protocol: ``standard``, or ``loo`` (the offline extractor never trains on this ontology).
        extra_training: training data of other ontologies, ``{name: (ontology, sentences)}``.
        validate: run SV2, CS2 and SHACL on the KG.
    Returns:
        ``{"case", "extractor", "n_sentences", "scores" (or None), "validation", "kg_triples",
        "dropped", "elapsed_s"}``.
    Raises:
        InputError: unknown ``kind``, or an offline extractor with no training data.
        LLMError: the LLM could not be asked (server unreachable, key refused, unknown model): raised
            after ``outputs.jsonl``, the (empty) KG and ``provenance.json`` are written; the other
            sentences were not sent.
    """
    if kind not in EXTRACTORS:
        raise InputError(f"unknown extractor {kind!r}; expected one of {', '.join(EXTRACTORS)}")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    texts = [s.text for s in case.sentences]
    train = _training(case, protocol, extra_training)
    if extractor is None:
        if kind == "offline":
            if not train:
                raise InputError("the offline extractor needs training sentences ('train' in the manifest)",
                                 path=case.path, key="train")
            extractor = OfflineExtractor(**case.offline).fit(train)
        else:
            extractor = LLMExtractor([s for _, ss in train.values() for s in ss], settings=llm_settings)
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
    kg.serialize(kg_path, format="nt", encoding="utf-8")
    (out / "dropped.json").write_text(json.dumps(dropped, indent=1, ensure_ascii=False), encoding="utf-8")
    fatal = getattr(extractor, "fatal", None)  # the LLM could not be asked: no KG to judge
    validation = validate_kg(kg_path, kg, onto_g) if validate and not fatal else None
    if validation is not None:
        (out / "graph_validation.json").write_text(json.dumps(validation, indent=1, default=str), encoding="utf-8")
    scores = None
    if case.gold is not None:
        outputs = [Output(r["id"], r["sentence"], case.gold[r["id"]].triples if r["id"] in case.gold else [],
                          r["triples"], r["valid"], r["latency_s"], r["cost_usd"]) for r in results]
        scores = score_ontology(outputs, case.ontology)
        # scored against no triples (their predictions are false positives): said, not hidden
        no_gold = [r["id"] for r in results if r["id"] not in case.gold]
        scores["n_sentences_without_gold"] = len(no_gold)
        if no_gold:
            log.warning("%s: %d sentences have no gold entry and are scored against no triples: %s%s", case.path,
                        len(no_gold), ", ".join(no_gold[:5]), " ..." if len(no_gold) > 5 else "")
        (out / "scores.json").write_text(json.dumps(scores, indent=1), encoding="utf-8")
    # a relation without a domain or a range gives no subType/objType: no extractor writes it
    unusable = sorted(n for n, r in case.ontology.relations.items() if not (r.domain and r.range))
    if unusable:
        log.warning("%s: relations without a domain or a range are never extracted: %s", case.path, ", ".join(unusable))
    prov = {"case": case.name, "manifest": str(case.path), "extractor": getattr(extractor, "name", kind),
            "relations_never_extracted": unusable,
            "protocol": protocol, "training_ontologies": sorted(train),
            "similarity": getattr(extractor, "similarity", None),
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
        sent = sum(1 for r in results if not str(r.get("error") or "").startswith("not sent"))
        raise LLMError(f"{case.name}: {fatal} ({sent} of {len(results)} sentence(s) sent; outputs, KG and "
                       f"provenance so far in {out})", provenance=prov)
    return {"case": case.name, "extractor": prov["extractor"], "n_sentences": len(results), "scores": scores,
            "validation": validation, "kg_triples": len(kg), "dropped": len(dropped),
            "elapsed_s": time.perf_counter() - t0}


def rescore_baseline(bench: Path, model_dir: str, name: str, onto: TextOntology) -> dict[str, Any] | None:
    """Score a published baseline's extracted triples (``llm_responses/``) with our scorer.

    Structural validity, latency and cost are not applicable (free-text answers, not published).
    Returns ``None`` when the baseline file is missing.
    """
    tag = BASELINES[model_dir]
    path = bench / "baselines" / model_dir / "llm_responses" / f"{name}_{tag}_responses.jsonl"
    gt = bench / "ground_truth" / f"ont_{name}_ground_truth.jsonl"
    if not path.exists() or not gt.exists():
        return None
    gold = {s.id: s for s in load_sentences(gt)}
    outputs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        triples = [{"sub": str(t[0]), "rel": str(t[1]), "obj": str(t[2])} for t in d.get("triples") or []
                   if isinstance(t, list) and len(t) == 3]
        g = gold.get(d["id"])
        if g is not None:
            outputs.append(Output(d["id"], g.text, g.triples, triples))
    scores = score_ontology(outputs, onto)
    scores["validity"] = scores["latency_s"] = scores["cost_usd"] = None
    return scores


def published_baseline(bench: Path, model_dir: str) -> dict[str, dict[str, float]]:
    """The baseline's published per-ontology averages (``eval_metrics/avg_eval_results.jsonl``)."""
    path = bench / "baselines" / model_dir / "eval_metrics" / "avg_eval_results.jsonl"
    out: dict[str, dict[str, float]] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        name = d.get("onto") or d.get("id")
        if name and name not in out:
            out[name] = {k[4:]: float(v) for k, v in d.items() if k.startswith("avg_")}
    return out


def load_training(bench: Path, names: list[str]) -> dict[str, tuple[TextOntology, list[Sentence]]]:
    """Training splits of the benchmark's ontologies, ``{name: (ontology, sentences)}``."""
    return {n: (load_ontology(bench / "ontologies" / f"{n}_ontology.json"),
                load_sentences(bench / "train" / f"ont_{n}_train.jsonl")) for n in names}

