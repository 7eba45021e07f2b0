"""Mapping-table model, Markdown/CSV/JSON formats and cell parsers on every BLINKG gold table."""
from __future__ import annotations

import json

import pytest

from pipeline.errors import TableParseError
from pipeline.table import (COLUMNS, json_schema, parse_concat, parse_join_condition, parse_markdown, parse_value_map,
                            quoted_constant, read_table, split_class_alternatives, write_table)
from pipeline.table.cells import JoinPair, split_source_hint

#: rows of each gold table, counted by hand in the files
GOLD_ROWS = {
    "scenario1/1A": 1, "scenario1/1B": 2, "scenario1/1C": 3, "scenario1/1D": 4, "scenario1/1E": 5,
    "scenario1/1F": 7, "scenario1/1G": 6, "scenario1/1H": 3,
    "scenario2/complete": 72, "scenario2/d1": 16, "scenario2/d2": 6, "scenario2/d3": 11, "scenario2/d4": 12,
    "scenario2/d5": 12, "scenario2/d6": 14, "scenario3/1": 10, "scenario3/2": 16,
}


@pytest.mark.parametrize("case,rows", sorted(GOLD_ROWS.items()))
def test_every_gold_table_parses_with_its_row_count(scenarios, case, rows):
    table = read_table(scenarios / case / "expected_table.md")
    assert len(table) == rows
    assert all(r.ontology_property for r in table)


def test_source_hints_concat_and_language(scenarios):
    t = read_table(scenarios / "scenario1/1F/expected_table.md")
    assert (t.rows[1].source_file, t.rows[1].data_reference) == ("student.csv", "concat(FirstName,LastName)")
    assert parse_concat(t.rows[1].data_reference) == ["FirstName", "LastName"]
    h = read_table(scenarios / "scenario1/1H/expected_table.md")
    assert [r.language_tag for r in h] == [None, "en", "es"]
    g = read_table(scenarios / "scenario1/1G/expected_table.md")
    assert any("7 cells for 8 columns" in n for n in g.notes)


def test_quoted_constant():
    assert quoted_constant("'Government body'") == "Government body"
    assert quoted_constant(' "SE" ') == "SE"
    assert quoted_constant("''") == ""
    for cell in (None, "", "org_id", "'", "'open", "concat('a', 'b')", "'a', 'b'", "'a' + 'b'", "'it's'"):
        assert quoted_constant(cell) is None, cell


def test_scenario2_variants(scenarios):
    t = read_table(scenarios / "scenario2/d3/expected_table.md")
    loc = next(r for r in t if r.ontology_property == "gtfs:locationType")
    assert loc.function_name == "locationTypeSKOS"
    assert parse_value_map(loc.function_output)["2"] == "http://transport.linkeddata.es/kos/location-type/entrance-exit"
    d4 = read_table(scenarios / "scenario2/d4/expected_table.md")
    tuesday = next(r for r in d4 if r.ontology_property == "gtfs:tuesday")
    assert parse_value_map(tuesday.function_output) == {
        "1": "http://transport.linkeddata.es/kos/day/available",
        "0": "http://transport.linkeddata.es/kos/day/not-available"}
    assert tuesday.subject_template == "http://example.org/rule/{service_id}"  # backticks gone
    complete = read_table(scenarios / "scenario2/complete/expected_table.md")
    route = next(r for r in complete if r.ontology_property == "gtfs:routeType")
    # one item of this cell lacks its <br>: all ten codes still come out
    assert sorted(parse_value_map(route.function_output), key=int) == ["0", "1", "2", "3", "4", "5", "6", "7", "11", "12"]
    agency = next(r for r in complete if r.ontology_property == "gtfs:agency")
    assert (agency.source_file, agency.data_reference) == ("routes.csv", "agency_id")
    assert split_class_alternatives("gtfs:Stop/gtfs:Station/gtfs:StationEntrance") == [
        "gtfs:Stop", "gtfs:Station", "gtfs:StationEntrance"]


