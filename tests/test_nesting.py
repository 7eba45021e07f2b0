"""Nested iteration through RML-LV logical views (pipeline/compile/nesting.py, parts.py): the compiled
RML holds a standard rml:LogicalView (read with rdflib), the offline mapper keys an entity of a
repeating part by its owner's key plus its position, and what YARRRML cannot express is refused.
The golden folders tests/cases/nested-json-array-per-occurrence and nested-xml-repeated-element
hold the exact triples."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rdflib import Graph, Literal, Namespace
from rdflib.namespace import RDF

from pipeline.cli import main
from pipeline.compile.parts import is_position, member_of, repeating_part, values_reference
from pipeline.materialize.views.records import member_path
from pipeline.manifest import load_manifest
from pipeline.sources.load import load_source

RML = Namespace("http://w3id.org/rml/")
CASES = Path(__file__).resolve().parent / "cases"


def _copy(tmp_path: Path, name: str) -> Path:
    work = tmp_path / name
    shutil.copytree(CASES / name, work)
    return work


def test_compiled_rml_has_a_logical_view_on_the_owner_source_with_an_iterable_field(tmp_path):
    work = _copy(tmp_path, "nested-json-array-per-occurrence")
    out = tmp_path / "m.ttl"
    assert main(["-q", "compile", str(work / "case.yaml"), str(work / "table.md"), str(out)]) == 0
    g = Graph().parse(out)
    views = sorted(g.subjects(RDF.type, RML.LogicalView), key=str)
    # one view per group of TriplesMaps reading the same fields: the persons (isbn, authors' name and
    # born), the books' ex:author (isbn, the authors' positions), the reviews, the books' ex:review
    assert len(views) == 4

    def members(view):
        return {str(g.value(f, RML.fieldName)): str(g.value(f, RML.reference)) for f in g.objects(view, RML.field)
                for it in [f] if (it, RDF.type, RML.IterableField) not in g}

    authors = next(v for v in views if {"name", "born"} <= {str(g.value(m, RML.fieldName)) for f in g.objects(v, RML.field)
                                                             for m in g.objects(f, RML.field)})
    source = g.value(authors, RML.viewOn)
    assert (g.value(source, RML.iterator), g.value(source, RML.referenceFormulation)) == \
        (Literal("$.books[*]"), RML.JSONPath)
    fields = {str(g.value(f, RML.fieldName)): f for f in g.objects(authors, RML.field)}
    assert (fields["isbn"], RDF.type, RML.ExpressionField) in g
    assert g.value(fields["isbn"], RML.reference) == Literal("$.isbn")
    assert (fields["authors"], RDF.type, RML.IterableField) in g
    assert g.value(fields["authors"], RML.iterator) == Literal("$.authors[*]")
    assert members(fields["authors"]) == {"name": "$.name", "born": "$.born"}
    assert len(set(g.subjects(RML.logicalSource, authors))) == 1
    # the books' ex:author reads the isbn and the authors' positions only
    links = [v for v in views if v != authors and str(v).endswith("authors")]
    assert len(links) == 1
    fields = {str(g.value(f, RML.fieldName)): f for f in g.objects(links[0], RML.field)}
    assert set(fields) == {"isbn", "authors"} and members(fields["authors"]) == {}


def test_parts_of_json_and_xml_records(tmp_path):
    work = _copy(tmp_path, "nested-xml-repeated-element")
    xml = load_source(load_manifest(work / "case.yaml").sources[0])
    assert repeating_part(xml, xml.iterator, "lib:author/lib:name") == "lib:author"
    assert repeating_part(xml, xml.iterator, "@isbn") is None
    assert member_of(xml, "lib:title", "lib:title/@xml:lang") == "@xml:lang"
    assert member_of(xml, "lib:title", "lib:title") == "."
    assert is_position(xml, "lib:author/#") and not is_position(xml, "lib:book/#")
    work = _copy(tmp_path, "nested-json-array-per-occurrence")
    js = load_source(load_manifest(work / "case.yaml").sources[0])
    assert repeating_part(js, js.iterator, "authors.name") == "authors"
    assert repeating_part(js, js.iterator, "authors[*].name") == "authors"
    assert repeating_part(js, js.iterator, "title") is None
    assert is_position(js, "authors.#") and not is_position(js, "title.#")


def test_offline_mapper_keys_an_unidentified_occurrence_by_its_owner_and_position(tmp_path):
    work = _copy(tmp_path, "nested-json-array-per-occurrence")
    (work / "table.md").unlink()
    table = tmp_path / "t.md"
    assert main(["-q", "map", str(work / "case.yaml"), str(table)]) == 0
    text = table.read_text(encoding="utf-8")
    assert "http://example.org/person/{isbn}_{authors.#}" in text
    assert "{authors.name}_{authors.born}" not in text
    out = tmp_path / "out"
    assert main(["-q", "run", str(work / "case.yaml"), "--mapper", "replay", "--table", str(table), "--out", str(out),
                 "--no-evaluate"]) == 0
    kg = Graph().parse(next(out.glob("*/*/kg.nt")))
    persons = {s for s in kg.subjects(RDF.type, Namespace("http://example.org/")["Person"])}
    # two equal authors of book 111 stay two, the one without a birth year keeps its subject
    assert sorted(str(p) for p in persons) == [f"http://example.org/person/{k}" for k in
                                               ("111_0", "111_1", "111_2", "222_0")]


def test_yarrrml_of_a_json_view_is_refused_and_the_rml_is_kept(tmp_path, capsys):
    work = _copy(tmp_path, "nested-json-array-per-occurrence")
    code = main(["compile", str(work / "case.yaml"), str(work / "table.md"), str(tmp_path / "m.ttl"),
                 "--yarrrml", str(tmp_path / "m.yml")])
    err = capsys.readouterr().err
    assert code == 2
    assert "YARRRML cannot express" in err and "Traceback" not in err
    assert (tmp_path / "m.ttl").exists()


@pytest.mark.parametrize("case", ["nested-xml-repeated-element"])
def test_yarrrml_of_an_xml_view_reads_back_to_the_same_graph(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    work = _copy(tmp_path, case)
    rml, yml = tmp_path / "m.ttl", tmp_path / "m.yml"
    assert main(["-q", "compile", str(work / "case.yaml"), str(work / "table.md"), str(rml), "--yarrrml", str(yml)]) == 0
    assert "$(count\\(preceding-sibling::lib:author\\))" in yml.read_text(encoding="utf-8")  # parentheses escaped
    assert main(["-q", "compile", str(work / "case.yaml"), str(yml), str(tmp_path / "back.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "back.ttl"), str(tmp_path / "back.nt")]) == 0
    expected = Graph().parse(work / "expected.nt")
    assert set(Graph().parse(tmp_path / "back.nt")) == set(expected)


def test_a_part_inside_a_part_is_iterated_at_the_inner_level_and_numbered_over_the_record(tmp_path, capsys):
    (tmp_path / "lines.json").write_text(
        '{"lines": [{"code": "L1", "sections": [{"tracks": [{"name": "I"}, {"name": "II"}]}, {"tracks": [{"name": "I"}]}]},'
        ' {"code": "L2", "sections": [{"tracks": []}]}]}', encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Track a owl:Class . ex:name a owl:DatatypeProperty ; rdfs:domain ex:Track .\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [lines.json]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        "| sections.tracks.name | lines.json | ex:name | ex:Track | http://example.org/track/{code}_{sections.tracks.#} |\n",
        encoding="utf-8")
    assert main(["-q", "compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    assert 'rml:iterator "$.sections[*].tracks[*]"' in (tmp_path / "m.ttl").read_text(encoding="utf-8")
    names = {(str(s).rsplit("/", 1)[-1], str(o)) for s, o in Graph().parse(tmp_path / "kg.nt").subject_objects(
        Namespace("http://example.org/")["name"])}
    # three tracks of line L1, two of them named "I" in different sections: three subjects
    assert names == {("L1_0", "I"), ("L1_1", "II"), ("L1_2", "I")}


def test_a_literal_of_the_position_is_read_per_occurrence(tmp_path):
    work = _copy(tmp_path, "nested-json-array-per-occurrence")
    (work / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype |\n"
        "|---|---|---|---|---|---|\n"
        "| authors.# | books.json | ex:title | ex:Book | http://example.org/book/{isbn} | xsd:string |\n", encoding="utf-8")
    assert main(["-q", "compile", str(work / "case.yaml"), str(work / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    pairs = {(str(s).rsplit("/", 1)[-1], str(o)) for s, o in Graph().parse(tmp_path / "kg.nt").subject_objects(
        Namespace("http://example.org/")["title"])}
    assert pairs == {("111", "0"), ("111", "1"), ("111", "2"), ("222", "0")}


def test_a_key_the_jsonpath_shorthand_cannot_write_gets_a_name_selector(tmp_path):
    """RFC 9535 2.5.1: '$price', 'tags[0]', '@id' and 'a b' are member names of these records, not path
    syntax; a plain or non-ASCII name keeps the shorthand; a dotted path is left as it is."""
    path = tmp_path / "r.json"
    path.write_text('[{"$price": "1", "tags[0]": "x", "@id": "i", "a b": ["p", "q"], "título": "t", "it\'s": "y",'
                    ' "o": {"k": "v"}}]', encoding="utf-8")
    (tmp_path / "c.yaml").write_text("sources: [{path: r.json}]\nontologies: [o.ttl]\n", encoding="utf-8")
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    src = load_source(load_manifest(tmp_path / "c.yaml").sources[0])
    assert values_reference(src, src.iterator, "$price") == "$['$price']"
    assert values_reference(src, src.iterator, "tags[0]") == "$['tags[0]']"
    assert values_reference(src, src.iterator, "@id") == "$['@id']"
    assert values_reference(src, src.iterator, "a b") == "$['a b'][*]"  # an array: its values
    assert values_reference(src, src.iterator, "it's") == "$['it\\'s']"
    assert values_reference(src, src.iterator, "título") == "título"
    assert values_reference(src, src.iterator, "o.k") == "o.k"
    assert values_reference(src, src.iterator, "price") == "price"  # no such key: not rewritten


def test_the_derivation_reads_member_names_jsonpath_ng_does_not_lex():
    """jsonpath-ng's lexer refuses a space or a non-ASCII letter in a name the engine reads as a key."""
    assert member_path("event title") == "$['event title']"
    assert member_path("$.extras.Frecuencia de actualización") == "$['extras']['Frecuencia de actualización']"
    assert member_path("título") == "$['título']"
    assert member_path("tags[0]") is None and member_path("a[*].b") is None and member_path("$['x']") is None
