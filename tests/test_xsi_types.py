"""Records of one element with several xsi:type values are warned of (XML Schema 1.1 Part 1, 2.7.1)."""
from __future__ import annotations

from lxml import etree

from pipeline.manifest import Source
from pipeline.sources.load import load_source
from pipeline.sources.tree import XSI, xsi_types

DOC = """<r xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
  <p i:type="a:Person" id="1"><n>x</n></p>
  <p i:type="Org" id="2"><n>y</n></p>
  <p i:type="Org" id="3"><n>z</n></p>
  <p id="4"><n>w</n></p>
</r>"""


def test_several_types_warned_with_the_document_prefix_and_counts():
    root = etree.fromstring(DOC)
    f = xsi_types(list(root), "/d/x.xml", "/r/p", {"i": XSI})
    assert f.severity == "warning" and f.column == "iterator" and f.value == "/r/p"
    assert f.message == (
        "the records at '/r/p' are of 2 types by their i:type attribute: 'a:Person' (1), 'Org' (2), 1 without "
        "one; i:type names each element's type (XML Schema 1.1 Part 1, section 2.7.1), but read at one iterator "
        "they are one kind of record, mapped to one class; to map each type as its own kind, list the file once "
        "per type in the manifest: {path: x.xml, name: Person.xml, iterator: \"/r/p[@i:type='a:Person']\"}; "
        "{path: x.xml, name: Org.xml, iterator: \"/r/p[@i:type='Org']\"}")
    # the iterators it proposes select exactly each type's records
    assert [e.get("id") for e in root.xpath("/r/p[@i:type='Org']", namespaces={"i": XSI})] == ["2", "3"]


def test_one_type_or_none_is_no_finding():
    root = etree.fromstring(DOC)
    assert xsi_types([e for e in root if e.get("id") in ("2", "3", "4")], "x.xml", "/r/p", {"i": XSI}) is None
    assert xsi_types([], "x.xml", "/r/p", {}) is None


def test_loader_reports_it_and_not_for_an_iterator_of_one_type(tmp_path):
    p = tmp_path / "x.xml"
    p.write_text(DOC, encoding="utf-8")
    data = load_source(Source(path=p, format="xml"), tmp_path / "w1")
    assert [f.value for f in data.findings if "types by their" in f.message] == ["/r/p"]
    one = load_source(Source(path=p, format="xml", iterator="/r/p[@i:type='Org']"), tmp_path / "w2")
    assert len(one.records) == 2
    assert not [f for f in one.findings if "types by their" in f.message]
