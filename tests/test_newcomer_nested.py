"""Offline-mapper faults found with a newcomer's nested JSON and namespaced XML (branch h-new).

Inputs: tests/cases/nested-entity-members/ and tests/cases/xml-namespaced-attribute/ (README.md in each).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.cli import main

CASES = Path(__file__).resolve().parent / "cases"


def _map(tmp_path: Path, case: str) -> list[tuple[str, ...]]:
    """``kgc map`` the case (copied, so nothing is written beside the inputs); rows as
    (reference, property, class, subject template, language tag)."""
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    rows = []
    for line in (tmp_path / "t.md").read_text(encoding="utf-8").splitlines()[2:]:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows.append((c[0], c[2], c[3], c[5], c[8]))
    return rows


def test_nested_object_members_take_their_properties_by_best_name_and_its_id_keys_it(tmp_path):
    rows = _map(tmp_path, "nested-entity-members")
    nested = sorted(r[:4] for r in rows if r[2] in ("ev:Venue", "ev:Performer") and r[0])
    assert nested == [
        ("performers.name", "ev:performerName", "ev:Performer", "https://data.example.net/performer/{performers.id}"),
        ("venue.geo.lat", "ev:latitude", "ev:Venue", "https://data.example.net/venue/{venue.id}"),
        ("venue.geo.lon", "ev:longitude", "ev:Venue", "https://data.example.net/venue/{venue.id}"),
        ("venue.name", "ev:venueName", "ev:Venue", "https://data.example.net/venue/{venue.id}"),
    ]
    # the ids key the entities and are no name of them
    assert not [r for r in rows if r[0] in ("venue.id", "performers.id")]


def test_nested_xml_element_is_the_second_entity_and_xml_lang_tags_each_title(tmp_path, capsys):
    rows = _map(tmp_path, "xml-namespaced-attribute")
    by_ref = {r[0]: r[1:] for r in rows if r[0]}
    assert by_ref["cat:supplier/cat:name"] == (
        "shop:supplierName", "shop:Supplier", "http://example.com/shop/supplier/{cat:supplier/@id}", "")
    # the title is the product's name; its tag is read per record from '@xml:lang' (not '@lang', which
    # selects no xml:lang), since the engine's corrected XML reader reads prefixed attributes (h-new2)
    assert by_ref["dc:title"] == ("shop:productName", "shop:Product", "http://example.com/shop/product/{@sku}",
                                  "{dc:title/@xml:lang}")
    assert "dc:title/@xml:lang" not in by_ref
    assert "is namespaced" not in capsys.readouterr().err


def test_literals_outside_the_range_and_concepts_without_value_map_are_compile_warnings(tmp_path, capsys):
    case = CASES / "table-literal-range"
    assert main(["compile", str(case / "case.yaml"), str(case / "table.md"), str(tmp_path / "m.ttl")]) == 0
    t = case / "table.md"
    shacl = "SHACL's sh:datatype is an exact match, so the shapes derived from the range reject every value"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {t}:4 [datatype]: the row writes xsd:string literals but the range of 'lib:title' is "
        f"rdf:langString: {shacl}",
        f"info: {t}:5 [language_tag]: language tag read per record from 'lang'",
        f"warning: {t}:6 [datatype]: the row writes rdf:langString literals but the range of 'lib:subtitle' is "
        f"xsd:string: {shacl} (closest valid: xsd:string)",
        f"warning: {t}:7 [datatype]: the row writes xsd:int literals but the range of 'lib:pageCount' is "
        f"xsd:nonNegativeInteger: {shacl} (closest valid: xsd:nonNegativeInteger)",
        f"warning: {t}:9 [datatype]: datatype 'xsd:integer' is narrower than the range xsd:decimal of 'lib:price': "
        "OWL accepts it, but SHACL's sh:datatype is an exact match, so the shapes derived from the range reject "
        "every value (SHACL fails) (closest valid: xsd:decimal)",
        f"warning: {t}:11 [function_output]: 'lib:genre' relates to skos:Concept but the row has no value map "
        "(Function Output 'code -> concept IRI', one pair per code) nor IRI datatype: the values of 'genre' are "
        "written as literals, not concepts",
    ]


def test_an_identifier_column_is_no_identifier_of_a_named_scheme_nor_a_name(tmp_path):
    rows = _map(tmp_path, "key-not-foreign-identifier")
    assert sorted(r[:4] for r in rows) == [
        ("full_name", "lib:authorName", "lib:Author", "http://example.org/library/author/{author_id}"),
        ("year_of_birth", "lib:birthYear", "lib:Author", "http://example.org/library/author/{author_id}"),
    ]


def test_a_column_of_separated_foreign_keys_is_named_as_such_when_left_unmapped(tmp_path, capsys):
    rows = _map(tmp_path, "multivalued-foreign-key")
    assert "author_ids" not in {r[0] for r in rows}
    warning = [line for line in capsys.readouterr().err.splitlines() if "'author_ids'" in line]
    assert len(warning) == 1
    assert ("column 'author_ids' of books.csv is not mapped; its cells hold ';'-separated lists of authors.csv's "
            "author_id (e.g. 'A4;A7'): a reference reads one value per cell, so no join matches them; split the "
            "column (one value per record, e.g. a link file) to map the relation; best candidates: ") in warning[0]


def test_an_attribute_of_a_mapped_value_opens_no_entity_and_the_nested_name_does(tmp_path):
    rows = _map(tmp_path, "xml-value-qualifier")
    linked = sorted(r[:4] for r in rows if r[2] == "m:Agent" or r[1] == "m:createdBy")
    assert linked == [
        ("", "m:createdBy", "m:Artwork", "http://example.org/museum/artwork/{@accession}"),
        ("d:artist/d:name", "m:agentName", "m:Agent", "http://example.org/museum/agent/{d:artist/@ref}"),
    ]
    assert "d:height/@unit" not in {r[0] for r in rows}


def test_normalize_time_gives_xsd_time_lexical_forms_or_none():
    from pipeline.fno import function_for_name, udfs

    assert function_for_name("toTime()") == "normalizeTime"
    got = {v: udfs.normalize_time(v) for v in ("20:00", "8:05", "20:00:00", "23:59:59.5Z", "07:30+02:00",
                                               "24:00", "12:60", "8pm", "", None)}
    assert got == {"20:00": "20:00:00", "8:05": "08:05:00", "20:00:00": "20:00:00", "23:59:59.5Z": "23:59:59.5Z",
                   "07:30+02:00": "07:30:00+02:00", "24:00": None, "12:60": None, "8pm": None, "": None, None: None}


def test_clock_times_get_seconds_and_01_booleans_are_no_misfits(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-clock-times-and-01-booleans", work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "ev2"
    table = (folder / "table.md").read_text(encoding="utf-8")
    assert "| start_time | events.csv | ev:startTime | ev:Event |  | http://example.org/data/event/{event_code} |  " \
           "| xsd:time |  | toTime() | time normalised to xsd:time (hh:mm:ss) |" in table
    kg = (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
    times = sorted(line for line in kg if "#startTime>" in line)
    assert [t.split("> ", 2)[2] for t in times] == [
        '"20:00:00"^^<http://www.w3.org/2001/XMLSchema#time> .', '"18:30:00"^^<http://www.w3.org/2001/XMLSchema#time> .',
        '"17:00:00"^^<http://www.w3.org/2001/XMLSchema#time> .', '"19:30:00"^^<http://www.w3.org/2001/XMLSchema#time> .']
    audit = (folder / "audit.md").read_text(encoding="utf-8")
    assert "outdoor" not in audit and "dropped" not in audit


def test_a_chance_key_standing_in_for_the_ontologys_repeated_identifier_is_a_warning(tmp_path, capsys):
    rows = _map(tmp_path, "identifier-repeated-title-key")
    assert {r[3] for r in rows} == {"http://example.org/library/book/{title}"}
    src = tmp_path / "identifier-repeated-title-key" / "books.csv"
    assert (f"warning: {src} [subject_template]: the subject key of books.csv is ['title'], not the ontology's "
            "identifier: 'isbn' maps to lib:isbn, an identifier of lib:Book (owl:hasKey of lib:Book), but repeats "
            "a value ('9780141439518' in 2 records)") in capsys.readouterr().err.splitlines()


def test_a_decimal_comma_column_gets_to_decimal_and_an_undecided_one_is_left(tmp_path, capsys):
    from pipeline.fno import function_for_name, udfs

    assert function_for_name("toDecimal()") == "normalizeDecimalComma"
    assert [udfs.normalize_decimal_comma(v) for v in ("8,99", "1.018,00", "12", "-3,5", "8.99", "abc")] == \
        ["8.99", "1018.00", "12", "-3.5", None, None]
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-decimal-comma", work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "books"
    table = (folder / "table.md").read_text(encoding="utf-8")
    assert "| price_eur | books.csv | lib:price | lib:Book |  | http://example.org/library/book/{isbn} |  " \
           "| xsd:decimal |  | toDecimal() | decimal comma read as a point (8,99 -> 8.99) |" in table
    assert "| weight |" not in table
    prices = sorted(line.split("> ", 2)[2] for line in (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
                    if "#price>" in line)
    assert prices == ['"1018.00"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"22.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"6.9"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"8.99"^^<http://www.w3.org/2001/XMLSchema#decimal> .']


def test_dates_with_month_names_are_dates(tmp_path):
    from pipeline.fno import udfs

    assert [udfs.normalize_date(v, "YMD") for v in ("29 April 2003", "April 29, 2003", "29-Apr-2003",
                                                     "29 de abril de 2003", "31 February 2003", "May 2003")] == \
        ["2003-04-29", "2003-04-29", "2003-04-29", "2003-04-29", None, None]
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-month-name-dates", work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "books"
    assert "| Publication Date | books.csv | lib:publicationDate | lib:Book |  | " \
           "http://example.org/library/book/{ISBN-13} |  | xsd:date |  | toDate() |" \
           in (folder / "table.md").read_text(encoding="utf-8")
    dates = sorted(line.split("> ", 2)[2] for line in (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
                   if "#publicationDate>" in line)
    assert dates == ['"1971-01-05"^^<http://www.w3.org/2001/XMLSchema#date> .',
                     '"2003-04-29"^^<http://www.w3.org/2001/XMLSchema#date> .',
                     '"2007-03-01"^^<http://www.w3.org/2001/XMLSchema#date> .']


def test_a_language_column_of_names_says_a_tag_needs_codes(tmp_path, capsys):
    _map(tmp_path, "csv-month-name-dates")
    warning = [line for line in capsys.readouterr().err.splitlines() if "column 'Language'" in line]
    assert len(warning) == 1 and ("column 'Language' of books.csv is not mapped; its values name languages "
                                  "(English -> en, French -> fr, Spanish -> es), but a language tag is a BCP 47 "
                                  "code: add a column of the codes and put it in the Language Tag cells ({column}) "
                                  "to tag each record's text; best candidates: ") in warning[0]


def test_an_xsd_langstring_range_is_judged_as_rdf_langstring(tmp_path, capsys):
    # the slip `xsd:langString` (BLINKG's ontologies make it) is read as rdf:langString by every
    # stage (ontology.is_langstring); the range check skipped such a range as "no built-in datatype"
    import shutil
    work = tmp_path / "case"
    shutil.copytree(CASES / "table-literal-range", work)
    onto = work / "onto.ttl"
    onto.write_text(onto.read_text(encoding="utf-8").replace("rdfs:range rdf:langString", "rdfs:range xsd:langString"),
                    encoding="utf-8")
    assert main(["compile", str(work / "case.yaml"), str(work / "table.md"), str(tmp_path / "m.ttl")]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (f"warning: {work / 'table.md'}:4 [datatype]: the row writes xsd:string literals but the range "
                     "of 'lib:title' is rdf:langString: SHACL's sh:datatype is an exact match, so the shapes derived "
                     "from the range reject every value")
