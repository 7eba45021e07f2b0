"""Scores of extracted triples: Text2KGBench's metrics and the LettrIA categories.

Per ontology (:func:`score_ontology`) and macro over ontologies (:func:`macro`). Values are
normalized first (:mod:`.normalize`, applied alike to gold and predictions).

* **Triple P/R/F1** - Text2KGBench (Mihindukulasooriya et al., ISWC 2023, Sec. 4): "precision,
  recall and F1 ... of the extracted triples against the ground truth triples", computed per test
  sentence and averaged over the sentences, as its ``run_eval.py`` does (a sentence with no
  prediction scores 0/0/0). Predictions whose relation is not in the ontology are left out first
  (``filtered_llm_triples`` in the published results); ontology conformance reports them.
* **Text2KGBench's own triple P/R/F1** (``t2kb``) - the definition of its ``run_eval.py``, the
  figure its published baselines report: per gold sentence, the predictions whose relation is
  one of the sentence's gold relations are kept (relation names compared with spaces written as
  underscores, as ``run_eval.py`` compares the LLMs' ``head_of_state`` with the gold's ``head of
  state``; white space at either end ignored), then ``normalize_triple`` keys (subject, relation
  and object with spaces and underscores removed, lower case; no other normalization) are
  compared; a sentence with no kept prediction scores 0/0/0; averaged over the gold sentences. It
  differs from the triple P/R/F1 above in two ways: a prediction whose relation the gold does not
  state for that sentence is not counted (above: a false positive), and values are not
  normalized (``2,500`` is not ``2500``).
* **Ontology conformance, relation/subject/object hallucination** - Text2KGBench: conformance is
  the share of output triples whose relation is in the ontology (relation hallucination = 1 -
  conformance); a subject (object) is hallucinated when its stemmed form, spaces and underscores
  removed, is not found in the stemmed sentence (plus the ontology's concept labels). Per
  sentence, averaged over the sentences with output (a sentence with no output scores 1 and 0s).
* **E / A / P / R** - Text2KGBench-LettrIA (Plu et al., CEUR-WS Vol-4041, 2025) reports F1 for
  "Entities", "Attributes", "Properties" and "Relations" separately. The paper does not spell the
  matching out; we define (micro P/R/F1 pooled over the sentences of an ontology, as its
  micro-F1): **Entities** = (entity name, class) pairs of the subjects and of the objects of
  object properties; **Attributes** = (subject, datatype property, literal value) triples;
  **Properties** = (subject, datatype property) pairs, i.e. the property was identified whatever
  its value; **Relations** = (subject, object property, object) triples. A category with nothing
  to score is ``None`` (n/a): see :func:`prf`.
* **Ontological fidelity** - LettrIA's hallucination rate turned into a share: output triples
  whose relation, ``subType`` and ``objType`` are all terms of the ontology (a concept, a class
  named in a domain or range, or a range datatype). ``hallucination = 1 - fidelity``.
* **Domain/range adherence** (hierarchy-aware) - of the output triples with an ontology relation,
  the share whose ``subType`` is the domain or a subclass of it, whose ``objType`` is the range or
  a subclass of it, and whose object is a valid value of a datatype range (a number, an ISO date or
  year) or, for a class range, a name and not a number or a date; for a relation without a declared
  range, whose ``objType`` is the value's own type (:func:`.normalize.value_type`: ``Date``,
  ``number`` or ``Thing``). Missing types are derived from the ontology (Text2KGBench baselines
  output ``sub, rel, obj`` only).
* **Structural validity** - share of outputs that parse and conform to the JSON Schema.
* **Latency** (mean seconds per sentence) and **cost** (mean US dollars per query; 0 offline).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.text.data import TextOntology, relation_key
from pipeline.text.normalize import DATATYPES, OPEN_RANGE_CLASS, date_value, key, normalize_value, number_value, value_type
from pipeline.validation.result import prf as validation_prf

__all__ = ["Output", "score_ontology", "macro", "prf", "hallucinations", "adheres", "text2kgbench_prf"]


@dataclass
class Output:
    """One sentence's output: predicted triples (``sub, rel, obj`` and optional ``subType``,
    ``objType``), whether it was structurally valid, its latency (s) and cost (USD)."""

    id: str
    sentence: str
    gold: list[dict[str, str]]
    triples: list[dict[str, str]]
    valid: bool = True
    latency_s: float = 0.0
    cost_usd: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float | None]:
    """Micro precision ``tp/n_pred``, recall ``tp/n_gold`` and F1; ``None`` (not applicable) where
    there is nothing to score: all three when neither gold nor prediction has an item of the
    category (a TekGen ontology has no datatype property: its A and P are n/a, not 0), the
    precision when nothing was predicted, the recall when the gold has none (then F1 is 0: every
    prediction is spurious). The rules of :func:`pipeline.validation.result.prf`."""
    p, r, f = validation_prf(tp, n_pred, n_gold)
    return {"precision": p, "recall": r, "f1": f}


def text2kgbench_prf(gold: list[dict[str, str]], pred: list[dict[str, str]]) -> tuple[float, float, float]:
    """One sentence's precision, recall and F1 as Text2KGBench's ``run_eval.py`` computes them
    (see the module docstring; ``calculate_precision_recall_f1`` and ``normalize_triple``)."""
    def rel(x: object) -> str:
        return str(x).strip().replace(" ", "_")

    def norm(x: object) -> str:
        return re.sub(r"(_|\s+)", "", str(x)).lower()
    gold_rels = {rel(t.get("rel", "")) for t in gold}
    kept = {norm(t.get("sub", "")) + norm(t.get("rel", "")) + norm(t.get("obj", ""))
            for t in pred if rel(t.get("rel", "")) in gold_rels}
    if not kept:
        return 0.0, 0.0, 0.0
    g = {norm(t.get("sub", "")) + norm(t.get("rel", "")) + norm(t.get("obj", "")) for t in gold}
    p = len(g & kept) / len(kept)
    r = len(g & kept) / len(g)
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def _norm(t: dict[str, str], onto: TextOntology) -> tuple[str, str, str, str, str, bool]:
    """(sub key, rel, obj key, subType, objType, is datatype) with types derived when missing; the
    relation as the ontology names it (:meth:`.data.TextOntology.resolve`), else its
    :func:`.data.relation_key` (not in the ontology)."""
    raw = str(t.get("rel", ""))
    name = onto.resolve(raw)
    rel = name if name is not None else relation_key(raw)
    r = onto.relations.get(rel)
    rng = r.range if r else None
    sub_t = t.get("subType") or (r.domain if r else "")
    obj_t = t.get("objType") or (r.range if r else "")
    return (key(normalize_value(t.get("sub", ""), "")), rel, key(normalize_value(t.get("obj", ""), rng or None)),
            sub_t, obj_t, bool(r and r.is_datatype))


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer
    return PorterStemmer()


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Porter stem of one word (cached: a benchmark scores each test sentence four times, ours
    with and without the corpus evidence and two baselines, and the stemmer is pure)."""
    return _stemmer().stem(word)


