"""A selection of a JSON source's records by the value of one member, named by the file and a JSONPath filter
(``catalogue.json[?(@.kind=="book")]``): its records, its name, and a table naming it compiled to a filter
iterator that Morph-KGC runs (pipeline.sources.selection, pipeline.compile)."""
from __future__ import annotations

import json
from pathlib import Path

from rdflib import Graph

from pipeline.compile import compile_table
from pipeline.manifest import Case, Source
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.sources.selection import select, selected_sources, selection_name
from pipeline.table import MappingRow, MappingTable

from helpers import CASES, materialize_compiled


def _json(tmp_path: Path, records: list, name: str = "items.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"items": records}), encoding="utf-8")
    return load_source(Source(path, "json"), tmp_path / "copies")


def test_the_stem_of_a_selection_is_its_value():
    assert Source(Path("/d/stix.json"), "json", name='stix.json[?(@.type=="malware")]').stem == "malware"
    assert Source(Path("/d/stix.json"), "json").stem == "stix"
    assert Source(Path("/d/stix.json"), "json", name="stix.v2.json").stem == "stix.v2"


def test_a_selection_is_named_by_the_filter_the_engine_reads(tmp_path):
    data = _json(tmp_path, [{"t": "x", "a": "1"}, {"t": "y", "b": "2"}, {"t": "x", "a": "3"}])
    assert selection_name(data, "t", "x") == 'items.json[?(@.t=="x")]'
    assert selection_name(data, "t", 'a"b') is None  # a value the filter cannot quote
    assert selection_name(data, "@type", "x") is None  # nor a member name Morph-KGC's filter cannot read
    sub = select(data, "t", "x")
    assert (sub.iterator, sub.references, [r["a"] for r in sub.records]) == ('$.items[?(@.t=="x")]', ["t", "a"],
                                                                             [["1"], ["3"]])
    assert select(data, "t", "z") is None
    whole = tmp_path / "whole.json"  # records not the items of an array: no filter selects among them
    whole.write_text('{"t": "x", "a": "1"}', encoding="utf-8")
    assert selection_name(load_source(Source(whole, "json"), tmp_path / "c"), "t", "x") is None
    names = [None, "items.json", 'items.json[?(@.t=="y")]', 'other.json[?(@.t=="y")]', 'items.json[?(@.t=="y")]']
    assert [s.source.name for s in selected_sources(names, [data])] == ['items.json[?(@.t=="y")]']


def test_a_table_naming_selections_compiles_to_filter_iterators_that_morph_kgc_runs(tmp_path):
    folder = CASES / "json-kind-selection"
    case = Case("k", (Source(folder / "catalogue.json", "json"),), (folder / "library.ttl",),
                base_iri="http://example.org/")
    onto = load_ontology([folder / "library.ttl"])
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    L, A, B = "http://lib.example.org/onto#", 'catalogue.json[?(@.kind=="author")]', 'catalogue.json[?(@.kind=="book")]'
    rows = [MappingRow("name", A, L + "name", L + "Author", subject_template="http://example.org/author/{id}"),
            MappingRow("title", B, L + "title", L + "Book", subject_template="http://example.org/book/{id}"),
            MappingRow(None, B, L + "writtenBy", L + "Book", L + "Author", "http://example.org/book/{id}",
                       "book.author==author.id")]
    compiled = compile_table(MappingTable(rows=rows), onto, case, sources)
    assert [f for f in compiled.findings if f.severity == "error"] == []
    kg = materialize_compiled(compiled, sources, tmp_path)
    T = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    expected = Graph().parse(format="nt", data="\n".join([
        f'<http://example.org/author/A1> <{L}name> "Ann Lee" .', f"<http://example.org/author/A1> <{T}> <{L}Author> .",
        f'<http://example.org/author/A2> <{L}name> "Bo Chen" .', f"<http://example.org/author/A2> <{T}> <{L}Author> .",
        *(f'<http://example.org/book/{b}> <{L}title> "{t}" .\n<http://example.org/book/{b}> <{T}> <{L}Book> .\n'
          f"<http://example.org/book/{b}> <{L}writtenBy> <http://example.org/author/{a}> ."
          for b, t, a in (("B1", "Rivers", "A1"), ("B2", "Hills", "A2"), ("B3", "Lakes", "A1")))]))
    assert set(kg) == set(expected)
