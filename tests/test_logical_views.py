"""RML-LV logical views: the Python API (view definition in, iterations out) and ``kgc materialize``
on mappings with views (nested iteration, index keys, joins, mixed formats, refused views)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.materialize.views.records import Source
from pipeline.materialize.views.view import (Expression, ExpressionField, IterableField, LogicalView, ViewError,
                                             ViewJoin)

from helpers import materialize_mapping

PEOPLE = ('{"people": [{"name": "alice", "items": [{"type": "sword", "weight": 1500}, {"type": "shield", '
          '"weight": 2500}]}, {"name": "bob", "items": [{"type": "flower", "weight": 15}]}, {"name": "carol"}]}')
BIRTHS = "name,birthyear\nalice,1995\ntobias,2005\nbob,1999\n"


def _lex(row: dict) -> dict:
    return {k: (None if v is None else v.lexical) for k, v in row.items()}


def test_view_api_nested_iteration_with_index_keys(tmp_path):
    (tmp_path / "people.json").write_text(PEOPLE, encoding="utf-8")
    view = LogicalView(Source(tmp_path / "people.json", "JSONPath", "$.people[*]"), [
        ExpressionField("name", reference="$.name"),
        IterableField("item", iterator="$.items[*]", fields=[ExpressionField("type", reference="$.type"),
                                                               ExpressionField("weight", reference="$.weight")])])
    rows = view.iterations()
    assert [_lex(r) for r in rows] == [
        {"#": "0", "name": "alice", "name.#": "0", "item.#": "0", "item.type": "sword", "item.type.#": "0",
         "item.weight": "1500", "item.weight.#": "0"},
        {"#": "0", "name": "alice", "name.#": "0", "item.#": "1", "item.type": "shield", "item.type.#": "0",
         "item.weight": "2500", "item.weight.#": "0"},
        {"#": "1", "name": "bob", "name.#": "0", "item.#": "0", "item.type": "flower", "item.type.#": "0",
         "item.weight": "15", "item.weight.#": "0"},
        # no items: the iteration is kept, its item keys are null
        {"#": "2", "name": "carol", "name.#": "0", "item.#": None, "item.type": None, "item.type.#": None,
         "item.weight": None, "item.weight.#": None}]

    # natural datatypes: JSON numbers and index keys are xsd:integer, strings have none
    assert rows[0]["item.weight"].datatype == rows[0]["#"].datatype == "http://www.w3.org/2001/XMLSchema#integer"
    assert rows[0]["name"].datatype is None


def test_view_api_left_and_inner_join_with_join_field_index(tmp_path):
    (tmp_path / "people.json").write_text(PEOPLE, encoding="utf-8")
    (tmp_path / "births.csv").write_text(BIRTHS, encoding="utf-8")
    items = LogicalView(Source(tmp_path / "people.json", "JSONPath", "$.people[*]"),
                        [ExpressionField("name", reference="$.name"), ExpressionField("item", reference="$.items[*].type")])
    base = [ExpressionField("name", reference="name"), ExpressionField("year", reference="birthyear")]

    def joined(inner: bool) -> list[dict]:
        view = LogicalView(Source(tmp_path / "births.csv", "CSV"), list(base), [
            ViewJoin(items, [(Expression(reference="name"), Expression(reference="name"))],
                     [ExpressionField("thing", reference="item")], inner=inner)])
        return [(r["name"].lexical, r["#"].lexical, r["thing"] and r["thing"].lexical,
                 r["thing.#"] and r["thing.#"].lexical) for r in view.iterations()]

    assert joined(False) == [("alice", "0", "sword", "0"), ("alice", "0", "shield", "1"), ("tobias", "1", None, None),
                             ("bob", "2", "flower", "0")]
    assert joined(True) == [("alice", "0", "sword", "0"), ("alice", "0", "shield", "1"), ("bob", "2", "flower", "0")]


def test_view_api_mixed_formats_csv_text_inside_json(tmp_path):
    (tmp_path / "mixed.json").write_text('[{"name": "alice", "items": "type,weight\\nsword,1500\\nshield,2500"}]',
                                         encoding="utf-8")
    view = LogicalView(Source(tmp_path / "mixed.json", "JSONPath", "$[*]"), [
        ExpressionField("items", reference="$.items", fields=[
            IterableField("item", formulation="CSV", fields=[ExpressionField("type", reference="type")])])])
    assert [(r["#"].lexical, r["items.item.#"].lexical, r["items.item.type"].lexical) for r in view.iterations()] == \
        [("0", "0", "sword"), ("0", "1", "shield")]


def test_view_api_refuses_name_collisions_and_unknown_keys(tmp_path):
    (tmp_path / "people.json").write_text(PEOPLE, encoding="utf-8")
    src = Source(tmp_path / "people.json", "JSONPath", "$.people[*]")
    with pytest.raises(ViewError, match="two fields are named 'name'"):
        LogicalView(src, [ExpressionField("name", reference="$.name"), ExpressionField("name", constant="x")]).keys()
    outer = LogicalView(LogicalView(src, [ExpressionField("name", reference="$.name")], name="urn:inner"),
                        [ExpressionField("n", reference="Name")], name="urn:outer")
    with pytest.raises(ViewError, match="'Name' is no key of the view"):
        outer.iterations()


PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix : <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
JSON_SOURCE = """:jsonSource a rml:LogicalSource ; rml:source [ a rml:RelativePathSource ; rml:path "people.json" ] ;
  rml:referenceFormulation rml:JSONPath ; rml:iterator "$.people[*]" .
