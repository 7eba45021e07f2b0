"""Graph-layer scores across IRI schemes: entities aligned by content (pipeline.scoring.graph.resolution)."""
from __future__ import annotations

import json

import pytest
from rdflib import Graph, URIRef

from pipeline.cli import main
from pipeline.scoring.graph import ALIGNED_NAMES, score_graph
from pipeline.scoring.graph.cq import CompetencyQuestion
from pipeline.scoring.graph.resolution import iri_names, resolve_entities, value_key

PREFIXES = """@prefix : <http://ex.org/> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
"""
GOLD_TTL = PREFIXES + """
<http://ex.org/person/1> a foaf:Person ; foaf:name "Alice" ; :age 30 ; :livesIn <http://ex.org/city/7> ;
    foaf:knows <http://ex.org/person/2> .
<http://ex.org/person/2> a foaf:Person ; foaf:name "Bob" ; :age 41 ; :livesIn <http://ex.org/city/7> .
<http://ex.org/city/7> a :City ; :label "Paris" .
<http://ex.org/feed> a :Feed ; :member <http://ex.org/person/1>, <http://ex.org/person/2> .
"""
# the same facts under another IRI scheme; the feed, which has no value of its own, is a blank node
KG_TTL = PREFIXES + """
<https://kg.example.com/id/8f1c> a foaf:Person ; foaf:name "Alice" ; :age "30"^^xsd:integer ;
    :livesIn <https://kg.example.com/id/03aa> ; foaf:knows <https://kg.example.com/id/e2d0> .
<https://kg.example.com/id/e2d0> a foaf:Person ; foaf:name "Bob" ; :age BOB_AGE ; :livesIn <https://kg.example.com/id/03aa> .
<https://kg.example.com/id/03aa> a :City ; :label "Paris" .
[] a :Feed ; :member <https://kg.example.com/id/8f1c>, <https://kg.example.com/id/e2d0> .
"""
CQS = [CompetencyQuestion("friends", "Whom does Alice know?",
                          PREFIXES.replace("@prefix", "PREFIX").replace(" .\n", "\n").replace(" .", "")
                          + 'SELECT ?friend WHERE { ?a foaf:name "Alice" ; foaf:knows ?friend }')]
GOLD = Graph().parse(data=GOLD_TTL, format="turtle")


def kg(bob_age: str = "41") -> Graph:
    return Graph().parse(data=KG_TTL.replace("BOB_AGE", bob_age), format="turtle")


def test_graphs_that_differ_only_in_iri_scheme_score_one():
    r = score_graph(kg(), GOLD, cqs=CQS)
    # by IRI nothing pairs: every alignment-dependent score is 0, whatever the KG says
    assert (r["SA2-prop-exact"].value, r["SA4"].value, r["CM3"].value, r["PQ3"].value) == (0.0, 0.0, 0.0, 0.0)
    for name in ("SA2-type-aligned", "SA2-type-hier-aligned", "SA2-prop-aligned", "SA2-prop-hier-aligned",
                 "SA3-aligned", "SA4-aligned", "CM3-aligned", "PQ1-aligned", "PQ2-aligned", "PQ3-aligned",
                 "PQ4-aligned", "PQ6-aligned"):
        assert r[name].value == 1.0, name
    alignment = r["SA2-type-aligned"].details["alignment"]
    # persons and city by their values in round 1; the feed, a blank node, through its members in round 2
    assert {k: alignment[k] for k in ("method", "n_pairs", "by_iri", "by_content", "rounds")} == \
        {"method": "content", "n_pairs": 4, "by_iri": 0, "by_content": 4, "rounds": 2}
    assert r["SA2-type-exact"].details["alignment"]["method"] == "iri+key"


def test_one_wrong_value_costs_exactly_that_value():
    r = score_graph(kg(bob_age="42"), GOLD, cqs=CQS)
    assert r["SA2-type-aligned"].details["alignment"]["n_pairs"] == 4        # Bob is still Bob
    d = r["SA2-prop-aligned"].details
    assert (d["tp"], d["n_pred"], d["n_gold"]) == (9, 10, 10)
    assert r["SA2-prop-aligned"].value == pytest.approx(0.9)
    assert r["SA2-type-aligned"].value == 1.0
    # 13 of 14 assertions (types included) entailed each way
    assert r["SA3-aligned"].value == pytest.approx(13 / 14)
    # Bob's neighbourhood: 5 of 6 (type, name, age, livesIn, ^knows, ^member) -> F1 10/12; the other three 1
    assert r["SA4-aligned"].value == pytest.approx((3 + 10 / 12) / 4)
    assert (r["CM3-aligned"].value, r["PQ3-aligned"].value) == (1.0, 1.0)


