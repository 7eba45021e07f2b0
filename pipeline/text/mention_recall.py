"""The candidate-mention ceiling: how many gold triples have both names among a sentence's
candidate mentions (:func:`.mentions.find_mentions`), with no fit.

The pair model only ever scores pairs of candidate mentions, so a gold triple whose subject or
object is no candidate can never be extracted: this share bounds the extractor's triple recall.
The lexicon is the one the extractor learns from the ontology's training split
(:meth:`.mentions.Lexicon.learn`), so the measure sees the known names and the DBpedia variants as
an extraction does. Two shares per ontology:

* ``exact``: some candidate's value is the gold name itself (comparison key, accents folded; an
  object of a relation without a range also by its year): the name can be written as the gold
  writes it;
* ``span``: some candidate matches the gold name or one of its surface aliases
  (:func:`.features.alias_keys`: without a leading article, trailing lower-case words, a
  parenthesised disambiguation), as the training pairs are labelled: the pair can be found.

Also the number of candidate pairs (:func:`.features.sentence_pairs` without their features): what
the CPU-heavy fit grows with.

    python -m pipeline.text.mention_recall --bench DIR [--split dev|train] [--only NAME ...] [--misses N]

(``dev``: the validation split where the part has one - Wikidata-TekGen -, else the dev protocol's
held-out training sentences, :func:`.bench.dev_split`, the lexicon learned from the rest.)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pipeline.text.bench import dev_split
from pipeline.text.data import Sentence, TextOntology, load_sentences
from pipeline.text.features import NAME_SHAPES, alias_keys, plain_mentions
from pipeline.text.harness import load_training
from pipeline.text.manifest import ontology_names
from pipeline.text.mentions import Lexicon, Mention, find_mentions
from pipeline.text.normalize import fold_accents, key, normalize_value, year_keys

__all__ = ["mention_recall", "candidate_pairs", "main"]


def candidate_pairs(ms: list[Mention]) -> int:
    """Ordered candidate pairs of one sentence, counted as :func:`.features.sentence_pairs` builds
    them: a plain name mention as subject, any other plain mention that neither overlaps it nor
    has its comparison key as object."""
    plain = plain_mentions(ms)
    return sum(1 for a in plain if a.shape in NAME_SHAPES for b in plain
               if b is not a and key(a.value) != key(b.value) and not (a.start < b.end and b.start < a.end))


def mention_recall(ontology: TextOntology, train: list[Sentence], scored: list[Sentence],
                   misses: int = 0) -> dict[str, Any]:
    """The candidate-mention ceiling of ``scored`` (module docstring).

    Args:
        ontology: the sentences' ontology (relation ranges).
        train: its training sentences (the lexicon is learned from their triples).
        scored: the sentences to measure, with their gold triples.
        misses: how many missed gold names to list (with their sentence).
    Returns:
        ``{"sentences", "triples", "exact_both", "exact_subject", "exact_object", "span_both",
        "span_subject", "span_object", "pairs", "mentions", "missed": [{"name", "role", "sent"}]}``
        (counts; shares are the counts over ``triples``).
    """
    lexicon = Lexicon.learn([(s.text, [x for t in s.triples for x in (t["sub"], t["obj"])]) for s in train])
    out: dict[str, Any] = {k: 0 for k in ("sentences", "triples", "exact_both", "exact_subject", "exact_object",
                                          "span_both", "span_subject", "span_object", "pairs", "mentions")}
    out["missed"] = []
    for s in scored:
        ms = find_mentions(s.text, lexicon)
        values = {fold_accents(key(m.value)) for m in ms}
        out["sentences"] += 1
        out["mentions"] += len(plain_mentions(ms))
        out["pairs"] += candidate_pairs(ms)
        for t in s.triples:
            rel = ontology.relations.get(ontology.resolve(t["rel"]) or "")
            rng = rel.range if rel is not None else None
            sub_exact = {fold_accents(key(normalize_value(t["sub"], "")))}
            obj_exact = {fold_accents(key(normalize_value(t["obj"], rng))), fold_accents(key(t["obj"]))}
            if rel is not None and not rel.range:
                obj_exact |= year_keys(t["obj"])
            sub_span = sub_exact | {fold_accents(k) for k in alias_keys(t["sub"], "")}
            obj_span = obj_exact | {fold_accents(k) for k in alias_keys(t["obj"], rng)}
            hit = {"exact_subject": bool(sub_exact & values), "exact_object": bool(obj_exact & values),
                   "span_subject": bool(sub_span & values), "span_object": bool(obj_span & values)}
            out["triples"] += 1
            for k, v in hit.items():
                out[k] += v
            out["exact_both"] += hit["exact_subject"] and hit["exact_object"]
            out["span_both"] += hit["span_subject"] and hit["span_object"]
            for role, name in (("subject", t["sub"]), ("object", t["obj"])):
                if not hit[f"exact_{role}"] and len(out["missed"]) < misses:
                    out["missed"].append({"name": name, "role": role, "sent": s.text})
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the ceiling per ontology and the macro mean (shares of gold triples)."""
    ap = argparse.ArgumentParser(prog="python -m pipeline.text.mention_recall", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True, type=Path, help="a Text2KGBench part")
    ap.add_argument("--split", default="dev", choices=("dev", "train"),
                    help="dev: the validation split (Wikidata-TekGen), else the dev protocol's held-out 20%% "
                         "of the training split (bench.dev_split; the lexicon from the other 80%%); train: the "
                         "training split itself")
    ap.add_argument("--only", nargs="*", help="ontology names")
    ap.add_argument("--misses", type=int, default=0, help="list this many missed names per ontology")
    ap.add_argument("--json", type=Path, help="also write the counts here")
    args = ap.parse_args(argv)
    names = args.only or ontology_names(args.bench)
    training = load_training(args.bench, names)
    rows = {}
    print("| ontology | triples | both exact | both span | subject exact | object exact | mentions | pairs |")
    print("|---|---|---|---|---|---|---|---|")
    for n in names:
        onto, train = training[n]
        path = args.bench / "validation" / f"ont_{n}_validation.jsonl"
        if args.split == "train":
            scored = train
        elif path.exists():
            scored = load_sentences(path)
        else:
            train, scored = dev_split(train)
        r = rows[n] = mention_recall(onto, train, scored, args.misses)
        t = max(r["triples"], 1)
        print(f"| {n} | {r['triples']} | {r['exact_both'] / t:.3f} | {r['span_both'] / t:.3f} | "
              f"{r['exact_subject'] / t:.3f} | {r['exact_object'] / t:.3f} | {r['mentions']} | {r['pairs']} |")
        for m in r["missed"]:
            print(f"    {m['role']}: {m['name']!r}  <- {m['sent']}")
    if rows:
        mean = {k: sum(r[k] / max(r["triples"], 1) for r in rows.values()) / len(rows)
                for k in ("exact_both", "span_both", "exact_subject", "exact_object")}
        print(f"| **macro** | {sum(r['triples'] for r in rows.values())} | {mean['exact_both']:.3f} | "
              f"{mean['span_both']:.3f} | {mean['exact_subject']:.3f} | {mean['exact_object']:.3f} | "
              f"{sum(r['mentions'] for r in rows.values())} | {sum(r['pairs'] for r in rows.values())} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
