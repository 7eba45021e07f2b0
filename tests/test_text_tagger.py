"""The sequence tagger (pipeline/text/tagger.py): distant labels, span reading, decoding, merge,
and the bench's dev split."""
from __future__ import annotations

from pipeline.text.data import Sentence
from pipeline.text.mentions import Lexicon, find_mentions, tokens
from pipeline.text.tagger import add_tag_features, align, decode, merge, spans_of, topic_share


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


def test_add_tag_features_reads_role_and_relation_probabilities():
    import numpy as np
    from pipeline.text.mentions import Mention
    sent = "Ann Lee was born in Oslo."
    relp = np.zeros((7, 2, 2), np.float32)  # tokens: Ann Lee was born in Oslo .
    relp[0:2, 0, 0] = 0.8  # Ann Lee: subject of relation 0
    relp[5, 1, 1] = 0.6    # Oslo: object of relation 1
    relp[5, 0, 1] = 0.2
    a, b = Mention(0, 7, "Ann Lee", "Ann Lee", "CAP"), Mention(20, 24, "Oslo", "Oslo", "CAP")
    pairs = [(a, b, {"x": 1.0})]
    add_tag_features(sent, ([0] * 7, relp), pairs, ["birthDate", "birthPlace"])
    f = pairs[0][2]
    assert f["x"] == 1.0 and f["tg:rel=birthPlace"] == np.float32(0.6)
    assert abs(f["tg:sub"] - 0.8) < 1e-6 and abs(f["tg:obj"] - 0.8) < 1e-6 and abs(f["tg:both"] - 0.64) < 1e-6


def test_tagger_fits_and_reads_back_a_training_pattern():
    import pytest
    from pipeline import embeddings
    if not embeddings.available():
        pytest.skip("packaged MiniLM not installed")
    from pipeline.text.data import Relation, TextOntology
    from pipeline.text.tagger import SequenceTagger
    onto = TextOntology("ont_t", ["Person", "City"], {"birthPlace": Relation("birthPlace", "Person", "City"),
                                                       "deathPlace": Relation("deathPlace", "Person", "City")})
    people = ["Ann Lee", "Bob Stone", "Carl Mayer", "Dora Fox", "Emil Kraus", "Fay Wong"]
    cities = ["Oslo", "Lyon", "Graz", "Turin", "Ghent", "Porto"]
    train = [Sentence(f"b{i}", f"{p} was born in {c}.", [{"sub": p.replace(" ", "_"), "rel": "birthPlace", "obj": c}])
             for i, (p, c) in enumerate(zip(people, cities))]
    train += [Sentence(f"d{i}", f"{p} died in {c}.", [{"sub": p.replace(" ", "_"), "rel": "deathPlace", "obj": c}])
              for i, (p, c) in enumerate(zip(people, reversed(cities)))]
    runs = [SequenceTagger(epochs=40, lr=1e-2).fit({"t": (onto, train)}).extract_scored(
        ["Ann Lee was born in Oslo.", "Bob Stone died in Porto."], onto) for _ in range(2)]
    assert runs[0] == runs[1]  # deterministic
    got = [[t for t, _ in ts] for ts in runs[0]]
    assert got == [[{"sub": "Ann Lee", "rel": "birthPlace", "obj": "Oslo", "subType": "Person", "objType": "City"}],
                   [{"sub": "Bob Stone", "rel": "deathPlace", "obj": "Porto", "subType": "Person", "objType": "City"}]]


def test_learned_aliases_do_not_depend_on_the_hash_seed():
    """Lexicon.learn: an alias tied between two names gets the same one in every process."""
    import subprocess
    import sys
    code = ("from pipeline.text.mentions import Lexicon\n"
            "ex = [(f'The US team number {i} won.', ['United_States', 'Team_X']) for i in range(3)]\n"
            "print(Lexicon.learn(ex).alias_to_name.get('us'))\n")
    got = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONHASHSEED": str(seed), "PATH": ""}).stdout.strip() for seed in (1, 2)}  # 1 and 2 disagreed before the fix
    assert got == {"United States"}
