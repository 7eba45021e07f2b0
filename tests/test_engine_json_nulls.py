"""Morph-KGC 2.10's JSON reader drops a record with a null anywhere under the top-level keys a
rule reads (``venue.geo: null`` lost ``venue.name``), silently. Corrected in pipeline.materialize.engine:
a record is left out only for the references that are null in it, and that is counted; a JSON
number beside a null stays as written (350, not 350.0)."""
from __future__ import annotations

import json

from pipeline.cli import main

EVENTS = {"data": [
    {"id": "E1", "capacity": 350, "venue": {"id": "V7", "name": "Blue Hall", "geo": {"lat": "48.2"}}},
    {"id": "E2", "capacity": None, "venue": {"id": "V9", "name": "City Park", "geo": None}},
    {"id": "E3", "venue": None},
]}
RML = """@prefix rml: <http://w3id.org/rml/> .
<#Events> rml:logicalSource [ rml:source "events.json" ; rml:referenceFormulation rml:JSONPath ;
                              rml:iterator "$.data[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/event/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/venueName> ; rml:objectMap [ rml:reference "venue.name" ] ] ,
                         [ rml:predicate <http://example.org/capacity> ; rml:objectMap [ rml:reference "capacity" ] ] .
"""


def test_a_null_member_no_rule_reads_loses_no_record(tmp_path, capsys):
    (tmp_path / "events.json").write_text(json.dumps(EVENTS), encoding="utf-8")
    (tmp_path / "m.rml.ttl").write_text(RML, encoding="utf-8")
    out = tmp_path / "kg.nt"
    assert main(["-q", "materialize", str(out.parent / "m.rml.ttl"), str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        # a JSON number gets its natural datatype (RML: xsd:integer), written as in the file
        '<http://example.org/event/E1> <http://example.org/capacity> "350"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        '<http://example.org/event/E1> <http://example.org/venueName> "Blue Hall" .',
        '<http://example.org/event/E2> <http://example.org/venueName> "City Park" .',
    ]
    err = capsys.readouterr().err
    assert "2 record(s) have no value for 'capacity'" in err  # E2 null, E3 absent
    assert "1 record(s) have no value for 'venue.name'" in err  # E3's venue is null
