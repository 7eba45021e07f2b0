"""Relative IRIs in Turtle resolve as RFC 3986 section 5.2.2 says, also against a base that ends in ``#``
(rdflib alone gives ``ns##Crop``): mappings, gold graphs and shapes read through :mod:`pipeline.rdffile`."""
from rdflib import URIRef

from pipeline.rdffile import load_graph, parse_turtle

DOC = """@base <http://example.com/a/ns#frag> .
@prefix p: <#> .
<#Crop> <#name> <> .
<x> <../y> p:z .
@base <sub#other> .
<#d> <#e> <> .
"""


def test_fragment_of_base_never_kept():
    # RFC 3986 5.2.2: T.fragment = R.fragment; path and authority come from the base, never its fragment
    g = parse_turtle(data=DOC, public_id="file:///tmp/m.ttl")
    assert sorted(tuple(str(t) for t in tr) for tr in g) == [
        ("http://example.com/a/ns#Crop", "http://example.com/a/ns#name", "http://example.com/a/ns"),
        ("http://example.com/a/sub#d", "http://example.com/a/sub#e", "http://example.com/a/sub"),
        ("http://example.com/a/x", "http://example.com/y", "http://example.com/a/ns#z"),
    ]


def test_base_without_fragment_unchanged():
    g = parse_turtle(data="@base <http://example.com/ns/> . <#a> <b> <../c> .")
    assert list(g) == [(URIRef("http://example.com/ns/#a"), URIRef("http://example.com/ns/b"),
                        URIRef("http://example.com/c"))]


def test_gold_graph_in_turtle(tmp_path):
    path = tmp_path / "gold.ttl"
    path.write_text("@base <http://example.com/ns#> .\n<#s> a <#C> .\n", encoding="utf-8")
    assert {str(o) for o in load_graph(path).objects()} == {"http://example.com/ns#C"}
