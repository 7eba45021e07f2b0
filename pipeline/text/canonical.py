"""One spelling per name across the sentences of one extraction run (corpus-level canonicalization).

Sentences written about the same entity spell its name differently: ``Adolfo Suarez
Madrid-Barajas Airport``, ``Adolfo Suárez Madrid Barajas Airport`` and ``Adolfo Suárez
Madrid–Barajas Airport`` name one airport, and a KG that mints one IRI per spelling splits the
entity in three (entity resolution, the step every multi-document KG construction needs). The
reference name of an entity (a DBpedia/Wikipedia title, and any curated name) keeps the diacritics
and the typographic dash that writers often drop, never the other way round: so of the spellings
that differ only in accents, special letters (``ø``/``o``), dashes and spaces around them, the most
*specific* one is written for all - the one with the most accented/special letters and en or em
dashes; ties go to the most frequent spelling, then to the first in code-point order
(deterministic).

Only values the extractor wrote in the same run are compared; spellings that differ in anything
else (words, letters) are different names and stay apart.
"""
from __future__ import annotations

import re
from collections import Counter

from .normalize import fold_accents, key

__all__ = ["canonical_spellings", "rename_names", "spelling_key", "specificity"]

_DASHES = re.compile(r"[-‐‑‒–—]")


def spelling_key(value: str) -> str:
    """The comparison key of ``value`` blind to accents, special letters, dashes and spaces
    (``Madrid–Barajas`` = ``Madrid-Barajas`` = ``Madrid Barajas`` -> ``madridbarajas``)."""
    return _DASHES.sub("", fold_accents(key(value)))


def specificity(value: str) -> int:
    """How many characters of ``value`` a plain-ASCII rendering loses: letters that
    :func:`.normalize.fold_accents` changes, plus en/em dashes (``Suárez Madrid–Barajas`` -> 2)."""
    return sum(1 for c in value if fold_accents(c) != c or c in "–—")


def rename_names(results: list[list[dict[str, str]]], pick) -> list[list[dict[str, str]]]:
    """``results`` (per sentence, triples ``{sub, rel, obj, ...}``) with each subject and object
    ``v`` written as ``pick(v)``: new lists of new dicts, same shape and order, the input unchanged."""
    return [[{**t, "sub": pick(t.get("sub", "")), "obj": pick(t.get("obj", ""))} for t in triples]
            for triples in results]


def canonical_spellings(results: list[list[dict[str, str]]]) -> list[list[dict[str, str]]]:
    """``results`` (per sentence, triples ``{sub, rel, obj, ...}``) with every subject and object
    written in the most specific spelling of its :func:`spelling_key` group over all sentences
    (module docstring). Values with no letters (numbers, dates) are left as they are.

    Returns:
        New lists of new dicts, same shape and order; the input is not changed.
    """
    counts: dict[str, Counter] = {}
    for triples in results:
        for t in triples:
            for v in (t.get("sub", ""), t.get("obj", "")):
                if re.search(r"[^\W\d_]", v):
                    counts.setdefault(spelling_key(v), Counter())[v] += 1
    best = {k: min(c, key=lambda v: (-specificity(v), -c[v], v)) for k, c in counts.items() if len(c) > 1}

    def pick(v: str) -> str:
        b = best.get(spelling_key(v)) if re.search(r"[^\W\d_]", v) else None
        # a spelling that is no more specific is kept: only accents and dashes are ever added
        return b if b is not None and specificity(b) > specificity(v) else v
    return rename_names(results, pick)
