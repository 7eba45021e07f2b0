"""The joint assignment of columns to properties puts word-for-word name matches first: a column named
as a property keeps it, even when a column whose name only contains the property's name with a modifier
(``prev_symbol``) and a weaker pair of its own would together score more.

A small hand-made ontology and file; the mapper runs lexically (no embedding model) and the test asserts
the exact rows it must produce.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.confidence import basis_of
from pipeline.mappers.offline.properties import _joint_assignment

GENES = """@prefix ex: <http://example.org/gene#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Gene a owl:Class ; rdfs:label "gene" .
ex:geneId a owl:DatatypeProperty ; rdfs:label "gene id" ; rdfs:domain ex:Gene ; rdfs:range xsd:string .
ex:symbol a owl:DatatypeProperty ; rdfs:label "symbol" ; rdfs:domain ex:Gene ; rdfs:range xsd:string .
ex:symbolAlias a owl:DatatypeProperty ; rdfs:label "symbol alias" ; rdfs:domain ex:Gene ; rdfs:range xsd:string .
"""


def _map_lexically(tmp_path: Path, ontology: str, name: str, csv: str):
    """The offline mapper's rows (lexically: no embedding model) for one CSV file ``name`` and ``ontology``."""
    (tmp_path / "o.ttl").write_text(ontology, encoding="utf-8")
    (tmp_path / name).write_text(csv, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: c\nbase_iri: http://example.org/\nsources: [{name}]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    return map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table


def test_a_column_named_as_a_property_keeps_it_over_a_modified_name(tmp_path: Path):
    rows = _map_lexically(tmp_path, GENES, "genes.csv",
                          "gene_id,symbol,prev_symbol\nG1,A1BG,\nG2,A2M,CPAMD5\nG3,NAT1,AAC1\n")
    # by the sum alone, symbol ~ ex:symbolAlias 0.853 plus prev_symbol ~ ex:symbol 0.875 (1.728) would beat
    # symbol ~ ex:symbol 1.000 plus prev_symbol ~ ex:symbolAlias 0.639 (1.639)
    assert {(r.data_reference, r.ontology_property, basis_of(r)[0], r.confidence, r.review) for r in rows} == {
        ("gene_id", "ex:geneId", "subject key", 1.0, None),
        ("symbol", "ex:symbol", "exact name", 1.0, None),
        ("prev_symbol", "ex:symbolAlias", "name", 0.639, None),
    }


def test_exact_pairs_then_literal_ones_then_the_sum():
    scores = np.array([[1.0, 0.85], [0.875, 0.6]])
    none = np.zeros((2, 2), dtype=bool)
    assert [c.tolist() for c in _joint_assignment(scores, none, none)] == [[0, 1], [1, 0]]  # 1.725 > 1.6
    exact = np.array([[True, False], [False, False]])
    assert [c.tolist() for c in _joint_assignment(scores, exact, none)] == [[0, 1], [0, 1]]
    # an exact name whose pair stays below the least score (its values misfit the range) is no such evidence
    weak = np.array([[0.3, 0.85], [0.875, 0.6]])
    assert [c.tolist() for c in _joint_assignment(weak, exact, none)] == [[0, 1], [1, 0]]
    # name and nombre both name schema:name (column 0) and esequip:nombre (column 1) once Spanish is read;
    # each spells one of them: the literal pairs win a tie of exact pairs and sums
    tie = np.array([[0.803, 0.506], [0.803, 0.506]])
    both = np.ones((2, 2), dtype=bool)
    spelled = np.array([[True, True], [False, True]])
    assert [c.tolist() for c in _joint_assignment(tie, both, spelled)] == [[0, 1], [0, 1]]
    assert [c.tolist() for c in _joint_assignment(tie, both, spelled[::-1])] == [[0, 1], [1, 0]]


EVENTS = """@prefix ev: <http://example.org/event#> . @prefix fa: <http://example.org/facility#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ev:Event a owl:Class ; rdfs:label "event" .
ev:title a owl:DatatypeProperty ; rdfs:label "title" ; rdfs:domain ev:Event ; rdfs:range xsd:string .
ev:eventName a owl:DatatypeProperty ; rdfs:label "event name" ; rdfs:domain ev:Event ; rdfs:range xsd:string .
fa:Facility a owl:Class ; rdfs:label "facility" .
fa:name a owl:DatatypeProperty ; rdfs:label "name" ; rdfs:domain fa:Facility ; rdfs:range xsd:string .
"""


def test_an_exact_name_of_another_vocabularys_class_gets_no_priority(tmp_path: Path):
    # `name` names fa:name word for word, but fa:name's domain is another vocabulary's class: the exact name
    # says which property, not that the events' column is a facility's value; with the priority, `name` took
    # fa:name (marked) and the record key `id` was left to ev:eventName
    rows = _map_lexically(tmp_path, EVENTS, "events.csv",
                          "id,name,title\nE1,Jazz night,Jazz night at the Dome\nE2,Book fair,Spring book fair\n"
                          "E3,Open air cinema,Cinema in the park\n")
    assert {(r.data_reference, r.ontology_property, basis_of(r)[0], r.confidence, r.review) for r in rows} == {
        ("name", "ev:eventName", "name", 0.95, None),
        ("title", "ev:title", "exact name", 1.0, None),
    }
