"""score_case and its JSON / Markdown outputs."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.scoring.mapping import (ScoringConfig, score_case, summary_lines, write_case_json,
                                      write_scenario_markdown)
from pipeline.table import MappingRow, MappingTable


def _table(cls: str) -> MappingTable:
    return MappingTable(rows=[
        MappingRow(data_reference="ID", ontology_property="ex:id", entity_class="ex:Person",
                   subject_template="http://example.org/p/{ID}", datatype="xsd:integer", line=1),
        MappingRow(data_reference="Name", ontology_property="ex:fullname", entity_class=cls,
                   subject_template="http://example.org/p/{ID}", datatype="xsd:string", line=2),
    ], source="table.md")


def test_score_case_writes_json_and_markdown(tmp_path: Path) -> None:
    gold = _table("ex:Person")
    runs = [_table("ex:Person"), _table("ex:Sport")]
    report = score_case(runs, gold, None, case="c1", scenario="sx", config=ScoringConfig(use_embeddings=False),
                        generation_events=[[("a", {1}), ("b", {1})], None])
    ec = report.macro["raw"]["Entity Class"]
    assert (ec.runs, ec.f1) == (2, 0.75)
    assert report.macro["post-processed"]["Join Condition"].f1 is None
    assert report.check_summary["CM1"] == 1.0 and report.check_summary["CN4"] == 1.0
    assert report.check_summary["SV1"] is None  # no ontology: SV1/CS1 skipped
    path = write_case_json(report, tmp_path / "out")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["macro"]["raw"]["Entity Class"]["f1"] == 0.75
    assert data["runs"]["raw"][1]["tasks"]["Entity Class"]["findings"][0]["line"] == 2
    md = write_scenario_markdown([report], tmp_path / "out").read_text(encoding="utf-8")
    assert "| Entity Class | 0.750 | 0.750 | 0.750 | 0.750 | 0.750 | 0.750 |" in md
    assert "| Join Condition | n/a | n/a | n/a | n/a | n/a | n/a |" in md
    assert any("Entity Class" in line and "0.750" in line for line in summary_lines(report))
