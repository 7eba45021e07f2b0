"""RML-IO logical targets through ``kgc materialize``: which statements go where (subject,
predicate, language and graph maps), serializations, compression and encoding of the files."""
from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef

from pipeline.bench.conformance import read_dataset, read_rdf, same_dataset, same_rdf
from pipeline.cli import main
from pipeline.materialize.rdfjson import parse_rdfjson, serialize_rdfjson

FRIENDS = '[{"id": 0, "name": "Monica", "age": 33}, {"id": 1, "name": "Ross", "age": 37}]'
NAME = "<http://xmlns.com/foaf/0.1/name>"
AGE = "<http://xmlns.com/foaf/0.1/age>"
INT = "^^<http://www.w3.org/2001/XMLSchema#integer>"


def _mapping(subject_extra: str = "", name_extra: str = "", age_extra: str = "", targets: str = "") -> str:
    return f"""@prefix rml: <http://w3id.org/rml/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix formats: <http://www.w3.org/ns/formats/> .
@prefix ex: <http://example.org/> .
@base <http://example.com/rules/> .
<#TM> a rml:TriplesMap ;
  rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "friends.json" ] ;
                      rml:referenceFormulation rml:JSONPath ; rml:iterator "$[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/{{$.id}}" {subject_extra} ] ;
  rml:predicateObjectMap [ rml:predicateMap [ rml:constant foaf:name {name_extra} ] ;
                           rml:objectMap [ rml:reference "$.name" ] ] ;
  rml:predicateObjectMap [ rml:predicate foaf:age ; rml:objectMap [ rml:reference "$.age" {age_extra} ] ] .
{targets}
"""


def _target(n: int, path: str, serialization: str = "N-Quads", more: str = "") -> str:
    return f"""<#T{n}> a rml:LogicalTarget ; rml:serialization formats:{serialization} {more} ;
  rml:target [ a rml:FilePath ; rml:root rml:CurrentWorkingDirectory ; rml:path "{path}" ] ."""


