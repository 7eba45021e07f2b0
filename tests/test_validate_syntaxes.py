"""`kgc validate` reads a KG in any RDF syntax by extension: N-Triples as before, the others
through an N-Triples copy of the checker's own (deleted after), SV2's findings located in the
user's file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main

from helpers import books_case

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = str(ROOT / "data" / "example" / "example.yaml")
TTL = ('@prefix ex: <http://example.org/ontology#> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n'
       '<http://example.org/person/p1> a ex:Person ;\n  ex:name "Ana Ruiz" ;\n  ex:birthDate "1990-04-12"^^xsd:date .\n')
JSONLD = json.dumps([{"@id": "http://example.org/person/p1", "@type": ["http://example.org/ontology#Person"],
                      "http://example.org/ontology#name": [{"@value": "Ana Ruiz"}]}])


def _validate(tmp_path: Path, name: str, text: str, capsys) -> tuple[int, list[str], dict]:
    kg = tmp_path / name
    kg.write_text(text, encoding="utf-8")
    code = main(["-q", "validate", MANIFEST, str(kg), "--out", str(tmp_path / "v" / "validation.json")])
    out = capsys.readouterr().out.splitlines()
    return code, out, json.loads((tmp_path / "v" / "validation.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name, text, syntax, reader", [
    ("kg.ttl", TTL, "Turtle", "by pyoxigraph, which checks its syntax, IRIs and language tags: SV2 adds the "
                              "literal lexical forms"),
    ("kg.jsonld", JSONLD, "JSON-LD", "by rdflib, which checks no IRI or language tag: SV2 checks them")])
def test_other_syntaxes_are_read_and_checked_on_an_ntriples_copy(tmp_path, capsys, name, text, syntax, reader):
    code, out, result = _validate(tmp_path, name, text, capsys)
    assert out[0] == (f"note: {name} was read as {syntax} {reader}; SV2 positions are those of each offending "
                      f"term's first occurrence in {name}")
    assert (code, result["SV2"]["value"], result["SV2"]["details"]["read_as"]) == (0, True, syntax)
    assert "checked_copy" not in result["SV2"]["details"]
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["validation.json"]  # no copy left beside --out


def test_turtle_literal_error_is_located_in_the_users_file(tmp_path, capsys):
    code, out, result = _validate(tmp_path, "kg.ttl", TTL.replace('"1990-04-12"', '"12/04/1990"'), capsys)
    kg = tmp_path / "kg.ttl"
    first = result["SV2"]["findings"][0]
    # line 5, column 16: where '"12/04/1990"^^xsd:date' is written in kg.ttl
    assert (code, result["SV2"]["value"], first["location"], first["line"], first["column"]) == \
        (1, False, str(kg), 5, 16)
    assert f"  {kg}:5:16: error: lexical form '12/04/1990' not valid for datatype xsd:date: {first['term']}" in out


def test_turtle_syntax_error_is_sv2_fatal_with_the_line(tmp_path, capsys):
    code, out, result = _validate(tmp_path, "kg.ttl", TTL.replace('"Ana Ruiz" ;', '"Ana Ruiz"'), capsys)
    kg = tmp_path / "kg.ttl"
    assert (code, result["SV2"]["value"], result["SV2"]["details"]["N_fatal"]) == (1, False, 1)
    assert f"  {kg}:5: fatal: not valid Turtle: unexpected character 'e' (column 3)" in out
    assert {r["status"] for n, r in result.items() if n != "SV2"} == {"not_run"}


def test_unknown_extension_is_bad_input(tmp_path, capsys):
    kg = tmp_path / "kg.txt"
    kg.write_text(TTL, encoding="utf-8")
    assert main(["-q", "validate", MANIFEST, str(kg), "--out", str(tmp_path / "v.json")]) == 2
    assert capsys.readouterr().err.strip() == (f"error: {kg}: unknown RDF syntax for extension '.txt'; expected .nt, "
                                               ".ttl, .nq, .trig, .rdf/.owl/.xml, .jsonld/.json or .n3")


def test_an_empty_kg_passes_with_a_warning(tmp_path, capsys):
    kg = tmp_path / "empty.nt"
    kg.write_text("", encoding="utf-8")
    code = main(["-q", "validate", MANIFEST, str(kg), "--out", str(tmp_path / "v" / "validation.json")])
    assert code == 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f"warning: {kg} holds no triple: every check passes vacuously"


def test_validate_runs_every_check_on_ntriples_with_a_byte_order_mark(tmp_path, capsys):
    # SV2 accepts a byte order mark and rdflib does not: the KG is read without it, so CS2 and SHACL run too
    books_case(tmp_path, "")
    (tmp_path / "kg.nt").write_bytes(b'\xef\xbb\xbf<http://example.org/b/1> <http://example.org/title> "Dune" .\n')
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"), "--out", str(tmp_path / "v.json")]) == 0
    result = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert {k: (v["value"], v["status"]) for k, v in result.items() if k != "CS2-hermit"} == {
        "SV2": (True, "ok"), "vocabulary": (True, "ok"), "CS2-owlrl": (True, "ok"), "SHACL": (True, "ok")}
    assert result["SHACL"]["details"]["coverage"] == {"mode": "full", "triples": [1, 1]}


def test_validate_prints_the_first_syntax_finding_and_why_the_rest_did_not_run(tmp_path, capsys):
    onto = tmp_path / "onto.ttl"
    onto.write_text("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                    "ex:Person a owl:Class .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text("id\n1\n", encoding="utf-8")
    case = tmp_path / "case.yaml"
    case.write_text("name: v\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    kg = tmp_path / "kg.nt"  # Turtle in a .nt file: read as N-Triples, as its extension says
    kg.write_text("@prefix ex: <http://example.org/> .\nex:a a ex:Person .\n", encoding="utf-8")
    assert main(["validate", str(case), str(kg), "--out", str(tmp_path / "v.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["SV2: fails (2 fatals)",
                       f"  {kg}:1:1: fatal: expected an IRI or blank node as subject, found '@'",
                       f"  {kg}:2:1: fatal: expected an IRI or blank node as subject, found 'e'"]
    assert "SHACL: not run: the KG does not parse (see SV2)" in out


def test_the_turtle_copy_keeps_the_documents_blank_node_labels_and_names_anonymous_ones_stably(tmp_path):
    from rdflib import BNode

    from pipeline.rdffile import ntriples_copy
    from pipeline.run.evaluate import _parse_nt, source_position

    ttl = ('@prefix ex: <http://e.org/> .\n'
           '[] ex:p "_:notanode # nor a comment" ; ex:q [ ex:r ( 1 ) ] .\n'
           '_:anon1 ex:p <http://e.org/_:y> .  # _:inacomment\n'
           '_:b.c ex:p """long\n_:z""" , _:b.c .\n')
    (tmp_path / "k.ttl").write_text(ttl, encoding="utf-8")
    for _ in range(2):  # the same names on every run
        assert ntriples_copy(tmp_path / "k.ttl", tmp_path / "k.nt") == "Turtle"
        nt = (tmp_path / "k.nt").read_text(encoding="utf-8")
        assert sorted(nt.splitlines()) == sorted([
            '_:anon2 <http://e.org/p> "_:notanode # nor a comment" .',
            '_:anon2 <http://e.org/q> _:anon3 .',
            '_:anon3 <http://e.org/r> _:anon4 .',
            '_:anon4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
            '_:anon4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .',
            '_:anon1 <http://e.org/p> <http://e.org/_:y> .',
            '_:b.c <http://e.org/p> "long\\n_:z" .',
            '_:b.c <http://e.org/p> _:b.c .'])
    g = _parse_nt(tmp_path / "k.nt")
    assert {str(s) for s in g.subjects() if isinstance(s, BNode)} == {"anon1", "anon2", "anon3", "anon4", "b.c"}
    lines = ttl.splitlines()
    at = source_position({"term": "_:b.c", "line": 1}, tmp_path / "k.ttl", lines)
    assert (at["line"], at["column"]) == (4, 1)
    assert source_position({"term": "_:anon2", "line": 1}, tmp_path / "k.ttl", lines)["line"] is None
