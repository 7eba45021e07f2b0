"""Disambiguated DBpedia names learned from training names (pipeline/text/names.py) and the
extractor's choice between a plain name and its variant (learned rate per kind of variant)."""
from __future__ import annotations

from pipeline.text.canonical import written_disambiguations
from pipeline.text.features import count_variants, variant_rates, variant_values
from pipeline.text.mentions import Lexicon, Mention, find_mentions, tokens
from pipeline.text.names import Disambiguator

NAMES = ["Asterix_(comicsCharacter)", "Airman_(comicsCharacter)", "Alan_Martin_(footballer)",
         "Albany,_Georgia", "Athens,_Georgia", "1.8_(metres)", "Texas"]


def _variants(sentence: str, lex: Lexicon) -> list[tuple[str, str]]:
    # the disambiguations only (article and name-tail variants: tests/test_text_dev.py)
    return [(m.value, m.shape) for m in find_mentions(sentence, lex) if m.shape.startswith("DIS")
            and m.shape not in ("DISTHE", "DISTHE0", "DISthe", "DISA", "DISA0", "DISLOW")]


def test_learns_suffixes_heads_and_regions_from_training_names():
    d = Disambiguator(NAMES)
    assert d.suffixes == {("comic", "charact"): "comicsCharacter", ("footbal",): "footballer"}
    assert d.heads == {"charact", "footbal"}  # "(metres)" is a unit of a value, not a type
    assert d.regions == {"georgia": "Georgia"}


def test_variants_of_a_mention():
    lex = Lexicon(NAMES)
    # a head word right before the name; a known suffix's words elsewhere in the sentence (any name)
    assert _variants("The footballer Tom Hill plays for Leeds.", lex) == [("Tom Hill (footballer)", "DIS"),
                                                                          ("Leeds (footballer)", "DISANY")]
    # a known suffix spelled from the head and the word before it
    assert _variants("The comic character Auron was created by Karl Kesel.", lex) == [
        ("Auron (character)", "DIS"), ("Auron (comicsCharacter)", "DIS"),
        ("Karl Kesel (comicsCharacter)", "DISANY")]
    # a head never seen in a training name: only a lower-case noun after an article or a modifier
    assert _variants("The Train song Mermaid is pop.", lex) == [("Mermaid (Train song)", "DISNEW"),
                                                                ("Mermaid (song)", "DISNEW")]
    assert _variants("Dillin created Aurakles.", lex) == []
    assert _variants("Auburn is part of Lee County in Georgia.", lex) == [
        ("Auburn, Georgia", "DISREG"), ("Lee County, Georgia", "DISREG")]


def test_variant_written_only_where_training_used_it_mostly():
    ms = find_mentions("The footballer Tom Hill plays for Leeds.", Lexicon(NAMES))
    counts: dict[str, list[int]] = {}
    count_variants(ms, {"tomhill(footballer)", "leeds"}, set(), "tomhill(footballer)", counts)
    count_variants(ms, {"tomhill", "leeds"}, {"tomhill"}, "tomhill", counts)
    count_variants(ms, {"tomhill(footballer)", "leeds"}, set(), "leeds", counts)
    # DISANY "Leeds (footballer)" counts where Leeds is the topic (most frequent subject) only
    assert counts == {"DIS:footballer": [2, 1], "DISANY:footballer": [0, 1]}
    rate = {d: hit / (hit + miss) for d, (hit, miss) in counts.items()}
    span = next((m.start, m.end) for m in ms if m.value == "Tom Hill")
    leeds = next((m.start, m.end) for m in ms if m.value == "Leeds")
    assert variant_values(ms, rate) == {span: "Tom Hill (footballer)"}
    assert variant_values(ms, {"DIS:footballer": 0.5}) == {}
    assert variant_values(ms, {"DISANY:footballer": 0.6}) == {}
    assert variant_values(ms, {"DISANY:footballer": 0.6}, topic=leeds) == {leeds: "Leeds (footballer)"}
    assert isinstance(ms[0], Mention) and tokens("a b")[1] == (2, 3, "b")


def test_variant_rate_shrinks_towards_its_shape():
    # DIS pooled: 2 + 1 hits of 2 + 1 + 3 + 4 spans = 0.3; DISLOW pooled: 1 of 2
    counts = {"DIS:comicscharacter": [2, 0], "DIS:album": [1, 3], "DIS:company": [0, 4], "DISLOW:war": [1, 1]}
    rate = variant_rates(counts)
    assert rate["DIS:comicscharacter"] == (2 + 2 * 0.3) / 4  # 0.65: two spans, both hits: written
    assert rate["DIS:album"] == (1 + 2 * 0.3) / 6
    assert rate["DIS:company"] == (0 + 2 * 0.3) / 6
    assert rate["DISLOW:war"] == 0.5
    assert variant_rates(counts, prior_weight=0.0)["DIS:album"] == 0.25  # no smoothing: the raw rate


