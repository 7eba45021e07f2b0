"""Which scored pairs a sentence states (:func:`pipeline.text.decode.stated_pairs`): no pair a
negation cue denies (:mod:`pipeline.text.negation`), one direction per pair of mentions and
relation, both for an ``owl:SymmetricProperty``."""
from __future__ import annotations

import pytest

from pipeline.text.decode import f1_decode, stated, stated_pairs, threshold_decode
from pipeline.text.pair_score import PairScore
from pipeline.text.mentions import Mention
from pipeline.text.negation import cue_spans, negated
from pipeline.text.owl import rdf_text_ontology


def _m(sent: str, text: str, shape: str = "CAP") -> Mention:
    i = sent.index(text)
    return Mention(i, i + len(text), text, text, shape)


def _row(sent: str, a: Mention, b: Mention, p: float, rel: str, score: float = 0.5) -> PairScore:
    return PairScore(a, b, p, 1.0, rel, score, rel, None, 0.0, sent)


def _triples(sent: str, rows: list[PairScore], **kw) -> list[tuple[str, str, str]]:
    return [(a.value, r, b.value) for _, a, b, r in f1_decode(rows, 1.0, 0.0, stated(rows, **kw))]


def test_negation_cues_and_a_title_s_cue():
    assert cue_spans("Lyon is not the capital of France.") == [(8, 11)]
    assert cue_spans("Bonn is no longer the capital of Germany.") == [(8, 17)]
    assert cue_spans("Paris isn't the capital of Spain.") == [(8, 11)]
    # a title's cue, after a capitalised word or capitalised inside the sentence; "not only" affirms
    assert cue_spans("Do n't Waste Your Time is a song.") == []
    assert cue_spans("Carey promoted Never Too Far at the awards.") == []
    assert cue_spans("X is not only the capital of Y.") == []


def test_a_cue_between_two_mentions_denies_them_within_one_clause_only():
    s = "Bonn is no longer the capital of Germany."
    bonn, germany, longer = _m(s, "Bonn"), _m(s, "Germany"), _m(s, "longer", "LOW")
    assert negated(s, bonn.start, bonn.end, germany.start, germany.end)
    assert negated(s, germany.start, germany.end, longer.start, longer.end)  # "longer" is the cue's word
    s = "Bitter Rice did not win any awards, but it was nominated for the Academy Award."
    assert not negated(s, 0, 11, s.index("Academy"), len(s) - 1)
    s = "Never for Ever features the single Babooshka."
    assert not negated(s, 0, 14, s.index("Babooshka"), len(s) - 1)  # the cue is the subject's own word


def test_a_negated_sentence_states_no_triple():
    s = "Lyon is not the capital of France."
    lyon, capital, france = _m(s, "Lyon"), _m(s, "capital", "LOW"), _m(s, "France")
    rows = [_row(s, france, lyon, 0.8, "capital"), _row(s, lyon, france, 0.6, "capital"),
            _row(s, france, capital, 0.2, "capital")]
    assert stated_pairs(rows) == []
    assert _triples(s, rows) == []
    s = "Paris is the capital of France."
    paris, capital, france = _m(s, "Paris"), _m(s, "capital", "LOW"), _m(s, "France")
    rows = [_row(s, france, paris, 0.8, "capital"), _row(s, france, capital, 0.2, "capital")]
    assert stated_pairs(rows) == rows


def test_one_direction_per_pair_and_relation():
    s = "Paris is the capital of France."
    paris, france = _m(s, "Paris"), _m(s, "France")
    fwd, rev = _row(s, france, paris, 0.8, "capital"), _row(s, paris, france, 0.7, "capital")
    assert _triples(s, [rev, fwd]) == [("France", "capital", "Paris")]
    # the names' classes decide before the scores: Paris known as a City, France as a Country
    support = lambda c, r: 2 if c.a is france else -2  # noqa: E731
    assert stated_pairs([fwd, _row(s, paris, france, 0.9, "capital")], support=support) == [fwd]
    # another relation of the reversed pair stays
    loc = _row(s, paris, france, 0.7, "located in country")
    assert stated_pairs([fwd, rev, loc]) == [fwd, loc]
    # a symmetric relation keeps both directions
    assert stated_pairs([fwd, rev], symmetric=frozenset({"capital"})) == [fwd, rev]


def test_owl_symmetric_property_is_a_symmetric_relation(tmp_path):
    ttl = tmp_path / "o.ttl"
    ttl.write_text("@prefix g: <http://example.org/g#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                   "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                   "g:Person a owl:Class .\n"
                   "g:spouse a owl:ObjectProperty, owl:SymmetricProperty ; rdfs:domain g:Person ; rdfs:range g:Person .\n"
                   "g:parent a owl:ObjectProperty ; rdfs:domain g:Person ; rdfs:range g:Person .\n", encoding="utf-8")
    onto = rdf_text_ontology(ttl)
    assert (onto.relations["spouse"].symmetric, onto.relations["parent"].symmetric) == (True, False)


