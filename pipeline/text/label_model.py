"""Relation choice by the ontology's words: the offline extractor's zero-shot setting.

With no training sentence of an ontology, the relation SVM knows none of its relations (or, by
name, only those another ontology shares). What is left is what the ontology says of each
relation: its label, its domain and its range. :class:`LabelModel` scores a candidate pair
(subject mention, object mention) with each relation whose range accepts the object, from
features that name no relation, so that what it learns on the training ontologies carries over
to a new one:

* how much of the relation's label is written around the pair - its stems exactly, and stems
  sharing a prefix of five letters (``directed`` and ``director``, ``published`` and
  ``publication``) - between the two names, the three words before each and the two after the
  object;
* the cosine of the label's MiniLM vector with the mean of the contextual token vectors of that
  context (:func:`.vectors.token_vectors`) and with the whole sentence's vector;
* the cosine of the range class's label with the object's token vectors, and of the domain
  class's label with the subject's (``African Americans`` and ``ethnic group``, ``Hideo Nakata``
  and ``human``);
* the kind of range (class, number, date, string, none declared) against the object's shape,
  and how many relations accept the object;

each also as its difference to the best candidate of the pair. A logistic regression learns,
from the training pairs that hold a relation, which candidate is the gold one; :meth:`scores`
gives each candidate its probability, normalised over the pair's candidates. Labels are split
into words (``birthPlace`` -> ``birth place``); a class named by a Wikidata QID no concept
labels has no words and gets no vector.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from pipeline.text.data import Relation
from pipeline.text.features import compatible, label_stems, stems, words
from pipeline.text.mentions import Mention, tokens
from pipeline.text.vectors import DIMENSION, sentence_vectors, token_vectors

__all__ = ["LabelModel", "label_words", "FEATURES"]

_KINDS = ("class", "number", "date", "string", "open")
_SHAPE_GROUPS = ("name", "number", "date", "low")
FEATURES = ("share", "prefix_share", "ctx_cos", "ctx_gap", "sent_cos", "sent_gap", "obj_cos", "obj_gap",
            "obj_vec", "sub_cos", "sub_gap", "sub_vec", "inverse_candidates") + tuple(
            f"kind={k}:{g}" for k in _KINDS for g in _SHAPE_GROUPS)

#: Training pairs the model learns from at most (a deterministic sample; the model has few weights).
MAX_EXAMPLES = 3000


def label_words(name: str) -> str:
    """The words of a relation or class name, lower case (``birthPlace`` -> ``birth place``,
    ``member_of_sports_team`` -> ``member of sports team``); ``""`` for a Wikidata QID or PID."""
    if re.fullmatch(r"[QP]\d+", name.strip()):
        return ""
    ws = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    return " ".join(w.lower() for w in ws)


def _kind(rel: Relation) -> str:
    if rel.open_range:
        return "open"
    if rel.range == "number":
        return "number"
    if rel.range in ("Date", "date", "Year"):
        return "date"
    return "string" if rel.range == "string" else "class"


def _group(shape: str) -> str:
    if shape in ("NUM",):
        return "number"
    if shape in ("DATE", "YEAR"):
        return "date"
    return "low" if shape == "LOW" else "name"


def _prefix_share(label: frozenset[str], ctx: set[str]) -> float:
    """Share of ``label``'s stems that share a five-letter prefix with a stem of ``ctx`` (or equal it)."""
    if not label:
        return 0.0
    hit = sum(1 for s in label if any(s == c or (len(s) >= 5 and len(c) >= 5 and s[:5] == c[:5]) for c in ctx))
    return hit / len(label)


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


class _Context:
    """One sentence's tokens, token vectors and sentence vector."""

    def __init__(self, sent: str, toks, vecs: np.ndarray, svec: np.ndarray) -> None:
        self.sent, self.toks, self.vecs, self.svec = sent, toks, vecs, svec

    def span(self, start: int, end: int) -> np.ndarray:
        rows = [i for i, t in enumerate(self.toks) if t[0] >= start and t[1] <= end and re.match(r"\w", t[2])]
        return _unit(self.vecs[rows].mean(axis=0)) if rows else np.zeros(DIMENSION, np.float32)


def contexts(sentences: list[str]) -> dict[str, _Context]:
    """:class:`_Context` of each distinct sentence (token and sentence vectors, cached on disk)."""
    distinct = sorted(set(sentences))
    tv = token_vectors(distinct)
    sv = sentence_vectors(distinct)
    return {s: _Context(s, tokens(s), v, w) for s, v, w in zip(distinct, tv, sv)}


