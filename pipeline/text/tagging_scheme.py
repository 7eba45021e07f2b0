"""The tagging scheme of Zheng et al. (ACL 2017) for :mod:`.tagger`: word features, distant
labels from training triples, and decoding tags into triples.

Tags per word token: ``O`` or ``{B,I,E,S}-<relation>-{1,2}`` (1 = subject role, 2 = object role).
:func:`align` labels a training sentence from its triples; :func:`spans_of` reads boundary runs;
:func:`decode` pairs each role-2 span with the nearest role-1 span of its relation, else with the
sentence's topic (:func:`topic_share` measures how often that holds on a training split).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.text.data import Sentence
from pipeline.text.features import alias_keys
from pipeline.text.mentions import Lexicon, Mention, fold_accents
from pipeline.text.normalize import clean_name, key, normalize_value

__all__ = ["BIES", "SHAPES", "N_WORD", "word_features", "align", "spans_of", "decode", "topic_share"]

BIES = "BIES"
SHAPES = ("CAP", "CAPCOMMA", "LEX", "QUOTE", "NUM", "YEAR", "DATE", "LOW")
N_WORD = 8 + 4 * len(SHAPES)


def word_features(text: str, toks: list[tuple[int, int, str]], ms: list[Mention]) -> np.ndarray:
    """``(n_tokens, N_WORD)``: shape of the word and B/I/E/S position in each kind of candidate mention."""
    f = np.zeros((len(toks), N_WORD), np.float32)
    for i, (_, _, w) in enumerate(toks):
        f[i, :8] = (w[:1].isupper(), w.isupper() and len(w) > 1, w.isdigit(), any(c.isdigit() for c in w),
                    not w[:1].isalnum(), i == 0, i == len(toks) - 1, w.lower() in ("and", ","))
    for m in ms:
        if m.shape not in SHAPES:
            continue
        inside = [i for i, (s, e, _) in enumerate(toks) if s >= m.start and e <= m.end]
        for j, i in enumerate(inside):
            pos = 3 if len(inside) == 1 else 0 if j == 0 else 2 if j == len(inside) - 1 else 1
            f[i, 8 + 4 * SHAPES.index(m.shape) + pos] = 1.0
    return f


def _token_span(toks, start: int, end: int) -> tuple[int, int] | None:
    inside = [i for i, (s, e, _) in enumerate(toks) if s < end and start < e]
    return (inside[0], inside[-1] + 1) if inside else None


def _find(text: str, ms: list[Mention], name: str, rng: str | None) -> tuple[int, int] | None:
    """Character span of a gold name in ``text``: a candidate mention with its key (else an alias
    key), else a case-insensitive occurrence of the name or one of its aliases (first in text)."""
    exact = fold_accents(key(normalize_value(name, rng)))
    for keys in ({exact}, {fold_accents(k) for k in alias_keys(name, rng)}):
        for m in ms:
            if fold_accents(key(m.value)) in keys:
                return m.start, m.end
    low = fold_accents(text).lower()
    for surface in sorted({clean_name(name), *Lexicon.aliases(clean_name(name))}, key=len, reverse=True):
        s = fold_accents(surface).lower()
        if len(s) > 1:
            m = re.search(r"(?<!\w)" + re.escape(s) + r"(?!\w)", low)
            if m:
                return m.start(), m.end()
    return None


def align(text: str, toks, ms: list[Mention], triples: list[dict[str, str]], ranges: dict[str, str],
          rel_index: dict[str, int]) -> tuple[list[int], int]:
    """Distant tag ids of the tokens of one training sentence, and how many triples aligned.

    Tag ids: 0 = ``O``; ``1 + (r * 2 + role) * 4 + b`` for relation index ``r``, role 0 (subject)
    or 1 (object) and ``b`` the index in ``BIES``. A token keeps its first label.
    """
    labels = [0] * len(toks)
    n = 0

    def put(span: tuple[int, int], r: int, role: int) -> bool:
        a, b = span
        if any(labels[i] and (labels[i] - 1) // 4 % 2 != role for i in range(a, b)):
            return False  # the span is already another role's
        if any(labels[i] for i in range(a, b)):
            return True  # the same role: a subject shared by several triples keeps its first label
        for i in range(a, b):
            pos = 3 if b - a == 1 else 0 if i == a else 2 if i == b - 1 else 1
            labels[i] = 1 + (r * 2 + role) * 4 + pos
        return True

    for t in triples:
        if t["rel"] not in rel_index:
            continue
        cs = _find(text, ms, t["sub"], "")
        co = _find(text, ms, t["obj"], ranges.get(t["rel"]))
        ss = _token_span(toks, *cs) if cs else None
        so = _token_span(toks, *co) if co else None
        if ss is None or so is None or (ss[0] < so[1] and so[0] < ss[1]):
            continue
        r = rel_index[t["rel"]]
        if put(ss, r, 0) and put(so, r, 1):
            n += 1
    return labels, n


def spans_of(bound: list[int]) -> list[tuple[int, int, int]]:
    """``(start, end, role)`` token spans of a boundary tag sequence (0 = ``O``, else
    ``1 + role * 4 + b``, ``b`` the index in ``BIES``): a ``B``, ``I``... ``E`` run of one role, or an
    ``S``; lenient: an ``I``/``E`` that continues nothing starts a span."""
    out: list[tuple[int, int, int]] = []
    cur = None
    for i, t in enumerate(bound):
        if t == 0:
            if cur:
                out.append(cur)
            cur = None
            continue
        role, b = (t - 1) // 4, BIES[(t - 1) % 4]
        if cur and cur[2] == role and b in "IE":
            cur = (cur[0], i + 1, role)
        else:
            if cur:
                out.append(cur)
            cur = (i, i + 1, role)
        if b in "ES":
            out.append(cur)
            cur = None
    if cur:
        out.append(cur)
    return out


def decode(spans: list[tuple[int, int, int, int]]) -> list[tuple[tuple[int, int], int, tuple[int, int]]]:
    """``(subject span, relation index, object span)`` triples of a sentence's spans (see the module
    docstring): nearest role-1 span of the same relation, else the topic (role-1 span of the most
    relations; ties: the first)."""
    subs = [s for s in spans if s[3] == 0]
    if not subs:
        return []
    count: dict[tuple[int, int], set[int]] = {}
    for s in subs:
        count.setdefault((s[0], s[1]), set()).add(s[2])
    topic = max(count, key=lambda sp: (len(count[sp]), -sp[0]))
    out = []
    for o in spans:
        if o[3] != 1:
            continue
        same = [s for s in subs if s[2] == o[2]]
        if same:
            s = min(same, key=lambda s: (min(abs(s[0] - o[1]), abs(o[0] - s[1])), s[0]))
            sub = (s[0], s[1])
        else:
            sub = topic
        out.append((sub, o[2], (o[0], o[1])))
    return out


def topic_share(sentences: list[Sentence]) -> float:
    """Share of the triples whose subject is their sentence's most frequent subject (WebNLG's
    one-topic pattern; the reason for :func:`decode`'s topic rule)."""
    hit = total = 0
    for s in sentences:
        subs = [key(t["sub"]) for t in s.triples]
        if subs:
            top = max(subs, key=subs.count)
            hit += subs.count(top)
            total += len(subs)
    return hit / total if total else 0.0
