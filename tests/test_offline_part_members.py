"""The offline mapper's record class: the members of a nested object named as a class describe that
object's entity, not the record's (:func:`pipeline.mappers.offline.classes.part_members`)."""
from __future__ import annotations

import json

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.classes import part_members
from pipeline.mappers.offline.names import NameMatcher
from pipeline.ontology import load_ontology

ONTO = """@prefix ex: <http://example.org/museum#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Museum a owl:Class ; rdfs:label "museum"@en .
ex:City a owl:Class ; rdfs:label "city"@en .
ex:name a owl:DatatypeProperty ; rdfs:label "name"@en ; rdfs:range xsd:string .
ex:visitors a owl:DatatypeProperty ; rdfs:label "annual visitors"@en ; rdfs:domain ex:Museum ; rdfs:range xsd:integer .
ex:opened a owl:DatatypeProperty ; rdfs:label "opening date"@en ; rdfs:domain ex:Museum ; rdfs:range xsd:date .
ex:locatedIn a owl:ObjectProperty ; rdfs:label "located in"@en ; rdfs:domain ex:Museum ; rdfs:range ex:City .
ex:cityName a owl:DatatypeProperty ; rdfs:label "city name"@en ; rdfs:domain ex:City ; rdfs:range xsd:string .
"""
RECORDS = [{"id": "M1", "name": "Rijksmuseum", "visitors": 2700000, "opened": "1800-11-19",
            "city": {"code": "AMS", "name": "Amsterdam"}},
           {"id": "M2", "name": "Louvre", "visitors": 8900000, "opened": "1793-08-10",
            "city": {"code": "PAR", "name": "Paris"}}]


def _case(tmp_path, file_name: str, records) -> tuple[list, str]:
    """The offline mapper's rows (reference, property, class, subject template) for ``records`` in ``file_name``,
    and the evidence of the source's class."""
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / file_name).write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: c\nbase_iri: http://example.org/\nsources: [{{path: {file_name}}}]\n"
                                        "ontologies: [onto.ttl]\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    return ([(r.data_reference, r.ontology_property, r.entity_class, r.subject_template) for r in result.table],
            result.provenance["sources"][0]["class_evidence"])


def test_members_of_an_object_named_as_a_class(tmp_path):
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    ontology = load_ontology([tmp_path / "onto.ttl"])
    classes = sorted(ontology.classes)
    refs = ["id", "name", "visitors", "city.code", "city.name", "properties.label", "ex:city/ex:name"]
    # `city` (JSON) and `ex:city` (an XML element) name ex:City; `properties` names no class
    assert part_members(refs, NameMatcher(ontology, use_embeddings=False), classes) == {
        "city.code", "city.name", "ex:city/ex:name"}
    assert part_members(["id", "name"], NameMatcher(ontology, use_embeddings=False), classes) == set()


def test_the_record_class_follows_its_own_members_not_the_nested_object(tmp_path):
    # `page1` fits ex:City a little by name; without the rule `city.name` ~ ex:cityName counted for the record's
    # class and the museums became cities keyed by {visitors}_{opened}
    rows, evidence = _case(tmp_path, "page1.json", RECORDS)
    assert evidence == ("name fit 0.18 ('page1'), property fit 0.76 over 4 reference(s) (the members of 'city', "
                        "named as a class, describe an entity of their own); next ex:City 0.20")
    assert rows == [
        ("name", "ex:name", "ex:Museum", "http://example.org/museum/{id}"),
        ("visitors", "ex:visitors", "ex:Museum", "http://example.org/museum/{id}"),
        ("opened", "ex:opened", "ex:Museum", "http://example.org/museum/{id}"),
        ("city.name", "ex:cityName", "ex:City", "http://example.org/city/{city.code}"),
        (None, "ex:locatedIn", "ex:Museum", "http://example.org/museum/{id}"),
    ]


def test_a_record_of_nested_members_only_keeps_them_as_evidence(tmp_path):
    # every member lies in `city`: no member of the record's own is left to decide, so the object's
    # members decide as before (the records are the cities)
    rows, _ = _case(tmp_path, "page1.json", [{"city": {"code": "AMS", "cityName": "Amsterdam"}},
                                          {"city": {"code": "PAR", "cityName": "Paris"}}])
    assert ("city.cityName", "ex:cityName", "ex:City") in {r[:3] for r in rows}


def test_own_members_that_name_no_property_of_a_domain_decide_nothing(tmp_path):
    # `remark` names no property of a declared domain: the record's own members cannot decide its class, so
    # the object's members stay its evidence, as without the rule
    _, evidence = _case(tmp_path, "page1.json", [{"remark": "north", "city": {"code": "AMS", "cityName": "Amsterdam"}},
                                                 {"remark": "south", "city": {"code": "PAR", "cityName": "Paris"}}])
    assert evidence == "name fit 0.18 ('page1'), property fit 0.39 over 3 reference(s); next ex:City 0.28"
