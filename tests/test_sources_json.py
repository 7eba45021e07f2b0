"""JSON sources: keys with spaces or dots, nested keys, nulls beside values, records keyed by
member names."""
from __future__ import annotations

from rdflib import Graph, Literal, URIRef

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import CASES, books_case, case_folder, case_manifest, kgc_run, map_lexically, materialize_compiled, table_rows


EX = "http://example.org/"


def test_records_keyed_by_their_identifiers_in_an_object_are_records(tmp_path):
    out = kgc_run(tmp_path, "json-keyed-records")
    rows = sorted(r[:3] for r in table_rows(out / "table.md"))
    assert rows == [("label", "sensors.json", "iot:sensorLabel"), ("model", "sensors.json", "iot:modelName"),
                    ("unit", "sensors.json", "iot:unitOfMeasure")]
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    assert sorted(t.split()[2] for t in kg if "#modelName>" in t) == ['"BMP-388"', '"TMP-117"']
    assert len([t for t in kg if t.endswith("<http://example.org/iot#Sensor> .")]) == 3
    audit = (out / "audit.md").read_text(encoding="utf-8")
    assert ("the records are the members of an object, keyed by 'S-01', 'S-02', 'S-03' (iterator '$.sensors.*'): "
            "a JSONPath reference cannot read a member's name, so these keys are no data") in audit


def test_json_keys_with_inner_spaces_are_mapped_and_read(tmp_path, capsys):
    # keys with inner spaces are addressable (Morph-KGC reads them): listed as references, compiled and read;
    # a key holding '.' or padded with white space is not
    from pipeline.manifest import load_manifest
    from pipeline.sources.load import load_source

    books_case(tmp_path, "| au thor.full name | b.json | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    (tmp_path / "b.json").write_text('[{"id": "1", "au thor": {"full name": "Ann Lee"}, "a.b": "x", " pad": "y"}]',
                                     encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: b\nscenario: s\nsources: [b.json]\nontologies: [onto.ttl]\n",
                                        encoding="utf-8")
    data = load_source(load_manifest(tmp_path / "case.yaml").sources[0], tmp_path / "w")
    assert (data.references, sorted(data.unaddressable)) == (["id", "au thor.full name", "a.b", " pad"], [" pad", "a.b"])
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    assert sorted((tmp_path / "kg.nt").read_text(encoding="utf-8").splitlines()) == [
        '<http://example.org/b/1> <http://example.org/title> "Ann Lee" .',
        "<http://example.org/b/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Book> ."]


def test_json_keys_with_spaces_and_nested_keys_are_read(tmp_path):
    """The control: a key with a space and a nested key (a.b) reach the KG through Morph-KGC."""
    from dataclasses import replace

    from pipeline.manifest import Source

    data = tmp_path / "people.json"
    data.write_text('{"people": [{"id": "a1", "tag code": "T1", "n": {"x": "N1"}}, '
                    '{"id": "a2", "tag code": "T2", "n": {"x": "N2"}}]}', encoding="utf-8")
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
                     "| tag code | ex:title | ex:Record | http://example.org/p/{id} |\n"
                     "| n.x | ex:nick | ex:Record | http://example.org/p/{id} |\n", encoding="utf-8")
    case = load_manifest(CASES / "json-key-with-dot" / "case.yaml")
    case = replace(case, sources=(Source(data, "json", "$.people[*]", "people.json"),))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    assert not [f for f in compiled.findings if f.severity == "error"]
    kg = materialize_compiled(compiled, sources, tmp_path)
    assert set(kg.objects(URIRef(EX + "p/a2"), None)) >= {Literal("T2"), Literal("N2")}


def test_json_null_sibling_values_survive(tmp_path):
    folder = case_folder("json-null-sibling-values-lost")
    from pipeline.sources.engine_copy import json_engine_copies
    rml = Graph().parse(folder / "mapping.ttl", format="turtle")
    findings = json_engine_copies(rml, folder, tmp_path / "inputs")
    assert len(findings) == 1 and findings[0].stage == "json-repair"
    engine = tmp_path / "m.ttl"
    normalize_rml(rml).graph.serialize(engine, format="turtle")
    kg = materialize(engine)
    assert len(kg.triples) == 4 and any('"First film"' in t for t in kg.triples)


def test_json_dotted_key_never_proposed(tmp_path):
    case = case_manifest("json-key-with-dot")
    data = load_source(case.sources[0], tmp_path)
    assert set(data.unaddressable) == {"tags.code"}
    result, rows = map_lexically("json-key-with-dot")
    assert not [r for r in rows if "tags" in (r.data_reference or "")]
    assert any("'tags.code'" in f["message"] and "nested path" in f["message"] for f in result.provenance["findings"])


def test_sibling_arrays_of_records_are_said_and_read_when_listed(tmp_path):
    from pipeline.manifest import Source

    doc = tmp_path / "cat.json"
    doc.write_text('{"meta": {"n": 2}, "datasets": [{"id": "d1"}, {"id": "d2"}], '
                   '"publishers": [{"id": "p1"}], "tags": ["a", "b"]}', encoding="utf-8")
    data = load_source(Source(doc, "json"))
    assert (data.iterator, len(data.records)) == ("$.datasets[*]", 2)
    assert [(f.severity, f.message) for f in data.findings if f.column == "iterator"] == [(
        "warning", "the object holding the records at '$.datasets[*]' holds 1 more array(s) of records "
        "('publishers'), which are not read: list the file once per array in the manifest, each with its iterator "
        "and a name, e.g. {path: cat.json, iterator: \"$.publishers[*]\", name: publishers}")]
    # the entry the message gives reads them, and says nothing more
    listed = load_source(Source(doc, "json", iterator="$.publishers[*]", name="publishers"))
    assert ([r["id"] for r in listed.records], [f for f in listed.findings if f.column == "iterator"]) == ([["p1"]], [])
    nested = tmp_path / "api.json"
    nested.write_text('{"result": {"orgs": [{"id": "o1"}], "users": [{"id": "u1"}, {"id": "u2"}]}}', encoding="utf-8")
    data = load_source(Source(nested, "json"))
    assert data.iterator == "$.result.orgs[*]"
    assert "e.g. {path: api.json, iterator: \"$.result.users[*]\", name: users}" in data.findings[-1].message


