"""RML-CC gather maps through ``kgc materialize``: lists and containers per iteration, named ones
concatenated, empty ones, the Cartesian-product strategy, nested gather maps, a gather map as
subject map, a referencing object map gathered, graphs. Expected outputs are written out and
compared as RDF datasets (blank nodes included)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.cli import main

DATA = '[{"id": "a", "v1": ["1", "2"], "v2": ["x"]}, {"id": "b", "v1": [], "v2": []}, ' \
       '{"id": "a", "v1": ["3"], "v2": ["y", "z"]}]'
R = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def _run(tmp_path: Path, object_map: str, monkeypatch, capsys, subject: str = '[ rml:template "e/{$.id}" ]',
         extra: str = "") -> tuple[int, str, str]:
    (tmp_path / "data.json").write_text(DATA, encoding="utf-8")
    pom = f"rml:predicateObjectMap [ rml:predicate ex:with ; rml:objectMap {object_map} ] ;" if object_map else ""
    (tmp_path / "mapping.ttl").write_text(f"""@prefix rml: <http://w3id.org/rml/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix ex: <http://example.org/> .
@base <http://example.org/> .
<#TM> a rml:TriplesMap ;
  rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "data.json" ] ;
                      rml:referenceFormulation rml:JSONPath ; rml:iterator "$[*]" ] ;
  {pom}
  rml:subjectMap {subject} .
{extra}
""", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out" / "kg.nq"
    rc = main(["materialize", "mapping.ttl", str(out), "--format", "nq"])
    return rc, capsys.readouterr().err, out.read_text(encoding="utf-8") if out.is_file() else ""


def _list(head: str, items: list[str], graph: str = "") -> str:
    tag = "".join(ch for ch in head if ch.isalnum())
    lines, cells = [], [head] + [f"_:c{tag}{i}" for i in range(1, len(items))]
    for i, item in enumerate(items):
        rest = cells[i + 1] if i + 1 < len(items) else f"<{R}nil>"
        lines += [f"{cells[i]} <{R}first> {item} {graph} .", f"{cells[i]} <{R}rest> {rest} {graph} ."]
    return "\n".join(lines) + "\n"


A, B = "<http://example.org/e/a>", "<http://example.org/e/b>"
W = "<http://example.org/with>"


def test_one_list_per_iteration_and_no_empty_list_by_default(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, '[ rml:gather ( [ rml:reference "$.v1.*" ] [ rml:reference "$.v2.*" ] ) ; '
                                  "rml:gatherAs rdf:List ]", monkeypatch, capsys)
    assert rc == 0, err
    expected = f"{A} {W} _:l1 .\n{A} {W} _:l2 .\n" + _list("_:l1", ['"1"', '"2"', '"x"']) + \
        _list("_:l2", ['"3"', '"y"', '"z"'])
    assert same_dataset(out, expected) == (True, "")


def test_named_lists_of_iterations_with_the_same_head_are_concatenated(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, '[ rml:template "list/{$.id}" ; rml:allowEmptyListAndContainer true ; '
                                  'rml:gather ( [ rml:reference "$.v1.*" ] ) ; rml:gatherAs rdf:List ]',
                        monkeypatch, capsys)
    assert rc == 0, err
    la = "<http://example.org/list/a>"
    # b's list is empty: rdf:nil replaces its head
    expected = f"{A} {W} {la} .\n{B} {W} <{R}nil> .\n" + _list(la, ['"1"', '"2"', '"3"'])
    assert same_dataset(out, expected) == (True, "")


def test_empty_container_allowed_and_cartesian_product(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, '[ rml:allowEmptyListAndContainer true ; rml:strategy rml:cartesianProduct ; '
                                  'rml:gather ( [ rml:reference "$.v1.*" ] [ rml:reference "$.v2.*" ] ) ; '
                                  "rml:gatherAs rdf:Bag ]", monkeypatch, capsys)
    assert rc == 0, err
    bags = [("_:b1", A, '"1"', '"x"'), ("_:b2", A, '"2"', '"x"'), ("_:b3", A, '"3"', '"y"'), ("_:b4", A, '"3"', '"z"')]
    expected = "".join(f"{s} {W} {b} .\n{b} <{R}type> <{R}Bag> .\n{b} <{R}_1> {x} .\n{b} <{R}_2> {y} .\n"
                       for b, s, x, y in bags)
    # b: the product with an empty set is empty, so no bag at all (allowEmptyListAndContainer or not)
    assert same_dataset(out, expected) == (True, "")


def test_nested_gather_maps_and_duplicates_kept(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, "[ rml:gather ( [ rml:gather ( [ rml:reference \"$.v2.*\" ] [ rml:constant \"x\" ] ) ; "
                                  "rml:gatherAs rdf:Seq ] ) ; rml:gatherAs rdf:List ]", monkeypatch, capsys)
    assert rc == 0, err
    # b's v2 is empty, the constant still makes a one-member sequence
    expected = (f"{A} {W} _:l1 .\n{A} {W} _:l2 .\n{B} {W} _:l3 .\n" + _list("_:l1", ["_:s1"]) +
                _list("_:l2", ["_:s2"]) + _list("_:l3", ["_:s3"]) +
                f'_:s1 <{R}type> <{R}Seq> .\n_:s1 <{R}_1> "x" .\n_:s1 <{R}_2> "x" .\n'
                f'_:s2 <{R}type> <{R}Seq> .\n_:s2 <{R}_1> "y" .\n_:s2 <{R}_2> "z" .\n_:s2 <{R}_3> "x" .\n'
                f'_:s3 <{R}type> <{R}Seq> .\n_:s3 <{R}_1> "x" .\n')
    assert same_dataset(out, expected) == (True, "")


def test_gather_map_as_subject_map_with_a_class(tmp_path, monkeypatch, capsys):
    rc, err, out = _run(tmp_path, "", monkeypatch, capsys,
                        subject='[ rml:gather ( [ rml:reference "$.v1.*" ] ) ; rml:gatherAs rdf:Alt ; rml:class ex:Set ]')
    assert rc == 0, err
    expected = "".join(f"{b} <{R}type> <{R}Alt> .\n{b} <{R}type> <http://example.org/Set> .\n" +
                       "".join(f'{b} <{R}_{i}> "{v}" .\n' for i, v in enumerate(vals, 1))
                       for b, vals in (("_:a1", ["1", "2"]), ("_:a2", ["3"])))
    assert same_dataset(out, expected) == (True, "")


def test_gathered_referencing_object_map_and_graph(tmp_path, monkeypatch, capsys):
    parent = """<#P> a rml:TriplesMap ;
  rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "data.json" ] ;
                      rml:referenceFormulation rml:JSONPath ; rml:iterator "$[*]" ] ;
  rml:subjectMap [ rml:template "p/{$.id}/{$.v2[0]}" ] ."""
    rc, err, out = _run(tmp_path, '[ rml:gather ( [ rml:parentTriplesMap <#P> ; rml:joinCondition '
                                  '[ rml:child "$.id" ; rml:parent "$.id" ] ] ) ; rml:gatherAs rdf:List ] ] ; '
                                  'rml:predicateObjectMap [ rml:predicate ex:g ; rml:object "o" ; rml:graphMap '
                                  '[ rml:template "g/{$.id}" ]', monkeypatch, capsys, extra=parent)
    assert rc == 0, err
    pa, pb = "<http://example.org/p/a/x>", "<http://example.org/p/a/y>"
    expected = (f"{A} {W} _:l1 .\n{A} {W} _:l2 .\n" + _list("_:l1", [pa, pb]) + _list("_:l2", [pa, pb]) +
                f'{A} <http://example.org/g> "o" <http://example.org/g/a> .\n'
                f'{B} <http://example.org/g> "o" <http://example.org/g/b> .\n')
    assert same_dataset(out, expected) == (True, "")


@pytest.mark.parametrize("gather,message", [
    ('[ rml:gather ( [ rml:reference "$.v1.*" ] ) ; rml:gatherAs rdf:Set ]', "rml:gatherAs"),
    ('[ rml:gather () ; rml:gatherAs rdf:List ]', "empty rml:gather list"),
], ids=["unknown-gatherAs", "empty-gather"])
def test_invalid_gather_maps_are_refused(tmp_path, monkeypatch, capsys, gather, message):
    rc, err, _ = _run(tmp_path, gather, monkeypatch, capsys)
    assert rc == 2
    assert message in err and "TriplesMap" in err and "Traceback" not in err
