"""Joint entity and relation extraction as sequence tagging (Zheng et al., ACL 2017).

Zheng, Wang, Bao, Hao, Zhou and Xu, "Joint Extraction of Entities and Relations Based on a Novel
Tagging Scheme" (ACL 2017): each word token gets ``O`` or a tag ``{B,I,E,S}-<relation>-{1,2}``
(position in the entity span, the relation, 1 = subject role, 2 = object role); a triple is read
off the tags by pairing role-1 and role-2 spans of one relation.

Here:

* **token representation**: contextual vectors of the frozen packaged all-MiniLM-L6-v2
  (:func:`.vectors.token_vectors`) plus dense word features (capitalisation, digits, punctuation, position, the
  candidate-mention shape of :func:`.mentions.find_mentions` the token is in - a gazetteer of the
  training names included - with its B/I/E/S position); the gazetteer of a training sentence comes
  from the other half of the training data (cross-fitting, as in :mod:`.offline`);
* **model**: a projection, one bidirectional LSTM layer (CPU, fixed seed, one thread) and a
  factorised output: ``score(B|I|E|S, r, role) = span(B|I|E|S, role) + rel(r, role)`` - the span
  part is shared by all relations (few training sentences per relation), the softmax runs over
  ``O`` and the joint tags of the sentence's ontology's relations only (ontology-guided, also at
  training time);
* **distant labels**: each training triple's subject and object are aligned to a candidate
  mention (exact key, else a surface alias: ``Arion`` for ``Arion_(comicsCharacter)``), else to a
  case-insensitive occurrence of the name; a token keeps the first label it gets (a subject shared
  by several triples carries the relation of the first one) - :attr:`SequenceTagger.aligned` is the
  share of training triples whose subject and object both aligned;
* **decoding** (:func:`decode`, in :mod:`.tagging_scheme` with the labels and word features): tags -> spans (a run of one relation and role, split at ``B``/``S``);
  every role-2 span pairs with the nearest role-1 span of the same relation (Zheng et al.); when
  the relation has no role-1 span, with the sentence's *topic*: the role-1 span of the most
  relations (ties: the first one). Zheng's scheme gives a token one relation only, so a subject of
  several triples is tagged for one of them; WebNLG sentences mostly verbalise facts of one topic
  subject (:func:`topic_share` on the training split: the share of triples whose subject is the
  sentence's most frequent subject), which the topic rule uses.

Deterministic: fixed torch seed, one thread, sentences in a fixed order, no data-dependent
randomness beyond the seeded generator.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from pipeline.text.data import Sentence, TextOntology
from pipeline.text.features import compatible
from pipeline.text.mentions import Lexicon, Mention, find_mentions, tokens
from pipeline.text.normalize import clean_name, key, normalize_value
from pipeline.text.tagging_scheme import SHAPES, N_WORD, align, decode, spans_of, topic_share, word_features
from pipeline.text.vectors import DIMENSION, token_vectors

__all__ = ["SequenceTagger", "decode", "spans_of", "topic_share", "align", "merge", "combine", "MODELS",
           "add_tag_features"]

log = logging.getLogger(__name__)
#: the offline extractor's ``model`` option: pair classifier, tagger, or both merged
MODELS = ("pair", "tagger", "union", "features")


class SequenceTagger:
    """The tagging extractor (see the module docstring).

    Args:
        hidden: LSTM width per direction.
        epochs, lr, seed: training (Adam, cross-entropy over the ontology's joint tags).
    """

    def __init__(self, hidden: int = 64, epochs: int = 8, lr: float = 2e-3, seed: int = 0) -> None:
        self.hidden, self.epochs, self.lr, self.seed = hidden, epochs, lr, seed
        self.relations: list[str] = []
        self.aligned = 0.0
        self.lexicon: Lexicon | None = None

    def _inputs(self, texts: list[str], lexicons: list[Lexicon]) -> list[np.ndarray]:
        vecs = token_vectors(texts)
        out = []
        for text, v, lex in zip(texts, vecs, lexicons):
            toks = tokens(text)
            out.append(np.concatenate([v, word_features(text, toks, find_mentions(text, lex))], axis=1))
        return out

    def _net(self, n_rel: int):
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(s, d_in: int, h: int) -> None:
                super().__init__()
                s.proj = nn.Sequential(nn.Linear(d_in, 2 * h), nn.ReLU(), nn.Dropout(0.2))
                s.lstm = nn.LSTM(2 * h, h, batch_first=True, bidirectional=True)
                s.span = nn.Linear(4 * h, 8)
                s.rel = nn.Linear(4 * h, 2 * n_rel)
                s.o = nn.Linear(4 * h, 1)

            def forward(s, x, mask):
                p = s.proj(x)
                z = torch.cat([p, s.lstm(p)[0]], dim=-1)
                span = s.span(z).view(*z.shape[:2], 1, 2, 4)
                rel = s.rel(z).view(*z.shape[:2], n_rel, 2, 1) + mask[:, None, :, None, None]
                joint = (span + rel).flatten(2)
                return torch.cat([s.o(z), joint], dim=-1)

        torch.manual_seed(self.seed)
        return Net(DIMENSION + N_WORD, self.hidden)

    def fit(self, training: dict[str, tuple[TextOntology, list[Sentence]]]) -> "SequenceTagger":
        """Learn from ``{ontology name: (ontology, training sentences with triples)}``."""
        import torch
        torch.set_num_threads(1)
        t0 = time.perf_counter()
        data = [(o, s) for _, (o, ss) in sorted(training.items()) for s in ss]
        self.relations = sorted({r for o, _ in data for r in o.relations})
        rel_index = {r: i for i, r in enumerate(self.relations)}
        folds = [s.fold for _, s in data]
        self.lexicon, fold_lex = Lexicon.cross_fitted([s for _, s in data])
        texts = [s.text for _, s in data]
        xs = self._inputs(texts, [fold_lex[f] for f in folds])
        ys, masks, n_al, n_all = [], [], 0, 0
        for (o, s), text in zip(data, texts):
            toks = tokens(text)
            ranges = {r.name: r.range for r in o.relations.values()}
            lab, n = align(text, toks, find_mentions(text, self.lexicon), s.triples, ranges, rel_index)
            ys.append(lab)
            n_al, n_all = n_al + n, n_all + len(s.triples)
            masks.append(self._mask(o))
        self.aligned = n_al / max(n_all, 1)
        self.net = self._net(len(self.relations))
        self._train(xs, ys, masks)
        log.info("tagger: %d sentences, %d relations, %.0f%% of the triples aligned, %.1f s", len(texts),
                 len(self.relations), 100 * self.aligned, time.perf_counter() - t0)
        return self

    def fit_crossed(self, training: dict[str, tuple[TextOntology, list[Sentence]]],
                    folds: list[int]) -> list[tuple[list[int], np.ndarray]]:
        """Fit on all of ``training`` and return :meth:`tag`'s output for each training sentence
        (in ``sorted(training)`` order, as :class:`.offline.OfflineExtractor` lists them) from a
        tagger fitted on the other fold only - a training pair then sees tags as good as a test
        pair's, not tags that remember its own labels (cross-fitting, ``folds`` of 0/1)."""
        order = [(n, i) for n, (_, ss) in sorted(training.items()) for i in range(len(ss))]
        out: list = [None] * len(order)
        pos = {(n, i): j for j, (n, i) in enumerate(order)}
        for k in (0, 1):
            part = {n: (o, [s for i, s in enumerate(ss) if folds[pos[(n, i)]] != k]) for n, (o, ss) in training.items()}
            other = SequenceTagger(self.hidden, self.epochs, self.lr, self.seed).fit(part)
            for n, (o, ss) in sorted(training.items()):
                idx = [i for i in range(len(ss)) if folds[pos[(n, i)]] == k]
                for i, t in zip(idx, other.tag([ss[i].text for i in idx], o)):
                    out[pos[(n, i)]] = t
        self.fit(training)
        return out

    def _mask(self, onto: TextOntology) -> np.ndarray:
        """0 for the ontology's relations that can give subType/objType, -1e4 for the others."""
        ok = {n for n, r in onto.relations.items() if r.domain and r.range}
        return np.array([0.0 if r in ok else -1e4 for r in self.relations], np.float32)

    @staticmethod
    def _batch(xs, idx, masks=None):
        import torch
        n = max(len(xs[i]) for i in idx)
        x = np.zeros((len(idx), n, xs[idx[0]].shape[1]), np.float32)
        for j, i in enumerate(idx):
            x[j, :len(xs[i])] = xs[i]
        m = torch.from_numpy(np.stack([masks[i] for i in idx])) if masks is not None else None
        return torch.from_numpy(x), m

    def _train(self, xs, ys, masks) -> None:
        import torch
        net = self.net
        opt = torch.optim.Adam(net.parameters(), lr=self.lr)
        gen = np.random.default_rng(self.seed)
        order = sorted(range(len(xs)), key=lambda i: len(xs[i]))
        batches = [order[b:b + 32] for b in range(0, len(order), 32)]
        loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-1)
        net.train()
        for _ in range(self.epochs):
            for bi in gen.permutation(len(batches)):
                idx = batches[bi]
                x, m = self._batch(xs, idx, masks)
                y = torch.full(x.shape[:2], -1, dtype=torch.long)
                for j, i in enumerate(idx):
                    y[j, :len(ys[i])] = torch.tensor(ys[i])
                opt.zero_grad()
                loss = loss_fn(net(x, m).flatten(0, 1), y.flatten())
                loss.backward()
                opt.step()
        net.eval()

    def tag(self, sentences: list[str], ontology: TextOntology,
            lexicon: Lexicon | None = None) -> list[tuple[list[int], np.ndarray]]:
        """Per sentence: the best boundary tag of each token (0 = ``O``, else ``1 + role * 4 + b``)
        and the ``(n_tokens, n_relations, 2)`` probabilities of each relation and role, both
        marginals of the ontology-masked joint tag distribution. Zheng's argmax over the joint tags
        cuts a name whose tokens prefer different relations into pieces (a subject of several
        triples); the marginals keep the span whole and let its tokens vote for the relation."""
        import torch
        torch.set_num_threads(1)
        lex = lexicon or self.lexicon
        xs = self._inputs(sentences, [lex] * len(sentences))
        mask = self._mask(ontology)
        n_rel = len(self.relations)
        out: list[tuple[list[int], np.ndarray]] = []
        with torch.no_grad():
            for b in range(0, len(xs), 64):
                idx = list(range(b, min(b + 64, len(xs))))
                x, _ = self._batch(xs, idx)
                m = torch.from_numpy(np.stack([mask] * len(idx)))
                prob = torch.softmax(self.net(x, m), dim=-1)
                joint = prob[..., 1:].reshape(*prob.shape[:2], n_rel, 2, 4)
                bound = torch.cat([prob[..., :1], joint.sum(2).flatten(2)], dim=-1).argmax(-1).numpy()
                rel = joint.sum(-1).numpy()
                out.extend((bound[j, :len(xs[i])].tolist(), rel[j, :len(xs[i])]) for j, i in enumerate(idx))
        return out

    def extract(self, sentences: list[str], ontology: TextOntology,
                lexicon: Lexicon | None = None) -> list[list[dict[str, str]]]:
        """Triples ``{sub, rel, obj, subType, objType}`` of each sentence (normalized values)."""
        return [[t for t, _ in ts] for ts in self.extract_scored(sentences, ontology, lexicon)]

    def extract_scored(self, sentences: list[str], ontology: TextOntology,
                       lexicon: Lexicon | None = None) -> list[list[tuple[dict[str, str], float]]]:
        """:meth:`extract`'s triples with a confidence each: the mean probability, over the object
        span's tokens, that the token is an object of the triple's relation (in [0, 1])."""
        lex = lexicon or self.lexicon
        results = []
        for sent, (bound, relp) in zip(sentences, self.tag(sentences, ontology, lex)):
            toks = tokens(sent)
            ms = find_mentions(sent, lex)
            out, seen = [], set()
            spans = [(a, b, int(relp[a:b, :, role].sum(0).argmax()), role) for a, b, role in spans_of(bound)]
            for (sa, sb), r, (oa, ob) in decode(spans):
                rel = ontology.relations.get(self.relations[r])
                if rel is None or not (rel.domain and rel.range):
                    continue
                sub = _value(sent, toks, ms, sa, sb)
                obj = _value(sent, toks, ms, oa, ob)
                if sub is None or obj is None or not compatible(rel.range, obj.shape):
                    continue
                o = normalize_value(obj.value, rel.range)
                k = (key(sub.value), rel.name, key(o))
                if k in seen or key(sub.value) == key(o):
                    continue
                seen.add(k)
                out.append(({"sub": sub.value, "rel": rel.name, "obj": o, "subType": rel.domain,
                             "objType": rel.range}, float(relp[oa:ob, r, 1].mean())))
            results.append(out)
        return results


