"""The engine's rule table is parsed once per distinct mapping and read back from the cache
(pipeline/materialize/rule_cache.py): the second run does not parse, and writes the same bytes."""
from __future__ import annotations

from pathlib import Path

import morph_kgc.mapping.mapping_parser as mapping_parser

from pipeline.materialize import rule_cache
from pipeline.materialize.materializer import materialize

MAPPING = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/o#> .
<http://example.org/m#P> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "{csv}" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{id}}" ; rml:class ex:Person ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] .
"""


def _mapping(tmp_path: Path, name: str) -> Path:
    csv = tmp_path / "people.csv"
    csv.write_text("id,name\n1,Ann\n2,Bo\n", encoding="utf-8")
    path = tmp_path / name
    path.write_text(MAPPING.format(csv=csv), encoding="utf-8")
    return path


def test_second_run_reads_the_rule_table_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    mapping = _mapping(tmp_path, "m.ttl")
    first = materialize(mapping, output=tmp_path / "first.nt", fmt="nt")
    assert len(list((tmp_path / "cache" / "rules").glob("*.json"))) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("the mapping was parsed again")

    monkeypatch.setattr(mapping_parser, "retrieve_mappings", refuse)
    # the same document in another file: the key is the content, not the path
    copy = tmp_path / "copy.ttl"
    copy.write_bytes(mapping.read_bytes())
    second = materialize(copy, output=tmp_path / "second.nt", fmt="nt")
    assert (tmp_path / "second.nt").read_bytes() == (tmp_path / "first.nt").read_bytes()
    assert first.n_triples == second.n_triples == 4


def test_a_changed_mapping_or_caching_off_parses_again(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    mapping = _mapping(tmp_path, "m.ttl")
    materialize(mapping, output=tmp_path / "a.nt", fmt="nt")
    mapping.write_text(mapping.read_text(encoding="utf-8").replace("ex:name", "ex:label"), encoding="utf-8")
    materialize(mapping, output=tmp_path / "b.nt", fmt="nt")
    assert len(list((tmp_path / "cache" / "rules").glob("*.json"))) == 2
    assert "label" in (tmp_path / "b.nt").read_text(encoding="utf-8")
    monkeypatch.setenv("KGC_CACHE_DIR", "0")
    assert rule_cache.cache_folder() is None
    materialize(mapping, output=tmp_path / "c.nt", fmt="nt")
    assert (tmp_path / "c.nt").read_bytes() == (tmp_path / "b.nt").read_bytes()


def test_an_unreadable_entry_is_parsed_again_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    mapping = _mapping(tmp_path, "m.ttl")
    materialize(mapping, output=tmp_path / "a.nt", fmt="nt")
    entry = next((tmp_path / "cache" / "rules").glob("*.json"))
    entry.write_bytes(b"truncated")
    materialize(mapping, output=tmp_path / "b.nt", fmt="nt")
    assert (tmp_path / "b.nt").read_bytes() == (tmp_path / "a.nt").read_bytes()
    assert entry.stat().st_size > len(b"truncated")


def test_an_entry_is_json_and_a_pickle_planted_in_the_folder_is_never_loaded(tmp_path, monkeypatch):
    """The cache holds data, never code: an entry is JSON (columns, dtypes, rows of strings, numbers
    and nulls); a pickle file under an entry's name is not read (it would run what it names), an
    entry naming a value of another kind is parsed again, and old pickle entries are removed."""
    import json
    import pickle

    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    mapping = _mapping(tmp_path, "m.ttl")
    materialize(mapping, output=tmp_path / "a.nt", fmt="nt")
    entry = next((tmp_path / "cache" / "rules").glob("*.json"))
    doc = json.loads(entry.read_text(encoding="utf-8"))
    assert set(doc) == {"rml", "fnml", "http"} and doc["rml"]["columns"][:2] == ["source_name", "triples_map_id"]
    planted = entry.with_suffix(".pkl")
    planted.write_bytes(pickle.dumps(("not", "a", "table")))
    doc["rml"]["rows"][0][0] = {"__reduce__": "os.system"}
    entry.write_text(json.dumps(doc), encoding="utf-8")
    calls = []
    real = mapping_parser.retrieve_mappings
    monkeypatch.setattr(mapping_parser, "retrieve_mappings", lambda *a, **k: calls.append(1) or real(*a, **k))
    materialize(mapping, output=tmp_path / "b.nt", fmt="nt")
    assert calls == [1]  # the tampered entry was refused and the mapping parsed again
    assert (tmp_path / "b.nt").read_bytes() == (tmp_path / "a.nt").read_bytes()
    assert not planted.exists() and json.loads(entry.read_text(encoding="utf-8"))["rml"]["rows"][0][0] == "DataSource1"
