"""Columnar CSV records (pipeline.sources.columns) give the per-row dicts of csv.DictReader, and the
sampled key / profiling fast paths give the answers of the plain per-record code."""
from __future__ import annotations

import csv
import itertools

import pytest

import pipeline.sources.columns as columns
from pipeline.sources.columns import ColumnRecords, DistinctRecords, sample_indices
from pipeline.manifest import Source
from pipeline.mappers.offline import profile
from pipeline.sources.load import load_source

TRICKY = ('\ufeffid;name;id;note\n'
          '1;"Ana; the ""first""";x;"two\nlines"\n'
          '\n'
          '2;Bo\n'
          '3;Cy;z;n;extra;cells\n'
          '4;;w; \n'
          '1;"Ana; the ""first""";x;"two\nlines"\n')


def _dictreader(path, delimiter):
    """DictReader's records, except that a repeated header name keeps its first cell (the engine's, pandas')."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter=delimiter) if r]
    header, out = rows[0], []
    first = {n: header.index(n) for n in header}
    for cells in rows[1:]:
        out.append({n: [cells[i]] if i < len(cells) and cells[i] != "" else [] for n, i in first.items()})
    return out


def _load(tmp_path, text, name="t.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return load_source(Source(path=p, format="csv"), tmp_path / "work"), p


def test_records_are_dictreader_records(tmp_path):
    data, p = _load(tmp_path, TRICKY)
    assert data.delimiter == ";" and data.bom
    assert isinstance(data.records, ColumnRecords) and not data.records.parsed  # header only at load
    expected = _dictreader(p, ";")
    assert list(data.records) == expected
    assert len(data.records) == 5 and data.records[-1] == expected[-1] and data.records[1:3] == expected[1:3]
    assert data.references == ["id", "name", "id", "note"]
    assert data.values("id") == ["1", "2", "3", "4", "1"]  # the first 'id' cell, as the engine reads it
    assert data.values("note") == ["two\nlines", "n", " ", "two\nlines"]
    assert data.values("nope") == []
    assert {v for n in data.records.names for v in data.records.column(n)} - {""} == {
        "1", "2", "3", "4", "two\nlines", "n", " ", 'Ana; the "first"', "Bo", "Cy"}


def test_undecodable_csv_is_a_finding_at_load(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_bytes(b"a,b\n1,2\n3,\xff\n")
    data = load_source(Source(path=p, format="csv"), tmp_path)
    assert len(data.records) == 0
    assert [(f.line, f.message) for f in data.findings] == [(3, "not UTF-8: byte(s) ff at line 3, column 3 (byte offset 10, 'ÿ' in Windows-1252)")]


def test_sample_is_systematic_and_deterministic():
    assert sample_indices(5, 10) == range(5)
    assert list(sample_indices(25, 10)) == [0, 3, 6, 9, 12, 15, 18, 21, 24]
    assert len(sample_indices(1_000_000)) == 10_000


@pytest.mark.parametrize("sample", [3, 10_000])
def test_sampled_keys_are_exact(tmp_path, monkeypatch, sample):
    monkeypatch.setattr(columns, "SAMPLE_RECORDS", sample)
    rows = ["k,a,b,c"] + [f"{i},{i % 7},{i // 7},{'' if i == 40 else i % 3}" for i in range(60)]
    rows += ["5,5,0,2"]  # an exact duplicate record (is no key violation)
    data, p = _load(tmp_path, "\n".join(rows) + "\n")
    fast = profile.distinct_records(data.records)
    assert isinstance(fast, DistinctRecords)
    slow = profile.distinct_records(_dictreader(p, ","))
    assert list(fast) == slow and len(fast) == 60
    refs = ["k", "a", "b", "c"]
    for size in (1, 2):
        for combo in itertools.combinations(refs, size):
            assert profile.is_key(fast, combo) == profile.is_key(slow, combo), combo
    assert profile.minimal_keys(fast, refs) == profile.minimal_keys(slow, refs) == [("k",), ("a", "b")]
    note = data.profiling()
    assert (note is None) == (sample == 10_000)
    if note:
        assert note.startswith("61 records: key candidates screened on a systematic sample of 3 records "
                               "(records 0, 21, 42, ...), each key kept confirmed on all records")


def test_profiling_on_distinct_values_matches_per_value():
    vals = columns.Values(["1", " 2 ", "", "  ", "3", "2"] * 1000)
    assert profile.profile_datatype(vals) == ("xsd:integer", "4000/4000 values match xsd:integer")
    assert profile.profile_datatype(vals) is profile.profile_datatype(vals)  # kept in the column's memo
    assert profile.is_numeric(vals) is False  # a blank '  ' is no number (as before)
    assert profile.included(["1", " 2", "9", ""], columns.Values(["1 ", "2", "3"])) == pytest.approx(2 / 3)
    assert profile.included(["", " "], ["1"]) == 0.0
    assert profile.profile_datatype(["2020-01-02", "x"]) == ("xsd:string", "2 values fit no narrower XSD type")


def test_mapper_table_is_the_same_when_keys_are_screened_on_a_sample(monkeypatch):
    """Scenario 1 'E' (students, sports, a join): with a 1-record sample every key decision is
    still exact (same rows), and each row of a sampled source says how it was profiled."""
    from pipeline.bench.blinkg import DEFAULT_BLINKG_DIR, blinkg_cases
    from pipeline.mappers import get_mapper, map_case

    if not (DEFAULT_BLINKG_DIR / "scenarios").is_dir():
        pytest.skip("BLINKG benchmark folder not present")
    cases, _ = blinkg_cases(DEFAULT_BLINKG_DIR)
    case = next(c for c in cases if c.scenario == "scenario1" and c.name == "1E")
    whole = map_case(get_mapper("offline"), case, use_embeddings=False)
    monkeypatch.setattr(columns, "SAMPLE_RECORDS", 1)
    sampled = map_case(get_mapper("offline"), case, use_embeddings=False)
    assert [r.to_dict() | {"evidence": None} for r in sampled.table] == \
        [r.to_dict() | {"evidence": None} for r in whole.table]
    notes = {s["source"]: s.get("profiling") for s in sampled.provenance["sources"]}
    assert notes["sport.csv"] is None  # one record: its own sample
    assert notes["student.csv"].startswith("2 records: key candidates screened on a systematic sample of 1 records")
    for a, b in zip(sampled.table, whole.table):
        assert a.evidence == b.evidence + ([f"profiling: {notes[a.source_file]}"] if notes[a.source_file] else [])
    assert all("profiling" not in s for s in whole.provenance["sources"])


def test_records_with_values_counted_on_columns(tmp_path):
    from pipeline.compile.coverage import _count_with_values

    data, p = _load(tmp_path, TRICKY)
    rows = _dictreader(p, ";")
    for refs in ([], ["id"], ["name"], ["name", "note"], ["note"], ["nope"]):
        slow = sum(1 for rec in rows if all(any(v.strip() for v in rec.get(r, [])) for r in refs))
        assert _count_with_values(data, refs) == slow, refs
    assert _count_with_values(data, ["name", "note"]) == 3  # ' ' is blank, 'Bo' has no note
