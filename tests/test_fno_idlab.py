"""The IDLab function library and GREL corrections of our UDF file, alone and through
``kgc materialize`` (function on a subject, on a predicate, conditions, typed outputs, empty and
missing outputs)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.fno import udfs

from helpers import materialize_mapping

IDLAB = "https://w3id.org/imec/idlab/function#"


@pytest.mark.parametrize("function,args,expected", [
    ("equal", ("A", "A"), True), ("equal", ("A", "B"), False), ("notEqual", ("A", "B"), True),
    ("stringContainsOtherString", ("a;b;c", "b", ";"), True), ("stringContainsOtherString", ("a;b", "x", ";"), False),
    ("listContainsElement", (["a", "b"], "b"), True), ("decide", ("x", "x", "yes"), "yes"), ("decide", ("x", "y", "z"), None),
    ("isNull", (None,), True), ("trueCondition", ("true", "v"), "v"), ("trueCondition", ("false", "v"), None),
    ("inRange", ("5", "1", "10"), True), ("inRange", ("10", "1", "10"), False), ("inRange", (None, "1", "2"), False),
    ("slugify", ("Zoë Krüger!",), "zoe-kruger"), ("toUpperCaseURL", ("www.example.com",), "http://WWW.EXAMPLE.COM"),
    ("toUpperCaseURL", ("http://ex.org/a",), "HTTP://EX.ORG/A"), ("concat", ("a", "b", "-"), "a-b"),
    ("getMIMEType", ("report.PDF",), "application/pdf"), ("alwaysReturnsABC", (), "ABC"),
])

def test_idlab_functions(function, args, expected):
    impl, params = udfs.REGISTRY[IDLAB + function]
    assert impl(*args) == expected
    assert all(p.startswith(("https://w3id.org/imec/idlab/function#", "http://users.ugent.be/")) for p in params.values())


def test_grel_substring_as_its_java_implementation():
    impl, _ = udfs.REGISTRY["http://users.ugent.be/~bjdmeest/function/grel.ttl#string_substring"]
    assert (impl("Venus", "1"), impl("Venus", "5"), impl("Venus", "1000"), impl("Venus", "-2"), impl("Venus", "1", "3")) == \
        ("enus", "", None, "us", "en")


def test_idlab_lookup(tmp_path):
    (tmp_path / "codes.csv").write_text("code,label\nBE,Belgium\nES,Spain\n", encoding="utf-8")
    impl, _ = udfs.REGISTRY[IDLAB + "lookup"]
    assert impl("ES", str(tmp_path / "codes.csv"), "0", "1") == "Spain"
    assert impl("FR", str(tmp_path / "codes.csv"), "0", "1") is None


PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix grel: <http://users.ugent.be/~bjdmeest/function/grel.ttl#> .
@prefix idlab-fn: <https://w3id.org/imec/idlab/function#> .
@prefix ex: <http://example.org/> .
@base <http://example.org/> .
"""


def _run(tmp_path: Path, body: str, monkeypatch, capsys) -> tuple[int, str, str]:
    return materialize_mapping(tmp_path, PREFIXES + """
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "s.csv" ] ; rml:referenceFormulation rml:CSV ] ;
""" + body, {"s.csv": "id,name,class,url\n1,Venus Williams,A,www.ex.org\n2,Serena,B,ex.org\n"}, monkeypatch, capsys)


def test_condition_typed_output_and_empty_output(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, """
  rml:subjectMap [ rml:template "http://example.org/{name}" ;
    rml:condition [ rml:functionExecution [ rml:function idlab-fn:equal ;
        rml:input [ rml:parameter grel:valueParam ; rml:inputValueMap [ rml:reference "class" ] ] ,
                  [ rml:parameter grel:valueParam2 ; rml:inputValue "A" ] ] ;
      rml:return idlab-fn:_boolOut ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:length ; rml:objectMap [ rml:return grel:output_number ;
    rml:functionExecution [ rml:function grel:string_length ;
      rml:input [ rml:parameter grel:valueParam ; rml:inputValueMap [ rml:reference "name" ] ] ] ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:rest ; rml:objectMap [ rml:return grel:stringOut ;
    rml:functionExecution [ rml:function grel:string_substring ;
      rml:input [ rml:parameter grel:valueParam ; rml:inputValueMap [ rml:reference "name" ] ] ,
                [ rml:parameter grel:p_int_i_from ; rml:inputValue "14" ] ] ] ] ;
  rml:predicateObjectMap [ rml:predicateMap [ rml:termType rml:IRI ; rml:functionExecution [
      rml:function idlab-fn:toUpperCaseURL ;
      rml:input [ rml:parameter idlab-fn:str ; rml:inputValueMap [ rml:reference "url" ] ] ] ] ;
    rml:object "x" ] .
""", monkeypatch, capsys)
    assert rc == 0, err
    s = "<http://example.org/Venus%20Williams>"
    # Serena fails the condition: no subject, no triple; "Venus Williams" has 14 characters: substring "" is kept
    assert same_dataset(out, f'{s} <http://example.org/length> "14"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
                             f'{s} <http://example.org/rest> "" .\n'
                             f'{s} <http://WWW.EX.ORG> "x" .\n') == (True, "")


def test_unknown_idlab_function_and_parameter_are_refused(tmp_path, monkeypatch, capsys):
    rc, err, _ = _run(tmp_path, """
  rml:subjectMap [ rml:template "http://example.org/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:p ; rml:objectMap [ rml:functionExecution [ rml:function idlab-fn:slugify ;
      rml:input [ rml:parameter idlab-fn:nope ; rml:inputValueMap [ rml:reference "name" ] ] ] ] ] .
""", monkeypatch, capsys)
    assert rc == 2
    assert "has no parameter <https://w3id.org/imec/idlab/function#nope>" in err
