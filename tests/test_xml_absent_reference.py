"""An XML reference that selects nothing in any record is refused when it looks misspelt (exit 2,
naming the TriplesMap, the reference and the name the records hold), as a JSON key; one close to
nothing the records hold is a field these data lack (a warning, the rest written); one that some
record has is read."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.bench.conformance import same_dataset
from pipeline.cli import main

XML = """<?xml version="1.0"?>
<students><student id="1"><Name>Venus</Name></student><student><Name>Ann</Name><city>Gent</city></student></students>
"""
MAPPING = """@prefix rr: <http://www.w3.org/ns/r2rml#> .
@prefix rml: <http://semweb.mmlab.be/ns/rml#> .
@prefix ql: <http://semweb.mmlab.be/ns/ql#> .
@prefix ex: <http://example.org/> .
<http://example.org/Students> a rr:TriplesMap ;
  rml:logicalSource [ rml:source "students.xml" ; rml:referenceFormulation ql:XPath ; rml:iterator "/students/student" ] ;
  rr:subjectMap [ rr:template "http://example.org/s/{Name}" ] ;
  rr:predicateObjectMap [ rr:predicate ex:p ; rr:objectMap [ rml:reference "REF" ] ] .
"""


def _run(tmp_path: Path, monkeypatch, ref: str, xml: str = XML, iterator: str = "/students/student") -> int:
    (tmp_path / "students.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "m.ttl").write_text(MAPPING.replace("REF", ref).replace("/students/student", iterator), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return main(["materialize", "m.ttl", "kg.nt", "-q"])


@pytest.mark.parametrize("ref,near", [("Names", "the records hold 'Name'"),
                                      ("@ID", "the records hold '@id' (another case)"),
                                      ("address/city", "the records hold 'city'")])
def test_reference_no_record_has_is_refused_when_misspelt(tmp_path, monkeypatch, capsys, ref, near):
    rc = _run(tmp_path, monkeypatch, ref)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert (f"TriplesMap <http://example.org/Students>: the object map's reference '{ref}' selects nothing in any "
            f"record of students.xml (iterator /students/student; {near})") in err
    assert "Traceback" not in err and not (tmp_path / "kg.nt").exists()


def test_a_field_these_records_lack_is_a_warning(tmp_path, monkeypatch, capsys):
    rc = _run(tmp_path, monkeypatch, "Extended_Description")
    err = capsys.readouterr().err
    assert rc == 0, err
    assert ("warning: m.ttl [Extended_Description]: TriplesMap <http://example.org/Students>: the object map's "
            "reference 'Extended_Description' selects nothing in any record of students.xml (iterator "
            "/students/student): no term from it (nothing the records hold is close to the name: a field these "
            "data lack)") in err
    assert same_dataset((tmp_path / "kg.nt").read_text(encoding="utf-8"), "") == (True, "")


@pytest.mark.parametrize("ref,values", [("city", ["Ann", "Gent"]), ("@id", ["Venus", "1"])])
def test_reference_one_record_has_is_read(tmp_path, monkeypatch, capsys, ref, values):
    rc = _run(tmp_path, monkeypatch, ref)
    assert rc == 0, capsys.readouterr().err
    s, o = values
    assert same_dataset((tmp_path / "kg.nt").read_text(encoding="utf-8"),
                        f'<http://example.org/s/{s}> <http://example.org/p> "{o}" .\n') == (True, "")


def test_default_namespace_is_checked_as_the_engine_reads_it(tmp_path, monkeypatch, capsys):
    """The engine (XPath 3) reads unprefixed names in the document's default namespace, so the check
    does too: a name no record has is refused with the namespace hint, one a record has is read."""
    xml = XML.replace("<students>", '<students xmlns="urn:x">')
    assert _run(tmp_path, monkeypatch, "Names", xml, iterator="/*/*") == 2
    assert ("the object map's reference 'Names' selects nothing in any record of students.xml (iterator /*/*; the "
            "records' elements are in the default namespace <urn:x>, which an unprefixed name selects; the records hold "
            "'Name')") \
        in capsys.readouterr().err
    assert _run(tmp_path, monkeypatch, "city", xml, iterator="/*/*") == 0
    assert same_dataset((tmp_path / "kg.nt").read_text(encoding="utf-8"),
                        '<http://example.org/s/Ann> <http://example.org/p> "Gent" .\n') == (True, "")