def test_same_iri_scheme_aligned_equals_exact():
    kg_same = Graph().parse(data=GOLD_TTL.replace('"Bob" ; :age 41', '"Bob" ; :age 42'), format="turtle")
    r = score_graph(kg_same, GOLD, cqs=CQS)
    assert r["SA2-prop-exact"].value == pytest.approx(0.9)
    for exact, aligned in ALIGNED_NAMES.items():
        assert r[aligned].value == r[exact].value and r[aligned].status == r[exact].status, aligned
    assert r["SA2-type-aligned"].details["alignment"]["by_iri"] == 4


def test_no_gold_leaves_aligned_scores_not_applicable():
    r = score_graph(kg(), None)
    assert all(r[name].status == "not_applicable" for name in ALIGNED_NAMES.values())


def test_a_value_many_entities_share_identifies_nothing():
    gold = Graph().parse(data=PREFIXES + """
    :img1 a :Image ; :arch "amd64" ; :digest "sha256:01" . :img2 a :Image ; :arch "amd64" ; :digest "sha256:02" .
    :img3 a :Image ; :arch "amd64" ; :digest "sha256:03" .""", format="turtle")
    pred = Graph().parse(data=PREFIXES + """
    <urn:i:x> a :Image ; :arch "amd64" . <urn:i:y> a :Image ; :arch "amd64" ; :hash "sha256:02" .""", format="turtle")
    al = resolve_entities(pred, gold)
    # the digest singles out img2 even under another property; "amd64" alone could be any of the three
    assert al.pairs == {URIRef("urn:i:y"): URIRef("http://ex.org/img2")}
    assert al.unmatched_pred == [URIRef("urn:i:x")]


def test_classes_tell_apart_entities_with_equal_values():
    gold = Graph().parse(data=PREFIXES + """
    <http://ex.org/p/1> a foaf:Person ; :label "Paris" ; :age 40 . <http://ex.org/c/1> a :City ; :label "Paris" ; :country "FR" .
    <http://ex.org/c/2> a :City ; :label "Lyon" . <http://ex.org/p/2> a foaf:Person ; :zip "69000" ; :office "Hôtel de Ville" .""",
                         format="turtle")
    pred = Graph().parse(data=PREFIXES + """
    <urn:a> a :City ; :name "Paris" . <urn:b> a foaf:Person ; :name "Paris" . <urn:c> a :Town ; :name "Paris" .
    <urn:d> a :City ; :name "Lyon" ; :zip "69000" ; :seat "Hôtel de Ville" .""", format="turtle")
    al = resolve_entities(pred, gold)
    # "Paris" and a class single out one entity each; urn:d shares more with the person p/2, but a pair
    # of one class comes before a pair across classes;
    # the Town is neither Paris: its class is not in the reference and "Paris" alone names two entities
    assert al.pairs == {URIRef("urn:a"): URIRef("http://ex.org/c/1"), URIRef("urn:b"): URIRef("http://ex.org/p/1"),
                        URIRef("urn:d"): URIRef("http://ex.org/c/2")}


def test_duplicates_in_the_reference_are_interchangeable():
    gold = Graph().parse(data=PREFIXES + """
    :s1 a :Sensor ; :measures "temperature" . :s2 a :Sensor ; :measures "temperature" .""", format="turtle")
    pred = Graph().parse(data=PREFIXES + """
    <urn:s:9> a :Sensor ; :measures "temperature" ; :unit "°C" . <urn:s:8> a :Sensor ; :measures "Temperature " .""",
                         format="turtle")
    r = score_graph(pred, gold)
    # urn:s:8 describes a gold sensor exactly (values compare case- and space-blind for alignment);
    # urn:s:9 says more, and what it shares fits two gold sensors that nothing tells apart
    assert r["SA2-type-aligned"].details["alignment"]["n_pairs"] == 2
    # SA2 compares values exactly: 1 of 3 predicted, 1 of 2 gold assertions
    assert r["SA2-prop-aligned"].value == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert r["CM3-aligned"].value == 1.0


