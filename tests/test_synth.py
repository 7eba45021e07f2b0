"""kgc synth: seeded, deterministic scenarios at four schema distances, with a gold table and gold KG."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import RDFS, Graph, URIRef

from pipeline.cli import main
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.synth import LEVELS, generate
from pipeline.synth.check import check_gold
from pipeline.table import read_table


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_files(tmp_path: Path) -> None:
    assert main(["-q", "synth", "--seed", "5", "--level", "synonym", "--out", str(tmp_path / "a")]) == 0
    generate(5, "synonym", tmp_path / "b")
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a == b and len(a) == 8  # links nested in the XML main records: no link table
    c = _files(generate(6, "synonym", tmp_path / "c").folder)
    assert c["gold_graph.nt"] != a["gold_graph.nt"]
    # another process with another hash seed: still the same bytes (no hash order, no clock)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", f"from pipeline.synth import generate; generate(5, 'synonym', {str(tmp_path / 'd')!r})"],
                   check=True, env=env, cwd=Path(__file__).resolve().parents[1])
    assert _files(tmp_path / "d") == a


def test_scenario_contents_seed_5(tmp_path: Path) -> None:
    sc = generate(5, "label", tmp_path)
    assert (sc.domain, sc.formats) == ("pharmacy", {"main": "xml", "parent": "json", "member": "csv"})
    case = load_manifest(sc.manifest)
    assert [s.path.name for s in case.sources] == ["medicines.xml", "manufacturers.json", "ingredients.csv"]
    assert sc.features["nested_links"] is True
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    med = "http://example.org/pharmacy#"
    assert str(onto.graph.value(URIRef(med + "packPrice"), RDFS.label)) == "pack price"
    gold = read_table(case.gold_table)
    refs = [r.data_reference for r in gold.rows]
    # label level: columns are the properties' labels in snake case; a nested JSON object for the plant city
    assert refs[:5] == ["authorisation_number", "trade_name", "authorisation_date", "pack_size", "pack_price"]
    assert "site.plant_city" in refs
    assert gold.rows[1].language_tag == "{language}"
    # the links to ingredients: a repeated element in each medicine, joined to the ingredients' key
    assert (gold.rows[-1].data_reference, gold.rows[-1].join_condition) == \
        ("ingredient", "medicines.ingredient==ingredients.ingredient_code")
    assert (sc.folder / "medicines.xml").read_text().count("<ingredient>") == \
        sum(1 for t in (sc.folder / "gold_graph.nt").read_text().splitlines() if "#containsIngredient>" in t)
    rows = list(csv.reader((sc.folder / "ingredients.csv").open()))
    assert rows[0] == ["ingredient_code", "substance_name", "chemical_class", "safety_note"]
    g = Graph().parse(case.gold_graph, format="nt")
    assert len(g) == 110
    assert len(set(g.subjects(URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), URIRef(med + "Medicine")))) == \
        (sc.folder / "medicines.xml").read_text().count("<medicine>") == 8


def test_levels_change_names_only(tmp_path: Path) -> None:
    heads = {}
    for level in LEVELS:
        sc = generate(0, level, tmp_path / level)
        heads[level] = [r.data_reference for r in read_table(sc.folder / "gold_table.md").rows]
        assert (sc.folder / "gold_graph.nt").read_bytes() == (tmp_path / "label" / "gold_graph.nt").read_bytes()
    assert heads["label"][:3] == ["isbn", "edition_title", "publication_date"]
    assert heads["synonym"][:3] == ["isbn_no", "book_ttl", "pub_dt"]
    assert heads["language"][:3] == ["isbn", "titulo", "fecha_publicacion"]
    assert all(len(h) == 3 and h[0] in "FGHJQX" for h in heads["opaque"][:5])
    assert heads["opaque"][9] == "address." + heads["opaque"][9][-3:]  # nested object of the JSON parent


def test_gold_table_compiles_to_gold_kg_where_the_pipeline_supports_it(tmp_path: Path) -> None:
    sc = generate(2, "label", tmp_path / "s")  # transit: JSON main (stops nested), CSV parent, XML member
    assert sc.features["default_namespace_xml"] is False and sc.features["nested_links"] is True
    res = check_gold(sc.manifest, tmp_path / "work")
    assert res.extra == []
    # the language tag from a column (rml:languageMap with a reference) compiles too: nothing is missing
    assert res.missing == [] and res.agree
    assert res.n_gold == res.n_compiled == 119
    assert main(["-q", "synth", "--seed", "2", "--level", "label", "--out", str(tmp_path / "t"), "--check"]) == \
        (0 if res.agree else 1)


def test_unknown_level_is_bad_input(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["synth", "--seed", "1", "--level", "far", "--out", "x"])
    assert exc.value.code == 2


def test_bench_unseen_summary_counts_and_verdicts() -> None:
    from pipeline.bench.unseen import summarise

    def res(level: str, seed: int, t: float, g: float, silent: list[str]) -> dict:
        return {"level": level, "seed": seed, "domain": "library", "status": "ok", "task_f1": t, "graph_f1": g,
                "formats": {"main": "csv", "parent": "json", "member": "xml"},
                "features": {"default_namespace_xml": True, "date_format": "iso", "numeric_main_key": False},
                "tasks": {"Datatype": t}, "dropped": silent, "silent": silent}

    text = summarise([res("label", 0, 0.9, 0.85, []), res("label", 1, 0.8, 0.75, ["a.xml"]),
                      res("opaque", 0, 0.7, 0.5, [])])
    lines = text.splitlines()
    # label: F1 and gap meet the goal, but a source was dropped silently
    assert lines[2] == "| label | 2 | 0.850 | 0.800 | 0.050 | 0 | 1 (1) | task >= 0.85, gap <= 0.1, none silent: not met |"
    assert lines[3] == "| opaque | 1 | 0.700 | 0.500 | 0.200 | 0 | 0 (0) | task >= 0.6, gap <= 0.1, none silent: not met |"
    assert summarise([res("synonym", 0, 0.9, 0.85, [])]).splitlines()[2].endswith("none silent: met |")
    assert "| Datatype | 0.850 | 0.700 |" in lines
    assert lines[-1] == "Sources silently dropped: label/1: a.xml"