def test_fold_lexicons_share_the_suffixes_of_the_whole_split():
    from pipeline.text.data import Sentence
    sents = [Sentence("a", "The comic character Asterix was created by Albert Uderzo.",
                      [{"sub": "Asterix_(comicsCharacter)", "rel": "creator", "obj": "Albert_Uderzo"}]),
             Sentence("b", "Bananaman was broadcast by the BBC.",
                      [{"sub": "Bananaman", "rel": "broadcastedBy", "obj": "BBC"}])]
    assert [s.fold for s in sents] == [0, 1]
    full, folds = Lexicon.cross_fitted(sents)
    # fold 0's sentence sees the names of fold 1 only, but the suffix of its own topic: the rate
    # of "comic character X" -> "X (comicsCharacter)" is measured on the topic that carries it
    assert folds[0].canonical("Asterix") is None and folds[1].canonical("Asterix") == "Asterix (comicsCharacter)"
    assert folds[0].disambiguator is full.disambiguator
    assert ("Asterix (comicsCharacter)", "DIS") in _variants(sents[0].text, folds[0])


def test_disambiguation_written_out_after_the_name():
    def _par(sentence, lex):
        return [v for v in _variants(sentence, lex) if v[1].startswith("DISPAR")]

    lex = Lexicon(NAMES)
    assert _par("He met Stuart Parker (footballer) at Bury.", lex) == [("Stuart Parker (footballer)", "DISPAREN")]
    assert _par("Abradab is associated with Magik (rapper).", lex) == [("Magik (rapper)", "DISPAREN")]
    assert _par("It is in Athens (Greece).", lex) == [("Athens (Greece)", "DISPARCAP")]
    assert _par("Alan B Miller Hall (located in Virginia) is owned by it.", lex) == []  # a clause
    assert _par("Nurhan Atasoy (born in Resadiye) is a scientist.", lex) == []
    assert _par("Ciudad Ayala (a city) is in Mexico.", lex) == []
    # the known spelling of a suffix: "(comics character)" -> "(comicsCharacter)"
    assert _par("He drew Blockbuster (comics character).", lex) == [("Blockbuster (comicsCharacter)", "DISPAREN")]
    ms = [m for m in find_mentions("He met Stuart Parker (footballer) at Bury.", lex) if m.shape != "DISANY"]
    assert variant_values(ms, variant_rates({"DISPAREN:": [7, 2]})) == {(7, 20): "Stuart Parker (footballer)"}


def test_a_name_written_out_in_one_sentence_is_that_name_in_the_others():
    lex = Lexicon(NAMES)
    sents = ["The manager of Blackpool is Stuart Parker (footballer).", "Stuart Parker plays for Bury FC.",
             "Magik (rapper) and Magik (band) are two.", "Magik sang."]
    results = [[{"sub": "Blackpool", "rel": "manager", "obj": "Stuart Parker"}],
               [{"sub": "Stuart Parker", "rel": "club", "obj": "Bury FC"}], [],
               [{"sub": "Magik", "rel": "genre", "obj": "Rap"}]]
    mentions = [find_mentions(t, lex) for t in sents]
    out = written_disambiguations(results, mentions, {"DISPAREN:": 0.7})
    assert out == [[{"sub": "Blackpool", "rel": "manager", "obj": "Stuart Parker (footballer)"}],
                   [{"sub": "Stuart Parker (footballer)", "rel": "club", "obj": "Bury FC"}], [],
                   [{"sub": "Magik", "rel": "genre", "obj": "Rap"}]]  # two disambiguations: plain
    assert written_disambiguations(results, mentions, {"DISPAREN:": 0.4}) == results  # rate too low
    assert results[1][0]["sub"] == "Stuart Parker"  # the input is not changed


def test_entity_classes_learned_from_training_triples():
    from pipeline.text.data import Relation, Sentence, TextOntology
    from pipeline.text.entity_types import TypeGuesser

    onto = TextOntology("ont_t", ["Airport", "City", "Country"],
                        {"cityServed": Relation("cityServed", "Airport", "City"),
                         "country": Relation("country", "City", "Country"),
                         "elevation": Relation("elevation", "Airport", "number")})
    sents = [Sentence(f"s{i}", "", [{"sub": f"{n}_Airport", "rel": "cityServed", "obj": n},
                                    {"sub": f"{n}_Airport", "rel": "elevation", "obj": "5"},
                                    {"sub": n, "rel": "country", "obj": "United_States"}])
             for i, n in enumerate(["Abilene", "Albany", "Amarillo"])]
    g = TypeGuesser().fit([(onto, s) for s in sents])
    assert g.classes("United States") == {"Country": 1.0}
    assert g.top("Adirondack Regional Airport") == "Airport"  # unseen name: its last word's class
    assert g.classes("Abilene") == {}  # 2 typed occurrences (City), fewer than 3: unknown
    assert g.excludes("United States", "City", onto) and not g.excludes("United States", "Country", onto)
    assert not g.excludes("Zzyzx", "City", onto)


def test_accent_free_spelling_and_ordinal_names():
    from pipeline.text.mentions import fold_accents
    assert fold_accents("Agremiação Estádio Bjørklund") == "Agremiacao Estadio Bjorklund"
    lex = Lexicon(["Estádio_Municipal_Coaracy_da_Mata_Fonseca"])
    ms = find_mentions("Its ground is the Estadio Municipal Coaracy da Mata Fonseca.", lex)
    assert [m.value for m in ms if m.shape == "LEX"] == ["Estádio Municipal Coaracy da Mata Fonseca"]
    assert find_mentions("The 14th New Jersey Volunteer Infantry Monument is old.")[0].value == \
        "14th New Jersey Volunteer Infantry Monument"
