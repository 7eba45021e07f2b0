"""Language tags from data evidence first: each branch of
:func:`pipeline.mappers.offline.language.choose_language` on small hand-made CSV files, and the
offline mapper end to end on an ontology written in English whose data is not (the ontology's
language is used only when nothing in the data decides and the range requires a tag).

The values are real lingua inputs (no mock): titles and descriptions lingua is sure of, and
place names it cannot decide on their own.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.manifest import Source, load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.language import choose_language, record_language
from pipeline.sources.load import load_source

from helpers import case_manifest, kgc_map, map_lexically

#: city names lingua cannot decide alone ("Toledo" reads as Portuguese), Spanish and French descriptions.
_CITIES = ["Toledo", "Bilbao", "Cádiz"]
_ES = ["Ciudad amurallada sobre el río Tajo", "Puerto industrial con un museo famoso",
       "La ciudad más antigua de Europa occidental"]
_FR = ["Une ville fortifiée au bord du fleuve", "Un port industriel avec un musée célèbre",
       "La plus ancienne ville de l'Europe occidentale"]
_MIXED = [_ES[0], _FR[1], "The oldest city in western Europe"]


def _load(tmp_path: Path, name: str, columns: dict[str, list[str]]):
    header = list(columns)
    lines = [",".join(header)] + [",".join(f'"{columns[c][i]}"' for c in header) for i in range(3)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_source(Source(path=path, format="csv"), tmp_path)


def test_a_column_lingua_is_sure_of_gets_its_language(tmp_path):
    data = _load(tmp_path, "towns.csv", {"id": ["1", "2", "3"], "desc": _ES})
    cell, why, unsure = choose_language(data, "desc", "towns.csv", None, ["desc"])
    assert (cell, unsure) == ("es", False) and "detected by lingua" in why


def test_proper_names_take_the_language_of_the_free_text_of_the_same_records(tmp_path):
    data = _load(tmp_path, "towns.csv", {"id": ["1", "2", "3"], "city": _CITIES, "desc": _ES})
    cell, why, unsure = choose_language(data, "city", "towns.csv", None, ["city", "desc"])
    assert (cell, unsure) == ("es", False)
    assert "'desc'" in why and "the text of one record is in one language" in why


def test_free_text_columns_in_two_languages_decide_nothing(tmp_path):
    data = _load(tmp_path, "towns.csv", {"id": ["1", "2", "3"], "city": _CITIES, "desc": _ES, "note": _FR})
    assert record_language(data, ["desc", "note"])[0] is None
    cell, why, unsure = choose_language(data, "city", "towns.csv", None, ["city", "desc", "note"])
    assert (cell, unsure) == (None, True)
    assert "disagree (es: 'desc'" in why and "fr: 'note'" in why and "no language tag written" in why


def test_names_only_no_tag_and_never_the_ontology_language(tmp_path):
    data = _load(tmp_path, "towns.csv", {"id": ["1", "2", "3"], "city": _CITIES, "mayor": ["Ana Ruiz", "Luis Gómez",
                                                                                            "Eva Sanz"]})
    cell, why, unsure = choose_language(data, "city", "towns.csv", None, ["city", "mayor"])
    assert (cell, unsure) == (None, True)
    assert "no other free-text column of the same records" in why


def test_values_in_several_languages_get_no_constant_tag(tmp_path):
    data = _load(tmp_path, "towns.csv", {"id": ["1", "2", "3"], "desc": _MIXED, "other": _ES})
    cell, why, unsure = choose_language(data, "desc", "towns.csv", None, ["desc", "other"])
    # its own column says otherwise: the Spanish sibling does not decide for it
    assert (cell, unsure) == (None, True)
    assert "several languages" in why and "needs a language column" in why


def test_file_name_and_language_column_come_first(tmp_path):
    data = _load(tmp_path, "towns_fr.csv", {"id": ["1", "2", "3"], "city": _CITIES, "desc": _ES})
    assert choose_language(data, "city", "towns_fr.csv", None, ["city", "desc"])[:1] == ("fr",)
    assert choose_language(data, "city", "towns_fr.csv", ("lang", "named"), ["city"])[0] == "{lang}"


_ONTOLOGY = """@prefix ex: <http://example.org/ont#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Town a owl:Class ; rdfs:label "town"@en ; rdfs:comment "A town."@en .
ex:townName a owl:DatatypeProperty ; rdfs:domain ex:Town ; rdfs:range rdf:langString ;
    rdfs:label "town name"@en ; rdfs:comment "Name of the town."@en .
