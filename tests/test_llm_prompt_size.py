"""What the LLM mapper sends: the ontology terms retrieved for the data (a large vocabulary), and the
BLINKG scripts' own scoring rules that check a rescoring of the paper's tables like for like."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mapper_llm import CLEAN, _map, _Server, _settings

from pipeline.bench.paper_blinkg import BlinkgScorer, read_blinkg_table, scenario_means, score_model_case
from pipeline.bench.paper_compare import agreement_markdown
from pipeline.bench.paper_scores import PublishedTable
from pipeline.manifest import Case, Source
from pipeline.mappers.llm.retrieve import retrieve_terms
from pipeline.mappers import load_inputs

_HEAD = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
         "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n")


@pytest.fixture
def big_case(tmp_path: Path) -> Case:
    """A student file against a vocabulary of 253 terms, 250 of them about telescopes."""
    (tmp_path / "student.csv").write_text("ID,Name\n10,Venus Williams\n20,Demi Moore\n", encoding="utf-8")
    terms = [_HEAD, "ex:Person a owl:Class ; rdfs:label \"person\" . ex:Telescope a owl:Class .\n",
             "ex:id a owl:DatatypeProperty ; rdfs:label \"id\" ; rdfs:domain ex:Person ; rdfs:range xsd:integer .\n",
             "ex:fullname a owl:DatatypeProperty ; rdfs:label \"full name\" ; rdfs:domain ex:Person ; "
             "rdfs:range xsd:string .\n"]
    terms += [f"ex:lens{i} a owl:DatatypeProperty ; rdfs:label \"lens coating thickness {i}\" ; "
              f"rdfs:domain ex:Telescope ; rdfs:range xsd:decimal .\n" for i in range(249)]
    (tmp_path / "onto.ttl").write_text("".join(terms), encoding="utf-8")
    return Case("t", (Source(tmp_path / "student.csv", "csv", name="student.csv"),), (tmp_path / "onto.ttl",),
                prefixes={"ex": "http://example.org/"})


def test_a_large_vocabulary_is_cut_to_the_terms_the_data_needs(big_case, tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    with _Server([json.dumps(CLEAN)]) as srv:
        res = _map(_settings(srv.base, tmp_path), big_case, tmp_path)[0]  # LLM_ONTOLOGY=auto: 253 terms > 200
        prompt = srv.requests[0]["messages"][-1]["content"]
    sent = res.transcripts[0]["ontology_terms_sent"]
    assert {"ex:id", "ex:fullname", "ex:Person"} <= set(sent)
    assert sum(t.startswith("ex:lens") for t in sent) <= 6  # a few near misses at most, not 249
    assert "ex:fullname" in prompt and prompt.count("lens coating thickness") == sum(t.startswith("ex:lens") for t in sent)
    assert res.provenance["ontology_sent"] == {"mode": "retrieved", "terms": len(sent), "of": 253,
                                               "method": "shared word stems (embeddings unavailable)"}


def test_retrieval_keeps_domains_and_names_why(big_case, tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    inputs = load_inputs(big_case, tmp_path / "work")
    got = retrieve_terms(inputs.ontology, list(inputs.sources))
    by_name = {inputs.ontology.compact(t): why for t, why in got.reasons.items()}
    assert by_name["ex:fullname"] == "reference 'name: Venus Williams, Demi Moore'"
    assert by_name["ex:Person"].startswith(("domain or range of ex:", "source ", "reference "))
    assert got.total == 253


GOLD = """| XML Path | Ontology Property | Entity Class | Join |
|---|---|---|---|
| /a/b | ex:name | ex:Person | |
| /a/c | ex:age | ex:Person | |
| | ex:knows | ex:Person | id==id |
"""
PRED = """| XML Path | Ontology Property | Entity Class | Join |
| --- | --- | --- | --- |
| `/a/b` | ex:name | ex:Person | — |
| /a/x/y/z/w | ex:age | ex:Animal | |
| /q | ex:zzz | ex:Person | |
| /r | ex:yyy | ex:Thing | foo |
"""


def test_blinkg_rules_count_a_wrong_cell_as_a_false_negative_only(tmp_path, monkeypatch):
    """BLINKG's calculate_prf: every predicted row is paired (the fourth with an already paired gold
    row), a wrong cell is a FN, never a FP; empty cells are skipped; runs are summed."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    onto = tmp_path / "o.ttl"
    onto.write_text(_HEAD, encoding="utf-8")
    scorer = BlinkgScorer([onto])
    gold, pred = read_blinkg_table(GOLD), read_blinkg_table(PRED)
    assert pred.rows[0] == ["/a/b", "ex:name", "ex:Person", "—"]  # backticks dropped
    pairs = scorer.match(pred, gold)
    assert len(pairs) == 4 and sorted(i for _, i in pairs) == [0, 1, 2, 3]
    got = scorer.counts(pred, gold)
    assert got["Ontology Property"] == [2, 0, 2]  # name, age right; zzz, yyy wrong: FN only
    assert got["Join"] == [0, 0, 1]  # '—' and '' skipped; 'foo' against 'id==id' (or nothing) is one FN
    two = score_model_case(scorer, [pred, pred], gold)
    assert (two["Ontology Property"]["tp"], two["Ontology Property"]["fn"]) == (4, 4)
    assert two["Ontology Property"]["f1"] == pytest.approx(2 * 0.5 / 1.5)  # P = 1, R = 0.5
    means = scenario_means([two, {"Ontology Property": {"f1": 1.0}}])
    assert means["Ontology Property"] == pytest.approx((2 / 3 + 1) / 2) and "Data Reference" in means


def test_agreement_with_the_published_figures_is_judged_per_model():
    published = [PublishedTable("scenario3", "post-processed", "x@1",
                                {"OpenAI o3": {"Ontology Property": 0.5, "Entity Class": 0.3, "Join Condition": None}})]
    rules = {"post-processed": {"OpenAI o3": {"Ontology Property": 0.52, "Entity Class": 0.31, "Join Condition": 0.0},
                                "GPT-4o": {"Ontology Property": 0.1}}}
    md = agreement_markdown("scenario3", published, rules)
    assert "| post-processed | OpenAI o3 | 2 | 0.400 | 0.415 | +0.015 | yes |" in md
    assert "| post-processed | GPT-4o | 0 | n/a | 0.100 | n/a | no published figure |" in md
