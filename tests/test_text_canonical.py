"""Corpus-level canonical spelling of names (pipeline/text/canonical.py)."""
from pipeline.text.canonical import canonical_spellings, specificity, spelling_key


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
