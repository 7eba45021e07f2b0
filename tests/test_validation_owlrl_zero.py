"""Regression: owlrl rejects "0.0"^^xsd:float (its range check excludes zero); CS2 must not call that inconsistent."""
from __future__ import annotations

from rdflib import Graph

from pipeline.validation.consistency import owlrl_consistency

ONTO = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:dist a owl:DatatypeProperty ; rdfs:range xsd:float .
ex:A a owl:Class ; owl:disjointWith ex:B . ex:B a owl:Class .
"""


def test_zero_float_is_not_an_inconsistency():
    kg = Graph().parse(data='<http://example.org/s> <http://example.org/dist> '
                            '"0.0"^^<http://www.w3.org/2001/XMLSchema#float> .', format="nt")
    result = owlrl_consistency(kg, Graph().parse(data=ONTO, format="turtle"))
    assert result.value is True
    assert [f.code for f in result.findings] == ["owlrl-false-positive"]


def test_a_real_clash_still_counts_next_to_it():
    kg = Graph().parse(data='<http://example.org/s> <http://example.org/dist> '
                            '"0.0"^^<http://www.w3.org/2001/XMLSchema#float> .\n'
                            '<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/A> .\n'
                            '<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/B> .',
                       format="nt")
    result = owlrl_consistency(kg, Graph().parse(data=ONTO, format="turtle"))
    assert result.value is False
    assert sorted(f.code for f in result.findings) == ["disjoint-classes", "owlrl-false-positive"]
