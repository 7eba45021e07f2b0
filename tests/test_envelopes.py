"""Envelopes: JSON fields wrapped in objects of one shape (a value beside metadata of its extraction),
found from the data (never the member names) and mapped as the fields their outer keys name."""
from __future__ import annotations

import json

from pipeline.manifest import Source
from pipeline.mappers.offline.envelopes import unwrap
from pipeline.sources.envelopes import Envelopes, find_envelopes
from pipeline.sources.load import load_source

#: One record of an extraction tool: each field an envelope, a list of them, or a list of objects wrapped.
TOOL = {
    "name": {"excerpt": "kgc", "confidence": [1.0], "technique": "API"},
    "created": {"excerpt": "2020-11-11T11:54:10Z", "confidence": [1.0], "technique": "API"},
    "homepage": {"excerpt": "https://example.org/kgc", "confidence": [1.0], "technique": "API"},
    "stars": {"excerpt": 39, "confidence": [1.0], "technique": "API"},
    "topics": {"excerpt": ["rdf", "rml"], "confidence": [1.0], "technique": "API"},
    "description": [{"excerpt": "Knowledge graphs from tables", "confidence": [0.8], "technique": "header"},
                    {"excerpt": "A mapper and a compiler", "confidence": [0.8], "technique": "header",
                     "header": "About"}],
    "releases": {"excerpt": [{"tag": "1.0", "date": "2021-01-02"}, {"tag": "1.1", "date": "2021-06-30"}],
                 "confidence": [1.0], "technique": "API"},
    "extra": {"kind": "library"},
}


def test_fields_wrapped_alike_are_envelopes_value_and_metadata_told_apart_by_their_values():
    # `excerpt` takes texts, a date, an IRI, a number, lists and objects: the fields say different things;
    # `confidence` ([1.0], [0.8]) and `technique` (API, header) repeat a closed set across the fields
    assert find_envelopes([TOOL]) == Envelopes(
        fields=("name", "created", "homepage", "stars", "topics", "description", "releases"),
        value="excerpt", metadata=("confidence", "technique"), extra=("header",))


def test_the_member_names_decide_nothing():
    renamed = json.loads(json.dumps(TOOL).replace('"excerpt"', '"v"').replace('"technique"', '"how"'))
    assert find_envelopes([renamed]) == Envelopes(
        fields=("name", "created", "homepage", "stars", "topics", "description", "releases"),
        value="v", metadata=("confidence", "how"), extra=("header",))


def test_lists_of_people_under_several_members_are_no_envelopes():
    # {name, role} objects in three members: `role` repeats, but every `name` is a text (one kind), so
    # nothing shows that the outer keys name different fields: these are people
    record = {"authors": [{"name": "Ann Lee", "role": "author"}, {"name": "Bo Chen", "role": "author"}],
              "editors": [{"name": "Cy Diaz", "role": "editor"}],
              "reviewers": [{"name": "Di Evans", "role": "reviewer"}, {"name": "Ed Fox", "role": "reviewer"}],
              "title": "Graphs"}
    assert find_envelopes([record]) is None


def test_records_keyed_by_identifier_and_quantities_with_own_units_are_no_envelopes():
    # two members that vary (name, founded): things with attributes, not a value with its metadata
    keyed = {"S-01": {"name": "Ghent", "founded": "1180-01-01", "type": "city"},
             "S-02": {"name": "Graz", "founded": "1128-01-01", "type": "city"},
             "S-03": {"name": "Leeds", "founded": "1207-01-01", "type": "town"}}
    assert find_envelopes([keyed]) is None
    # each unit belongs to its own field (three distinct units for three fields): no closed set of metadata
    readings = {"temperature": {"value": 21.5, "unit": "Cel"}, "humidity": {"value": "40", "unit": "%"},
                "time": {"value": "2024-03-01T10:00:00Z", "unit": "s"}}
    assert find_envelopes([readings]) is None


def test_two_wrapped_fields_are_too_few_and_plain_members_must_not_be_the_majority():
    two = {"name": {"excerpt": "kgc", "technique": "API"}, "created": {"excerpt": "2020-11-11", "technique": "API"}}
    assert find_envelopes([two]) is None
    mostly_plain = {**{k: TOOL[k] for k in ("name", "created", "homepage")},
                    **{f"plain{i}": i for i in range(4)}}
    assert find_envelopes([mostly_plain]) is None


def test_the_loader_reads_a_file_of_envelopes_as_one_record(tmp_path):
    path = tmp_path / "tool.json"
    path.write_text(json.dumps(TOOL), encoding="utf-8")
    data = load_source(Source(path=path, format="json"), tmp_path)
    assert data.iterator == "$"
    assert len(data.records) == 1
    assert data.records[0]["name.excerpt"] == ["kgc"]


def test_the_view_unwraps_each_field_and_writes_its_references_on_the_file(tmp_path):
    path = tmp_path / "tool.json"
    path.write_text(json.dumps(TOOL), encoding="utf-8")
    data = load_source(Source(path=path, format="json"), tmp_path)
    view, how, note = unwrap(data, "tool.json")
    assert view.references == ["name", "created", "homepage", "stars", "topics", "description", "releases.tag",
                               "releases.date", "extra.kind"]
    assert view.records[0]["description"] == ["Knowledge graphs from tables", "A mapper and a compiler"]
    assert view.records[0]["releases.tag"] == ["1.0", "1.1"]
    assert [how.reference(r) for r in ("name", "description", "releases.tag", "releases.#", "extra.kind")] == \
        ["name.excerpt", "description.excerpt", "releases.excerpt.tag", "releases.excerpt.#", "extra.kind"]
    assert note.severity == "info" and "('confidence', 'technique', 'header')" in note.message
    assert unwrap(load_source(Source(path=_write(tmp_path, {"a": 1, "b": "x"}), format="json"), tmp_path), "p.json") is None


def _write(folder, obj) -> object:
    p = folder / "plain.json"
    p.write_text(json.dumps(obj), encoding="utf-8")
    return p
