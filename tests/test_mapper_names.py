"""Offline-mapper rules for column names that do not spell the ontology's labels: abbreviations,
Spanish words and cognates, code names matched by their values' kinds.

Small hand-made ontologies and files; the mapper runs lexically (no embedding model) and every test
asserts the exact rows it must produce.
"""
from __future__ import annotations

import pytest

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.fit import range_kinds, value_kind
from pipeline.mappers.offline.names import abbreviates, abbreviation_score, own_words, words
from pipeline.ontology import load_ontology

from helpers import SHOP_ONTOLOGY, write_shop_case


@pytest.mark.parametrize("short,word,expected", [
    ("dt", "date", True), ("yr", "year", True), ("auth", "authorisation", True), ("qty", "quantity", True),
    ("nm", "name", True), ("date", "date", True),
    ("td", "date", False),   # letters out of order
    ("d", "date", False),    # one letter abbreviates nothing
    ("ate", "date", False),  # not the first letter
    ("dates", "date", False),
])
def test_abbreviates(short, word, expected):
    assert abbreviates(short, word) is expected


def test_abbreviation_score_aligns_every_word_in_order():
    assert abbreviation_score("auth dt", "authorisation date") == pytest.approx(0.85)
    assert abbreviation_score("auth dt", "authorisation") == pytest.approx(0.425)
    assert abbreviation_score("release date", "release date") == 0.0  # exact words: the token ratios judge them
    assert abbreviation_score(" ".join(words("co_nm")), "company name") == pytest.approx(0.85)


def test_value_kinds_and_range_kinds(tmp_path):
    assert [value_kind(v) for v in (["1984", "2001"], ["12", "7"], ["1.5", "2"], ["02-11-2009"], ["20150219"],
                                    ["20151319"], ["Lyon"], ["20:00", "8:05"], [""])]\
        == ["year", "integer", "decimal", "date", "date", "integer", "text", "time", None]
    (tmp_path / "o.ttl").write_text(SHOP_ONTOLOGY)
    ont = load_ontology([tmp_path / "o.ttl"])
    ex = "http://example.org/ont#"
    from rdflib import URIRef
    assert range_kinds(ont, URIRef(ex + "packPrice")) == {"decimal", "integer", "year"}
    assert range_kinds(ont, URIRef(ex + "tradeName")) == {"text", "time"}  # a clock time is text to a text range


def test_abbreviations_elimination_language_column_and_no_copy_of_a_described_class(tmp_path):
    case = load_manifest(write_shop_case(tmp_path))
    rows = list(map_case(get_mapper("offline"), case, use_embeddings=False).table)
    got = {(r.source_file, r.data_reference, r.ontology_property, r.entity_class, r.subject_template,
            r.datatype or "", r.language_tag or "") for r in rows if not r.related_entity_class}
    product, maker = "http://example.org/product/{prod_ref}", "http://example.org/maker/{mkr_ref}"
    assert got == {
        # the record key goes to the only identifier property of the class
        ("products.csv", "prod_ref", "ex:productCode", "ex:Product", product, "xsd:string", ""),
        # abbreviated words: rel_dt spells "release date"
        ("products.csv", "rel_dt", "ex:releaseDate", "ex:Product", product, "xsd:date", ""),
        # by value kind: decimals -> the decimal property, then whole numbers -> the integer one
        ("products.csv", "pvp", "ex:packPrice", "ex:Product", product, "xsd:decimal", ""),
        ("products.csv", "qty", "ex:packSize", "ex:Product", product, "xsd:integer", ""),
        # the only text property; its language per record from the language column
        ("products.csv", "brand", "ex:tradeName", "ex:Product", product, "rdf:langString", "{lang}"),
        ("makers.csv", "mkr_ref", "ex:makerCode", "ex:Maker", maker, "xsd:string", ""),
        ("makers.csv", "co_nm", "ex:companyName", "ex:Maker", maker, "xsd:string", ""),
    }
    # the language column is no property value; motto matches nothing and mints no Product copy
    assert not [r for r in rows if r.data_reference in ("lang", "motto")]
    rel = [(r.data_reference, r.ontology_property, r.join_condition) for r in rows if r.related_entity_class]
    assert rel == [("maker_ref", "ex:madeBy", "products.maker_ref==makers.mkr_ref")]


@pytest.mark.parametrize("name,expected", [
    ("fecha_publicacion", ["date", "publication"]),   # glossary word + -cion cognate
    ("año_publicación", ["year", "publication"]),      # accents dropped first
    ("fecha_de_alta", ["date", "alta"]),              # "de" between words is no content
    ("title_de", ["title", "de"]),                    # a last "de" may be a language code
    ("licencia", ["licence"]), ("accesibilidad", ["accesibility"]),
])
def test_spanish_words_and_cognates(name, expected):
    assert words(name) == expected


@pytest.mark.parametrize("name,expected", [
    ("orgs", ["organisation"]), ("depts", ["department"]),    # an abbreviation's plural is the abbreviation
    ("org_name", ["organisation", "name"]),
    ("status", ["status"]), ("nos", ["nos"]),                # no plural of an abbreviation (_singular keeps them)
])
def test_plural_of_an_abbreviation_is_expanded(name, expected):
    assert words(name) == expected
    assert own_words("org_name", "orgs") == "name"


def test_code_names_are_matched_by_values_only_and_never_guessed(tmp_path):
    """Code column names (``F1``) carry no name evidence: the key goes to the identifier property,
    the date/decimal/integer columns to the only properties their kinds fit; the two text columns
    compete for two text properties and, without value evidence (lexical mode), stay unmapped."""
    (tmp_path / "ontology.ttl").write_text(SHOP_ONTOLOGY)
    (tmp_path / "products.csv").write_text(
        "F1,Q2,H3,J4,G5,X6\nP01,02-11-2009,113,78.49,Alpha,Beta\nP02,18-04-2002,615,69.73,Gamma,Delta\n")
    (tmp_path / "case.yaml").write_text("name: codes\nbase_iri: http://example.org/\nsources:\n- path: products.csv\n"
                                        "  format: csv\nontologies:\n- ontology.ttl\n")
    (tmp_path / "o2.ttl").write_text("")
    text = SHOP_ONTOLOGY + ('ex:note a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:string ; '
                            'rdfs:label "note"@en .\n')
    (tmp_path / "ontology.ttl").write_text(text)
    rows = list(map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table)
    assert {(r.data_reference, r.ontology_property) for r in rows} == {
        ("F1", "ex:productCode"), ("Q2", "ex:releaseDate"), ("H3", "ex:packSize"), ("J4", "ex:packPrice")}
    assert {r.entity_class for r in rows} == {"ex:Product"}  # the file name decides the class


def test_kind_fit_of_coded_columns_to_a_class(tmp_path):
    from rdflib import URIRef

    from pipeline.mappers.offline.classes import _kind_fit

    (tmp_path / "o.ttl").write_text(SHOP_ONTOLOGY)
    ont = load_ontology([tmp_path / "o.ttl"])
    ex = "http://example.org/ont#"
    product = [URIRef(ex + p) for p in ("productCode", "tradeName", "releaseDate", "packSize", "packPrice")]
    maker = [URIRef(ex + p) for p in ("makerCode", "companyName")]
    kinds = ["text", "text", "date", "integer", "decimal"]
    assert _kind_fit(ont, product, kinds) == 1.0
    assert _kind_fit(ont, maker, kinds) == pytest.approx(2 / 5)
