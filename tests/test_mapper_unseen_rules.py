"""Offline-mapper rules for column names that do not spell the ontology's labels (issue 10, unseen data).

Small hand-made ontologies and files; the mapper runs lexically (no embedding model) and every test
asserts the exact rows it must produce.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.fit import range_kinds, value_kind
from pipeline.mappers.offline.names import abbreviates, abbreviation_score, words
from pipeline.ontology import load_ontology

_ONTOLOGY = """@prefix ex: <http://example.org/ont#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Product a owl:Class ; rdfs:label "product"@en ; owl:hasKey ( ex:productCode ) .
ex:Maker a owl:Class ; rdfs:label "maker"@en ; owl:hasKey ( ex:makerCode ) .
ex:productCode a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:string ;
    rdfs:label "product code"@en .
ex:tradeName a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range rdf:langString ;
    rdfs:label "trade name"@en .
ex:releaseDate a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:date ;
    rdfs:label "release date"@en .
ex:packSize a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:integer ;
    rdfs:label "pack size"@en .
ex:packPrice a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:decimal ;
    rdfs:label "pack price"@en .
ex:makerCode a owl:DatatypeProperty ; rdfs:domain ex:Maker ; rdfs:range xsd:string ;
    rdfs:label "maker code"@en .
ex:companyName a owl:DatatypeProperty ; rdfs:domain ex:Maker ; rdfs:range xsd:string ;
    rdfs:label "company name"@en .
