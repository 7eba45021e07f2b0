"""Morph-KGC 2.10 reads an attribute of the iterated XML element with ``e.attrib[name]``: one record
without it aborted the whole run (KeyError). Corrected in pipeline.engine: the record has no value."""
from __future__ import annotations

from pipeline.cli import main

XML = """<?xml version="1.0" encoding="UTF-8"?>
<library>
  <book isbn="9780000000011"><title>One</title></book>
  <book isbn="9780000000012"><title>Two</title></book>
  <book><title>No isbn</title></book>
</library>
"""
RML = """@prefix rml: <http://w3id.org/rml/> .
<#Books> rml:logicalSource [ rml:source "books.xml" ; rml:referenceFormulation rml:XPath ;
                             rml:iterator "/library/book" ] ;
  rml:subjectMap [ rml:template "http://example.org/book/{@isbn}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/title> ; rml:objectMap [ rml:reference "title" ] ] ,
                         [ rml:predicate <http://example.org/isbn> ; rml:objectMap [ rml:reference "@isbn" ] ] .
"""


def test_a_record_without_the_attribute_gets_no_value_and_the_run_goes_on(tmp_path, capsys):
    (tmp_path / "books.xml").write_text(XML, encoding="utf-8")
    (tmp_path / "m.rml.ttl").write_text(RML, encoding="utf-8")
    out = tmp_path / "kg.nt"
    assert main(["-q", "materialize", str(tmp_path / "m.rml.ttl"), str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        '<http://example.org/book/9780000000011> <http://example.org/isbn> "9780000000011" .',
        '<http://example.org/book/9780000000011> <http://example.org/title> "One" .',
        '<http://example.org/book/9780000000012> <http://example.org/isbn> "9780000000012" .',
        '<http://example.org/book/9780000000012> <http://example.org/title> "Two" .',
    ]
    assert "1 record(s) have no value for '@isbn'" in capsys.readouterr().err


def test_materialize_drop_findings_name_the_users_rml(tmp_path, capsys):
    (tmp_path / "books.xml").write_text(XML.replace('isbn="9780000000012"', 'isbn="97800-x"'), encoding="utf-8")
    rml = RML.replace('rml:reference "@isbn" ]', 'rml:reference "@isbn" ; rml:datatype '
                      '<http://www.w3.org/2001/XMLSchema#integer> ]')
    (tmp_path / "m.rml.ttl").write_text(rml, encoding="utf-8")
    assert main(["-q", "materialize", str(tmp_path / "m.rml.ttl"), str(tmp_path / "kg.nt")]) == 1
    err = capsys.readouterr().err
    dropped = [line for line in err.splitlines() if "dropped" in line]
    assert dropped and all(line.startswith(f"error: {tmp_path / 'm.rml.ttl'}") for line in dropped), err
