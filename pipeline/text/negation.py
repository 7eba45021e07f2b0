"""Negation cues between two mentions: a negated statement states no triple.

"Lyon is *not* the capital of France" and "Bonn is *no longer* the capital of Germany" name the
two entities of a relation and deny it. A negation cue (Morante & Daelemans 2012, "ConanDoyle-neg:
annotation of negation cues and their scope", LREC: *not*, *n't*, *never*, *no longer* ...) denies
the predicate it modifies; the predicate that relates two mentions lies between them, so a cue
between the mentions, in the same clause, denies the relation the pair would be given. No parse is
made: the clause is approximated by the text between the two mentions holding no clause boundary
(punctuation, a coordinating or subordinating conjunction, a relative pronoun): in "Bitter Rice did
*not* win any awards, *but* it was nominated for the Academy Award" the cue belongs to the other
clause. A cue right after a capitalised word is part of a title ("Do n't Waste Your Time", "What
not to Do"), not a negation.

Measured on the gold of both Text2KGBench parts (gold triples whose two names are written
verbatim in their sentence): :func:`negated` holds for 0 of 10,628 DBpedia-WebNLG training and
gold triples and for 2 of 5,960 Wikidata-TekGen training and validation ones ("Japan also
couldn't ignore Kim Yong-sik's skills, and selected him ...").
"""
from __future__ import annotations

import re

__all__ = ["negated", "cue_spans"]

#: Negation cues (a contraction as the tokenizer splits it, "is n't", or whole, "isn't");
#: "not only ... but also" affirms.
_CUE = re.compile(r"\b(?:not(?!\s+only\b)|never|no\s+longer|no\s+more|cannot)\b|n't\b", re.I)
#: What ends a clause between two mentions.
_BOUNDARY = re.compile(r"[,;:()\[\]]|\b(?:and|but|or|nor|which|who|whom|whose|although|though|while|"
                       r"whereas|because|if|unless|until|after|before|when|where)\b", re.I)
#: The word just before a cue, to tell a title's cue ("Do n't ...") from a negation.
_PREV_WORD = re.compile(r"([A-Za-z]+)\s*$")


def cue_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of the negation cues of ``text``; a cue written right
    after a capitalised word (a title's, "Do n't Waste Your Time") or capitalised after the first
    word ("... promoted Never Too Far") is a name's and left out."""
    out = []
    for m in _CUE.finditer(text):
        prev = _PREV_WORD.search(text[:m.start()])
        if m.group()[:1].isupper() and text[:m.start()].strip():
            continue  # "... promoted Never Too Far": a name's word
        if prev is None or not prev.group(1)[:1].isupper():
            out.append((m.start(), m.end()))
    return out


def negated(sent: str, a_start: int, a_end: int, b_start: int, b_end: int,
            cues: list[tuple[int, int]] | None = None) -> bool:
    """True when the pair of mentions ``[a_start, a_end)`` and ``[b_start, b_end)`` (character
    offsets in ``sent``) is denied: a negation cue (:func:`cue_spans`) lies between them with no
    clause boundary between the two mentions, or one of the mentions lies within a cue (a mention
    made of a cue's word, "longer" of "no longer", is not a name; a cue within a mention, "Never
    for Ever", is the name's). ``cues``: ``cue_spans(sent)`` when the caller has them."""
    lo, hi = min(a_end, b_end), max(a_start, b_start)
    for s, e in cue_spans(sent) if cues is None else cues:
        if s <= a_start and a_end <= e or s <= b_start and b_end <= e:
            return True
        if lo <= s and e <= hi and not _BOUNDARY.search(sent[lo:hi]):
            return True
    return False
