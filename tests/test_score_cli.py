"""`kgc score`: a KG or gold graph in any RDF syntax, an unknown extension as bad input, n/a with its
reason."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rdflib import Dataset, URIRef

from pipeline.cli import main
from pipeline.errors import InputError, ManifestError
from pipeline.manifest import load_manifest
from pipeline.rdffile import load_graph

from helpers import case_folder


def _score_kg(folder: Path, kg: Path, out: Path) -> dict:
    assert main(["-q", "score", str(folder / "case.yaml"), "--kg", str(kg), "--out", str(out)]) == 0
    return json.loads((out / "graph_scores.json").read_text())


@pytest.mark.parametrize("fmt,ext", [("turtle", ".ttl"), ("nquads", ".nq"), ("json-ld", ".jsonld"),
                                     ("xml", ".rdf"), ("nt", ".nt")])
def test_turtle_gold_graph_any_syntax(tmp_path: Path, fmt: str, ext: str) -> None:
    folder = case_folder("turtle-gold-graph")
    gold = load_graph(folder / "gold_graph.ttl", "gold graph")
    assert len(gold) == 24
    kg = tmp_path / f"kg{ext}"
    if fmt == "nquads":  # quads in a named graph: scoring reads the union of the graphs
        ds = Dataset()
        named = ds.graph(URIRef("http://example.org/g"))
        for t in gold:
            named.add(t)
        ds.serialize(kg, format=fmt)
    else:
        gold.serialize(kg, format=fmt, encoding="utf-8")
    assert len(load_graph(kg)) == 24
    scores = _score_kg(folder, kg, tmp_path / "out")
    assert scores["SA2-prop-exact"]["value"] == scores["SA2-type-exact"]["value"] == 1.0


def test_turtle_gold_graph_unknown_extension(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = case_folder("turtle-gold-graph")
    bad = tmp_path / "kg.xyz"
    shutil.copy(folder / "gold_graph.ttl", bad)
    with pytest.raises(InputError, match=r"unknown RDF syntax for extension '\.xyz'"):
        load_graph(bad)
    assert main(["-q", "score", str(folder / "case.yaml"), "--kg", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "unknown RDF syntax" in capsys.readouterr().err
    for f in folder.iterdir():
        shutil.copy(f, tmp_path / f.name)
    shutil.copy(folder / "gold_graph.ttl", tmp_path / "gold.xyz")
    (tmp_path / "case.yaml").write_text((folder / "case.yaml").read_text().replace("gold_graph.ttl", "gold.xyz"))
    with pytest.raises(ManifestError, match="gold.graph: unknown RDF syntax"):
        load_manifest(tmp_path / "case.yaml")


def test_score_prints_na_with_the_reason_not_none(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    gold = '<http://example.org/p/1> <http://example.org/name> "Ann" .\n'
    (tmp_path / "gold.nt").write_text(gold, encoding="utf-8")
    (tmp_path / "kg.nt").write_text(gold, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: s\nsources: [p.csv]\nontologies: [onto.ttl]\ngold: {graph: gold.nt}\n",
                                        encoding="utf-8")
    assert main(["score", str(tmp_path / "case.yaml"), "--kg", str(tmp_path / "kg.nt"),
                 "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "SA2-prop-exact: 1.000" in out
    assert "PQ3: n/a (the case has no competency questions: the manifest key competency_questions names none)" in out
    assert not any(line.endswith(": None") for line in out)
