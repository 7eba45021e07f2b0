"""Disambiguated entity names learned from the training triples (DBpedia naming conventions).

WebNLG names its entities after DBpedia resources, which carry a disambiguation that the
sentence rarely spells out as such: ``Mermaid_(Train_song)`` for "the Train song Mermaid",
``Auron_(comicsCharacter)`` for "the comic character Auron", ``Auburn,_Washington`` for "Auburn
is part of Washington State". A mention of the plain name never matches such a gold name.

:class:`Disambiguator` learns two general patterns from the names of the training triples and
proposes, for a mention, *variant* values next to the plain one (the extractor's classifiers
choose among them; :func:`.mentions.find_mentions` gives them the shape ``DIS``):

* **type in parentheses**: the suffixes ``(D)`` of the training names and their *head* (the last
  word of ``D``, camelCase split: ``comicsCharacter`` -> ``character``). Before a mention, a head
  word (``song``, ``film``, ``footballer`` ...), optionally preceded by a modifier (a name or a
  year: "the **1956 film** It's Great to Be Young", or a word: "comic character"), gives
  ``Name (modifier head)``; when the stemmed words equal those of a known suffix, the known
  spelling is used (``comic character`` -> ``comicsCharacter``).
* **region after a comma**: the parts ``B`` of training names ``A,_B`` (``Texas``, ``Georgia``);
  a mention ``A`` in a sentence that also mentions such a ``B`` gets the variant ``A, B``.

Only names of the training split are read, so the patterns are those of whatever ontologies the
extractor is fitted on.
"""
from __future__ import annotations

import functools
import re

from pipeline.text.normalize import clean_name, key

__all__ = ["Disambiguator", "article_and_tail_variants"]

#: Lower-case words before a name that are not a type ("the famous X", "the late X").
_NOT_HEADS = {"and", "the", "was", "were", "has", "had", "have", "for", "from", "with", "which", "who", "that",
              "are", "also", "been", "into", "where", "when", "than", "not", "but", "about", "called", "named",
              "known", "born", "late", "famous", "former", "current", "same", "new", "old", "its", "his", "her",
              "their", "our", "by", "in", "on", "at", "of", "to", "as", "is", "it", "like", "both", "one", "other"}


#: a regnal name: a name ending in a Roman numeral, "of" and its realm ("Felipe VI of Spain")
_REGNAL = re.compile(r"(.+\s[IVX]+)\s+of\s+([A-Z][\w ]+)")


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    from nltk.stem import PorterStemmer
    return PorterStemmer().stem(word.lower())


def _split(text: str) -> list[str]:
    """Words of a suffix or phrase (underscores, spaces and camelCase split)."""
    return re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", text.replace("_", " "))


