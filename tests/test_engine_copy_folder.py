"""A repaired copy of an input never goes beside the input: without a copies folder it goes to a
temporary folder (the input's folder may be a shared benchmark folder, or read-only)."""
from __future__ import annotations

import gzip

from rdflib import Graph

from pipeline.manifest import Source
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.sources.engine_copy import EngineCopy, scratch_folder
from pipeline.sources.load import load_source


def test_loading_without_a_copies_folder_writes_nothing_beside_the_input(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("id;name\n1;Ann\n", encoding="utf-8")  # ';': the engine reads a comma copy
    (data / "b.json").write_text('[{"id": 1, "name": null}]', encoding="utf-8")  # a null: a copy without it
    (data / "c.csv.gz").write_bytes(gzip.compress(b"id,name\n1,Ann\n"))  # compressed: a decompressed copy
    before = sorted(p.name for p in data.iterdir())
    loaded = [load_source(Source(path=data / "a.csv", format="csv")),
              load_source(Source(path=data / "b.json", format="json", iterator="$[*]")),
              load_source(Source(path=data / "c.csv.gz", format="csv"))]
    assert sorted(p.name for p in data.iterdir()) == before
    for src, name in zip(loaded, ("a.csv", "b.json")):
        assert src.path.name == name and src.path.is_file() and src.path.parent == scratch_folder(data / name)
    assert loaded[2].path.is_file() and loaded[2].path.parent == scratch_folder(data / "c.csv.gz")
    assert loaded[0].path.read_text(encoding="utf-8") == "id,name\n1,Ann\n"
    # two inputs of one name in two folders get two copies
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.csv").write_text("id;name\n2;Bob\n", encoding="utf-8")
    again = load_source(Source(path=other / "a.csv", format="csv"))
    assert again.path != loaded[0].path and again.path.read_text(encoding="utf-8") == "id,name\n2,Bob\n"
    assert EngineCopy(data / "a.csv", tmp_path / "copies").folder == tmp_path / "copies"  # a folder given is used


def test_normalizing_without_a_copies_folder_derives_no_source_beside_the_mapping(tmp_path):
    (tmp_path / "people.json").write_text('{"people": [{"id": 1, "tags": ["a", "b"]}]}', encoding="utf-8")
    rml = Graph().parse(format="turtle", data=f"""
        @prefix rml: <http://w3id.org/rml/> .
        <#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "people.json" ] ;
                                  rml:referenceFormulation rml:JSONPath ; rml:iterator "$.people[*]" ] ;
            rml:subjectMap [ rml:template "http://ex.org/person/{{id}}" ] ;
            rml:predicateObjectMap [ rml:predicate <http://ex.org/tag> ; rml:objectMap [ rml:reference "tags[0]" ] ] .
        """, publicID="http://ex.org/m")
    norm = normalize_rml(rml, mapping_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["people.json"]
    derived = [str(o) for o in norm.graph.objects(None, None) if "kgc-derived" in str(o)]
    assert derived and all(d.startswith(str(scratch_folder(tmp_path))) for d in derived)


def test_original_of_follows_copies_of_copies_to_the_users_file(tmp_path):
    from pipeline.sources.engine_copy import EngineCopy, original_of
    from pipeline.sources.folders import shown_source
    user = tmp_path / "events.jsonl"
    user.write_text('{"a": 1}\n', encoding="utf-8")
    first = EngineCopy(user, tmp_path / "inputs", "events.1.json").write("[{\"a\": 1}]")
    again = EngineCopy(first, tmp_path / "inputs").write("[{\"a\": 1}]")  # rewritten in place: keeps its original
    last = EngineCopy(again, tmp_path / "inputs", "events.engine.json").write("[{\"a\": 1}]")
    assert original_of(last) == user.resolve() and shown_source(last) == "events.jsonl"
    assert original_of(user) == user  # an input is its own