def _stem_text(text: str) -> str:
    return "".join(_stem(w) for w in re.findall(r"\w+|[^\w\s]", text))


@functools.lru_cache(maxsize=4096)
def _haystack(sentence: str, concepts: tuple[str, ...]) -> str:
    return re.sub(r"(_|\s+)", "", _stem_text(sentence + " ".join(concepts))).lower()


def hallucinations(sentence: str, triples: list[dict[str, str]], onto: TextOntology) -> tuple[float, float]:
    """Text2KGBench subject and object hallucination of one sentence's output (0, 0 when empty).

    The sentence plus the ontology's concept labels is stemmed word by word (Porter), joined
    without spaces and lower-cased; a subject or object, spaces/underscores removed, lower-cased
    and stemmed, is hallucinated when it is not a substring of that.
    """
    if not triples:
        return 0.0, 0.0
    hay = _haystack(sentence, tuple(onto.concepts))
    subj = sum(_stem(re.sub(r"(_|\s+)", "", str(t.get("sub", ""))).lower()) not in hay for t in triples)
    obj = sum(_stem(re.sub(r"(_|\s+)", "", str(t.get("obj", ""))).lower()) not in hay for t in triples)
    return subj / len(triples), obj / len(triples)


def adheres(t: dict[str, str], onto: TextOntology) -> bool | None:
    """Domain/range adherence of one triple (see the module docstring); ``None`` when its
    relation is not in the ontology (counted by fidelity instead)."""
    r = onto.relations.get(onto.resolve(str(t.get("rel", ""))) or "")
    if r is None:
        return None
    sub_t = t.get("subType") or r.domain
    obj_t = t.get("objType") or r.range
    if not onto.is_a(sub_t, r.domain):
        return False
    obj = str(t.get("obj", ""))
    if r.open_range:  # no range declared: the object's type is the value's own
        return not obj_t or obj_t == value_type(obj)
    if r.is_datatype:
        if obj_t != r.range:
            return False
        if r.range == "number":
            return number_value(obj) is not None
        if r.range in ("Date", "date"):
            d = date_value(normalize_value(obj, r.range))
            return d is not None
        if r.range == "Year":
            return re.fullmatch(r"\d{4}", normalize_value(obj, r.range)) is not None
        return True
    if not onto.is_a(obj_t, r.range):
        return False
    return number_value(obj) is None and date_value(obj) is None


