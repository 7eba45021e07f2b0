"""Source files that cannot be mapped fail at load (exit 2) in `map`, `run` and `materialize`,
naming the file, the line and what was expected (inputs: tests/cases/bad-sources/)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.manifest import Source
from pipeline.sources.load import load_source

CASES = Path(__file__).resolve().parent / "cases" / "bad-sources"

# file -> (line, message part, expected part)
BAD = {
    "unclosed-quote.csv": (2, "unclosed quote: the quoted field opened at line 2, column 4 runs to the end of the file",
                           'a closing "; a quote inside a quoted field is written ""'),
    "latin1.csv": (2, "not UTF-8: byte(s) e9 at line 2, column 8 (byte offset 15, 'é' in Windows-1252)",
                   "UTF-8 text; convert a Windows-1252 (or Latin-1) file with iconv -f cp1252 -t utf-8"),
    "scalar.json": (1, "the top level is a number", "an object or an array of objects, the records"),
    "external-entity.xml": (3, "the entity &secret; is external (SYSTEM 'file:///etc/hostname'): kgc never resolves "
                               "external entities (security: XXE) and the engine cannot read them",
                            "entities declared in the document itself, no SYSTEM or PUBLIC entity"),
}
# no records: bad input for a mapper, an empty source for an RML mapping (W3C RMLTC0000)
EMPTY = {
    "header-only.csv": (2, "CSV file has a header but no records: nothing to map", "at least one record below the header"),
    "empty-array.json": (1, "the top level is an empty array: no records; nothing to map",
                         "an object or an array of objects, the records"),
}


def _manifest(tmp_path: Path, name: str) -> Path:
    m = tmp_path / "case.yaml"
    m.write_text(f"name: bad\nscenario: bad\nbase_iri: http://example.org/\nsources: [{CASES / name}]\n"
                 f"ontologies: [{CASES / 'onto.ttl'}]\nprefixes: {{ex: 'http://example.org/ontology#'}}\n",
                 encoding="utf-8")
    return m


def _rml(tmp_path: Path, name: str) -> Path:
    fmt = Path(name).suffix[1:]
    formulation, iterator, ref = {"csv": ("CSV", None, "name"), "json": ("JSONPath", "$[*]", "name"),
                                  "xml": ("XPath", "/people/person", "name")}[fmt]
    it = f'rml:iterator "{iterator}" ; ' if iterator else ""
    rml = tmp_path / "m.rml.ttl"
    rml.write_text(f"""@prefix rml: <http://w3id.org/rml/> .
