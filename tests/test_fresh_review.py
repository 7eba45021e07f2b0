"""Regressions found by trying kgc as a newcomer with hand-made data (branch h-fresh)."""
from __future__ import annotations

import json

from pipeline.cli import main

_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
         "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
         "ex:Book a owl:Class . ex:title a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:string .\n"
         "ex:price a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:decimal .\n")
_HEAD = ("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype |\n"
         "|---|---|---|---|---|---|\n")


def _books(tmp_path, rows: str) -> None:
    (tmp_path / "onto.ttl").write_text(_ONTO, encoding="utf-8")
    (tmp_path / "books.csv").write_text("id,title,price\n1,Dune,12.50\n2,Emma,abc\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: b\nscenario: s\nsources: [books.csv]\nontologies: [onto.ttl]\n",
                                        encoding="utf-8")
    (tmp_path / "t.md").write_text(_HEAD + rows, encoding="utf-8")


def test_run_exits_1_when_the_guards_drop_triples(tmp_path, capsys):
    # README: exit 1 when "triples were dropped"; `kgc materialize` did, `kgc run` said 0
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n"
                     "| price | books.csv | ex:price | ex:Book | http://example.org/b/{id} | xsd:decimal |\n")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 1
    run = json.loads((out / "s" / "b" / "run.json").read_text(encoding="utf-8"))
    assert (run["status"], run["counts"]["triples"], run["counts"]["triples_dropped_by_guards"]) == ("ok", 5, 1)
    assert "triples=5 rows=2/2 triples-dropped=1 " in capsys.readouterr().out
    assert main(["materialize", str(out / "s" / "b" / "mapping.rml.ttl"), str(tmp_path / "kg.nt")]) == 1


def test_compile_exits_1_and_counts_the_rows_it_left_out(tmp_path, capsys):
    # a bad cell leaves its row out of the RML; the exit code said 0 and the line "(1 rows)"
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n"
                     "| price | books.csv | ex:price | ex:Book | http://example.org/b/{id} | xsd:decmal |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"
    assert err == (f"error: {tmp_path / 't.md'}:4 [datatype]: datatype cell 'xsd:decmal' is no datatype "
                   "(closest valid: xsd:decimal)\n")
    # `kgc run` replaying the same table loses the same row: exit 1 too (it said 0)
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "o")]) == 1
    assert "rows=1/2 errors=1 " in capsys.readouterr().out
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().out == f"1 TriplesMaps (1 of 1 rows) written to {tmp_path / 'm.ttl'}\n"


_KEYED = ("@prefix : <http://e/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
          ":C a owl:Class ; owl:hasKey ( :k ) .\n"
          ":k a owl:DatatypeProperty , owl:FunctionalProperty . :n a owl:DatatypeProperty , owl:FunctionalProperty .\n")


def test_owlrl_cs2_applies_haskey_to_equal_keys_only():
    # owlrl 7.1.4's prp-key compares no key property when there is one: every two instances
    # became owl:sameAs and a valid KG "clashed" on its functional properties (kgc synth --level opaque)
    from rdflib import Graph

    from pipeline.validation.consistency import owlrl_consistency

    onto = Graph().parse(data=_KEYED, format="turtle")
    kg = Graph().parse(data='@prefix : <http://e/> . :a a :C ; :k "1" ; :n "x" . :b a :C ; :k "2" ; :n "y" .\n'
                            ':c a :C ; :k "3" .', format="turtle")
    r = owlrl_consistency(kg, onto)
    assert (r.value, r.findings) == (True, [])
    kg.parse(data='@prefix : <http://e/> . :c :k "1" ; :n "z" .', format="turtle")  # c shares key "1" with a
    r = owlrl_consistency(kg, onto)
    assert r.value is False
    assert sorted(f.message for f in r.findings) == [
        f"Cardinality: http://e/{s} has 2 distinct literal values of http://e/{p}, at most 1 allowed "
        "(functional property)" for s in "ac" for p in "kn"]


def test_validate_passes_a_kg_whose_classes_have_keys(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(_KEYED, encoding="utf-8")
    (tmp_path / "c.csv").write_text("k\n1\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: k\nsources: [c.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "kg.nt").write_text("".join(f'<http://e/{s}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> '
                                            f'<http://e/C> .\n<http://e/{s}> <http://e/k> "{i}" .\n'
                                            for i, s in enumerate("ab")), encoding="utf-8")
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"), "--out", str(tmp_path / "v.json")]) == 0
    assert "CS2-owlrl: passes" in capsys.readouterr().out.splitlines()