def _run(tmp_path: Path, mapping: str, monkeypatch, capsys) -> tuple[int, str, str]:
    (tmp_path / "friends.json").write_text(FRIENDS, encoding="utf-8")
    (tmp_path / "mapping.ttl").write_text(mapping, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out" / "kg.nq"
    rc = main(["materialize", "mapping.ttl", str(out), "--format", "nq"])
    captured = capsys.readouterr()
    _run.stdout = captured.out
    return rc, captured.err, out.read_text(encoding="utf-8") if out.is_file() else ""


def _names(*ids: int) -> str:
    return "".join(f'<http://example.org/{i}> {NAME} "{n}" .\n' for i, n in ((0, "Monica"), (1, "Ross")) if i in ids)


def _ages(*ids: int) -> str:
    return "".join(f'<http://example.org/{i}> {AGE} "{a}"{INT} .\n' for i, a in ((0, 33), (1, 37)) if i in ids)


def test_predicate_map_target_takes_its_statements_the_rest_goes_to_the_output(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, _mapping(name_extra="; rml:logicalTarget <#T1>", targets=_target(1, "names.nq")),
                        monkeypatch, capsys)
    assert rc == 0, err
    assert same_dataset(out, _ages(0, 1)) == (True, "")
    assert same_dataset((tmp_path / "names.nq").read_text(encoding="utf-8"), _names(0, 1)) == (True, "")
    assert "2 statements written to logical target <http://example.com/rules/#T1>: " in _run.stdout


def test_subject_and_predicate_targets_together(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, _mapping(subject_extra="; rml:logicalTarget <#T1>",
                                           name_extra="; rml:logicalTarget <#T2>",
                                           targets=_target(1, "all.nq") + "\n" + _target(2, "names.nq")),
                        monkeypatch, capsys)
    assert rc == 0, err
    assert out == ""  # every statement has a target
    assert same_dataset((tmp_path / "all.nq").read_text(encoding="utf-8"), _names(0, 1) + _ages(0, 1)) == (True, "")
    assert same_dataset((tmp_path / "names.nq").read_text(encoding="utf-8"), _names(0, 1)) == (True, "")


def test_each_graph_map_sends_its_own_statements(tmp_path, monkeypatch, capsys):
    mapping = _mapping(subject_extra="; rml:graphMap [ rml:constant ex:G1 ; rml:logicalTarget <#T1> ]",
                       targets=_target(1, "g1.nq") + "\n" + _target(2, "g2.nq"))
    mapping = mapping.replace('rml:objectMap [ rml:reference "$.name" ] ]',
                              'rml:objectMap [ rml:reference "$.name" ] ; '
                              'rml:graphMap [ rml:constant ex:G2 ; rml:logicalTarget <#T2> ] ]')
    rc, err, out = _run(tmp_path, mapping, monkeypatch, capsys)
    assert rc == 0, err
    g1 = "".join(line.replace(" .", " <http://example.org/G1> .") for line in (_names(0, 1) + _ages(0, 1)).splitlines(True))
    g2 = "".join(line.replace(" .", " <http://example.org/G2> .") for line in _names(0, 1).splitlines(True))
    assert same_dataset((tmp_path / "g1.nq").read_text(encoding="utf-8"), g1) == (True, "")
    assert same_dataset((tmp_path / "g2.nq").read_text(encoding="utf-8"), g2) == (True, "")
    assert out == ""


SERIALIZED = [("Turtle", "d.ttl", ""), ("JSON-LD", "d.jsonld", ""), ("RDF_XML", "d.rdf", ""), ("N3", "d.n3", ""),
              ("RDF_JSON", "d.rdfjson", ""), ("N-Triples", "d.nt", ""), ("N-Quads", "d.nq.gz", "; rml:compression rml:gzip"),
              ("N-Quads", "d.nq.zip", "; rml:compression rml:zip"), ("N-Quads", "d.nq.tar.gz", "; rml:compression rml:targz"),
              ("N-Quads", "d.nq.tar.xz", "; rml:compression rml:tarxz"), ("N-Quads", "d16.nq", "; rml:encoding rml:UTF-16")]


def read_rdf_text(g: Graph):
    return read_dataset("".join(f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in g))


def test_serializations_compressions_and_encodings(tmp_path, monkeypatch, capsys):
    # one subject map with a target per serialization: every statement goes to every file
    targets = "\n".join(_target(n, path, ser, more) for n, (ser, path, more) in enumerate(SERIALIZED, 1))
    links = "".join(f"; rml:logicalTarget <#T{n}> " for n in range(1, len(SERIALIZED) + 1))
    rc, err, out = _run(tmp_path, _mapping(subject_extra=links, targets=targets), monkeypatch, capsys)
    assert rc == 0, err
    assert out == ""
    expected = read_rdf_text(Graph().parse(data=_names(0, 1) + _ages(0, 1), format="nt"))
    for _, path, _ in SERIALIZED:
        assert same_rdf(read_rdf(tmp_path / path), expected) == (True, ""), path
    assert gzip.decompress((tmp_path / "d.nq.gz").read_bytes()).decode("utf-8").count("\n") == 4
    assert zipfile.ZipFile(tmp_path / "d.nq.zip").namelist() == ["d.nq"]
    assert (tmp_path / "d16.nq").read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    assert _run.stdout.count("statements written to logical target") == len(SERIALIZED)


def test_an_unknown_serialization_is_refused(tmp_path, monkeypatch, capsys):
    rc, err, _ = _run(tmp_path, _mapping(subject_extra="; rml:logicalTarget <#T1>",
                                         targets=_target(1, "d.x", "Excel")), monkeypatch, capsys)
    assert rc == 2
    assert "serialization" in err and "formats:Excel" not in err and "Traceback" not in err


def test_rdfjson_round_trip():
    triples = [(URIRef("http://e/s"), URIRef("http://e/p"), Literal("v", lang="en")),
               (URIRef("http://e/s"), URIRef("http://e/p"), Literal("5", datatype=URIRef("http://e/dt"))),
               (URIRef("http://e/s"), URIRef("http://e/q"), URIRef("http://e/o"))]
    text = serialize_rdfjson(triples)
    assert json.loads(text)["http://e/s"]["http://e/q"] == [{"type": "uri", "value": "http://e/o"}]
    assert sorted(parse_rdfjson(text)) == sorted(triples)
    # a JSON number as value (not RDF/JSON, met in the wild) is read as JSON-LD reads it
    assert parse_rdfjson('{"http://e/s": {"http://e/p": [{"type": "literal", "value": 33}]}}')[0][2] == \
        Literal("33", datatype=URIRef("http://www.w3.org/2001/XMLSchema#integer"))
