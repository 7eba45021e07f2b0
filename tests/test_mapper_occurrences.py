"""A repeating part of a record (a JSON array of objects, an XML element repeating in a record) is one entity
per occurrence when two or more of its members name properties of a class related to the record's
(pipeline.mappers.offline.occurrences); a value that may repeat is no record key (pipeline.compile.parts.holds_array)."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.compile.parts import holds_array
from pipeline.manifest import Source
from pipeline.sources.load import load_source

from helpers import map_files

ONTO = """@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Software a owl:Class . ex:SoftwareVersion a owl:Class ; rdfs:subClassOf ex:Software .
ex:hasVersion a owl:ObjectProperty ; rdfs:domain ex:Software ; rdfs:range ex:SoftwareVersion .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:string .
ex:tag a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:string .
ex:dateCreated a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:dateTime .
"""


def _map(tmp_path: Path, records: list, onto: str = ONTO) -> dict[str, dict]:
    return map_files(tmp_path, {"onto.ttl": onto, "repos.json": json.dumps(records)},
                     "name: r\nsources: [repos.json]\nontologies: [onto.ttl]\n")


def _repos(**extra) -> list:
    return [{"id": f"R{i}", "name": f"repo {i}", "dateCreated": f"2020-0{i}-01T00:00:00Z",
             "releases": [{"tag": f"{i}.{j}", "name": f"release {i}.{j}", "dateCreated": f"2021-0{j}-02T00:00:00Z"}
                          for j in range(1, i + 1)], **extra} for i in (1, 2, 3)]


def test_the_members_of_an_array_of_objects_are_one_entity_per_occurrence(tmp_path):
    rows = _map(tmp_path, _repos())
    for ref in ("releases.tag", "releases.name", "releases.dateCreated"):
        assert rows[ref]["entity_class"] == "ex:SoftwareVersion", ref
        assert rows[ref]["subject_template"].endswith("_{releases.#}"), ref
    assert rows["name"]["entity_class"] == "ex:Software"
    rel = rows["ex:hasVersion"]
    assert (rel["entity_class"], rel["related_entity_class"]) == ("ex:Software",
                                                                  "ex:SoftwareVersion")
    assert "record evidence" in rel["evidence"][0]  # the only relation between the two: forced


def test_one_member_of_a_part_stays_a_value_of_the_record(tmp_path):
    # each release object holds only a tag: a multi-valued property of the repository, nothing to pair
    records = [{"id": f"R{i}", "name": f"repo {i}", "releases": [{"tag": f"{i}.{j}"} for j in range(2)]}
               for i in range(3)]
    rows = _map(tmp_path, records)
    assert rows["releases.tag"]["entity_class"] == "ex:Software"
    assert "ex:hasVersion" not in rows


def test_a_part_no_related_class_fits_stays_on_the_record(tmp_path):
    # no object property relates the record's class to a class the members fit: nothing else to give them
    flat = ONTO.replace("ex:hasVersion a owl:ObjectProperty ; rdfs:domain ex:Software ; rdfs:range ex:SoftwareVersion .",
                        "")
    rows = _map(tmp_path, _repos(), flat)
    assert not any(r["entity_class"] == "ex:SoftwareVersion" for r in rows.values())


def test_a_value_that_may_repeat_is_no_record_key(tmp_path):
    # 'ids' is an array in every record (of one value here): a record holding two would be two subjects
    records = [{"ids": [f"X{i}"], "code": f"C{i}", "name": f"repo {i}"} for i in range(3)]
    rows = _map(tmp_path, records)
    assert rows["name"]["subject_template"].endswith("/{code}")
    data = load_source(Source(path=tmp_path / "repos.json", format="json"))
    assert holds_array(data, data.iterator, "ids") and not holds_array(data, data.iterator, "code")
