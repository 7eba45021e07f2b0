"""Candidate mentions the sentence spells otherwise than the gold name (issue 14, the
``no_mention`` class): run boundaries, literal values and learned surface variants."""
from __future__ import annotations

from pipeline.text.mentions import Lexicon, find_mentions, fronted_phrases


def _names(sentence: str, lex: Lexicon | None = None) -> list[str]:
    return [m.value for m in find_mentions(sentence, lex) if m.shape in ("CAP", "LEX")]


def test_run_boundaries_joiners_possessives_abbreviations():
    # two joiners in a row: the part after them is a name of its own
    assert "United States" in _names("Abilene is part of Texas in the United States.")
    # a possessive may end a name; the longer run stays a candidate too
    names = _names("James Craig Watson's Alma mater is the University of Michigan.")
    assert "James Craig Watson" in names and "James Craig Watson's Alma" in names
    # an abbreviation's period before a new sentence: both sides, and a clause word ends the run
    names = _names("Ann Arbor is in the U.S. Lansing is the capital of Michigan.")
    assert {"U.S.", "Lansing", "U.S. Lansing"} <= set(names)
    assert _names("The full name is Livorno Calcio S.p.A. Their ground is big.") == ["Livorno Calcio S.p.A."]
    # an all-capitals word is an acronym, not the clause word "as"
    assert _names("The AS Livorno Calcio has members.") == ["AS Livorno Calcio"]
    # a sentence-final number's period is no abbreviation
    assert "Apollo 8" in _names("He served under Frank Borman on Apollo 8.")


def _values(sentence: str, shape: str) -> list[str]:
    return [m.value for m in find_mentions(sentence) if m.shape == shape]


def test_literal_mentions_years_of_dates_codes_and_day_first_dates():
    # a date also gives its year (a Year-range relation: birthYear)
    assert _values("He was born on 22 September 1856.", "YEAR") == ["1856"]
    assert _values("He was born on 22 September 1856.", "DATE") == ["1856-09-22"]
    # dd-mm-yyyy with both readings, like d/m/yyyy
    assert _values("It was founded on 03-01-1959.", "DATE") == ["1959-01-03", "1959-03-01"]
    # an ISBN is one value, a runway code one name
    assert _values("Its ISBN is 0-670-03380-4.", "CODE") == ["0-670-03380-4"]
    assert "14L/32R" in _values("It has a runway named 14L/32R.", "CAP")


def test_letters_without_combining_accents_are_folded():
    from pipeline.text.mentions import fold_accents
    assert fold_accents("Lars Løkke Æthelwald Straße") == "Lars Lokke AEthelwald Strasse"
    lex = Lexicon(["Lars_Løkke_Rasmussen"])
    assert "Lars Løkke Rasmussen" in _names("Denmark's leader is Lars Lokke Rasmussen.", lex)


def test_literal_forms_learned_from_training_objects():
    from pipeline.text.data import Relation, TextOntology
    from pipeline.text.normalize import LiteralForms
    triples = [("periapsis", "Periapsis", "3997100000000.0"), ("periapsis", "Periapsis", "260855000000.0"),
               ("periapsis", "Periapsis", "419113394.55312 (kilometres)"),
               ("protein", "number", "1.8 g"), ("protein", "number", "18.0 g"),
               ("epoch", "number", "2015-06-27"), ("epoch", "number", "2006-12-31"), ("epoch", "number", "5.3"),
               ("runwayLength", "number", "3500.0"), ("runwayLength", "number", "4,100.0"),
               ("birthYear", "Year", "1856"), ("birthYear", "Year", "1941")]
    forms = LiteralForms().fit(triples)
    # a class range with number values, a unit the number rule keeps, dates in a number range;
    # a number range whose values the number rule already gives, and a Year range, are left alone
    assert forms.ranges == {"periapsis": "number", "protein": "number", "epoch": "Date"}
    assert forms.forms == {"periapsis": (True, ""), "protein": (True, " g")}
    assert forms.write("periapsis", "3997100000000") == "3997100000000.0"
    assert forms.write("protein", "18") == "18.0 g" and forms.write("protein", "1.8") == "1.8 g"
    assert forms.write("runwayLength", "3500") == "3500"
    onto = TextOntology("t", ["Body", "Periapsis"], {"periapsis": Relation("periapsis", "Body", "Periapsis")})
    assert forms.relation(onto.relations["periapsis"]).range == "number"
    out = forms.restore([{"sub": "X", "rel": "periapsis", "obj": "12", "subType": "Body", "objType": "number"}], onto)
    assert out == [{"sub": "X", "rel": "periapsis", "obj": "12.0", "subType": "Body", "objType": "Periapsis"}]


