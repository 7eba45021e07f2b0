"""bench-real's row judgment: a row is right when the reference states its facts, also when the reference
states them with the inverse property the vocabulary declares (owl:inverseOf entails each from the other)."""
from __future__ import annotations

import json

from rdflib import Graph

from pipeline.bench.real import _decision, _judge_rows, _replay, _replays, _row_summary, inverse_properties
from pipeline.ontology import load_ontology
from pipeline.scoring.graph.pairs import declared_terms, graph_pairs

ONTOLOGY = """@prefix ex: <http://example.org/v#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Pattern a owl:Class .
ex:Consequence a owl:Class .
ex:Skill a owl:Class .
ex:hasConsequence a owl:ObjectProperty ; owl:inverseOf ex:isConsequenceOf ;
    rdfs:domain ex:Pattern ; rdfs:range ex:Consequence .
ex:isConsequenceOf a owl:ObjectProperty ; rdfs:domain ex:Consequence ; rdfs:range ex:Pattern .
ex:hasSkill a owl:ObjectProperty ; rdfs:domain ex:Pattern ; rdfs:range ex:Skill .
ex:isSkillOf a owl:ObjectProperty ; rdfs:domain ex:Skill ; rdfs:range ex:Pattern .
"""

# the mapper's KG: patterns point to their consequences and skills (its own IRIs)
KG = """@prefix ex: <http://example.org/v#> .
<http://kg/p1> a ex:Pattern ; ex:hasConsequence <http://kg/c1>, <http://kg/c2> ; ex:hasSkill <http://kg/s1> .
<http://kg/c1> a ex:Consequence . <http://kg/c2> a ex:Consequence . <http://kg/s1> a ex:Skill .
"""

# the reference: the same facts from the other end (other IRIs), with the declared inverse for consequences and an
# undeclared one for skills
REFERENCE = """@prefix ex: <http://example.org/v#> .
<http://ref/P1> a ex:Pattern .
<http://ref/C1> a ex:Consequence ; ex:isConsequenceOf <http://ref/P1> .
<http://ref/C2> a ex:Consequence ; ex:isConsequenceOf <http://ref/P1> .
<http://ref/S1> a ex:Skill ; ex:isSkillOf <http://ref/P1> .
"""


def _row(prop: str, rng: str) -> dict:
    return {"ontology_property": f"http://example.org/v#{prop}", "entity_class": "http://example.org/v#Pattern",
            "related_entity_class": f"http://example.org/v#{rng}", "subject_template": "http://kg/{id}",
            "source_file": "patterns.json", "evidence": ["confidence: record evidence, raw 0.900"]}


def test_a_relation_the_reference_states_with_the_declared_inverse_is_right(tmp_path):
    (tmp_path / "v.ttl").write_text(ONTOLOGY, encoding="utf-8")
    ontology = load_ontology([tmp_path / "v.ttl"])
    kg, reference = Graph().parse(data=KG, format="turtle"), Graph().parse(data=REFERENCE, format="turtle")
    vocabulary = declared_terms([ontology.graph])
    assert inverse_properties(ontology) == {"http://example.org/v#hasConsequence": {"http://example.org/v#isConsequenceOf"},
                                            "http://example.org/v#isConsequenceOf": {"http://example.org/v#hasConsequence"}}
    judged = _judge_rows([_row("hasConsequence", "Consequence"), _row("hasSkill", "Skill")], kg,
                         graph_pairs(reference, vocabulary), vocabulary, ontology)
    # hasConsequence: both statements are the reference's isConsequenceOf read the other way; hasSkill has no declared
    # inverse, so the reference's isSkillOf says nothing of it
    assert [(j["property"].rsplit("#", 1)[1], j["right"]) for j in judged] == [("hasConsequence", True),
                                                                              ("hasSkill", False)]


def test_an_inverse_statement_counts_once(tmp_path):
    # the reference states one of the consequences: each reference statement matches one of the row's at most
    (tmp_path / "v.ttl").write_text(ONTOLOGY, encoding="utf-8")
    ontology = load_ontology([tmp_path / "v.ttl"])
    vocabulary = declared_terms([ontology.graph])
    one = REFERENCE.replace("<http://ref/C2> a ex:Consequence ; ex:isConsequenceOf <http://ref/P1> .", "")
    ref_pairs = graph_pairs(Graph().parse(data=one, format="turtle"), vocabulary)
    assert ref_pairs[("http://example.org/v#isConsequenceOf", "entity of http://example.org/v#Pattern")] == 1
    three = KG + "<http://kg/p1> ex:hasConsequence <http://kg/c3> . <http://kg/c3> a ex:Consequence .\n"
    row = [_row("hasConsequence", "Consequence")]
    # 1 of 3 statements: below half; 1 of 2: half, right
    assert _judge_rows(row, Graph().parse(data=three, format="turtle"), ref_pairs, vocabulary, ontology)[0]["right"] \
        is False
    assert _judge_rows(row, Graph().parse(data=KG, format="turtle"), ref_pairs, vocabulary, ontology)[0]["right"] is True


