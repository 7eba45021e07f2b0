"""Per-sentence error classes of an extractor's output against gold triples (``--errors``).

Each gold triple of a sentence falls in exactly one class, checked in this order:

* ``correct``: predicted (same keys as the Text2KGBench triple F1: lower case, spaces removed);
* ``no_mention``: its subject or object (or, for the object, an alias of its name) is no candidate
  mention of the sentence (:func:`.mentions.find_mentions` with the extractor's lexicon, including
  the DBpedia-name variants), so no pair could give it; the object of a relation without a range
  is found by its year too when it is a date (Wikidata's ``01 January 2010`` for "a 2010 film":
  the year mention is what the extractor labels and writes in the relation's learned form);
* ``wrong_subject``: a prediction has its relation and object but another subject;
* ``wrong_relation``: a prediction has its subject and object but another relation;
* ``wrong_object``: a prediction has its subject and relation but another object;
* ``missed``: both names are candidates, no prediction comes near.

A predicted triple that is no gold triple and none of the near misses above is ``spurious``.
:func:`analyse` returns the counts; :func:`write_errors` also writes one JSON line per sentence.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pipeline.text.data import Sentence, TextOntology, relation_key
from pipeline.text.features import alias_keys
from pipeline.text.mentions import Lexicon, find_mentions, fold_accents
from pipeline.text.normalize import key, normalize_value, year_keys

__all__ = ["CLASSES", "classify", "analyse", "write_errors"]

CLASSES = ("correct", "no_mention", "wrong_subject", "wrong_relation", "wrong_object", "missed", "spurious")


def _range(rel: object, onto: TextOntology) -> str | None:
    """The declared range of the ontology relation ``rel`` writes (``publication date``,
    ``publication_date``: :meth:`.data.TextOntology.resolve`; ``""`` none declared), else ``None``."""
    name = onto.resolve(rel)
    return onto.relations[name].range if name is not None else None


def _k3(t: dict[str, str], onto: TextOntology) -> tuple[str, str, str]:
    # the triple F1's keys (:func:`.metrics.score_ontology`): the relation as the ontology names it
    raw = str(t.get("rel", ""))
    return (key(normalize_value(t.get("sub", ""), "")), onto.resolve(raw) or relation_key(raw),
            key(normalize_value(t.get("obj", ""), _range(raw, onto) or None)))


def classify(sentence: str, gold: list[dict[str, str]], pred: list[dict[str, str]], onto: TextOntology,
             lexicon: Lexicon | None = None) -> dict[str, Any]:
    """Error classes of one sentence (see the module docstring).

    Returns:
        ``{"gold": [[sub, rel, obj, class], ...], "spurious": [[sub, rel, obj], ...]}`` with
        comparison keys (lower case, no spaces) as values.
    """
    cands = set()
    for m in find_mentions(sentence, lexicon):
        cands.add(fold_accents(key(m.value)))
    g3 = [_k3(t, onto) for t in gold]
    p3 = {_k3(t, onto) for t in pred}
    near: set[tuple[str, str, str]] = set()
    out = []
    for (s, r, o), t in zip(g3, gold):
        rng = _range(t.get("rel", ""), onto)

        def found(name: str, value: str, rng_: str | None, years: bool = False) -> bool:
            return fold_accents(value) in cands or any(fold_accents(a) in cands for a in alias_keys(name, rng_)) \
                or (years and bool(year_keys(name) & cands))
        hit = [p for p in p3 if sum(x == y for x, y in zip(p, (s, r, o))) == 2]
        if (s, r, o) in p3:
            cls = "correct"
        elif not found(t.get("sub", ""), s, "") or not found(t.get("obj", ""), o, rng or None, rng == ""):
            cls = "no_mention"
        elif any(p[1:] == (r, o) for p in hit):
            cls = "wrong_subject"
        elif any((p[0], p[2]) == (s, o) for p in hit):
            cls = "wrong_relation"
        elif any(p[:2] == (s, r) for p in hit):
            cls = "wrong_object"
        else:
            cls = "missed"
        near.update(hit)
        out.append([s, r, o, cls])
    spurious = sorted(p for p in p3 if p not in set(g3) and p not in near)
    return {"gold": out, "spurious": [list(p) for p in spurious]}


def analyse(sentences: list[Sentence], preds: list[list[dict[str, str]]], onto: TextOntology,
            lexicon: Lexicon | None = None) -> tuple[Counter, list[dict[str, Any]]]:
    """Counts per class over ``sentences`` (gold triples in ``Sentence.triples``) and their
    per-sentence records ``{"id", "sent", "pred", **classify(...)}``."""
    counts: Counter = Counter()
    records = []
    for s, p in zip(sentences, preds):
        c = classify(s.text, s.triples, p, onto, lexicon)
        counts.update(x[3] for x in c["gold"])
        counts["spurious"] += len(c["spurious"])
        records.append({"id": s.id, "sent": s.text, "pred": [[t["sub"], t["rel"], t["obj"]] for t in p], **c})
    return counts, records


def write_errors(path: Path, sentences: list[Sentence], preds: list[list[dict[str, str]]], onto: TextOntology,
                 lexicon: Lexicon | None = None) -> Counter:
    """:func:`analyse`, writing the per-sentence records that hold an error to ``path`` (JSON Lines)."""
    counts, records = analyse(sentences, preds, onto, lexicon)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            if r["spurious"] or any(g[3] != "correct" for g in r["gold"]):
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return counts
