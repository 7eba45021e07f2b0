"""The candidate-mention ceiling (pipeline/text/mention_recall.py): the share of gold triples whose
two names are among a sentence's candidate mentions, and the candidate pairs, with no fit."""
from __future__ import annotations

from pipeline.text.data import Relation, Sentence, TextOntology
from pipeline.text.mention_recall import candidate_pairs, mention_recall
from pipeline.text.mentions import Lexicon, find_mentions

ONTO = TextOntology("t", ["book", "human"], {"author": Relation("author", "book", "human"),
                                              "genre": Relation("genre", "book", "")})
TRAIN = [Sentence("1", "Emma is a novel by Jane Austen.", [{"sub": "Emma", "rel": "author", "obj": "Jane Austen"}])]


def test_exact_and_span_shares_and_the_missed_names():
    scored = [Sentence("2", "The Moving Toyshop is a novel by Edmund Crispin.",
                       [{"sub": "The Moving Toyshop", "rel": "author", "obj": "Edmund Crispin"},
                        {"sub": "The Moving Toyshop", "rel": "genre", "obj": "crime fiction"}]),
              Sentence("3", "Persuasion is a novel by Jane Austen.",
                       [{"sub": "Persuasion", "rel": "author", "obj": "Jane Austen"}])]
    r = mention_recall(ONTO, TRAIN, scored, misses=5)
    # the title with its article is a candidate's value (the article variant counts: it can be
    # written); "crime fiction" is in no sentence
    assert (r["sentences"], r["triples"]) == (2, 3)
    assert (r["exact_both"], r["exact_subject"], r["exact_object"]) == (2, 3, 2)
    assert (r["span_both"], r["span_subject"], r["span_object"]) == (2, 3, 2)
    assert r["missed"] == [{"name": "crime fiction", "role": "object", "sent": scored[0].text}]


def test_candidate_pairs_are_counted_as_the_pair_model_builds_them():
    ms = find_mentions("Persuasion is a novel by Jane Austen.", Lexicon(["Jane_Austen"]))
    assert [(m.value, m.shape) for m in ms] == [("Persuasion", "CAP"), ("novel", "LOW"), ("Jane Austen", "CAP")]
    # each name subject x the other mentions: Persuasion -> novel, Jane Austen; Jane Austen -> Persuasion, novel
    assert candidate_pairs(ms) == 2 + 2
