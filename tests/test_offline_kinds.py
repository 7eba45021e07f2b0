"""Records of several kinds in one JSON array, told apart by a member naming their kind: one logical source
per kind, read through a JSONPath filter iterator (pipeline.mappers.offline.kinds, pipeline.sources.selection)."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.manifest import Source
from pipeline.mappers.offline.kinds import kind_member, own_members, split
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import MappingRow

from helpers import CASES


def _json(tmp_path: Path, records: list, name: str = "items.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"items": records}), encoding="utf-8")
    return load_source(Source(path, "json"), tmp_path / "copies")


def test_a_member_naming_the_kind_of_records_with_members_of_their_own_splits_them(tmp_path):
    data = load_source(Source(CASES / "json-record-kinds" / "catalogue.json", "json"), tmp_path / "copies")
    assert kind_member(data) == ("kind", {"author": [0, 2], "book": [1, 3, 4]})
    member, subs = split(data, {"catalogue"})
    assert member == "kind"
    assert [(s.source.name, s.source.stem, s.iterator, len(s.records)) for s in subs] == [
        ('catalogue.json[?(@.kind=="author")]', "author", '$.items[?(@.kind=="author")]', 2),
        ('catalogue.json[?(@.kind=="book")]', "book", '$.items[?(@.kind=="book")]', 3)]
    assert subs[0].references == ["kind", "id", "name", "birthYear"]
    assert [r["title"] for r in subs[1].records] == [["Rivers"], ["Hills"], ["Lakes"]]
    # members most kinds have say nothing of one kind: here each kind's own are those the other lacks
    assert own_members(subs) == {subs[0].source.name: {"name", "birthYear"},
                                 subs[1].source.name: {"title", "pages", "author"}}
    assert split(data, {"book"}) is None  # a kind would take the name of another source of the case


def test_no_split_without_evidence_that_the_groups_are_kinds(tmp_path):
    same = [{"id": str(i), "gender": g, "name": f"n{i}"} for i, g in enumerate("fmfmf")]
    # a category whose groups have the same members says nothing of what the records are
    assert kind_member(_json(tmp_path, same)) is None
    # a timestamp groups records by when, not what, even when the groups' members differ by chance
    dated = [{"at": "2021-07-14T18:15Z", "a": "1"}, {"at": "2021-07-14T18:15Z", "a": "2"},
             {"at": "2021-07-20T12:15Z", "b": "1"}, {"at": "2021-07-20T12:15Z", "b": "2"}]
    assert kind_member(_json(tmp_path, dated)) is None
    # the same records told apart by a named kind are split
    named = [{**r, "at": "x" if "a" in r else "y"} for r in dated]
    assert kind_member(_json(tmp_path, named)) == ("at", {"x": [0, 1], "y": [2, 3]})
    # one group of several records beside single ones: nothing to compare the single ones' members with
    lone = [{"t": "x", "a": "1"}, {"t": "x", "a": "2"}, {"t": "x", "a": "3"}, {"t": "y", "b": "1"}]
    assert kind_member(_json(tmp_path, lone)) is None
    # a member missing from one record names no kind of every record
    partial = [*named[:3], {"b": "2"}]
    assert kind_member(_json(tmp_path, partial)) is None


def test_a_kind_class_comes_from_its_name_or_its_own_members_domains_else_owl_thing(tmp_path, monkeypatch):
    from pipeline.manifest import load_manifest
    from pipeline.mappers import get_mapper, map_case
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    folder = CASES / "json-record-kinds"
    (tmp_path / "library.ttl").write_text((folder / "library.ttl").read_text(encoding="utf-8"), encoding="utf-8")
    records = [{"kind": "author", "id": "A1", "name": "Ann Lee", "birthYear": "1970"},
               {"kind": "volume", "id": "V1", "title": "Rivers", "pages": 120, "author": "A1"},
               {"kind": "memo", "id": "M1", "text": "check the index", "about": "V1"},
               {"kind": "author", "id": "A2", "name": "Bo Chen", "birthYear": "1982"},
               {"kind": "volume", "id": "V2", "title": "Hills", "pages": 98, "author": "A2"},
               {"kind": "memo", "id": "M2", "text": "reprint", "about": "V2"}]
    (tmp_path / "c.json").write_text(json.dumps({"items": records}), encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: c\nbase_iri: http://example.org/\nsources:\n- path: c.json\n"
                                        "ontologies:\n- library.ttl\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    rows = result.table
    L = "http://lib.example.org/onto#"
    classes = {d["source"].split('"')[1]: d["class"] for d in result.provenance["sources"]}
    # `author` names :Author; `volume` names no class, but its own `title` and `pages` name properties whose
    # domain is :Book; `memo` names none and its members name none: owl:Thing, no guessed class (and no row:
    # no property of the vocabulary fits its members)
    assert classes == {"author": L + "Author", "volume": L + "Book", "memo": "owl:Thing"}
    assert {r.source_file.split('"')[1] for r in rows} == {"author", "volume"}
    got = {(r.source_file.split('"')[1], r.data_reference, r.ontology_property, r.related_entity_class,
            r.join_condition) for r in rows}
    assert ("volume", "author", L + "writtenBy", L + "Author", "volume.author==author.id") in got


def test_rows_about_an_entity_whose_class_nothing_states_are_marked():
    from pipeline.mappers.offline.kinds import mark_untyped_rows
    onto = load_ontology([CASES / "json-record-kinds" / "library.ttl"])
    L = "http://lib.example.org/onto#"
    title = MappingRow("title", "x", L + "title", "owl:Thing")  # :title's domain is :Book
    label = MappingRow("label", "x", "http://www.w3.org/2000/01/rdf-schema#label", "owl:Thing")  # no domain
    link = MappingRow(None, "x", L + "writtenBy", L + "Book", "owl:Thing", join_condition="a.x==b.y")
    typed = MappingRow("title", "x", L + "title", L + "Book")
    mark_untyped_rows([title, label, link, typed], onto)
    assert title.review == (f"an entity whose class nothing states (owl:Thing, the row's subject): no domain ties "
                            f"{L}title to it; check the property")
    assert link.review == (f"an entity whose class nothing states (owl:Thing, the row's object): no range ties "
                           f"{L}writtenBy to it; check the property")
    assert (label.review, typed.review) == (None, None)
