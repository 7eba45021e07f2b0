"""Sources the manifest lists one by one that are of one kind: grouped by shape (pipeline.sources.same_kind),
read alike, profiled together and mapped by one set of rows written for each file
(pipeline.mappers.offline.onekind)."""
from __future__ import annotations

import json
import shutil

from pipeline.cli import main
from pipeline.manifest import Source
from pipeline.mappers.offline.onekind import Group, merge, spread
from pipeline.sources.load import load_source, load_sources
from pipeline.sources.same_kind import same_kind_groups
from pipeline.table import MappingRow

from helpers import CASES, table_rows


def test_listed_json_files_of_one_kind_get_one_set_of_rows(tmp_path):
    shutil.copytree(CASES / "json-listed-files-one-kind", tmp_path / "c")
    assert main(["-q", "map", str(tmp_path / "c" / "case.yaml"), str(tmp_path / "t.md")]) == 0
    adv = "http://example.org/data/advisory/{document.tracking.id}"
    vul = "http://example.org/data/vulnerability/{document.tracking.id}_{vulnerabilities.#}"
    per_file = [("document.title", "sec:title", "sec:Advisory", adv, ""),
                ("document.tracking.id", "sec:trackingId", "sec:Advisory", adv, ""),
                ("document.tracking.initial_release_date", "sec:releaseDate", "sec:Advisory", adv, ""),
                ("vulnerabilities.cve", "sec:cve", "sec:Vulnerability", vul, ""),
                ("vulnerabilities.score", "sec:score", "sec:Vulnerability", vul, ""),
                ("", "sec:hasVulnerability", "sec:Advisory", adv, "document.tracking.id==document.tracking.id")]
    files = ["adv-001.json", "adv-002.json", "adv-003.json"]
    expected = [(r, f, p, c, t, j) for r, p, c, t, j in per_file[:5] for f in files]
    expected += [("vendor_id", "vendors.json", "sec:vendorId", "sec:Vendor", "http://example.org/data/vendor/{vendor_id}", ""),
                 ("vendor_name", "vendors.json", "sec:vendorName", "sec:Vendor",
                  "http://example.org/data/vendor/{vendor_id}", "")]
    expected += [(r, f, p, c, t, j) for r, p, c, t, j in per_file[5:] for f in files]
    assert table_rows(tmp_path / "t.md") == expected


def _csv(path, header, rows):
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return Source(path, "csv")


def _json(path, value, iterator=None):
    path.write_text(json.dumps(value), encoding="utf-8")
    return Source(path, "json", iterator)


def test_groups_by_format_and_shape(tmp_path):
    c = tmp_path / "copies"
    sources = [_csv(tmp_path / "a.csv", "id,name", ["1,x"]),
               _csv(tmp_path / "b.csv", "name,id", ["y,2"]),  # the same columns in another order: one kind
               _csv(tmp_path / "c.csv", "id,title", ["3,z"]),  # other columns
               _json(tmp_path / "d.json", {"doc": {"id": 1, "title": "t"}, "items": [{"k": 1}]}),
               _json(tmp_path / "e.json", {"doc": {"id": 2, "title": "u", "notes": "n"}, "items": [{"k": 2}]}),
               _json(tmp_path / "f.json", {"doc": {"id": 3}, "other": [{"x": 1}], "more": 1}),  # 2 of 8 paths shared
               _json(tmp_path / "g.json", {"doc": {"id": 4, "title": "v"}, "items": [{"k": 3}]}, "$.items[*]")]
    loaded = load_sources(sources, c)
    assert same_kind_groups(loaded) == [[0, 1], [3, 4]]
    # a file of one document is one record when its kind has several files, as in a folder source
    assert [d.iterator for d in loaded[3:]] == ["$", "$", "$.other[*]", "$.items[*]"]
    assert [len(d.records) for d in loaded[3:5]] == [1, 1]
    assert load_source(sources[3], c).iterator == "$.items[*]"  # alone, the loader takes the array
    listed, groups, notes = merge(list(loaded), {s.path.name for s in sources})
    # no shared word in their names: the first file's, which is taken, and "-files"
    assert groups == [Group("a-files.csv", ("a.csv", "b.csv"), ("a", "b")),
                      Group("d-files.json", ("d.json", "e.json"), ("d", "e"))]
    assert [d.source.name for d in listed] == [groups[0].name, "", groups[1].name, "", ""]
    assert [len(d.records) for d in (listed[0], listed[2])] == [2, 2]


def test_files_named_by_language_stay_apart(tmp_path):
    sources = [_csv(tmp_path / f"thesaurus-{code}.csv", "id;name", [f"1;{word}"])
               for code, word in (("en", "house"), ("fr", "maison"), ("nl", "huis"))]
    loaded = load_sources(sources, tmp_path / "copies")
    assert same_kind_groups(loaded) == [[0, 1, 2]]
    listed, groups, notes = merge(list(loaded), {s.path.name for s in sources})
    assert (listed, groups, notes) == (loaded, [], [])


def test_rows_of_a_group_are_written_for_each_file_and_joins_naming_it_too():
    group = Group("adv.json", ("adv-1.json", "adv-2.json"), ("adv-1", "adv-2"))
    rows = [MappingRow(data_reference="title", source_file="adv.json", ontology_property="ex:title"),
            MappingRow(source_file="notes.csv", ontology_property="ex:about", join_condition="notes.adv == adv.id"),
            MappingRow(data_reference="name", source_file="notes.csv", ontology_property="ex:name")]
    out = spread(rows, [group])
    assert [(r.source_file, r.data_reference, r.join_condition) for r in out] == [
        ("adv-1.json", "title", None), ("adv-2.json", "title", None),
        ("notes.csv", None, "notes.adv == adv-1.id"), ("notes.csv", None, "notes.adv == adv-2.id"),
        ("notes.csv", "name", None)]
    assert out[4] is rows[2]
