"""Features of the offline extractor: mention pairs, subject mentions, name variants.

:func:`pair_features` describes an ordered (subject candidate, object candidate) pair of one
sentence, :func:`subject_features` one name as a possible subject, :func:`sentence_pairs` builds every
pair of a sentence; the helpers count and choose disambiguated name variants (:mod:`.names`)
and test a mention's shape against a relation's range. Used by :mod:`.offline` alike for the
training sentences (with cross-fitted lexicons) and for the sentences to extract from.
"""
from __future__ import annotations

import bisect
import functools
import re

from pipeline.text.data import Sentence
from pipeline.text.entity_types import TypeGuesser
from pipeline.text.mentions import Lexicon, Mention, find_mentions, fronted_phrases, tokens
from pipeline.text.normalize import key, normalize_value

__all__ = ["NAME_SHAPES", "compatible", "pair_features", "subject_features", "sentence_pairs", "words", "stems",
           "label_stems", "of_argument", "alias_keys", "plain_mentions", "known_relations", "disambiguation", "variant_kind", "count_variants", "variant_rates", "variant_values"]

NAME_SHAPES = {"CAP", "CAPCOMMA", "CAPHEAD", "LEX", "QUOTE"}
_STOP = {"the", "a", "an", "is", "was", "of", "and", "in", "to", "which", "who", "by", "its", "it", "has", "at"}


def compatible(rel_range: str, shape: str) -> bool:
    """Can a mention of ``shape`` be the object of a relation with range ``rel_range``? (``""``: no
    range declared - any mention: the value's own type is written.)"""
    if not rel_range:
        return True
    if rel_range == "number":
        return shape in ("NUM", "YEAR")
    if rel_range in ("Date", "date"):
        return shape in ("DATE", "YEAR")
    if rel_range == "Year":
        return shape == "YEAR"
    if rel_range == "string":
        return shape != "LOW"
    return shape in NAME_SHAPES or shape == "LOW"


#: A token that starts with a word character.
_WORD = re.compile(r"\w")

#: id of a token list -> (the list, its starts, its ends, each token's lower-case word or None);
#: the list is held, so its id is not reused while it is here.
_TOKEN_INDEX: dict[int, tuple] = {}


def _token_index(toks: list[tuple[int, int, str]]) -> tuple:
    entry = _TOKEN_INDEX.get(id(toks))
    if entry is None or entry[0] is not toks:
        if len(_TOKEN_INDEX) >= 64:
            _TOKEN_INDEX.clear()
        entry = (toks, [t[0] for t in toks], [t[1] for t in toks],
                 [t[2].lower() if _WORD.match(t[2]) else None for t in toks])
        _TOKEN_INDEX[id(toks)] = entry
    return entry


def words(toks: list[tuple[int, int, str]], start: int, end: int) -> list[str]:
    """Lower-case word tokens inside the character span ``[start, end)`` (punctuation left out).
    ``toks``: :func:`.mentions.tokens` of a sentence (in text order, not overlapping), not changed
    after the first call: the tokens inside a span are a run of the list, found by bisection on an
    index built once per list (the pair features ask for several spans of every pair)."""
    _, starts, ends, lows = _token_index(toks)
    return [w for w in lows[bisect.bisect_left(starts, start):bisect.bisect_right(ends, end)] if w is not None]


_STEMMER = None


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """The Porter stem of one word (cached: the pair features stem the same context words for
    every pair of a sentence, and the stemmer is a pure function of the word)."""
    global _STEMMER
    if _STEMMER is None:
        from nltk.stem import PorterStemmer
        _STEMMER = PorterStemmer()
    return _STEMMER.stem(word)


def stems(ws: list[str]) -> set[str]:
    """Porter stems of ``ws`` without a few function words."""
    return {_stem(w) for w in ws if w not in _STOP}


@functools.lru_cache(maxsize=4096)
def label_stems(relation: str) -> frozenset[str]:
    """Stemmed words of a relation name (``academicStaffSize`` -> ``academ``, ``staff``, ``size``)."""
    ws = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", relation)
    return frozenset(stems([w.lower() for w in ws]))


def of_argument(toks: list[tuple[int, int, str]], m: Mention, relation: str) -> bool:
    """``m`` follows a word of the name of ``relation`` and ``of`` (an article between): it is the
    argument of a relational noun, which DBpedia makes the subject - "Acura is a division of
    Honda" is ``division(Honda, Acura)``, "a crew member of Apollo 8" ``crewMembers(Apollo 8, ..)``,
    "the capital of France is Paris" ``capital(France, Paris)``. Never for a name that begins with
    a verb (``isPartOf``: "X is part of Y" is ``isPartOf(X, Y)``)."""
    if re.match(r"(?:is|has|was|are|have)[A-Z]", relation):
        return False
    ws = words(toks, 0, m.start)[-3:]
    if ws and ws[-1] in ("the", "a", "an"):
        ws = ws[:-1]
    return len(ws) >= 2 and ws[-1] == "of" and bool(stems([ws[-2]]) & label_stems(relation))


