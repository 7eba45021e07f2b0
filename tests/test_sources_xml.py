"""XML sources: iterators, default namespaces bound to a prefix, a catalogue read as one record."""
from __future__ import annotations

import dataclasses
import json

from rdflib import Graph, URIRef

from pipeline.run.runner import RunConfig, run_case
from pipeline.sources.load import load_source
from lxml import etree

from pipeline.sources.namespaces import bind_default_prefix, element_prefixes
from pipeline.sources.tree import markup_references

from helpers import CASES, case_manifest


def test_bind_default_prefix_rewrites_element_names_only():
    assert bind_default_prefix("/catalog/item[code='A1']/title", "d") == "/d:catalog/d:item[d:code='A1']/d:title"
    assert bind_default_prefix("item/@code", "d") == "d:item/@code"
    assert bind_default_prefix("count(child::item) and n:x", "d") == "count(child::d:item) and n:x"


def test_element_prefixes_one_prefix_per_namespace_and_one_namespace_per_prefix():
    root = etree.fromstring(b'<c:r xmlns:c="urn:c"><c:i xmlns:d="urn:dc"><d:t/></c:i>'
                            b'<c:i><t:t xmlns:t="urn:dc"/></c:i><c:i xmlns:d="urn:o"><d:t/></c:i>'
                            b'<c:i xmlns:d2="urn:x"/><x xmlns="urn:def"/></c:r>')
    prefixes, rebound = element_prefixes(root, {"urn:def": "d3"})
    # d keeps its first namespace; urn:o takes the first free numbered d (d2 is the document's own)
    assert prefixes == {"urn:c": "c", "urn:dc": "d", "urn:o": "d4", "urn:x": "d2", "urn:def": "d3"}
    assert rebound == [("d", [("urn:dc", 1), ("urn:o", 1)])]
    plain = etree.fromstring(b'<a:r xmlns:a="urn:a"><a:x/></a:r>')
    assert element_prefixes(plain, {}) == ({"urn:a": "a"}, [])


def test_a_prefix_rebound_per_record_is_read_by_namespace(tmp_path):
    case = case_manifest("xml-prefix-rebound-other-namespace")
    data = load_source(case.sources[0], tmp_path)
    assert data.references == ["@c:id", "d:title", "d2:title"]
    assert data.values("d:title") == ["Alpha", "Beta"] and data.values("d2:title") == ["Not a DC title"]
    assert data.path != case.sources[0].path and b'xmlns:d2="urn:other"' in data.path.read_bytes()
    [said] = [f for f in data.findings if f.column == "namespace"]
    assert said.value == "d" and "(line 9, read as 'd2:')" in said.message


def test_markup_references_are_the_children_of_mixed_content_elements_not_their_attributes():
    refs = ["s", "s/@xml:lang", "s/b", "s/b/@id", "s/b/i", "t", "t/b"]
    assert markup_references(refs, {"s"}) == {"s/b": "s", "s/b/@id": "s", "s/b/i": "s"}
    assert markup_references(refs, set()) == {}


def test_inline_markup_of_one_record_is_markup_in_every_record(tmp_path):
    case = case_manifest("mapper-xml-mixed-content-markup-becomes-entity")
    data = load_source(case.sources[0], tmp_path)
    assert data.markup == {"lib:summary/p:name": "lib:summary"}
    assert data.values("lib:summary") == ["A novel by Jane Austen about manners.", "Textbook."]


def test_xml_iterator_matching_nothing_is_a_finding(tmp_path):
    case = case_manifest("xml-default-namespace-mapper")
    src = dataclasses.replace(case.sources[0], iterator="/Nothing/Here")
    data = load_source(src, tmp_path)
    found = [f for f in data.findings if f.column == "iterator"]
    assert data.records == [] and len(found) == 1
    assert "selects no record" in found[0].message and "urn:example:notice" in found[0].message
    assert found[0].file.endswith("notice.xml") and found[0].candidate == "/d:Notice"


