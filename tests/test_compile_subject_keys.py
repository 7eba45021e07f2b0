"""A subject template that does not identify its records: records that differ become one subject (a
warning naming the file, the template, the lines; counted as data lost by the verdict), while records
whose values a subject gives back (a long-format file, exact repeats) say nothing; records without a
key value are named too."""
from __future__ import annotations

from pipeline.cli import main
from pipeline.validation.loss import MERGED_CODE, coverage_loss

_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
         "ex:Event a owl:Class . ex:name a owl:DatatypeProperty . ex:date a owl:DatatypeProperty .\n")
_HEAD = "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"


def _case(tmp_path, data: str, name: str = "events.csv", rows: tuple[str, ...] = ("name", "date")) -> list[str]:
    """Compile a table mapping ``rows`` of ``name`` (holding ``data``) on subjects keyed by ``id``; the stderr lines."""
    (tmp_path / "onto.ttl").write_text(_ONTO, encoding="utf-8")
    (tmp_path / name).write_text(data, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"sources: [{name}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(_HEAD + "".join(f"| {r} | {name} | ex:{r} | ex:Event | http://example.org/e/{{id}} |\n"
                                                   for r in rows), encoding="utf-8")
    return [str(tmp_path / n) for n in ("case.yaml", "t.md", "m.ttl")]


def test_records_of_one_key_with_other_values_are_a_warning_and_lossy(tmp_path, capsys):
    argv = _case(tmp_path, "id,name,date\nE1,Jazz,2024-01-01\nE3,Organ,2024-05-17\nE3,Organ late,2024-05-18\n")
    assert main(["compile", *argv]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 'events.csv'}:4 [id]: subject template http://example.org/e/{{id}} "
        f"({tmp_path / 't.md'} line 3) does not identify the records of events.csv: {{id}} = 'E3' on lines 3 and 4, "
        "which differ in name, date; such records become one subject with the values of all of them, and which of its "
        "values came together is lost (2 record(s) become 1 subject(s))"]
    assert main(["-q", "run", argv[0], "--table", argv[1], "--out", str(tmp_path / "o")]) == 0
    assert "custom/case: ok (KG valid, lossy)  triples=8 rows=2/2 errors=0 warnings=1" in capsys.readouterr().out
    finding = {"stage": "compile", "code": MERGED_CODE, "message": "... (2 record(s) become 1 subject(s))"}
    loss = coverage_loss({}, {}, [finding])
    assert (loss.merged, loss.merged_into, loss.lossy, loss.summary()) == (2, 1, True, "2 records merged into 1 subject(s)")


def test_records_a_subject_gives_back_say_nothing(tmp_path, capsys):
    # one value varies per key (a book's row per author): the subject holds every record's values, nothing
    # of their pairing is lost; exact repeats neither
    argv = _case(tmp_path, "id,name,date\nE1,Jazz,2024-01-01\nE1,Jazz,2024-01-02\nE2,Organ,2024-05-17\n"
                           "E2,Organ,2024-05-17\n")
    assert main(["compile", *argv]) == 0
    assert capsys.readouterr().err == ""
    # two values vary, but the records are every combination of them: still nothing lost
    argv = _case(tmp_path, "id,name,date\nE1,A,d1\nE1,A,d2\nE1,B,d1\nE1,B,d2\n")
    assert main(["compile", *argv]) == 0
    assert capsys.readouterr().err == ""


def test_records_without_a_key_value_are_named(tmp_path, capsys):
    argv = _case(tmp_path, 'id,name,date\nE1,Jazz,2024-01-01\n,Untitled,2024-12-25\n"",,\n', rows=("name",))
    assert main(["compile", *argv]) == 0
    # the last record holds no value the table reads: nothing of it is lost
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 'events.csv'}:3 [id]: 1 record(s) of events.csv have no value for 'id', which the subject "
        f"template http://example.org/e/{{id}} ({tmp_path / 't.md'} line 3) needs (line 3): they get no subject, and "
        "the values the table reads from them are not in the KG"]


def test_json_records_are_named_by_number_and_json_lines_records_by_line(tmp_path, capsys):
    argv = _case(tmp_path, '[{"id": "E1", "name": "A", "date": "d1"}, {"id": "E1", "name": "B", "date": "d2"}]',
                 name="events.json")
    assert main(["compile", *argv]) == 0
    assert "{id} = 'E1' on records 1 and 2, which differ in name, date" in capsys.readouterr().err
    argv = _case(tmp_path, '{"id": "E1", "name": "A", "date": "d1"}\n\n{"id": "E1", "name": "B", "date": "d2"}\n',
                 name="events.jsonl")
    assert main(["compile", *argv]) == 0
    err = capsys.readouterr().err
    assert f"warning: {tmp_path / 'events.jsonl'}:3 [id]:" in err and "{id} = 'E1' on lines 1 and 3," in err
