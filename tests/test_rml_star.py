"""RML-star through ``kgc materialize``: quoted triples in subject and object position, nested,
from non-asserted triples maps and with a join; invalid RML-star refused with the rule; the
guard keeps a valid quoted triple and drops one with an invalid term."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.materialize.guard import Guard

from helpers import materialize_mapping

PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example/> .
@prefix : <http://example.org/> .
@base <http://example.org/> .
"""


def _source(path: str) -> str:
    return f'rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "{path}" ] ; ' \
           "rml:referenceFormulation rml:CSV ]"


def _run(tmp_path: Path, mapping: str, monkeypatch, capsys) -> tuple[int, str, str]:
    return materialize_mapping(tmp_path, PREFIXES + mapping,
                               {"d1.csv": "s,o,a,k\ns1,o1,a1,1\n", "d2.csv": "z,k\nz1,1\nz2,2\n"}, monkeypatch, capsys)


def test_quoted_triples_asserted_non_asserted_nested_and_joined(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, f"""
:base a rml:NonAssertedTriplesMap ; {_source("d1.csv")} ;
  rml:subjectMap [ rml:template "http://example/{{s}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:p ; rml:objectMap [ rml:template "http://example/{{o}}" ] ] .
:blank a rml:AssertedTriplesMap ; {_source("d1.csv")} ;
  rml:subjectMap [ rml:reference "s" ; rml:termType rml:BlankNode ] ;
  rml:predicateObjectMap [ rml:predicate ex:p ; rml:objectMap [ rml:reference "o" ] ] .
:onBlank a rml:AssertedTriplesMap ; {_source("d1.csv")} ;
  rml:subjectMap [ rml:quotedTriplesMap :blank ] ;
  rml:predicateObjectMap [ rml:predicate ex:source ; rml:object "survey" ] .
:second a rml:TriplesMap ; {_source("d1.csv")} ;
  rml:subjectMap [ rml:template "http://example/{{a}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:q ; rml:objectMap [ rml:quotedTriplesMap :base ] ] .
:third a rml:TriplesMap ; {_source("d2.csv")} ;
  rml:subjectMap [ rml:quotedTriplesMap :second ; rml:joinCondition [ rml:child "k" ; rml:parent "k" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:r ; rml:objectMap [ rml:template "http://example/{{z}}" ] ] .
""", monkeypatch, capsys)
    assert rc == 0, err
    q = "<< <http://example/s1> <http://example/p> <http://example/o1> >>"
    assert same_dataset(out, f"""_:b <http://example/p> "o1" .
<< _:b <http://example/p> "o1" >> <http://example/source> "survey" .
<http://example/a1> <http://example/q> {q} .
<< <http://example/a1> <http://example/q> {q} >> <http://example/r> <http://example/z1> .
""") == (True, "")


@pytest.mark.parametrize("mapping,message", [
    (f""":tm a rml:TriplesMap ; {_source("d1.csv")} ; rml:subjectMap [ rml:template "http://example/{{s}}" ] ;
  rml:predicateObjectMap [ rml:quotedTriplesMap :tm ; rml:objectMap [ rml:template "http://example/{{o}}" ] ] .""",
     "a quoted triples map belongs in a subject map or an object map"),
    (f""":tm a rml:AssertedTriplesMap, rml:NonAssertedTriplesMap ; {_source("d1.csv")} ;
  rml:subjectMap [ rml:template "http://example/{{s}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:p ; rml:objectMap [ rml:template "http://example/{{o}}" ] ] .""",
     "typed both rml:AssertedTriplesMap and rml:NonAssertedTriplesMap"),
], ids=["quoted-map-on-pom", "asserted-and-not"])
def test_invalid_rml_star_is_refused(tmp_path, monkeypatch, capsys, mapping, message):
    rc, err, _ = _run(tmp_path, mapping, monkeypatch, capsys)
    assert rc == 2
    assert message in err and "Traceback" not in err


def test_guard_checks_each_term_of_a_quoted_triple():
    g = Guard()
    assert g.term('<< <http://e/s> <http://e/p> "v"@EN >>', 0).text == '<< <http://e/s> <http://e/p> "v"@en >>'
    assert g.term("<< <http://e/s> <http://e/p> << <http://e/a> <http://e/b> <http://e/c> >> >>", 2).text == \
        "<< <http://e/s> <http://e/p> << <http://e/a> <http://e/b> <http://e/c> >> >>"
    bad = g.term('<< <http://e/s> <http://e/p> "x"^^<http://www.w3.org/2001/XMLSchema#integer> >>', 0)
    assert bad.text is None and "xsd:integer" in bad.reason