def test_unprefixed_manifest_iterator_is_bound(tmp_path):
    case = case_manifest("xml-default-namespace-table")
    data = load_source(dataclasses.replace(case.sources[0], iterator="/catalog/item"), tmp_path)
    assert (data.iterator, len(data.records)) == ("/d:catalog/d:item", 2)
    assert any(f.column == "iterator" and f.candidate == "/d:catalog/d:item" for f in data.findings)


def test_xml_default_namespace_table_unprefixed_paths_compile_and_run(tmp_path):
    case = case_manifest("xml-default-namespace-table")
    run = run_case(case, RunConfig(out_dir=tmp_path, mapper="replay",
                                   mapper_options={"table": str(CASES / "xml-default-namespace-table" / "table.md")},
                                   evaluate=False))
    assert run.status == "ok"
    kg = Graph().parse(run.folder / "kg.nt", format="nt")
    titles = {(str(s), str(o)) for s, o in kg.subject_objects(URIRef("http://example.org/o#title"))}
    assert titles == {("http://example.org/item/A1", "Lamp"), ("http://example.org/item/B2", "Desk")}
    info = [f for f in run.findings if f.stage == "audit" and f.severity == "info"]
    assert {f.candidate for f in info} == {"d:title", "d:code"}
    cov = json.loads((run.folder / "run.json").read_text())["coverage"]["items.xml"]
    assert (cov["columns"], cov["columns_mapped"], cov["records"], cov["records_with_subject"]) == (2, 2, 2, 2)


def test_a_catalogue_read_as_one_record_names_its_repeating_elements_and_the_way_out(tmp_path):
    from pipeline.manifest import Source
    from pipeline.sources.load import load_source

    xml = CASES / "xml-named-sources" / "courses.xml"
    data = load_source(Source(path=xml, format="xml"), tmp_path)
    assert data.iterator == "/uni:catalogue" and len(data.records) == 1
    found = [f for f in data.findings if f.column == "iterator"]
    # a root whose children hold no text of their own only groups collections: a warning
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].candidate == "/uni:catalogue/uni:teachers/uni:teacher"
    assert ("holding repeating elements /uni:catalogue/uni:teachers/uni:teacher (2), /uni:catalogue/uni:department "
            "(2), /uni:catalogue/uni:department/uni:course (2), /uni:catalogue/uni:department/uni:course/uni:session "
            "(2):") in found[0].message
    # a given iterator is the engineer's choice: nothing to say
    given = load_source(Source(path=xml, format="xml", iterator="/uni:catalogue/uni:department"), tmp_path)
    assert not [f for f in given.findings if f.column == "iterator"]


def test_reference_values_reads_every_record_of_an_xml_path(tmp_path):
    # the mapper's function proposals and the compiler's code translation read a reference's values here:
    # xpath() evaluates a relative path in the first record only
    (tmp_path / "d.xml").write_text('<c><d id="1" at="2023-01-15"><m><i>2023-01-15</i></m></d>'
                                    '<d id="2" at="15/02/2023"><m><i>15.02.2023</i></m></d></c>', encoding="utf-8")
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    (tmp_path / "c.yaml").write_text("sources: [d.xml]\nontologies: [o.ttl]\n", encoding="utf-8")
    from pipeline.manifest import load_manifest
    data = load_source(load_manifest(tmp_path / "c.yaml").sources[0], tmp_path)
    assert data.xpath("m/i") == ["2023-01-15"]
    assert data.reference_values("m/i") == ["2023-01-15", "15.02.2023"]
    assert data.reference_values("@at") == ["2023-01-15", "15/02/2023"]
    assert data.per_record("m/i") == [["2023-01-15"], ["15.02.2023"]]   # element text, as xpath() gives it
    assert data.reference_values("m/[") == []                           # a malformed XPath: no values
