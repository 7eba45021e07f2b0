"""SV2's one pass of pyoxigraph: exact counts around rejected lines, faulty terms written with an
escape still found on their line, and every triple read handed to ``on_triple`` (the subject sample)."""
from __future__ import annotations

from pipeline.validation.syntax import check_ntriples

XSD = "http://www.w3.org/2001/XMLSchema#"
S, P = "<http://ex.org/s>", "<http://ex.org/p>"


def test_a_line_with_two_statements_is_fatal_and_neither_is_counted(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(f"{S} {P} <http://ex.org/a> .\n"
                 f"{S} {P} <http://ex.org/b> . {S} {P} <http://ex.org/c> .\n"
                 "# a comment\n"
                 f"{S} {P} <http://ex.org/d> .\n", encoding="utf-8")
    seen = []
    r = check_ntriples(f, on_triple=lambda s, p, o: seen.append(o.value))
    assert [(x.severity, x.line, x.code) for x in r.findings] == [("fatal", 2, "syntax")]
    assert (r.details["n_triples"], r.details["n_lines"], r.value) == (2, 4, False)
    assert seen[0] == "http://ex.org/a" and seen[-1] == "http://ex.org/d"


def test_an_ill_typed_literal_written_with_an_escape_is_found_on_its_line(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(f'{S} {P} "12"^^<{XSD}integer> .\n'
                 f'{S} {P} "\\u0061bc"^^<{XSD}integer> .\n'
                 f'{S} {P} "abc" .\n', encoding="utf-8")
    r = check_ntriples(f)
    assert [(x.severity, x.code, x.line, x.column) for x in r.findings] == [("error", "ill-typed-literal", 2, 37)]
    assert (r.details["N_err"], r.details["n_triples"]) == (1, 3)


def test_on_triple_sees_every_triple_pyoxigraph_reads_in_file_order(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(f'{S} {P} "1" .\n"lit" {P} "x" .\n{S} {P} "2"@en .\n_:b {P} "3"^^<{XSD}integer> .\n',
                 encoding="utf-8")
    seen = []
    r = check_ntriples(f, on_triple=lambda s, p, o: seen.append((str(s), o.value)))
    assert seen == [("<http://ex.org/s>", "1"), ("<http://ex.org/s>", "2"), (seen[2][0], "3")]
    assert (r.details["N_fatal"], r.details["n_triples"]) == (1, 3)
