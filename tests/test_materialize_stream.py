"""The streamed output guard (pipeline/materialize/guard.py): per engine rule, each distinct term once, sorted
runs merged. Expected values are those of the guard before it streamed (every statement parsed
and re-serialized by pyoxigraph, the KG held in memory), recorded on the same inputs:
``tests/cases/stream-guard/expected.nq`` is that guard's output byte for byte."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import pipeline.materialize.guard as guard_module
import pipeline.materialize.output as runs_module
from pipeline.cli import main
from pipeline.materialize.materializer import guard_triples, materialize

CASE = Path(__file__).resolve().parent / "cases" / "stream-guard"
X = "http://www.w3.org/2001/XMLSchema#"
#: findings of the guard on the case: (message, severity)
FINDINGS = sorted([
    ("1 literal(s) written without the white space around their value", "warning"),
    ("1 triple(s) dropped: not a valid N-Triples statement", "error"),      # "Bob"@x_y
    ("1 triple(s) dropped: relative or illegal IRI", "error"),             # <http://exa mple.org/bad>
    ("2 triple(s) dropped: xsd:integer value that is no integer", "error"),  # "3.0", default and named graph
    ("6 triple(s) dropped: relative or illegal IRI", "error"),             # "{name} ({id})" IRIs with spaces
    # row 6's empty cells: no term, counted
    ("1 record(s) have no value for 'age' (empty or missing): no term made from them", "info"),
    ("1 record(s) have no value for 'home' (empty or missing): no term made from them", "info"),
    ("1 record(s) have no value for 'note' (empty or missing): no term made from them", "info"),
])


def _engine_copy(tmp_path: Path) -> Path:
    """The case's engine copy (written by `kgc materialize` next to its output)."""
    folder = tmp_path / "case"
    shutil.copytree(CASE, folder)
    return folder


def test_cli_output_is_byte_identical_to_the_guard_before_streaming(tmp_path, monkeypatch, capsys):
    folder = _engine_copy(tmp_path)
    monkeypatch.chdir(folder)
    rc = main(["materialize", "m.rml.ttl", str(tmp_path / "kg.nq")])
    err = capsys.readouterr()
    assert rc == 1  # statements were dropped
    assert (tmp_path / "kg.nq").read_bytes() == (CASE / "expected.nq").read_bytes()
    assert "46 statements (10 in named graphs)" in err.out
    dropped = sorted(re.search(r"\d+ triple\(s\) dropped: .*", line).group(0) for line in err.err.splitlines()
                     if "triple(s) dropped" in line)
    # each drop is followed by its first statement, so the record can be found
    assert sum(line.startswith("  first dropped: ") for line in err.err.splitlines()) == 4
    assert dropped == ["1 triple(s) dropped: not a valid N-Triples statement",
                       "1 triple(s) dropped: relative or illegal IRI",
                       "2 triple(s) dropped: xsd:integer value that is no integer",
                       "6 triple(s) dropped: relative or illegal IRI"]
    assert not list(tmp_path.glob(".kgc-runs-*"))  # the run files are gone


@pytest.mark.parametrize("how", ["sort", "python", "processes"])
def test_every_way_of_sorting_gives_the_same_result(tmp_path, monkeypatch, capsys, how):
    folder = _engine_copy(tmp_path)
    monkeypatch.chdir(folder)
    main(["materialize", "m.rml.ttl", str(tmp_path / "first.nq"), "--engine-copy", str(tmp_path / "first.morph-kgc.ttl")])
    capsys.readouterr()
    engine = tmp_path / "first.morph-kgc.ttl"
    if how == "python":  # no `sort` command: numpy-sorted runs merged by heapq
        monkeypatch.setattr(runs_module.shutil, "which", lambda name: None)
    r = materialize(engine, processes=2 if how == "processes" else 1)
    assert "\n".join([*r.triples, *r.quads]) + "\n" == (CASE / "expected.nq").read_text(encoding="utf-8")
    assert (r.n_triples, r.n_quads, r.dropped) == (36, 10, 10)
    got = sorted((f.message, f.severity) for f in r.findings)
    assert got == FINDINGS
    examples = {f.message: f.value for f in r.findings}
    assert examples["1 triple(s) dropped: not a valid N-Triples statement"] == (
        '<http://example.org/base/person/Bob> <http://example.org/o#name> "Bob"@x_y')
    assert examples["1 literal(s) written without the white space around their value"] == f'"  7 "^^<{X}integer>'


