"""Faults found with a second newcomer's own data (branch h-new2): nested JSON of organisations and
people, XML exports read as several named sources.

Inputs: tests/cases/<name>/ (README.md in each says what was seen and what is expected).
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from pipeline.cli import main

CASES = Path(__file__).resolve().parent / "cases"


def _table(path: Path) -> list[tuple[str, ...]]:
    """Rows of a written table as (reference, source file, property, class, subject template, join)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines()[2:]:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows.append((c[0], c[1], c[2], c[3], c[5], c[6]))
    return rows


def _run(tmp_path: Path, case: str) -> Path:
    """``kgc run`` the case (copied, so nothing is written beside the inputs); the case's output folder."""
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    return tmp_path / "out" / "tests" / case


def test_nested_entity_is_keyed_by_its_inverse_functional_identifier_and_keeps_its_siblings(tmp_path):
    out = _run(tmp_path, "nested-identifier-key")
    rows = {r[0]: r[2:5] for r in _table(out / "table.md") if r[0]}
    person = "http://example.org/data/person/{members.person.pid}"
    address = "http://example.org/data/postalAddress/{address.street}_{address.city}_{address.postcode}"
    assert rows["members.person.pid"] == ("org:personId", "org:Person", person)
    assert rows["members.person.email"] == ("org:email", "org:Person", person)
    # a member of the address object that opened org:PostalAddress is that address's value (0.66 < 0.7)
    assert rows["address.postcode"] == ("org:postalCode", "org:PostalAddress", address)
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    persons = sorted(t.split()[0] for t in kg if t.endswith("<http://example.org/org#Person> ."))
    # P-2 has no email: keyed by every member it had no subject and was missing
    assert persons == [f"<http://example.org/data/person/P-{i}>" for i in (1, 2, 3)]
    assert ('<http://example.org/data/postalAddress/Hauptstr.%205_Berlin_10115> '
            '<http://example.org/org#postalCode> "10115" .') in kg
    # posts in an organisation's member list are keyed within it: the CEOs of ORG-1 and ORG-2 are two
    membership = "http://example.org/data/membership/{id}_{members.role}_{members.since}"
    assert rows["members.role"] == ("org:roleName", "org:Membership", membership)
    assert rows["members.since"] == ("org:startDate", "org:Membership", membership)
    m, o = "<http://example.org/data/membership/", "<http://example.org/data/organization/"
    assert sorted(t for t in kg if "#organization>" in t) == [
        f"{m}ORG-1_CEO_2015-01-01> <http://example.org/org#organization> {o}ORG-1> .",
        f"{m}ORG-1_CTO_2019-06-15> <http://example.org/org#organization> {o}ORG-1> .",
        f"{m}ORG-2_CEO_2010-03-01> <http://example.org/org#organization> {o}ORG-2> .",
    ]
    # the person object inside each post is that post's member (both nested entities of one record)
    p = "<http://example.org/data/person/"
    assert sorted(t for t in kg if "#member>" in t) == [
        f"{m}ORG-1_CEO_2015-01-01> <http://example.org/org#member> {p}P-1> .",
        f"{m}ORG-1_CTO_2019-06-15> <http://example.org/org#member> {p}P-2> .",
        f"{m}ORG-2_CEO_2010-03-01> <http://example.org/org#member> {p}P-3> .",
    ]


def test_named_sources_of_one_xml_file_are_told_apart_and_a_nested_object_joins_once(tmp_path):
    out = _run(tmp_path, "xml-named-sources")
    rows = _table(out / "table.md")
    # the rows of the source named courses.xml read that source (not another source of the same file)
    assert sorted(r[:4] for r in rows if r[3] == "uni:Course" and r[0] and not r[5]) == [
        ("@code", "courses.xml", "uni:courseCode", "uni:Course"),
        ("@credits", "courses.xml", "uni:credits", "uni:Course"),
        ("uni:title", "courses.xml", "uni:courseTitle", "uni:Course"),
    ]
    # one join per referenced course, on its key
    assert [r[5] for r in rows if r[2] == "uni:offers"] == ["departments.uni:course/@code==courses.@code"]
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert sorted(run["coverage"]) == ["courses.xml", "departments.xml", "sessions.xml", "teachers.xml"]
    assert run["coverage"]["courses.xml"]["records"] == 3
    kg = set((out / "kg.nt").read_text(encoding="utf-8").splitlines())
    uni, data = "http://example.org/uni#", "http://example.org/data/"
    assert f'<{data}course/CS202> <{uni}credits> "7.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .' in kg
    assert f"<{data}department/CS> <{uni}offers> <{data}course/CS202> ." in kg
    # prefixed attributes are read (the engine's ElementTree names them {namespace}local): teachers are
    # keyed by xml:id, courses link them through the IDREF-like @ref, titles are tagged by their xml:lang
    rows = {(r[1], r[0]): r for r in rows}
    assert rows[("teachers.xml", "uni:name")][4] == "http://example.org/data/teacher/{@xml:id}"
    assert rows[("courses.xml", "uni:taughtBy/@ref")][5] == "courses.uni:taughtBy/@ref==teachers.@xml:id"
    assert sorted(t for t in kg if f"<{uni}taughtBy>" in t) == [
        f"<{data}course/{c}> <{uni}taughtBy> <{data}teacher/{t}> ." for c, t in
        (("CS101", "T1"), ("CS202", "T2"), ("MA110", "T1"))]
    assert f'<{data}department/MA> <{uni}departmentName> "Mathematik"@de .' in kg
    assert f'<{data}course/MA110> <{uni}courseTitle> "Lineare Algebra"@de .' in kg
    assert f'<{data}course/CS101> <{uni}courseTitle> "Introduction to Programming"@en .' in kg
    assert sorted(t for t in kg if f"<{uni}offers>" in t) == [
        f"<{data}department/CS> <{uni}offers> <{data}course/CS101> .",
        f"<{data}department/CS> <{uni}offers> <{data}course/CS202> .",
        f"<{data}department/MA> <{uni}offers> <{data}course/MA110> .",
    ]


