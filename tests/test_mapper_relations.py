"""Relations the offline mapper proposes between sources: foreign keys, self-references, and
columns of separated foreign keys it cannot join."""
from __future__ import annotations

from helpers import cells, kgc_map, kgc_run, map_lexically, table_rows


def test_foreign_keys_become_relations_without_second_copy():
    _, rows = map_lexically("foreign-key-without-relation")
    rel = cells([r for r in rows if r.related_entity_class], "data_reference", "ontology_property",
                "related_entity_class", "join_condition")
    assert rel == {("isbn", "lib:lentItem", "lib:Edition", "loans.isbn==books.isbn"),
                   ("member_no", "lib:lentTo", "lib:Patron", "loans.member_no==members.member_no")}
    assert not [r for r in rows if r.source_file == "loans.csv" and r.entity_class == "lib:Edition"]
    editions = {r.subject_template for r in rows if r.entity_class == "lib:Edition"}
    assert editions == {"http://example.org/library/edition/{isbn}"}


def test_a_column_naming_other_records_of_its_own_source_is_a_self_join_relation(tmp_path):
    out = kgc_run(tmp_path, "self-reference")
    rows = {r[0]: r[2:] for r in table_rows(out / "table.md") if r[0]}
    assert rows["manager"] == ("st:reportsTo", "st:Employee", "http://example.org/data/employee/{emp_id}",
                               "employees.manager==employees.emp_id")
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    e = "http://example.org/data/employee/"
    assert sorted(t for t in kg if "#reportsTo>" in t) == [
        f"<{e}E-02> <http://example.org/staff#reportsTo> <{e}E-01> .",
        f"<{e}E-03> <http://example.org/staff#reportsTo> <{e}E-01> .",
        f"<{e}E-04> <http://example.org/staff#reportsTo> <{e}E-03> .",
    ]


def test_a_column_of_separated_foreign_keys_is_named_as_such_when_left_unmapped(tmp_path, capsys):
    rows = kgc_map(tmp_path, "multivalued-foreign-key")
    assert "author_ids" not in {r[0] for r in rows}
    warning = [line for line in capsys.readouterr().err.splitlines() if "'author_ids'" in line]
    assert len(warning) == 1
    assert ("column 'author_ids' of books.csv is not mapped; its cells hold ';'-separated lists of authors.csv's "
            "author_id (e.g. 'A4;A7'): a reference reads one value per cell, so no join matches them; split the "
            "column (one value per record, e.g. a link file) to map the relation; best candidates: ") in warning[0]
