"""Decoding of the offline extractor: which scored mention pairs of a sentence become triples.

:class:`PairScore` is one scored (subject candidate, object candidate) pair of a sentence
(:meth:`.offline.OfflineExtractor.pair_scores`); a decoder turns a sentence's scored pairs into
the kept pairs, best first; :func:`write_triples` writes them as triples (one pair per object
span, DBpedia name variants, coordinated objects).

* :func:`threshold_decode` - independent pairs: a pair is kept when its probability (plus the
  label-word cue) reaches the threshold, ranked by probability times the subject model's.
* :func:`f1_decode` - the pairs that maximise the sentence's expected F1 (a threshold per
  sentence: Text2KGBench's triple F1 is a mean over sentences).

Before either, :func:`stated_pairs` removes the pairs a sentence does not state: a denied pair
(:func:`.negation.negated`), and of a pair of mentions given one relation in both directions, the
direction the names' types or the scores do not prefer.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from typing import Callable

import numpy as np

from pipeline.text.features import compatible, variant_values
from pipeline.text.mentions import Mention
from pipeline.text.negation import cue_spans, negated
from pipeline.text.normalize import key, normalize_value, value_type

__all__ = ["PairScore", "stated_pairs", "threshold_decode", "f1_decode", "write_triples"]


@dataclass(frozen=True)
class PairScore:
    """One ordered pair of candidate mentions of a sentence, scored.

    Attributes:
        a, b: subject and object candidate.
        p: pair model probability that ``a`` and ``b`` form a triple (0..1).
        ps: subject model probability of ``a`` (0..1; 1 when the subject model is off).
        rel: the relation of this row: the best allowed for ``b`` (range) by the relation SVM
            score plus the label-word bonus (``alt`` 0; the next best for ``alt`` 1 ...);
            ``None`` when no ontology relation accepts ``b``.
        rel_score: that relation's score (SVM decision value plus bonus).
        raw_rel: best allowed relation by the SVM score alone (fallback pair).
        fact: the relation of a training triple with these two names, or ``None``.
        cue: label-word cue added to ``p`` before the threshold (weighted overlap of the context
            words with the best-matching relation name).
        sent: the sentence (``""`` when not given; the stacker's clause features need it).
        pair: index of the pair among the sentence's candidate pairs (:func:`.features.sentence_pairs`
            order: its row among the pair model's inputs, which the training labels are read by).
        alt: 0 for the pair's best relation, 1 for its second best (an alternative the stacker
            may prefer: :mod:`.stacking`), and so on.
        label: share of the relation name's word stems found around the pair (between the two
            names, three words before each, two after the object); ``label_other``: the highest
            such share of the other relations allowed for the pair.
    """

    a: Mention
    b: Mention
    p: float
    ps: float
    rel: str | None
    rel_score: float
    raw_rel: str | None
    fact: str | None
    cue: float
    sent: str = ""
    pair: int = 0
    alt: int = 0
    label: float = 0.0
    label_other: float = 0.0


Chosen = tuple[float, Mention, Mention, str]


def stated_pairs(scored: list[PairScore], symmetric: frozenset[str] = frozenset(),
                 support: Callable[[PairScore, str], int] | None = None,
                 subject_power: float = 1.0) -> list[PairScore]:
    """The rows of ``scored`` (one sentence's) that may state a triple, in their order.

    * A pair denied by a negation cue (:func:`.negation.negated` on :attr:`PairScore.sent`: "Lyon
      is *not* the capital of France") is left out, with every relation, and so is every pair with
      a mention between the two names of a denied pair (the denied predicate's words: "capital"):
      the negation's scope is the predicate and its arguments.
    * One pair of mentions, one relation, one direction: when a relation ``r`` (the row's
      training fact, else its relation) is given both to (a, b) and to (b, a), the direction kept
      is the one with the higher ``support(row, r)`` (how far the names' known classes admit the
      relation's domain and range; 0 for every row when ``support`` is None), then the higher rank
      (:func:`_rank`), then the subject written first; every row of the other direction with
      ``r`` is left out. A relation in ``symmetric`` (``owl:SymmetricProperty``: ``r(a, b)``
      entails ``r(b, a)``) keeps both. Evidence: no training sentence of Text2KGBench (4,860
      DBpedia-WebNLG training and gold sentences, 8,957 Wikidata-TekGen training and validation
      ones) states one relation in both directions between two names.

    Mentions are compared by their character span (a name's variants are one mention)."""
    cues = {c.sent: cue_spans(c.sent) for c in scored}  # one sentence's rows: one entry
    denied = [bool(cues[c.sent]) and negated(c.sent, c.a.start, c.a.end, c.b.start, c.b.end, cues[c.sent])
              for c in scored]
    scopes = {(min(c.a.end, c.b.end), max(c.a.start, c.b.start)) for c, d in zip(scored, denied) if d}
    rows = [c for c, d in zip(scored, denied)
            if not d and not any(lo <= m.start and m.end <= hi for lo, hi in scopes for m in (c.a, c.b))]
    best: dict[tuple, tuple] = {}  # (subject span, object span, relation) -> its best row's score
    keyed = []
    for c in rows:
        r = c.fact or c.rel
        k = None if r is None or r in symmetric else ((c.a.start, c.a.end), (c.b.start, c.b.end), r)
        keyed.append((c, k))
        if k is not None:
            score = (support(c, r) if support else 0, _rank(c, subject_power), -c.a.start)
            if k not in best or score > best[k]:
                best[k] = score
    return [c for c, k in keyed if k is None or best.get((k[1], k[0], k[2]), best[k]) <= best[k]]


def threshold_decode(scored: list[PairScore], threshold: float, subject_power: float = 1.0) -> list[Chosen]:
    """Pairs whose ``p + cue`` reaches ``threshold`` (a training fact always), as ``(rank score,
    subject, object, relation)`` sorted best first; the rank is ``p * ps ** subject_power + 0.1 *
    rel_score`` (``1 + p`` for a fact; ``subject_power`` 0 when ``p`` already weighs the subject
    model, :mod:`.stacking`). A pair scored with several relations (``alt``) keeps its best-ranked
    row. A sentence with no such pair keeps its most likely pair (every WebNLG sentence states at
    least one triple)."""
    chosen: list[Chosen] = []
    for c in scored:
        if c.fact:
            chosen.append((_rank(c, subject_power), c.a, c.b, c.fact))
        elif c.p + c.cue >= threshold and c.rel is not None:
            chosen.append((_rank(c, subject_power), c.a, c.b, c.rel))
    if not chosen and scored:
        best = scored[int(np.argmax([c.p for c in scored]))]
        if best.raw_rel is not None:
            chosen.append((best.p, best.a, best.b, best.raw_rel))
    chosen.sort(key=lambda c: (-c[0], c[1].start, c[2].start))
    # one relation per pair: a second row would count its subject twice for the topic
    kept, seen = [], set()
    for c in chosen:
        k = (c[1].start, c[1].end, c[1].value, c[2].start, c[2].end, c[2].value)
        if k not in seen:
            seen.add(k)
            kept.append(c)
    return kept


def f1_decode(scored: list[PairScore], missing: float = 1.0, subject_power: float = 1.0) -> list[Chosen]:
    """The pairs that maximise the sentence's expected F1, as ``(rank score, subject, object,
    relation)`` sorted best first (ranks as :func:`threshold_decode`).

    Each object span's best-ranked pair is a candidate triple (an object is written once,
    :func:`write_triples`) with probability ``q = min(1, p + cue)`` of being a gold triple (1 for
    a training fact). The sentence's number of gold triples is estimated as ``sum(q) + missing``
    (the candidates' expected gold triples plus ``missing`` gold triples no candidate states:
    unfound or paraphrased names). The ``k`` most probable candidates are kept, ``k`` maximising
    the plug-in expected F1 ``2 * sum(q[:k]) / (k + sum(q) + missing)``; at least one (every WebNLG
    sentence states a triple). The optimum keeps a candidate when its ``q`` exceeds about half
    the F1 reachable in its sentence (Lipton, Elkan & Naryanaswamy 2014, "Optimal thresholding
    of classifiers to maximize F1 measure", ECML PKDD; plug-in decision of Jansche 2007, "A
    maximum expected utility framework for binary sequence labeling", ACL, and Nan Ye et al.
    2012, "Optimizing F-measures: a tale of two approaches", ICML): sentences with confident
    pairs keep fewer doubtful ones, sentences with weak pairs keep more. The estimate is a
    plug-in one (the expected F1 of a ratio approximated by the ratio of expectations).
    Overlapping object spans keep their best-ranked pair before ``k`` is chosen, as the
    threshold decoder's triples do (so a top-ranked pair of low ``q`` may leave its object out).
    Exactly ``k`` candidates are kept (equal ``q``: the better ranked); a ``q`` that is not a
    number counts as 0. With no candidate (no relation allowed), the most likely pair with its
    SVM-only relation, as :func:`threshold_decode`.

    Raises:
        ValueError: ``missing`` below 0 or not finite.
    """
    if not (math.isfinite(missing) and missing >= 0):
        raise ValueError(f"missing must be a finite number >= 0, got {missing!r}")
    cands: list[tuple[float, Mention, Mention, str, float]] = []
    for c in scored:
        if c.fact:
            cands.append((_finite(_rank(c, subject_power)), c.a, c.b, c.fact, 1.0))
        elif c.rel is not None:
            cands.append((_finite(_rank(c, subject_power)), c.a, c.b, c.rel, min(1.0, max(0.0, _finite(c.p + c.cue)))))
    cands.sort(key=lambda c: (-c[0], c[1].start, c[2].start))
    kept: list[tuple[float, Mention, Mention, str, float]] = []
    for c in cands:
        if not any(c[2].start < k[2].end and k[2].start < c[2].end for k in kept):
            kept.append(c)
    if not kept:
        return threshold_decode(scored, math.inf, subject_power)  # nothing reaches it: the fallback pair
    order = sorted(range(len(kept)), key=lambda i: -kept[i][4])  # stable: ties keep the rank order
    expected_gold = sum(c[4] for c in kept) + missing
    best, best_k, total = -1.0, 1, 0.0
    for k, i in enumerate(order, 1):
        total += kept[i][4]
        if 2 * total / (k + expected_gold) > best:
            best, best_k = 2 * total / (k + expected_gold), k
    chosen = set(order[:best_k])
    return [(r, a, b, rel) for i, (r, a, b, rel, _) in enumerate(kept) if i in chosen]


def _rank(c: PairScore, subject_power: float) -> float:
    """The order of a sentence's kept pairs: a training fact first (``1 + p``), the others by
    ``p * ps ** subject_power + 0.1 * rel_score``."""
    return 1.0 + c.p if c.fact else c.p * c.ps ** subject_power + 0.1 * c.rel_score


def _finite(x: float) -> float:
    return x if math.isfinite(x) else 0.0


def write_triples(sent: str, chosen: list[Chosen], objects: list[Mention], rels: dict, all_ms: list[Mention],
                  variant_rate: dict[str, float]) -> list[dict[str, str]]:
    """Triples ``{sub, rel, obj, subType, objType}`` of the ``chosen`` pairs (best first).

    An object span keeps its best pair; a subject span keeps one name (that of its best pair),
    written with its DBpedia variant (:func:`.features.variant_values`, ``DISANY`` only for the
    topic: the subject span of the most chosen pairs); a candidate in ``objects`` coordinated
    with a kept object (``X and Y``, ``X, Y``) gets its subject and relation. ``rels``: the
    ontology's relations by name; ``all_ms``: every candidate mention of ``sent`` (variants too).
    """
    variants = variant_values(all_ms, variant_rate)
    spans = [(a.start, a.end) for _, a, _, _ in chosen]
    sub_variants = variant_values(all_ms, variant_rate, max(spans, key=spans.count) if spans else None)
    kept, out, seen = [], [], set()
    # one name per subject span: the value ("Auron" or "Auron (comicsCharacter)") of its best pair
    span_value: dict[tuple[int, int], Mention] = {}
    for _, a, _, _ in chosen:
        span_value.setdefault((a.start, a.end), a)
    for _, a, b, r in chosen:
        a = span_value[(a.start, a.end)]
        if any(b.start < kb.end and kb.start < b.end for _, kb, _ in kept):
            continue
        rel = rels[r]
        a = dataclasses.replace(a, value=sub_variants.get((a.start, a.end), a.value))
        if not rel.is_datatype:
            b = dataclasses.replace(b, value=variants.get((b.start, b.end), b.value))
        obj = normalize_value(b.value, rel.range or None)
        k = (key(a.value), r, key(obj))
        if k in seen:
            continue
        seen.add(k)
        kept.append((a, b, r))
        out.append({"sub": a.value, "rel": r, "obj": obj, "subType": rel.domain,
                    "objType": rel.range or value_type(obj)})
    # coordination: "created by Len Wein and Dick Dillin" gives the relation to both names
    objs = sorted({(b.start, b.end): b for b in objects}.values(), key=lambda m: m.start)
    for a, b, r in list(kept):
        for c in objs:
            if c.start <= b.end or not compatible(rels[r].range, c.shape) or c.shape == "LOW" \
                    or not re.fullmatch(r"\s*(,|and|, and|&|or)\s*", sent[b.end:c.start]):
                continue
            if any(c.start < kb.end and kb.start < c.end for _, kb, _ in kept):
                break
            if not rels[r].is_datatype:
                c = dataclasses.replace(c, value=variants.get((c.start, c.end), c.value))
            obj = normalize_value(c.value, rels[r].range or None)
            if (key(a.value), r, key(obj)) not in seen and key(a.value) != key(c.value):
                seen.add((key(a.value), r, key(obj)))
                kept.append((a, c, r))
                out.append({"sub": a.value, "rel": r, "obj": obj, "subType": rels[r].domain,
                            "objType": rels[r].range or value_type(obj)})
            b = c
    return out
