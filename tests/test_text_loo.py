"""Leave one ontology out across both parts of Text2KGBench (pipeline/text/bench.py, ``--protocol
loo [--other DIR]``): the scored ontology's sentences are never trained on, the part's other
ontologies are, and with ``--other`` every ontology of the other part too, whatever its layout
(Wikidata-TekGen's per-triple lines, DBpedia-WebNLG's triple lists)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.text.bench import main

from helpers import text2kgbench_ontology

CASES = Path(__file__).parent / "cases"
FILM = CASES / "text-tekgen"  # Wikidata-TekGen layout: QIDs, one triple per training line
UNIVERSITY = CASES / "text"  # DBpedia-WebNLG layout


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, Path]:
    """Part A (the scored one): a TekGen-layout film ontology and a university one; part B: another
    university ontology."""
    root = tmp_path_factory.mktemp("t2kb")
    a, b = root / "a", root / "b"
    text2kgbench_ontology(a, "1_tinyfilm", FILM, scored=True)
    text2kgbench_ontology(a, "2_tinyuni", UNIVERSITY)
    text2kgbench_ontology(b, "3_tinyuni", UNIVERSITY)
    return a, b


def _report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("with_other, trained_on", [(False, ["2_tinyuni"]), (True, ["2_tinyuni", "3_tinyuni"])])
def test_loo_never_trains_on_the_scored_ontology_and_adds_the_other_part(parts, tmp_path, capsys, with_other,
                                                                         trained_on):
    a, b = parts
    out = tmp_path / "out"
    argv = ["--bench", str(a), "--out", str(out), "--protocol", "loo", "--only", "1_tinyfilm", "--no-validate"]
    assert main(argv + (["--other", str(b)] if with_other else [])) == 0
    report = _report(out)
    assert list(report["rows"]) == ["1_tinyfilm"]
    assert report["rows"]["1_tinyfilm"]["training"] == trained_on
    assert report["other"] == (str(b) if with_other else None)
    prov = json.loads((out / "1_tinyfilm" / "provenance.json").read_text(encoding="utf-8"))
    assert prov["setting"] == "zero-shot" and prov["training_ontologies"] == trained_on
    # the one-document figure is reported beside the corpus figure
    assert report["rows"]["1_tinyfilm"]["ours one-document"] is not None
    table = capsys.readouterr().out
    assert ("Protocol: loo (also trained on b), split: test." in table) == with_other
    # learned on university sentences only, the film ontology's words choose its relations
    first = json.loads((out / "1_tinyfilm" / "outputs.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert ("director", "Hideo Nakata") in {(t["rel"], t["obj"]) for t in first["triples"]}


def test_an_other_part_naming_a_scored_ontology_is_bad_input(parts, tmp_path, capsys):
    a, _ = parts
    argv = ["--bench", str(a), "--other", str(a), "--out", str(tmp_path / "out"), "--protocol", "loo",
            "--only", "1_tinyfilm", "--no-validate"]
    assert main(argv) == 2
    assert "--other names ontologies the scored part names too (1_tinyfilm, 2_tinyuni)" in capsys.readouterr().err


def test_an_other_folder_without_ontologies_is_bad_input(parts, tmp_path, capsys):
    a, _ = parts
    argv = ["--bench", str(a), "--other", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"),
            "--protocol", "loo", "--no-validate"]
    assert main(argv) == 2
    assert "no ontologies/ folder (expected a Text2KGBench part)" in capsys.readouterr().err


def test_an_unknown_only_name_is_bad_input_not_a_traceback(parts, tmp_path, capsys):
    a, _ = parts
    argv = ["--bench", str(a), "--out", str(tmp_path / "out"), "--protocol", "loo", "--only", "9_nothing",
            "--no-validate"]
    assert main(argv) == 2
    assert "--only 9_nothing: no such ontology" in capsys.readouterr().err
