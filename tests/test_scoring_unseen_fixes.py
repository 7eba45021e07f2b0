"""Scoring fixes that unseen data exposed (issue 10): one regression test per case folder.

Cases are read from ``../shared/cases/<name>`` and the tests skip when it is absent.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, Literal, URIRef

from pipeline.cli import main
from pipeline.errors import InputError, ManifestError
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.rdffile import load_graph
from pipeline.scoring.graph import load_competency_questions, score_cqs
from pipeline.scoring.mapping import score_table
from pipeline.scoring.mapping.subject import references_agree, same_reference
from pipeline.table import read_table
from pipeline.validation.shacl import derive_shapes, validate_shacl

CASES = Path(__file__).resolve().parents[1].parent / "shared" / "cases"


def case(name: str) -> Path:
    folder = CASES / name
    if not folder.is_dir():
        pytest.skip(f"case folder {folder} not available")
    return folder


@pytest.mark.parametrize("setting", ["raw", "post-processed"])
def test_subject_template_scored_by_what_it_identifies(setting: str) -> None:
    folder = case("subject-template-scored-by-string")
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


def _score_kg(folder: Path, kg: Path, out: Path) -> dict:
    assert main(["-q", "score", str(folder / "case.yaml"), "--kg", str(kg), "--out", str(out)]) == 0
    return json.loads((out / "graph_scores.json").read_text())


@pytest.mark.parametrize("fmt,ext", [("turtle", ".ttl"), ("nquads", ".nq"), ("json-ld", ".jsonld"),
                                     ("xml", ".rdf"), ("nt", ".nt")])
def test_turtle_gold_graph_any_syntax(tmp_path: Path, fmt: str, ext: str) -> None:
    folder = case("turtle-gold-graph")
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
    folder = case("turtle-gold-graph")
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


def test_shacl_shape_iri_collision() -> None:
    folder = case("shacl-shape-iri-collision")
    onto = load_ontology([folder / "ontology.ttl"])
    shapes = derive_shapes(onto)
    paths = {}
    for ps, path in shapes.subject_objects(URIRef("http://www.w3.org/ns/shacl#path")):
        paths.setdefault(ps, set()).add(path)
    assert all(len(v) == 1 for v in paths.values())  # one sh:path per property shape
    kinds = sorted(str(s) for s in paths if "kind-address" in str(s))
    assert len(kinds) == 2 and kinds[0] != kinds[1]
    res = validate_shacl(Graph().parse(folder / "kg.nt", format="nt"), onto)
    assert res.status == "ok" and res.value is True
    assert res.details["by_shape"] == {"urn:kgc:shapes:range-address.2611b625-Address-p": {"Warning": 1}}
    assert res.details["n_shapes"] == 5


def test_cq_file_without_cq_line_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "q1.rq").write_text("SELECT ?s WHERE { ?s ?p ?o }\n")
    (tmp_path / "q2.rq").write_text("# CQ: Which things exist?\nSELECT ?s WHERE { ?s ?p ?o }\n")
    cqs = load_competency_questions([tmp_path])
    assert [(c.id, c.statement) for c in cqs] == [("q1", None), ("q2", "Which things exist?")]
    g = Graph()
    g.add((URIRef("http://ex.org/a"), URIRef("http://ex.org/p"), Literal(1)))
    out = score_cqs(g, g, cqs)
    assert out["PQ4"].value == 1.0
    codes = [(f.code, Path(f.location).name) for f in out["PQ3"].findings]
    assert codes == [("cq-no-statement", "q1.rq")]
