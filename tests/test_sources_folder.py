"""A folder source (a folder or a glob of files read as one logical source): the manifest's reading
of the path (pipeline/manifest.py) and the combined copy (pipeline/sources/folders.py)."""
from __future__ import annotations

import json

import pytest

from pipeline.errors import ManifestError
from pipeline.manifest import load_manifest
from pipeline.sources.folders import folder_copy
from pipeline.sources.load import load_source


def _case(tmp_path, source: str):
    (tmp_path / "onto.ttl").write_text("", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"sources: [{source}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    return tmp_path / "case.yaml"


def _files(folder, **files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text, encoding="utf-8")


def test_a_folder_or_a_glob_is_one_source_of_its_files(tmp_path):
    _files(tmp_path / "rec", b_json='{"id": 2}', a_json='{"id": 1}', c_txt="notes")
    with pytest.raises(ManifestError, match=r"sources\[0\].path: the folder .*rec holds files of several formats "
                                            r"\(a.json, b.json, c.txt\); name the files with a glob"):
        load_manifest(_case(tmp_path, "{path: rec}"))
    src = load_manifest(_case(tmp_path, '{path: "rec/*.json"}')).sources[0]
    assert (src.path, src.format, src.name, [p.name for p in src.members]) == \
        (tmp_path / "rec", "json", "rec.json", ["a.json", "b.json"])
    src = load_manifest(_case(tmp_path, "{path: rec/, format: json, name: r.json}")).sources[0]
    assert (src.name, [p.name for p in src.members]) == ("r.json", ["a.json", "b.json"])
    with pytest.raises(ManifestError, match=r"no file in .*rec matches 'rec/\*.csv'"):
        load_manifest(_case(tmp_path, '{path: "rec/*.csv"}'))
    _files(tmp_path / "x", a_xml="<r/>")
    with pytest.raises(ManifestError, match="a folder source reads json or csv files, not xml"):
        load_manifest(_case(tmp_path, "{path: x}"))
    assert load_manifest(_case(tmp_path, "{path: rec/a.json}")).sources[0].members == ()


def test_json_files_combined_arrays_flattened_iterator_read_inside_each(tmp_path):
    _files(tmp_path / "rec", a_json='{"id": 1, "price": 1.10}', b_json='[{"id": 2}, {"id": 3}]',
           c_jsonl='{"id": 4}\n{"id": 5}\n')
    src = load_manifest(_case(tmp_path, "{path: rec}")).sources[0]
    copy, notes, iterator, _ = folder_copy(src, tmp_path / "inputs")
    assert copy.parent == tmp_path / "inputs" / "folder-sources" and iterator is None
    assert copy.read_text(encoding="utf-8") == '[{"id": 1, "price": 1.1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}]'
    assert notes[0].severity == "info" and "3 file(s) (a.json, b.json ...), 5 record(s)" in notes[0].message
    _files(tmp_path / "wrapped", a_json='{"items": [{"id": 1}]}', b_json='{"items": [{"id": 2}, {"id": 3}]}')
    src = load_manifest(_case(tmp_path, '{path: wrapped, iterator: "$.items[*]"}')).sources[0]
    data = load_source(src, tmp_path / "inputs")
    assert [f for f in data.findings if f.severity == "error"] == []
    assert data.iterator == "$[*].items[*]" and data.values("id") == ["1", "2", "3"]
    assert data.source is src and data.path.parent.name == "folder-sources"


def test_a_file_that_does_not_parse_is_named_with_line_and_column(tmp_path):
    _files(tmp_path / "rec", a_json='{"id": 1}', b_json='{"id": 2\n  "x": 3}', c_json="[1,")
    src = load_manifest(_case(tmp_path, "{path: rec}")).sources[0]
    copy, errors, _, _ = folder_copy(src, tmp_path / "inputs")
    assert copy is None and not (tmp_path / "inputs").exists()
    assert [(f.file, f.line, f.severity) for f in errors] == \
        [(str(tmp_path / "rec" / "b.json"), 2, "error"), (str(tmp_path / "rec" / "c.json"), 1, "error")]
    assert "Expecting ',' delimiter (column 3)" in errors[0].message


def test_csv_files_share_one_header(tmp_path):
    _files(tmp_path / "t", a_csv="id,name\n1,A\n", b_csv="\ufeffid;name\n2;B\n3;C\n")
    src = load_manifest(_case(tmp_path, "{path: t}")).sources[0]
    copy, notes, _, _ = folder_copy(src, tmp_path / "inputs")
    assert copy.read_bytes() == b"id,name\r\n1,A\r\n2,B\r\n3,C\r\n"
    _files(tmp_path / "t", c_csv="id,title\n4,D\n")
    src = load_manifest(_case(tmp_path, "{path: t}")).sources[0]
    copy, errors, _, _ = folder_copy(src, tmp_path / "inputs")
    assert copy is None and [(f.file, f.line) for f in errors] == [(str(tmp_path / "t" / "c.csv"), 1)]
    assert errors[0].message == ("header 'id,title' differs from the header of a.csv ('id,name': 'title' not in "
                                 "a.csv; no 'name'); the files of a folder source share one set of columns (in any "
                                 "order)")


def test_csv_files_of_one_set_of_columns_in_another_order_are_written_in_the_first_files_order(tmp_path):
    _files(tmp_path / "t", a_csv="id,name,age\n1,Ann,30\n", b_csv="id,age,name\n2,40,Bob\n\n3,50\n")
    src = load_manifest(_case(tmp_path, "{path: t}")).sources[0]
    copy, _, _, places = folder_copy(src, tmp_path / "inputs")
    # a short row keeps each cell under its own column; the blank line is no record
    assert copy.read_bytes() == b"id,name,age\r\n1,Ann,30\r\n2,Bob,40\r\n3,,50\r\n"
    assert places == ["line 2 of a.csv", "line 2 of b.csv", "line 4 of b.csv"]
    _files(tmp_path / "t", c_csv="id,name,name\n4,D,E\n")
    copy, errors, _, _ = folder_copy(load_manifest(_case(tmp_path, "{path: t}")).sources[0], tmp_path / "inputs")
    assert copy is None and errors[0].message.startswith(
        "header 'id,name,name' differs from the header of a.csv ('id,name,age': no 'age'; 'name' named twice)")


def test_json_files_records_found_per_file_where_each_file_alone_has_them(tmp_path):
    _files(tmp_path / "rec", a_json='[{"id": 1, "name": "Ann"}, 7]', b_json='{"people": [{"id": 2, "name": "Bob"}]}',
           c_jsonl='{"id": 3, "name": "Cy"}\n\n{"id": 4}\n')
    src = load_manifest(_case(tmp_path, "{path: rec}")).sources[0]
    copy, notes, iterator, places = folder_copy(src, tmp_path / "inputs")
    assert json.loads(copy.read_text(encoding="utf-8")) == \
        [{"id": 1, "name": "Ann"}, 7, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}, {"id": 4}]
    assert iterator is None and places == ["record 1 of a.json", "record 1 of b.json", "line 1 of c.jsonl",
                                           "line 3 of c.jsonl"]
    assert "5 record(s) (each document in a.json and 1 more file(s); at '$.people[*]' in b.json)" in notes[0].message
    data = load_source(src, tmp_path / "inputs")
    assert data.values("name") == ["Ann", "Bob", "Cy"] and data.places == places
    assert data.record_places([1, 3]) == {1: "record 1 of b.json", 3: "line 3 of c.jsonl"}