def alias_keys(name: str, range_name: str | None) -> set[str]:
    """Comparison keys of a gold name and of its surface aliases (:meth:`Lexicon.aliases`), also
    without a leading article and without trailing lower-case words (``The Two Towers`` ->
    ``Two Towers``, ``V8 engine`` -> ``V8``: the spans the article and tail variants sit on)."""
    value = normalize_value(name, range_name)
    out = {key(value)} | {key(a) for a in Lexicon.aliases(value)}
    short = re.sub(r"^(?:The|A|An)\s+(?=[A-Z0-9])", "", value)
    short = re.sub(r"(?:\s+[a-z][a-z-]*)+$", "", short)
    if short != value and short and short[0].isupper():
        out |= {key(short)} | {key(a) for a in Lexicon.aliases(short)}
    return out


def plain_mentions(ms: list[Mention]) -> list[Mention]:
    """``ms`` without the DBpedia-name variants (:attr:`.mentions.Mention.is_variant`): the pairs,
    the subject model and their training sentences see plain names; a variant is chosen per span
    afterwards (:func:`variant_values`)."""
    return [m for m in ms if not m.is_variant]


def known_relations(sentences: list[Sentence]) -> dict[str, set[str]]:
    """Relations each entity name had as object (``key``) and as subject (``S:key``)."""
    known: dict[str, set[str]] = {}
    for s in sentences:
        for t in s.triples:
            known.setdefault(key(t["obj"]), set()).add(t["rel"])
            known.setdefault("S:" + key(t["sub"]), set()).add(t["rel"])
    return known


def variant_kind(m: Mention) -> str:
    """The kind a variant's rate is learned for: its shape and disambiguation (``DIS:footballer``),
    for a name tail its last word (``DISLOW:engine``), for a disambiguation the sentence writes out
    after the name (``Magik (rapper)``) its shape alone (``DISPAREN:``: a new entity's own words)."""
    if m.shape == "DISLOW":
        return f"DISLOW:{m.value.split()[-1].lower()}"
    if m.shape.startswith("DISPAR"):  # written out after the name: its words are the entity's own
        return f"{m.shape}:"
    return f"{m.shape}:{disambiguation(m.value)}"


def disambiguation(name: str) -> str:
    """The disambiguation part of a variant name: ``comicscharacter`` for ``Auron (comicsCharacter)``,
    ``,`` for a region (``Auburn, Texas``)."""
    m = re.search(r"\(([^()]*)\)$", name)
    return key(m.group(1)) if m else ","


def count_variants(ms: list[Mention], names: set[str], aliases: set[str], topic: str | None,
                   counts: dict[str, list[int]]) -> None:
    """Count, per kind of variant and disambiguation (``DIS:footballer``), the spans of a gold
    entity whose variant name is the gold name (``counts[d][0]``) or whose plain name is
    (``counts[d][1]``). ``DISANY`` variants (suffix words anywhere in the sentence) are counted
    on the sentence's topic only (``topic``: the key of its most frequent gold subject), the only
    place they are written."""
    for m in ms:
        if not m.is_variant:
            continue
        gold = ({topic} if topic else set()) if m.shape == "DISANY" else names
        plain = [p for p in plain_mentions(ms) if (p.start, p.end) == (m.start, m.end)]
        if key(m.value) in gold:
            counts.setdefault(variant_kind(m), [0, 0])[0] += 1
        elif any(key(p.value) in gold or (m.shape != "DISANY" and key(p.value) in aliases) for p in plain):
            counts.setdefault(variant_kind(m), [0, 0])[1] += 1