def test_a_row_written_for_each_file_of_a_kind_is_one_decision():
    row = {"data_reference": "document.title", "source_file": "adv-1.json", "ontology_property": "ex:title",
           "entity_class": "ex:Advisory", "line": 1, "confidence": 0.9, "evidence": ["a"], "review": None}
    twin = {**row, "source_file": "adv-2.json", "line": 7, "confidence": 0.8, "evidence": ["b"], "review": "low"}
    other = {**row, "data_reference": "document.notes"}
    assert _decision(row) == _decision(twin)
    assert _decision(row) != _decision(other)


def _table(path, rows: list[tuple[str, str]]) -> None:
    path.write_text(json.dumps({"rows": [
        {"data_reference": ref, "source_file": "events.csv", "ontology_property": prop, "entity_class": "s:Event",
         "subject_template": "http://example.org/event/{event_id}", "datatype": "xsd:string"}
        for ref, prop in rows]}), encoding="utf-8")


def test_tables_replayed_in_one_process_give_the_kg_of_a_process_each(tmp_path):
    # real kgc run (compiler, Morph-KGC); the second table's rows: one that compiles and one that does not
    (tmp_path / "events.csv").write_text("event_id,name,city\nE1,Jazz Night,Ghent\nE2,Recital,Liège\n",
                                         encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "@prefix s: <https://schema.org/> . s:Event a owl:Class .\n"
        "s:name a owl:DatatypeProperty ; rdfs:domain s:Event . s:address a owl:DatatypeProperty ; rdfs:domain s:Event .\n",
        encoding="utf-8")
    manifest = tmp_path / "case.yaml"
    manifest.write_text("sources: [{path: events.csv}]\nontologies: [onto.ttl]\nprefixes: {s: \"https://schema.org/\"}\n",
                        encoding="utf-8")
    _table(tmp_path / "a.json", [("name", "s:name")])
    _table(tmp_path / "b.json", [("city", "s:address"), ("venue", "s:name")])
    dirs = _replays(manifest, [(tmp_path / "a.json", tmp_path / "ra"), (tmp_path / "b.json", tmp_path / "rb")], 300)
    _, alone = _replay(manifest, tmp_path / "b.json", tmp_path / "rb1", 300)
    lines = [sorted((d / "kg.nt").read_text(encoding="utf-8").splitlines()) for d in (*dirs, alone)]
    assert lines[0] == sorted(
        [f'<http://example.org/event/{e}> <https://schema.org/name> "{n}" .' for e, n in (("E1", "Jazz Night"),
                                                                                          ("E2", "Recital"))]
        + [f"<http://example.org/event/{e}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/Event> ."
           for e in ("E1", "E2")])
    assert lines[1] == lines[2]
    assert '<http://example.org/event/E2> <https://schema.org/address> "Liège" .' in lines[1]
    assert _replays(manifest, [], 300) == []


def test_a_wrong_row_on_data_the_reference_never_states_is_one_it_cannot_judge(tmp_path):
    # the reference states the patterns' names and their consequences; it says nothing of their severity
    (tmp_path / "v.ttl").write_text(ONTOLOGY + "ex:name a owl:DatatypeProperty .\nex:severity a owl:DatatypeProperty .\n"
                                    "ex:label a owl:DatatypeProperty .\n", encoding="utf-8")
    ontology = load_ontology([tmp_path / "v.ttl"])
    vocabulary = declared_terms([ontology.graph])
    kg = Graph().parse(data=KG + '<http://kg/p1> ex:label "Phishing" ; ex:severity "High" .\n', format="turtle")
    ref = Graph().parse(data=REFERENCE + '<http://ref/P1> ex:name "Phishing" .\n', format="turtle")

    def row(prop: str) -> dict:
        return {**_row(prop, ""), "related_entity_class": ""}

    judged = _judge_rows([row("label"), row("severity"), _row("hasSkill", "Skill")], kg,
                         graph_pairs(ref, vocabulary), vocabulary, ontology)
    # label: wrong property, but the reference states its value ("Phishing" under ex:name): judged, wrong;
    # severity: "High" is nowhere in the reference: not covered; hasSkill: the reference has Skill entities: covered
    assert [(j["right"], j["covered"]) for j in judged] == [(False, True), (False, False), (False, True)]
    assert _row_summary(judged) == {"rows": 3, "review": 0, "judged": 3, "unmarked_precision": 0.0,
                                    "marked_precision": None, "unmarked_precision_covered": 0.0,
                                    "unmarked_uncovered": 1}
    judged[0]["right"] = True
    assert _row_summary(judged)["unmarked_precision_covered"] == 0.5
    assert _row_summary(judged)["unmarked_precision"] == 1 / 3
