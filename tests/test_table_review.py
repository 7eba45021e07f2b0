"""Rows marked for review: written in every table format, audited but not asserted, listed first in audit.md,
accepted by clearing the mark; the offline mapper marks rows it cannot make valid (an untagged langString)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pipeline.cli import main
from pipeline.table import MappingRow, MappingTable
from pipeline.table.formats import parse_csv, parse_json, to_csv, to_json
from pipeline.table.markdown import parse_markdown, to_markdown

CASES = Path(__file__).parent / "cases"

ONTO = ("@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Person a owl:Class .\nex:name a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:string .\n"
        "ex:nick a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:string .\n")
TABLE = ("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype | Review |\n"
         "|---|---|---|---|---|---|---|\n"
         "| name | people.csv | ex:name | ex:Person | http://example.org/p/{id} | xsd:string | |\n"
         "| nick | people.csv | ex:nick | ex:Person | http://example.org/p/{id} | xsd:string | confidence 0.41 < 0.60 |\n")


def test_the_review_column_is_written_only_when_a_row_is_marked_and_read_back():
    plain = MappingTable(rows=[MappingRow(data_reference="a", ontology_property="ex:p", entity_class="ex:C")])
    assert "Review" not in to_markdown(plain) and "Review" not in to_csv(plain).splitlines()[0]
    marked = MappingTable(rows=[*plain.rows, MappingRow(data_reference="b", ontology_property="ex:q",
                                                        entity_class="ex:C", review="confidence 0.4 | low")])
    md = to_markdown(marked)
    assert md.splitlines()[0].endswith("| Function Output | Review |")
    assert md.splitlines()[3].endswith("| confidence 0.4 \\| low |")
    for table in (parse_markdown(md), parse_csv(to_csv(marked)), parse_json(to_json(marked))):
        assert [r.review for r in table.rows] == [None, "confidence 0.4 | low"]
        assert [r.review for r in table.marked] == ["confidence 0.4 | low"]


def _case(tmp_path: Path, table: str) -> Path:
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "people.csv").write_text("id,name,nick\n1,Ann,A\n2,Bob,B\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: p\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(table, encoding="utf-8")
    return tmp_path / "case.yaml"


def test_a_marked_row_is_listed_first_and_not_asserted_until_its_mark_is_cleared(tmp_path, capsys):
    manifest = _case(tmp_path, TABLE)
    assert main(["-q", "run", str(manifest), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "out"), "--no-evaluate"]) == 0
    folder = tmp_path / "out" / "custom" / "p"
    assert (folder / "kg.nt").read_text(encoding="utf-8").count("<http://example.org/o#nick>") == 0
    assert (folder / "kg.nt").read_text(encoding="utf-8").count("<http://example.org/o#name>") == 2
    first = (folder / "audit.md").read_text(encoding="utf-8").splitlines()[4]
    assert first == (f"| warning | audit | t.md:4 | review | confidence 0.41 < 0.60 | marked for review, not asserted in "
                     "the KG: nick -> ex:nick of ex:Person; confidence 0.41 < 0.60 (clear the Review cell to accept the "
                     "row, or delete the row) | a person's check of the row |  |")
    counts = json.loads((folder / "run.json").read_text(encoding="utf-8"))["counts"]
    assert (counts["rows"], counts["rows_compiled"], counts["rows_review"], counts["rows_dropped"]) == (2, 1, 1, 0)
    assert "review=1" in capsys.readouterr().out
    (tmp_path / "t.md").write_text(TABLE.replace("confidence 0.41 < 0.60 ", ""), encoding="utf-8")  # accepted
    assert main(["-q", "run", str(manifest), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "out2"), "--no-evaluate"]) == 0
    assert (tmp_path / "out2" / "custom" / "p" / "kg.nt").read_text(encoding="utf-8").count("o#nick>") == 2


def test_an_untagged_langstring_row_is_marked_for_review_and_the_kg_stays_valid(tmp_path):
    case = tmp_path / "case"
    shutil.copytree(CASES / "mapper-langstring-without-tag", case)
    assert main(["-q", "map", str(case / "case.yaml"), str(tmp_path / "t.json")]) == 0
    rows = {r["data_reference"]: r for r in json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["rows"]}
    assert rows["d:code"]["ontology_property"] == "ex:label" and rows["d:code"]["language_tag"] is None
    assert rows["d:code"]["review"].startswith("no language tag could be determined for this rdf:langString value")
    assert rows["d:title"]["review"] is None
    assert main(["-q", "run", str(case / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.json"),
                 "--out", str(tmp_path / "out")]) == 0
    run = json.loads((tmp_path / "out" / "cases" / "12-xml-default-namespace" / "run.json").read_text(encoding="utf-8"))
    checks = run["graph_validation"]
    assert (checks["SV2"]["value"], checks["CS2-owlrl"]["value"], checks["SHACL"]["value"]) == (True, True, True)
    assert run["counts"]["rows_review"] == 1
