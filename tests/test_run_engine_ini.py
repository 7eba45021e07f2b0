"""The ``morph-kgc.ini`` a run writes runs in Morph-KGC 2.10 itself, also for a mapping holding a logical
view, which that engine does not run: the configuration then names the engine copy (its derived sources)."""
from __future__ import annotations

import shutil
from pathlib import Path

import morph_kgc
import pytest
from rdflib import Graph
from rdflib.compare import isomorphic

from pipeline.cli import main

CASE = Path(__file__).resolve().parent / "cases" / "run-engine-ini-logical-view"


@pytest.mark.parametrize("table, mapping", [("table.md", "mapping.morph-kgc.ttl"), ("plain.md", "mapping.rml.ttl")])
def test_run_ini_runs_in_morph_kgc(tmp_path, table, mapping):
    folder = tmp_path / "case"
    shutil.copytree(CASE, folder)
    assert main(["-q", "run", str(folder / "case.yaml"), "--table", str(folder / table),
                 "--out", str(tmp_path / "out")]) == 0
    run = tmp_path / "out" / "tests" / "books"
    ini = run / "morph-kgc.ini"
    assert f"mappings = {run / mapping}" in ini.read_text()
    kg = Graph().parse(run / "kg.nt", format="nt")
    assert len(kg) == 6
    assert isomorphic(morph_kgc.materialize(str(ini)), kg)
