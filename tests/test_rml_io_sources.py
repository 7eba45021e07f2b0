"""RML-IO sources through ``kgc materialize``: compressed and encoded files, null values, invalid
CSV, SPARQL results, XPath and JSONPath the engine cannot evaluate, sources kgc refuses.

Small hand-made inputs; each expected output is written out and compared as an RDF dataset."""
from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.cli import main

PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/> .
@prefix formats: <http://www.w3.org/ns/formats/> .
@prefix d2rq: <http://www.wiwiss.fu-berlin.de/suhl/bizer/D2RQ/0.1#> .
"""
FRIENDS = '[{"id": 0, "name": "Zoë"}, {"id": 1, "name": "Ross"}]'
EXPECTED_FRIENDS = ('<http://example.org/p/0> <http://example.org/name> "Zoë" .\n'
                    '<http://example.org/p/1> <http://example.org/name> "Ross" .\n')


def _json_map(source: str) -> str:
    return PREFIXES + f"""
<#TM> rml:logicalSource [ rml:source {source} ; rml:referenceFormulation rml:JSONPath ; rml:iterator "$[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{$.id}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "$.name" ] ] .
"""


def _run(tmp_path: Path, mapping: str, files: dict[str, bytes | str], monkeypatch, capsys) -> tuple[int, str, str]:
    work = tmp_path / "work"
    work.mkdir()
    for name, content in files.items():
        (work / name).write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    (work / "mapping.ttl").write_text(mapping, encoding="utf-8")
    monkeypatch.chdir(work)
    out = tmp_path / "out" / "kg.nq"
    rc = main(["materialize", "mapping.ttl", str(out), "--format", "nq"])
    err = capsys.readouterr().err
    return rc, err, out.read_text(encoding="utf-8") if out.is_file() else ""


def _tar(name: str, data: bytes, mode: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize("compression,file_name,content", [
    ("gzip", "friends.json.gz", gzip.compress(FRIENDS.encode("utf-8"))),
    ("zip", "friends.json.zip", _zip("friends.json", FRIENDS.encode("utf-8"))),
    ("targz", "friends.json.tar.gz", _tar("friends.json", FRIENDS.encode("utf-8"), "w:gz")),
    ("tarxz", "friends.json.tar.xz", _tar("friends.json", FRIENDS.encode("utf-8"), "w:xz")),
], ids=["gzip", "zip", "targz", "tarxz"])
def test_compressed_sources_are_read_through_a_decoded_copy(tmp_path, monkeypatch, capsys, compression, file_name,
                                                            content):
    source = f'[ a rml:RelativePathSource ; rml:root rml:MappingDirectory ; rml:path "{file_name}" ; ' \
             f'rml:compression rml:{compression} ]'
    rc, err, out = _run(tmp_path, _json_map(source), {file_name: content}, monkeypatch, capsys)
    assert rc == 0, err
    assert same_dataset(out, EXPECTED_FRIENDS) == (True, "")
    assert "the engine reads a decoded UTF-8 copy" in err


def test_utf16_source(tmp_path, monkeypatch, capsys):
    source = '[ a rml:RelativePathSource ; rml:path "friends.json" ; rml:encoding rml:UTF-16 ]'
    rc, err, out = _run(tmp_path, _json_map(source), {"friends.json": FRIENDS.encode("utf-16")}, monkeypatch, capsys)
    assert rc == 0, err
    assert same_dataset(out, EXPECTED_FRIENDS) == (True, "")


def test_a_corrupt_compressed_source_is_refused_naming_the_triples_map(tmp_path, monkeypatch, capsys):
    source = '[ a rml:RelativePathSource ; rml:path "friends.json.gz" ; rml:compression rml:gzip ]'
    rc, err, _ = _run(tmp_path, _json_map(source), {"friends.json.gz": b"not gzip"}, monkeypatch, capsys)
    assert rc == 2
    assert "TriplesMap" in err and "not a gzip file" in err and "Traceback" not in err


NULL_CSV = "id,name,age\n0,Monica,33\n1,,NULL\n"


def _csv_map(nulls: str) -> str:
    return PREFIXES + f"""
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "f.csv" {nulls} ] ;
                          rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{id}}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:age ; rml:objectMap [ rml:reference "age" ] ] .
"""


@pytest.mark.parametrize("nulls,expected", [
    ("", '<http://example.org/p/1> <http://example.org/name> "" .\n'
         '<http://example.org/p/1> <http://example.org/age> "NULL" .\n'),  # RML-IO CSV: no default null value
    ('; rml:null ""', '<http://example.org/p/1> <http://example.org/age> "NULL" .\n'),
    ('; rml:null "" ; rml:null "NULL"', ""),
], ids=["no-null-declared", "empty-string-null", "two-nulls"])
def test_rml_io_csv_null_values(tmp_path, monkeypatch, capsys, nulls, expected):
    rc, err, out = _run(tmp_path, _csv_map(nulls), {"f.csv": NULL_CSV}, monkeypatch, capsys)
    assert rc == 0, err
    base = ('<http://example.org/p/0> <http://example.org/name> "Monica" .\n'
            '<http://example.org/p/0> <http://example.org/age> "33" .\n')
    assert same_dataset(out, base + expected) == (True, "")


def test_legacy_literal_csv_source_reads_an_empty_cell_as_null(tmp_path, monkeypatch, capsys):
    mapping = _csv_map("").replace('[ a rml:RelativePathSource ; rml:path "f.csv"  ]', '"f.csv"')
    rc, err, out = _run(tmp_path, mapping, {"f.csv": NULL_CSV}, monkeypatch, capsys)
    assert rc == 0, err
    assert '<http://example.org/p/1> <http://example.org/name>' not in out


@pytest.mark.parametrize("csv_text,line", [("id,name,age\n0,Phoebe Buffay 37\n", 2), ("id,name\n0,a\n1,b,c\n", 3)])
def test_invalid_rml_io_csv_is_refused_with_the_record(tmp_path, monkeypatch, capsys, csv_text, line):
    rc, err, _ = _run(tmp_path, _csv_map(""), {"f.csv": csv_text}, monkeypatch, capsys)
    assert rc == 2
    assert f"record {line} has" in err and "RFC 4180" in err and "Traceback" not in err


def test_database_source_is_refused_by_name(tmp_path, monkeypatch, capsys):
    mapping = PREFIXES + """