def test_a_relation_without_a_range_takes_the_type_its_training_objects_give():
    from pipeline.text.data import Relation, TextOntology
    from pipeline.text.normalize import LiteralForms
    forms = LiteralForms().fit([("staff", "", "2900"), ("staff", "", "737"), ("staff", "", "1,500")])
    assert forms.ranges == {"staff": "number"}
    onto = TextOntology("t", ["University"], {"staff": Relation("staff", "University", "")})
    out = forms.restore([{"sub": "X", "rel": "staff", "obj": "2900", "subType": "University", "objType": "number"}],
                        onto)
    # 2900 alone reads as a year; the relation's training objects are staff sizes
    assert out[0]["objType"] == "number"


def test_literal_form_unit_follows_the_sentence():
    from pipeline.text.normalize import LiteralForms
    forms = LiteralForms().fit([("wheelbase", "Wheelbase", "2,700.0 (millimetres)"),
                                ("wheelbase", "Wheelbase", "2800.0 (millimetres)"), ("wheelbase", "Wheelbase", "2900.0 (millimetres)"),
                                ("wheelbase", "Wheelbase", "120.0 (inches)"), ("wheelbase", "Wheelbase", "100.0 (inches)")])
    assert forms.write("wheelbase", "120", "inch") == "120.0 (inches)"
    assert forms.write("wheelbase", "2700", "mm") == "2700.0 (millimetres)"
    assert forms.write("wheelbase", "2700", "in") == "2700.0 (millimetres)"  # "in" is no unit


def test_regnal_names_alias_and_realm_variant():
    lex = Lexicon(["Felipe_VI_of_Spain", "Margrethe_II_of_Denmark", "Spain"])
    assert lex.disambiguator.realms == {"spain": "Spain", "denmark": "Denmark"}
    ms = find_mentions("The leader of Spain is Felipe VI.", lex)
    assert ("Felipe VI", "Felipe VI of Spain", "LEX") in [(m.text, m.value, m.shape) for m in ms]
    ms = find_mentions("He served while Juan Carlos I was the monarch of Spain.", lex)
    assert ("Juan Carlos I", "Juan Carlos I of Spain", "DISOF") in [(m.text, m.value, m.shape) for m in ms]
    # no realm in the sentence, no variant
    assert not [m for m in find_mentions("Juan Carlos I was born in Rome.", lex) if m.shape == "DISOF"]


def test_subtitles_lower_case_tails_and_comma_less_regions():
    names = _names("They released Bootleg Series Volume 1: The Quine Tapes in 2001.")
    assert {"Bootleg Series Volume 1: The Quine Tapes", "Bootleg Series Volume 1", "Quine Tapes"} <= set(names)
    # a capitalised name tail written in lower case; a known name takes its own spelling
    lex = Lexicon(["Adolfo_Suárez_Madrid–Barajas_Airport", "Abilene_Regional_Airport", "Atlantic_City_International_Airport",
                   "Washington,_D.C."])
    ms = [(m.text, m.value, m.shape) for m in find_mentions("The Adolfo Suarez Madrid-Barajas airport is big.", lex)]
    assert ("Adolfo Suarez Madrid-Barajas", "Adolfo Suárez Madrid–Barajas Airport", "DISLOW") in ms
    assert ("Washington D.C.", "Washington, D.C.", "LEX") in [
        (m.text, m.value, m.shape) for m in find_mentions("He comes from Washington D.C. and lives there.", lex)]


def test_lower_case_phrase_with_a_disambiguation_head():
    lex = Lexicon(["Fantasy_(genre)", "Mermaid_(song)"])
    ms = [(m.text, m.value, m.shape) for m in find_mentions("It belongs to the horror genre.", lex)]
    assert ("horror genre", "horror (genre)", "DISPOST") in ms


def test_known_spelling_wins_and_learned_aliases_never_replace_a_known_name():
    lex = Lexicon(["Ahmet_Davutoğlu", "Turkey"])
    # a known name spelled without its accents takes the known spelling, on its own span
    assert [(m.text, m.value, m.shape) for m in find_mentions("The leader is Ahmet Davutoglu.", lex)
            if m.shape in ("CAP", "LEX")] == [("Ahmet Davutoglu", "Ahmet Davutoğlu", "LEX")]
    # "Colombia" co-occurs with "Colombian cuisine" in every sentence, but is a name of its own
    examples = [(f"Dish {i} is from Colombia.", [f"Dish_{i}", "Colombian_cuisine"]) for i in range(4)]
    examples.append(("Bogota is the capital of Colombia.", ["Bogota", "Colombia"]))
    assert Lexicon.learn(examples).canonical("Colombia") == "Colombia"