ex:madeBy a owl:ObjectProperty ; rdfs:domain ex:Product ; rdfs:range ex:Maker ; rdfs:label "made by"@en .
"""

_PRODUCTS = """prod_ref,brand,lang,rel_dt,qty,pvp,maker_ref
P01,Der Wind,de,02-11-2009,113,78.49,M1
P02,El viento,es,18-04-2002,615,69.73,M2
P03,The wind,en,12-07-2018,848,183.65,M1
"""
_MAKERS = "mkr_ref,co_nm,motto\nM1,Costa Works,Quality first\nM2,Brandt Group,Made to last\n"


def _write_case(tmp_path: Path) -> Path:
    (tmp_path / "ontology.ttl").write_text(_ONTOLOGY)
    (tmp_path / "products.csv").write_text(_PRODUCTS)
    (tmp_path / "makers.csv").write_text(_MAKERS)
    (tmp_path / "case.yaml").write_text(
        "name: shop\nbase_iri: http://example.org/\nsources:\n- path: products.csv\n  format: csv\n"
        "- path: makers.csv\n  format: csv\nontologies:\n- ontology.ttl\n")
    return tmp_path / "case.yaml"


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
                                    ["20151319"], ["Lyon"], ["20:00", "8:05"], [""])] \
        == ["year", "integer", "decimal", "date", "date", "integer", "text", "time", None]
    (tmp_path / "o.ttl").write_text(_ONTOLOGY)
    ont = load_ontology([tmp_path / "o.ttl"])
    ex = "http://example.org/ont#"
    from rdflib import URIRef
    assert range_kinds(ont, URIRef(ex + "packPrice")) == {"decimal", "integer", "year"}
    assert range_kinds(ont, URIRef(ex + "tradeName")) == {"text", "time"}  # a clock time is text to a text range


def test_abbreviations_elimination_language_column_and_no_copy_of_a_described_class(tmp_path):
    case = load_manifest(_write_case(tmp_path))
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


def test_link_file_row_uses_the_triples_map_of_the_joined_source(tmp_path):
    """Two TriplesMaps of ex:Product (products.csv keyed by prod_ref, and a stray one in makers.csv
    keyed by motto): the link-file row joins products.prod_ref, so its subjects come from products."""
    from rdflib import Graph, URIRef

    from pipeline.compile import compile_table
    from pipeline.materialize.materializer import materialize
    from pipeline.materialize.rml.normalize import normalize_rml
    from pipeline.sources.load import load_source
    from pipeline.table import read_table

    case = load_manifest(_write_case(tmp_path))
    (tmp_path / "products_makers.csv").write_text("product,maker\nP01,M1\nP02,M2\nP03,M2\n")
    (tmp_path / "case.yaml").write_text((tmp_path / "case.yaml").read_text().replace(
        "ontologies:", "- path: products_makers.csv\n  format: csv\nontologies:"))
    case = load_manifest(tmp_path / "case.yaml")
    head = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
            "Subject Generation | Join Condition |\n|---|---|---|---|---|---|---|\n")
    (tmp_path / "t.md").write_text(head + (
        "| motto | makers.csv | ex:tradeName | ex:Product |  | http://example.org/product/{motto} |  |\n"
        "| prod_ref | products.csv | ex:productCode | ex:Product |  | http://example.org/product/{prod_ref} |  |\n"
        "| mkr_ref | makers.csv | ex:makerCode | ex:Maker |  | http://example.org/maker/{mkr_ref} |  |\n"
        "| maker | products_makers.csv | ex:madeBy | ex:Product | ex:Maker | http://example.org/product/{prod_ref} | "
        "products_makers.product==products.prod_ref and products_makers.maker==makers.mkr_ref |\n"))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(tmp_path / "t.md"), ontology, case, sources)
    normalize_rml(compiled.rml).graph.serialize(tmp_path / "m.ttl", format="turtle")
    kg = Graph().parse(data="\n".join(materialize(tmp_path / "m.ttl").triples), format="nt")
    ex = "http://example.org/"
    assert set(kg.subject_objects(URIRef("http://example.org/ont#madeBy"))) == {
        (URIRef(ex + "product/P01"), URIRef(ex + "maker/M1")), (URIRef(ex + "product/P02"), URIRef(ex + "maker/M2")),
        (URIRef(ex + "product/P03"), URIRef(ex + "maker/M2"))}


@pytest.mark.parametrize("name,expected", [
    ("fecha_publicacion", ["date", "publication"]),   # glossary word + -cion cognate
    ("año_publicación", ["year", "publication"]),      # accents dropped first
    ("fecha_de_alta", ["date", "alta"]),              # "de" between words is no content
    ("title_de", ["title", "de"]),                    # a last "de" may be a language code
    ("licencia", ["licence"]), ("accesibilidad", ["accesibility"]),
])
def test_spanish_words_and_cognates(name, expected):
    assert words(name) == expected


def test_head_first_identifier_keys_a_spanish_source(tmp_path):
    """``cod_operador`` names an identifier head-first: it keys operadores.csv (not the unique
    ``nombre_operador``), so ``operador`` in viajes.csv is a foreign key to it."""
    from pipeline.manifest import Source
    from pipeline.mappers.offline.analysis import SourceInfo
    from pipeline.mappers.offline.keys import analyse_keys, find_foreign_keys
    from pipeline.sources.load import load_source

    def info(name, text):
        (tmp_path / name).write_text(text)
        data = load_source(Source(path=tmp_path / name, format="csv"), tmp_path)
        return SourceInfo(data, name, name[:-4], list(data.references))

    ops = info("operadores.csv", "nombre_operador,cod_operador\nEvans Holding,OP001\nCosta Lines,OP002\n")
    trips = info("viajes.csv", "num_viaje,operador\nT1,OP002\nT2,OP001\nT3,OP002\n")
    analyse_keys([ops, trips])
    find_foreign_keys([ops, trips])
    assert ops.key == ("cod_operador",)
    assert {r: (f.target, f.target_ref) for r, f in trips.fks.items()} == {"operador": ("operadores.csv", "cod_operador")}


def test_code_names_are_matched_by_values_only_and_never_guessed(tmp_path):
    """Code column names (``F1``) carry no name evidence: the key goes to the identifier property,
    the date/decimal/integer columns to the only properties their kinds fit; the two text columns
    compete for two text properties and, without value evidence (lexical mode), stay unmapped."""
    (tmp_path / "ontology.ttl").write_text(_ONTOLOGY)
    (tmp_path / "products.csv").write_text(
        "F1,Q2,H3,J4,G5,X6\nP01,02-11-2009,113,78.49,Alpha,Beta\nP02,18-04-2002,615,69.73,Gamma,Delta\n")
    (tmp_path / "case.yaml").write_text("name: codes\nbase_iri: http://example.org/\nsources:\n- path: products.csv\n"
                                        "  format: csv\nontologies:\n- ontology.ttl\n")
    (tmp_path / "o2.ttl").write_text("")
    text = _ONTOLOGY + ('ex:note a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:string ; '
                        'rdfs:label "note"@en .\n')
    (tmp_path / "ontology.ttl").write_text(text)
    rows = list(map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table)
    assert {(r.data_reference, r.ontology_property) for r in rows} == {
        ("F1", "ex:productCode"), ("Q2", "ex:releaseDate"), ("H3", "ex:packSize"), ("J4", "ex:packPrice")}
    assert {r.entity_class for r in rows} == {"ex:Product"}  # the file name decides the class


def test_kind_fit_of_coded_columns_to_a_class(tmp_path):
    from rdflib import URIRef

    from pipeline.mappers.offline.classes import _kind_fit

    (tmp_path / "o.ttl").write_text(_ONTOLOGY)
    ont = load_ontology([tmp_path / "o.ttl"])
    ex = "http://example.org/ont#"
    product = [URIRef(ex + p) for p in ("productCode", "tradeName", "releaseDate", "packSize", "packPrice")]
    maker = [URIRef(ex + p) for p in ("makerCode", "companyName")]
    kinds = ["text", "text", "date", "integer", "decimal"]
    assert _kind_fit(ont, product, kinds) == 1.0
    assert _kind_fit(ont, maker, kinds) == pytest.approx(2 / 5)


def test_weak_entity_keyed_by_sequence_number_even_when_a_few_are_missing(tmp_path):
    """A stop time is keyed by trip plus sequence number, not by trip plus arrival time, although one
    record of twelve lacks its sequence number and the (trip, time) pairs happen to be unique."""
    from pipeline.manifest import Source
    from pipeline.mappers.offline.keys import choose_key
    from pipeline.sources.load import load_source

    lines = ["trip_id,arrival_time,stop_sequence"]
    lines += [f"T{t},08:{t}{s}:00,{s}" for t in (1, 2, 3) for s in range(1, 5)]
    lines[-1] = "T3,08:34:00,"
    (tmp_path / "stop_times.csv").write_text("\n".join(lines) + "\n")
    data = load_source(Source(path=tmp_path / "stop_times.csv", format="csv"), tmp_path)
    key, _ = choose_key(data, list(data.references), "stop_times")
    assert key == ("trip_id", "stop_sequence")
