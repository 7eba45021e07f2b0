"""Corpus-level evidence for the stacker: what the other sentences of the same run say about a pair.

A corpus states many facts more than once - WebNLG verbalises each triple set in several
sentences (88% of the dev protocol's held-out gold triples are stated by another held-out
sentence too), news and encyclopaedias repeat theirs - and a name that is what one sentence is
about tends to be what the others are about. :class:`CorpusStats` gathers, per group of
sentences (one run of one ontology; in training, one ontology's training sentences), the
current probability of every pair and relation in every sentence; :meth:`CorpusStats.row`
describes a scored row by what the *other* sentences of its group give the same names
(:data:`CORPUS_FEATURES`). A sentence's own scores never count for itself, and a name no other
sentence has gets the "no evidence" values (counts 0, shares -1): in a corpus without
repetitions the features say nothing rather than something false.

Source: cross-sentence aggregation of relation evidence as in multi-instance relation
extraction (Riedel, Yao and McCallum 2010, "Modeling relations and their mentions without
labeled text", ECML-PKDD; Surdeanu et al. 2012, "Multi-instance multi-label learning for
relation extraction", EMNLP): a fact is judged from all the sentences that mention its two
names; here those scores are features of one sentence's decision, not a replacement for it.
"""
from __future__ import annotations

import functools
import zlib
from collections import Counter

from pipeline.text.pair_score import PairScore
from pipeline.text.normalize import fold_accents, key

__all__ = ["ALONE", "CORPUS_FEATURES", "NO_EVIDENCE", "CorpusStats", "training_groups"]

#: One value per scored row, in this order (:meth:`CorpusStats.row`).
CORPUS_FEATURES = ("corpus_sentences", "corpus_pair", "corpus_support", "corpus_pair_best", "corpus_reverse", "corpus_names_a",
                   "corpus_a_subject", "corpus_a_object", "corpus_b_subject")

#: :data:`CORPUS_FEATURES` of a row whose names no other sentence has (a sentence alone).
NO_EVIDENCE = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -1.0, -1.0)

_CAP = 8  # counts above this say nothing more

#: Share of training sentences the stacker sees as a corpus of their own (:func:`training_groups`).
ALONE = 0.2


def training_groups(groups: list[str], texts: list[str], alone: float = ALONE) -> list[str]:
    """The corpus of each training sentence for the stacker: its ``groups`` entry (its ontology),
    except for about ``alone`` of the sentences (chosen by a CRC-32 of the text: deterministic),
    each put in a group of its own. A user may extract from one sentence, or from sentences that
    repeat nothing: the stacker must have seen rows with no corpus evidence that are gold triples
    all the same, not only the few in a repetitive corpus (trained on whole corpora alone, it
    would take the absence of corpus evidence for evidence against a pair).
    A group spans both cross-fitting folds: a sentence reads the other fold's out-of-fold scores,
    which models fitted on its own fold gave (9% of training gold pairs are stated in the other
    fold)."""
    cut = int(alone * 2 ** 32)
    return [f"{g}#{i}" if zlib.crc32(t.encode()) < cut else g for i, (g, t) in enumerate(zip(groups, texts))]


@functools.lru_cache(maxsize=1 << 16)
def _folded(value: str) -> str:
    """A name's key with accents folded (a pure function of the string, asked for both names of
    every row in every stacking round)."""
    return fold_accents(key(value))


def _name(m) -> str:
    return _folded(m.value)


