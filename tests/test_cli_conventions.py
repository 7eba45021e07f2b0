"""The command line people know from the other RML and SHACL tools: `-` is standard output, the
output's extension is its syntax (Turtle too, a wrong one refused before any work), `-m`/`-o` as in
RMLMapper, `-s` as in pySHACL, a Morph-KGC configuration as the mapping; and nothing is written
where the user did not ask (no ./validation.json, no ./inputs/, no ./scores/ on bad input; a
user's own `inputs/` folder is never written into)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from rdflib import Graph

from pipeline.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example" / "example.yaml"
TABLE = ROOT / "mappings" / "example_table.md"


@pytest.fixture()
def rml(tmp_path, monkeypatch) -> Path:
    """The example compiled, in an otherwise empty working folder."""
    monkeypatch.chdir(tmp_path)
    assert main(["compile", str(EXAMPLE), str(TABLE), "m.ttl", "-q"]) == 0
    return tmp_path / "m.ttl"


def test_dash_is_standard_output_and_nothing_else_is_written(rml, tmp_path, capfd):
    assert main(["materialize", "m.ttl", "-", "-q"]) == 0
    out, err = capfd.readouterr()
    assert len(Graph().parse(data=out, format="nt")) == 16
    assert "16 statements (0 in named graphs) written to standard output" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ttl"]  # no file named '-', no engine copy


def test_the_extension_is_the_syntax(rml, tmp_path, capsys):
    assert main(["materialize", "m.ttl", "kg.ttl", "-q"]) == 0
    text = (tmp_path / "kg.ttl").read_text(encoding="utf-8")
    assert "@prefix" in text and " ;\n" in text  # Turtle, not N-Triples under a .ttl name
    assert len(Graph().parse(tmp_path / "kg.ttl", format="turtle")) == 16
    capsys.readouterr()
    assert main(["materialize", "m.ttl", "other.txt", "-q"]) == 2
    assert "unknown RDF syntax for the output's extension '.txt'; expected .nt, .nq, .trig or .ttl" in \
        capsys.readouterr().err
    assert not (tmp_path / "other.txt").exists() and not (tmp_path / "other.morph-kgc.ttl").exists()
    assert main(["materialize", "m.ttl", "kg.data", "--format", "nq", "-q"]) == 0
    assert len(Graph().parse(tmp_path / "kg.data", format="nquads")) == 16
    capsys.readouterr()  # a --format the output's extension contradicts: refused, nothing written
    assert main(["materialize", "m.ttl", "kg2.nt", "--format", "ttl", "-q"]) == 2
    assert capsys.readouterr().err.strip() == (f"error: kg2.nt: --format ttl writes Turtle, but the output's "
                                               "extension '.nt' says N-Triples; expected an output named .ttl, "
                                               "or no --format")
    assert not (tmp_path / "kg2.nt").exists()


def test_rmlmapper_options_and_a_morph_kgc_configuration(rml, tmp_path):
    assert main(["materialize", "-m", "m.ttl", "-o", "a/kg.nt", "-q"]) == 0
    assert len(Graph().parse(tmp_path / "a" / "kg.nt", format="nt")) == 16
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "morph.ini").write_text(
        "[CONFIGURATION]\noutput_file: b.nq\noutput_format: N-QUADS\n\n[DataSource1]\nmappings: m.ttl\n",
        encoding="utf-8")
    assert main(["materialize", "conf/morph.ini", "-q"]) == 0  # paths relative to the working folder
    assert len(Graph().parse(tmp_path / "b.nq", format="nquads")) == 16
    # the configuration kgc run writes beside a run runs as it is
    assert main(["run", str(EXAMPLE), "--mapper", "replay", "--out", "out", "--no-evaluate", "-q"]) == 0
    case = tmp_path / "out" / "example" / "people"
    os.chdir(case)  # the RML's source paths are absolute: it runs from its own folder too
    assert main(["materialize", "morph-kgc.ini", str(tmp_path / "c.nt"), "-q"]) == 0
    assert set(Graph().parse(tmp_path / "c.nt", format="nt")) == set(Graph().parse(case / "kg.nt", format="nt"))


def test_repaired_copies_never_go_into_the_users_inputs_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inputs").mkdir()
    data = "id;name\n1;Ann\n2;Bo\n"  # a ';' separated CSV: the engine reads a comma-separated copy
    (tmp_path / "inputs" / "p.csv").write_text(data, encoding="utf-8")
    (tmp_path / "onto.ttl").write_text("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                                       "<http://e.org/Person> a owl:Class .\n<http://e.org/name> a owl:DatatypeProperty .\n",
                                       encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [inputs/p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n"
                                   "|---|---|---|---|---|\n| name | p.csv | http://e.org/name | http://e.org/Person | "
                                   "http://e.org/p/{id} |\n", encoding="utf-8")
    assert main(["compile", "case.yaml", "t.md", "m.ttl", "-q"]) == 0
    assert (tmp_path / "inputs" / "p.csv").read_text(encoding="utf-8") == data  # the user's file as it was
    assert (tmp_path / "m.inputs" / "p.csv").read_text(encoding="utf-8").startswith("id,name")
    sources = {str(o) for o in Graph().parse(tmp_path / "m.ttl").objects() if str(o).endswith("p.csv")}
    assert sources == {str(tmp_path / "m.inputs" / "p.csv")}
    assert main(["materialize", "m.ttl", "kg.nt", "-q"]) == 0
    assert len(Graph().parse(tmp_path / "kg.nt", format="nt")) == 4


def test_validate_writes_only_what_is_asked_and_reads_shapes_as_pyshacl_does(rml, tmp_path, capsys):
    assert main(["materialize", "m.ttl", "kg.nt", "-q"]) == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["validate", str(EXAMPLE), "kg.nt", "-q"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no ./validation.json
    (tmp_path / "s.ttl").write_text("""@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/ontology#> .