def test_scenario3_value_map_and_xpath(scenarios):
    t = read_table(scenarios / "scenario3/1/expected_table.md")
    assert t.rows[1].data_reference == "/entry/cac-place-ext:ContractFolderStatus/cac:TenderResult/cbc:AwardDate"
    assert t.rows[0].data_reference is None
    pt = t.rows[-1]
    assert pt.function_name == "procedureType()"
    assert parse_value_map(pt.function_output)["OP_DATPRO"] == \
        "http://publications.europa.eu/resource/authority/procurement-procedure-type/OP_DATPRO"
    assert len(parse_value_map(pt.function_output)) == 10


def test_join_conditions():
    assert parse_join_condition("student.Sport==sport.ID") == [[JoinPair("student", "Sport", "sport", "ID")]]
    assert parse_join_condition("a.x==b.y and a.z==b.w") == [[JoinPair("a", "x", "b", "y"), JoinPair("a", "z", "b", "w")]]
    assert parse_join_condition("id==id, id_lot==id_lot") == [[JoinPair(None, "id", None, "id"),
                                                              JoinPair(None, "id_lot", None, "id_lot")]]
    assert len(parse_join_condition("t.s=c.s or t.s=d.s")) == 2
    assert parse_join_condition("-") == [] and parse_join_condition(None) == []


def test_join_condition_sides_split_after_the_longest_known_source_name():
    """A file name may hold dots (``books.v2.csv``, stem ``books.v2``): given the case's stems, a side is split
    after the longest one it starts with; without them, at its first dot (the column then reads ``v2.x``)."""
    cell = "books.v2.author_id==auteurs données.author_id and BOOKS.V2.x==books.y"
    assert parse_join_condition(cell, ["books", "books.v2", "auteurs données"]) == [[
        JoinPair("books.v2", "author_id", "auteurs données", "author_id"), JoinPair("books.v2", "x", "books", "y")]]
    assert parse_join_condition(cell)[0][0] == JoinPair("books", "v2.author_id", "auteurs données", "author_id")
    # an XPath side starting with a known stem is that source's reference; others stay whole
    assert parse_join_condition("art.v1.d:artist/@ref==d:a/@id", ["art.v1"]) == [
        [JoinPair("art.v1", "d:artist/@ref", None, "d:a/@id")]]
    assert split_source_hint("date (calendar_dates)") == ("calendar_dates", "date")


def test_round_trip_through_every_format(scenarios, tmp_path):
    t = read_table(scenarios / "scenario2/d1/expected_table.md")
    for suffix in ("md", "csv", "json"):
        back = read_table(write_table(t, tmp_path / f"t.{suffix}"))
        assert [r.cells() for r in back] == [r.cells() for r in t], suffix


def test_json_schema_lists_every_column():
    schema = json_schema()
    assert set(schema["properties"]["rows"]["items"]["properties"]) == set(COLUMNS)
    json.dumps(schema)


