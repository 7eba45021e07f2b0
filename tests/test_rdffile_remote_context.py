"""A JSON-LD file whose @context is a remote document is never read by fetching it (kgc runs offline):
pipeline.rdffile.remote_contexts finds every such context, load_graph refuses the file before rdflib
opens a connection, and a context file beside the document is read."""
from __future__ import annotations

import json

import pytest

from pipeline.rdffile import RemoteContextError, load_graph, remote_contexts


def test_remote_contexts_anywhere_in_the_document(tmp_path):
    doc = {"@context": ["https://schema.org/", {"@import": "http://example.org/imported.jsonld",
                                                "knows": {"@context": "http://example.org/scoped.jsonld"}},
                        "local.jsonld"],
           "@graph": [{"@context": "https://schema.org/", "name": "Ann"},
                      {"@context": "file:///tmp/ctx.jsonld", "name": "Bob"}]}
    path = tmp_path / "kg.jsonld"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert remote_contexts(path) == ["https://schema.org/", "http://example.org/imported.jsonld",
                                     "http://example.org/scoped.jsonld"]
    path.write_text("{not json", encoding="utf-8")
    assert remote_contexts(path) == []  # the parser says why it cannot read it


def test_load_graph_refuses_a_remote_context_without_a_connection(tmp_path, no_network):
    path = tmp_path / "gold.jsonld"
    path.write_text('{"@context": "https://schema.org/", "@id": "http://example.org/p/ann", "name": "Ann"}',
                    encoding="utf-8")
    with pytest.raises(RemoteContextError) as err:
        load_graph(path, "gold graph")
    assert str(err.value) == (f"{path}: gold graph: its @context https://schema.org/ is a remote document, which kgc "
                              "does not fetch (it runs offline); save the context as a local file and name that "
                              "file in @context")
    assert err.value.urls == ["https://schema.org/"]


def test_a_local_context_file_is_read(tmp_path, no_network):
    (tmp_path / "ctx.jsonld").write_text('{"@context": {"@vocab": "https://schema.org/"}}', encoding="utf-8")
    path = tmp_path / "kg.jsonld"
    path.write_text('{"@context": "ctx.jsonld", "@id": "http://example.org/p/ann", "name": "Ann"}',
                    encoding="utf-8")
    triples = {(str(s), str(p), str(o)) for s, p, o in load_graph(path)}
    assert triples == {("http://example.org/p/ann", "https://schema.org/name", "Ann")}
