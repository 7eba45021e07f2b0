"""RML-Core constructs the engine cannot run, run through derived sources or the normalisation:
joins on template- and constant-valued child/parent maps, the ``rml:URI`` term type, a blank-node
subject map without expression, a relative template-valued datatype map."""
from __future__ import annotations

from pathlib import Path

from pipeline.bench.conformance import same_dataset

from helpers import materialize_mapping

PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/> .
@base <http://example.org/> .
"""
STUDENTS = '{"students": [{"ID": 10, "Name": "Zoë Krüger", "Sport": 100}, {"ID": 20, "Name": "Bob/Ann", "Sport": 200}]}'
SPORTS = '{"sports": [{"ID": 100, "Name": "Tennis"}, {"ID": 200, "Name": "Golf"}]}'


def _source(path: str, iterator: str) -> str:
    return (f'rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "{path}" ] ; '
            f'rml:referenceFormulation rml:JSONPath ; rml:iterator "{iterator}" ]')


def _run(tmp_path: Path, mapping: str, monkeypatch, capsys) -> tuple[int, str, str]:
    return materialize_mapping(tmp_path, PREFIXES + mapping, {"students.json": STUDENTS, "sports.json": SPORTS},
                               monkeypatch, capsys)


def test_join_on_template_and_constant_valued_child_and_parent_maps(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, f"""
<#Student> {_source("students.json", "$.students[*]")} ;
  rml:subjectMap [ rml:template "s/{{$.ID}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:plays ; rml:objectMap [ rml:parentTriplesMap <#Sport> ;
      rml:joinCondition [ rml:childMap [ rml:template "sport-{{$.Sport}}" ] ;
                          rml:parentMap [ rml:template "sport-{{$.ID}}" ] ] ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:likes ; rml:objectMap [ rml:parentTriplesMap <#Sport> ;
      rml:joinCondition [ rml:childMap [ rml:constant "100" ] ; rml:parentMap [ rml:reference "$.ID" ] ] ] ] .
<#Sport> {_source("sports.json", "$.sports[*]")} ; rml:subjectMap [ rml:template "sport/{{$.Name}}" ] .
""", monkeypatch, capsys)
    assert rc == 0, err
    t, g = "<http://example.org/sport/Tennis>", "<http://example.org/sport/Golf>"
    assert same_dataset(out, f"<http://example.org/s/10> <http://example.org/plays> {t} .\n"
                             f"<http://example.org/s/20> <http://example.org/plays> {g} .\n"
                             f"<http://example.org/s/10> <http://example.org/likes> {t} .\n"
                             f"<http://example.org/s/20> <http://example.org/likes> {t} .\n") == (True, "")


def test_uri_term_type_blank_subject_per_iteration_and_relative_datatype_map(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, f"""
<#Uri> {_source("students.json", "$.students[*]")} ;
  rml:subjectMap [ rml:template "http://example.org/p/{{$.Name}}" ; rml:termType rml:URI ] ;
  rml:predicateObjectMap [ rml:predicate ex:iri ; rml:objectMap [ rml:template "http://example.org/p/{{$.Name}}" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:id ; rml:objectMap [ rml:reference "$.ID" ;
      rml:datatypeMap [ rml:template "dt/{{$.Sport}}" ] ] ] .
<#Blank> {_source("sports.json", "$.sports[*]")} ;
  rml:subjectMap [ rml:termType rml:BlankNode ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "$.Name" ] ] .
""", monkeypatch, capsys)
    assert rc == 0, err
    zoe, bob = "<http://example.org/p/Zo%C3%AB%20Kr%C3%BCger>", "<http://example.org/p/Bob%2FAnn>"
    assert same_dataset(out, f"""{zoe} <http://example.org/iri> <http://example.org/p/Zoë%20Krüger> .
{bob} <http://example.org/iri> <http://example.org/p/Bob%2FAnn> .
{zoe} <http://example.org/id> "10"^^<http://example.org/dt/100> .
{bob} <http://example.org/id> "20"^^<http://example.org/dt/200> .
_:t <http://example.org/name> "Tennis" .
_:g <http://example.org/name> "Golf" .
""") == (True, "")