def variant_rates(counts: dict[str, list[int]], prior_weight: float = 2.0) -> dict[str, float]:
    """The rate at which each kind of variant (:func:`count_variants`) was the gold name, shrunk
    towards the rate of its shape (``DIS`` for ``DIS:footballer``, pooled over every kind of the
    shape): ``(hits + w * shape_rate) / (hits + misses + w)`` with ``w = prior_weight``, the
    additive (Beta prior) smoothing of an empirical-Bayes estimate. A disambiguation seen on a
    few training spans only (one topic: ``comicsCharacter`` on 2) gets a rate between its own and
    its shape's instead of none; a frequent one keeps about its own."""
    pooled: dict[str, list[int]] = {}
    for kind, (hit, miss) in counts.items():
        p = pooled.setdefault(kind.split(":")[0], [0, 0])
        p[0] += hit
        p[1] += miss
    out = {}
    for kind, (hit, miss) in sorted(counts.items()):
        ph, pm = pooled[kind.split(":")[0]]
        out[kind] = (hit + prior_weight * ph / (ph + pm)) / (hit + miss + prior_weight)
    return out


def variant_values(ms: list[Mention], rate: dict[str, float],
                   topic: tuple[int, int] | None = None) -> dict[tuple[int, int], str]:
    """Span -> the variant name to write instead of the plain one (its kind and disambiguation's
    training rate above one half; the highest rate wins; ``DISANY`` at the ``topic`` span only)."""
    best: dict[tuple[int, int], tuple[float, str]] = {}
    for m in ms:
        if not m.is_variant or (m.shape == "DISANY" and (m.start, m.end) != topic):
            continue
        r = rate.get(variant_kind(m), 0.0)
        if r > 0.5 and r > best.get((m.start, m.end), (0.0, ""))[0]:
            best[(m.start, m.end)] = (r, m.value)
    return {span: v for span, (_, v) in best.items()}


@functools.lru_cache(maxsize=256)
def _fronted(sent: str) -> tuple[tuple[int, int], ...]:
    return tuple(fronted_phrases(sent))


def _front_roles(sent: str, ms: list[Mention], m: Mention) -> tuple[float, float]:
    """(``m`` lies in a sentence-initial adverbial phrase, ``m`` is the first name after one):
    "Born in Canada, Aaron Boogaard plays ..." - Canada is fronted, Aaron Boogaard opens the main
    clause (:func:`.mentions.fronted_phrases`)."""
    spans = _fronted(sent)
    if not spans:
        return 0.0, 0.0
    inside = any(s <= m.start and m.end <= e for s, e in spans)
    main = any(m.start == min((x.start for x in ms if x.shape in NAME_SHAPES and x.start > e), default=-1)
               for _, e in spans)
    return float(inside), float(main)


def pair_features(sent: str, toks, ms: list[Mention], a: Mention, b: Mention, nb: set[str],
                  known: dict[str, set[str]], types: TypeGuesser, names: list[int] | None = None,
                  tops: dict[str, str | None] | None = None) -> dict[str, float]:
    """Sparse features ``{name: value}`` of the pair (subject candidate ``a``, object candidate
    ``b``) of ``sent``: words between and around them, shapes, order and distance, their place
    around a sentence-initial adverbial phrase (``a_fronted``, ``b_fronted``, ``a_main``:
    :func:`_front_roles`), known relations
    of the names (``known``, :func:`known_relations`), their learned classes (``types``) and the
    relations ``nb`` of the nearest training sentences. ``names``: the sorted distinct starts of
    the name mentions of ``ms`` when the caller has them (the same for every pair of a sentence);
    ``tops``: a memo of ``types.top`` by name for the sentence's pairs (filled as read)."""
    f: dict[str, float] = {}
    if names is None:
        names = sorted({m.start for m in ms if m.shape in NAME_SHAPES})
    first = names[0] if names else -1
    lo, hi = (a, b) if a.start < b.start else (b, a)
    between = words(toks, lo.end, hi.start)
    f["order"] = 1.0 if a.start < b.start else -1.0
    f[f"dist={min(len(between), 10) // 2}"] = 1
    for w in (between[:4] + between[-4:]) if len(between) > 8 else between:
        f[f"B:{w}"] = 1
        f[f"B:{w}:{'fw' if a.start < b.start else 'bw'}"] = 1
    left = words(toks, 0, b.start)[-3:]
    right = words(toks, b.end, len(sent))[:2]
    for i, w in enumerate(left):
        f[f"L{len(left) - i}:{w}"] = 1
        f[f"L:{w}"] = 1
    for w in right:
        f[f"R:{w}"] = 1
    if left:  # the word before a number or a date says what it measures ("in 2001", "has 250")
        f[f"L1S:{left[-1]}:{b.shape}"] = 1
    if between:
        f[f"BL:{between[-1]}:{b.shape}"] = 1
    f[f"SA:{a.shape}"] = f[f"SB:{b.shape}"] = 1
    f[f"SAB:{a.shape}:{b.shape}"] = 1
    f["a_first"] = 1.0 if a.start == first else 0.0
    f[f"arank={min(names.index(a.start), 3)}"] = 1
    aleft = words(toks, 0, a.start)[-1:]
    aright = words(toks, a.end, len(sent))[:1]
    f[f"AL:{aleft[0] if aleft else '^'}"] = 1
    f[f"AR:{aright[0] if aright else '$'}"] = 1
    gap = sent[lo.end:hi.start]
    f["cross_sentence"] = 1.0 if re.search(r"[.;]\s", gap) else 0.0
    if f["cross_sentence"]:
        f[f"xs_arank={min(names.index(a.start), 3)}"] = 1
    f["a_fronted"], f["a_main"] = _front_roles(sent, ms, a)
    f["b_fronted"], _ = _front_roles(sent, ms, b)
    f["a_in_b"] = 1.0 if (b.start <= a.start and a.end <= b.end) or (a.start <= b.start and b.end <= a.end) else 0.0
    for w in words(toks, b.start, b.end)[-3:]:
        f[f"O:{w}"] = 1
    for w in words(toks, a.start, a.end)[-2:]:
        f[f"S:{w}"] = 1
    # classes of the two names learned from the training triples (domain/range evidence)
    if tops is None:
        tops = {}
    if a.value not in tops:
        tops[a.value] = types.top(a.value)
    if (b.shape in NAME_SHAPES or b.shape == "LOW") and b.value not in tops:
        tops[b.value] = types.top(b.value)
    ta, tb = tops[a.value], tops[b.value] if b.shape in NAME_SHAPES or b.shape == "LOW" else b.shape
    f[f"TA:{ta}"] = f[f"TB:{tb}"] = f[f"TAB:{ta}:{tb}"] = 1
    for r in known.get(key(b.value), ()):
        f[f"KO:{r}"] = 1
    for r in known.get("S:" + key(a.value), ()):
        f[f"KS:{r}"] = 1
    for r in nb:
        f[f"NB:{r}"] = 1
    return f


