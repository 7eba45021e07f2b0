"""A reference holding a brace (a JSON key or CSV column ``{Name}``, escaped ``\\{Name\\}`` in a
template): the engine's template parser matches nothing, so the source is read through a derived
source and every term is made."""
from __future__ import annotations

from pathlib import Path

from pipeline.bench.conformance import same_dataset
from pipeline.cli import main

MAPPING = r"""@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/> .
<#J> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "people.json" ] ;
      rml:referenceFormulation rml:JSONPath ; rml:iterator "$.people[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/j/{$['\\{Name\\}']}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "$['{Name}']" ] ] .
<#C> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "people.csv" ] ;
      rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/c/{\\{Name\\}}-{id}" ; rml:class ex:P ] .
"""


def test_template_and_reference_with_braces_make_every_term(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "people.json").write_text('{"people": [{"{Name}": "Venus"}, {"{Name}": "Ann Lee"}]}', encoding="utf-8")
    (tmp_path / "people.csv").write_text("id,{Name}\n1,Venus\n", encoding="utf-8")
    (tmp_path / "m.ttl").write_text(MAPPING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc = main(["materialize", "m.ttl", "kg.nq", "--format", "nq", "-q"])
    assert rc == 0, capsys.readouterr().err
    expected = ('<http://example.org/j/Venus> <http://example.org/name> "Venus" .\n'
                '<http://example.org/j/Ann%20Lee> <http://example.org/name> "Ann Lee" .\n'
                '<http://example.org/c/Venus-1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/P> .\n')
    assert same_dataset((tmp_path / "kg.nq").read_text(encoding="utf-8"), expected) == (True, "")