def _load_json(tmp_path, text: str, iterator: str | None = None):
    """The loaded source of a JSON file holding ``text`` (``iterator``: the manifest's)."""
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    entry = "{path: s.json, iterator: \"" + iterator + "\"}" if iterator else "s.json"
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"sources: [{entry}]\nontologies: [o.ttl]\n", encoding="utf-8")
    return load_source(load_manifest(tmp_path / "case.yaml").sources[0], tmp_path / "w")


def test_records_that_are_arrays_are_bad_input_naming_the_iterator_and_first_record(tmp_path):
    # detection takes an array of arrays (a "columns" + "data" export) as the records, and refuses them
    data = _load_json(tmp_path, '{"columns": ["id", "name"], "data": [["S1", "A"], ["S2", "B"]]}')
    assert (data.iterator, data.references, [(f.severity, f.column) for f in data.findings]) == (
        "$.data[*]", [], [("error", "iterator")])
    assert data.findings[0].message.startswith(
        "the records the iterator '$.data[*]' selects are arrays, not objects (record 1: [\"S1\", \"A\"])")
    strings = _load_json(tmp_path, '{"names": ["A", "B"]}', iterator="$.names[*]")
    assert strings.findings[0].severity == "error"
    assert "selects are strings, not objects (record 1: \"A\")" in strings.findings[0].message


def test_records_that_are_not_objects_among_objects_are_left_out_with_a_warning(tmp_path):
    data = _load_json(tmp_path, '[{"id": "1"}, ["2"], 7, {"id": "3"}]')
    assert (data.references, data.values("id")) == (["id"], ["1", "3"])
    assert [(f.severity, f.message) for f in data.findings] == [(
        "warning", "2 of the 4 records the iterator '$[*]' selects are not objects (record 2 is an array: [\"2\"]): "
        "a reference reads a record's members by name, so none of their values is read")]


def test_an_array_of_arrays_is_unaddressable_and_an_index_reads_its_positions(tmp_path):
    data = _load_json(tmp_path, '[{"id": "S1", "geo": {"coords": [[50.85, 4.35], [50.86, 4.36]]}, "tags": ["a"]},'
                                ' {"id": "S2", "geo": {"coords": [[50.83, 4.33]]}, "tags": []}]')
    assert list(data.unaddressable) == ["geo.coords"]
    assert [(f.severity, f.value, f.candidate) for f in data.findings] == [
        ("warning", "geo.coords", "geo.coords[*][0]")]
    assert data.json_path_values("geo.coords[*][1]") == [["4.35", "4.36"], ["4.33"]]
    assert data.json_path_values("geo.coords[0][0]") == [["50.85"], ["50.83"]]
    assert data.json_path_values("geo.coords[*][7]") == [[], []]
    assert data.json_path_values("geo.coords[0]") == [[], []]  # a pair: an array, no value
    assert data.json_path_values("tags") is None  # a plain key: the references say
    assert data.json_path_values("tags[*]") is None  # written `tags` in a table
    assert data.json_path_values("geo.coords[") is None  # does not parse
    assert (data.has_reference("geo.coords[*][1]"), data.has_reference("geo.coords[*]"),
            data.has_reference("tags[*]"), data.has_reference("id[0]")) == (True, False, False, False)
    assert data.values("geo.coords[*][0]") == ["50.85", "50.86", "50.83"]


def test_json_lines_findings_name_the_users_file_and_its_lines(tmp_path):
    # the engine reads a JSON array standing in for the file; what the user reads is the file and its lines
    from pipeline.manifest import Source

    path = tmp_path / "events.jsonl"
    path.write_text('{"id": "E1"}\n\n{"id": "E2"}\n[1,2]\n"x"\n{"id": "E4"}\n', encoding="utf-8")
    data = load_source(Source(path=path, format="json"), tmp_path / "copies")
    assert data.source.path == path and data.path != path and data.source.stem == "events"
    assert data.record_lines == [1, 3, 6]
    shape = [f for f in data.findings if f.column == "iterator"]
    assert [(f.file, f.line, f.message) for f in shape] == [(
        str(path), 4, "2 of the 5 lines (one JSON value each) hold no objects (line 4 is an array: [1, 2]; also line 5): "
        "a reference reads a record's members by name, so none of their values is read")]
    assert data.record_places([0, 2]) == {0: "line 1", 2: "line 6"}


def test_a_compressed_source_is_named_as_the_user_wrote_it(tmp_path, capsys):
    # kgc map on a gzip CSV with a record wider than its header: the finding names the .gz file (not the
    # decompressed copy, in a folder gone when the command ends) and the command goes on (exit 0)
    import gzip

    with gzip.open(tmp_path / "r.csv.gz", "wt", encoding="utf-8") as fh:
        fh.write("id,name\n1,Ann,extra\n")
    (tmp_path / "onto.ttl").write_text("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                                       "ex:Person a owl:Class . ex:name a owl:DatatypeProperty .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [r.csv.gz]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["map", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), "-q"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"warning: {tmp_path / 'r.csv.gz'}:2 [record]: 1 record(s) have more cells than the header; the extra cells " \
           "are dropped (no column name addresses them): line 2 (3 cells)" in err
    assert not [line for line in err if "kgc-map-" in line]
