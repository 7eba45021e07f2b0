"""Rows whose only evidence is a choice among leftovers are shown for review, not asserted: columns
paired with some of more leftover properties by the best joint assignment of weak similarities
(``joint assignment`` evidence, right in none of the real-mappings corpus' rows) are marked; a column
paired with the only property left whose range admits its kind of values (``values``) is not; a
relation between two entities of one record by one of several object properties (``record choice``)
is marked, by the only one (``record``) is not unless no domain ties the property to the subject class."""
from __future__ import annotations

from pathlib import Path

from pipeline.cli import main
from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.confidence import CALIBRATION, basis_of

ONTOLOGY = """@prefix ex: <http://example.org/lib#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Publisher a owl:Class ; rdfs:label "publisher" .
ex:publisherName a owl:DatatypeProperty ; rdfs:label "publisher name" ; rdfs:domain ex:Publisher ;
    rdfs:range xsd:string .
ex:seatCity a owl:DatatypeProperty ; rdfs:label "seat city" ; rdfs:comment "City where the publisher has its seat." ;
    rdfs:domain ex:Publisher ; rdfs:range xsd:string .
ex:motto a owl:DatatypeProperty ; rdfs:label "motto" ; rdfs:domain ex:Publisher ; rdfs:range xsd:string .
ex:imprint a owl:DatatypeProperty ; rdfs:label "imprint" ; rdfs:domain ex:Publisher ; rdfs:range xsd:string .
ex:founded a owl:DatatypeProperty ; rdfs:label "founded" ; rdfs:domain ex:Publisher ; rdfs:range xsd:gYear .
"""


def test_a_joint_assignment_of_leftovers_is_marked_and_a_unique_kind_is_asserted(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")  # the run below maps lexically too
    (tmp_path / "o.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "publishers.csv").write_text("press_id,press_label,hq_town,est\nP1,Penguin Books,London,1935\n"
                                             "P2,Gallimard,Paris,1911\nP3,Suhrkamp,Berlin,1950\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: pub\nbase_iri: http://example.org/\nsources: [publishers.csv]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    assert set(CALIBRATION) == {"joint assignment", "record choice"}
    rows = {r.data_reference: r for r in
            map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table}
    got = {(ref, r.ontology_property, basis_of(r)[0], r.confidence, r.review) for ref, r in rows.items()}
    why = "check the property, class and values"
    assert got == {
        ("press_label", "ex:publisherName", "name", 0.685, None),
        # four-digit years and ex:founded the only gYear property left
        ("est", "ex:founded", "values", 0.5, None),
        # two text columns left and three text properties: the weak similarities chose; nothing else says
        # that a town is a motto or a key an imprint
        ("hq_town", "ex:motto", "joint assignment", 0.143,
         f"confidence 0.14 < 0.50 (joint assignment evidence): {why}"),
        ("press_id", "ex:imprint", "joint assignment", 0.143,
         f"confidence 0.14 < 0.50 (joint assignment evidence): {why}"),
    }
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out"), "--no-evaluate"]) in (0, 1)
    kg = next((tmp_path / "out").rglob("kg.nt")).read_text(encoding="utf-8")
    assert '<http://example.org/lib#founded> "1935"' in kg
    assert "#motto" not in kg and "#imprint" not in kg  # the marked rows are not asserted


EVENTS = """@prefix ev: <http://example.org/ev#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ev:Event a owl:Class . ev:Venue a owl:Class .
ev:title a owl:DatatypeProperty ; rdfs:label "title" ; rdfs:domain ev:Event ; rdfs:range xsd:string .
ev:venueName a owl:DatatypeProperty ; rdfs:label "venue name" ; rdfs:domain ev:Venue ; rdfs:range xsd:string .
ev:heldAt a owl:ObjectProperty ; rdfs:label "held at" ; rdfs:domain ev:Event ; rdfs:range ev:Venue .
"""


def _relations(tmp_path: Path, ontology: str) -> list[tuple]:
    (tmp_path / "o.ttl").write_text(ontology, encoding="utf-8")
    (tmp_path / "events.json").write_text(
        '[{"id": "e1", "title": "Jazz night", "venue": {"id": "v1", "name": "Old Harbour Hall"}},\n'
        ' {"id": "e2", "title": "Film club", "venue": {"id": "v2", "name": "Town Library"}},\n'
        ' {"id": "e3", "title": "Poetry slam", "venue": {"id": "v1", "name": "Old Harbour Hall"}}]\n', encoding="utf-8")
    (tmp_path / "case.yaml").write_text('name: ev\nbase_iri: http://example.org/\nsources: [{path: events.json, '
                                        'iterator: "$[*]"}]\nontologies: [o.ttl]\n', encoding="utf-8")
    rows = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table
    return [(r.ontology_property, r.entity_class, r.related_entity_class, r.join_condition, basis_of(r)[0], r.review)
            for r in rows if r.related_entity_class]


def test_the_only_relation_of_two_entities_of_a_record_is_asserted_and_one_of_several_is_marked(tmp_path):
    assert _relations(tmp_path, EVENTS) == [
        ("ev:heldAt", "ev:Event", "ev:Venue", "id==id, venue.id==venue.id", "record", None)]
    # a second Event -> Venue property: the name of the related class (venue) chooses, nothing in the data
    several = EVENTS + ('ev:plannedAt a owl:ObjectProperty ; rdfs:label "planned at" ; rdfs:domain ev:Event ; '
                        'rdfs:range ev:Venue .\n')
    assert _relations(tmp_path, several) == [
        ("ev:plannedAt", "ev:Event", "ev:Venue", "id==id, venue.id==venue.id", "record choice",
         "confidence 0.09 < 0.50 (record choice evidence): check the property, class and values")]


def test_the_only_relation_of_a_record_by_a_property_no_domain_ties_to_the_class_is_marked(tmp_path):
    # ev:heldAt without a domain: the only Event -> Venue property, but the vocabulary does not say that events
    # take it; the record says an event and a venue occur together, not how they are related
    undeclared = EVENTS.replace("rdfs:domain ev:Event ; rdfs:range ev:Venue", "rdfs:range ev:Venue")
    assert _relations(tmp_path, undeclared) == [
        ("ev:heldAt", "ev:Event", "ev:Venue", "id==id, venue.id==venue.id", "record",
         "relation of one record by a property no domain ties to ev:Event (own 0, record evidence): the record "
         "says the entities occur together, not how they are related; check the property")]
    # declared for a superclass only (ev:Happening): usable on an event (rdfs9), still not the event's own
    superclass = EVENTS.replace("rdfs:domain ev:Event ; rdfs:range ev:Venue",
                                "rdfs:domain ev:Happening ; rdfs:range ev:Venue") \
        + "ev:Happening a owl:Class . ev:Event rdfs:subClassOf ev:Happening .\n"
    assert [r[5] for r in _relations(tmp_path, superclass)] == [
        "relation of one record by a property no domain ties to ev:Event (own 0.5, record evidence): the record "
        "says the entities occur together, not how they are related; check the property"]