<#TM> rml:logicalSource [ rml:source "{CASES / name}" ; rml:referenceFormulation rml:{formulation} ; {it}] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{{ref}}}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/ontology#name> ; rml:objectMap [ rml:reference "{ref}" ] ] .
""", encoding="utf-8")
    return rml


@pytest.mark.parametrize("name", [*BAD, *EMPTY])
def test_load_source_names_file_line_and_expected(name):
    line, message, expected = {**BAD, **EMPTY}[name]
    src = Source(path=CASES / name, format=Path(name).suffix[1:])
    severity = "warning" if name in EMPTY else "error"   # an empty source alone is no error (see below)
    found = [f for f in load_source(src).findings if f.severity == severity and f.stage == "source"]
    assert [(f.stage, f.file, f.line) for f in found] == [("source", str(CASES / name), line)]
    assert found[0].message.startswith(message) and found[0].expected.startswith(expected)


@pytest.mark.parametrize("name", [*EMPTY])
def test_an_empty_source_next_to_one_with_records_is_a_warning_and_the_run_goes_on(tmp_path, name):
    good = tmp_path / "people.csv"
    good.write_text("name\nAda\n", encoding="utf-8")
    manifest = tmp_path / "case.yaml"
    manifest.write_text(f"name: half\nscenario: half\nbase_iri: http://example.org/\n"
                        f"sources: [{good}, {CASES / name}]\nontologies: [{CASES / 'onto.ttl'}]\n"
                        "prefixes: {ex: 'http://example.org/ontology#'}\n", encoding="utf-8")
    assert main(["-q", "run", str(manifest), "--out", str(tmp_path / "out"), "--no-evaluate"]) == 0
    audit = (tmp_path / "out" / "half" / "half" / "audit.md").read_text(encoding="utf-8")
    assert EMPTY[name][1] in audit


@pytest.mark.parametrize("command", ["map", "run", "compile", "score"])
@pytest.mark.parametrize("name", [*BAD, *EMPTY])
def test_map_run_compile_score_stop_at_load_with_exit_2(tmp_path, capsys, command, name):
    line, message, expected = {**BAD, **EMPTY}[name]
    table = tmp_path / "table.md"
    table.write_text("| Data Reference | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|\n"
                     "| name | ex:name | ex:Person | http://example.org/p/{id} |\n", encoding="utf-8")
    manifest = str(_manifest(tmp_path, name))
    args = {"map": [manifest, str(tmp_path / "t.md")],
            "run": [manifest, "--out", str(tmp_path / "out"), "--no-evaluate"],
            "compile": [manifest, str(table), str(tmp_path / "m.rml.ttl")],
            "score": [manifest, "--table", str(table), "--out", str(tmp_path / "s")]}[command]
    if command == "score":  # scoring needs a gold table
        Path(manifest).write_text(Path(manifest).read_text(encoding="utf-8") + f"gold: {{table: {table}}}\n",
                                  encoding="utf-8")
    assert main(["-q", command, *args]) == 2
    out = capsys.readouterr()
    text = out.out if command == "run" else out.err
    assert f"{CASES / name}:{line}: {message}" in text and f"(expected: {expected}" in text
    if command == "run":
        assert "FAILED at load" in text and not (tmp_path / "out" / "bad" / "bad" / "mapping.rml.ttl").exists()


@pytest.mark.parametrize("name", list(BAD))
def test_materialize_names_the_source_not_the_engine_copy(tmp_path, capsys, name):
    line, message, expected = BAD[name]
    assert main(["-q", "materialize", str(_rml(tmp_path, name)), str(tmp_path / "kg.nt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {CASES / name}:{line}: " + err.split(f"{CASES / name}:{line}: ", 1)[1]
    assert message in err and f"(expected: {expected}" in err and "morph-kgc" not in err.lower()


@pytest.mark.parametrize("name", list(EMPTY))
def test_materialize_reads_a_source_without_records_as_empty(tmp_path, capsys, name):
    assert main(["-q", "materialize", str(_rml(tmp_path, name)), str(tmp_path / "kg.nt")]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == ""


def test_internal_entity_is_expanded_as_the_engine_does(tmp_path):
    data = load_source(Source(path=CASES / "internal-entity.xml", format="xml"), tmp_path)
    assert [f for f in data.findings if f.severity == "error"] == []
    assert data.values("name") == ["Ana Ruiz"]
    assert main(["-q", "materialize", str(_rml(tmp_path, "internal-entity.xml")), str(tmp_path / "kg.nt")]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == \
        '<http://example.org/p/Ana%20Ruiz> <http://example.org/ontology#name> "Ana Ruiz" .\n'


def test_doubled_and_stray_quotes_are_data_not_an_unclosed_quote():
    data = load_source(Source(path=CASES / "stray-quote.csv", format="csv"))
    assert data.findings == []
    assert data.values("name") == ['Ana "the" Ruiz', 'Bo"s']


def test_engine_error_names_the_users_mapping_not_the_engine_copy(tmp_path, capsys):
    rml = tmp_path / "mine.rml.ttl"
    rml.write_text(f"""@prefix rml: <http://w3id.org/rml/> .
