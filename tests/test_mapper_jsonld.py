"""The offline mapper reads a JSON-LD context (pipeline.mappers.offline.jsonld): what it states against what the
vocabulary declares, members of another node, and the same records without a context."""
from __future__ import annotations

import json
import shutil

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case

from helpers import case_folder, cells

CASE = "mapper-jsonld-context"


def _map(tmp_path, edit):
    """Map a copy of the golden case whose JSON document ``edit`` rewrote (lexically)."""
    folder = tmp_path / "case"
    shutil.copytree(case_folder(CASE), folder)
    doc = json.loads((folder / "stations.jsonld").read_text(encoding="utf-8"))
    edit(doc)
    (folder / "stations.jsonld").write_text(json.dumps(doc), encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(folder / "case.yaml"), use_embeddings=False)
    return result, list(result.table)


def test_without_the_context_the_members_are_matched_by_name(tmp_path):
    def drop(doc):
        del doc["@context"]
    _, rows = _map(tmp_path, drop)
    assert not any(r.subject_template == "{iri}" for r in rows)
    assert not any("JSON-LD" in e for r in rows for e in r.evidence)
    assert ("run_by", "tr:operator") not in cells(rows, "data_reference", "ontology_property")


def test_a_literal_for_an_object_property_is_marked_for_review(tmp_path):
    def literal(doc):
        doc["@context"]["run_by"] = {"@id": "tr:operator"}  # no "@type": "@id": JSON-LD writes strings
    _, rows = _map(tmp_path, literal)
    row = next(r for r in rows if r.data_reference == "run_by")
    assert row.ontology_property == "tr:operator"
    assert row.review == ("tr:operator is an owl:ObjectProperty but the JSON-LD context gives 'run_by' no "
                          "\"@type\": \"@id\": its values are strings there; check which the data means")


def test_a_member_of_a_nested_node_is_no_member_of_the_records_node(tmp_path):
    def nest(doc):
        for rec in doc["stations"]:
            rec["operator"] = {"iri": rec.pop("run_by"), "label": "NMBS"}
        doc["@context"]["operator"] = {"@id": "tr:operator"}
    _, rows = _map(tmp_path, nest)
    # operator.label is the operator's title, not the station's: the context's tr:title is not put on the station
    assert ("operator.label", "tr:title") not in cells(rows, "data_reference", "ontology_property")
    assert ("label", "tr:title", "nl") in cells(rows, "data_reference", "ontology_property", "language_tag")


def test_ids_that_are_compact_iris_key_by_the_usual_template(tmp_path):
    def compact(doc):
        doc["@context"]["st"] = "http://example.org/station/"
        for rec in doc["stations"]:
            rec["iri"] = "st:" + rec["iri"].rsplit("/", 1)[-1]
    _, rows = _map(tmp_path, compact)
    assert {r.subject_template for r in rows} == {"http://example.org/station/{iri}"}


def test_a_context_in_each_record_is_read_and_is_no_data(tmp_path):
    def inline(doc):
        context = doc.pop("@context")
        del context["stations"]
        for rec in doc["stations"]:
            rec["@context"] = context
    result, rows = _map(tmp_path, inline)
    assert cells(rows, "data_reference", "ontology_property", "subject_template") == {
        ("y", "geo:lat", "{iri}"), ("docks", "tr:capacity", "{iri}"), ("label", "tr:title", "{iri}"),
        ("run_by", "tr:operator", "{iri}")}
    assert not any("'@context." in f["message"] for f in result.provenance["findings"])  # no column of it
