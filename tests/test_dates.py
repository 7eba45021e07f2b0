"""Dates, date-times and clock times: the offline mapper's proposals, the date order decided from
the values or the table, and the FnO functions that normalise them."""
from __future__ import annotations

import re
import shutil

import pytest
from rdflib import URIRef

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import CASES, findings_in, kgc_run, materialize_compiled, table_rows


O = "http://example.org/o#"


def test_dates_are_no_date_times_stamps_need_a_zone_and_missing_markers_keep_a_decimal_comma_column(tmp_path):
    out = kgc_run(tmp_path, "sensor-datetime-missing")  # exit 0: no literal is dropped
    rows = {r[0]: r for r in table_rows(out / "table.md") if r[0]}
    assert "installed" not in rows and "phenomenon_time" not in rows
    assert rows["value"][2] == "iot:hasSimpleResult"
    table = (out / "table.md").read_text(encoding="utf-8")
    assert "| value | observations.csv | iot:hasSimpleResult | iot:Observation |  | "\
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


def test_database_date_times_get_to_date_time_and_keep_their_zone(tmp_path):
    from pipeline.fno.udfs import normalize_datetime

    assert [normalize_datetime(v) for v in ("2024-03-01 10:00:00+01", "2024-03-01 10:00 +0100", "2024-03-01T10:00",
                                           "2024-03-01 10:00:00.25Z", "01/03/2024 10:00", "2024-02-30 10:00",
                                           "2024-03-01 24:00", "2024-03-01 10:00+15")] == [
        "2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00", "2024-03-01T10:00:00.25Z",
        None, None, None, None]
    out = kgc_run(tmp_path, "csv-datetime-space")  # exit 0: no literal is dropped
    rows = {r[0]: r for r in table_rows(out / "table.md")}
    table = (out / "table.md").read_text(encoding="utf-8")
    for ref, dt in (("phenomenon_time", "xsd:dateTimeStamp"), ("result_time", "xsd:dateTime")):
        assert rows[ref][2] == f"iot:{'phenomenonTime' if ref == 'phenomenon_time' else 'resultTime'}"
        assert f"| {ref} | observations.csv | {rows[ref][2]} | iot:Observation |  | "\
               f"http://example.org/data/observation/{{obs_id}} |  | {dt} |  | toDateTime() |" in table
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    x, o = "http://www.w3.org/2001/XMLSchema#", "http://example.org/data/observation/"
    assert sorted(t for t in kg if "#phenomenonTime>" in t) == [
        f'<{o}O-{i}> <http://example.org/iot#phenomenonTime> "{v}"^^<{x}dateTimeStamp> .' for i, v in
        ((1, "2024-03-01T10:00:00+01:00"), (2, "2024-03-01T11:00:00+01:00"), (3, "2024-03-01T12:00:00Z"))]
    assert f'<{o}O-3> <http://example.org/iot#resultTime> "2024-03-01T12:05:30"^^<{x}dateTime> .' in kg


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
    # attendance's '1,500' goes into an xsd:integer, which has no fraction: 1.5 is no reading, the comma groups
    # thousands, and toDecimal() writes 1500; 'N/A' is no value
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "ev2"
    table = (folder / "table.md").read_text(encoding="utf-8")
    assert "| start_time | events.csv | ev:startTime | ev:Event |  | http://example.org/data/event/{event_code} |  "\
           "| xsd:time |  | toTime() | time normalised to xsd:time (hh:mm:ss) |" in table
    kg = (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
    times = sorted(line for line in kg if "#startTime>" in line)
    assert [t.split("> ", 2)[2] for t in times] == [
        '"20:00:00"^^<http://www.w3.org/2001/XMLSchema#time> .', '"18:30:00"^^<http://www.w3.org/2001/XMLSchema#time> .',
        '"17:00:00"^^<http://www.w3.org/2001/XMLSchema#time> .', '"19:30:00"^^<http://www.w3.org/2001/XMLSchema#time> .']
    audit = (folder / "audit.md").read_text(encoding="utf-8")
    assert "outdoor" not in audit and "dropped" not in audit
    assert "| attendance | events.csv | ev:attendance | ev:Event |  | http://example.org/data/event/{event_code} |  "\
           "| xsd:integer |  | toDecimal() |" in table
    assert sorted(line.split("> ", 2)[2] for line in kg if "#attendance>" in line) == [
        '"1200"^^<http://www.w3.org/2001/XMLSchema#integer> .', '"1500"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        '"85"^^<http://www.w3.org/2001/XMLSchema#integer> .']


def test_dates_with_month_names_are_dates(tmp_path):
    from pipeline.fno import udfs

    assert [udfs.normalize_date(v, "YMD") for v in ("29 April 2003", "April 29, 2003", "29-Apr-2003",
                                                     "29 de abril de 2003", "31 February 2003", "May 2003")] ==\
        ["2003-04-29", "2003-04-29", "2003-04-29", "2003-04-29", None, None]
    work = tmp_path / "case"
    shutil.copytree(CASES / "csv-month-name-dates", work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "custom" / "books"
    assert "| Publication Date | books.csv | lib:publicationDate | lib:Book |  | "\
           "http://example.org/library/book/{ISBN-13} |  | xsd:date |  | toDate() |"\
           in (folder / "table.md").read_text(encoding="utf-8")
    dates = sorted(line.split("> ", 2)[2] for line in (folder / "kg.nt").read_text(encoding="utf-8").splitlines()
                   if "#publicationDate>" in line)
    assert dates == ['"1971-01-05"^^<http://www.w3.org/2001/XMLSchema#date> .',
                     '"2003-04-29"^^<http://www.w3.org/2001/XMLSchema#date> .',
                     '"2007-03-01"^^<http://www.w3.org/2001/XMLSchema#date> .']


@pytest.mark.parametrize("values, output, expected, status", [
    (["03/04/2024", "12/11/2024", "2024-05-06"], "date as xsd:date", {"e1": None, "e2": None, "e3": "2024-05-06"},
     "cannot be told"),
    (["03/04/2024", "12/11/2024", "20240506"], "MM/DD/YYYY", {"e1": "2024-03-04", "e2": "2024-12-11",
                                                              "e3": "2024-05-06"}, None),
    (["13/04/2024", "04/13/2024", "2024-05-06"], "", {"e1": None, "e2": None, "e3": "2024-05-06"},
     "some values are day-first and others month-first"),
])
def test_date_order_ambiguous_stated_or_conflicting(tmp_path, values, output, expected, status):
    from dataclasses import replace

    from pipeline.manifest import Source

    csv = tmp_path / "events.csv"
    csv.write_text("id,date\n" + "".join(f"e{i},{v}\n" for i, v in enumerate(values, 1)), encoding="utf-8")
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation | Datatype | Function Name "
                     f"| Function Output |\n|---|---|---|---|---|---|---|\n| date | ex:date | ex:Event | "
                     f"http://example.org/e/{{id}} | xsd:date | toDate | {output} |\n", encoding="utf-8")
    case = load_manifest(CASES / "date-month-first-swapped" / "case.yaml")
    case = replace(case, sources=(Source(csv, "csv", None, "events.csv"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    kg = materialize_compiled(compiled, sources, tmp_path)
    got = {str(s).rsplit("/", 1)[1]: str(o) for s, o in kg.subject_objects(URIRef(O + "date"))}
    assert got == {k: v for k, v in expected.items() if v}
    warnings = [f.message for f in findings_in(compiled, "function_name") if f.severity == "warning"]
    assert (status is None and not warnings) or any(status in w for w in warnings)


def test_decide_date_order_from_values_or_the_table():
    from pipeline.fno.dates import decide_date_order, stated_date_order

    day_first = decide_date_order(["30/01/2024", "31/02/2024"])
    assert (day_first.order, day_first.evidence, day_first.invalid) == ("DMY", ["30/01/2024"], ["31/02/2024"])
    amb = decide_date_order(["03/04/2024", "31/02/2024", "2024-01-01", "20240101"])
    assert (amb.status, amb.order, amb.evidence) == ("ambiguous", "YMD", ["03/04/2024"])
    assert decide_date_order(["2024-01-01", "20240101"]).status == "year-first"
    stated = decide_date_order(["03/04/2024", "13/01/2024"], stated_date_order("toDate", "MM/DD/YYYY"))
    assert (stated.order, stated.invalid) == ("MDY", ["13/01/2024"])
    assert [stated_date_order(c) for c in ("dd.mm.yyyy", "m/d/yy", "date as xsd:date", "YYYY-MM-DD")] ==\
        ["DMY", "MDY", None, None]


def test_to_date_keeps_a_written_timezone_in_xsd_form():
    """XSD 1.1 Part 2, 3.3.9: a date's timezone is part of its value, so toDate() keeps it (as toDateTime() does);
    a midnight date-time keeps its zone too, a zone out of range gives no value rather than a wrong one."""
    from pipeline.fno import udfs

    assert [udfs.normalize_date(v) for v in ("2020-01-16Z", "2020-01-17+09:00", "2020-01-18", "2020-01-18-05:30",
                                             "2024-03-04T00:00:00+0900", "2024/03/04 00:00 Z", "2024-03-04+15:00",
                                             "2024-03-04T05:00+09:00", "20240304")] == \
        ["2020-01-16Z", "2020-01-17+09:00", "2020-01-18", "2020-01-18-05:30",
         "2024-03-04+09:00", "2024-03-04Z", None, None, "2024-03-04"]


@pytest.mark.parametrize("value, expected", [
    ("1 mars 2024", "2024-03-01"), ("15 février 2024", "2024-02-15"), ("15 fevrier 2024", "2024-02-15"),
    ("1er mai 2024", "2024-05-01"), ("5 août 2024", "2024-08-05"), ("3 déc. 2024", "2024-12-03"),
    ("1. März 2024", "2024-03-01"), ("24. Dezember 2024", "2024-12-24"), ("3 Okt 2024", "2024-10-03"),
    ("12 maart 2024", "2024-03-12"), ("12 mrt 2024", "2024-03-12"), ("1 mei 2024", "2024-05-01"),
    ("3 dicembre 2024", "2024-12-03"), ("7 gennaio 2024", "2024-01-07"), ("2 giugno 2024", "2024-06-02"),
    ("1 de março de 2024", "2024-03-01"), ("9 outubro 2024", "2024-10-09"), ("30 fevereiro 2024", None),
    ("1 marz 2024", None),                # no month of any of the languages
])
def test_month_names_of_seven_languages(value, expected):
    from pipeline.fno import udfs

    assert udfs.normalize_date(value, "YMD") == expected


def test_no_month_word_names_two_months():
    from pipeline.fno import udfs

    source = udfs._MONTHS  # built from one line per month: a word on two lines would be kept for the later one
    lines = [line for line in open(udfs.__file__, encoding="utf-8").read().split("_MONTHS = {", 1)[1]
             .split("for name in names.split()}", 1)[0].split('"')[1::2]]
    words = [w for line in lines for w in line.split()]
    assert len(lines) == 12 and len(words) == len(set(words)) == len(source)


@pytest.mark.parametrize("value, expected", [
    ("oui", "true"), ("Non", "false"), ("ja", "true"), ("NEIN", "false"), ("nee", "false"), ("sí", "true"),
    ("sim", "true"), ("não", "false"), ("vrai", "true"), ("falso", "false"), ("1", "true"), ("0", "false"),
    ("peut-être", None), ("2", None),
])
def test_yes_no_words(value, expected):
    from pipeline.fno import udfs

    assert udfs.normalize_boolean(value) == expected


@pytest.mark.parametrize("value, order, expected", [
    ("lundi 4 mars 2024", "YMD", "2024-03-04"), ("Monday, 4 March 2024", "YMD", "2024-03-04"),
    ("Monday, March 4, 2024", "YMD", "2024-03-04"), ("Montag, 4. März 2024", "YMD", "2024-03-04"),
    ("lunes, 4 de marzo de 2024", "YMD", "2024-03-04"), ("maandag 4 maart 2024", "YMD", "2024-03-04"),
    ("lunedì 4 marzo 2024", "YMD", "2024-03-04"), ("segunda-feira, 4 de março de 2024", "YMD", "2024-03-04"),
    ("lun. 4 mars 2024", "YMD", "2024-03-04"), ("Sun 3 Mar 2024", "YMD", "2024-03-03"),
    ("Mon 04/03/2024", "DMY", "2024-03-04"), ("Mon 2024-03-04", "YMD", "2024-03-04"),
    ("Tuesday, 4 March 2024", "YMD", None),   # 4 March 2024 is a Monday: the value contradicts itself
    ("Mon 04/03/2024", "MDY", None),          # 3 April 2024 is a Wednesday
    ("hello 4 mars 2024", "YMD", None),       # no weekday
    ("Mar 4, 2024", "YMD", "2024-03-04"),     # a month before the day, not the Spanish or French Tuesday
])
def test_a_weekday_before_the_date_is_read_when_it_is_the_date_s(value, order, expected):
    from pipeline.fno import udfs

    assert udfs.normalize_date(value, order) == expected


def test_no_weekday_word_names_two_days():
    from pipeline.fno import udfs

    text = open(udfs.__file__, encoding="utf-8").read().split("_WEEKDAYS = {", 1)[1].split("for name in names.split()}", 1)[0]
    lines = [" ".join(part for part in day.split('"')[1::2]) for day in text.split('",\n')]
    words = [w for line in lines for w in line.split()]
    assert len(lines) == 7 and len(words) == len(set(words)) == len(udfs._WEEKDAYS)