ex:description a owl:DatatypeProperty ; rdfs:domain ex:Town ; rdfs:range rdf:langString ;
    rdfs:label "description"@en ; rdfs:comment "What the town is known for."@en .
"""


@pytest.mark.parametrize("with_description,annotated,expected", [
    (True, True, "es"),     # step 4: the Spanish descriptions of the same records decide, not the English ontology
    (False, True, "en"),    # step 5: nothing in the data decides, the range requires a tag, labels are @en
    (False, False, None),   # step 6: no annotation language either: no tag
])
def test_mapper_tags_from_data_before_the_ontology(tmp_path, with_description, annotated, expected):
    cols = {"town_id": ["T1", "T2", "T3"], "town_name": _CITIES}
    if with_description:
        cols["description"] = _ES
    _load(tmp_path, "towns.csv", cols)
    ontology = _ONTOLOGY if annotated else _ONTOLOGY.replace('"@en', '"')
    (tmp_path / "ontology.ttl").write_text(ontology)
    (tmp_path / "case.yaml").write_text("name: towns\nbase_iri: http://example.org/\nsources:\n"
                                        "- path: towns.csv\n  format: csv\nontologies:\n- ontology.ttl\n")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    tags = {r.data_reference: (r.datatype, r.language_tag) for r in result.table if r.data_reference != "town_id"}
    assert tags["town_name"] == ("rdf:langString", expected)
    if with_description:
        assert tags["description"] == ("rdf:langString", "es")
    unsure = [f for f in result.provenance["findings"] if "'town_name'" in f["message"] and "unsure" in f["message"]]
    if with_description:
        assert unsure == []
    elif annotated:
        assert [f["severity"] for f in unsure] == ["warning"]
        assert "the range requires a language tag: tagged 'en'" in unsure[0]["message"]
    else:
        assert [f["severity"] for f in unsure] == ["warning"]
        assert "no language tag written" in unsure[0]["message"]


def test_language_column_gives_per_record_tag():
    _, rows = map_lexically("language-column-ignored")
    title = [r for r in rows if r.data_reference == "title"]
    assert [(r.datatype, r.language_tag) for r in title] == [("rdf:langString", "{lang_code}")]


def test_language_tag_from_column_detected_and_never_default_en(tmp_path):
    from pipeline.mappers.offline.language import choose_language, language_column
    case = case_manifest("language-tag-from-column")
    data = load_source(case.sources[0], tmp_path)
    assert language_column(data, data.references, exclude=("id",))[0] == "lang"
    cell, why, unsure = choose_language(data, "note", "notes.csv", None)
    assert (cell, unsure) == (None, True) and "no language tag" in why


def test_a_language_column_of_names_says_a_tag_needs_codes(tmp_path, capsys):
    kgc_map(tmp_path, "csv-month-name-dates")
    warning = [line for line in capsys.readouterr().err.splitlines() if "column 'Language'" in line]
    assert len(warning) == 1 and ("column 'Language' of books.csv is not mapped; its values name languages "
                                  "(English -> en, French -> fr, Spanish -> es), but a language tag is a BCP 47 "
                                  "code: add a column of the codes and put it in the Language Tag cells ({column}) "
                                  "to tag each record's text; best candidates: ") in warning[0]


def test_language_map_members_and_ranges_that_take_a_tag(tmp_path):
    """A language map is an object whose members are all language tags (JSON-LD 1.1, 4.2.4); an object with any
    other member (``name.display``), a member named as an identifier (``id``, ``no``) or a flat column is none. rdfs:Literal, rdf:langString or no range admit a
    tagged string, xsd:string and a class do not."""
    from rdflib import URIRef
    from pipeline.mappers.offline.language import language_members, takes_tagged_string
    from pipeline.ontology import load_ontology

    refs = ["id", "name.en", "name.de", "name.pt-br", "title.en", "title.display", "label"]
    assert language_members(refs, "name.de") == {"name.en": "en", "name.de": "de", "name.pt-br": "pt-br"}
    assert language_members(refs, "title.en") == {}
    assert language_members(refs, "label") == {}
    assert language_members(["a/b/@id", "a/b/en"], "a/b/en") == {}
    assert language_members(["license.id"], "license.id") == {}  # an identifier, not Indonesian
    assert language_members(["item.no", "item.en"], "item.en") == {}
    onto = tmp_path / "o.ttl"
    onto.write_text("@prefix ex: <http://e.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                    "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
                    "ex:C a rdfs:Class . ex:lit rdfs:range rdfs:Literal . ex:ls rdfs:range rdf:langString .\n"
                    "ex:none rdfs:domain ex:C . ex:str rdfs:range xsd:string . ex:obj rdfs:range ex:C .\n", encoding="utf-8")
    ont = load_ontology([onto])
    assert [takes_tagged_string(ont, URIRef("http://e.org/" + p)) for p in ("lit", "ls", "none", "str", "obj")] == \
        [True, True, True, False, False]


@pytest.mark.parametrize("range_, expected", [
    ("rdf:langString", {("label_en", "ex:label", "en"), ("label_fr", "ex:label", "fr")}),
    ("rdfs:Literal", {("label_en", "ex:label", "en"), ("label_fr", "ex:label", "fr")}),
    (None, {("label_en", "ex:label", "en"), ("label_fr", "ex:label", "fr")}),
    # an xsd:string value has no tag (RDF 1.1 Concepts 3.3): the property holds one label, not one per language
    ("xsd:string", {("label_en", "ex:label", None)}),
])
def test_columns_in_other_languages_take_the_property_one_of_them_took(tmp_path, range_, expected):
    """``label_en`` beside ``label_fr`` is one label in two languages: both take the property whose range admits
    a language-tagged string (rdf:langString, rdfs:Literal or none), each tagged by its name's code."""
    onto = ("@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . "
            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            "ex:Category a owl:Class ; rdfs:label \"category\"@en .\n"
            "ex:label a owl:DatatypeProperty ; rdfs:label \"label\"@en ; rdfs:domain ex:Category"
            + (f" ; rdfs:range {range_}" if range_ else "") + " .\n")
    result = _map_one(tmp_path, "categories.csv", "id,label_en,label_fr\nanimal,Animal,Animal\nbird,Bird,Oiseau\n"
                      "dog,Dog,Chien\n", onto)
    assert {(r.data_reference, r.ontology_property, r.language_tag) for r in result.table} == expected


