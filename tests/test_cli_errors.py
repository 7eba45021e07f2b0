"""Bad input on the command line: one line naming the file (and line) and what was expected, exit 2,
nothing written that was not asked for."""
from __future__ import annotations

import pytest

from pipeline.cli import main
from pipeline.errors import InputError
from pipeline.rdffile import load_graph

from helpers import books_case, people_case


def test_materialize_turtle_syntax_error_is_one_line(tmp_path, capsys):
    rml = tmp_path / "m.ttl"
    rml.write_text("@prefix rml: <http://w3id.org/rml/> .\n<#TM> a rml:TriplesMap ;\n rml:logicalSource [\n",
                   encoding="utf-8")
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {rml}:")
    assert ": not an RML mapping in Turtle: " in err and "\n" not in err and "b'" not in err


def test_materialize_a_turtle_file_that_is_not_rml(tmp_path, capsys):
    kg = tmp_path / "kg.ttl"
    kg.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    assert main(["materialize", str(kg), str(tmp_path / "out.nt")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {kg}: no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)")
    assert not (tmp_path / "out.nt").exists()


def test_gold_graph_rdfxml_error_names_line(tmp_path):
    f = tmp_path / "gold.rdf"
    f.write_text('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<a>\n',
                 encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_graph(f, "gold graph")
    assert str(err.value) == f"{f}:4: gold graph: not valid RDF/XML: no element found (column 0)"


def test_an_output_that_is_a_folder_or_a_missing_score_input_is_bad_input(tmp_path, capsys):
    # an output that is a folder is refused before any work: nothing is written beside it
    books_case(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    case, table, folder = str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), tmp_path / "d"
    folder.mkdir()
    assert main(["compile", case, table, str(tmp_path / "m.ttl")]) == 0
    capsys.readouterr()
    for argv, what in ((["materialize", str(tmp_path / "m.ttl"), str(folder)], "output"),
                       (["compile", case, table, str(folder)], "output"), (["map", case, str(folder)], "output"),
                       (["validate", case, str(tmp_path / "m.ttl"), "--out", str(folder)], "--out")):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"error: {folder}: {what} is a folder; expected a file name\n"
    assert not (tmp_path / "d.morph-kgc.ttl").exists() and list(folder.iterdir()) == []
    (tmp_path / "gold.nt").write_text("", encoding="utf-8")
    (tmp_path / "g.yaml").write_text("name: b\nsources: [books.csv]\nontologies: [onto.ttl]\ngold: {graph: gold.nt}\n",
                                     encoding="utf-8")
    assert main(["score", str(tmp_path / "g.yaml"), "--table", "nope.md", "--out", str(tmp_path / "s")]) == 2
    assert capsys.readouterr().err == "error: nope.md: --table: file not found\n"


def test_unparsable_shapes_file_is_bad_input_for_run_and_validate(tmp_path, capsys):
    people_case(tmp_path, "shapes: [shapes.ttl]\n")
    (tmp_path / "shapes.ttl").write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\nex:S a sh:NodeShape .\n",
                                         encoding="utf-8")
    (tmp_path / "kg.nt").write_text('<http://example.org/p/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--out", str(tmp_path / "o")]) == 2
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"),
                 "--out", str(tmp_path / "v.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f'error: {tmp_path / "shapes.ttl"}:2: SHACL shapes: not valid Turtle: Prefix "ex:" not bound'


def test_run_rejects_zero_processes(tmp_path, capsys):
    people_case(tmp_path)
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--processes", "0", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == "error: --processes must be at least 1, got 0\n"
    assert not (tmp_path / "o").exists()


def test_synth_refuses_a_non_empty_folder_unless_forced(tmp_path, capsys):
    out = tmp_path / "s"
    out.mkdir()
    (out / "old.yaml").write_text("name: old\n", encoding="utf-8")
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"error: {out}: the scenario folder is not empty (1 entries, e.g. old.yaml); "
                                       "expected an empty or new folder (--force writes into it anyway)\n")
    assert sorted(p.name for p in out.iterdir()) == ["old.yaml"]  # nothing written
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out), "--force"]) == 0
    assert len(list(out.iterdir())) == 9 and (out / "old.yaml").exists()
