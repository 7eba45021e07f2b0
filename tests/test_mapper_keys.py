"""Subject keys the offline mapper chooses: the ontology's identifiers, identifiers missing in some
records, keys joining every column, chance keys, weak entities, document-level keys."""
from __future__ import annotations

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case

from helpers import cells, kgc_map, map_books, map_lexically


def test_identifier_missing_in_one_record_still_keys_a_csv_source(tmp_path):
    # isbn is empty in 1 of 3 records: it still keys the source (not the title column), and the gap is a finding
    rows, findings = map_books(tmp_path, "books.csv", "isbn,título,year\n9780000000001,Zoë,2001\n,Emma,1999\n"
                                                      "9780000000003,Dune,2003\n")
    subject = "http://lib.example.org/book/{isbn}"
    assert rows == {("isbn", "lib:isbn", subject, "xsd:string"), ("título", "lib:title", subject, "xsd:string"),
                    ("year", "lib:publicationYear", subject, "xsd:gYear")}
    assert ("subject_template", "1 of 3 records of books.csv have no 'isbn', the identifier of lib:Book: they get "
            "no subject (no triples)") in findings


def test_identifier_missing_in_one_record_still_keys_an_xml_source(tmp_path):
    # one record lacks @isbn: {@isbn} still keys the source (not every column joined), and the gap is a finding
    rows, findings = map_books(tmp_path, "books.xml",
                               '<library><book isbn="9780000000011"><title>A</title><year>2011</year>'
                               '</book><book isbn="9780000000012"><title>B</title><year>2012</year>'
                               "</book><book><title>C</title><year>2013</year></book></library>")
    assert {r[2] for r in rows} == {"http://lib.example.org/book/{@isbn}"}
    assert ("subject_template", "1 of 3 records of books.xml have no '@isbn', the identifier of lib:Book: they get "
            "no subject (no triples)") in findings


def test_identifier_with_too_few_values_is_named_when_every_column_keys(tmp_path):
    _, findings = map_books(tmp_path, "books.csv", "isbn,título\n9780000000001,A\n,A\n,A\n")
    assert [m for c, m in findings if c == "subject_template"] == [
        "the subject key of books.csv joins every column ['isbn', 'título']: the ontology's identifier was not "
        "taken: 'isbn' maps to lib:isbn, an identifier of lib:Book (its name says identifier ('isbn')), but has "
        "values in only 1 of 2 distinct records"]


def test_a_key_joining_every_column_is_warned(tmp_path):
    rows, findings = map_books(tmp_path, "books.csv", "title,year\nA,2001\n,2002\n")
    assert {r[2] for r in rows} == {"http://lib.example.org/book/{title}_{year}"}
    assert [m for c, m in findings if c == "subject_template"] == [
        "no column or minimal set of columns identifies the records of books.csv: the subject key joins every "
        "column ['title', 'year'], so a record lacking any of them gets no subject"]


def test_an_identifier_column_is_no_identifier_of_a_named_scheme_nor_a_name(tmp_path):
    rows = kgc_map(tmp_path, "key-not-foreign-identifier")
    assert sorted(r[:4] for r in rows) == [
        ("full_name", "lib:authorName", "lib:Author", "http://example.org/library/author/{author_id}"),
        ("year_of_birth", "lib:birthYear", "lib:Author", "http://example.org/library/author/{author_id}"),
    ]


def test_a_chance_key_standing_in_for_the_ontologys_repeated_identifier_is_a_warning(tmp_path, capsys):
    rows = kgc_map(tmp_path, "identifier-repeated-title-key")
    assert {r[3] for r in rows} == {"http://example.org/library/book/{title}"}
    src = tmp_path / "identifier-repeated-title-key" / "books.csv"
    assert (f"warning: {src} [subject_template]: the subject key of books.csv is ['title'], not the ontology's "
            "identifier: 'isbn' maps to lib:isbn, an identifier of lib:Book (owl:hasKey of lib:Book), but repeats "
            "a value ('9780141439518' in 2 records)") in capsys.readouterr().err.splitlines()


def test_numeric_identifier_key():
    _, rows = map_lexically("numeric-identifier-key")
    assert cells(rows, "data_reference", "ontology_property", "subject_template") == {
        ("isbn", "lib:isbn13", "http://example.org/library/edition/{isbn}"),
        ("title", "lib:editionTitle", "http://example.org/library/edition/{isbn}")}


def test_ontology_identifier_property_decides_the_key(tmp_path):
    (tmp_path / "works.csv").write_text("title,reference\nEmma,R-17\nPersuasion,R-18\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(
        "@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Work a owl:Class ; rdfs:label \"work\"@en .\n"
        "ex:title a owl:DatatypeProperty ; rdfs:domain ex:Work ; rdfs:range xsd:string ; rdfs:label \"title\"@en .\n"
        "ex:reference a owl:DatatypeProperty, owl:InverseFunctionalProperty ; rdfs:domain ex:Work ; "
        "rdfs:range xsd:string ; rdfs:label \"reference\"@en .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: w\nscenario: t\nbase_iri: http://example.org/\n"
                                        "sources: [works.csv]\nontologies: [o.ttl]\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    assert {r.subject_template for r in result.table} == {"http://example.org/work/{reference}"}
    assert "owl:InverseFunctionalProperty" in result.provenance["sources"][0]["key_evidence"]


def test_xml_document_key_not_constant_and_top_level_elements():
    result, rows = map_lexically("xml-document-key-constant")
    assert {r.subject_template for r in rows if r.entity_class == "ex:Buyer"} == {
        "http://example.org/buyer/$(/n:Notice/n:ID)"}
    assert cells(rows, "source_file", "data_reference", "ontology_property") >= {
        ("notice1.xml", "/n:Notice/n:Title", "ex:hasTitle"), ("notice2.xml", "/n:Notice/n:DispatchDate",
                                                              "ex:hasDispatchDate")}
    assert not any("VersionID" in (r.subject_template or "") for r in rows)
    assert any("n:VersionID" in f["message"] and "same value '2.3'" in f["message"]
               for f in result.provenance["findings"])


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


def test_an_amount_with_a_decimal_comma_keys_nothing(tmp_path):
    """Amounts written with a decimal comma and space thousands (`-2 500,00`) are quantities, as amounts
    written with a point are: the text columns key the records although the amount alone is unique."""
    from pipeline.manifest import Source
    from pipeline.mappers.offline.keys import choose_key
    from pipeline.sources.load import load_source

    (tmp_path / "budget.csv").write_text(
        "nom_commune,fonction,montant\nA,Culture,\"12 345,67\"\nA,Voirie,\"8 901,20\"\nB,Culture,\"-2 500,00\"\n", encoding="utf-8")
    data = load_source(Source(path=tmp_path / "budget.csv", format="csv"), tmp_path)
    assert choose_key(data, list(data.references), "budget") == (
        ("nom_commune", "fonction"), "minimal key ['nom_commune', 'fonction'] over 3 distinct records")
