"""The conformance runner on a small suite laid out as the kg-construct repositories are
(``metadata.csv``, case folders, expected default output and logical-target files): discovery,
outcomes, the comparison of RDF-star and other serializations, suites that are not there."""
from __future__ import annotations

from pathlib import Path

from rdflib.compare import isomorphic

from pipeline.bench.conformance import discover, main, read_rdf, run_suites, same_dataset, table

MAPPING = """@prefix rml: <http://w3id.org/rml/> .
@prefix formats: <http://www.w3.org/ns/formats/> .
@prefix ex: <http://example.org/> .
<#TM> rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "d.csv" ] ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/{id}" ] ;
  rml:predicateObjectMap [ rml:predicateMap [ rml:constant ex:name ; rml:logicalTarget <#T> ] ;
                           rml:objectMap [ rml:reference "name" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:id ; rml:objectMap [ rml:reference "id" ] ] .
<#T> a rml:LogicalTarget ; rml:serialization formats:Turtle ;
  rml:target [ a rml:FilePath ; rml:root rml:CurrentWorkingDirectory ; rml:path "./dump1.ttl" ] .
"""
HEADER = ("ID,title,description,specification,mapping,input_format1,input_format2,input_format3,output_format1,"
          "output_format2,output_format3,input1,input2,input3,output1,output2,output3,error\n")


def _suite(root: Path) -> Path:
    suite = root / "rml-io"
    good, bad, wrong = suite / "RMLTTC9001", suite / "RMLSTC9002", suite / "RMLTTC9003"
    for case in (good, bad, wrong):
        case.mkdir(parents=True)
        (case / "mapping.ttl").write_text(MAPPING, encoding="utf-8")
        (case / "d.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    for case in (good, wrong):
        (case / "default.nq").write_text('<http://example.org/1> <http://example.org/id> "1" .\n', encoding="utf-8")
    (good / "dump1.ttl").write_text('<http://example.org/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    (wrong / "dump1.ttl").write_text('<http://example.org/1> <http://example.org/name> "Ann"@en .\n', encoding="utf-8")
    (bad / "d.csv").write_text("id,name\n1,Ann,extra\n", encoding="utf-8")
    (suite / "metadata.csv").write_text(
        HEADER + "RMLTTC9001,t,d,s,mapping.ttl,text/csv,,,,,,d.csv,,,default.nq,dump1.ttl,,false\n"
        "RMLSTC9002,t,d,s,mapping.ttl,text/csv,,,,,,d.csv,,,,,,true\n"
        "RMLTTC9003,t,d,s,mapping.ttl,text/csv,,,,,,d.csv,,,default.nq,dump1.ttl,,false\n", encoding="utf-8")
    return suite


def test_suite_discovery_outcomes_and_table(tmp_path, monkeypatch):
    _suite(tmp_path / "suites")
    monkeypatch.setattr("pipeline.bench.conformance._morph", lambda *_: (None, "not run"))
    targets = discover("rml-io-targets", tmp_path / "cases", tmp_path / "suites")
    sources = discover("rml-io-sources", tmp_path / "cases", tmp_path / "suites")
    assert [c.name for c in targets] == ["RMLTTC9001", "RMLTTC9003"] and [c.name for c in sources] == ["RMLSTC9002"]
    assert [(n, p.name) for n, p in targets[0].expected] == [(None, "default.nq"), ("dump1.ttl", "dump1.ttl")]
    results, missing = run_suites(tmp_path / "cases", tmp_path / "suites", tmp_path / "out",
                                  ("rml-io-targets", "rml-io-sources", "rml-cc"), progress=False)
    outcome = {r.case: (r.ours, r.ours_reason) for r in results}
    assert outcome["RMLTTC9001"] == ("passed", "")
    assert outcome["RMLSTC9002"][0] == "error-raised" and "RFC 4180" in outcome["RMLSTC9002"][1]
    assert outcome["RMLTTC9003"][0] == "failed" and outcome["RMLTTC9003"][1].startswith(
        "dump1.ttl: differs only in literal datatypes; not isomorphic: 1 vs 1")
    assert "kg-construct/rml-cc" in missing["rml-cc"] and "RML_SUITES" in missing["rml-cc"]
    assert table(results, missing).splitlines()[2:] == [
        "| rml-io-sources | 1 | 0 / 0 / 1 of 1 | 100% | 0 / 0 / 1 of 1 |",  # the stub raises
        "| rml-io-targets | 2 | 1 / 1 / 0 of 0 | 50% | 0 / 2 / 0 of 0 |",
        "| rml-cc | - | not run | - | not run |"]


def test_missing_suites_are_reported_as_not_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("pipeline.bench.conformance._morph", lambda *_: (None, "not run"))
    rc = main(["--cases", str(tmp_path / "none"), "--suites", str(tmp_path / "none"), "--out", str(tmp_path / "out"),
               "--suite", "rml-lv", "--suite", "rml-core"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "| rml-core | - | not run | - | not run |" in out and "| rml-lv | - | not run | - | not run |" in out
    assert "rml-lv: not run: not found at" in out


def test_rdf_star_datasets_and_other_serializations(tmp_path):
    star = "<< _:a <http://e/p> <http://e/o> >> <http://e/q> \"v\" .\n_:a <http://e/p> <http://e/o> .\n"
    assert same_dataset(star, star.replace("_:a", "_:z"))[0]
    assert not same_dataset(star, star.replace("<http://e/o> >>", "<http://e/x> >>"))[0]
    (tmp_path / "a.ttl").write_text('@prefix e: <http://e/> . e:s e:p "v"@EN .', encoding="utf-8")
    (tmp_path / "a.nq").write_text('<http://e/s> <http://e/p> "v"@en .\n', encoding="utf-16")
    # Turtle and UTF-16 N-Quads read to the same dataset (language tags compared in lower case)
    assert isomorphic(read_rdf(tmp_path / "a.ttl"), read_rdf(tmp_path / "a.nq"))