def test_a_column_naming_other_records_of_its_own_source_is_a_self_join_relation(tmp_path):
    out = _run(tmp_path, "self-reference")
    rows = {r[0]: r[2:] for r in _table(out / "table.md") if r[0]}
    assert rows["manager"] == ("st:reportsTo", "st:Employee", "http://example.org/data/employee/{emp_id}",
                               "employees.manager==employees.emp_id")
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    e = "http://example.org/data/employee/"
    assert sorted(t for t in kg if "#reportsTo>" in t) == [
        f"<{e}E-02> <http://example.org/staff#reportsTo> <{e}E-01> .",
        f"<{e}E-03> <http://example.org/staff#reportsTo> <{e}E-01> .",
        f"<{e}E-04> <http://example.org/staff#reportsTo> <{e}E-03> .",
    ]


def test_a_catalogue_read_as_one_record_names_its_repeating_elements_and_the_way_out(tmp_path):
    from pipeline.manifest import Source
    from pipeline.sources.load import load_source

    xml = CASES / "xml-named-sources" / "courses.xml"
    data = load_source(Source(path=xml, format="xml"), tmp_path)
    assert data.iterator == "/uni:catalogue" and len(data.records) == 1
    found = [f for f in data.findings if f.column == "iterator"]
    # a root whose children hold no text of their own only groups collections: a warning
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].candidate == "/uni:catalogue/uni:teachers/uni:teacher"
    assert ("holding repeating elements /uni:catalogue/uni:teachers/uni:teacher (2), /uni:catalogue/uni:department "
            "(2), /uni:catalogue/uni:department/uni:course (2), /uni:catalogue/uni:department/uni:course/uni:session "
            "(2):") in found[0].message
    # a given iterator is the engineer's choice: nothing to say
    given = load_source(Source(path=xml, format="xml", iterator="/uni:catalogue/uni:department"), tmp_path)
    assert not [f for f in given.findings if f.column == "iterator"]


def test_dates_are_no_date_times_stamps_need_a_zone_and_missing_markers_keep_a_decimal_comma_column(tmp_path):
    out = _run(tmp_path, "sensor-datetime-missing")  # exit 0: no literal is dropped
    rows = {r[0]: r for r in _table(out / "table.md") if r[0]}
    assert "installed" not in rows and "phenomenon_time" not in rows
    assert rows["value"][2] == "iot:hasSimpleResult"
    table = (out / "table.md").read_text(encoding="utf-8")
    assert "| value | observations.csv | iot:hasSimpleResult | iot:Observation |  | " \
           "http://example.org/data/observation/{obs_id} |  | xsd:decimal |  | toDecimal() |" in table
    audit = (out / "audit.md").read_text(encoding="utf-8")
    assert re.search(r"column 'installed' of sensors\.csv is not mapped; best candidates: iot:installationDate "
                     r"\(similarity 0\.\d\d, but the values do not fit its range \(only 0 of 3 do; more than half must\)\)",
                     audit)
    assert re.search(r"column 'phenomenon_time' of observations\.csv is not mapped; best candidates: iot:phenomenonTime "
                     r"\(similarity 0\.\d\d, but the values do not fit its range \(only 1 of 6 do;", audit)
    assert ("column 'value' of observations.csv (iot:hasSimpleResult, toDecimal()): 2 cell(s) say no value "
            "('NA', '-'): they give no triple") in audit
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    o, d = "http://example.org/data/observation/", "http://www.w3.org/2001/XMLSchema#decimal"
    assert sorted(t for t in kg if "#hasSimpleResult>" in t) == [
        f'<{o}O-{n}> <http://example.org/iot#hasSimpleResult> "{v}"^^<{d}> .'
        for n, v in (("1001", "7.25"), ("1002", "8.10"), ("1003", "71.5"), ("1005", "1013.2"))]



