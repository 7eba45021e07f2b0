"""Profile-and-sample (``kgc map`` on a large CSV): the records held are a systematic sample, the value
statistics profiling reads are those of every record."""
from __future__ import annotations

from pipeline.manifest import Source
from pipeline.mappers.offline.profile import distinct_records, included, is_key, nonblank_count, profile_datatype
from pipeline.sources.load import load_source


def _csv(path, n):
    lines = ["id,code,num"]
    for i in range(n):
        lines.append(f"r{i},c{i % 7},{'x' if i == 151 else '' if i == 152 else i}")  # 151, 152: not sampled
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Source(path=path, format="csv")


def test_a_large_csv_is_held_as_its_sample_with_every_records_statistics(tmp_path, monkeypatch):
    monkeypatch.setattr("pipeline.sources.columns.PROFILE_RECORDS", 100)
    monkeypatch.setattr("pipeline.sources.columns.SAMPLE_RECORDS", 30)
    src = _csv(tmp_path / "big.csv", 300)
    data = load_source(src, tmp_path / "copies", profile=True)
    records = data.records
    assert (len(records), records.total, records.step) == (30, 300, 10)  # records 0, 10, 20, ...
    assert records.column("id")[:3] == ["r0", "r10", "r20"]
    nums = data.values("num")
    assert len(nums) == 30 and nonblank_count(nums) == 299  # the empty cell of record 152 is no value
    assert profile_datatype(nums)[0] == "xsd:string"  # record 151's 'x', which the sample does not hold
    assert included(data.values("code"), [f"c{i}" for i in range(7)]) == 1.0
    distinct = distinct_records(records)
    assert is_key(distinct, ("id",)) and not is_key(distinct, ("code",))
    assert "systematic sample of 30 (records 0, 10, 20, ...)" in data.profiling()
    whole = load_source(src, tmp_path / "copies")  # not for profiling: every record
    assert len(whole.records) == 300 and not whole.records.sampled
    assert data.head_values("id", 2) == ["r0", "r1"]  # the file's first records, not the sample's


def test_a_file_under_the_limit_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("pipeline.sources.columns.PROFILE_RECORDS", 1000)
    data = load_source(_csv(tmp_path / "small.csv", 300), tmp_path / "copies", profile=True)
    assert len(data.records) == 300 and not data.records.sampled and data.records.value_counts("id") is None
    assert profile_datatype(data.values("num"))[0] == "xsd:string"
