"""``kgc validate`` prints every error with its file, line and column (as ``riot --validate`` does), the
outcome of each check as a word (never "ok" beside a failing value) and the KG's verdict."""
from __future__ import annotations

from pipeline.cli import main

ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Person a owl:Class . ex:age a owl:DatatypeProperty ; rdfs:range xsd:integer .\n")


def test_every_error_is_printed_and_no_ok_beside_false(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "p.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: v\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    kg = tmp_path / "kg.nt"
    xsd = "http://www.w3.org/2001/XMLSchema#"
    kg.write_text(f'<http://example.org/a> <http://example.org/age> "x"^^<{xsd}integer> .\n'
                  f'<http://example.org/a> <http://example.org/age> "7"^^<{xsd}integer> .\n'
                  f'<http://example.org/b> <http://example.org/age> "1.5"^^<{xsd}integer> .\n'
                  f'<http://example.org/c> <http://example.org/age> "2"^^<{xsd}integer> .\n', encoding="utf-8")
    assert main(["validate", str(tmp_path / "case.yaml"), str(kg), "--out", str(tmp_path / "v.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "SV2: fails (2 errors)",
        f"  {kg}:1:49: error: lexical form 'x' not valid for datatype xsd:integer: \"x\"^^<{xsd}integer>",
        f"  {kg}:3:49: error: lexical form '1.5' not valid for datatype xsd:integer: \"1.5\"^^<{xsd}integer>"]
    assert not [line for line in out if "(ok" in line or ": False" in line or ": True" in line]
    assert out[-2].startswith("KG invalid: fails SV2") and out[-1] == f"diagnostics written to {tmp_path / 'v.json'}"
