"""An XML value and what its own element says about it (xml:lang, a unit attribute) are read per
element (pipeline/compile/elements.py): through `kgc run`, YARRRML written and read back, and a
document with a default namespace named by absolute paths. The golden folder
tests/cases/xml-lang-cross-product holds the new user's case itself."""
from __future__ import annotations

import json
from pathlib import Path

from rdflib import Graph, Literal, Namespace, URIRef

from pipeline.cli import main

DCT = Namespace("http://purl.org/dc/terms/")
DS1 = URIRef("http://data.example.org/dataset/ds1")
TITLES = {Literal("Air quality", lang="en"), Literal("Qualité de l'air", lang="fr")}
VOCAB = Path(__file__).resolve().parent / "cases" / "xml-lang-cross-product" / "vocab.ttl"
HEAD = ("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype | "
        "Language Tag |\n|---|---|---|---|---|---|---|\n")


def _case(tmp_path: Path) -> Path:
    """A default-namespace catalogue, no iterator stated, a table of absolute paths."""
    (tmp_path / "c.xml").write_text(
        '<?xml version="1.0"?>\n<catalog xmlns="http://ex.org/ns#">\n  <dataset><id>ds1</id>\n'
        '    <title xml:lang="en">Air quality</title><title xml:lang="fr">Qualité de l\'air</title>\n'
        "  </dataset>\n</catalog>\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(
        f"sources: [{{path: c.xml}}]\nontologies: [{VOCAB}]\n"
        'prefixes: {dcat: "http://www.w3.org/ns/dcat#", dcterms: "http://purl.org/dc/terms/"}\n', encoding="utf-8")
    (tmp_path / "t.md").write_text(
        HEAD + "| /catalog/dataset/title | c.xml | dcterms:title | dcat:Dataset | "
        "http://data.example.org/dataset/{/catalog/dataset/id} | rdf:langString | "
        "{/catalog/dataset/title/@xml:lang} |\n", encoding="utf-8")
    return tmp_path / "case.yaml"


def _titles(path: Path) -> set:
    return set(Graph().parse(path).objects(DS1, DCT.title))


def test_run_pairs_titles_and_counts_one_subject_per_record(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    case = _case(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(case), "--mapper", "replay", "--table", str(tmp_path / "t.md"), "--out", str(out),
                 "-q"]) == 0
    folder = next(out.glob("*/*/run.json")).parent
    assert _titles(folder / "kg.nt") == TITLES
    cov = json.loads((folder / "run.json").read_text(encoding="utf-8"))["coverage"]["c.xml"]
    # the TriplesMap iterating at d:title shares the dataset's subjects: one record, one subject
    assert (cov["records_with_subject"], cov["triples_maps"], cov["unmapped_columns"]) == (1, 2, [])


def test_yarrrml_written_for_a_per_element_map_reads_back_to_the_same_graph(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the engine's derived sources of a mapping read back go beside the working directory
    case = _case(tmp_path)
    rml, yml = tmp_path / "m.ttl", tmp_path / "m.yml"
    assert main(["compile", str(case), str(tmp_path / "t.md"), str(rml), "--yarrrml", str(yml)]) == 0
    text = yml.read_text(encoding="utf-8")
    assert "iterator: '/d:catalog/d:dataset/d:title'" in text and "$(../d:id)" in text
    assert main(["compile", str(case), str(yml), str(tmp_path / "back.ttl")]) == 0
    for mapping, kg in ((rml, "kg.nt"), (tmp_path / "back.ttl", "back.nt")):
        assert main(["materialize", str(mapping), str(tmp_path / kg)]) == 0
        assert _titles(tmp_path / kg) == TITLES
