"""A valid KG without the rows held for review says so: on the case line and in the report's verdict."""
from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.report.trust import case_verdict
from test_table_review import ONTO, TABLE


def test_valid_kg_says_rows_were_held_back(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "people.csv").write_text("id,name,nick\n1,Ann,A\n2,Bob,B\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: p\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(TABLE, encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "out")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("custom/p: "))
    assert line.startswith("custom/p: ok (KG valid, 1 table row(s) held for review, not in it)")
    run = json.loads((tmp_path / "out" / "custom" / "p" / "run.json").read_text(encoding="utf-8"))
    v = case_verdict({"status": "ok", "counts": run["counts"]}, run["graph_validation"])
    assert v["headline"].endswith("pass; 1 table row(s) held for review are not in it).")