def test_json_files_whose_records_are_of_another_kind_are_named(tmp_path):
    _files(tmp_path / "rec", a_json='{"people": [{"id": 1, "name": "Ann"}]}', b_json='{"pets": [{"kind": "cat"}]}')
    src = load_manifest(_case(tmp_path, "{path: rec}")).sources[0]
    copy, errors, _, _ = folder_copy(src, tmp_path / "inputs")
    assert copy is None and [(f.file, f.severity, f.value) for f in errors] == \
        [(str(tmp_path / "rec" / "b.json"), "error", "$.pets[*]")]
    assert errors[0].message.startswith("the records of b.json ('$.pets[*]', members kind) are not of the kind "
                                        "of those of a.json ('$.people[*]', members id, name)")
    data = load_source(load_manifest(_case(tmp_path, '{path: rec, iterator: "$"}')).sources[0], tmp_path / "inputs")
    assert data.references == ["people.id", "people.name", "pets.kind"]
    assert data.record_places([1]) == {1: "record 1 of b.json"}


def test_a_json_file_holding_members_beside_a_list_of_objects_is_one_record(tmp_path):
    # read as the records of its list, the event's own members would be dropped; read as one record, none is
    _files(tmp_path / "rec", a_json='{"id": 1, "title": "Gala", "performers": [{"name": "Ann"}, {"name": "Bob"}]}',
           b_json='{"id": 2, "title": "Fair", "performers": [{"name": "Cy"}]}')
    data = load_source(load_manifest(_case(tmp_path, "{path: rec}")).sources[0], tmp_path / "inputs")
    assert data.iterator == "$[*]" and data.values("title") == ["Gala", "Fair"]
    assert data.values("performers.name") == ["Ann", "Bob", "Cy"]
    _files(tmp_path / "last", a_json='{"people": [{"id": 1}]}', b_json='{"people": []}', c_json="[]", d_json="{}")
    copy, notes, _, places = folder_copy(load_manifest(_case(tmp_path, "{path: last}")).sources[0], tmp_path / "inputs")
    assert copy.read_text(encoding="utf-8") == '[{"id": 1}]' and places == ["record 1 of a.json"]
    _files(tmp_path / "num", a_json='{"id": 1}', b_json="3")
    copy, errors, _, _ = folder_copy(load_manifest(_case(tmp_path, "{path: num}")).sources[0], tmp_path / "inputs")
    assert copy is None and [(f.file, f.line, f.message) for f in errors] == \
        [(str(tmp_path / "num" / "b.json"), 1, "the top level is a number; nothing to map")]


