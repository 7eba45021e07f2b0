"""The rule cache (pipeline/materialize/rule_cache.py) is keyed by everything the rule table depends
on: a document with relative IRIs is resolved against its file, so the same bytes in another
folder make another table and must not be read from the first one's entry."""
from __future__ import annotations

from pipeline.materialize.materializer import materialize
from pipeline.materialize.rule_cache import rule_key

MAPPING = """@prefix rml: <http://w3id.org/rml/> .
<#P> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "{csv}" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/p/{{id}}" ; rml:class <Person> ] .
"""


def test_the_key_has_the_location_only_for_relative_iris():
    relative, absolute = MAPPING.encode(), MAPPING.replace("<#P>", "<http://e.org/m#P>").replace(
        "<Person>", "<http://e.org/Person>").encode()
    assert rule_key(relative, "", "v", "/a/m.ttl") != rule_key(relative, "", "v", "/b/m.ttl")
    assert rule_key(absolute, "", "v", "/a/m.ttl") == rule_key(absolute, "", "v", "/b/m.ttl")


def test_the_same_relative_document_in_two_folders_gives_each_its_own_iris(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    csv = tmp_path / "people.csv"
    csv.write_text("id\n1\n", encoding="utf-8")
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "m.ttl").write_text(MAPPING.format(csv=csv), encoding="utf-8")
        materialize(tmp_path / folder / "m.ttl", output=tmp_path / f"{folder}.nt", fmt="nt")
        assert (tmp_path / f"{folder}.nt").read_text(encoding="utf-8") == (
            f"<http://example.org/p/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
            f"<{(tmp_path / folder).as_uri()}/Person> .\n")
