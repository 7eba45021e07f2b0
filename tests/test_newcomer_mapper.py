"""Offline-mapper and CLI faults a newcomer found with hand-made data (branch h-map3)."""
from __future__ import annotations

from pipeline.cli import main

_PEOPLE_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                "ex:Person a owl:Class . ex:City a owl:Class .\n"
                "ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n"
                "ex:cityName a owl:DatatypeProperty ; rdfs:domain ex:City .\n")


def _people(tmp_path, sources: str, source_file: str) -> None:
    (tmp_path / "onto.ttl").write_text(_PEOPLE_ONTO, encoding="utf-8")
    (tmp_path / "people.csv").write_text("pid,name\n1,Ann\n2,Bob\n", encoding="utf-8")
    (tmp_path / "cities.csv").write_text("code,name\nMAD,Madrid\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: w\nsources: [{sources}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        f"| name | {source_file} | ex:name | ex:Person | http://example.org/person/{{pid}} |\n"
        "| name | cities.csv | ex:cityName | ex:City | http://example.org/city/{code} |\n", encoding="utf-8")


def test_unknown_source_file_among_several_sources_is_an_error_and_the_row_is_left_out(tmp_path, capsys):
    # 'missing.csv' was read from people.csv (the first source holding 'name') with a warning only
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"error: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the row "
        "is left out (known source files: people.csv, cities.csv)"]
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"


def test_unknown_source_file_with_one_source_or_a_near_miss_stays_a_warning(tmp_path, capsys):
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    (tmp_path / "case.yaml").write_text("name: w\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("\n".join((tmp_path / "t.md").read_text(encoding="utf-8").splitlines()[:3]) + "\n",
                                   encoding="utf-8")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]
    _people(tmp_path, "people.csv, cities.csv", "peeple.csv")  # a near miss names the file it is read from
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'peeple.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]


def test_synth_refuses_a_non_empty_folder_unless_forced(tmp_path, capsys):
    out = tmp_path / "s"
    out.mkdir()
    (out / "old.yaml").write_text("name: old\n", encoding="utf-8")
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"error: {out}: the scenario folder is not empty (1 entries, e.g. old.yaml); "
                                       "expected an empty or new folder (--force writes into it anyway)\n")
    assert sorted(p.name for p in out.iterdir()) == ["old.yaml"]  # nothing written
    assert main(["-q", "synth", "--seed", "5", "--level", "label", "--out", str(out), "--force"]) == 0
    assert len(list(out.iterdir())) == 9 and (out / "old.yaml").exists()
