"""The sequence tagger (pipeline/text/tagger.py): distant labels, span reading, decoding, merge,
and the bench's dev split."""
from __future__ import annotations

from pipeline.text.bench import dev_split
from pipeline.text.data import Sentence
from pipeline.text.mentions import Lexicon, find_mentions, tokens
from pipeline.text.tagger import align, decode, merge, spans_of, topic_share


def tag(r: int, role: int, b: str) -> int:
    return 1 + (r * 2 + role) * 4 + "BIES".index(b)


def test_align_labels_subject_and_objects_of_a_training_sentence():
    text = "Alan Bean was born in Wheeler, Texas and his alma mater is UT Austin."
    triples = [{"sub": "Alan_Bean", "rel": "birthPlace", "obj": "Wheeler,_Texas"},
               {"sub": "Alan_Bean", "rel": "almaMater", "obj": "UT_Austin"},
               {"sub": "Alan_Bean", "rel": "status", "obj": "Retired"}]  # not in the sentence
    toks = tokens(text)
    lex = Lexicon.learn([(text, ["Alan_Bean", "Wheeler,_Texas", "UT_Austin"])])
    labels, n = align(text, toks, find_mentions(text, lex), triples, {}, {"almaMater": 0, "birthPlace": 1, "status": 2})
    assert n == 2
    words = [t[2] for t in toks]
    got = {w: lab for w, lab in zip(words, labels) if lab}
    # the subject keeps the label of its first triple (birthPlace, index 1)
    assert got == {"Alan": tag(1, 0, "B"), "Bean": tag(1, 0, "E"), "Wheeler": tag(1, 1, "B"),
                   ",": tag(1, 1, "I"), "Texas": tag(1, 1, "E"), "UT": tag(0, 1, "B"), "Austin": tag(0, 1, "E")}


def test_spans_of_reads_boundary_runs_and_splits_at_a_new_begin():
    def bt(role: int, b: str) -> int:
        return 1 + role * 4 + "BIES".index(b)
    bound = [bt(0, "B"), bt(0, "E"), 0, bt(1, "S"), bt(1, "B"), bt(1, "I"), bt(1, "E"), bt(1, "I"), bt(0, "I"),
             bt(0, "B")]
    # a lone I continues nothing: starts a span; an I of the other role too; an open B ends at the end
    assert spans_of(bound) == [(0, 2, 0), (3, 4, 1), (4, 7, 1), (7, 8, 1), (8, 9, 0), (9, 10, 0)]


def test_decode_nearest_subject_of_the_relation_else_the_topic():
    spans = [(0, 2, 5, 0),      # topic subject, tagged for relation 5
             (4, 5, 5, 1),      # object of 5 -> nearest role-1 span of 5: the topic
             (7, 8, 3, 1),      # object of 3, no role-1 span of 3 -> the topic
             (10, 11, 4, 0), (12, 13, 4, 1)]
    assert decode(spans) == [((0, 2), 5, (4, 5)), ((0, 2), 3, (7, 8)), ((10, 11), 4, (12, 13))]
    assert decode([(3, 4, 1, 1)]) == []  # no subject span at all: nothing


def test_topic_share_counts_triples_of_the_most_frequent_subject():
    s1 = Sentence("1", "x", [{"sub": "A", "rel": "r", "obj": "B"}, {"sub": "A", "rel": "q", "obj": "C"},
                             {"sub": "C", "rel": "r", "obj": "D"}])
    s2 = Sentence("2", "y", [{"sub": "E", "rel": "r", "obj": "F"}])
    assert topic_share([s1, s2]) == 0.75


def test_merge_adds_tagger_triples_of_new_objects_only():
    pairs = [{"sub": "A", "rel": "r", "obj": "B"}]
    tagged = [{"sub": "A", "rel": "q", "obj": "B"}, {"sub": "A", "rel": "q", "obj": "C"}]
    assert merge(pairs, tagged) == [{"sub": "A", "rel": "r", "obj": "B"}, {"sub": "A", "rel": "q", "obj": "C"}]


def test_dev_split_groups_sentences_of_one_subject():
    sents = [Sentence(f"id{i}", "t", [{"sub": f"Name_{i % 7}", "rel": "r", "obj": str(i)}]) for i in range(70)]
    fit, held = dev_split(sents)
    assert len(fit) + len(held) == 70 and 14 <= len(held) <= 28
    held_subjects = {s.triples[0]["sub"] for s in held}
    assert not held_subjects & {s.triples[0]["sub"] for s in fit}
    assert dev_split(list(reversed(sents)))[1] == list(reversed(held))  # order-independent