def test_csv_records_wider_or_narrower_than_the_header_are_reported(tmp_path, capsys):
    # "3,D,E,2003,extra,more" under a 4-name header: the two extra cells reached no column, silently
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    (tmp_path / "books.csv").write_text('id,title,price\n1,"Du\nne",1.5,x,y\n2\n\n3,Emma,2\n4,Lolita,3,z\n',
                                        encoding="utf-8")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 0
    audit = json.loads((out / "s" / "b" / "audit.json").read_text(encoding="utf-8"))
    rows = [(f["severity"], f["line"], f["message"]) for f in audit if f["column"] == "record"]
    assert rows == [
        ("warning", 2, "2 record(s) have more cells than the header; the extra cells are dropped (no column name "
                       "addresses them): line 2 (5 cells), line 7 (4 cells)"),
        ("info", 4, "1 record(s) have fewer cells than the header; the missing cells are read as empty: line 4 (1 cells)")]
    capsys.readouterr()
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"warning: {tmp_path / 'books.csv'}:2 [record]: 2 record(s) have more cells than the header; the extra cells "
        "are dropped (no column name addresses them): line 2 (5 cells), line 7 (4 cells)")


def test_validate_runs_every_check_on_ntriples_with_a_byte_order_mark(tmp_path, capsys):
    # SV2 accepted the BOM; rdflib did not, so CS2 and SHACL were "not run: an illegal term; see SV2" (exit 1)
    _books(tmp_path, "")
    (tmp_path / "kg.nt").write_bytes(b'\xef\xbb\xbf<http://example.org/b/1> <http://example.org/title> "Dune" .\n')
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"), "--out", str(tmp_path / "v.json")]) == 0
    result = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert {k: (v["value"], v["status"]) for k, v in result.items() if k != "CS2-hermit"} == {
        "SV2": (True, "ok"), "CS2-owlrl": (True, "ok"), "SHACL": (True, "ok")}
    assert result["SHACL"]["details"]["coverage"] == {"mode": "full", "triples": [1, 1]}


def test_manifest_refuses_a_source_given_twice_or_a_folder_naming_its_line(tmp_path, capsys):
    # a source listed twice gave every table row twice (and a self-join); "." read as a file of unknown format
    _books(tmp_path, "")
    cases = {"twice.yaml": ("sources: [books.csv, books.csv]\n", "sources[1]: the same source as sources[0] (books.csv)"),
             "named.yaml": ("sources: [books.csv, {path: sub/books.csv}]\n",
                            "sources[1]: named 'books.csv' as sources[0]; give one a distinct 'name'"),
             "folder.yaml": ("sources: [.]\n", f"sources[0].path: {tmp_path} is a folder; expected a file"),
             "missing.yaml": ("sources: [nope.csv]\n", f"sources[0].path: file not found: {tmp_path / 'nope.csv'}")}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "books.csv").write_text("id\n1\n", encoding="utf-8")
    for name, (sources, message) in cases.items():
        (tmp_path / name).write_text(f"name: b\n{sources}ontologies: [onto.ttl]\n", encoding="utf-8")
        assert main(["run", str(tmp_path / name), "--out", str(tmp_path / "o")]) == 2
        assert capsys.readouterr().err == f"error: {tmp_path / name}:2: {message}\n"
    (tmp_path / "two.yaml").write_text("name: b\nsources: [books.csv, {path: sub/books.csv, name: old.csv}]\n"
                                       "ontologies: [onto.ttl]\n", encoding="utf-8")
    from pipeline.manifest import load_manifest

    assert [s.name for s in load_manifest(tmp_path / "two.yaml").sources] == ["books.csv", "old.csv"]


def test_an_output_that_is_a_folder_or_a_missing_score_input_is_bad_input(tmp_path, capsys):
    # `kgc materialize m.ttl /tmp` wrote /tmp.morph-kgc.ttl, then failed; validate failed after its checks
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
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


def test_json_keys_with_inner_spaces_are_mapped_and_read(tmp_path, capsys):
    # README: "Keys with spaces and nested keys are read"; the loader called them unaddressable,
    # warned, and the offline mapper never proposed them, though Morph-KGC reads them
    from pipeline.manifest import load_manifest
    from pipeline.sources.load import load_source

    _books(tmp_path, "| au thor.full name | b.json | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
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
