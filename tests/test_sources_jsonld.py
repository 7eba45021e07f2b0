"""JSON-LD contexts of JSON sources (pipeline.sources.jsonld): the expanded IRI, datatype, language and keyword
of each member, as JSON-LD 1.1 section 4.1 defines them; nothing fetched; no JSON-LD, no reading."""
from __future__ import annotations

import json

from pipeline.manifest import Source
from pipeline.sources.jsonld import Definition, read_contexts
from pipeline.sources.load import load_source

XSD = "http://www.w3.org/2001/XMLSchema#"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
S = "http://schema.org/"


def _doc(context, records, key="items"):
    return {"@context": context, key: records}


def test_term_definitions_expand_compact_iris_prefixes_and_datatypes():
    doc = _doc({"geo": GEO, "xsd": XSD, "mv": "http://schema.mobivoc.org/",
                "latitude": {"@id": "geo:lat", "@type": "xsd:float"},
                "capacity": {"@id": "mv:totalCapacity", "@type": f"{XSD}integer"},
                "nearby": {"@id": "http://www.geonames.org/ontology#nearby", "@type": "@id"},
                "tags": {"@id": "geo:tag", "@container": "@set"}},
               [{"latitude": 51.2, "capacity": 4, "nearby": "http://ex.org/a", "tags": ["x", "y"], "other": 1,
                 "geo:alt": 3}])
    got = read_contexts(doc, "$.items[*]").definitions
    assert got["latitude"] == Definition("latitude", iri=GEO + "lat", datatype=XSD + "float")
    assert got["capacity"] == Definition("capacity", iri="http://schema.mobivoc.org/totalCapacity",
                                         datatype=XSD + "integer")
    assert got["nearby"] == Definition("nearby", iri="http://www.geonames.org/ontology#nearby", datatype="@id")
    assert got["tags"] == Definition("tags", iri=GEO + "tag", container=frozenset({"@set"}))
    assert got["geo:alt"] == Definition("geo:alt", iri=GEO + "alt")  # a compact IRI through the context's prefix
    assert got["other"] == Definition("other")  # undefined: JSON-LD drops it


def test_vocab_keyword_aliases_and_type_values():
    doc = _doc({"@vocab": S, "features": "@graph", "url": "@id", "kind": "@type", "unknown:x": 1},
               [{"url": "http://ex.org/s/1", "kind": "ParkingFacility", "name": "A", "ex:odd": 2}], key="features")
    ld = read_contexts(doc, "$.features[*]")
    assert ld.definitions["url"] == Definition("url", keyword="@id")
    assert ld.definitions["kind"] == Definition("kind", keyword="@type")
    assert ld.definitions["name"] == Definition("name", iri=S + "name")  # @vocab + the member name
    assert ld.definitions["ex:odd"] == Definition("ex:odd")  # a prefix the context does not define
    assert ld.iris["kind"] == {"ParkingFacility": S + "ParkingFacility"}  # @type values: vocabulary-relative
    assert ld.iris["url"] == {"http://ex.org/s/1": "http://ex.org/s/1"}


def test_languages_default_explicit_null_and_language_maps():
    doc = _doc({"@language": "nl", "@vocab": S, "title": {"@id": "schema:title"}, "schema": S,
                "code": {"@id": "schema:code", "@language": None},
                "size": {"@id": "schema:size", "@type": f"{XSD}integer"},
                "label": {"@id": "schema:label", "@container": "@language"}},
               [{"title": "Fiets", "code": "F1", "size": 3, "label": {"en": "Bike", "fr": "Vélo"}}])
    got = read_contexts(doc, "$.items[*]").definitions
    assert got["title"].language == "nl"  # the context's default
    assert got["code"].language == ""  # "@language": null: none
    assert got["size"].language is None  # a typed value has no language
    assert got["label.en"] == Definition("en", iri=S + "label", language="en", language_member=True)
    assert got["label.fr"].language == "fr"


def test_contexts_above_in_and_inside_records_and_scoped_ones():
    doc = {"@context": {"@vocab": S},
           "data": {"@context": {"geo": GEO},
                    "items": [{"@context": {"lat": "geo:lat"}, "lat": 1,
                               "place": {"@id": "http://ex.org/p", "name": "P"}},
                              {"lat": 2, "place": {"name": "Q"}}]}}
    ld = read_contexts(doc, "$.data.items[*]")
    # the record's own context defines 'lat' in the first record; the second record has @vocab only: defined otherwise
    assert "lat" not in ld.definitions
    assert any("define 'lat' differently" in n for n in ld.notes)
    assert ld.definitions["place.name"] == Definition("name", iri=S + "name")
    assert ld.definitions["place.@id"] == Definition("@id", keyword="@id")
    scoped = read_contexts({"@context": {"@vocab": S, "geo": GEO, "place": {"@id": "schema:place",
                                                                           "@context": {"lat": "geo:lat"}}},
                            "items": [{"place": {"lat": 1}, "lat": 2}]}, "$.items[*]").definitions
    assert scoped["place.lat"].iri == GEO + "lat"  # the term's own context applies to the object it holds
    assert scoped["lat"].iri == S + "lat"


def test_remote_contexts_and_imports_are_not_fetched():
    doc = _doc(["https://example.invalid/context.jsonld", {"@import": "https://example.invalid/other.jsonld",
                                                           "name": "http://xmlns.com/foaf/0.1/name"}],
               [{"name": "A", "age": 3}])
    ld = read_contexts(doc, "$.items[*]")
    assert ld.definitions["name"].iri == "http://xmlns.com/foaf/0.1/name"
    assert ld.definitions["age"] == Definition("age")
    assert ld.notes == [
        "the remote JSON-LD context 'https://example.invalid/context.jsonld' was not read (kgc fetches nothing): "
        "the members it defines are matched by name",
        "the JSON-LD context's @import 'https://example.invalid/other.jsonld' was not read (kgc fetches nothing)"]


def test_plain_json_is_no_json_ld(tmp_path):
    assert read_contexts({"items": [{"name": "A"}]}, "$.items[*]") is None
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"items": [{"name": "A", "note": "says @context in a value"}]}), encoding="utf-8")
    assert load_source(Source(path=plain, format="json")).jsonld is None
    linked = tmp_path / "linked.json"
    linked.write_text(json.dumps({"@context": "https://example.invalid/c.jsonld", "items": [{"name": "A"}]}),
                      encoding="utf-8")
    data = load_source(Source(path=linked, format="json"))
    assert data.jsonld is not None and data.jsonld.definitions == {"name": Definition("name")}
    assert [(f.severity, f.column) for f in data.findings if "remote JSON-LD context" in f.message] == \
        [("info", "@context")]
