"""The offline mapper on XML: a default namespace maps as a prefixed one; several named sources
of one file are told apart."""
from __future__ import annotations

import json

from pipeline.sources.load import load_source

from helpers import case_manifest, cells, kgc_run, map_lexically, table_rows


def test_xml_default_namespace_mapper_maps_like_prefixed(tmp_path):
    case = case_manifest("xml-default-namespace-mapper")
    data = load_source(case.sources[0], tmp_path)
    assert (data.iterator, len(data.records), data.default_prefixes) == ("/d:Notice", 1, {"urn:example:notice": "d"})
    assert 'xmlns:d="urn:example:notice"' in data.path.read_text(encoding="utf-8")
    assert any(f.stage == "xml-repair" and "default namespace <urn:example:notice>" in f.message for f in data.findings)
    _, default = map_lexically("xml-default-namespace-mapper")
    _, prefixed = map_lexically("xml-default-namespace-mapper", "case_prefixed.yaml")
    cols = ("data_reference", "ontology_property", "entity_class")
    assert {(r.replace("d:", "n:"), p, c) for r, p, c in cells(default, *cols)} == cells(prefixed, *cols)
    assert ("d:Title", "ex:hasTitle", "ex:Notice") in cells(default, *cols)


def test_named_sources_of_one_xml_file_are_told_apart_and_a_nested_object_joins_once(tmp_path):
    out = kgc_run(tmp_path, "xml-named-sources")
    rows = table_rows(out / "table.md")
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