def test_keys_in_iris_count_as_values():
    gold = Graph().parse(data=PREFIXES + """
    <http://geo.org/country/BE> a :Country ; :capital "Brussels" . <http://geo.org/country/NL> a :Country ; :capital "Amsterdam" .
    <http://geo.org/region/ZH> a :Region .""", format="turtle")
    pred = Graph().parse(data=PREFIXES + """
    <urn:x> a :Country ; :iso "BE" . <http://kg.org/land/NL> a :Country . <http://kg.org/zone/ZH> a :Zone .""",
                         format="turtle")
    al = resolve_entities(pred, gold)
    # a literal matches the key in a reference IRI; two IRIs' keys match within a class, never across classes
    assert al.pairs == {URIRef("urn:x"): URIRef("http://geo.org/country/BE"),
                        URIRef("http://kg.org/land/NL"): URIRef("http://geo.org/country/NL")}


KEYS = {"inverse-functional": ":email a owl:InverseFunctionalProperty .",
        "owl:hasKey": "foaf:Person owl:hasKey ( :email ) ."}


@pytest.mark.parametrize("axiom", list(KEYS.values()), ids=list(KEYS))
def test_a_declared_key_outranks_a_coincidental_match(axiom):
    gold = Graph().parse(data=PREFIXES + """
    :g1 a foaf:Person ; :name "Ann Lee" ; :email "ann@x.org" ; :city "Bergen" .
    :g2 a foaf:Person ; :name "A. Lee" ; :city "Oslo" .""", format="turtle")
    pred = Graph().parse(data=PREFIXES + """
    <urn:e> a foaf:Person ; :email "ann@x.org" ; :nick "A. Lee" ; :city "Oslo" .""", format="turtle")
    # without the ontology the nickname and the city make g2 the closer description
    assert resolve_entities(pred, gold).pairs == {URIRef("urn:e"): URIRef("http://ex.org/g2")}
    ontology = Graph().parse(data=PREFIXES + axiom, format="turtle")
    assert resolve_entities(pred, gold, ontology).pairs == {URIRef("urn:e"): URIRef("http://ex.org/g1")}


def test_value_keys_and_iri_names():
    assert value_key(" 05.0 ") == value_key("5") == "5"
    assert value_key("  Gent  Sint-Pieters ") == "gent sint-pieters"
    assert value_key("   ") is None
    assert iri_names("https://meteo.be/obs/aws.6418.2022-02-01%2010%3A00#Humidity") == \
        {"humidity", "aws.6418.2022-02-01 10:00"}
    assert iri_names("http://ex.org/person/10/") == {"10"}


def test_kgc_score_reports_exact_and_aligned_side_by_side(tmp_path, capsys):
    (tmp_path / "people.csv").write_text("id,name,age\n1,Alice,30\n2,Bob,41\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(PREFIXES + """
    foaf:Person a owl:Class . :City a owl:Class . :Feed a owl:Class .
    foaf:name a owl:DatatypeProperty . :age a owl:DatatypeProperty . :label a owl:DatatypeProperty .
    :livesIn a owl:ObjectProperty . foaf:knows a owl:ObjectProperty . :member a owl:ObjectProperty .""",
                                       encoding="utf-8")
    GOLD.serialize(tmp_path / "gold.nt", format="nt", encoding="utf-8")
    kg().serialize(tmp_path / "kg.nt", format="nt", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: iri-schemes\nsources: [people.csv]\nontologies: [onto.ttl]\n"
                                        "gold: {graph: gold.nt}\n", encoding="utf-8")
    out = tmp_path / "scores"
    assert main(["score", str(tmp_path / "case.yaml"), "--kg", str(tmp_path / "kg.nt"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SA2-prop-exact: 0.000" in printed and "SA2-prop-aligned: 1.000" in printed
    scores = json.loads((out / "graph_scores.json").read_text())
    assert (scores["SA4"]["value"], scores["SA4-aligned"]["value"]) == (0.0, 1.0)
    assert scores["SA2-type-aligned"]["details"]["alignment"]["n_unmatched_gold"] == 0
