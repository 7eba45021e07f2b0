"""A run that fails at a stage records it (run.json, audit.json) and keeps what the earlier stages
gave."""
from __future__ import annotations

from pipeline.cli import main
from pipeline.manifest import load_manifest

from helpers import CASES, FUNCTIONAL, people_case


def test_run_with_an_unparsable_ontology_records_the_failure_in_the_audit(tmp_path, capsys):
    import json
    (tmp_path / "onto.ttl").write_text(FUNCTIONAL, encoding="utf-8")
    (tmp_path / "p.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: o\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out")]) == 2
    folder = tmp_path / "out" / "custom" / "o"
    assert json.loads((folder / "audit.json").read_text()) == [{
        "stage": "load", "file": "onto.ttl", "line": 1, "column": None, "value": None, "expected": None,
        "candidate": None, "severity": "error",
        "message": "cannot parse ontology as Turtle: expected qname after @prefix; the file is in OWL functional "
                   "syntax, which is not read: save it as Turtle or RDF/XML"}]
    run = json.loads((folder / "run.json").read_text())
    assert (run["status"], run["failed_stage"], run["error_kind"], run["findings"]["errors"]) == (
        "failed", "load", "input", 1)


def test_a_materialize_failure_keeps_the_mapping_scores(tmp_path, monkeypatch):
    from dataclasses import replace

    import pipeline.run.runner as run_module
    import pipeline.run.stages as stages
    from pipeline.errors import MaterializeError

    def fail(*args, **kwargs):
        raise MaterializeError("engine stopped")

    monkeypatch.setattr(stages, "materialize_with_events", fail)  # the engine run of the materialize stage
    table = CASES / "function-with-xpath-template-crash" / "table.md"
    case = replace(load_manifest(CASES / "function-with-xpath-template-crash" / "case.yaml"), gold_table=table)
    run = run_module.run_case(case, run_module.RunConfig(out_dir=tmp_path, mapper="replay",
                                                         mapper_options={"table": str(table)}))
    assert (run.status, run.failed_stage) == ("failed", "materialize")
    assert run.extra["mapping_scores"]["f1"] == 1.0


def test_a_rerun_on_bad_input_keeps_the_earlier_run_and_sets_the_failed_one_aside(tmp_path):
    # a new user's edited table.md and KG were deleted when the ontology being edited no longer parsed
    people_case(tmp_path, name="o", gold=False)
    good = (tmp_path / "onto.ttl").read_text(encoding="utf-8")
    argv = ["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    folder = tmp_path / "out" / "custom" / "o"
    with open(folder / "table.md", "a", encoding="utf-8") as fh:
        fh.write("<!-- edited -->\n")
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    (tmp_path / "onto.ttl").write_text(FUNCTIONAL, encoding="utf-8")
    assert main(argv) == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    failed = tmp_path / "out" / "custom" / "o.failed"
    assert sorted(p.name for p in failed.iterdir()) == ["audit.json", "audit.md", "run.json"]
    (tmp_path / "onto.ttl").write_text(good, encoding="utf-8")
    assert main(argv) == 0  # a run that ends supersedes the failed one
    assert not failed.exists() and "edited" not in (folder / "table.md").read_text(encoding="utf-8")


def test_a_run_whose_guards_dropped_triples_says_lossy_and_exits_1(tmp_path, capsys):
    # a new user's table mapped author ids A1..A4 as xsd:language: 4 triples dropped, yet the line said "KG valid"
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Book a owl:Class . ex:lang a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:language .\n",
        encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,author\n1,A_1\n2,en\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |"
                                   " Datatype |\n|---|---|---|---|---|---|\n| author | b.csv | ex:lang | ex:Book | "
                                   "http://example.org/b/{id} | xsd:language |\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: b\nsources: [b.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "out")]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("custom/b: ok (KG valid, lossy)") and "triples-dropped=1" in line


def test_carry_copies_an_input_of_the_run_back_from_the_folder_set_aside(tmp_path):
    from pipeline.outfolder import begin, carry
    folder = tmp_path / "out" / "custom" / "people"
    folder.mkdir(parents=True)
    (folder / "table.md").write_text("edited\n")
    previous = begin(folder)
    assert not (folder / "table.md").exists()
    assert carry(folder / "table.md", folder, previous) == folder / "table.md"
    assert (folder / "table.md").read_text() == "edited\n"
    assert (previous / "table.md").read_text() == "edited\n"  # the earlier run stays whole
    outside = tmp_path / "t.md"
    assert carry(outside, folder, previous) == outside and not outside.exists()