def test_codes_possessive_plurals_and_ampersands():
    from pipeline.text.normalize import LiteralForms
    # an ISBN in a number range is taken as written (a string mention), a date in it is a date
    forms = LiteralForms().fit([("isbnNumber", "number", '"0-670-03380-4"'), ("isbnNumber", "number", "1-4165-2060-0"),
                                ("epoch", "number", "2015-06-27"), ("epoch", "number", "2006-12-31")])
    assert forms.ranges == {"isbnNumber": "string", "epoch": "Date"}
    assert "Spanish Socialist Workers' Party" in _names("He is a member of the Spanish Socialist Workers' Party.")
    assert "Apollo 8" in _names("He was a member of Apollo 8's crew.")
    lex = Lexicon(["George_Allen_&_Unwin"])
    assert ("George Allen and Unwin", "George Allen & Unwin") in [
        (m.text, m.value) for m in find_mentions("George Allen and Unwin published it.", lex)]


def test_ampersand_and_and_join_one_name():
    # "&" joins one name: its sides are no candidates of their own
    assert _names("It was published by George Allen & Unwin.") == ["George Allen & Unwin"]
    # two capitalised names joined by "and" are one candidate too (shape CAPCOMMA), the parts stay
    ms = [(m.value, m.shape) for m in find_mentions("He was born in Point Fortin, Trinidad and Tobago.")]
    assert ("Trinidad and Tobago", "CAPCOMMA") in ms and ("Trinidad", "CAP") in ms and ("Tobago", "CAP") in ms
    assert [v for v, s in ms if s == "CAPCOMMA"] == ["Point Fortin, Trinidad", "Trinidad and Tobago"]
    # lower-case words between the names: no compound
    assert all(s != "CAPCOMMA" for _, s in (
        (m.value, m.shape) for m in find_mentions("Rome and the city of Paris are big.")))


def test_capitalised_name_going_on_in_lower_case():
    # the run with the lower-case words after it, up to a function word: one more candidate
    ms = [(m.value, m.shape) for m in find_mentions("Barny cakes can be found in France.")]
    assert ("Barny cakes", "CAPCOMMA") in ms and ("Barny", "CAP") in ms
    ms = [(m.value, m.shape) for m in find_mentions("Arros negre is a dish from Spain.")]
    assert [v for v, s in ms if s == "CAPCOMMA"] == ["Arros negre"]
    # at most two lower-case words, and the phrase must end there
    ms = find_mentions("Rome hosts great ancient ruins.")
    assert all(m.shape != "CAPCOMMA" for m in ms)
    # a lower-case word before a name or a number is a verb: "Turin welcomes Gamma University"
    assert all(m.shape != "CAPCOMMA" for m in find_mentions("Turin welcomes Gamma University."))
    assert all(m.shape != "CAPCOMMA" for m in find_mentions("Barny cakes contain 1.8g of protein."))


def test_parts_of_a_known_name_only_when_known():
    lex = Lexicon(["Acharya_Institute_of_Technology", "University_of_Texas", "Texas"])
    names = _names("The Acharya Institute of Technology is in Bangalore.", lex)
    assert "Acharya Institute of Technology" in names and "Technology" not in names
    # a part that is a known name stays ("Texas"), an unknown run keeps all its parts
    assert {"University of Texas", "Texas"} <= set(_names("He studied at the University of Texas.", lex))
    assert "Technology" in _names("The Madras Institute of Technology is in Chennai.", lex)