<#TM> rml:logicalSource [ rml:source "{CASES / 'stray-quote.csv'}" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{id}}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/name> ; rml:objectMap [ rml:reference "nope" ] ] .
""", encoding="utf-8")
    assert main(["-q", "materialize", str(rml), str(tmp_path / "out" / "kg.nt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {rml}:2: TriplesMap <#TM>, ") and "object map rml:reference 'nope': 'nope' is not a column of " \
        "stray-quote.csv (its columns: id, name)" in err
    # the engine copy was temporary, and bad input leaves not even the output's folder
    assert "engine ran the copy" not in err and not (tmp_path / "out").exists()


def test_on_user_file_keeps_the_class_and_drops_the_copys_line():
    from pipeline.errors import RMLError, on_user_file

    exc = on_user_file(RMLError("TriplesMap <#TM>: boom", path="cn4/mapping.cn4.ttl", line=7), "mapping.rml.ttl")
    assert isinstance(exc, RMLError) and exc.line is None
    assert str(exc) == "mapping.rml.ttl: TriplesMap <#TM>: boom (the engine ran the copy cn4/mapping.cn4.ttl)"


def test_gold_table_without_a_required_column_stops_the_run_at_load(tmp_path, capsys):
    root = Path(__file__).resolve().parent.parent
    gold = tmp_path / "gold.md"
    gold.write_text((root / "mappings" / "example_table.md").read_text(encoding="utf-8")
                    .replace("Ontology Property", "Foo Bar"), encoding="utf-8")
    m = tmp_path / "case.yaml"
    m.write_text(f"name: people\nscenario: example\nbase_iri: http://example.org/\n"
                 f"sources: [{root / 'data/example/people.csv'}, {root / 'data/example/cities.csv'}]\n"
                 f"ontologies: [{root / 'ontologies/example.ttl'}]\ngold: {{table: {gold}}}\n", encoding="utf-8")
    assert main(["-q", "run", str(m), "--out", str(tmp_path / "out")]) == 2
    assert (f"FAILED at load: {gold}:1: the header has no 'Ontology Property' column (ignored as no column: "
            "'Foo Bar'); expected the columns 'Data Reference', 'Source File', 'Ontology Property',") \
        in capsys.readouterr().out


LLM_MODEL_MISSING = ("LLM_MODEL is not set: the LLM mapper (and text extractor) needs a litellm model name, e.g. "
                     "LLM_MODEL=openai/gpt-4o "
                     "(key in LLM_API_KEY or OPENAI_API_KEY), or LLM_MODEL=openai/<name> with "
                     "LLM_API_BASE=http://127.0.0.1:8000/v1 for a local OpenAI-compatible server")


def test_llm_settings_need_a_model():
    from pipeline.errors import InputError
    from pipeline.llm import LLMSettings

    with pytest.raises(InputError) as err:
        LLMSettings.from_env({"LLM_API_BASE": "http://127.0.0.1:1/v1", "LLM_MODEL": " "})
    assert str(err.value) == LLM_MODEL_MISSING
    assert LLMSettings.from_env({"LLM_MODEL": "ollama/llama3"}).model == "ollama/llama3"
    assert LLMSettings.from_env({}, model="openai/x").model == "openai/x"


@pytest.mark.parametrize("command", ["map", "run"])
def test_mapper_llm_without_llm_model_exits_2_before_any_case(tmp_path, capsys, monkeypatch, command):
    monkeypatch.delenv("LLM_MODEL", raising=False)
    root = Path(__file__).resolve().parent.parent
    args = [str(root / "data/example/example.yaml")]
    args += [str(tmp_path / "t.md")] if command == "map" else ["--out", str(tmp_path / "out")]
    assert main(["-q", command, *args, "--mapper", "llm"]) == 2
    assert capsys.readouterr().err.strip() == f"error: {LLM_MODEL_MISSING}"
    assert not (tmp_path / "out").exists() and not (tmp_path / "t.md").exists()


def test_utf16_file_is_named_as_utf16():
    f = load_source(Source(path=CASES / "utf16.csv", format="csv")).findings
    assert [(x.line, x.message, x.expected) for x in f] == [
        (1, "not UTF-8: the file is UTF-16 (byte-order mark ff fe)",
         "UTF-8 text; convert it with iconv -f utf-16 -t utf-8")]


def test_json_with_a_byte_order_mark_is_read_and_the_engine_gets_a_copy(tmp_path, capsys):
    data = load_source(Source(path=CASES / "bom.json", format="json"), tmp_path / "inputs")
    assert data.values("name") == ["Ana Ruiz"] and data.path == tmp_path / "inputs" / "bom.json"
    assert data.path.read_bytes() == (CASES / "bom.json").read_bytes()[3:]
    assert [(f.severity, f.message) for f in data.findings] == [
        ("info", f"JSON starts with a byte-order mark; the engine reads a copy without it: {data.path}")]
    assert main(["-q", "materialize", str(_rml(tmp_path, "bom.json")), str(tmp_path / "kg.nt")]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == \
        '<http://example.org/p/Ana%20Ruiz> <http://example.org/ontology#name> "Ana Ruiz" .\n'
    assert "without the byte-order mark" in capsys.readouterr().err


def test_validate_reads_no_source(tmp_path, capsys):
    kg = tmp_path / "kg.nt"
    kg.write_text('<http://example.org/p/1> <http://example.org/ontology#name> "Ana" .\n', encoding="utf-8")
    assert main(["-q", "validate", str(_manifest(tmp_path, "header-only.csv")), str(kg),
                 "--out", str(tmp_path / "v.json")]) == 0
    assert "SV2: passes" in capsys.readouterr().out.splitlines()


def test_xml_in_a_declared_latin1_encoding_is_read_through_a_utf8_copy(tmp_path, capsys):
    data = load_source(Source(path=CASES / "latin1-declared.xml", format="xml"), tmp_path / "inputs")
    assert data.values("name") == ["Chloé"] and data.path == tmp_path / "inputs" / "latin1-declared.xml"
    assert data.path.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="UTF-8"?>\n<people>')
    assert [(f.severity, f.message) for f in data.findings] == [
        ("info", f"XML declared in ISO-8859-1; the engine reads a UTF-8 copy: {data.path}")]
    assert main(["-q", "materialize", str(_rml(tmp_path, "latin1-declared.xml")), str(tmp_path / "kg.nt")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {CASES / 'latin1-declared.xml'}:1: XML declared in ISO-8859-1: the engine reads XML as UTF-8 "
        "whatever the declaration says (expected: UTF-8: convert it with iconv -f ISO-8859-1 -t utf-8 and declare "
        'encoding="UTF-8"; kgc run and kgc map read a converted copy themselves)')


def test_duplicate_and_empty_header_names_are_warnings_naming_the_columns():
    data = load_source(Source(path=CASES / "header-names.csv", format="csv"))
    assert [(f.severity, f.line, f.message) for f in data.findings] == [
        ("warning", 1, "the header names 'name' in columns 2, 3: the engine reads column 2 only"),
        ("warning", 1, "header cell(s) in column(s) 4 are empty: no reference addresses that data")]


_CP1252_ADVICE = "UTF-8 text; convert a Windows-1252 (or Latin-1) file with iconv -f cp1252 -t utf-8"


@pytest.mark.parametrize("name, text, line", [
    ("t.md", b"| Data Reference | Ontology Property |\n|---|---|\n| H\xf6he | ex:h |\n", 3),
    ("m.yaml", b"name: x\n# H\xf6he\n", 2),
    ("m.rml.ttl", b"@prefix ex: <http://e/> .\n# H\xf6he\n", 2),
    ("m.yarrrml.yaml", b"mappings:\n  # H\xf6he\n", 2),
])
def test_every_user_text_file_not_utf8_is_one_line_with_place_and_cp1252_advice(tmp_path, capsys, name, text, line):
    path = tmp_path / name
    path.write_bytes(text)
    good = CASES.parent / "table-csv-saved-by-excel-cp1252-codec-error" / "case.yaml"
    argv = {"t.md": ["compile", str(good), str(path), str(tmp_path / "o.ttl")],
            "m.yaml": ["map", str(path), str(tmp_path / "o.md")],
            "m.rml.ttl": ["materialize", str(path), str(tmp_path / "o.nt")],
            "m.yarrrml.yaml": ["materialize", str(path), str(tmp_path / "o.nt")]}[name]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    column, offset = text.split(b"\n")[line - 1].index(b"\xf6") + 1, text.index(b"\xf6")
    assert f"{name}:{line}: " in err
    assert f"not UTF-8: byte(s) f6 at line {line}, column {column} (byte offset {offset}, 'ö' in " \
        f"Windows-1252) (expected: {_CP1252_ADVICE})" in err


def test_c1_controls_are_a_warning_naming_the_first_one_and_the_cp1252_conversion(tmp_path):
    from pipeline.sources.checks import c1_controls
    good = tmp_path / "good.csv"
    good.write_text("name\nTee – grün €\n", encoding="utf-8")
    assert c1_controls(good) is None
    bad = tmp_path / "bad.csv"
    bad.write_bytes("id;preis\n1;€ 3\n2;x – y\n".encode("cp1252").decode("latin1").encode("utf-8"))
    found = c1_controls(bad)
    assert (found.severity, found.line, found.message) == (
        "warning", 2, "2 C1 control character(s), the first U+0080 at line 2, character 3 ('€' in Windows-1252): "
        "a Windows-1252 file converted as if it were Latin-1?")
    assert found.expected == "printable text; convert the original file with iconv -f cp1252 -t utf-8"