<http://e.org/shape> a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:property [ sh:path ex:email ; sh:minCount 1 ] .
""", encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(EXAMPLE), "kg.nt", "-s", "s.ttl", "-o", "v/result.json", "-q"]) == 1
    result = json.loads((tmp_path / "v" / "result.json").read_text(encoding="utf-8"))
    assert result["SHACL"]["value"] is False and len(result["SHACL"]["findings"]) == 3  # three people, no email
    assert "SHACL: fails (3 errors)" in capsys.readouterr().out


def test_score_on_bad_input_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kg.nt").write_text("<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n", encoding="utf-8")
    nogold = tmp_path / "case.yaml"
    nogold.write_text(f"sources: [{ROOT / 'data/example/people.csv'}]\nontologies: [{ROOT / 'ontologies/example.ttl'}]\n",
                      encoding="utf-8")
    assert main(["score", str(nogold), "--kg", "kg.nt", "-q"]) == 2
    assert main(["score", str(EXAMPLE), "-q"]) == 2
    err = capsys.readouterr().err
    assert "names no gold table or gold graph" in err and "nothing to score: give --table" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.yaml", "kg.nt"]  # no ./scores/inputs/


def test_a_manifest_may_name_a_folder_of_competency_questions(tmp_path, capsys):
    from pipeline.manifest import load_manifest
    (tmp_path / "cq" / "sub").mkdir(parents=True)
    (tmp_path / "cq" / "sub" / "q1.rq").write_text("# CQ: who?\nSELECT ?s WHERE { ?s ?p ?o }\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    base = f"sources: [{ROOT / 'data/example/people.csv'}]\nontologies: [{ROOT / 'ontologies/example.ttl'}]\n"
    (tmp_path / "case.yaml").write_text(base + "competency_questions: [cq/]\n", encoding="utf-8")
    assert load_manifest(tmp_path / "case.yaml").competency_questions == ((tmp_path / "cq").resolve(),)
    (tmp_path / "bad.yaml").write_text(base + "competency_questions: [empty/]\n", encoding="utf-8")
    assert main(["score", str(tmp_path / "bad.yaml"), "--kg", str(tmp_path / "bad.yaml"), "-q"]) == 2
    assert f"bad.yaml:3: competency_questions: the folder {(tmp_path / 'empty').resolve()} holds no .rq file" in \
        capsys.readouterr().err


def test_map_says_each_stage_and_writes_the_evidence_beside_the_table(tmp_path, capsys):
    out = tmp_path / "t.md"
    assert main(["map", str(EXAMPLE), str(out), "--mapper", "replay", "--table", str(TABLE)]) == 0
    err = capsys.readouterr().err
    assert [line.split(" (")[0] for line in err.splitlines() if line.startswith("kgc map:")] == [
        "kgc map: reading 2 source(s)", "kgc map: reading the ontology", "kgc map: mapping with the replay mapper",
        "kgc map: written"]
    rows = json.loads((tmp_path / "t.evidence.json").read_text(encoding="utf-8"))
    assert out.is_file() and len(rows["rows"] if isinstance(rows, dict) else rows) == 4


def test_run_off_a_terminal_writes_summary_lines_and_no_progress_bar(tmp_path, capfd):
    # a log or CI output (stderr not a terminal): one summary line per case, no carriage returns
    assert main(["run", str(EXAMPLE), "--mapper", "replay", "--table", str(TABLE), "--out", str(tmp_path / "o"),
                 "--no-evaluate"]) == 0
    out, err = capfd.readouterr()
    assert "\r" not in err and "case/s" not in err
    assert len([line for line in out.splitlines() if line.startswith("example/")]) == 1


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path, monkeypatch, capsys):
    # a new user's `kgc map case.yaml books.csv` replaced the library data by the mapping table
    case = tmp_path / "data" / "example"  # the example's layout: ../../ontologies, ../../mappings
    shutil.copytree(EXAMPLE.parent, case)
    for folder in ("ontologies", "mappings"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copy(TABLE, case / "table.md")
    monkeypatch.chdir(case)
    kept = {p.name: p.read_bytes() for p in case.iterdir() if p.is_file()}
    source = next(p.name for p in case.iterdir() if p.suffix == ".csv")
    assert main(["compile", "example.yaml", "table.md", "m.ttl", "-q"]) == 0
    kept["m.ttl"] = (case / "m.ttl").read_bytes()
    capsys.readouterr()
    for argv in (["map", "example.yaml", source], ["compile", "example.yaml", "table.md", "table.md"],
                 ["compile", "example.yaml", "table.md", "example.yaml"], ["materialize", "m.ttl", "m.ttl"],
                 ["materialize", "m.ttl", source, "--format", "nt"], ["validate", "example.yaml", "m.ttl", "-o", "m.ttl"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "a file this command reads; expected a new file name" in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in case.iterdir() if p.is_file() and p.name in kept} == kept


def test_map_evidence_never_takes_a_data_files_name(tmp_path, monkeypatch):
    # `kgc map orders.yaml orders.md` wrote its evidence over the source orders.json
    (tmp_path / "orders.json").write_text('[{"id": "1", "name": "Kettle"}]', encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Product a owl:Class . ex:name a owl:DatatypeProperty ; rdfs:domain ex:Product .\n", encoding="utf-8")
    (tmp_path / "orders.yaml").write_text("sources: [{path: orders.json, iterator: '$[*]'}]\nontologies: [onto.ttl]\n",
                                          encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["map", "orders.yaml", "orders.md", "-q"]) == 0
    assert json.loads((tmp_path / "orders.json").read_text(encoding="utf-8")) == [{"id": "1", "name": "Kettle"}]
    assert (tmp_path / "orders.md").is_file() and (tmp_path / "orders.evidence.json").is_file()


def test_validate_of_a_kg_that_does_not_parse_says_so_and_not_that_checks_pass_vacuously(tmp_path, capsys):
    (tmp_path / "kg.ttl").write_text("@prefix ex: <http://example.org/> .\nex:a ex:p ex:b .\n<oops\n", encoding="utf-8")
    assert main(["validate", str(EXAMPLE), str(tmp_path / "kg.ttl")]) == 1
    out, err = capsys.readouterr()
    assert "SV2: fails (1 fatal)" in out and "vacuously" not in err
    (tmp_path / "empty.nt").write_text("", encoding="utf-8")
    assert main(["validate", str(EXAMPLE), str(tmp_path / "empty.nt")]) == 0
    assert "holds no triple: every check passes vacuously" in capsys.readouterr().err


def test_map_says_what_reading_the_ontology_guessed(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(
        "@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "schema:Book a owl:Class . schema:name a owl:DatatypeProperty ; rdfs:domain schema:Book .\n", encoding="utf-8")
    (tmp_path / "books.csv").write_text("id,name\n1,Dune\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [books.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["map", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), "-q"]) == 0
    assert f"warning: {tmp_path / 'onto.ttl'}: prefix 'schema:' used but not declared; read as <http://schema.org/>" \
        in capsys.readouterr().err


def test_paths_that_cannot_be_written_or_read_are_named_for_what_they_are(rml, tmp_path, capsys):
    (tmp_path / "adir").mkdir()
    (tmp_path / "data.csv").write_text("a\n1\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(EXAMPLE), "adir"]) == 2
    assert capsys.readouterr().err.strip() == "error: adir: is a folder; expected a KG file"
    assert main(["materialize", "m.ttl", "data.csv/kg.nt"]) == 2
    assert capsys.readouterr().err.strip() == (f"error: data.csv/kg.nt: output: cannot be created: {tmp_path / 'data.csv'} "
                                               "is a file, not a folder")


def test_run_writes_its_derived_sources_in_its_own_folder_only(tmp_path, monkeypatch):
    # a value paired with its own XML attribute is read through a derived source: it goes with the
    # run's copies, never into the working directory or beside the user's data (was ./.repaired/)
    case = tmp_path / "case"
    shutil.copytree(ROOT / "tests" / "cases" / "xml-lang-cross-product", case)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = sorted(p.name for p in case.iterdir())
    assert main(["-q", "run", str(case / "case.yaml"), "--mapper", "replay", "--table", str(case / "table.md"),
                 "--out", "out"]) == 0
    assert sorted(p.name for p in work.iterdir()) == ["out"]
    assert sorted(p.name for p in case.iterdir()) == before
    assert list((work / "out").rglob("*.kgc-derived.*"))  # the derived source exists, in the run's folder


@pytest.mark.parametrize(("mapper", "table", "expected"), [
    (None, None, "offline"), ("llm", None, "llm"), (None, "t.md", "replay"), ("replay", "t.md", "replay"),
    ("offline", "t.md", None), ("llm", "t.md", None)])
def test_table_implies_the_replay_mapper_and_another_mapper_refuses_it(mapper, table, expected):
    from pipeline.commands import chosen_mapper
    from pipeline.errors import InputError

    if expected is None:
        with pytest.raises(InputError, match=rf"--mapper {mapper} proposes its own table and would not read it"):
            chosen_mapper(mapper, table, "offline")
    else:
        assert chosen_mapper(mapper, table, "offline") == expected


def test_nothing_left_on_bad_input_removes_only_what_the_block_made(tmp_path):
    from pipeline.commands import nothing_left_on_bad_input
    from pipeline.errors import InputError

    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "kg.nt").write_text("kept\n", encoding="utf-8")
    made = [tmp_path / "new" / "deep" / "kg.nt", tmp_path / "new" / "deep" / "kg.inputs", tmp_path / "old" / "kg.nt",
            tmp_path / "old" / "kg.inputs"]
    with pytest.raises(InputError):
        with nothing_left_on_bad_input(*made, None):
            for folder in (made[1], made[3]):
                folder.mkdir(parents=True)
                (folder / "people.csv").write_text("id\n", encoding="utf-8")
            made[0].write_text("begun\n", encoding="utf-8")
            made[2].write_text("overwritten\n", encoding="utf-8")
            raise InputError("bad")
    assert not (tmp_path / "new").exists()
    assert sorted(p.name for p in (tmp_path / "old").iterdir()) == ["kg.nt"]  # existed before: kept
    with nothing_left_on_bad_input(made[1]):  # no error: everything stays
        made[1].mkdir(parents=True)
    assert made[1].is_dir()
