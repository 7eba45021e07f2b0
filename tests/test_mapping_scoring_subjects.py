"""The Subject Generation task: a subject template is scored by what it identifies (its
references), not by its text."""
from __future__ import annotations

import pytest

from pipeline.ontology import load_ontology
from pipeline.scoring.mapping import score_table
from pipeline.scoring.mapping.subject import references_agree, same_reference
from pipeline.table import read_table

from helpers import case_folder


@pytest.mark.parametrize("setting", ["raw", "post-processed"])
def test_subject_template_scored_by_what_it_identifies(setting: str) -> None:
    folder = case_folder("subject-template-scored-by-string")
    onto = load_ontology([folder / "ontology.ttl"])
    score = score_table(read_table(folder / "predicted_table.md"), read_table(folder / "gold_table.md"), onto,
                        setting=setting)
    sg = score.tasks["Subject Generation"]
    assert (sg.tp, sg.fp, sg.fn, sg.precision, sg.recall, sg.f1) == (0, 2, 2, 0.0, 0.0, 0.0)
    assert "identify other entities" in sg.findings[0].message
    f1s = [t.f1 for t in score.tasks.values() if t.f1 is not None]
    assert f1s == [1.0, 1.0, 1.0, 0.0, 1.0]  # DR, OP, EC, SG, DT: mean 0.8


def test_subject_references_rules() -> None:
    assert references_agree("http://ex.org/p/{fname}_{lname}", "ex:p/{lname}_{fname}") == (True, "")
    assert references_agree("ex:e/{title}", "ex:e/{isbn}")[0] is False
    assert references_agree("http://ex.org/thing", "http://ex.org/p/{id}")[0] is False
    assert references_agree("http://ex.org/a", "http://ex.org/b") == (None, "")
    assert references_agree("ex:p/{a", "ex:p/{a}") == (None, "")  # unparsable: plain similarity decides
    assert references_agree("x/$(/entry/id)", "x/$(replace(/entry/id,'a',''))") == (True, "")
    assert same_reference("/entry/cac:Party/cbc:ID", "cbc:ID")
    assert same_reference("$.members[*].id", "id")
    assert not same_reference("member_id", "id")
    # a default namespace bound to a prefix names the same element as the unprefixed step
    assert same_reference("d:F39", "F39") and same_reference("/d:Notice/d:ID", "ID")
    assert not same_reference("cbc:ID", "cac:ID") and not same_reference("x/d:b", "y/b")


def test_subject_same_column_other_prefix_still_correct() -> None:
    from pipeline.table import MappingRow, MappingTable
    gold = MappingTable([MappingRow(data_reference="ID", ontology_property="ex:id", entity_class="ex:Person",
                                    subject_template="ex:person/{ID}")], source="gold")
    pred = MappingTable([MappingRow(data_reference="ID", ontology_property="ex:id", entity_class="ex:Person",
                                    subject_template="ex:person/{ID}")], source="pred")
    assert score_table(pred, gold, None).tasks["Subject Generation"].f1 == 1.0
