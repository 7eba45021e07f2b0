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
    _books(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().out == f"1 TriplesMaps (1 of 1 rows) written to {tmp_path / 'm.ttl'}\n"
