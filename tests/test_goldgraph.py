"""Gold KG defects: terms the ontology does not declare are reported with line and closest term."""
from __future__ import annotations

from rdflib import Graph

from pipeline.scoring.gold_graph import gold_vocabulary_findings
from pipeline.ontology import load_ontology

ONTO = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:City a owl:Class . ex:cityname a owl:DatatypeProperty ; rdfs:domain ex:City .
ex:cityid a owl:DatatypeProperty ; rdfs:domain ex:City .
"""
# BLINKG scenario 1 case 1H's gold graph, shape for shape: "#name" where the ontology says cityname
GOLD = """<http://example.org/city_1> <http://example.org/#name> "Londres"@es .
<http://example.org/city_1> <http://example.org/cityid> "1" .
<http://example.org/city_1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/#City> .
<http://example.org/city_2> <http://example.org/#name> "Madrid"@es .
<http://example.org/city_2> <http://www.w3.org/2000/01/rdf-schema#label> "Madrid" .
"""


def test_undeclared_gold_terms_are_findings_with_line_and_candidate(tmp_path):
    (tmp_path / "onto.ttl").write_text(ONTO)
    gold = tmp_path / "expected-graph.nt"
    gold.write_text(GOLD)
    found = gold_vocabulary_findings(Graph().parse(gold, format="nt"), load_ontology([tmp_path / "onto.ttl"]), gold)
    assert [(f.column, f.value, f.line, f.candidate, f.severity, f.stage) for f in found] == [
        ("predicate", "http://example.org/#name", 1, "ex:cityname", "warning", "gold"),   # 2 triples first
        ("class", "http://example.org/#City", 3, "ex:City", "warning", "gold"),
    ]
    assert "(2 triple(s))" in found[0].message


def test_a_gold_graph_that_follows_the_ontology_has_no_finding(tmp_path):
    (tmp_path / "onto.ttl").write_text(ONTO)
    gold = Graph().parse(data='<http://example.org/c> a <http://example.org/City> ; '
                              '<http://example.org/cityname> "x" .', format="turtle")
    assert gold_vocabulary_findings(gold, load_ontology([tmp_path / "onto.ttl"]), tmp_path / "g.ttl") == []
