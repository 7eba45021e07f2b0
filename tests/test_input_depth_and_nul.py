"""Input faults of a kind, not of one file: a NUL byte in a CSV file (the engine's CSV reader cuts
the value there) and JSON/XML/YAML nested deeper than the readers recurse. Each is bad input
(exit 2) naming the file, the line and what was expected, in `run` and `materialize`, never a
silently cut value or a RecursionError traceback.

Cases from ../shared/cases (inputs copied into tests/cases/<id>/): csv-nul-byte-truncates-value,
json-deep-nesting-traceback (its 200 KB input is written by the test, as its make_input.sh does).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.manifest import Source, load_manifest
from pipeline.errors import ManifestError
from pipeline.sources.checks import MAX_DEPTH
from pipeline.sources.load import load_source

CASES = Path(__file__).resolve().parent / "cases"


def _case(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(CASES / name, folder)
    return folder


def _rml(folder: Path, source: str, formulation: str, iterator: str | None = None) -> Path:
    it = f'; rml:iterator "{iterator}"' if iterator else ""
    m = folder / "m.ttl"
    m.write_text(f"""@prefix rml: <http://w3id.org/rml/> .
<#c> rml:logicalSource [ rml:source "{source}"; rml:referenceFormulation rml:{formulation}{it} ];
  rml:subjectMap [ rml:template "http://example.com/{{id}}" ];
  rml:predicateObjectMap [ rml:predicate <http://example.com/name>; rml:objectMap [ rml:reference "name" ] ].
""", encoding="utf-8")
    return m


def test_csv_nul_byte_is_bad_input_in_run_and_materialize(tmp_path, capsys, monkeypatch):
    folder = _case(tmp_path, "csv-nul-byte-truncates-value")
    monkeypatch.chdir(folder)
    assert main(["run", "case.yaml", "--mapper", "replay", "--table", "table.md", "--out", "out", "-q"]) == 2
    assert not (folder / "out" / "custom" / "case" / "kg.nt").exists()
    audit = (folder / "out" / "custom" / "case" / "audit.md").read_text()
    assert "a NUL byte (U+0000) in column 'name' at line 2, character 5" in audit
    capsys.readouterr()
    assert main(["materialize", str(_rml(folder, "p.csv", "CSV")), "o/kg.nt", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: p.csv:2: a NUL byte (U+0000) in column 'name' at line 2, "
                                               "character 5: the engine's CSV reader would cut the value there")
    assert not (folder / "o" / "kg.nt").exists()


def test_nul_in_a_quoted_value_spanning_lines_names_its_record(tmp_path):
    p = tmp_path / "q.csv"
    p.write_bytes(b'id,note,name\n1,"two\nlines",ok\n2,fine,"B\x00o"\n')
    data = load_source(Source(path=p, format="csv"), tmp_path / "inputs")
    errors = [f for f in data.findings if f.severity == "error"]
    assert [(f.line, f.column) for f in errors] == [(4, "name")]
    assert "character 10" in errors[0].message


def test_utf16_without_bom_is_said(tmp_path):
    p = tmp_path / "u.csv"
    p.write_bytes("id,name\n1,Ann\n".encode("utf-16-le"))
    data = load_source(Source(path=p, format="csv"), tmp_path / "inputs")
    (f,) = [f for f in data.findings if f.severity == "error"]
    assert "looks like UTF-16 without a byte-order mark" in f.message and "iconv -f utf-16le" in f.expected


def test_other_control_characters_reach_the_kg_unchanged(tmp_path):
    """Only NUL is cut by a reader: every other C0 control, DEL, NEL and the Unicode separators
    survive CSV and JSON through the engine and the guard (the kind is measured, not assumed)."""
    chars = [c for c in [*range(1, 32), 0x7F, 0x85, 0x2028, 0x2029] if chr(c) not in "\r\n"]
    (tmp_path / "p.csv").write_text("id,name\n" + "".join(f"{c},A{chr(c)}B\n" for c in chars), encoding="utf-8",
                                    newline="")
    (tmp_path / "p.json").write_text(json.dumps([{"id": 0, "name": "A\u0000B"}]), encoding="utf-8")
    rml = _rml(tmp_path, "p.csv", "CSV")
    rml.write_text(rml.read_text() + _rml(tmp_path, "p.json", "JSONPath", "$[*]").read_text()
                   .split("\n", 1)[1].replace("<#c>", "<#j>").replace("example.com/{id}", "example.com/j{id}"),
                   encoding="utf-8")
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt"), "-q"]) == 0
    from rdflib import Graph
    got = {str(s).rsplit("/", 1)[1]: str(o) for s, _, o in Graph().parse(tmp_path / "kg.nt", format="nt")}
    assert got == {**{str(c): f"A{chr(c)}B" for c in chars}, "j0": "A\u0000B"}


def _deep_json(folder: Path, depth: int) -> None:
    # as make_input.sh of the case: one record whose member x holds `depth` nested arrays
    (folder / "p.json").write_text('[{"id":"1","name":"a","x":' + "[" * depth + "]" * depth + "}]", encoding="utf-8")


def test_json_nested_100000_levels_is_bad_input_in_run_and_materialize(tmp_path, capsys, monkeypatch):
    folder = _case(tmp_path, "json-deep-nesting-traceback")
    _deep_json(folder, 100_000)
    monkeypatch.chdir(folder)
    assert main(["run", "case.yaml", "--mapper", "replay", "--table", "table.md", "--out", "out", "-q"]) == 2
    run = json.loads((folder / "out" / "custom" / "case" / "run.json").read_text())
    assert (run["status"], run["failed_stage"], run["error_kind"]) == ("failed", "load", "input")
    capsys.readouterr()
    assert main(["materialize", str(_rml(folder, "p.json", "JSONPath", "$[*]")), "o/kg.nt", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: p.json:1: JSON nested too deeply: more than {MAX_DEPTH} levels of arrays/objects "
                   f"(level {MAX_DEPTH + 1} opens at line 1, column {25 + MAX_DEPTH}) (expected: at most {MAX_DEPTH} "
                   "nested levels; flatten the structure or split the file (kgc's readers and the engine's recurse "
                   "once per level))"]


@pytest.mark.parametrize("depth, bad", [(MAX_DEPTH - 3, False), (MAX_DEPTH, True), (5_000, True)])
def test_json_depth_limit_is_exact_and_strings_do_not_count(tmp_path, depth, bad):
    p = tmp_path / "d.json"
    # brackets inside strings are data; `depth` arrays inside the record (itself at level 2)
    p.write_text('[{"id": "[[[{{", "x": ' + "[" * depth + "]" * depth + "}]", encoding="utf-8")
    data = load_source(Source(path=p, format="json"), tmp_path / "inputs")
    errors = [f for f in data.findings if f.severity == "error"]
    assert bool(errors) == bad
    if bad:
        assert errors[0].column == "nesting" and f"column {21 + MAX_DEPTH}" in errors[0].message


@pytest.mark.parametrize("depth", [1_500, 2_500])
def test_xml_nested_too_deeply_is_bad_input(tmp_path, depth, capsys):
    p = tmp_path / "p.xml"
    p.write_text("<r><p><id>1</id><name>a</name><x>\n" + "<y>" * depth + "1" + "</y>" * depth + "</x></p></r>",
                 encoding="utf-8")
    data = load_source(Source(path=p, format="xml", iterator="/r/p"), tmp_path / "inputs")
    (f,) = [f for f in data.findings if f.severity == "error"]
    assert f.message.startswith(f"XML nested too deeply: more than {MAX_DEPTH} levels of elements")
    assert "XML_PARSE_HUGE" not in f.message  # libxml2's advice is no use to a user
    rml = _rml(tmp_path, "p.xml", "XPath", "/r/p")
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt"), "-q"]) == 2
    assert "XML nested too deeply" in capsys.readouterr().err


def test_xml_as_deep_as_the_limit_is_read(tmp_path):
    p = tmp_path / "p.xml"
    depth = MAX_DEPTH - 5  # r/p/x and the y elements
    p.write_text("<r><p><id>1</id><x>" + "<y>" * depth + "1" + "</y>" * depth + "</x></p></r>", encoding="utf-8")
    data = load_source(Source(path=p, format="xml", iterator="/r/p"), tmp_path / "inputs")
    assert not [f for f in data.findings if f.severity == "error"] and len(data.records) == 1


def test_manifest_nested_too_deeply_is_bad_input(tmp_path):
    m = tmp_path / "case.yaml"
    m.write_text("sources: " + "[" * 5_000 + "]" * 5_000 + "\n", encoding="utf-8")
    with pytest.raises(ManifestError, match="nested too deeply"):
        load_manifest(m)


def test_a_table_or_yarrrml_nested_too_deeply_is_bad_input(tmp_path, capsys):
    folder = _case(tmp_path, "json-deep-nesting-traceback")
    _deep_json(folder, 3)
    (folder / "t.json").write_text("[" * 5_000 + "]" * 5_000, encoding="utf-8")
    (folder / "y.yarrrml").write_text("mappings: " + "[" * 5_000 + "]" * 5_000 + "\n", encoding="utf-8")
    assert main(["compile", str(folder / "case.yaml"), str(folder / "t.json"), str(folder / "m.ttl"), "-q"]) == 2
    assert main(["compile", str(folder / "y.yarrrml"), "-o", str(folder / "m.ttl"), "-q"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: {folder / 't.json'}: invalid JSON: arrays/objects nested too deeply to read",
                   f"error: {folder / 'y.yarrrml'}: not a YARRRML document: collections nested too deeply to read"]
    assert not (folder / "m.ttl").exists()
