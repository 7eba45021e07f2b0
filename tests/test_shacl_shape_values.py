"""SHACL Core constraint values checked when a shapes file is read (pipeline.validation.shape_values)."""
from __future__ import annotations

import logging

import pytest
from rdflib import Graph

from pipeline.validation.shacl import validate_shacl
from pipeline.validation.shape_values import constraint_value_faults

_HEAD = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:S a sh:NodeShape ; sh:targetClass ex:C ; """


def _faults(body: str) -> list[tuple[str, str]]:
    g = Graph().parse(data=_HEAD + body + " .", format="turtle")
    return sorted((str(f.parameter).rsplit("#", 1)[1], f.problem) for f in constraint_value_faults(g))


@pytest.mark.parametrize("body, expected", [
    ('sh:property [ sh:path ex:p ; sh:minCount -1 ]', [("minCount", "negative")]),
    ('sh:property [ sh:path ex:p ; sh:maxCount 1.5 ]', [("maxCount", "not an integer")]),
    ('sh:property [ sh:path ex:p ; sh:maxLength "2"^^xsd:integer ]', []),
    ('sh:property [ sh:path ex:p ; sh:maxLength "two"^^xsd:integer ]', [("maxLength", "not a valid xsd:integer")]),
    ('sh:property [ sh:path ex:p ; sh:class "ex:C" ]', [("class", "not an IRI")]),
    ('sh:nodeKind sh:Literals', [("nodeKind", "not a SHACL node kind")]),
    ('sh:property [ sh:path ex:p ; sh:uniqueLang "yes" ]', [("uniqueLang", "not true or false")]),
    ('sh:property [ sh:path ex:p ; sh:in "a" ]', [("in", "not an RDF list ( ... )")]),
    ('sh:property [ sh:path ex:p ; sh:languageIn ( "en" ex:fr ) ]',
     [("languageIn", "the member <http://example.org/fr> is not a string literal")]),
    ('sh:property [ sh:path ex:p ; sh:pattern "a(b" ]',
     [("pattern", "not a valid regular expression (missing ), unterminated subpattern at position 1)")]),
    ('sh:property [ sh:path ex:p ; sh:pattern "^\\\\d{4}$" ; sh:flags "i" ; sh:in ( 1 2 ) ; sh:minInclusive 0 ]', []),
])
def test_each_parameter_value_type(body, expected):
    assert _faults(body) == expected


def test_pyshacl_log_never_reaches_stderr(capfd, caplog):
    """Bad shapes given straight to the validator (no load-time check) fail the check, quietly."""
    kg = Graph().parse(data="<http://example.org/a> a <http://example.org/C> .", format="turtle")
    shapes = Graph().parse(data=_HEAD + 'sh:property [ sh:path ex:p ; sh:minCount "one" ] .', format="turtle")
    with caplog.at_level(logging.DEBUG):
        result = validate_shacl(kg, None, [shapes])
    assert result.status == "failed" and result.value is None
    assert "ConstraintLoadError" in result.details["reason"]
    assert capfd.readouterr().err == ""
    assert not [r for r in caplog.records if r.name.startswith("pyshacl")]


def test_a_single_valued_parameter_given_twice():
    assert _faults('sh:property [ sh:path ex:p ; sh:datatype xsd:string, xsd:integer ]') == [
        ("datatype", "the shape gives it 2 values")]
