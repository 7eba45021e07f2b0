"""The guard of the materialize stage: each distinct term checked, invalid ones dropped and
counted, literals escaped, and no "None" language tag from a missing value."""
from __future__ import annotations

from rdflib import Graph, Literal

from pipeline.cli import main


def test_function_literal_values_round_trip_through_the_serializer():
    from pipeline.materialize.materializer import guard_triples

    # what the corrected engine writes for a function output holding \ " newline and a \u sequence
    line = '<http://e.org/s> <http://e.org/p> "a\\\\b \\"q\\" \\n caf\\\\u00e9"'
    result = guard_triples({line})
    g = Graph().parse(data="\n".join(result.triples), format="nt")
    assert [str(o) for o in g.objects()] == ['a\\b "q" \n caf\\u00e9']
    assert Literal('a\\b "q" \n caf\\u00e9') in set(g.objects())


def test_guard_checks_each_distinct_term_and_writes_parsed_terms():
    from pipeline.materialize.materializer import guard_triples

    xsd = "http://www.w3.org/2001/XMLSchema#"
    lines = {f'<http://e.org/a> <http://e.org/n> "3.7"^^<{xsd}integer> ',      # no integer: dropped
             f'<http://e.org/b> <http://e.org/n> " 42 "^^<{xsd}integer> ',     # padded: repaired
             f'<http://e.org/c> <http://e.org/n> "12345678901234567890"^^<{xsd}integer> ',
             '<http://e.org/d> <http://e.org/l> "x"@not_a_tag ',               # not BCP 47: dropped
             '<rel/e> <http://e.org/l> "y" ',                                   # relative IRI: dropped
             '<http://e.org/f> <http://e.org/l> "z" <http://e.org/g>'}          # named graph
    r = guard_triples(lines)
    assert r.triples == [f'<http://e.org/b> <http://e.org/n> "42"^^<{xsd}integer> .',
                         f'<http://e.org/c> <http://e.org/n> "12345678901234567890"^^<{xsd}integer> .']
    assert r.quads == ['<http://e.org/f> <http://e.org/l> "z" <http://e.org/g> .']
    assert r.dropped == 3
    # the tag with '_' and the relative IRI do not even parse; the guard reports each statement
    assert sorted(f.message for f in r.findings if f.severity == "error") == [
        "1 triple(s) dropped: not a valid N-Triples statement", "1 triple(s) dropped: relative or illegal IRI",
        "1 triple(s) dropped: xsd:integer value that is no integer"]
    assert [f.severity for f in r.findings if "white space" in f.message] == ["warning"]


def test_materialize_never_writes_a_none_language_tag(tmp_path, capsys):
    """An XML language attribute the reference misses (``@lang`` for ``xml:lang``) gives "None" per record."""
    (tmp_path / "works.xml").write_text(
        '<works><work id="A1"><title xml:lang="en">Starry Night</title></work></works>\n', encoding="utf-8")
    rml = tmp_path / "m.ttl"
    rml.write_text(f"""@prefix rml: <http://w3id.org/rml/> .
<#TM> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "{tmp_path / 'works.xml'}" ; rml:referenceFormulation rml:XPath ;
                      rml:iterator "/works/work" ] ;
  rml:subjectMap [ rml:template "http://ex.org/work/{{@id}}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://ex.org/title> ;
    rml:objectMap [ rml:reference "title" ; rml:languageMap [ rml:reference "title/@lang" ] ] ] .
""", encoding="utf-8")
    # the engine's missing value never becomes a "None" tag: no literal for the record, said on stderr
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt")]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == ""
    err = capsys.readouterr().err
    assert "1 record(s) have no value for 'title/@lang' (empty or missing): no term made from them" in err
    assert "yields no triple" in err
