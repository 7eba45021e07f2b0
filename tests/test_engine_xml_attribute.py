"""Morph-KGC 2.10 reads an attribute of the iterated XML element with ``e.attrib[name]``: one record
without it aborted the whole run (KeyError). Corrected in pipeline.materialize.engine: the record has no value."""
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
    dropped = [line for line in err.splitlines() if "triple(s) dropped" in line]
    assert dropped and all(line.startswith(f"error: {tmp_path / 'm.rml.ttl'}") for line in dropped), err
    assert (f"  first dropped: value '97800-x' in {tmp_path / 'books.xml'} line 4, column 15: "
            "<http://example.org/book/97800-x> "
            '<http://example.org/isbn> "97800-x"^^') in err


LANG_XML = """<?xml version="1.0" encoding="UTF-8"?>
<c:catalogue xmlns:c="urn:example:c" xmlns:xlink="http://www.w3.org/1999/xlink">
  <c:item xml:lang="de" xlink:href="http://example.org/doc/1"><c:name xml:lang="de">Tastatur</c:name></c:item>
  <c:item xml:lang="fr" xlink:href="http://example.org/doc/2"><c:name xml:lang="fr">Souris</c:name></c:item>
  <c:item><c:name>Untagged</c:name></c:item>
</c:catalogue>
"""
LANG_RML = """@prefix rml: <http://w3id.org/rml/> .
<#Items> rml:logicalSource [ rml:source "items.xml" ; rml:referenceFormulation rml:XPath ;
                             rml:iterator "/c:catalogue/c:item" ] ;
  rml:subjectMap [ rml:template "http://example.org/item/{c:name}" ] ;
  rml:predicateObjectMap
    [ rml:predicate <http://example.org/name> ;
      rml:objectMap [ rml:reference "c:name" ; rml:languageMap [ rml:reference "c:name/@xml:lang" ] ] ] ,
    [ rml:predicate <http://example.org/lang> ; rml:objectMap [ rml:reference "@xml:lang" ] ] ,
    [ rml:predicate <http://example.org/doc> ;
      rml:objectMap [ rml:reference "@xlink:href" ; rml:termType rml:IRI ] ] .
"""


def test_prefixed_attributes_are_read_by_their_expanded_name(tmp_path):
    """``@xml:lang`` / ``@xlink:href`` on the record and on an element under it (ElementTree keys them
    ``{namespace}local``; the engine alone read no value in any record)."""
    (tmp_path / "items.xml").write_text(LANG_XML, encoding="utf-8")
    (tmp_path / "m.rml.ttl").write_text(LANG_RML, encoding="utf-8")
    out = tmp_path / "kg.nt"
    assert main(["-q", "materialize", str(tmp_path / "m.rml.ttl"), str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        '<http://example.org/item/Souris> <http://example.org/doc> <http://example.org/doc/2> .',
        '<http://example.org/item/Souris> <http://example.org/lang> "fr" .',
        '<http://example.org/item/Souris> <http://example.org/name> "Souris"@fr .',
        '<http://example.org/item/Tastatur> <http://example.org/doc> <http://example.org/doc/1> .',
        '<http://example.org/item/Tastatur> <http://example.org/lang> "de" .',
        '<http://example.org/item/Tastatur> <http://example.org/name> "Tastatur"@de .',
    ]


def test_expanded_name():
    from pipeline.materialize.readers import expanded_name

    assert expanded_name("xml:lang", {}) == "{http://www.w3.org/XML/1998/namespace}lang"
    assert expanded_name("x:href", {"x": "http://www.w3.org/1999/xlink"}) == "{http://www.w3.org/1999/xlink}href"
    assert [expanded_name(n, {}) for n in ("lang", "x:href", "{urn:a}b", ":a")] == [None, None, None, None]
