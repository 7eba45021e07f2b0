"""Which scored pairs a sentence states (:func:`pipeline.text.decode.stated_pairs`): no pair a
negation cue denies (:mod:`pipeline.text.negation`), one direction per pair of mentions and
relation, both for an ``owl:SymmetricProperty``."""
from __future__ import annotations

from pipeline.text.decode import PairScore, f1_decode, stated_pairs
from pipeline.text.mentions import Mention
from pipeline.text.negation import cue_spans, negated
from pipeline.text.owl import rdf_text_ontology


def _m(sent: str, text: str, shape: str = "CAP") -> Mention:
    i = sent.index(text)
    return Mention(i, i + len(text), text, text, shape)


def _row(sent: str, a: Mention, b: Mention, p: float, rel: str, score: float = 0.5) -> PairScore:
    return PairScore(a, b, p, 1.0, rel, score, rel, None, 0.0, sent)


def _triples(sent: str, rows: list[PairScore], **kw) -> list[tuple[str, str, str]]:
    return [(a.value, r, b.value) for _, a, b, r in f1_decode(stated_pairs(rows, **kw), 1.0, 0.0)]


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
