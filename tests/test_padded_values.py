"""Values with leading/trailing white space (indented XML text, padded CSV cells) get ``trim``.

Inputs: tests/cases/padded-values/ (README.md there).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.cli import main

CASE = Path(__file__).resolve().parent / "cases" / "padded-values"
O = "<http://ex.org/o#"


def _rows(table: Path) -> dict[str, tuple[str, str]]:
    rows = {}
    for line in table.read_text(encoding="utf-8").splitlines()[2:]:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows[c[0]] = (c[9], c[10])
    return rows


@pytest.mark.parametrize("manifest, expected_rows, expected_kg", [
    ("case.yaml", {"@id": ("", ""), "name": ("trim", "leading and trailing white space removed"),
                   "city": ("trim", "leading and trailing white space removed")},
     [f'<http://ex.org/person/p1> {O}city> "Berlin" .', f'<http://ex.org/person/p1> {O}name> "Alice Smith" .']),
    ("case-csv.yaml", {"id": ("", ""), "name": ("trim", "leading and trailing white space removed"),
                       "age": ("trim", "leading and trailing white space removed")},
     [f'<http://ex.org/person/q1> {O}age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .',
      f'<http://ex.org/person/q1> {O}name> "Bob Jones" .',
      f'<http://ex.org/person/q2> {O}age> "37"^^<http://www.w3.org/2001/XMLSchema#integer> .',
      f'<http://ex.org/person/q2> {O}name> "Carol" .']),
])
def test_padded_literal_columns_are_trimmed(tmp_path, manifest, expected_rows, expected_kg):
    work = tmp_path / "case"
    shutil.copytree(CASE, work)
    table, rml, kg = tmp_path / "t.md", tmp_path / "m.ttl", tmp_path / "kg.nt"
    assert main(["-q", "map", str(work / manifest), str(table)]) == 0
    assert _rows(table) == expected_rows
    assert main(["-q", "compile", str(work / manifest), str(table), str(rml)]) == 0
    assert main(["-q", "materialize", str(rml), str(kg)]) == 0
    lines = [x for x in kg.read_text(encoding="utf-8").splitlines() if "#name>" in x or "#city>" in x or "#age>" in x]
    assert lines == expected_kg


def test_trim_is_a_known_table_function():
    from pipeline.fno import FUNCTIONS, GREL, function_for_name

    assert [function_for_name(n) for n in ("trim", "strip()", "string_trim")] == ["trim"] * 3
    assert FUNCTIONS["trim"].iri == GREL.string_trim