def _value(sent: str, toks, ms: list[Mention], a: int, b: int) -> Mention | None:
    """The mention of tokens ``[a, b)``, snapped to the candidate mentions (:func:`.find_mentions`):
    among those overlapping the span, the one sharing most characters with it, then the shortest
    (an exact one first; a known name before other shapes). Capitalisation, number and date
    patterns give sharper boundaries than per-token tags, which often drop inner words of a long
    name (``AC`` of ``AC Hotel Bella Sky Copenhagen``). A span that overlaps no candidate keeps its
    own text, with a shape from its first character (the names the mention finder misses)."""
    start, end = toks[a][0], toks[b - 1][1]
    over = [m for m in ms if m.start < end and start < m.end and not m.is_variant]
    if over:
        return min(over, key=lambda m: (-(min(end, m.end) - max(start, m.start)), m.end - m.start,
                                        m.shape != "LEX", SHAPES.index(m.shape) if m.shape in SHAPES else 9))
    text = clean_name(sent[start:end])
    if not text or not text[0].isalnum():
        return None
    return Mention(start, end, sent[start:end], text, "CAP" if text[0].isupper() else "LOW")


def merge(pairs: list[dict[str, str]], tagged: list[dict[str, str]]) -> list[dict[str, str]]:
    """The pair classifier's triples of a sentence, then the tagger's triples whose object no pair
    triple has (the pair classifier ranks competing pairs of one object; the tagger adds objects
    it missed, mostly names that are no candidate mention)."""
    objs = {key(t["obj"]) for t in pairs}
    return pairs + [t for t in tagged if key(t["obj"]) not in objs]