"""


def _run(tmp_path: Path, mapping: str, monkeypatch, capsys) -> tuple[int, str, str]:
    return materialize_mapping(tmp_path, PREFIXES + JSON_SOURCE + mapping, {"people.json": PEOPLE, "births.csv": BIRTHS},
                               monkeypatch, capsys)


def test_materialize_a_view_with_nested_fields_index_and_a_join(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, """
:jsonView a rml:LogicalView ; rml:viewOn :jsonSource ;
  rml:field [ a rml:ExpressionField ; rml:fieldName "name" ; rml:reference "$.name" ] ;
  rml:field [ a rml:IterableField ; rml:fieldName "item" ; rml:iterator "$.items[*]" ;
              rml:field [ a rml:ExpressionField ; rml:fieldName "type" ; rml:reference "$.type" ] ;
              rml:field [ a rml:ExpressionField ; rml:fieldName "weight" ; rml:reference "$.weight" ] ] .
:csvView a rml:LogicalView ;
  rml:viewOn [ rml:source [ a rml:RelativePathSource ; rml:path "births.csv" ] ; rml:referenceFormulation rml:CSV ] ;
  rml:field [ a rml:ExpressionField ; rml:fieldName "name" ; rml:reference "name" ] ;
  rml:field [ a rml:ExpressionField ; rml:fieldName "year" ; rml:reference "birthyear" ] ;
  rml:innerJoin [ rml:parentLogicalView :jsonView ;
      rml:joinCondition [ rml:childMap [ rml:reference "name" ] ; rml:parentMap [ rml:reference "name" ] ] ;
      rml:field [ a rml:ExpressionField ; rml:fieldName "thing" ; rml:reference "item.type" ] ] .
:items a rml:TriplesMap ; rml:logicalSource :jsonView ;
  rml:subjectMap [ rml:template "http://example.org/{name}/item/{item.#}" ] ;
  rml:predicateObjectMap [ rml:predicate :weight ; rml:objectMap [ rml:reference "item.weight" ] ] .
:people a rml:TriplesMap ; rml:logicalSource :csvView ;
  rml:subjectMap [ rml:template "http://example.org/{name}" ] ;
  rml:predicateObjectMap [ rml:predicate :born ; rml:objectMap [ rml:reference "year" ; rml:datatype xsd:gYear ] ] ;
  rml:predicateObjectMap [ rml:predicate :has ; rml:objectMap [ rml:template "http://example.org/thing/{thing}" ] ] .
