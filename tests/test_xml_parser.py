"""kgc reads XML sources as the engine's parser (expat, via xml.etree) does: the internal DTD
subset's attribute defaults are applied (XML 1.0 sections 3.3.2 and 5.1), an external DTD is never
read. Checked against xml.etree itself, the parser Morph-KGC 2.10 uses."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from lxml import etree

from pipeline.manifest import Source as ManifestSource
from pipeline.materialize.views.records import Source, iterate, read_document
from pipeline.sources.checks import parse_xml
from pipeline.sources.load import load_source
from pipeline.sources.xml_parser import parse_file, xml_parser

INTERNAL = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE catalogue [
  <!ATTLIST livre langue CDATA "fr" statut CDATA #FIXED "publie" note CDATA #IMPLIED>
  <!ENTITY cam "Albert Camus">
]>
<catalogue>
  <livre id="b1"><auteur>&cam;</auteur></livre>
  <livre id="b2" langue="en"><auteur>&cam;</auteur></livre>
</catalogue>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE catalogue SYSTEM "ext.dtd" [
  <!ATTLIST livre x CDATA "1">
]>
<catalogue><livre id="b1"/></catalogue>
"""


def _attrs(root) -> list[dict[str, str]]:
    return [dict(e.attrib) for e in root]


def test_internal_subset_defaults_applied_as_the_engine_does(tmp_path):
    p = tmp_path / "livres.xml"
    p.write_text(INTERNAL, encoding="utf-8")
    want = [{"id": "b1", "langue": "fr", "statut": "publie"}, {"id": "b2", "langue": "en", "statut": "publie"}]
    assert _attrs(ET.parse(p).getroot()) == want
    assert _attrs(parse_file(p).getroot()) == want
    tree = parse_xml(p)  # the load checks' and the profiler's parse, entities expanded
    assert _attrs(tree.getroot()) == want
    assert [e.findtext("auteur") for e in tree.getroot()] == ["Albert Camus", "Albert Camus"]
    assert tree.docinfo.URL == str(p)


def test_external_dtd_never_read(tmp_path):
    (tmp_path / "ext.dtd").write_text('<!ATTLIST livre langue CDATA "de">\n', encoding="utf-8")
    p = tmp_path / "e.xml"
    p.write_text(EXTERNAL, encoding="utf-8")
    assert _attrs(ET.parse(p).getroot()) == [{"id": "b1", "x": "1"}]
    assert _attrs(parse_xml(p).getroot()) == [{"id": "b1", "x": "1"}]
    # a DTD on the network is not fetched either (no_network, and the resolver serves it empty)
    p.write_text(EXTERNAL.replace('"ext.dtd"', '"http://example.invalid/ext.dtd"'), encoding="utf-8")
    assert _attrs(parse_file(p).getroot()) == [{"id": "b1", "x": "1"}]


def test_in_memory_document_gets_the_defaults():
    root = etree.fromstring(INTERNAL.encode("utf-8"), xml_parser())
    assert [e.get("langue") for e in root] == ["fr", "en"]


def test_profiler_and_views_see_the_default(tmp_path):
    p = tmp_path / "livres.xml"
    p.write_text(INTERNAL, encoding="utf-8")
    data = load_source(ManifestSource(path=p, format="xml"), tmp_path / "work")
    assert data.values("@langue") == ["fr", "en"]
    its = iterate("XPath", read_document(Source(path=p, formulation="XPath")), "/catalogue/livre")
    assert len(its) == 2
    assert [[v.lexical for v in it.values("@langue")] for it in its] == [["fr"], ["en"]]