def score_ontology(outputs: list[Output], onto: TextOntology) -> dict[str, Any]:
    """All scores of one ontology's outputs (see the module docstring).

    Returns:
        ``{"n_sentences", "triple": {precision, recall, f1}, "t2kb": {precision, recall, f1}
        (Text2KGBench's run_eval.py), "E"|"A"|"P"|"R": {precision, recall,
        f1, tp, n_pred, n_gold}, "onto_conformance", "rel_halluc", "sub_halluc", "obj_halluc",
        "fidelity", "hallucination", "adherence", "validity", "latency_s", "cost_usd",
        "n_pred_triples", "n_gold_triples"}``; ratios in [0, 1], ``None`` when undefined.
    """
    # the JSON ontologies use some classes in domains and ranges without listing them as concepts
    terms = set(onto.concepts) | set(DATATYPES) | {r.domain for r in onto.relations.values()} | \
        {r.range or OPEN_RANGE_CLASS for r in onto.relations.values()}
    tp_c = {c: [0, 0, 0] for c in "EAPR"}
    sent_p, sent_r, sent_f, conf, subh, objh = [], [], [], [], [], []
    bench = []  # Text2KGBench's run_eval.py, per sentence
    n_out = n_fid = n_rel = n_adh = 0
    for o in outputs:
        gold = [_norm(t, onto) for t in o.gold]
        pred = [_norm(t, onto) for t in o.triples]
        g3 = {(s, r, ob) for s, r, ob, *_ in gold}
        p3 = {(s, r, ob) for s, r, ob, *_ in pred if r in onto.relations}
        tp = len(g3 & p3)
        p = tp / len(p3) if p3 else 0.0
        r_ = tp / len(g3) if g3 else 0.0
        sent_p.append(p)
        sent_r.append(r_)
        sent_f.append(2 * p * r_ / (p + r_) if p + r_ else 0.0)
        bench.append(text2kgbench_prf(o.gold, o.triples))
        if o.triples:
            conf.append(sum(t[1] in onto.relations for t in pred) / len(pred))
            sh, oh = hallucinations(o.sentence, o.triples, onto)
            subh.append(sh)
            objh.append(oh)
        else:
            conf.append(1.0)
            subh.append(0.0)
            objh.append(0.0)
        for raw, t in zip(o.triples, pred):
            n_out += 1
            n_fid += t[1] in onto.relations and t[3] in terms and t[4] in terms
            a = adheres(raw, onto)
            if a is not None:
                n_rel += 1
                n_adh += bool(a)
        for c, gset, pset in (("E", _entities(gold), _entities([t for t in pred if t[1] in onto.relations])),
                              ("A", {t[:3] for t in gold if t[5]}, {t[:3] for t in pred if t[5]}),
                              ("P", {t[:2] for t in gold if t[5]}, {t[:2] for t in pred if t[5]}),
                              ("R", {t[:3] for t in gold if not t[5]},
                               {t[:3] for t in pred if not t[5] and t[1] in onto.relations})):
            tp_c[c][0] += len(gset & pset)
            tp_c[c][1] += len(pset)
            tp_c[c][2] += len(gset)
    n = len(outputs)

    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    res: dict[str, Any] = {
        "n_sentences": n,
        "triple": {"precision": mean(sent_p), "recall": mean(sent_r), "f1": mean(sent_f)},
        "t2kb": {k: mean([b[i] for b in bench]) for i, k in enumerate(("precision", "recall", "f1"))},
        # a sentence without triples conforms and hallucinates nothing (Text2KGBench's per-sentence
        # definition), but a run that predicted no triple at all has nothing to judge: undefined, not perfect
        "onto_conformance": mean(conf) if n_out else None, "rel_halluc": 1 - mean(conf) if n_out and conf else None,
        "sub_halluc": mean(subh) if n_out else None, "obj_halluc": mean(objh) if n_out else None,
        "fidelity": n_fid / n_out if n_out else None,
        "hallucination": 1 - n_fid / n_out if n_out else None,
        "adherence": n_adh / n_rel if n_rel else None,
        "validity": sum(o.valid for o in outputs) / n if n else None,
        "latency_s": mean([o.latency_s for o in outputs]), "cost_usd": mean([o.cost_usd for o in outputs]),
        "n_pred_triples": n_out, "n_gold_triples": sum(len(o.gold) for o in outputs)}
    for c, (tp, npred, ngold) in tp_c.items():
        res[c] = {**prf(tp, npred, ngold), "tp": tp, "n_pred": npred, "n_gold": ngold}
    return res


def _entities(triples: list[tuple]) -> set[tuple[str, str]]:
    out = set()
    for s, _, ob, st, ot, is_dt in triples:
        out.add((s, st))
        if not is_dt:
            out.add((ob, ot))
    return out


def macro(per_ontology: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Unweighted mean over ontologies of every score of :func:`score_ontology` (``None``s skipped)."""
    out: dict[str, Any] = {}
    rows = list(per_ontology.values())
    if not rows:
        return out
    for k, v in rows[0].items():
        if isinstance(v, dict):
            out[k] = {kk: _mean([r[k].get(kk) for r in rows]) for kk in v}
        else:
            out[k] = _mean([r.get(k) for r in rows])
    return out


def _mean(xs: list[Any]) -> float | None:
    vals = [float(x) for x in xs if isinstance(x, (int, float))]  # None (not applicable) is skipped
    return sum(vals) / len(vals) if vals else None