def test_guard_triples_on_text_lines_keeps_the_previous_results():
    lines = [f'<http://e.org/a> <http://e.org/p> "3.0"^^<{X}integer>',
             f'<http://e.org/a> <http://e.org/p> " 4 "^^<{X}integer>',
             f'<http://e.org/a> <http://e.org/p> "x"^^<{X}string>',
             '<http://e.org/a> <http://e.org/q> "Hi"@EN-us <http://e.org/g>',
             '<http://e.org/a> <http://e.org/q> "Hi"@en-us <http://e.org/g>',
             '<rel/iri> <http://e.org/p> "v"',
             '<http://e.org/a b> <http://e.org/p> "v"',
             '<http://e.org/a> <http://e.org/p> "tab\there"',
             '<http://e.org/a> <http://e.org/p> "uni\\u00e9"',
             '<https://w3id.org/kgc-pipeline/bnode/x%20y> <http://e.org/p> "b"',
             '<http://e.org/a> <http://e.org/p> "b" .',   # the final '.' is optional
             '<http://e.org/a> <http://e.org/p> "b" ',
             f'<http://e.org/a> <http://e.org/r> "2020-13-01"^^<{X}date>',
             f'<http://e.org/a> <http://e.org/r> "2020-12-01"^^<{X}date>',
             '<http://e.org/a> <http://e.org/p> "x"@x_y',
             '<http://e.org:8080/a> <http://e.org/p> "port"',
             '<http://e.org/%zz> <http://e.org/p> "badpct"']
    r = guard_triples(set(lines))
    assert r.triples == [f'<http://e.org/a> <http://e.org/p> "4"^^<{X}integer> .',
                         '<http://e.org/a> <http://e.org/p> "b" .',
                         '<http://e.org/a> <http://e.org/p> "tab\there" .',
                         '<http://e.org/a> <http://e.org/p> "unié" .',
                         '<http://e.org/a> <http://e.org/p> "x" .',
                         f'<http://e.org/a> <http://e.org/r> "2020-12-01"^^<{X}date> .',
                         '<http://e.org:8080/a> <http://e.org/p> "port" .',
                         '_:bb34134174e659b4ee19556f0 <http://e.org/p> "b" .']
    assert r.quads == ['<http://e.org/a> <http://e.org/q> "Hi"@en-us <http://e.org/g> .']
    assert r.dropped == 6
    assert sorted((f.message, f.value) for f in r.findings) == [
        ("1 literal(s) written without the white space around their value", f'" 4 "^^<{X}integer>'),
        ("1 triple(s) dropped: ill-typed literal for <http://www.w3.org/2001/XMLSchema#date>",
         f'<http://e.org/a> <http://e.org/r> "2020-13-01"^^<{X}date>'),
        ("1 triple(s) dropped: not a valid N-Triples statement", '<http://e.org/a> <http://e.org/p> "x"@x_y'),
        ("1 triple(s) dropped: relative or illegal IRI", '<http://e.org/a b> <http://e.org/p> "v"'),
        ("1 triple(s) dropped: xsd:integer value that is no integer",
         f'<http://e.org/a> <http://e.org/p> "3.0"^^<{X}integer>'),
        ("2 triple(s) dropped: relative or illegal IRI",
         '<http://e.org/%zz> <http://e.org/p> "badpct" | <rel/iri> <http://e.org/p> "v"')]


def test_column_screen_flags_exactly_the_terms_that_need_a_check():
    import numpy as np

    g = guard_module.Guard()
    terms = np.array(["<http://e.org/a>", "<http://e.org/%41>", "<http://e.org/%4g>", "<http://e.org/a#b#c>",
                      "<http://e.org:80/a>", "<rel>", "<http://e.org/é>", '"plain"', '"esc\\"aped"',
                      f'"1"^^<{X}integer>', "<https://w3id.org/kgc-pipeline/bnode/q>"], dtype=object)
    texts, reasons, changed = g._screen(terms, 2)
    assert texts == ["<http://e.org/a>", "<http://e.org/%41>", None, None, "<http://e.org:80/a>", None,
                     "<http://e.org/é>", '"plain"', '"esc\\"aped"', f'"1"^^<{X}integer>',
                     "_:b" + __import__("hashlib").sha1(b"https://w3id.org/kgc-pipeline/bnode/q").hexdigest()[:24]]
    assert reasons == {2: "relative or illegal IRI", 3: "relative or illegal IRI", 5: "relative or illegal IRI"}
    assert changed is True  # the blank node


def test_a_failure_of_the_guard_is_reported_not_blamed_on_a_triples_map(tmp_path, monkeypatch, capsys):
    folder = _engine_copy(tmp_path)
    monkeypatch.chdir(folder)

    def broken(self, columns, runs, triple=None, trusted=None, text_only=False):
        raise ValueError("boom")

    monkeypatch.setattr(guard_module.Guard, "frame", broken)
    rc = main(["materialize", "m.rml.ttl", str(tmp_path / "kg.nq")])
    err = capsys.readouterr().err
    assert rc == 1 and "output guard failed on the statements of" in err and "ValueError: boom" in err
    assert "cannot run it" not in err and "Traceback" not in err
    assert not list(tmp_path.glob(".kgc-runs-*"))