class LabelModel:
    """Scores of a pair's candidate relations from the ontology's words (see the module docstring)."""

    def __init__(self) -> None:
        self.model = None
        self._labels: dict[str, np.ndarray] = {}

    def _vec(self, name: str) -> np.ndarray | None:
        text = label_words(name)
        if not text:
            return None
        if text not in self._labels:
            self._labels[text] = sentence_vectors([text])[0]
        return self._labels[text]

    def _prepare(self, names: set[str]) -> None:
        todo = sorted({label_words(n) for n in names} - set(self._labels) - {""})
        if todo:
            self._labels.update(zip(todo, sentence_vectors(todo)))

    def features(self, ctx: _Context, a: Mention, b: Mention, cands: list[str],
                 rels: dict[str, Relation]) -> np.ndarray:
        """``len(cands)`` x ``len(FEATURES)`` rows of the pair ``(a, b)`` of ``ctx``'s sentence."""
        self._prepare({x for r in cands for x in (r, rels[r].domain, rels[r].range)})
        toks = ctx.toks
        lo, hi = (a, b) if a.start < b.start else (b, a)
        wide = stems(words(toks, lo.end, hi.start) + words(toks, 0, b.start)[-3:] + words(toks, b.end, len(ctx.sent))[:2]
                     + words(toks, 0, lo.start)[-3:])
        # the context vector: the words between the names and around them, without the names
        spans = [(lo.end, hi.start)]
        left = [t for t in toks if t[1] <= lo.start and re.match(r"\w", t[2])][-3:]
        right = [t for t in toks if t[0] >= b.end and re.match(r"\w", t[2])][:2]
        rows = [i for i, t in enumerate(toks) if (spans[0][0] <= t[0] and t[1] <= spans[0][1]) or t in left or t in right]
        rows = [i for i in rows if re.match(r"\w", toks[i][2])]
        cvec = _unit(ctx.vecs[rows].mean(axis=0)) if rows else np.zeros(DIMENSION, np.float32)
        avec, bvec = ctx.span(a.start, a.end), ctx.span(b.start, b.end)
        n = len(cands)
        raw = []
        for r in cands:
            rel = rels[r]
            lv = self._vec(r)
            rv = self._vec(rel.range) if _kind(rel) == "class" else None
            dv = self._vec(rel.domain) if rel.domain else None
            ls = label_stems(r)
            raw.append([len(wide & ls) / max(len(ls), 1), _prefix_share(ls, wide),
                        float(cvec @ lv) if lv is not None else 0.0, float(ctx.svec @ lv) if lv is not None else 0.0,
                        float(bvec @ rv) if rv is not None else 0.0, 1.0 if rv is not None else 0.0,
                        float(avec @ dv) if dv is not None else 0.0, 1.0 if dv is not None else 0.0])
        raw_a = np.array(raw, dtype=np.float64).reshape(n, 8)
        best = raw_a.max(axis=0) if n else np.zeros(8)
        out = []
        for i, r in enumerate(cands):
            share, pshare, c, s, o, ov, d, dv = raw_a[i]
            kind = _kind(rels[r])
            row = [share, pshare, c, c - best[2], s, s - best[3], o, o - best[4] if ov else 0.0, ov,
                   d, d - best[6] if dv else 0.0, dv, 1.0 / n]
            row += [1.0 if (kind, _group(b.shape)) == (k, g) else 0.0 for k in _KINDS for g in _SHAPE_GROUPS]
            out.append(row)
        return np.array(out, dtype=np.float64).reshape(n, len(FEATURES))

    def fit(self, examples: list[tuple[str, Mention, Mention, str, dict[str, Relation]]]) -> "LabelModel":
        """Learn from training pairs ``(sentence, subject, object, gold relation, the ontology's
        relations by name)``: each pair's candidates (relations whose range accepts the object;
        pairs with a single candidate teach nothing) labelled 1 for the gold relation. At most
        :data:`MAX_EXAMPLES` pairs, chosen by a hash of the sentence and names (deterministic)."""
        from sklearn.linear_model import LogisticRegression
        usable = []
        for sent, a, b, gold, rels in examples:
            cands = [r for r, rel in rels.items() if compatible(rel.range, b.shape)]
            if gold in cands and len(cands) > 1:
                usable.append((sent, a, b, gold, rels, cands))
        if len(usable) > MAX_EXAMPLES:
            usable = sorted(usable, key=lambda e: hashlib.sha1(f"{e[0]}|{e[1].value}|{e[2].value}".encode()).hexdigest())
            usable = usable[:MAX_EXAMPLES]
        if not usable:
            return self
        ctxs = contexts([e[0] for e in usable])
        X, y = [], []
        for sent, a, b, gold, rels, cands in usable:
            X.append(self.features(ctxs[sent], a, b, cands, rels))
            y.extend(1 if r == gold else 0 for r in cands)
        self.model = LogisticRegression(solver="liblinear", C=1.0, random_state=0).fit(np.vstack(X), y)
        return self

    def scores(self, ctx: _Context, a: Mention, b: Mention, cands: list[str], rels: dict[str, Relation]) -> dict[str, float]:
        """Each candidate relation's probability for the pair, normalised over ``cands`` (sums to 1;
        uniform when the model was not fitted)."""
        if not cands:
            return {}
        if self.model is None:
            return {r: 1.0 / len(cands) for r in cands}
        p = self.model.predict_proba(self.features(ctx, a, b, cands, rels))[:, 1]
        total = float(p.sum()) or 1.0
        return {r: float(x) / total for r, x in zip(cands, p)}