<#DB> a rml:Source, d2rq:Database ; d2rq:jdbcDSN "jdbc:mysql://localhost/db" .
<#TM> rml:logicalSource [ rml:source <#DB> ; rml:referenceFormulation rml:SQL2008Table ; rml:iterator "Friends" ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] .
"""
    rc, err, _ = _run(tmp_path, mapping, {}, monkeypatch, capsys)
    assert rc == 2
    assert "TriplesMap" in err and "D2RQ database" in err and "reads files only" in err


def test_sparql_results_over_an_rdf_file(tmp_path, monkeypatch, capsys):
    data = ('<http://example.org/p/0> <http://xmlns.com/foaf/0.1/name> "Monica" .\n'
            '<http://example.org/p/0> <http://xmlns.com/foaf/0.1/age> "33"^^<http://www.w3.org/2001/XMLSchema#integer> .\n')
    mapping = PREFIXES + '''
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "friends.nt" ] ;
    rml:iterator """SELECT ?person ?age WHERE { ?person <http://xmlns.com/foaf/0.1/age> ?age }""" ;
    rml:referenceFormulation formats:SPARQL_Results_CSV ] ;
  rml:subjectMap [ rml:reference "person" ] ;
  rml:predicateObjectMap [ rml:predicate ex:age ; rml:objectMap [ rml:reference "age" ] ] .
'''
    rc, err, out = _run(tmp_path, mapping, {"friends.nt": data}, monkeypatch, capsys)
    assert rc == 0, err
    # the CSV results format carries no datatype: a plain literal
    assert same_dataset(out, '<http://example.org/p/0> <http://example.org/age> "33" .\n') == (True, "")


COMPANIES_XML = """<companies xmlns:x="http://example.org/x">
  <company id="c1"><x:name>ACME</x:name><departments><department><name>R&amp;D</name></department>
  <department><name>Sales</name></department></departments></company>
</companies>"""


def test_xpath_beyond_elementtree_paths_and_declared_namespaces(tmp_path, monkeypatch, capsys):
    mapping = PREFIXES + """
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "c.xml" ] ;
    rml:referenceFormulation [ a rml:XPathReferenceFormulation ;
        rml:namespace [ rml:namespacePrefix "x" ; rml:namespaceURL "http://example.org/x" ] ] ;
    rml:iterator "/companies/company/departments/department" ] ;
  rml:subjectMap [ rml:template "http://example.org/c/{../../@id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:department ; rml:objectMap [ rml:reference "name/text()" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:company ; rml:objectMap [ rml:reference "../../x:name" ] ] .
"""
    rc, err, out = _run(tmp_path, mapping, {"c.xml": COMPANIES_XML}, monkeypatch, capsys)
    assert rc == 0, err
    assert same_dataset(out, '<http://example.org/c/c1> <http://example.org/department> "R&D" .\n'
                             '<http://example.org/c/c1> <http://example.org/department> "Sales" .\n'
                             '<http://example.org/c/c1> <http://example.org/company> "ACME" .\n') == (True, "")
    assert "the engine reads the derived source" in err


def test_jsonpath_references_into_arrays(tmp_path, monkeypatch, capsys):
    data = '{"companies": [{"name": "ACME", "departments": [{"name": "R&D", "staff": [{"n": "Ann"}, {"n": "Bo"}]}, ' \
           '{"name": "Sales"}], "tags": ["a", "b"]}]}'
    mapping = PREFIXES + """
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "c.json" ] ;
    rml:referenceFormulation rml:JSONPath ; rml:iterator "$.companies[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/c/{$.name}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:department ; rml:objectMap [ rml:reference "$.departments[*].name" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:staff ; rml:objectMap [ rml:reference "$.departments[*].staff[*].n" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:tag ; rml:objectMap [ rml:template "http://example.org/t/{$.tags[*]}" ] ] .
"""
    rc, err, out = _run(tmp_path, mapping, {"c.json": data}, monkeypatch, capsys)
    assert rc == 0, err
    s = "<http://example.org/c/ACME>"
    assert same_dataset(out, f'{s} <http://example.org/department> "R&D" .\n{s} <http://example.org/department> "Sales" .\n'
                             f'{s} <http://example.org/staff> "Ann" .\n{s} <http://example.org/staff> "Bo" .\n'
                             f'{s} <http://example.org/tag> <http://example.org/t/a> .\n'
                             f'{s} <http://example.org/tag> <http://example.org/t/b> .\n') == (True, "")
