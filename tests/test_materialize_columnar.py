"""The columnar path (pipeline/materialize/columnar.py) writes the engine path's bytes and findings.

Every case is materialized twice from the same engine copy, by the columnar path and by the
engine's own per-row path (``columnar=False``), and the output files, the counts and the findings
must be equal; each case also checks that the columnar path did run its rules (or, where a rule
is left to the engine, that it did not).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pipeline.materialize.columnar as columnar
import pipeline.materialize.materializer as materializer
from pipeline.cli import main
from pipeline.materialize.materializer import materialize

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"
PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/o#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix fn: <https://w3id.org/kgc-pipeline/function#> .
@prefix grel: <http://users.ugent.be/~bjdmeest/function/grel.ttl#> .
@base <http://example.org/base/> .
"""


def _findings(result) -> list[tuple]:
    return sorted((f.message, f.severity, f.value, f.file, f.line) for f in result.findings)


def _both(folder: Path, tmp_path: Path, monkeypatch, rml: str = "m.rml.ttl", fmt: str = "nq") -> tuple:
    """Materialize ``folder``'s mapping both ways; returns (columnar result, engine result, rules run
    by the columnar path, output text)."""
    monkeypatch.chdir(folder)
    main(["-q", "materialize", rml, str(tmp_path / f"first.{fmt}"), "--engine-only",
          "--engine-copy", str(tmp_path / "first.morph-kgc.ttl")])
    engine_copy = tmp_path / "first.morph-kgc.ttl"
    ran = []
    run_file = columnar.run_file

    def spy(path, source_type, rules, *args, **kwargs):
        ran.extend(r.triples_map for r in rules)
        return run_file(path, source_type, rules, *args, **kwargs)

    monkeypatch.setattr(materializer, "run_file", spy)
    fast = materialize(engine_copy, output=tmp_path / f"columnar.{fmt}", fmt=fmt)
    slow = materialize(engine_copy, output=tmp_path / f"engine.{fmt}", fmt=fmt, columnar=False)
    text = (tmp_path / f"columnar.{fmt}").read_text(encoding="utf-8")
    assert text == (tmp_path / f"engine.{fmt}").read_text(encoding="utf-8")
    assert (fast.n_triples, fast.n_quads, fast.dropped) == (slow.n_triples, slow.n_quads, slow.dropped)
    assert _findings(fast) == _findings(slow)
    return fast, slow, ran, text


def _case(tmp_path: Path, mapping: str, files: dict[str, str]) -> Path:
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "m.rml.ttl").write_text(PREFIXES + mapping, encoding="utf-8")
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    return folder


def test_the_stream_guard_case_drops_and_repairs_as_the_engine_path(tmp_path, monkeypatch):
    # odd IRIs, language tags from a column, integers, padded and escaped literals, blank nodes,
    # a graph template, duplicate rows: every guard reason
    folder = tmp_path / "case"
    shutil.copytree(CASES / "stream-guard", folder)
    fast, _, ran, text = _both(folder, tmp_path, monkeypatch)
    assert text == (CASES / "stream-guard" / "expected.nq").read_text(encoding="utf-8")
    assert (fast.n_triples, fast.n_quads, fast.dropped) == (36, 10, 10)
    assert len(ran) == 10 and len(_findings(fast)) == 8  # 5 drops and repairs, 3 columns with an empty cell