def test_numbers_in_columns_named_like_languages_are_no_variants(tmp_path):
    """``it_budget`` beside ``hr_budget`` (departments; ``it`` and ``hr`` are ISO 639-1 codes too) hold numbers,
    which have no language: the property ``it_budget`` took is not given to ``hr_budget``."""
    result = _map_one(tmp_path, "departments.csv", "id,it_budget,hr_budget\nd1,1200,800\nd2,1300,950\nd3,900,700\n",
                      "ex:Department a owl:Class ; rdfs:label \"department\"@en .\n"
                      "ex:itBudget a owl:DatatypeProperty ; rdfs:label \"it budget\"@en ; rdfs:domain ex:Department .\n")
    assert {(r.data_reference, r.ontology_property, r.language_tag) for r in result.table} == \
        {("it_budget", "ex:itBudget", None)}


def _map_one(tmp_path, name: str, csv: str, terms: str):
    """The offline mapper's result (no embeddings) on one CSV file ``name`` and an ontology of ``terms``
    (Turtle with the ``ex:``, ``owl:`` and ``rdfs:`` prefixes declared)."""
    (tmp_path / name).write_text(csv, encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/ontology#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n" + terms, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: c\nsources: [{{path: {name}}}]\nontologies: [onto.ttl]\n"
                                        "prefixes: {ex: \"http://example.org/ontology#\"}\n", encoding="utf-8")
    return map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
