"""Exit code 1 when a command worked but lost something: `kgc run` when the guards drop triples."""
from __future__ import annotations

import json

from pipeline.cli import main

from helpers import books_case


def test_run_exits_1_when_the_guards_drop_triples(tmp_path, capsys):
    # the README: exit 1 when triples were dropped, for `kgc run` as for `kgc materialize`
    books_case(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n"
                         "| price | books.csv | ex:price | ex:Book | http://example.org/b/{id} | xsd:decimal |\n")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 1
    run = json.loads((out / "s" / "b" / "run.json").read_text(encoding="utf-8"))
    assert (run["status"], run["counts"]["triples"], run["counts"]["triples_dropped_by_guards"]) == ("ok", 5, 1)
    assert "triples=5 rows=2/2 triples-dropped=1 " in capsys.readouterr().out
    assert main(["materialize", str(out / "s" / "b" / "mapping.rml.ttl"), str(tmp_path / "kg.nt")]) == 1
