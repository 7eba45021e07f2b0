"""Offline-mapper and CLI faults a newcomer found with hand-made data (branch h-map3)."""
from __future__ import annotations

from pipeline.cli import main

_PEOPLE_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                "ex:Person a owl:Class . ex:City a owl:Class .\n"
                "ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n"
                "ex:cityName a owl:DatatypeProperty ; rdfs:domain ex:City .\n")


def _people(tmp_path, sources: str, source_file: str) -> None:
    (tmp_path / "onto.ttl").write_text(_PEOPLE_ONTO, encoding="utf-8")
    (tmp_path / "people.csv").write_text("pid,name\n1,Ann\n2,Bob\n", encoding="utf-8")
    (tmp_path / "cities.csv").write_text("code,name\nMAD,Madrid\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: w\nsources: [{sources}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        f"| name | {source_file} | ex:name | ex:Person | http://example.org/person/{{pid}} |\n"
        "| name | cities.csv | ex:cityName | ex:City | http://example.org/city/{code} |\n", encoding="utf-8")


def test_unknown_source_file_among_several_sources_is_an_error_and_the_row_is_left_out(tmp_path, capsys):
    # 'missing.csv' was read from people.csv (the first source holding 'name') with a warning only
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"error: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the row "
        "is left out (known source files: people.csv, cities.csv)"]
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"


def test_unknown_source_file_with_one_source_or_a_near_miss_stays_a_warning(tmp_path, capsys):
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    (tmp_path / "case.yaml").write_text("name: w\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("\n".join((tmp_path / "t.md").read_text(encoding="utf-8").splitlines()[:3]) + "\n",
                                   encoding="utf-8")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]
    _people(tmp_path, "people.csv, cities.csv", "peeple.csv")  # a near miss names the file it is read from
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'peeple.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]


def test_synth_refuses_a_non_empty_folder_unless_forced(tmp_path, capsys):
    out = tmp_path / "s"
    out.mkdir()
    (out / "old.yaml").write_text("name: old\n", encoding="utf-8")
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"error: {out}: the scenario folder is not empty (1 entries, e.g. old.yaml); "
                                       "expected an empty or new folder (--force writes into it anyway)\n")
    assert sorted(p.name for p in out.iterdir()) == ["old.yaml"]  # nothing written
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out), "--force"]) == 0
    assert len(list(out.iterdir())) == 9 and (out / "old.yaml").exists()


_BOOK_ONTO = ("@prefix : <http://lib.example.org/onto#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
              "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
              ':Book a owl:Class ; rdfs:label "Book"@en ; rdfs:comment "A published book, identified by its ISBN."@en .\n'
              ':isbn a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:string ; rdfs:label "ISBN"@en .\n'
              ':title a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:string ; rdfs:label "title"@en .\n'
              ':publicationYear a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:gYear ; '
              'rdfs:label "publication year"@en .\n'
              ':price a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:decimal ; rdfs:label "price"@en .\n')


def _map(tmp_path, name: str, text: str):
    from pipeline.manifest import load_manifest
    from pipeline.mappers import get_mapper, map_case

    (tmp_path / "onto.ttl").write_text(_BOOK_ONTO, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: b\nscenario: s\nbase_iri: http://lib.example.org/\nsources: [{name}]\n"
                                        "ontologies: [onto.ttl]\nprefixes: {lib: \"http://lib.example.org/onto#\"}\n",
                                        encoding="utf-8")
    res = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    rows = {(r.data_reference, r.ontology_property, r.subject_template, r.datatype) for r in res.table.rows}
    return rows, [(f["column"], f["message"]) for f in res.provenance["findings"]]


def test_identifier_missing_in_one_record_still_keys_a_csv_source(tmp_path):
    # isbn empty in 1 of 3 records: the subject was {título} (a title), with no word said
    rows, findings = _map(tmp_path, "books.csv", "isbn,título,year\n9780000000001,Zoë,2001\n,Emma,1999\n"
                                                 "9780000000003,Dune,2003\n")
    subject = "http://lib.example.org/book/{isbn}"
    assert rows == {("isbn", "lib:isbn", subject, "xsd:string"), ("título", "lib:title", subject, "xsd:string"),
                    ("year", "lib:publicationYear", subject, "xsd:gYear")}
    assert ("subject_template", "1 of 3 records of books.csv have no 'isbn', the identifier of lib:Book: they get "
            "no subject (no triples)") in findings


def test_identifier_missing_in_one_record_still_keys_an_xml_source(tmp_path):
    # the key was {@isbn}_{title}_{year} (every column joined): records lacking any of them got no subject
    rows, findings = _map(tmp_path, "books.xml", '<library><book isbn="9780000000011"><title>A</title><year>2011</year>'
                                                 '</book><book isbn="9780000000012"><title>B</title><year>2012</year>'
                                                 "</book><book><title>C</title><year>2013</year></book></library>")
    assert {r[2] for r in rows} == {"http://lib.example.org/book/{@isbn}"}
    assert ("subject_template", "1 of 3 records of books.xml have no '@isbn', the identifier of lib:Book: they get "
            "no subject (no triples)") in findings


def test_identifier_with_too_few_values_is_named_when_every_column_keys(tmp_path):
    _, findings = _map(tmp_path, "books.csv", "isbn,título\n9780000000001,A\n,A\n,A\n")
    assert [m for c, m in findings if c == "subject_template"] == [
        "the subject key of books.csv joins every column ['isbn', 'título']: the ontology's identifier was not "
        "taken: 'isbn' maps to lib:isbn, an identifier of lib:Book (its name says identifier ('isbn')), but has "
        "values in only 1 of 2 distinct records"]


def test_a_column_whose_most_values_fit_the_range_is_mapped_and_the_misfits_reported(tmp_path):
    # one bad value ('abc') left the whole price column unmapped ("values do not fit its range")
    text = "isbn,title,price\n9780000000001,A,12.50\n9780000000002,B,abc\n9780000000003,C,7\n9780000000004,D,3.0\n" \
           "9780000000005,E,1e3\n"
    rows, findings = _map(tmp_path, "books.csv", text)
    assert ("price", "lib:price", "http://lib.example.org/book/{isbn}", "xsd:decimal") in rows
    assert [m for c, m in findings if c == "datatype"] == [
        "column 'price' of books.csv maps to lib:price with datatype xsd:decimal, but 2 of its 5 values do not fit "
        "it (e.g. '1e3', 'abc'); the guard drops those literals at materialize"]
    # where few values fit (half or less), the column stays unmapped, as before
    rows, findings = _map(tmp_path, "books.csv", text.replace(",7\n", ",n/a\n"))
    assert not any(r[0] == "price" for r in rows)
    assert any(m.startswith("column 'price' of books.csv is not mapped; best candidates: lib:price (similarity")
               and "but the values do not fit its range (only 2 of 5 do; more than half must)" in m for c, m in findings)


def test_a_key_joining_every_column_is_warned(tmp_path):
    rows, findings = _map(tmp_path, "books.csv", "title,year\nA,2001\n,2002\n")
    assert {r[2] for r in rows} == {"http://lib.example.org/book/{title}_{year}"}
    assert [m for c, m in findings if c == "subject_template"] == [
        "no column or minimal set of columns identifies the records of books.csv: the subject key joins every "
        "column ['title', 'year'], so a record lacking any of them gets no subject"]
