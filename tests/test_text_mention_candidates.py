"""Overlapping candidate mentions (pipeline/text/mentions.py): the alternatives a gold name may be
(with its article, a title across function words, the end of a longer name, lower-case parts),
each with the shape saying how it was found; and the candidate ceiling (mention_recall.py).
Sentences are Wikidata-TekGen validation sentences or written like them."""
from __future__ import annotations

from pipeline.text.data import Relation, Sentence, TextOntology
from pipeline.text.mention_recall import candidate_pairs, mention_recall
from pipeline.text.mentions import Lexicon, find_mentions

#: a lexicon whose training names are often lower case, as Wikidata's genres and instruments
LOWER = Lexicon(["guitar", "doom metal", "heavy metal", "comedy film", "Italy", "Megadeth"])
#: one whose names are all capitalised, as DBpedia's
UPPER = Lexicon(["Italy", "Megadeth", "Rock_music", "Doom_metal"])


def _shaped(sentence: str, lexicon: Lexicon | None = None) -> list[tuple[str, str]]:
    return [(m.value, m.shape) for m in find_mentions(sentence, lexicon)]


def test_a_capitalised_article_gives_both_spans():
    ms = find_mentions("The Moving Toyshop is a novel by Edmund Crispin.")
    assert [(m.start, m.end, m.value, m.shape) for m in ms if m.shape.startswith("CAP")] == [
        (0, 18, "The Moving Toyshop", "CAPTHE"), (4, 18, "Moving Toyshop", "CAP"),
        (33, 47, "Edmund Crispin", "CAP")]
    # mid-sentence too, and the indefinite article of a title ("A Deeper Kind of Slumber")
    assert ("The Graveyard Book", "CAPTHE") in _shaped("Chris Riddell illustrated The Graveyard Book.")
    assert ("A Deeper Kind of Slumber", "CAPTHE") in _shaped("A Deeper Kind of Slumber is a 1997 release.")
    # an article before a lower-case word is not a name
    assert not [v for v, s in _shaped("The cartoon was released in 1928.") if s == "CAPTHE"]


def test_a_title_spans_the_lower_case_words_of_title_case():
    assert _shaped("Fire and Sleet and Candlelight is an anthology.")[:2] == [
        ("Fire and Sleet and Candlelight", "CAPSPAN"), ("Fire and Sleet", "CAPCOMMA")]
    assert ("Cloudy with a Chance of Meatballs", "CAPSPAN") in _shaped(
        "Cloudy with a Chance of Meatballs is a children's book written by Judi Barrett.")
    ms = _shaped("The Old Lady and the Pigeons is a 1997 animated short film.")
    assert ("The Old Lady and the Pigeons", "CAPTHE") in ms and ("Old Lady and the Pigeons", "CAPSPAN") in ms
    # a verb between two names ends the title: no span over "directed"
    ms = _shaped("Purr-Chance to Dream was directed by Ben Washam.")
    assert ("Purr-Chance to Dream", "CAPSPAN") in ms
    assert not [v for v, s in ms if "Ben" in v and s == "CAPSPAN"]
    # "of", "for" ... already join a capitalised run: one CAP name, no span
    assert _shaped("Tee for Two was directed by William Hanna.")[0] == ("Tee for Two", "CAP")


def test_the_end_of_a_longer_name_is_a_candidate():
    # after a possessive, in one token or as a tokenized text writes it
    assert ("Twelfth Night", "CAPTAIL") in _shaped(
        "The movie is a loose adaptation of William Shakespeare's Twelfth Night.")
    ms = _shaped("Mickey 's Christmas Carol was directed by Burny Mattinson.")
    assert ms[:3] == [("Mickey's Christmas Carol", "CAP"), ("Mickey", "CAP"), ("Christmas Carol", "CAPTAIL")]
    # without a leading year; the head of "X of Y" without the words before it
    ms = _shaped("Richard Dreyfuss won the 1977 Academy Award for Best Actor.")
    assert ("1977 Academy Award for Best Actor", "CAP") in ms and ("Academy Award for Best Actor", "CAPTAIL") in ms
    assert not [v for v, s in ms if v == "Award for Best Actor"]  # only "of" heads an "X of Y" name
    assert ("President of Malta", "CAPTAIL") in _shaped("Ugo Mifsud Bonnici was Acting President of Malta in 1994.")
    assert not [s for v, s in _shaped("He studied at the University of Texas.") if s == "CAPTAIL"]


def test_a_spaced_subtitle_colon_keeps_the_title_whole():
    ms = _shaped("Saint Seiya : Legend of Sanctuary stars Kaito Ishikawa.")
    assert ms[:2] == [("Saint Seiya: Legend of Sanctuary", "CAP"), ("Saint Seiya", "CAP")]
    assert ("Legend of Sanctuary", "CAP") in ms


def test_lower_case_parts_only_where_the_training_names_are_lower_case():
    sentence = "Teutonic Witch is a single by Finnish doom metal band Reverend Bizarre."
    low = [(m.start, m.end, m.value) for m in find_mentions(sentence, LOWER) if m.shape == "LOW"]
    assert low == [(20, 26, "single"), (38, 53, "doom metal band"), (38, 48, "doom metal"), (43, 53, "metal band"),
                   (43, 48, "metal")]
    # DBpedia-like names: the phrase and its last two words, as before
    assert [m.value for m in find_mentions(sentence, UPPER) if m.shape == "LOW"] == [
        "single", "doom metal band", "metal band"]
    assert LOWER.lowercase == 4 / 6 and UPPER.lowercase == 0.0 and LOWER.lower_heads == {"guitar", "metal", "film"}
    # a hyphenated lower-case word is one word there ("post-punk", "self-help")
    assert ("post-punk", "LOW") in _shaped("Joy Division was a post-punk band.", Lexicon(["post-punk", "guitar"]))
    assert ("post-punk", "LOW") not in _shaped("Joy Division was a post-punk band.", UPPER)


def test_the_candidate_ceiling_counts_gold_names_among_candidates():
    onto = TextOntology("t", ["book", "human"], {"author": Relation("author", "book", "human"),
                                                 "genre": Relation("genre", "book", "")})
    train = [Sentence("1", "Emma is a comedy film by Jane Austen.",
                      [{"sub": "Emma", "rel": "genre", "obj": "comedy film"}])]
    scored = [Sentence("2", "The Moving Toyshop is a novel by Edmund Crispin.",
                       [{"sub": "The Moving Toyshop", "rel": "author", "obj": "Edmund Crispin"},
                        {"sub": "The Moving Toyshop", "rel": "genre", "obj": "crime fiction"}])]
    r = mention_recall(onto, train, scored, misses=5)
    assert (r["triples"], r["exact_both"], r["exact_subject"], r["exact_object"]) == (2, 1, 2, 1)
    assert r["missed"] == [{"name": "crime fiction", "role": "object", "sent": scored[0].text}]
    # pairs: each name subject x the other mentions it does not overlap (the two Toyshops overlap)
    ms = find_mentions(scored[0].text, Lexicon(["comedy film"]))
    assert [m.value for m in ms] == ["The Moving Toyshop", "Moving Toyshop", "novel", "Edmund Crispin"]
    assert candidate_pairs(ms) == 2 + 2 + 3