class Disambiguator:
    """Variant names of a mention from the training names' disambiguations (module docstring).

    Args:
        names: entity names of the training triples (``Mermaid_(Train_song)``, ``Albany,_Georgia``).
        min_count: a head word or a region must occur in this many training names.
    """

    def __init__(self, names: list[str], min_count: int = 1) -> None:
        suffixes: dict[tuple[str, ...], dict[str, int]] = {}
        heads: dict[str, int] = {}
        regions: dict[str, dict[str, int]] = {}
        realms: dict[str, dict[str, int]] = {}
        for name in set(names):
            text = clean_name(name)
            m = re.fullmatch(r"(.+?)\s*\(([^()]+)\)", text)
            if m:
                words = _split(m.group(2))
                # "1.8 (metres)" is a value with its unit, not a name
                if words and not words[-1].isdigit() and not re.match(r"[-+\d.,\s]+$", m.group(1)):
                    stems = tuple(_stem(w) for w in words)
                    suffixes.setdefault(stems, {}).setdefault(m.group(2), 0)
                    suffixes[stems][m.group(2)] += 1
                    heads[stems[-1]] = heads.get(stems[-1], 0) + 1
                continue
            m = _REGNAL.fullmatch(text)
            if m:  # "Juan_Carlos_I_of_Spain": a regnal name and its realm
                realms.setdefault(key(m.group(2)), {}).setdefault(m.group(2), 0)
                realms[key(m.group(2))][m.group(2)] += 1
            if text.count(",") == 1:
                base, region = (p.strip() for p in text.split(","))
                if base and region[:1].isupper():
                    regions.setdefault(key(region), {}).setdefault(region, 0)
                    regions[key(region)][region] += 1
        #: stems of a suffix's words -> its most frequent spelling
        self.suffixes = {s: max(v, key=lambda x: (v[x], x)) for s, v in suffixes.items()}
        #: head stems (last word of a suffix) seen in at least ``min_count`` names
        self.heads = {h for h, c in heads.items() if c >= min_count}
        #: region key -> spelling, for regions seen in at least ``min_count`` names
        self.regions = {k: max(v, key=lambda x: (v[x], x)) for k, v in regions.items() if sum(v.values()) >= min_count}
        #: realm key -> spelling, from regnal names ``A_N_of_B`` (N a Roman numeral)
        self.realms = {k: max(v, key=lambda x: (v[x], x)) for k, v in realms.items() if sum(v.values()) >= min_count}

    def variants(self, sentence: str, toks: list[tuple[int, int, str]], start: int, end: int, value: str,
                 mentions: list[tuple[int, int, str, str]]) -> list[tuple[str, str]]:
        """Variant values of the name mention ``value`` starting at character ``start``.

        Args:
            sentence: the sentence.
            toks: its tokens ``(start, end, text)`` (:func:`.mentions.tokens`).
            start, end: the mention's span ``[start, end)``.
            value: the mention's value (a plain name, no disambiguation).
            mentions: the sentence's other mentions ``(start, end, value, shape)``.
        Returns:
            ``(name, shape)`` deduplicated: ``Mermaid (Train song)`` with shape ``DIS`` (a head word
            of a training suffix) or ``DISNEW`` (another noun), ``DISANY`` (a known suffix whose words are elsewhere in the
            sentence), ``Auburn, Washington`` with ``DISREG``.
        """
        out: list[tuple[str, str]] = []
        if "(" in value or "," in value:
            return out
        before = [t for t in toks if t[1] <= start]
        if before and re.fullmatch(r"[a-z]{3,}|[A-Za-z]+", before[-1][2]) and start - before[-1][1] <= 1:
            head = before[-1]
            known = _stem(head[2]) in self.heads
            # a modifier ending right before the head: a name or a year ("Train song", "1956 film")
            mods = [(s, sentence[s:e]) for s, e, v, shape in mentions
                    if e <= head[0] and head[0] - e <= 1 and shape in ("CAP", "LEX", "YEAR", "NUM") and s < head[0]]
            # an article before the head or before its modifier: "the Train song X", not "Y created X"
            arts = {t[1] for t in toks if t[2].lower() in ("the", "a", "an")}
            mods = [m for s, m in mods if any(0 <= s - a <= 1 for a in arts)] if not known else [m for _, m in mods]
            article = len(before) >= 2 and before[-2][2].lower() in ("the", "a", "an")
            # a head never seen in a training name counts only as a lower-case noun after an
            # article or a modifier ("the icebreaker X", "the 1956 film X"); its own shape lets
            # the classifier learn how often such a guess is right
            if known or (re.fullmatch(r"[a-z]{3,}", head[2]) and head[2] not in _NOT_HEADS and (article or mods)):
                shape = "DIS" if known else "DISNEW"
                out.append((f"{value} ({self._spell([head[2]])})", shape))
                out += [(f"{value} ({self._spell(m.split() + [head[2]])})", shape) for m in mods]
            if len(before) >= 2 and before[-2][2].isalpha() and before[-2][2].islower():
                spelled = self._spell([before[-2][2], head[2]], known_only=True)
                if spelled:
                    out.append((f"{value} ({spelled})", "DIS"))
        # the disambiguation written out after the name: "Stuart Parker (footballer)"; a short
        # noun phrase, not a clause ("(born in Resadiye)", "(a city)", "(located in Virginia)");
        # a capitalised one is more often a place the gold names apart ("Athens (Greece)"): its
        # own shape and rate
        par = re.match(r" ?\(([^()]{2,40})\)", sentence[end:])
        ws = par.group(1).split() if par else []
        caps = [w[:1].isupper() for w in ws]
        if ws and len(ws) <= 4 and ws[0].lower() not in _NOT_HEADS | {"a", "an"} and \
                caps == sorted(caps, reverse=True) and not re.search(r"\d|[,;:\"]", par.group(1)):
            out.append((f"{value} ({self._spell(ws)})", "DISPARCAP" if all(caps) else "DISPAREN"))
        # a known suffix all words of which the sentence uses ("the comic book character of Arion")
        stems = {_stem(t[2]) for t in toks if t[2].isalpha()}
        out += [(f"{value} ({spelled})", "DISANY") for sfx, spelled in sorted(self.suffixes.items())
                if len(sfx) and set(sfx) <= stems and any(_stem(w) == sfx[-1] for w in re.findall(r"[a-z]{3,}", sentence))]
        for s, e, v, shape in mentions:
            r = self.regions.get(key(v))
            if r and key(v) != key(value) and (e <= start or s >= end):
                out.append((f"{value}, {r}", "DISREG"))
            # a regnal name whose realm the sentence names ("Juan Carlos I ... Spain")
            r = self.realms.get(key(v))
            if r and re.search(r"\s[IVX]+$", value) and (e <= start or s >= end):
                out.append((f"{value} of {r}", "DISOF"))
        seen, uniq = set(), []
        for o, shape in out:
            if key(o) not in seen:
                seen.add(key(o))
                uniq.append((o, shape))
        return uniq

    def head_spelling(self, word: str) -> str | None:
        """The known one-word suffix of the head ``word`` (``genre`` -> ``genre``), else ``None``."""
        return self.suffixes.get((_stem(word),)) if _stem(word) in self.heads else None

    def _spell(self, words: list[str], known_only: bool = False) -> str | None:
        """The suffix for ``words``: a known suffix's spelling when the stems match, else the words."""
        stems = tuple(_stem(w) for ws in words for w in _split(ws))
        if stems in self.suffixes:
            return self.suffixes[stems]
        return None if known_only else " ".join(words)


