"""Corpus-level canonical spelling of names (pipeline/text/canonical.py)."""
import pytest

from pipeline.text.canonical import canonical_spellings, completed_names, specificity, spelling_key


def test_spelling_key_and_specificity():
    assert spelling_key("Adolfo Suárez Madrid–Barajas Airport") == "adolfosuarezmadridbarajasairport"
    assert spelling_key("Adolfo Suarez Madrid Barajas airport") == "adolfosuarezmadridbarajasairport"
    assert specificity("Adolfo Suárez Madrid–Barajas Airport") == 2
    assert specificity("Bjørn Lomborg") == 1
    assert specificity("Madrid-Barajas") == 0


def test_most_specific_spelling_written_everywhere():
    results = [
        [{"sub": "Adolfo Suarez Madrid-Barajas Airport", "rel": "location", "obj": "Madrid"}],
        [{"sub": "Adolfo Suárez Madrid Barajas Airport", "rel": "runwayLength", "obj": "3500"}],
        [{"sub": "Adolfo Suárez Madrid–Barajas Airport", "rel": "location", "obj": "Alcobendas"},
         {"sub": "Lars Lokke", "rel": "leader", "obj": "Denmark"}],
        [{"sub": "Bjorn", "rel": "x", "obj": "Lars Løkke"}],
    ]
    out = canonical_spellings(results)
    assert [t["sub"] for ts in out for t in ts] == ["Adolfo Suárez Madrid–Barajas Airport"] * 3 + ["Lars Løkke", "Bjorn"]
    assert [t["obj"] for ts in out for t in ts] == ["Madrid", "3500", "Alcobendas", "Denmark", "Lars Løkke"]
    # the input is not changed; other keys are kept
    assert results[0][0]["sub"] == "Adolfo Suarez Madrid-Barajas Airport" and out[0][0]["rel"] == "location"


def test_different_names_and_numbers_stay_apart():
    results = [[{"sub": "Saint-Denis", "rel": "r", "obj": "1.5"}],
               [{"sub": "Saint Dennis", "rel": "r", "obj": "1–5"}]]
    assert canonical_spellings(results) == results


def _t(sub, obj, rel="r"):
    return {"sub": sub, "rel": rel, "obj": obj}


def test_a_name_cut_short_is_completed_from_the_run():
    sentences = ["Cuttlefish is an ingredient in Arros negre, a dish from Spain.",
                 "Arròs negre comes from the Valencian Community.",
                 "Palm sugar is in beef kway teow.",
                 "Beef kway teow is from Singapore and Indonesia; its version 2: the Remix is new.",
                 "New York City, New York, Manhattan is the location of the Asser Levy Public Baths.",
                 "New York City is part of New York."]
    results = [[_t("Arròs", "Cuttlefish", "ingredient"), _t("Arròs", "Spain", "country")],
               [_t("Arròs negre", "Valencian Community", "region")],
               [_t("Beef", "Palm sugar", "ingredient")],
               [_t("Beef kway teow", "Singapore and Indonesia", "country"), _t("Version 2", "1")],
               [_t("New York", "Manhattan", "isPartOf"), _t("Asser Levy Public", "New York City", "location")],
               [_t("New York City", "New York", "isPartOf"), _t("Asser Levy Public Baths", "Version 2: the Remix")]]
    out = completed_names(results, sentences)
    # every occurrence of the name goes on with the longer name's words (accents and case aside)
    assert [t["sub"] for t in out[0]] == ["Arròs negre", "Arròs negre"]
    assert out[2][0]["sub"] == "Beef kway teow"
    assert out[4][1]["sub"] == "Asser Levy Public Baths"
    # "New York" also stands alone in sentence 5 (", New York,"): not completed
    assert out[4][0]["sub"] == "New York" and out[5] == results[5]
    assert out[3][1]["sub"] == "Version 2: the Remix"  # goes on past punctuation too
    # the longer name must end where a word of the sentence ends: "Beef kwa" is not in "beef kway teow"
    assert completed_names([[_t("Beef", "x")], [_t("Beef kwa", "y")]], ["Beef kway teow.", "Beef kwa."])[0] == \
        [_t("Beef", "x")]
    # values are not compared with themselves; numbers are left alone; the input is unchanged
    assert out[1] == results[1] and out[3][1]["obj"] == "1" and results[0][0]["sub"] == "Arròs"
    # nothing longer in the run: nothing changes
    assert completed_names([[_t("Beef", "Palm sugar")]], ["Beef kway teow has palm sugar."]) == [[_t("Beef", "Palm sugar")]]


def test_a_longer_name_only_where_the_run_mostly_writes_the_name_so():
    sentences = ["Abel Caballero worked as Minister of Transport.", "Abel Caballero was born in Spain.",
                 "Abel Caballero is in the Socialist Party.", "Arros negre is from Spain.",
                 "Arros negre has squid.", "Arros is also a word."]
    results = [[_t("Abel Caballero worked", "Minister of Transport")], [_t("Abel Caballero", "Spain")],
               [_t("Abel Caballero", "Socialist Party")], [_t("Arròs", "Spain")], [_t("Arròs negre", "squid")],
               [_t("Arròs", "word")]]
    # one of the three sentences with "Abel Caballero" goes on with "worked": a word after the name
    assert completed_names(results, sentences) == results[:3] + [[_t("Arròs negre", "Spain")]] + results[4:]
    # two of three sentences with "Arros" go on with "negre": the sentence that has it so is completed,
    # the one that writes "Arros" alone is not
    assert completed_names(results[3:], sentences[3:])[2] == [_t("Arròs", "word")]


def test_a_word_after_a_name_in_a_few_sentences_does_not_complete_it():
    # the extractor wrote "Abel Caballero worked" once; three of the four sentences with the name
    # go on otherwise, so the sentence that writes "worked" after it keeps the name too
    sentences = ["Abel Caballero worked as Minister of Transport.", "Abel Caballero worked as mayor.",
                 "Abel Caballero was born in Spain.", "Abel Caballero is a politician.",
                 "Abel Caballero leads Vigo."]
    results = [[_t("Abel Caballero worked", "Minister of Transport")], [_t("Abel Caballero", "mayor")],
               [_t("Abel Caballero", "Spain")], [_t("Abel Caballero", "politician")], [_t("Abel Caballero", "Vigo")]]
    assert completed_names(results, sentences) == results
    # ... while a run where most sentences write it so completes it (the majority rule decides)
    assert completed_names(results[:2] + results[3:4], sentences[:2] + sentences[3:4])[1] == \
        [_t("Abel Caballero worked", "mayor")]


def test_completion_keeps_numbers_and_drops_the_copies_it_makes():
    sentences = ["Arros negre is from Spain.", "Arros negre has 1 January 2000 as a date and 1 January."]
    results = [[_t("Arròs", "Spain"), _t("Arròs negre", "Spain"), _t("Arròs", "Arròs negre")],
               [_t("Arròs negre", "1 January 2000"), _t("Arròs negre", "1 January")]]
    out = completed_names(results, sentences)
    # the first triple becomes a copy of the second, the third a self-loop: both dropped
    assert out[0] == [_t("Arròs negre", "Spain")]
    assert out[1] == results[1]  # "1 January" begins with a digit: never completed
    with pytest.raises(ValueError):
        completed_names(results, sentences[:1])
