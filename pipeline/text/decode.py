"""Decoding of the offline extractor: which scored mention pairs of a sentence become triples.

A :class:`.pair_score.PairScore` is one scored (subject candidate, object candidate) pair of a
sentence (:meth:`.offline.OfflineExtractor.pair_scores`); a decoder turns a sentence's scored pairs into
the kept pairs, best first; :func:`write_triples` writes them as triples (one pair per object
span, DBpedia name variants, coordinated objects).

* :func:`threshold_decode` - independent pairs: a pair is kept when its probability (plus the
  label-word cue) reaches the threshold, ranked by probability times the subject model's.
* :func:`f1_decode` - the pairs that maximise the sentence's expected F1 (a threshold per
  sentence: Text2KGBench's triple F1 is a mean over sentences).

Both take :func:`stated`'s flags, the rows a sentence does not state: a denied pair
(:func:`.negation.negated`), and of a pair of mentions given one relation in both directions, the
direction the names' types or the scores do not prefer. Such a row gives no triple but keeps its
place when each object span takes its best-ranked row: removed before, its object span went to
the span's next-best pair (``Rotterdam lies in the Netherlands; its mayor is Ahmed Aboutaleb``:
with the reversed ``Ahmed Aboutaleb mayor Rotterdam`` removed, ``Netherlands capital Rotterdam``).
"""
from __future__ import annotations

import dataclasses
import math
import re

from typing import Callable

import numpy as np

from pipeline.text.features import compatible, variant_values
from pipeline.text.mentions import Mention
from pipeline.text.negation import cue_spans, negated
from pipeline.text.normalize import key, normalize_value, value_type
from pipeline.text.pair_score import PairScore

__all__ = ["stated", "stated_pairs", "threshold_decode", "f1_decode", "write_triples"]


Chosen = tuple[float, Mention, Mention, str]


def stated(scored: list[PairScore], symmetric: frozenset[str] = frozenset(),
           support: Callable[[PairScore, str], int] | None = None, subject_power: float = 1.0) -> list[bool]:
    """For each row of ``scored`` (one sentence's), whether the sentence may state it.

    * A pair denied by a negation cue (:func:`.negation.negated` on :attr:`PairScore.sent`: "Lyon
      is *not* the capital of France") is not stated, with every relation, and neither is a pair with
      a mention between the two names of a denied pair (the denied predicate's words: "capital"):
      the negation's scope is the predicate and its arguments.
    * One pair of mentions, one relation, one direction: when a relation ``r`` (the row's
      training fact, else its relation) is given both to (a, b) and to (b, a), the direction stated
      is the one with the higher ``support(row, r)`` (how far the names' known classes admit the
      relation's domain and range; 0 for every row when ``support`` is None), then the higher rank
      (:func:`_rank`), then the subject written first; no row of the other direction with ``r``
      is. A relation in ``symmetric`` (``owl:SymmetricProperty``: ``r(a, b)`` entails ``r(b, a)``)
      keeps both. Evidence: no training sentence of Text2KGBench (4,860 DBpedia-WebNLG training
      and gold sentences, 8,957 Wikidata-TekGen training and validation ones) states one relation
      in both directions between two names.

    Mentions are compared by their character span (a name's variants are one mention). The
    decoders take these flags (:func:`threshold_decode`, :func:`f1_decode`): a row not stated
    still takes its object span when it is the span's best, and gives no triple."""
    cues = {sent: cue_spans(sent) for sent in {c.sent for c in scored}}  # one sentence's rows: one entry
    denied = [bool(cues[c.sent]) and negated(c.sent, c.a.start, c.a.end, c.b.start, c.b.end, cues[c.sent])
              for c in scored]
    scopes = {(min(c.a.end, c.b.end), max(c.a.start, c.b.start)) for c, d in zip(scored, denied) if d}
    keys: list = []  # per row: False (denied), None (no direction rule) or (subject span, object span, relation)
    for c, d in zip(scored, denied):
        if d or any(lo <= m.start and m.end <= hi for lo, hi in scopes for m in (c.a, c.b)):
            keys.append(False)
            continue
        r = c.fact or c.rel
        keys.append(None if r is None or r in symmetric else ((c.a.start, c.a.end), (c.b.start, c.b.end), r))
    given = {k for k in keys if k}
    # a direction is scored only when the other is given the relation too: the only comparison made
    # (the names' class support is most of this function's time, tens of thousands of rows a split)
    best: dict[tuple, tuple] = {}
    for c, k in zip(scored, keys):
        if k and (k[1], k[0], k[2]) in given:
            score = (support(c, k[2]) if support else 0, _rank(c, subject_power), -c.a.start)
            if k not in best or score > best[k]:
                best[k] = score
    return [k is not False and (k not in best or best[(k[1], k[0], k[2])] <= best[k]) for k in keys]


def stated_pairs(scored: list[PairScore], symmetric: frozenset[str] = frozenset(),
                 support: Callable[[PairScore, str], int] | None = None,
                 subject_power: float = 1.0) -> list[PairScore]:
    """The rows of ``scored`` the sentence may state (:func:`stated`), in their order."""
    return [c for c, ok in zip(scored, stated(scored, symmetric, support, subject_power)) if ok]