def combine(extractor, sentences: list[str], ontology: TextOntology) -> list[list[dict[str, str]]]:
    """Triples of an :class:`.offline.OfflineExtractor` whose ``model`` is ``tagger`` (the tagger
    alone) or ``union`` (:func:`merge` of the pair classifier's and the tagger's triples)."""
    tagged = extractor.tagger.extract(sentences, ontology, extractor.lexicon)
    if extractor.model == "tagger":
        return tagged
    tagger, extractor.tagger = extractor.tagger, None
    try:
        pairs = extractor.extract(sentences, ontology)
    finally:
        extractor.tagger = tagger
    return [merge(p, t) for p, t in zip(pairs, tagged)]


def add_tag_features(sent: str, tagged: tuple[list[int], np.ndarray], pairs: list, relations: list[str]) -> None:
    """Add the tagger's view to each (subject candidate, object candidate, features) pair of
    :func:`.features.sentence_pairs` (in place): how much the object's tokens are tagged as an
    object (``tg:obj``, mean role-2 probability), the subject's as a subject (``tg:sub``), their
    product, and the relation the tagger gives the object (``tg:rel=<r>``, weighted by its
    probability) - the pair and relation classifiers learn how far to trust it
    (``model: features``)."""
    _, relp = tagged
    toks = tokens(sent)
    role = relp.sum(axis=1)  # (n_tokens, 2): subject and object probability of each token
    for a, b, f in pairs:
        ia = [i for i, (s, e, _) in enumerate(toks) if s < a.end and a.start < e]
        ib = [i for i, (s, e, _) in enumerate(toks) if s < b.end and b.start < e]
        if not ia or not ib:
            continue
        pa, pb = float(role[ia, 0].mean()), float(role[ib, 1].mean())
        f["tg:sub"], f["tg:obj"], f["tg:both"] = pa, pb, pa * pb
        rel = relp[ib, :, 1].mean(axis=0)
        r = int(rel.argmax())
        f[f"tg:rel={relations[r]}"] = float(rel[r])