def test_bad_tables_fail_with_file_and_line(tmp_path):
    with pytest.raises(TableParseError, match="no Markdown pipe table"):
        parse_markdown("just prose", source="x.md")
    bad = tmp_path / "t.md"
    bad.write_text("| foo | bar |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    with pytest.raises(TableParseError, match=r"t\.md:1: .*names no mapping-table column"):
        read_table(bad)
    with pytest.raises(TableParseError, match="unknown mapping-table format"):
        read_table(tmp_path / "t.xlsx")


def test_ontology_comment_is_chosen_independently_of_hash_order(scenarios):
    # gtfs:longName has an English and a Spanish comment; the offline mapper embeds the chosen one
    from rdflib import URIRef

    from pipeline.ontology import load_ontology

    onto = load_ontology([scenarios / "scenario2/d1/ontology_d1.ttl"])
    assert onto.comment(URIRef("http://vocab.gtfs.org/terms#longName")).startswith("Long name given to a route.")


def test_a_second_table_after_the_mapping_table_is_not_read_as_rows():
    text = ("Here is the mapping:\n\n"
            "| Data Reference | Ontology Property | Entity Class |\n| --- | --- | --- |\n"
            "| `ID` | `ex:id` | `ex:Person` |\n\n"
            "| Data Reference | Ontology Property | Entity Class |\n| --- | --- | --- |\n"
            "| `gen_uri(id)` | Create stable URIs. | `\"1\"` -> `ex:p/1` |\n")
    table = parse_markdown(text, source="llm.md")
    assert [(r.data_reference, r.ontology_property) for r in table.rows] == [("ID", "ex:id")]
    assert table.notes == ["line 7: a second table starts here; only the first table is read"]


@pytest.mark.parametrize(("text", "lines"), [
    # a run's table.json: each row carries "line", its line in table.md; the line in this file counts
    ('{\n  "rows": [\n    {\n      "ontology_property": "a:p",\n      "line": 3\n    },\n'
     '    {"ontology_property": "a:q", "line": 4, "evidence": {"rows": [1, {"x": "]}"}]}}\n  ],\n'
     '  "notes": []\n}\n', [3, 7]),
    ('[\n{"ontology_property": "a:p"},\n\n  {"ontology_property": "a:q"}]', [2, 4]),  # a bare list of rows
    ('{"notes": ["n"], "rows": [{"ontology_property": "a:p"}, {"ontology_property": "a:q"}]}', [1, 1]),
    ('{"rows": [{"ontology_property": "a:p"}],\n "rows": [\n{"ontology_property": "a:q"}]}', [3]),  # the last wins
])
def test_a_json_row_s_line_is_where_its_object_stands_in_the_file(text, lines):
    from pipeline.table.formats import parse_json

    assert [r.line for r in parse_json(text, source="t.json")] == lines


def test_a_json_row_that_is_no_object_is_named_by_its_line():
    from pipeline.table.formats import parse_json

    with pytest.raises(TableParseError, match=r"t\.json:3: row 1: expected an object, found str"):
        parse_json('{"rows": [\n{"ontology_property": "a:p"},\n"x"]}', source="t.json")


def test_a_placeholder_reads_a_column_whose_name_holds_braces():
    """RML-Core templates escape a brace that delimits no reference, inside a reference too."""
    from pipeline.table.template import Segment, TemplateError, parse_template, placeholder
    assert placeholder("{id}") == "{\\{id\\}}" and placeholder("id") == "{id}"
    assert parse_template("http://ex.org/v/" + placeholder("{id}") + "_{n}") == [
        Segment("const", "http://ex.org/v/"), Segment("ref", "{id}"), Segment("const", "_"), Segment("ref", "n")]
    assert parse_template("http://ex.org/\\{a\\}/{b}") == [Segment("const", "http://ex.org/{a}/"), Segment("ref", "b")]
    with pytest.raises(TemplateError, match="never closed"):
        parse_template("http://ex.org/{a\\}")


@pytest.mark.parametrize("field, raw, expected", [
    ("subject_template", "<http://ex.org/p/{id}>", "http://ex.org/p/{id}"),
    ("ontology_property", " <http://ex.org/o#name> ", "http://ex.org/o#name"),
    ("datatype", "<http://www.w3.org/2001/XMLSchema#integer>", "http://www.w3.org/2001/XMLSchema#integer"),
    ("subject_template", "<a b>", "<a b>"),  # white space: no IRIREF, left to the audit
    ("data_reference", "<id>", "<id>"),  # a column may be named so
    ("subject_template", "-", None),
])
def test_a_cell_of_an_iri_column_in_angle_brackets_is_the_iri_between_them(field, raw, expected):
    from pipeline.table.cells import clean_cell
    assert clean_cell(raw, field) == expected
