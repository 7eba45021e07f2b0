"""How a relation's date given by a year alone is written (pipeline/text/normalize.py,
``LiteralForms.fit_dates``): the form its training objects use, learned from the training triples."""
from __future__ import annotations

from pipeline.text.normalize import LiteralForms

REL = "publication date"


def _year_only(years: list[int], form: str) -> list[tuple[str, str, str]]:
    # (relation, object, sentence): the sentence gives the year alone
    return [(REL, form.format(Y=y), f"Album {y} is a {y} album by Band {y}.") for y in years]


def test_without_a_majority_the_form_of_the_most_distinct_years_is_written():
    # Wikidata: year precision is 01 January Y; release days no sentence gives are unique
    days = [f"{d:02d} {m} {{Y}}" for d, m in [(24, "September"), (16, "February"), (23, "October"), (21, "June"),
                                              (3, "May"), (9, "March"), (12, "July")]]
    triples = _year_only([1980, 1987, 1991], "01 January {Y}")
    triples += [t for i, day in enumerate(days) for t in _year_only([1990 + i], day)]
    forms = LiteralForms().fit_dates(triples)
    assert forms.year_forms == {REL: "01 January {Y}"}  # 3 of 10 objects, no majority
    assert forms.write_date(REL, "2010") == "01 January 2010"
    assert forms.write_date(REL, "2010-07-20") == "20 July 2010"  # full dates: their own format (dmy)


def test_one_fact_stated_in_several_sentences_is_no_form():
    # the same birthday thrice (WebNLG repeats its facts) and other days once: not learned
    triples = _year_only([1876, 1876, 1876], "{Y}-05-02") + _year_only([1901], "{Y}-04-27") + \
        _year_only([1911], "{Y}-03-08") + _year_only([1920], "{Y}-01-01") + _year_only([1931], "{Y}-02-11")
    forms = LiteralForms().fit_dates(triples)
    assert forms.year_forms == {}
    assert forms.write_date(REL, "1950") == "1950"


def test_the_year_alone_as_the_most_frequent_form_changes_nothing():
    triples = _year_only([1980, 1981, 1982], "{Y}") + _year_only([1990, 1991], "01 January {Y}") + \
        _year_only([2001], "03 May {Y}") + _year_only([2002], "09 March {Y}") + _year_only([2003], "12 July {Y}")
    forms = LiteralForms().fit_dates(triples)
    assert forms.year_forms == {}
    # with a majority the majority rule decides, as before
    assert LiteralForms().fit_dates(_year_only([1980, 1981, 1982], "01 January {Y}") +
                                    _year_only([1990], "{Y}")).year_forms == {REL: "01 January {Y}"}
