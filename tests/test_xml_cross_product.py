"""A term map whose two references go through one repeated XML element is said (a cross product);
the same mapping over records that hold the element once is not."""
from __future__ import annotations

from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.rdffile import parse_turtle

MAP = """@prefix rr: <http://www.w3.org/ns/r2rml#> .
@prefix rml: <http://semweb.mmlab.be/ns/rml#> .
@prefix ql: <http://semweb.mmlab.be/ns/ql#> .
<http://ex.org/map/M> rml:logicalSource [ rml:source "d.xml" ; rml:referenceFormulation ql:XPath ;
    rml:iterator "/r/item" ] ;
  rr:subjectMap [ rr:template "http://ex.org/item/{@id}" ] ;
  rr:predicateObjectMap [ rr:predicate <http://ex.org/size> ;
    rr:objectMap [ rml:reference "size" ; rr:datatypeMap [ rml:reference "size/@type" ] ] ] .
"""


def _warnings(tmp_path, xml: str) -> list[str]:
    (tmp_path / "d.xml").write_text(xml, encoding="utf-8")
    norm = normalize_rml(parse_turtle(data=MAP), mapping_dir=tmp_path, copies=tmp_path / "c")
    return [f.message for f in norm.findings if f.severity == "warning"]


def test_repeated_element_read_by_value_and_datatype_map_is_said(tmp_path):
    said = _warnings(tmp_path, '<r><item id="1"><size type="http://ex.org/cm">3</size></item>'
                               '<item id="2"><size type="http://ex.org/cm">3</size><size type="http://ex.org/in">1</size>'
                               '</item></r>')
    assert said == ["TriplesMap <http://ex.org/map/M>: the object map's reference 'size' and its datatype map's "
                    "reference 'size/@type' both read the element 'size', which record 2 of d.xml holds 2 times: "
                    "RML combines every value of one with every value of the other (a cross product), not each "
                    "'size' with its own; to read them together, iterate over the element (rml:iterator "
                    "'/r/item/size', references '.' and '@type', the record's own fields read upwards with '../') "
                    "or use a logical view with an iterable field at 'size'"]


def test_element_held_once_per_record_is_not_said(tmp_path):
    assert _warnings(tmp_path, '<r><item id="1"><size type="http://ex.org/cm">3</size></item>'
                               '<item id="2"><size type="http://ex.org/in">1</size></item></r>') == []