""", monkeypatch, capsys)
    assert rc == 0, err
    i, y = "http://www.w3.org/2001/XMLSchema#integer", "http://www.w3.org/2001/XMLSchema#gYear"
    assert same_dataset(out, f"""<http://example.org/alice/item/0> <http://example.org/weight> "1500"^^<{i}> .
<http://example.org/alice/item/1> <http://example.org/weight> "2500"^^<{i}> .
<http://example.org/bob/item/0> <http://example.org/weight> "15"^^<{i}> .
<http://example.org/alice> <http://example.org/born> "1995"^^<{y}> .
<http://example.org/bob> <http://example.org/born> "1999"^^<{y}> .
<http://example.org/alice> <http://example.org/has> <http://example.org/thing/sword> .
<http://example.org/alice> <http://example.org/has> <http://example.org/thing/shield> .
<http://example.org/bob> <http://example.org/has> <http://example.org/thing/flower> .
""") == (True, "")


@pytest.mark.parametrize("views,message", [
    (""":v1 a rml:LogicalView ; rml:viewOn :v2 ; rml:field [ rml:fieldName "a" ; rml:reference "b" ] .
:v2 a rml:LogicalView ; rml:viewOn :v1 ; rml:field [ rml:fieldName "b" ; rml:reference "a" ] .""",
     "is defined in terms of itself"),
    (""":v1 a rml:LogicalView ; rml:viewOn :jsonSource ; rml:field :f1 .
:f1 a rml:IterableField ; rml:fieldName "item" ; rml:iterator "$.items[*]" ; rml:field :f2 .
:f2 a rml:ExpressionField ; rml:fieldName "type" ; rml:reference "$.type" ; rml:field :f1 .""",
     "is nested in itself"),
    (""":v1 a rml:LogicalView ; rml:viewOn :jsonSource ; rml:field [ rml:fieldName "name" ; rml:reference "$.name" ] .""",
     "'<it>' is the record key of an iterable record"),
], ids=["viewOn-cycle", "field-cycle", "record-key"])
def test_invalid_views_are_refused_with_the_rule(tmp_path, monkeypatch, capsys, views, message):
    rc, err, _ = _run(tmp_path, views + """
:tm a rml:TriplesMap ; rml:logicalSource :v1 ; rml:subjectMap [ rml:template "http://example.org/{name}" ] ;
  rml:predicateObjectMap [ rml:predicate :p ; rml:objectMap [ rml:reference "<it>" ] ] .
""", monkeypatch, capsys)
    assert rc == 2
    assert message in err and "Traceback" not in err


def test_a_record_whose_cross_product_explodes_is_refused_naming_the_fields(tmp_path, monkeypatch):
    """RML-LV combines a record's field values as a cross product: 4 x 5 x 3 values give 60 iterations;
    past the bound the view is refused (it ran for ever on a record of a dozen repeated parts)."""
    import pipeline.materialize.views.view as view_module

    doc = '{"r": [{"a": [1, 2, 3, 4], "b": [1, 2, 3, 4, 5], "c": [1, 2, 3]}]}'
    (tmp_path / "d.json").write_text(doc, encoding="utf-8")
    view = LogicalView(Source(tmp_path / "d.json", "JSONPath", "$.r[*]"), [
        ExpressionField("a", reference="$.a[*]"), ExpressionField("b", reference="$.b[*]"),
        ExpressionField("c", reference="$.c[*]")], name="http://ex.org/v")
    assert len(view.iterations()) == 60
    monkeypatch.setattr(view_module, "MAX_ITERATIONS", 59)
    with pytest.raises(ViewError, match=r"logical view <http://ex.org/v>: record 0 gives more than 59 iterations: .* "
                                        r"here 'b' 5 x 'a' 4 x 'c' 3;"):
        view.iterations()