def _flags(scored: list[PairScore], flags: list[bool] | None) -> list[bool]:
    if flags is None:
        return [True] * len(scored)
    if len(flags) != len(scored):
        raise ValueError(f"{len(flags)} stated flags for {len(scored)} rows")
    return flags


def threshold_decode(scored: list[PairScore], threshold: float, subject_power: float = 1.0,
                     flags: list[bool] | None = None) -> list[Chosen]:
    """Pairs whose ``p + cue`` reaches ``threshold`` (a training fact always), as ``(rank score,
    subject, object, relation)`` sorted best first; the rank is ``p * ps ** subject_power + 0.1 *
    rel_score`` (``1 + p`` for a fact; ``subject_power`` 0 when ``p`` already weighs the subject
    model, :mod:`.stacking`). A pair scored with several relations (``alt``) keeps its best-ranked
    row. A sentence with no such pair keeps its most likely stated pair (every WebNLG sentence
    states at least one triple).

    ``flags``: whether the sentence states each row (:func:`stated`; default all). A row not
    stated gives no triple, and when it is the best-ranked of its object span (the span
    :func:`write_triples` writes once), the rows below it on an overlapping object give none
    either: the span is the object of what the sentence does not state (the reversed direction,
    a denied pair), not of the next-best relation."""
    flags = _flags(scored, flags)
    chosen: list[tuple[float, Mention, Mention, str, bool]] = []
    for c, ok in zip(scored, flags):
        if c.fact:
            chosen.append((_rank(c, subject_power), c.a, c.b, c.fact, ok))
        elif c.p + c.cue >= threshold and c.rel is not None:
            chosen.append((_rank(c, subject_power), c.a, c.b, c.rel, ok))
    chosen.sort(key=lambda c: (-c[0], c[1].start, c[2].start))
    taken: list[tuple[Mention, bool]] = []  # each object span's best row: its object, stated
    kept, seen = [], set()
    for r, a, b, rel, ok in chosen:
        over = [s for m, s in taken if b.start < m.end and m.start < b.end]
        if not over:
            taken.append((b, ok))
        if not ok or not all(over):
            continue
        # one relation per pair: a second row would count its subject twice for the topic
        k = (a.start, a.end, a.value, b.start, b.end, b.value)
        if k not in seen:
            seen.add(k)
            kept.append((r, a, b, rel))
    if not chosen:
        rows = [c for c, ok in zip(scored, flags) if ok]
        if rows:
            best = rows[int(np.argmax([c.p for c in rows]))]
            if best.raw_rel is not None:
                kept.append((best.p, best.a, best.b, best.raw_rel))
    return kept


def f1_decode(scored: list[PairScore], missing: float = 1.0, subject_power: float = 1.0,
              flags: list[bool] | None = None) -> list[Chosen]:
    """The pairs that maximise the sentence's expected F1, as ``(rank score, subject, object,
    relation)`` sorted best first (ranks as :func:`threshold_decode`).

    Each object span's best-ranked pair is a candidate triple (an object is written once,
    :func:`write_triples`) with probability ``q = min(1, p + cue)`` of being a gold triple (1 for
    a training fact); when the sentence does not state that pair (``flags``, :func:`stated`:
    the reversed direction of a pair, a denied one; default all stated), the span gives no
    candidate: it is the object of what the sentence does not state, not of the next-best
    relation. The sentence's number of gold triples is estimated as ``sum(q) + missing``
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
    number counts as 0. With no candidate (no relation allowed), the most likely stated pair with
    its SVM-only relation, as :func:`threshold_decode`.

    Raises:
        ValueError: ``missing`` below 0 or not finite; ``flags`` not one per row.
    """
    if not (math.isfinite(missing) and missing >= 0):
        raise ValueError(f"missing must be a finite number >= 0, got {missing!r}")
    flags = _flags(scored, flags)
    cands: list[tuple[float, Mention, Mention, str, float, bool]] = []
    for c, ok in zip(scored, flags):
        if c.fact:
            cands.append((_finite(_rank(c, subject_power)), c.a, c.b, c.fact, 1.0, ok))
        elif c.rel is not None:
            cands.append((_finite(_rank(c, subject_power)), c.a, c.b, c.rel,
                          min(1.0, max(0.0, _finite(c.p + c.cue))), ok))
    if not cands:
        return threshold_decode(scored, math.inf, subject_power, flags)  # nothing reaches it: the fallback pair
    cands.sort(key=lambda c: (-c[0], c[1].start, c[2].start))
    spans: list[tuple[float, Mention, Mention, str, float, bool]] = []
    for c in cands:
        if not any(c[2].start < k[2].end and k[2].start < c[2].end for k in spans):
            spans.append(c)
    kept = [c for c in spans if c[5]]
    if not kept:
        return []
    order = sorted(range(len(kept)), key=lambda i: -kept[i][4])  # stable: ties keep the rank order
    expected_gold = sum(c[4] for c in kept) + missing
    best, best_k, total = -1.0, 1, 0.0
    for k, i in enumerate(order, 1):
        total += kept[i][4]
        if 2 * total / (k + expected_gold) > best:
            best, best_k = 2 * total / (k + expected_gold), k
    chosen = set(order[:best_k])
    return [(r, a, b, rel) for i, (r, a, b, rel, _, _) in enumerate(kept) if i in chosen]


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