def test_csv_records_of_a_folder_source_are_placed_in_their_file(tmp_path):
    _files(tmp_path / "t", a_csv="id,name\n1,A\n", b_csv='id,name\n2,"B\nb"\n3,C\n')
    data = load_source(load_manifest(_case(tmp_path, "{path: t}")).sources[0], tmp_path / "inputs")
    assert data.record_places([0, 1, 2]) == {0: "line 2 of a.csv", 1: "line 2 of b.csv", 2: "line 4 of b.csv"}


def test_a_folder_holding_no_data_file_says_what_it_reads_and_what_it_skipped(tmp_path):
    (tmp_path / "rec").mkdir()
    with pytest.raises(ManifestError, match=r"sources\[0\].path: the folder .*rec holds no data file \(a folder source "
                                            r"reads \.json, \.jsonl, .*, \.csv, \.tsv files\); it is empty$"):
        load_manifest(_case(tmp_path, "{path: rec/}"))
    _files(tmp_path / "rec" / "sub", a_json="{}")
    (tmp_path / "rec" / ".DS_Store").write_bytes(b"\0")
    with pytest.raises(ManifestError, match=r"holds no data file .*; it holds only hidden file\(s\) \.DS_Store, "
                                            r"subfolder\(s\) sub/ \(not read: name their files with a glob, "
                                            r"rec/\*\*/\*\.json\)$"):
        load_manifest(_case(tmp_path, "{path: rec/}"))
    _files(tmp_path / "rec", a_csv="id\n1\n")
    with pytest.raises(ManifestError, match=r"holds no data file \(a folder source reads \.json, \.jsonl, \.ndjson, "
                                            r"\.geojson, \.jsonld files\); it holds only a\.csv \(another format\), hidden"):
        load_manifest(_case(tmp_path, "{path: rec/, format: json}"))