class CorpusStats:
    """Per group of sentences, the highest probability each sentence gives a triple (subject,
    relation, object by name key), a pair of names (any relation), a name as subject and a name
    as object, kept so that the value of every *other* sentence can be read in constant time.

    Args:
        sentences: each sentence's scored rows (:class:`.pair_score.PairScore`; its current ``p``).
        groups: the group of each sentence (default: all one group); sentences of different
            groups never see each other.
    """

    def __init__(self, sentences: list[list[PairScore]], groups: list[str] | None = None) -> None:
        self.groups = list(groups) if groups is not None else [""] * len(sentences)
        # (kind, group, key) -> the two highest (value, sentence index) of different sentences
        self._top: dict[tuple, list[tuple[float, int]]] = {}
        # (kind, group, key) -> [sum of values, number of sentences]
        self._sum: dict[tuple, list[float]] = {}
        self._own: list[dict[tuple, float]] = []
        self._size = Counter(self.groups)
        for i, (rows, g) in enumerate(zip(sentences, self.groups)):
            if self._size[g] == 1:  # a sentence alone: no other sentence reads it (row() says so)
                self._own.append({})
                continue
            # per kind, each key's highest value in this sentence (max(old, v), a key without a
            # value 0.0), then keyed (kind, group, key); the values do not depend on the order
            by_kind: dict[str, dict] = {"t": {}, "p": {}, "s": {}, "o": {}}
            t_max, p_max, s_max, o_max = by_kind["t"], by_kind["p"], by_kind["s"], by_kind["o"]
            seen: dict[str, None] = {}
            for c in rows:
                a, b, v = _folded(c.a.value), _folded(c.b.value), c.p
                for d, k in ((t_max, (a, c.rel, b)), (p_max, (a, b)), (s_max, a), (o_max, b)):
                    old = d.get(k, 0.0)
                    d[k] = v if v > old else old
                seen[a] = seen[b] = None
            local: dict[tuple, float] = {(kind, g, k): v for kind, d in by_kind.items() for k, v in d.items()}
            local.update(((("n", g, x), 1.0) for x in seen))
            for k, v in local.items():
                # the two highest, an earlier sentence first among equal values
                top = self._top.get(k)
                if top is None:
                    self._top[k] = [(v, i)]
                elif v > top[0][0]:
                    top.insert(0, (v, i))
                    del top[2:]
                elif len(top) == 1:
                    top.append((v, i))
                elif v > top[1][0]:
                    top[1] = (v, i)
                acc = self._sum.setdefault(k, [0.0, 0])
                acc[0] += v
                acc[1] += 1
            self._own.append(local)

    def _max(self, i: int, k: tuple) -> float:
        for v, j in self._top.get(k, ()):  # the highest of another sentence than i
            if j != i:
                return v
        return 0.0

    def _others(self, i: int, k: tuple) -> tuple[float, int]:
        total, n = self._sum.get(k, (0.0, 0))
        own = self._own[i].get(k)
        return (total - own, n - 1) if own is not None else (total, n)

    def _share(self, i: int, kind: str, g: str, name: str) -> float:
        n = self._others(i, ("n", g, name))[1]
        return self._others(i, (kind, g, name))[0] / n if n else -1.0

    def rows(self, i: int, scored: list[PairScore]) -> list[list[float]]:
        """:meth:`row` of each of ``scored``, the rows of sentence ``i`` (the values of a name and of
        a pair of names read once for the sentence: its rows repeat them)."""
        g = self.groups[i]
        if self._size[g] == 1:
            return [list(NO_EVIDENCE)] * len(scored)
        size = min(self._size[g] - 1, _CAP)
        names: dict[str, tuple[float, float, float]] = {}
        pairs: dict[tuple[str, str], tuple[float, float, float]] = {}
        out = []
        for c in scored:
            a, b = _folded(c.a.value), _folded(c.b.value)
            pair = pairs.get((a, b))
            if pair is None:
                pair = pairs[(a, b)] = (min(self._others(i, ("p", g, (a, b)))[1], _CAP), self._max(i, ("p", g, (a, b))),
                                        self._max(i, ("p", g, (b, a))))
            for x in (a, b):
                if x not in names:
                    names[x] = (min(self._others(i, ("n", g, x))[1], _CAP), self._share(i, "s", g, x),
                                self._share(i, "o", g, x))
            na, nb = names[a], names[b]
            out.append([size, pair[0], self._max(i, ("t", g, (a, c.rel, b))), pair[1], pair[2], na[0], na[1], na[2],
                        nb[1]])
        return out

    def row(self, i: int, c: PairScore) -> list[float]:
        """:data:`CORPUS_FEATURES` of row ``c`` of sentence ``i``, from the group's other sentences:
        how many there are and how many have the pair (capped at 8); the highest probability one gives the same triple
        (``corpus_support``), the pair with any relation, the reversed pair; how many have the
        subject's name; the mean over those of the name's best probability as a subject and as an
        object, and of the object's name as a subject (-1: no other sentence has the name)."""
        g = self.groups[i]
        if self._size[g] == 1:  # no other sentence: what the stats of the sentence alone give
            return list(NO_EVIDENCE)
        a, b = _name(c.a), _name(c.b)
        return [min(self._size[g] - 1, _CAP), min(self._others(i, ("p", g, (a, b)))[1], _CAP), self._max(i, ("t", g, (a, c.rel, b))),
                self._max(i, ("p", g, (a, b))), self._max(i, ("p", g, (b, a))),
                min(self._others(i, ("n", g, a))[1], _CAP), self._share(i, "s", g, a), self._share(i, "o", g, a),
                self._share(i, "s", g, b)]