def test_an_object_span_whose_best_pair_is_not_stated_goes_to_no_other_pair():
    """The reversed pair is the best of its object span: the span states no triple, rather than
    the span's next-best pair (``Netherlands capital Rotterdam``), with either decoder."""
    s = "Rotterdam lies in the Netherlands; its mayor is Ahmed Aboutaleb."
    rot, nl, ahmed = _m(s, "Rotterdam"), _m(s, "Netherlands"), _m(s, "Ahmed Aboutaleb")
    fwd = _row(s, rot, ahmed, 0.8, "mayor")
    rev = _row(s, ahmed, rot, 0.9, "mayor")  # ranked above fwd; Ahmed is known as a Person
    cap = _row(s, nl, rot, 0.6, "capital")
    loc = _row(s, rot, nl, 0.7, "located in country")
    rows = [fwd, rev, cap, loc]
    support = lambda c, r: 2 if c.a is rot else -2  # noqa: E731
    flags = stated(rows, support=support)
    assert flags == [True, False, True, True]
    assert stated_pairs(rows, support=support) == [fwd, cap, loc]
    expected = [("Rotterdam", "mayor", "Ahmed Aboutaleb"), ("Rotterdam", "located in country", "Netherlands")]
    assert sorted((a.value, r, b.value) for _, a, b, r in f1_decode(rows, 1.0, 0.0, flags)) == sorted(expected)
    assert sorted((a.value, r, b.value) for _, a, b, r in threshold_decode(rows, 0.5, 0.0, flags)) == sorted(expected)
    # the rows removed before the decoder: Rotterdam's span went to its next-best pair
    removed_first = f1_decode(stated_pairs(rows, support=support), 1.0, 0.0)
    assert ("Netherlands", "capital", "Rotterdam") in [(a.value, r, b.value) for _, a, b, r in removed_first]
    # every row stated (no flags): the decoders as they were, the reversed pair kept
    assert ("Ahmed Aboutaleb", "mayor", "Rotterdam") in [(a.value, r, b.value) for _, a, b, r in f1_decode(rows, 1.0, 0.0)]
    with pytest.raises(ValueError, match="3 stated flags for 4 rows"):
        f1_decode(rows, 1.0, 0.0, flags[:3])


def _stated_scoring_every_row(scored, symmetric=frozenset(), support=None, subject_power=1.0):
    """:func:`stated` as it was written first: every row's direction scored (support asked for
    each), the reverse looked up after; the reference the lazy scoring must equal."""
    cues = {c.sent: cue_spans(c.sent) for c in scored}
    denied = [bool(cues[c.sent]) and negated(c.sent, c.a.start, c.a.end, c.b.start, c.b.end, cues[c.sent])
              for c in scored]
    scopes = {(min(c.a.end, c.b.end), max(c.a.start, c.b.start)) for c, d in zip(scored, denied) if d}
    best, keys = {}, []
    for c, d in zip(scored, denied):
        if d or any(lo <= m.start and m.end <= hi for lo, hi in scopes for m in (c.a, c.b)):
            keys.append(False)
            continue
        r = c.fact or c.rel
        k = None if r is None or r in symmetric else ((c.a.start, c.a.end), (c.b.start, c.b.end), r)
        keys.append(k)
        if k is not None:
            rank = 1.0 + c.p if c.fact else c.p * c.ps ** subject_power + 0.1 * c.rel_score
            score = (support(c, r) if support else 0, rank, -c.a.start)
            if k not in best or score > best[k]:
                best[k] = score
    return [k is not False and (k is None or best.get((k[1], k[0], k[2]), best[k]) <= best[k]) for k in keys]


def test_support_is_asked_only_for_a_pair_given_a_relation_both_ways_and_the_flags_are_the_same():
    import random
    rng = random.Random(7)
    for trial in range(300):
        s = rng.choice(["A B C D E met.", "A is not B of C D E.", "A B C D E is no longer it."])
        names = [_m(s, x) for x in ("A", "B", "C", "D", "E") if x in s]
        rows = []
        for _ in range(rng.randint(0, 14)):
            a, b = rng.sample(names, 2)
            rel = rng.choice(["r", "q", "sym", None])
            rows.append(PairScore(a, b, rng.choice([0.2, 0.5, 0.9]), rng.choice([0.5, 1.0]), rel,
                                  rng.choice([0.0, 0.5]), rel, rng.choice([None, None, "r"]), 0.0, s))
        asked = []

        def support(c, r):
            asked.append((c, r))
            return (hash((c.a.value, c.b.value, r)) % 5) - 2
        for sup in (None, support):
            kw = {"symmetric": frozenset({"sym"}), "support": sup, "subject_power": rng.choice([0.0, 1.0])}
            expected = _stated_scoring_every_row(rows, **kw)
            asked.clear()
            assert stated(rows, **kw) == expected, trial
        given = {((c.a.start, c.a.end), (c.b.start, c.b.end), c.fact or c.rel) for c in rows}
        assert all(((c.b.start, c.b.end), (c.a.start, c.a.end), r) in given for c, r in asked)
