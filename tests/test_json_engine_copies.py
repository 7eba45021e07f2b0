"""The engine copies of a JSON file read with several iterators: each iterator's records keep the
keys its own TriplesMaps read, whatever order the mapping lists the TriplesMaps in
(``pipeline.sources.engine_copy.json_engine_copies``; case folder ``json-shared-file-drops-keys``)."""
from __future__ import annotations

import json
from pathlib import Path

from jsonpath import JSONPath
from rdflib import Graph, Literal, URIRef

from pipeline.cli import main
from pipeline.sources.engine_copy import json_engine_copies

RML = "http://w3id.org/rml/"
PREFIX = "@prefix rml: <http://w3id.org/rml/> .\n@prefix ex: <http://example.org/> .\n"
ORDERS = {"orders": [{"id": "O-1", "note": "n", "items": [{"sku": "SKU-1", "name": "Kettle", "qty": 1},
                                                          {"sku": "SKU-2", "name": "Mug", "qty": 4}]}]}


def _map(name: str, iterator: str, template: str, *refs: str, extra: str = "") -> str:
    poms = "".join(f' ;\n  rml:predicateObjectMap [ rml:predicate ex:{r.replace(".", "_")} ; '
                   f'rml:objectMap [ rml:reference "{r}" ] ]' for r in refs)
    return (f'<#{name}> rml:logicalSource [ rml:source "data.json" ; rml:referenceFormulation rml:JSONPath ; '
            f'rml:iterator "{iterator}" ] ;\n  rml:subjectMap [ rml:template "{template}" ]{poms}{extra} .\n')


def _copies(tmp_path: Path, data, *maps: str) -> tuple[Graph, list]:
    (tmp_path / "data.json").write_text(json.dumps(data), encoding="utf-8")
    rml = Graph().parse(data=PREFIX + "".join(maps), format="turtle", publicID="http://m.org/")
    return rml, json_engine_copies(rml, tmp_path, tmp_path / "inputs")


def _records(rml: Graph, name: str, base: Path) -> list:
    """The records the engine reads for the TriplesMap ``<#name>``: its iterator over its (copied) source."""
    ls = rml.value(URIRef(f"http://m.org/#{name}"), URIRef(RML + "logicalSource"))
    source = base / str(rml.value(ls, URIRef(RML + "source")))  # the copies' paths are absolute
    data = json.loads(source.read_text(encoding="utf-8"))
    return JSONPath(str(rml.value(ls, URIRef(RML + "iterator")))).parse(data)


ORDERS_MAP = _map("Orders", "$.orders[*]", "http://example.org/order/{id}", "items.name")
ITEMS_MAP = _map("Items", "$.orders[*].items[*]", "http://example.org/product/{name}", "sku")


def test_each_iterator_keeps_its_own_keys_in_either_order(tmp_path):
    for i, maps in enumerate(((ORDERS_MAP, ITEMS_MAP), (ITEMS_MAP, ORDERS_MAP))):
        folder = tmp_path / str(i)
        folder.mkdir()
        rml, findings = _copies(folder, ORDERS, *maps)
        assert _records(rml, "Items", folder) == [{"sku": "SKU-1", "name": "Kettle"}, {"sku": "SKU-2", "name": "Mug"}]
        assert _records(rml, "Orders", folder) == [{"id": "O-1", "items": [{"name": "Kettle"}, {"name": "Mug"}]}]
        # two iterators, two copies, each named by its iterator; the input is never modified
        names = sorted(p.name for p in (folder / "inputs").iterdir())
        assert len(names) == 2 and all(n.startswith("data.") and n.endswith(".engine.json") for n in names)
        assert len(findings) == 2 and all("for the iterator $.orders[*]" in str(f)
                                          or "for the iterator $.orders[*].items[*]" in str(f) for f in findings)
        assert json.loads((folder / "data.json").read_text(encoding="utf-8")) == ORDERS


def test_one_iterator_keeps_the_single_copy_name(tmp_path):
    rml, findings = _copies(tmp_path, ORDERS, ORDERS_MAP)
    assert [p.name for p in (tmp_path / "inputs").iterdir()] == ["data.engine.json"]
    assert len(findings) == 1 and "for the iterator" not in str(findings[0])


def test_a_filter_of_the_iterator_still_selects_the_same_records(tmp_path):
    data = {"items": [{"type": "a", "name": "x", "other": 1}, {"type": "b", "name": "y", "other": 2}]}
    rml, _ = _copies(tmp_path, data, _map("A", '$.items[?(@.type==\\"a\\")]', "http://example.org/{name}"))
    assert _records(rml, "A", tmp_path) == [{"type": "a", "name": "x"}]


def test_a_join_keeps_the_parent_reference_under_the_parent_iterator(tmp_path):
    join = (' ;\n  rml:predicateObjectMap [ rml:predicate ex:first ; rml:objectMap [ rml:parentTriplesMap <#Items> ; '
            'rml:joinCondition [ rml:child "firstSku" ; rml:parent "sku" ] ] ]')
    data = {"orders": [{"id": "O-1", "firstSku": "SKU-2", "items": ORDERS["orders"][0]["items"]}]}
    items = _map("Items", "$.orders[*].items[*]", "http://example.org/product/{name}")
    rml, _ = _copies(tmp_path, data, _map("Orders", "$.orders[*]", "http://example.org/order/{id}", extra=join), items)
    assert _records(rml, "Items", tmp_path) == [{"sku": "SKU-1", "name": "Kettle"}, {"sku": "SKU-2", "name": "Mug"}]
    assert _records(rml, "Orders", tmp_path) == [{"id": "O-1", "firstSku": "SKU-2"}]


def test_nested_records_of_one_iterator_keep_their_route(tmp_path):
    data = {"items": [{"name": "a", "x": 1, "items": [{"name": "b", "x": 2}]}]}
    rml, _ = _copies(tmp_path, data, _map("T", "$..items[*]", "http://example.org/{name}"))
    assert [r["name"] for r in _records(rml, "T", tmp_path)] == ["a", "b"]
    assert "x" not in json.dumps(_records(rml, "T", tmp_path))


def test_the_kg_has_every_iterator_s_values(tmp_path, capsys):
    (tmp_path / "data.json").write_text(json.dumps(ORDERS), encoding="utf-8")
    (tmp_path / "m.ttl").write_text(PREFIX + ORDERS_MAP + ITEMS_MAP, encoding="utf-8")
    for run in range(3):  # the mapping graph's order changes from run to run; the KG must not
        out = tmp_path / f"kg{run}.nt"
        assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(out)]) == 0
        kg = Graph().parse(out, format="nt")
        assert set(kg.objects(None, URIRef("http://example.org/sku"))) == {Literal("SKU-1"), Literal("SKU-2")}
        assert set(kg.objects(None, URIRef("http://example.org/items_name"))) == {Literal("Kettle"), Literal("Mug")}
    assert "no value for 'sku'" not in capsys.readouterr().err
