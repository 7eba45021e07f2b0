"""Output fault kinds of the materialize stage: one regression test per case folder of
``../shared/cases`` (read in place) plus small hand-made inputs in ``tests/cases``."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from rdflib import BNode, Dataset, Graph, Literal, URIRef

from pipeline.cli import main
from pipeline.materialize.engine import iri_safe
from pipeline.manifest import load_manifest
from pipeline.run.runner import RunConfig, run_case

ROOT = Path(__file__).resolve().parent.parent

SHARED = Path(os.environ.get("KGC_CASES") or ROOT.parent / "shared" / "cases")
LOCAL = ROOT / "tests" / "cases"
EX = "http://example.org/o#"


def _case(name: str) -> Path:
    folder = SHARED / name
    if not folder.is_dir():
        pytest.skip(f"case folder {folder} not found")
    return folder


def _materialize(folder: Path, rml: str, out: Path, monkeypatch, capsys, *extra: str) -> tuple[int, str]:
    monkeypatch.chdir(folder)
    rc = main(["materialize", rml, str(out), *extra])
    return rc, capsys.readouterr().err


def _replay(folder: Path, tmp_path: Path) -> Graph:
    run = run_case(load_manifest(folder / "case.yaml"),
                   RunConfig(out_dir=tmp_path, mapper="replay", mapper_options={"table": str(folder / "table.md")},
                             evaluate=False))
    assert run.status == "ok", run.error
    return Graph().parse(run.folder / "kg.nt", format="nt")


def test_xml_empty_element_none_nan(tmp_path):
    kg = _replay(_case("xml-empty-element-none-nan"), tmp_path)
    rec = URIRef("http://example.org/o#Record")
    assert set(kg) == {(URIRef("http://example.org/rec/r1"), URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), rec),
                       (URIRef("http://example.org/rec/r2"), URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), rec)}


def test_real_none_and_nan_text_in_xml_is_kept_per_value(tmp_path, monkeypatch, capsys):
    rc, err = _materialize(LOCAL / "xml-none-real", "m.rml.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0
    kg = Graph().parse(tmp_path / "kg.nt", format="nt")
    # r1 holds the text "None" and r4 "nan": kept; r2 (<nick/>) and r3 (no <nick>) give nothing
    assert sorted((str(s), str(o)) for s, _, o in kg) == [
        ("http://example.org/nick/None", "http://example.org/rec/r1"),
        ("http://example.org/nick/nan", "http://example.org/rec/r4"),
        ("http://example.org/rec/r1", "None"), ("http://example.org/rec/r4", "nan")]
    assert "2 record(s) have no value for 'nick'" in err


def test_function_output_escaping(tmp_path):
    kg = _replay(_case("function-output-escaping"), tmp_path)
    titles = {str(s).rsplit("/", 1)[1]: str(o) for s, o in kg.subject_objects(URIRef(EX + "title"))}
    assert titles == {"r1": "c:\\new\\table", "r2": 'say \\"x\\"', "r3": "back\\slash", "r4": "caf\\u00e9"}


def test_named_graphs_flattened(tmp_path, monkeypatch, capsys):
    rc, err = _materialize(_case("named-graphs-flattened"), "m.rml.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0 and "N-Quads written to" in err and not (tmp_path / "kg.nt").exists()
    ds = Dataset()
    ds.parse(tmp_path / "kg.nq", format="nquads")
    graphs = {str(c.identifier): len(c) for c in ds.graphs() if len(c)}
    assert graphs == {"https://example.org/graph/hr": 2, "https://example.org/graph/crm": 2}


def test_legacy_rml_languagemap_lost(tmp_path, monkeypatch, capsys):
    rc, _ = _materialize(_case("legacy-rml-languagemap-lost"), "legacy.rml.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0
    kg = Graph().parse(tmp_path / "kg.nt", format="nt")
    assert {(str(o), o.language.lower()) for o in kg.objects()} == {("colour", "en-gb"), ("hola", "es")}


def test_iri_safe_encoding_keeps_ucschar_and_encodes_delimiters():
    assert iri_safe("Zoë Krüger") == "Zoë%20Krüger"
    assert iri_safe("a/b?c#d") == "a%2Fb%3Fc%23d"
    assert iri_safe("~A_17.1-2¢") == "~A_17.1-2¢"
    assert iri_safe("100%") == "100%25"


def test_template_iri_safe_encoding(tmp_path):
    kg = _replay(_case("template-iri-safe-encoding"), tmp_path)
    assert set(map(str, kg.subjects())) == {"http://example.org/r/Zoë%20Krüger", "http://example.org/r/~A_17.1-2¢",
                                            "http://example.org/r/日本"}


def test_relative_template_with_base(tmp_path):
    kg = _replay(_case("relative-template-with-base"), tmp_path)
    assert set(map(str, kg.subjects())) == {"http://example.org/base/1", "http://example.org/base/2",
                                            "http://example.org/base/person/1", "http://example.org/base/person/2"}


def test_blank_node_template_with_spaces_is_encoded_not_dropped(tmp_path, monkeypatch, capsys):
    rc, _ = _materialize(LOCAL / "bnode-template-spaces", "m.rml.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0
    kg = Graph().parse(tmp_path / "kg.nt", format="nt")
    objects = {str(s): o for s, o in kg.subject_objects(URIRef(EX + "address"))}
    assert set(objects) == {"http://example.org/base/person/Ann", "http://example.org/base/person/Bo"}
    assert all(isinstance(o, BNode) for o in objects.values()) and len(set(objects.values())) == 2


@pytest.mark.parametrize("case,rml,expected", [
    ("parent-map-without-join-crash", "m.rml.ttl",
     "TriplesMap <http://example.org/m#People> references parent TriplesMap <http://example.org/m#Cities>, which "
     "reads another logical source, without a join condition"),
    ("rml-error-opaque", "mapping.ttl", "namespaces <http://semweb.mmlab.be/ns/ql>, <http://semweb.mmlab.be/ns/rml>, "
     "<http://www.w3.org/ns/r2rml> are missing their '#'"),
])
def test_invalid_mapping_exits_2_naming_the_rule(tmp_path, monkeypatch, capsys, case, rml, expected):
    rc, err = _materialize(_case(case), rml, tmp_path / "out" / "kg.nt", monkeypatch, capsys)
    assert rc == 2 and expected in err and "Traceback" not in err


def test_logical_source_split_from_subject_map_is_named(tmp_path, monkeypatch, capsys):
    (tmp_path / "d.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "m.ttl").write_text(
        "@prefix rr: <http://www.w3.org/ns/r2rml#> . @prefix rml: <http://semweb.mmlab.be/ns/rml#> .\n"
        "@prefix ql: <http://semweb.mmlab.be/ns/ql#> .\n"
        "<http://ex.org/m#A> rml:logicalSource [ rml:source \"d.csv\"; rml:referenceFormulation ql:CSV ] .\n"
        "<http://ex.org/m#B> rr:subjectMap [ rr:template \"http://ex.org/{id}\" ] .\n", encoding="utf-8")
    rc, err = _materialize(tmp_path, "m.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 2 and "TriplesMap <http://ex.org/m#" in err and "subject map" in err and "logical source" in err


def test_self_join_reflexive_only_hand_written_rml(tmp_path, monkeypatch, capsys):
    rc, err = _materialize(_case("self-join-reflexive-only"), "m.rml.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0 and "real join" in err
    kg = Graph().parse(tmp_path / "kg.nt", format="nt")
    pairs = sorted((str(s)[-4:], str(o)[-4:]) for s, o in kg.subject_objects(URIRef(EX + "sameColorAs")))
    assert pairs == [("car1", "car1"), ("car1", "car2"), ("car2", "car1"), ("car2", "car2"), ("car3", "car3")]


def test_mapping_without_triples_warns_naming_the_triples_maps(tmp_path, monkeypatch, capsys):
    (tmp_path / "d.csv").write_text("id,name\n", encoding="utf-8")
    (tmp_path / "m.ttl").write_text(
        "@prefix rml: <http://w3id.org/rml/> .\n<http://ex.org/m#Empty> a rml:TriplesMap ;\n"
        "  rml:logicalSource [ rml:source \"d.csv\"; rml:referenceFormulation rml:CSV ] ;\n"
        "  rml:subjectMap [ rml:template \"http://ex.org/{id}\" ] ;\n"
        "  rml:predicateObjectMap [ rml:predicate <http://ex.org/name> ; rml:objectMap [ rml:reference \"name\" ] ] .\n",
        encoding="utf-8")
    rc, err = _materialize(tmp_path, "m.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 0 and "warning:" in err and "yields no triple: <http://ex.org/m#Empty>" in err
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == ""


def test_engine_crash_is_explained_with_exit_2(tmp_path, monkeypatch, capsys):
    # a CSV reference to a column the file lacks: the engine raises ValueError deep inside pandas
    (tmp_path / "d.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "m.ttl").write_text(
        "@prefix rml: <http://w3id.org/rml/> .\n<http://ex.org/m#T> a rml:TriplesMap ;\n"
        "  rml:logicalSource [ rml:source \"d.csv\"; rml:referenceFormulation rml:CSV ] ;\n"
        "  rml:subjectMap [ rml:template \"http://ex.org/{id}\" ] ;\n"
        "  rml:predicateObjectMap [ rml:predicate <http://ex.org/p> ; rml:objectMap [ rml:reference \"nope\" ] ] .\n",
        encoding="utf-8")
    rc, err = _materialize(tmp_path, "m.ttl", tmp_path / "kg.nt", monkeypatch, capsys)
    assert rc == 2 and "TriplesMap <http://ex.org/m#T>" in err and "nope" in err and "Traceback" not in err


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
