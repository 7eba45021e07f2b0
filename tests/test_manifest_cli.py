"""Manifests (validation messages), XML repair, and the CLI's exit codes on a scenario the test makes."""
from __future__ import annotations

import json

import pytest

from pipeline.cli import main
from pipeline.errors import ManifestError
from pipeline.manifest import load_manifest
from pipeline.sources.engine_copy import EngineCopy, declare_prefixes
from pipeline.sources.namespaces import undeclared_prefixes

from helpers import books_case, people_case

ONTOLOGY = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Person a owl:Class . ex:City a owl:Class .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .
ex:lives a owl:ObjectProperty ; rdfs:domain ex:Person ; rdfs:range ex:City .
ex:cityname a owl:DatatypeProperty ; rdfs:domain ex:City .
"""
TABLE = """| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | Subject Generation | Join Condition |
|---|---|---|---|---|---|---|
| name | people.csv | ex:name | ex:Person | | http://example.org/person/{pid} | |
| city | people.csv | ex:lives | ex:Person | ex:City | http://example.org/person/{pid} | people.city==cities.cid |
| label | cities.csv | ex:cityname | ex:City | | http://example.org/city/{cid} | |
"""


@pytest.fixture()
def scenario(tmp_path):
    (tmp_path / "people.csv").write_text("pid,name,city\n1,Ann,M\n2,Bo,L\n", encoding="utf-8")
    (tmp_path / "cities.csv").write_text("cid,label\nM,Madrid\nL,London\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "table.md").write_text(TABLE, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: mini\nsources: [people.csv, cities.csv]\nontologies: [onto.ttl]\n"
                                        "gold: {table: table.md}\n", encoding="utf-8")
    return tmp_path


def test_run_map_edit_compile_materialize(scenario, capsys):
    out = scenario / "out"
    assert main(["-q", "run", str(scenario / "case.yaml"), "--mapper", "replay", "--out", str(out)]) == 0
    kg = (out / "custom" / "mini" / "kg.nt").read_text()
    assert kg.count("\n") == 10
    assert "<http://example.org/person/1> <http://example.org/lives> <http://example.org/city/M> ." in kg
    # edit the table between map and compile: the KG follows the file
    assert main(["map", str(scenario / "case.yaml"), str(scenario / "t.csv"), "--mapper", "replay"]) == 0
    edited = "\n".join(l for l in (scenario / "t.csv").read_text().splitlines() if "ex:lives" not in l) + "\n"
    (scenario / "t.csv").write_text(edited)
    assert main(["compile", str(scenario / "case.yaml"), str(scenario / "t.csv"), str(scenario / "m.ttl")]) == 0
    assert main(["materialize", str(scenario / "m.ttl"), str(scenario / "kg.nt")]) == 0
    kg2 = (scenario / "kg.nt").read_text()
    assert kg2.count("\n") == 8 and "lives" not in kg2


@pytest.mark.parametrize("text,needle", [
    ("name: x\nsources: [people.csv]\nontologies: [onto.ttl]\nontologie: []\n", "unknown key 'ontologie'"),
    ("name: x\nsources: [missing.csv]\nontologies: [onto.ttl]\n", "file not found"),
    ("name: x\nsources: [{path: people.csv, format: parquet}]\nontologies: [onto.ttl]\n", "unknown format 'parquet'"),
    ("name: x\nontologies: [onto.ttl]\n", "missing required key 'sources'"),
    ("name: x\nsources: []\nontologies: [onto.ttl]\n", "'sources' is empty: expected at least one file"),
    ("name: x\nsources: [people.csv]\nontologies:\n", "'ontologies' is empty: expected at least one file"),
])
def test_bad_manifests_name_file_and_key(scenario, capsys, text, needle):
    bad = scenario / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError, match=needle):
        load_manifest(bad)
    assert main(["run", str(bad), "--mapper", "replay", "--out", str(scenario / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and needle in err


def test_unknown_key_reports_its_line(scenario):
    bad = scenario / "bad.yaml"
    bad.write_text("name: x\nsources: [people.csv]\nontologies: [onto.ttl]\nbase_irl: http://x/\n")
    with pytest.raises(ManifestError) as exc:
        load_manifest(bad)
    assert exc.value.line == 4 and exc.value.key == "base_irl" and "did you mean 'base_iri'" in str(exc.value)


def test_unknown_mapper_lists_known_ones(scenario, capsys):
    assert main(["run", str(scenario / "case.yaml"), "--mapper", "replai", "--out", str(scenario / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown mapper 'replai'; known mappers: llm, offline, replay; did you mean 'replay'?" in err
    assert not (scenario / "o").exists()  # refused before any case ran


def test_xml_repair_declares_known_and_reports_unknown_prefixes(tmp_path):
    src = tmp_path / "in.xml"
    original = "<entry><cbc:ID>1</cbc:ID><foo:Bar x='1'/></entry>"
    src.write_text(original, encoding="utf-8")
    assert undeclared_prefixes(original) == ["cbc", "foo"]
    copy = EngineCopy(src, tmp_path / "out")
    findings = declare_prefixes(copy)
    path = copy.path
    assert path == tmp_path / "out" / "in.xml" and src.read_text() == original
    assert [(f.value, f.severity) for f in findings] == [("cbc", "warning"), ("foo", "warning")]
    assert path.read_text().startswith('<entry xmlns:cbc="urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2"'
                                       ' xmlns:foo="urn:undeclared:foo">')


def test_no_gold_manifest_runs_offline_and_marks_gold_scores_not_applicable(scenario, capsys):
    (scenario / "nogold.yaml").write_text("name: nogold\nsources: [people.csv, cities.csv]\nontologies: [onto.ttl]\n",
                                          encoding="utf-8")
    out = scenario / "out"
    assert main(["-q", "run", str(scenario / "nogold.yaml"), "--mapper", "offline", "--out", str(out)]) == 0
    folder = out / "custom" / "nogold"
    assert (folder / "table.md").exists() and (folder / "mapping.rml.ttl").exists()
    assert (folder / "kg.nt").read_text().count("\n") > 0
    run = json.loads((folder / "run.json").read_text())
    assert "mapping_scores" not in run  # no gold table: nothing to score against
    scores = json.loads((folder / "graph_scores.json").read_text())
    assert scores["SA2-prop-exact"]["status"] == "not_applicable" and scores["SA2-prop-exact"]["value"] is None
    report = json.loads((out / "custom" / "report.json").read_text())
    assert report["cases"][0]["mapping_f1"] is None and report["cases"][0]["graph_f1"] is None


def test_validate_exit_codes(scenario, tmp_path):
    good = tmp_path / "good.nt"
    good.write_text('<http://example.org/person/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    assert main(["validate", str(scenario / "case.yaml"), str(good), "--out", str(tmp_path / "v.json")]) == 0
    bad = tmp_path / "bad.nt"
    bad.write_text('<http://example.org/p 1> <http://example.org/name> "x"@not_a_tag .\n', encoding="utf-8")
    assert main(["validate", str(scenario / "case.yaml"), str(bad), "--out", str(tmp_path / "v2.json")]) == 1
    report = json.loads((tmp_path / "v2.json").read_text())
    assert report["SV2"]["value"] is False and report["SV2"]["findings"][0]["line"] == 1


def test_blinkg_manifests_and_their_notes(scenarios, tmp_path, capsys):
    assert main(["data", "--blinkg", str(scenarios.parent), "--out", str(tmp_path), "--formats", "csv", "xml"]) == 0
    out = capsys.readouterr().out
    assert "note: scenario2/d5: no csv/xml input file in the benchmark; skipped" in out
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.yaml"))
    assert len(written) == 24 and "scenario3/2.yaml" in written and "scenario1-xml/1H.yaml" in written
    case = load_manifest(tmp_path / "scenario3" / "1.yaml")
    assert [s.path.name for s in case.sources] == ["input.xml"] and case.gold_table.name == "expected_table.md"


def test_undeclared_well_known_prefix_in_a_skos_file_is_read_with_a_warning(scenarios):
    from pipeline.ontology import load_ontology

    d1 = scenarios / "scenario2" / "d1"
    onto = load_ontology([d1 / "ontology_d1.ttl", d1 / "skos_d1.ttl"])
    assert onto.notes == [f"{d1 / 'skos_d1.ttl'}: prefix 'dc:' used but not declared; "
                          "read as <http://purl.org/dc/elements/1.1/>"]
    assert len(onto.concepts) > 0


def test_manifest_refuses_a_source_given_twice_or_a_folder_naming_its_line(tmp_path, capsys):
    # a source listed twice would give every table row twice (and a self-join); a folder of files of several
    # formats is no one source (a folder of one format is: tests/test_sources_folder.py)
    books_case(tmp_path, "")
    cases = {"twice.yaml": ("sources: [books.csv, books.csv]\n", "sources[1]: the same source as sources[0] (books.csv)"),
             "named.yaml": ("sources: [books.csv, {path: sub/books.csv}]\n",
                            "sources[1]: named 'books.csv' as sources[0]; give one a distinct 'name'"),
             "folder.yaml": ("sources: [mixed]\n", f"sources[0].path: the folder {tmp_path / 'mixed'} holds files of "
                             "several formats (a.csv, b.txt); name the files with a glob (records/*.json) or add format"),
             "missing.yaml": ("sources: [nope.csv]\n", f"sources[0].path: file not found: {tmp_path / 'nope.csv'}")}
    (tmp_path / "sub").mkdir()
    (tmp_path / "mixed").mkdir()
    (tmp_path / "mixed" / "a.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "mixed" / "b.txt").write_text("notes\n", encoding="utf-8")
    (tmp_path / "sub" / "books.csv").write_text("id\n1\n", encoding="utf-8")
    for name, (sources, message) in cases.items():
        (tmp_path / name).write_text(f"name: b\n{sources}ontologies: [onto.ttl]\n", encoding="utf-8")
        assert main(["run", str(tmp_path / name), "--out", str(tmp_path / "o")]) == 2
        assert capsys.readouterr().err == f"error: {tmp_path / name}:2: {message}\n"
    (tmp_path / "two.yaml").write_text("name: b\nsources: [books.csv, {path: sub/books.csv, name: old.csv}]\n"
                                       "ontologies: [onto.ttl]\n", encoding="utf-8")
    from pipeline.manifest import load_manifest

    assert [s.name for s in load_manifest(tmp_path / "two.yaml").sources] == ["books.csv", "old.csv"]


@pytest.mark.parametrize("line,message", [
    ("base_iri: not an iri", "4: base_iri: 'not an iri' is not an absolute IRI (expected e.g. 'http://example.org/')"),
    ("prefixes: {ex: 'http://ex.org/a b#'}",
     "4: prefixes.ex: 'http://ex.org/a b#' is not an absolute IRI (expected e.g. 'http://example.org/')"),
])
def test_manifest_rejects_a_base_or_prefix_that_is_no_absolute_iri(tmp_path, line, message):
    from pipeline.errors import ManifestError
    from pipeline.manifest import load_manifest
    people_case(tmp_path)
    f = tmp_path / "m.yaml"
    f.write_text(f"name: c\nsources: [p.csv]\nontologies: [onto.ttl]\n{line}\n", encoding="utf-8")
    with pytest.raises(ManifestError) as err:
        load_manifest(f)
    assert str(err.value) == f"{f}:{message}"
