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

Two more rewrites read the run as a whole: :func:`completed_names` writes a name the extractor
cut short as the longer name the run writes (``Arròs`` -> ``Arròs negre``), and
:func:`written_disambiguations` writes a plain name as the disambiguated name some sentence of
the run writes out (``Stuart Parker`` -> ``Stuart Parker (footballer)``).
"""
from __future__ import annotations

import re
from collections import Counter

from pipeline.text.features import variant_kind
from pipeline.text.normalize import fold_accents, key

__all__ = ["canonical_spellings", "completed_names", "written_disambiguations", "rename_names", "spelling_key",
           "specificity"]

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


def _surface(text: str) -> str:
    """``text`` as compared with a sentence: accents folded, lower case, dashes as ``-``, one
    space between words."""
    return re.sub(r"\s+", " ", _DASHES.sub("-", fold_accents(text).lower())).strip()


def _first(surface: str) -> str:
    m = re.match(r"\w+", surface)
    return m.group(0) if m else surface


def _continues(text: str, short: str, long: str) -> bool | None:
    """``None`` when ``text`` does not write ``short`` (word-bounded), else whether every
    occurrence goes on as ``long`` (ending at a word boundary)."""
    starts = [m.start() for m in re.finditer(r"(?<!\w)" + re.escape(short) + r"(?!\w)", text)]
    if not starts:
        return None
    return all(re.match(re.escape(long) + r"(?!\w)", text[i:]) for i in starts)


def completed_names(results: list[list[dict[str, str]]], sentences: list[str]) -> list[list[dict[str, str]]]:
    """``results`` (per sentence, triples ``{sub, rel, obj, ...}``) with a name the sentence
    writes as the start of a longer name of the run, written as that longer name: ``Arròs`` ->
    ``Arròs negre`` in "Cuttlefish is an ingredient in Arròs negre" when another sentence's
    triple names ``Arròs negre`` (a name the extractor cut short where its words go on in lower
    case: ``beef kway teow``, ``Asser Levy Public baths``; or at an abbreviation's period:
    ``A.F.C.`` / ``A.F.C. Blackpool``). Only when every occurrence of the name in the sentence
    goes on with the longer name's words (compared by :func:`_surface`: accents, case and
    dashes aside; the longer name ending at a word boundary there), and the run's sentences
    that write the name mostly (more than half) write it so: a name's words are written
    together every time, a word after it varies ("Abel Caballero worked as ..." in two of a
    dozen sentences about him: ``Abel Caballero worked`` is a name the extractor got wrong, not
    his). Of several such names the longest. Values that begin with a digit (numbers, dates,
    measures: ``1 January``) are never completed. A triple that completion makes a copy of
    another of its sentence, or whose subject and object it makes one name, is dropped.

    Returns:
        New lists of new dicts, one per sentence in order; the input is not changed.

    Raises:
        ValueError: ``results`` and ``sentences`` differ in length.
    """
    names = {v for triples in results for t in triples for v in (t.get("sub", ""), t.get("obj", ""))
             if re.search(r"[^\W\d_]", v) and not v[:1].isdigit()}
    surface = {v: _surface(v) for v in names}
    by_first: dict[str, list[str]] = {}  # a longer name begins with the same first word
    for v, sv in surface.items():
        by_first.setdefault(_first(sv), []).append(v)
    texts = [_surface(s) for s in sentences]
    with_word: dict[str, list[int]] = {}  # first word -> the sentences that have it
    for n, text in enumerate(texts):
        for w in set(re.findall(r"\w+", text)):
            with_word.setdefault(w, []).append(n)
    usual: dict[tuple[str, str], bool] = {}

    def mostly(sv: str, sy: str) -> bool:
        if (sv, sy) not in usual:
            seen = [c for c in (_continues(texts[n], sv, sy) for n in with_word.get(_first(sv), ())) if c is not None]
            usual[(sv, sy)] = sum(seen) * 2 > len(seen)
        return usual[(sv, sy)]
    out = []
    for text, triples in zip(texts, results, strict=True):
        def pick(v: str) -> str:
            sv = surface.get(v)
            if not sv:
                return v
            longer = [y for y in by_first.get(_first(sv), ()) if len(sy := surface[y]) > len(sv)
                      and sy.startswith(sv) and not sy[len(sv)].isalnum() and _continues(text, sv, sy)
                      and mostly(sv, sy)]
            return max(longer, key=lambda y: (len(surface[y]), y)) if longer else v
        kept, seen = [], set()
        for before, t in zip(triples, rename_names([triples], pick)[0]):
            spo = (t.get("sub"), t.get("rel"), t.get("obj"))
            if spo in seen or (t.get("sub") == t.get("obj") and before.get("sub") != before.get("obj")):
                continue
            seen.add(spo)
            kept.append(t)
        out.append(kept)
    return out


def written_disambiguations(results: list[list[dict[str, str]]], mentions: list[list],
                            rate: dict[str, float]) -> list[list[dict[str, str]]]:
    """``results`` (per sentence, triples ``{sub, rel, obj, ...}``) with a plain name written as
    the disambiguated name some sentence of the same run writes out (``Stuart Parker`` ->
    ``Stuart Parker (footballer)``): sentences about one entity spell its name more or less
    fully, and its DBpedia name is the full one. Only kinds of written-out disambiguation
    (``DISPAREN``/``DISPARCAP`` variants among ``mentions``, each sentence's
    :func:`.mentions.find_mentions`) whose learned ``rate`` (:func:`.features.variant_rates`) is
    above one half; a name written with two different disambiguations keeps its plain form.

    Returns:
        New lists of new dicts, same shape and order; the input is not changed.
    """
    forms: dict[str, set[str]] = {}
    for ms in mentions:
        for m in ms:
            if m.shape.startswith("DISPAR") and rate.get(variant_kind(m), 0.0) > 0.5:
                forms.setdefault(key(m.value.rsplit(" (", 1)[0]), set()).add(m.value)
    full = {k: next(iter(v)) for k, v in forms.items() if len(v) == 1}
    return rename_names(results, lambda v: full.get(key(v), v))