def article_and_tail_variants(sentence: str, toks: list[tuple[int, int, str]], found: dict, tails: set[str],
                              stop: set[str], add) -> None:
    """Variant names of the capitalised mentions (on the mention's span, chosen per kind by the
    extractor's learned rate like the disambiguations): with the article before it (``The Two
    Towers``; shapes ``DISTHE`` mid-sentence, ``DISTHE0`` clause-initial, ``DISthe`` lower-case
    article, ``DISA0``/``DISA``), and extended over following lower-case words up to a learned
    name tail (``V8 engine``, ``Italy national football team``; shape ``DISLOW``).

    ``toks`` are the sentence's tokens (:func:`.mentions.tokens`), ``found`` the mentions by
    ``(start, end, value)``, ``stop`` the function words that end a tail, ``add(start, end, value,
    shape)`` records a variant."""
    for m in [m for m in found.values() if m.shape == "CAP"]:
        before = [t for t in toks if t[1] <= m.start][-1:]
        if before and m.start - before[0][1] == 1 and before[0][2] in ("The", "the", "A"):
            art = before[0][2]
            initial = not sentence[:before[0][0]].strip() or re.search(r"[.;:!?]\s*$", sentence[:before[0][0]])
            shape = {"The": "DISTHE", "the": "DISthe", "A": "DISA"}[art] + ("0" if initial and art != "the" else "")
            add(m.start, m.end, clean_name(f"{art.capitalize()} {m.value}"), shape)
        after = [t for t in toks if t[0] >= m.end][:4]
        end = m.end
        for t in after:
            # (a possessive modifier is part of it: "Jamaica women's national volleyball team")
            if t[0] - end > 1 or not re.fullmatch(r"[a-z]+(?:-\w+)?(?:['\u2019]s)?", t[2]) or t[2] in stop:
                break
            end = t[1]
            if t[2] in tails:
                add(m.start, m.end, clean_name(sentence[m.start:end]), "DISLOW")
            elif t[2].capitalize() in tails:  # "Madrid-Barajas airport" -> "Madrid-Barajas Airport"
                add(m.start, m.end, clean_name(sentence[m.start:t[0]] + t[2].capitalize()), "DISLOW")
