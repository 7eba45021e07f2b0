"""Values and datatypes: a column most of whose values fit the range, decimal commas, cells that
say no value."""
from __future__ import annotations

import shutil

from pipeline.cli import main

from helpers import CASES, kgc_run, map_books


def test_a_column_whose_most_values_fit_the_range_is_mapped_and_the_misfits_reported(tmp_path):
    # most values fit xsd:decimal: the column is mapped and the values that do not fit are named
    text = "isbn,title,price\n9780000000001,A,12.50\n9780000000002,B,abc\n9780000000003,C,7\n9780000000004,D,3.0\n"\
           "9780000000005,E,1e3\n"
    rows, findings = map_books(tmp_path, "books.csv", text)
    assert ("price", "lib:price", "http://lib.example.org/book/{isbn}", "xsd:decimal") in rows
    assert [m for c, m in findings if c == "datatype"] == [
        "column 'price' of books.csv maps to lib:price with datatype xsd:decimal, but 2 of its 5 values do not fit "
        "it (e.g. '1e3', 'abc'); the guard drops those literals at materialize"]
    # where few values fit (half or less), the column stays unmapped
    rows, findings = map_books(tmp_path, "books.csv", text.replace(",7\n", ",n/a\n"))
    assert not any(r[0] == "price" for r in rows)
    assert any(m.startswith("column 'price' of books.csv is not mapped; best candidates: lib:price (similarity")
               and "but the values do not fit its range (only 2 of 5 do; more than half must)" in m for c, m in findings)


def test_a_decimal_comma_column_gets_to_decimal_and_an_undecided_one_is_left(tmp_path, capsys):
    from pipeline.fno import function_for_name, udfs

    assert function_for_name("toDecimal()") == "normalizeDecimalComma"
    assert [udfs.normalize_decimal(v) for v in ("8,99", "1.018,00", "12", "-3,5", "8.99", "abc")] ==\
        ["8.99", "1018.00", "12", "-3.5", "8.99", None]
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-decimal-comma", work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "books"
    table = (folder / "table.md").read_text(encoding="utf-8")
    assert "| price_eur | books.csv | lib:price | lib:Book |  | http://example.org/library/book/{isbn} |  "\
           "| xsd:decimal |  | toDecimal() | decimal comma read as a point (8,99 -> 8.99) |" in table
    assert "| weight |" not in table
    prices = sorted(line.split("> ", 2)[2] for line in (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
                    if "#price>" in line)
    assert prices == ['"1018.00"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"22.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"6.9"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
                      '"8.99"^^<http://www.w3.org/2001/XMLSchema#decimal> .']


def test_cells_that_say_no_value_give_no_triple_instead_of_failing_the_run(tmp_path):
    from pipeline.fno.udfs import skip_missing

    assert [skip_missing(v) for v in ("NA", " n/a ", "-", "null", "7.25", "None", "0")] == [
        None, None, None, None, "7.25", None, "0"]
    out = kgc_run(tmp_path, "csv-missing-markers")  # exit 0: nothing is dropped
    table = (out / "table.md").read_text(encoding="utf-8")
    for ref, prop, dt in (("value", "iot:hasSimpleResult", "xsd:decimal"), ("count", "iot:count", "xsd:integer")):
        assert f"| {ref} | observations.csv | {prop} | iot:Observation |  | http://example.org/data/observation/"\
               f"{{obs_id}} |  | {dt} |  | skipMissing() | cells NA, N/A, null, NaN, - give no value |" in table
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    x, o = "http://www.w3.org/2001/XMLSchema#", "http://example.org/data/observation/"
    assert sorted(t for t in kg if "#hasSimpleResult>" in t or "#count>" in t) == [
        f'<{o}O-1> <http://example.org/iot#count> "3"^^<{x}integer> .',
        f'<{o}O-1> <http://example.org/iot#hasSimpleResult> "7.25"^^<{x}decimal> .',
        f'<{o}O-3> <http://example.org/iot#count> "4"^^<{x}integer> .',
        f'<{o}O-3> <http://example.org/iot#hasSimpleResult> "8.5"^^<{x}decimal> .',
        f'<{o}O-4> <http://example.org/iot#count> "5"^^<{x}integer> .',
    ]
    audit = (out / "audit.md").read_text(encoding="utf-8")
    assert ("column 'count' of observations.csv (iot:count, skipMissing()): 1 cell(s) say no value ('n/a'): "
            "they give no triple") in audit