@pytest.mark.parametrize("chunk", [1, 2, 1 << 18])
def test_joins_one_to_many_on_two_keys_across_files_and_chunks(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(columnar, "CHUNK_ROWS", chunk)
    folder = _case(tmp_path, """
<#Stop> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "stops.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/stop/{agency}/{id}" ; rml:class ex:Stop ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ; rml:language "en" ] ] .
<#Time> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "times.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/time/{trip}-{seq}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:seq ; rml:objectMap [ rml:reference "seq" ; rml:datatype xsd:integer ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:stop ; rml:objectMap [ rml:parentTriplesMap <#Stop> ;
      rml:joinCondition [ rml:child "stop" ; rml:parent "id" ] ;
      rml:joinCondition [ rml:child "agency" ; rml:parent "agency" ] ] ] .
""", {"stops.csv": "id,agency,name\ns1,A,Main\ns1,A,Main Street\ns2,A,Dock\ns1,B,Other\ns3,,NoAgency\n",
      "times.csv": "trip,seq,stop,agency\nt1,1,s1,A\nt1,2,s2,A\nt1,1,s1,A\nt2,1,s1,B\nt2,x,s3,\nt3,1,s9,A\nt3,2,,A\n"})
    fast, _, ran, text = _both(folder, tmp_path, monkeypatch, fmt="nt")
    assert len(ran) == 4  # rdf:type and name of a stop, seq and stop of a time
    stop = [ln for ln in text.splitlines() if "#stop>" in ln]
    # s1/A has two names but one IRI; t1-1 twice in the data: one statement; s3 has no agency, s9 no parent
    assert stop == ["<http://example.org/time/t1-1> <http://example.org/o#stop> <http://example.org/stop/A/s1> .",
                    "<http://example.org/time/t1-2> <http://example.org/o#stop> <http://example.org/stop/A/s2> .",
                    "<http://example.org/time/t2-1> <http://example.org/o#stop> <http://example.org/stop/B/s1> ."]
    assert fast.dropped == 2  # "x" is no xsd:integer; the stop s9 of agency A has no parent (a value dropped)


def test_functions_value_maps_and_grel_per_distinct_value(tmp_path, monkeypatch):
    monkeypatch.setattr(columnar, "CHUNK_ROWS", 3)
    folder = _case(tmp_path, """
<#R> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "r.tsv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/r/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:type ; rml:objectMap [ rml:termType rml:IRI ; rml:functionExecution <#vm> ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:title ; rml:objectMap [ rml:functionExecution <#up> ; rml:language "en" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:day ; rml:objectMap [ rml:functionExecution <#date> ; rml:datatype xsd:date ] ] .
<#vm> rml:function fn:valueMap ;
  rml:input [ rml:parameter fn:value ; rml:inputValueMap [ rml:reference "code" ] ] ,
            [ rml:parameter fn:map ; rml:inputValueMap [ rml:constant "{\\"1\\": \\"http://example.org/k/one\\", \\"2\\": \\"http://example.org/k/two\\"}" ] ] .
<#up> rml:function grel:toUpperCase ;
  rml:input [ rml:parameter grel:valueParam ; rml:inputValueMap [ rml:reference "title" ] ] .
<#date> rml:function fn:normalizeDate ;
  rml:input [ rml:parameter fn:value ; rml:inputValueMap [ rml:reference "day" ] ] ,
            [ rml:parameter fn:order ; rml:inputValueMap [ rml:constant "DMY" ] ] .
""", {"r.tsv": "id\tcode\ttitle\tday\n1\t1\tmr \"x\"\t03/04/2024\n2\t2\tback\\\\slash\t31/02/2024\n3\t3\tzoë\t"
               "29 April 2003\n4\t1\tmr \"x\"\tnone\n5\t\tempty\t01/01/2000\n"})
    text_in = (folder / "m.rml.ttl").read_text().replace('"r.tsv" ; rml:referenceFormulation rml:CSV', '"r.tsv"')
    (folder / "m.rml.ttl").write_text(text_in)
    fast, _, ran, text = _both(folder, tmp_path, monkeypatch, fmt="nt")
    assert len(ran) == 3
    assert "<http://example.org/r/4> <http://example.org/o#type> <http://example.org/k/one> ." in text
    assert '<http://example.org/r/1> <http://example.org/o#title> "MR \\"X\\""@en .' in text
    assert '"2003-04-29"^^<http://www.w3.org/2001/XMLSchema#date>' in text
    assert "r/3> <http://example.org/o#type>" not in text  # code 3 is in no value map
    assert "r/2> <http://example.org/o#day>" not in text  # no 31 February


def test_quoted_line_breaks_constants_and_a_rule_left_to_the_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(columnar, "CHUNK_ROWS", 2)
    folder = _case(tmp_path, """
<#A> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "a.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/a/{k}" ; rml:class ex:A ] ;
  rml:predicateObjectMap [ rml:predicate ex:note ; rml:objectMap [ rml:reference "note" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:kind ; rml:objectMap [ rml:constant "fixed" ; rml:datatype xsd:string ] ] .
<#C> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "a.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:constant ex:dataset ] ;
  rml:predicateObjectMap [ rml:predicate ex:about ; rml:objectMap [ rml:constant ex:things ] ] .
""", {"a.csv": 'k,note\n1,"two\nlines"\n2,"a ""quote"""\n3,\n1,"two\nlines"\n'})
    fast, _, ran, text = _both(folder, tmp_path, monkeypatch, fmt="nt")
    assert "<http://example.org/o#dataset> <http://example.org/o#about> <http://example.org/o#things> ." in text
    assert '<http://example.org/a/1> <http://example.org/o#note> "two\\nlines" .' in text
    assert len(ran) == 3  # the all-constant rule <#C> is the engine's (its own path: one row, no data read)


def test_the_example_case_compiled_from_its_table(tmp_path, monkeypatch):
    folder = tmp_path / "example"
    shutil.copytree(ROOT / "data" / "example", folder)
    (folder / "example.yaml").write_text((folder / "example.yaml").read_text().replace(
        "../../ontologies/", str(ROOT / "ontologies") + "/").replace("../../mappings/", str(ROOT / "mappings") + "/"))
    monkeypatch.chdir(folder)
    assert main(["-q", "compile", "example.yaml", str(ROOT / "mappings" / "example_table.md"), "m.rml.ttl"]) == 0
    fast, _, ran, text = _both(folder, tmp_path, monkeypatch, fmt="nt")
    assert fast.n_triples == 16 and ran
    assert "<http://example.org/person/p2> <http://example.org/ontology#livesIn> <http://example.org/city/STO> ." \
        in text


def test_gtfs_scenario_compiled_from_its_gold_table(tmp_path, monkeypatch, scenarios):
    # BLINKG scenario 2 'complete': nine CSV files, joins, value maps and GREL functions, ill-typed values
    from pipeline.bench.scale import generate

    manifest = generate(scenarios.parent, 1.5, tmp_path / "gtfs")
    monkeypatch.chdir(tmp_path / "gtfs")
    main(["-q", "compile", str(manifest), str(scenarios / "scenario2" / "complete" / "expected_table.md"),
          "m.rml.ttl"])
    monkeypatch.setattr(columnar, "CHUNK_ROWS", 5000)
    fast, _, ran, _ = _both(tmp_path / "gtfs", tmp_path, monkeypatch, fmt="nt")
    # 73 TriplesMap runs: the gold table's stop_times.trip_id=trips.trip_id joins the trips' TriplesMap,
    # though frequencies.csv's rows make gtfs:Trip too (the join names the source it means)
    assert len(ran) == 73 and fast.n_triples > 40_000 and fast.dropped > 0


def test_a_composite_key_keeps_its_values_apart():
    # numpy reads a str scalar "\x00" as an empty str_: added that way, ('Pari', 'sFR') and ('Paris', 'FR') were one key
    import numpy as np
    keys = columnar.key_text([np.array(["Pari", "Paris"], dtype=object), np.array(["sFR", "FR"], dtype=object)])
    assert list(keys) == ["Pari\x1fsFR", "Paris\x1fFR"]
    assert list(columnar.key_text([np.array(["a"], dtype=object)])) == ["a"]
