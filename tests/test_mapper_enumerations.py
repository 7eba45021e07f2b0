"""Value maps onto the declared members of a class (pipeline.mappers.offline.skos.match_members,
Ontology.members) and the records' own identifier (pipeline.mappers.offline.iris)."""
from __future__ import annotations

from rdflib import URIRef

from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.iris import _own_identifier
from pipeline.mappers.offline.skos import match_members
from pipeline.ontology import load_ontology

S = "https://schema.org/"
_ONT = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix schema: <https://schema.org/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix st: <http://example.org/status/> .
schema:Event a rdfs:Class ; rdfs:label "Event" .
schema:Enumeration a rdfs:Class .
schema:EventStatusType a rdfs:Class ; rdfs:subClassOf schema:Enumeration .
schema:EventAttendanceModeEnumeration a rdfs:Class ; rdfs:subClassOf schema:Enumeration .
schema:EventScheduled a schema:EventStatusType ; rdfs:label "EventScheduled" .
schema:EventCancelled a schema:EventStatusType .
schema:OnlineEventAttendanceMode a schema:EventAttendanceModeEnumeration .
st:pos a skos:Concept, schema:EventStatusType ; skos:notation "POS" ; skos:prefLabel "Postponed"@en .
schema:eventStatus a rdf:Property ; schema:rangeIncludes schema:EventStatusType .
"""


def _ont(tmp_path):
    (tmp_path / "o.ttl").write_text("@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n" + _ONT,
                                    encoding="utf-8")
    return load_ontology([tmp_path / "o.ttl"])


def test_members_are_the_instances_of_the_class_and_its_subclasses(tmp_path):
    ont = _ont(tmp_path)
    status = {URIRef(S + "EventScheduled"), URIRef(S + "EventCancelled"), URIRef("http://example.org/status/pos")}
    assert ont.members(URIRef(S + "EventStatusType")) == status
    assert ont.members(URIRef(S + "Enumeration")) == status | {URIRef(S + "OnlineEventAttendanceMode")}
    assert ont.members(URIRef(S + "Event")) == frozenset()
    assert URIRef(S + "EventStatusType") in ont.enumerated_classes and URIRef(S + "Event") not in ont.enumerated_classes


def test_codes_naming_members_by_local_name_notation_or_label(tmp_path):
    ont = _ont(tmp_path)
    vm = match_members(ont, "status", ["EventScheduled", "pos", "eventcancelled", "EventScheduled"],
                       URIRef(S + "EventStatusType"))
    assert vm.mapping == {"EventScheduled": S + "EventScheduled", "eventcancelled": S + "EventCancelled",
                          "pos": "http://example.org/status/pos"}
    assert vm.coverage == 1.0
    # at most half of the codes named: no map; a class of no member: none either
    assert match_members(ont, "status", ["EventScheduled", "x", "y"], URIRef(S + "EventStatusType")) is None
    assert match_members(ont, "status", ["EventScheduled"], URIRef(S + "Event")) is None
    # any class: of classes covering the codes alike (a class and its superclass), the closer name decides
    assert match_members(ont, "event status", ["EventScheduled"]).scheme == URIRef(S + "EventStatusType")


def test_an_identifier_named_after_the_records_entity_is_their_own(tmp_path):
    ont = _ont(tmp_path)

    class Data:  # SourceInfo reads nothing of the data here
        pass
    info = SourceInfo(Data(), "events.csv", "events", ["event_id", "status_id"], cls=URIRef(S + "Event"))
    assert _own_identifier("event_id", info, ont)
    assert _own_identifier("EventID", info, ont)
    assert not _own_identifier("status_id", info, ont)
    other = SourceInfo(Data(), "listing.csv", "listing", ["event_id"], cls=URIRef(S + "Event"))
    assert _own_identifier("event_id", other, ont)  # the class's name says it
    stop_times = SourceInfo(Data(), "stop_times.csv", "stop_times", ["stop_id"])
    assert not _own_identifier("stop_id", stop_times, ont)  # a stop is no stop time