def test_a_fronted_phrase_ends_at_its_comma_and_joins_no_name_to_the_subject():
    born = "Born in Canada, Aaron Boogaard is 1.905 metres tall."
    assert fronted_phrases(born) == [(0, born.index(","))]
    ms = [(m.value, m.shape) for m in find_mentions(born)]
    assert ("Canada", "CAP") in ms and ("Aaron Boogaard", "CAP") in ms
    assert all(s != "CAPCOMMA" for _, s in ms)  # not "Canada, Aaron Boogaard"
    # a participle before a preposition opens one too; a date's comma is not its end
    s = "Born on October 17th, 1933 in British Hong Kong, William Anders was a pilot."
    assert fronted_phrases(s) == [(0, s.index(", William"))]
    assert [m.value for m in find_mentions(s) if m.shape == "CAPCOMMA"] == []
    # a Name, Region right after the comma belongs to the phrase: it ends at the second comma
    s = "Born in Auburn, Alabama, John Smith plays for Bury."
    assert fronted_phrases(s) == [(0, s.index(", John"))]
    commas = [m.value for m in find_mentions(s) if m.shape == "CAPCOMMA" and "," in m.value]
    assert commas == ["Auburn, Alabama"]  # not "Alabama, John Smith"
    # names in a row: the last opens the main clause; a clause after the second comma ends no chain
    s = "Located in Nice, Paris, Lyon, Eta University was established in 1950."
    assert fronted_phrases(s) == [(0, s.index(", Eta"))]
    assert "Lyon, Eta University" not in [m.value for m in find_mentions(s)]
    s = "In 2001, Delta University, located in Lyon, was established."
    assert fronted_phrases(s) == [(0, s.index(", Delta"))]
    assert fronted_phrases("Born in Canada, Aaron Boogaard, who played for Bury, is tall.") == [(0, 14)]
    assert fronted_phrases("Born in Canada,") == [(0, 14)] and fronted_phrases("Born in Canada") == []
    # each sentence of a text; not a name that ends like a participle, not a sentence's subject
    s = "Abilene is in Texas. In 2001, Abilene had 100 people."
    assert fronted_phrases(s) == [(s.index("In 2001"), s.index(", Abilene"))]
    assert fronted_phrases("Beijing is the capital, and it is big.") == []
    assert fronted_phrases("Reading FC, a club, plays in Reading.") == []
    assert fronted_phrases("Albuquerque, N.M. has an area of 490.9 square kilometres.") == []


def test_the_subject_before_an_opening_copula_is_one_candidate():
    from pipeline.text.mentions import copular_subject

    def head(sentence: str, lex: Lexicon | None = None) -> list[tuple[str, str]]:
        return [(m.value, m.shape) for m in find_mentions(sentence, lex) if m.shape in ("CAPHEAD", "DISTHE0", "DISA0")]
    # a title with the lower-case words of English title case: no capitalised run covers it
    assert head("Got to Be There is the debut solo studio album by Michael Jackson.") == [
        ("Got to Be There", "CAPHEAD")]
    assert head("Step into Liquid (2003) is a documentary about surfing.") == [("Step into Liquid", "CAPHEAD")]
    # tokenized contractions and subtitle colons stay inside it
    assert head("Do n't Waste Your Time is the second single.") == [("Do n't Waste Your Time", "CAPHEAD")]
    # an opening article: the name after it, and the name with it as a variant
    assert sorted(head("The Old Lady and the Pigeons is a 1997 animated short film.")) == [
        ("Old Lady and the Pigeons", "CAPHEAD"), ("The Old Lady and the Pigeons", "DISTHE0")]
    assert sorted(head("A Matter of Some Gravity is a 1996 comic.")) == [
        ("A Matter of Some Gravity", "DISA0"), ("Matter of Some Gravity", "CAPHEAD")]
    # a span a capitalised run already gives is not given twice
    assert head("Windows CE is an operating system.") == []
    assert copular_subject("Windows CE is an operating system.")[:2] == (0, len("Windows CE"))
    # no name: a description, a pronoun, a fronted phrase, a clause, a comma, no copula, too long
    for sentence in ("The film was directed by John Ford.", "It was released in 1999.",
                     "In 1990 Smith was elected mayor.", "Although Smith was ill, he went.",
                     "Pavel Babaylov became a member of the Communist Party in 1944 and was wounded.",
                     "Released in 1999, Abc Def was a hit.", "Mickey Mouse appears in Fantasia.",
                     "One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Thirteen is long."):
        assert copular_subject(sentence) is None, sentence


def test_a_learned_name_tail_goes_on_over_a_possessive_modifier():
    lex = Lexicon(["Italy_national_volleyball_team", "Jamaica_national_football_team", "Peru_national_rugby_team"])
    assert lex.tails == {"team"}
    ms = [(m.text, m.value, m.shape) for m in find_mentions(
        "He played for the Jamaica women's national volleyball team in 2001.", lex)]
    assert ("Jamaica", "Jamaica women's national volleyball team", "DISLOW") in ms
