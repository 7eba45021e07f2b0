"""Values of the data that give no term are counted and said by ``kgc materialize`` (exit 1), on the
columnar and the engine path alike: a function that cannot read a value, a join key no parent has.
The golden cases (tests/cases/fno-unparsed-values-dropped-silently, join-unmatched-keys-dropped-silently,
value-map-unmapped-code-dropped-silently) show the messages on the users' own inputs."""
from __future__ import annotations

import pytest

from pipeline.cli import main
from pipeline.fno import udfs

RML = """@prefix rml: <http://w3id.org/rml/> .
@prefix fn: <https://w3id.org/kgc-pipeline/function#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.org/rml/Things> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "r.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/t/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/d> ;
    rml:objectMap [ rml:datatype xsd:date ; rml:functionExecution <http://example.org/rml/toDate> ] ] ,
  [ rml:predicate <http://example.org/m> ;
    rml:objectMap [ rml:functionExecution <http://example.org/rml/skip> ] ] ,
  [ rml:predicate <http://example.org/owner> ;
    rml:objectMap [ rml:parentTriplesMap <http://example.org/rml/People> ;
                    rml:joinCondition [ rml:child "owner" ; rml:parent "pid" ] ] ] .
<http://example.org/rml/People> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "p.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{pid}" ] .
<http://example.org/rml/toDate> rml:function fn:normalizeDate ;
  rml:input [ rml:parameter fn:value ; rml:inputValueMap [ rml:reference "d" ] ] ,
            [ rml:parameter fn:order ; rml:inputValueMap [ rml:constant "YMD" ] ] .
<http://example.org/rml/skip> rml:function fn:skipMissing ;
  rml:input [ rml:parameter fn:value ; rml:inputValueMap [ rml:reference "m" ] ] .
"""
# 2024-02-30 twice (one distinct value), soon; an empty d is no value (not counted); NA is what
# skipMissing exists for (not counted); owners: p1 matches, 'P2' matches p2 ignoring case, 'p1 ' and p9
# (twice: two links lost) do not
DATA = "id,d,m,owner\n1,2024-06-01,x,p1\n2,2024-02-30,NA,P2\n3,2024-02-30,y,p1 \n4,soon,,p9\n5,,z,p9\n"
PEOPLE = "pid\np1\np2\n"


@pytest.mark.parametrize("engine_only", [False, True])
def test_function_and_join_drops_are_counted_and_named(tmp_path, monkeypatch, capsys, engine_only):
    (tmp_path / "m.rml.ttl").write_text(RML, encoding="utf-8")
    (tmp_path / "r.csv").write_text(DATA, encoding="utf-8")
    (tmp_path / "p.csv").write_text(PEOPLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["materialize", "m.rml.ttl", "kg.nt", *(["--engine-only"] if engine_only else [])]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "dropped" in line] == [
        "error: m.rml.ttl:7 [rml:predicate]: 2 value(s) dropped: no value from function toDate() for values "
        "of 'd' that are there (TriplesMap <http://example.org/rml/Things>, object map, source r.csv; first: r.csv "
        "line 3): no triple",
        "  first dropped: d='2024-02-30'; d='soon'",
        "error: m.rml.ttl:11 [rml:predicate]: 4 value(s) dropped: no parent record for join key (owner == pid in "
        "p.csv; TriplesMap <http://example.org/rml/Things>, referencing object map, source r.csv; first: r.csv line "
        "3): no triple",
        "  first dropped: owner='P2' (matches 'p2' ignoring case); owner='p1 ' (matches 'p1' without its "
        "surrounding white space); owner='p9'"]
    kg = (tmp_path / "kg.nt").read_text(encoding="utf-8")
    assert "<http://example.org/t/1> <http://example.org/owner> <http://example.org/p/p1> ." in kg
    assert kg.count("<http://example.org/owner>") == 1 and kg.count("<http://example.org/d>") == 1


def test_matching_joins_and_readable_values_say_nothing(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.rml.ttl").write_text(RML, encoding="utf-8")
    (tmp_path / "r.csv").write_text("id,d,m,owner\n1,2024-06-01,NA,p1\n2,2024-06-02,y,p2\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text(PEOPLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["materialize", "m.rml.ttl", "kg.nt"]) == 0
    assert "dropped" not in capsys.readouterr().err


def test_to_decimal_reads_decimal_commas_and_points():
    # without a decided mark, 1.250 (1250 or 1.25) is no value rather than a guessed magnitude
    assert [udfs.normalize_decimal(v) for v in ("3.5", "12.25", ".5", "-2.5", "8,99", "1.234,56", "1.250",
                                                "7", "abc", "1,2,3", "")] == \
        ["3.5", "12.25", "0.5", "-2.5", "8.99", "1234.56", None, "7", None, None, None]
    assert udfs.normalize_decimal("1.250", ",") == "1250" and udfs.normalize_decimal("1.250", ".") == "1.250"


XML_RML = """@prefix rr: <http://www.w3.org/ns/r2rml#> .
@prefix rml: <http://semweb.mmlab.be/ns/rml#> .
@prefix ql: <http://semweb.mmlab.be/ns/ql#> .
<http://example.org/rml/Orders> a rr:TriplesMap ;
  rml:logicalSource [ rml:source "o.xml" ; rml:referenceFormulation ql:XPath ; rml:iterator "/orders/order" ] ;
  rr:subjectMap [ rr:template "http://example.org/order/{@id}" ] ;
  rr:predicateObjectMap [ rr:predicate <http://example.org/by> ;
                          rr:objectMap [ rr:template "http://example.org/customer/{customer/KEY}" ] ] .
"""


@pytest.mark.parametrize("key, code", [("ident", 2), ("id", 0)])
def test_an_xml_template_naming_an_element_no_record_has_is_refused(tmp_path, monkeypatch, capsys, key, code):
    (tmp_path / "o.xml").write_text('<orders><order id="o1"><customer><id>c1</id></customer></order></orders>',
                                    encoding="utf-8")
    (tmp_path / "m.ttl").write_text(XML_RML.replace("KEY", key), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["materialize", "m.ttl", "kg.nt"]) == code
    err = capsys.readouterr().err
    assert ("error: m.ttl:4: TriplesMap <http://example.org/rml/Orders>: the object map's template "
            "'http://example.org/customer/{customer/ident}' names 'customer/ident', which selects nothing in any "
            "record of o.xml (iterator /orders/order; the records hold 'customer/id')" in err) == (code == 2)
