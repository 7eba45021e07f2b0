"""HermiT ignores literals outside the OWL 2 datatype map: its result says which, never a plain pass.

Case ``hermit-passes-ignoring-xsd-date``: p17 has two ``xsd:date`` birth dates of a functional
property; HermiT (``--ignoreUnsupportedDatatypes``) printed "CS2-hermit: passes".
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rdflib import Graph

from pipeline.cli import main
from pipeline.validation.consistency import hermit_missing, ignored_datatypes
from pipeline.validation.verdict import kg_verdict

CASE = Path(__file__).parent / "cases" / "hermit-passes-ignoring-xsd-date"
XSD = "http://www.w3.org/2001/XMLSchema#"


def test_ignored_datatypes_counted_per_datatype():
    g = Graph().parse(CASE / "kg.nt", format="nt")
    assert ignored_datatypes(g) == {XSD + "date": 2}
    assert ignored_datatypes(Graph().parse(CASE / "kg-datetime.nt", format="nt")) == {}  # xsd:dateTime is in the map


def test_verdict_names_the_caveat():
    checks = {"SV2": {"value": True, "status": "ok"},
              "CS2-hermit": {"value": True, "status": "ok",
                             "details": {"caveat": "xsd:date values not reasoned over: 2 literals"}}}
    assert kg_verdict(checks).sentence() == \
        "KG valid: passes SV2, CS2-hermit (xsd:date values not reasoned over: 2 literals)"


@pytest.mark.skipif(hermit_missing() is not None, reason="HermiT needs Java")
def test_hermit_line_says_dates_not_reasoned(tmp_path, monkeypatch, capsys):
    shutil.copytree(CASE, tmp_path / "c")
    monkeypatch.chdir(tmp_path / "c")
    assert main(["validate", "case.yaml", "kg.nt"]) == 1  # owlrl and SHACL find the two birth dates
    out = capsys.readouterr().out.splitlines()
    hermit = next(line for line in out if line.startswith("CS2-hermit:"))
    assert hermit == "CS2-hermit: passes, xsd:date values not reasoned over: 2 literals (1 warning)"
    assert out[out.index(hermit) + 1] == (
        "  warning: HermiT did not reason over 2 literal(s) of datatypes outside the OWL 2 datatype map "
        "(xsd:date: 2): a functional property, cardinality or range clash on these values is not seen by it "
        "(owlrl's CS2 compares them)")
    assert out[-1] == "KG invalid: fails CS2-owlrl, SHACL"
    assert main(["validate", "case.yaml", "kg-datetime.nt"]) == 1
    out = capsys.readouterr().out
    assert "CS2-hermit: fails (4 errors)" in out and "not reasoned over" not in out  # traced to 3 triples


@pytest.mark.skipif(hermit_missing() is not None, reason="HermiT needs Java")
def test_hermit_runs_from_the_root_folder(tmp_path, monkeypatch, capsys):
    """Case ``validate-hermit-fails-from-root-folder``: from '/', HermiT said "unable to create default
    IRI base", so the KG was "not validated" (exit 1)."""
    case = Path(__file__).parent / "cases" / "validate-hermit-fails-from-root-folder"
    shutil.copytree(case, tmp_path / "c")
    monkeypatch.chdir("/")
    assert main(["validate", str(tmp_path / "c" / "case.yaml"), str(tmp_path / "c" / "kg.nt")]) == 0
    out = capsys.readouterr().out
    assert "CS2-hermit: passes" in out and "KG valid: passes SV2, CS2-owlrl, CS2-hermit, SHACL, vocabulary" in out
