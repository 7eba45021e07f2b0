"""CSV sources: records wider or narrower than the header, blank spreadsheet lines."""
from __future__ import annotations

import json
import shutil

import pytest

from pipeline.cli import main

from helpers import CASES, books_case, table_rows


def test_a_blank_spreadsheet_line_is_no_record_lacking_its_identifier(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-excel-blank-record", work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    err = capsys.readouterr().err
    assert "have no 'Product ID'" not in err
    assert "header cell(s) in column(s) 5, 6 are empty" in err
    rows = {r[0]: r for r in table_rows(tmp_path / "t.md")}
    assert sorted(rows) == ["Date added", "Name", "Price (EUR)", "Product ID"]
    assert rows["Product ID"][2:5] == ("s:sku", "s:Product", "http://example.org/data/product/{Product ID}")


def test_csv_records_wider_or_narrower_than_the_header_are_reported(tmp_path, capsys):
    # cells beyond the header reach no column: the records holding them are named with their lines and widths
    books_case(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    (tmp_path / "books.csv").write_text('id,title,price\n1,"Du\nne",1.5,x,y\n2\n\n3,Emma,2\n4,Lolita,3,z\n',
                                        encoding="utf-8")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 0
    audit = json.loads((out / "s" / "b" / "audit.json").read_text(encoding="utf-8"))
    rows = [(f["severity"], f["line"], f["message"]) for f in audit if f["column"] == "record"]
    assert rows == [
        ("warning", 2, "2 record(s) have more cells than the header; the extra cells are dropped (no column name "
                       "addresses them): line 2 (5 cells), line 7 (4 cells)"),
        ("info", 4, "1 record(s) have fewer cells than the header; the missing cells are read as empty: line 4 (1 cells)")]
    capsys.readouterr()
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"warning: {tmp_path / 'books.csv'}:2 [record]: 2 record(s) have more cells than the header; the extra cells "
        "are dropped (no column name addresses them): line 2 (5 cells), line 7 (4 cells)")


@pytest.mark.parametrize(("content", "suffix", "declared", "expected"), [
    (b"\xef\xbb\xbfid;name\n1;a\n2;b\n", ".csv", None, (";", True)),
    (b"id,name\n1,a\n2,b\n", ".csv", None, (",", False)),
    (b"id\tname\n1\ta\n2\tb\n", ".tsv", None, ("\t", False)),
    (b"id\tname\n", ".tsv", None, ("\t", False)),  # one line: nothing to detect from, the suffix decides
    (b"id;name\n", ".csv", None, (",", False)),
    (b"id,name\n1,a;b\n2,c;d\n", ".csv", "|", ("|", False)),  # a declared separator is taken as it is
])
def test_csv_dialect_is_the_declared_or_detected_separator_and_the_bom(tmp_path, content, suffix, declared, expected):
    from pipeline.sources.engine_copy import csv_dialect

    path = tmp_path / f"f{suffix}"
    path.write_bytes(content)
    assert csv_dialect(path, declared) == expected


def test_a_tsv_file_the_engine_would_misread_gets_a_copy_named_csv(tmp_path, monkeypatch, capsys):
    """The engine takes a file's separator from its suffix: a repaired .tsv (here: with a byte-order
    mark) must not keep the name .tsv once comma-separated."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.tsv").write_bytes(b"\xef\xbb\xbfid\tname\n1\tZo\xc3\xab\n2\tJo\n")
    (tmp_path / "m.ttl").write_text("""@prefix rml: <http://w3id.org/rml/> .
<#TM> rml:logicalSource [ rml:source "p.tsv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/name> ; rml:objectMap [ rml:reference "name" ] ] .
""", encoding="utf-8")
    assert main(["materialize", "m.ttl", "o/kg.nt"]) == 0
    assert sorted(p.name for p in (tmp_path / "o" / "kg.inputs").iterdir()) == ["p.tsv.csv"]
    assert (tmp_path / "o" / "kg.inputs" / "p.tsv.csv").read_bytes() == "id,name\r\n1,Zoë\r\n2,Jo\r\n".encode("utf-8")
    assert sorted((tmp_path / "o" / "kg.nt").read_text(encoding="utf-8").splitlines()) == [
        '<http://example.org/p/1> <http://example.org/name> "Zoë" .',
        '<http://example.org/p/2> <http://example.org/name> "Jo" .']
    assert "CSV uses '\\t' as separator and a byte-order mark" in capsys.readouterr().err


def test_lines_repeating_the_header_are_found_by_line_and_are_no_records(tmp_path):
    from pipeline.manifest import Source
    from pipeline.sources.checks import repeated_header_lines
    from pipeline.sources.engine_copy import EngineCopy
    from pipeline.sources.tabular import load_csv

    path = tmp_path / "f.csv"
    # a quoted field spanning lines holds a line equal to the header: it is a cell, not a repeat
    path.write_bytes(b'\xef\xbb\xbfid,name\r\n1,"a\r\nid,name"\r\nid,name\r\n2,b\r\n\r\nid,name\r\n3,c\r\n')
    assert repeated_header_lines(path, ",") == [4, 7]
    data = load_csv(Source(path=path, format="csv"), EngineCopy(path, tmp_path / "copies"))
    assert data.records.column("id") == ["1", "2", "3"]
    assert data.records.start_lines([0, 1, 2]) == {0: 2, 1: 5, 2: 8}
    assert data.records.head("name", 3) == ["a\r\nid,name", "b", "c"]
    assert (tmp_path / "copies" / "f.csv").read_bytes() == b'id,name\r\n1,"a\r\nid,name"\r\n2,b\r\n\r\n3,c\r\n'
    assert [(f.line, f.severity, f.message) for f in data.findings][0] == (
        4, "info", "lines 4, 7 repeat the header line (a page break of a spreadsheet export): not a record, left out")
    plain = tmp_path / "p.csv"
    plain.write_text("id,name\n1,id\n", encoding="utf-8")
    assert repeated_header_lines(plain, ",") == []


@pytest.mark.parametrize("last, found", [
    ("Summe;;", ("Nummer", "Summe", 5)),
    ("Total;;1.234,50", ("Nummer", "Total", 5)),
    (";Gesamt;12", None),  # the word is in a column of words
    ("Summe;x;", None),     # another cell holds a word: a record, not sums
    ("4;Emma;3", None),
])
def test_a_last_record_of_a_word_in_a_column_of_numbers_and_sums_is_a_probable_totals_row(tmp_path, last, found):
    assert _totals_rows(tmp_path, f"Nummer;Name;Betrag\n1;A;5\n2;B;6\n\n{last}\n") == ([found] if found else [])


def _totals_rows(tmp_path, text: str) -> list[tuple]:
    """(column, value, line) of each probable-totals-row finding of a CSV file holding ``text``."""
    from pipeline.manifest import Source
    from pipeline.sources.engine_copy import EngineCopy
    from pipeline.sources.tabular import csv_row_findings, load_csv

    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    data = load_csv(Source(path=path, format="csv"), EngineCopy(path, tmp_path / "copies"))
    return [(f.column, f.value, f.line) for f in csv_row_findings(data) if "totals row" in f.message]


@pytest.mark.parametrize("content, line", [
    # the World Bank's layout: metadata lines and blank lines above the header, a trailing comma
    ('"Data Source","WDI",\n\n"Last Updated Date","2024-01-25",\n\n"Name","Code","2020",\n"Aruba","ABW","1",\n'
     '"Chad","TCD","2",\n', 5),
    ("Museums of Europe\nid,name,city\nM1,Louvre,Paris\nM2,Prado,Madrid\n", 2),
    # a header of three names and one long record: no preamble (that record is not the width the rest share)
    ("id,name,city\nM1,Louvre,Paris,x,y,z\nM2,Prado,Madrid\n", None),
    # a header one trailing cell shorter than its records: more than half the width, no preamble
    ("id,name,city\nM1,Louvre,Paris,\nM2,Prado,Madrid,\n", None),
    ("id,name\nM1,Louvre\n", None),  # one record
    ("Title\nid\n1\n2\n", None),  # a width of one column says nothing
])
def test_lines_above_a_csv_table_are_found_by_the_width_its_rows_share(tmp_path, content, line):
    from pipeline.sources.checks import csv_preamble
    path = tmp_path / "t.csv"
    path.write_text(content, encoding="utf-8")
    found = csv_preamble(path)
    assert (found.line if found else None) == line
    if found:
        assert found.severity == "error" and f"tail -n +{line} t.csv > t.table.csv" in found.expected


@pytest.mark.parametrize("last, found", [
    ("Total,,4800000", ("id", "Total", 4)),     # 2700000 + 2100000
    ("Total,,4800001", None),                   # not the sum
    ("M3,Louvre,4800000", None),                # a word in another cell: a record
    ("Total,,4.8e6", None),                     # no plain decimal number: not read as one
])
def test_a_last_record_of_a_word_whose_number_sums_its_column_is_a_probable_totals_row(tmp_path, last, found):
    assert _totals_rows(tmp_path, f"id,name,visitors\nM1,Rijksmuseum,2700000\nM2,Van Gogh Museum,2100000\n{last}\n") \
        == ([found] if found else [])