def test_quiet_keeps_the_findings_as_its_help_says(tmp_path, capsys):
    from pipeline.cli import QUIET_HELP

    work = tmp_path / "case"
    shutil.copytree(CASES / "sensor-datetime-missing", work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    err = capsys.readouterr().err
    # the help said "errors only" while warnings and infos are printed (and tests read them)
    assert "warning: " in err and "info: " in err and "are still printed" in QUIET_HELP


def test_a_blank_spreadsheet_line_is_no_record_lacking_its_identifier(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-excel-blank-record", work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    err = capsys.readouterr().err
    assert "have no 'Product ID'" not in err
    assert "header cell(s) in column(s) 5, 6 are empty" in err
    rows = {r[0]: r for r in _table(tmp_path / "t.md")}
    assert sorted(rows) == ["Date added", "Name", "Price (EUR)", "Product ID"]
    assert rows["Product ID"][2:5] == ("s:sku", "s:Product", "http://example.org/data/product/{Product ID}")


def test_a_finding_on_a_named_source_names_that_source_not_the_shared_file(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "xml-named-sources", work)
    table = tmp_path / "t.md"
    table.write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype |\n"
        "|---|---|---|---|---|---|\n"
        "| @code | courses.xml | uni:courseCode | uni:Course | http://example.org/data/course/{@code} | xsd:string |\n"
        "| uni:nam | teachers.xml | uni:teacherName | uni:Teacher | http://example.org/data/teacher/{uni:name} | "
        "xsd:string |\n", encoding="utf-8")
    assert main(["-q", "compile", str(work / "case.yaml"), str(table), str(tmp_path / "m.ttl")]) == 1
    err = capsys.readouterr().err
    assert f"error: {table}:4 [data_reference]: data reference 'uni:nam' is no column/path of teachers.xml\n" in err
    assert ":3 [data_reference]" not in err  # courses.xml is the source of that name, which has @code


def test_records_keyed_by_their_identifiers_in_an_object_are_records(tmp_path):
    out = _run(tmp_path, "json-keyed-records")
    rows = sorted(r[:3] for r in _table(out / "table.md"))
    assert rows == [("label", "sensors.json", "iot:sensorLabel"), ("model", "sensors.json", "iot:modelName"),
                    ("unit", "sensors.json", "iot:unitOfMeasure")]
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    assert sorted(t.split()[2] for t in kg if "#modelName>" in t) == ['"BMP-388"', '"TMP-117"']
    assert len([t for t in kg if t.endswith("<http://example.org/iot#Sensor> .")]) == 3
    audit = (out / "audit.md").read_text(encoding="utf-8")
    assert ("the records are the members of an object, keyed by 'S-01', 'S-02', 'S-03' (iterator '$.sensors.*'): "
            "a JSONPath reference cannot read a member's name, so these keys are no data") in audit


def test_database_date_times_get_to_date_time_and_keep_their_zone(tmp_path):
    from pipeline.fno.udfs import normalize_datetime

    assert [normalize_datetime(v) for v in ("2024-03-01 10:00:00+01", "2024-03-01 10:00 +0100", "2024-03-01T10:00",
                                           "2024-03-01 10:00:00.25Z", "01/03/2024 10:00", "2024-02-30 10:00",
                                           "2024-03-01 24:00", "2024-03-01 10:00+15")] == [
        "2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00", "2024-03-01T10:00:00.25Z",
        None, None, None, None]
    out = _run(tmp_path, "csv-datetime-space")  # exit 0: no literal is dropped
    rows = {r[0]: r for r in _table(out / "table.md")}
    table = (out / "table.md").read_text(encoding="utf-8")
    for ref, dt in (("phenomenon_time", "xsd:dateTimeStamp"), ("result_time", "xsd:dateTime")):
        assert rows[ref][2] == f"iot:{'phenomenonTime' if ref == 'phenomenon_time' else 'resultTime'}"
        assert f"| {ref} | observations.csv | {rows[ref][2]} | iot:Observation |  | " \
               f"http://example.org/data/observation/{{obs_id}} |  | {dt} |  | toDateTime() |" in table
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    x, o = "http://www.w3.org/2001/XMLSchema#", "http://example.org/data/observation/"
    assert sorted(t for t in kg if "#phenomenonTime>" in t) == [
        f'<{o}O-{i}> <http://example.org/iot#phenomenonTime> "{v}"^^<{x}dateTimeStamp> .' for i, v in
        ((1, "2024-03-01T10:00:00+01:00"), (2, "2024-03-01T11:00:00+01:00"), (3, "2024-03-01T12:00:00Z"))]
    assert f'<{o}O-3> <http://example.org/iot#resultTime> "2024-03-01T12:05:30"^^<{x}dateTime> .' in kg


def test_cells_that_say_no_value_give_no_triple_instead_of_failing_the_run(tmp_path):
    from pipeline.fno.udfs import skip_missing

    assert [skip_missing(v) for v in ("NA", " n/a ", "-", "null", "7.25", "None", "0")] == [
        None, None, None, None, "7.25", None, "0"]
    out = _run(tmp_path, "csv-missing-markers")  # exit 0: nothing is dropped
    table = (out / "table.md").read_text(encoding="utf-8")
    for ref, prop, dt in (("value", "iot:hasSimpleResult", "xsd:decimal"), ("count", "iot:count", "xsd:integer")):
        assert f"| {ref} | observations.csv | {prop} | iot:Observation |  | http://example.org/data/observation/" \
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
