"""The offline mapper reads a property whose stated ranges include a datatype as well as classes
(schema.org's ``rangeIncludes Text, TextObject``) as one a literal column may take; a sub-property
whose only literal range is its super-property's is not."""
from __future__ import annotations

from pathlib import Path

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case

ONTOLOGY = """@prefix schema: <http://schema.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
schema:Thing a rdfs:Class . schema:Event a rdfs:Class ; rdfs:subClassOf schema:Thing .
schema:TextObject a rdfs:Class ; rdfs:subClassOf schema:Thing .
schema:Place a rdfs:Class ; rdfs:subClassOf schema:Thing .
schema:Text a schema:DataType . schema:Date a schema:DataType .
schema:name a rdf:Property ; schema:domainIncludes schema:Thing ; schema:rangeIncludes schema:Text .
schema:startDate a rdf:Property ; schema:domainIncludes schema:Event ; schema:rangeIncludes schema:Date .
schema:description a rdf:Property ; rdfs:label "description" ; schema:domainIncludes schema:Thing ;
    schema:rangeIncludes schema:Text, schema:TextObject .
schema:location a rdf:Property ; rdfs:label "location" ; schema:domainIncludes schema:Event ;
    schema:rangeIncludes schema:Text, schema:Place .
schema:venueLocation a rdf:Property ; rdfs:label "venue location" ; rdfs:subPropertyOf schema:location ;
    schema:domainIncludes schema:Event ; schema:rangeIncludes schema:Place .
"""


def test_a_text_or_class_range_takes_a_literal_column_and_an_inherited_text_range_does_not(tmp_path: Path):
    (tmp_path / "o.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "events.csv").write_text(
        "event_id,name,description,startDate,venueLocation\n"
        "E1,Jazz night,An evening of standards by a local trio,2022-06-01,Old Harbour Hall\n"
        "E2,Film club,A silent film with a live piano score,2022-06-08,Town Library\n"
        "E3,Poetry slam,Open stage for new voices and old favourites,2022-06-15,Corner Cafe\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: ev\nbase_iri: http://example.org/\nsources: [events.csv]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    rows = list(map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table)
    got = {(r.data_reference, r.ontology_property, r.entity_class, r.datatype) for r in rows
           if r.data_reference in ("name", "description", "startDate", "venueLocation")}
    assert got == {
        ("name", "schema:name", "schema:Event", "xsd:string"),
        ("startDate", "schema:startDate", "schema:Event", "xsd:date"),
        # Text or TextObject: the values are text, so the Text range
        ("description", "schema:description", "schema:Event", "xsd:string"),
        # not schema:venueLocation, whose values are places (the Text range is its super-property's):
        # location itself admits Text
        ("venueLocation", "schema:location", "schema:Event", "xsd:string"),
    }