def subject_features(sent: str, toks, ms: list[Mention], a: Mention, known: dict[str, set[str]],
                     types: TypeGuesser) -> dict[str, float]:
    """Features of a name mention being the subject of some triple (position, neighbours, shape,
    inside or right after a sentence-initial adverbial phrase, whether the name was a subject or
    an object in training, its learned class)."""
    names = sorted({m.start for m in ms if m.shape in NAME_SHAPES})
    left = words(toks, 0, a.start)[-2:]
    right = words(toks, a.end, len(sent))[:2]
    f = {f"rank={min(names.index(a.start), 3)}": 1.0, f"shape={a.shape}": 1.0,
         f"l1={left[-1] if left else '^'}": 1.0, f"r1={right[0] if right else '$'}": 1.0,
         f"r2={' '.join(right)}": 1.0, "clause_start": 1.0 if not left or re.search(
             r"[.;]\s*$", sent[:a.start]) else 0.0, f"len={min(len(a.value.split()), 4)}": 1.0,
         "known_subject": 1.0 if known.get("S:" + key(a.value)) else 0.0,
         "known_object": 1.0 if known.get(key(a.value)) else 0.0, f"type={types.top(a.value)}": 1.0}
    f["fronted"], f["main_first"] = _front_roles(sent, ms, a)
    for w in words(toks, a.start, a.end)[-1:]:
        f[f"last={w}"] = 1.0
    return f


def sentence_pairs(sent: str, nb: set[str], lexicon: Lexicon, known: dict[str, set[str]],
                   types: TypeGuesser, mentions: list[Mention] | None = None
                   ) -> list[tuple[Mention, Mention, dict[str, float]]]:
    """Every ordered pair (name candidate, other candidate) of ``sent`` that do not overlap and
    name different things, with :func:`pair_features`; variant names (shape ``DIS*``) are left
    out: they are chosen after the pair, per span (:func:`variant_values`). ``mentions``: the
    sentence's :func:`.mentions.find_mentions` with ``lexicon`` when the caller has them."""
    ms = plain_mentions(find_mentions(sent, lexicon) if mentions is None else mentions)
    toks = tokens(sent)
    names = sorted({m.start for m in ms if m.shape in NAME_SHAPES})
    keys = [key(m.value) for m in ms]
    tops: dict[str, str | None] = {}  # types.top is a function of the name: once per name
    out = []
    for a, ka in zip(ms, keys):
        if a.shape not in NAME_SHAPES:
            continue
        for b, kb in zip(ms, keys):
            if b is a or ka == kb or (a.start < b.end and b.start < a.end):
                continue
            out.append((a, b, pair_features(sent, toks, ms, a, b, nb, known, types, names, tops)))
    return out
