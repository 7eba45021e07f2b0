"""SV2 strict N-Triples syntax: exact diagnostics with line and column."""
from __future__ import annotations

import pytest

from pipeline.validation.syntax import check_ntriples, riot_available, riot_check
from pipeline.validation.terms import check_iri, check_langtag, check_literal

XSD = "http://www.w3.org/2001/XMLSchema#"
BAD = (
    "# a comment line\n"
    "<http://ex.org/s> <http://ex.org/p> <http://ex.org/a b> .\n"
    f'<http://ex.org/s> <http://ex.org/n> "abc"^^<{XSD}integer> .\n'
    '<http://ex.org/s> <http://ex.org/l> "Hallo"@deutschland .\n'
    '<http://ex.org/s> <http://ex.org/ok> "x\\u00e9"@en-GB .\n'
)


def test_sv2_reports_bad_iri_ill_typed_literal_and_language_tag(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(BAD, encoding="utf-8")
    r = check_ntriples(f)
    assert r.value is False and r.status == "ok"
    assert r.details == {"N_warn": 0, "N_err": 3, "N_fatal": 0, "n_lines": 5, "n_triples": 4,
                         "strict_valid": False, "strict": True}
    got = [(x.severity, x.code, x.line, x.column, x.term) for x in r.findings]
    assert got == [
        ("error", "bad-iri-char", 2, 37, "<http://ex.org/a b>"),
        ("error", "ill-typed-literal", 3, 37, f'"abc"^^<{XSD}integer>'),
        ("error", "bad-language-tag", 4, 44, '"Hallo"@deutschland'),
    ]
    assert r.findings[1].message == "lexical form 'abc' not valid for datatype xsd:integer"


def test_sv2_non_strict_makes_ill_typed_literals_warnings(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(f'<http://ex.org/s> <http://ex.org/d> "2021-02-29"^^<{XSD}date> .\n', encoding="utf-8")
    strict, lax = check_ntriples(f), check_ntriples(f, strict=False)
    assert (strict.details["N_err"], strict.value) == (1, False)
    assert (lax.details["N_warn"], lax.details["N_err"], lax.value) == (1, 0, True)


def test_sv2_fatal_lines_are_counted_and_parsing_continues(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text('"lit" <http://ex.org/p> <http://ex.org/o> .\n'
                 '<http://ex.org/s> <http://ex.org/p> "open .\n'
                 "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o>\n"
                 "<rel> <http://ex.org/p> _:b1 .\n", encoding="utf-8")
    r = check_ntriples(f)
    assert [(x.severity, x.line, x.column, x.code) for x in r.findings] == [
        ("fatal", 1, 1, "syntax"), ("fatal", 2, 37, "unterminated-literal"), ("fatal", 3, 54, "syntax"),
        ("error", 4, 1, "relative-iri")]
    assert (r.details["N_fatal"], r.details["N_err"], r.details["n_triples"]) == (3, 1, 1)


def test_sv2_valid_file_and_unreadable_file(tmp_path):
    f = tmp_path / "ok.nt"
    f.write_text(f'<http://ex.org/s> <http://ex.org/p> "1.5E3"^^<{XSD}double> .\n_:a <http://ex.org/p> "x"@en .\n',
                 encoding="utf-8")
    assert check_ntriples(f).value is True
    missing = check_ntriples(tmp_path / "missing.nt")
    assert missing.status == "failed" and missing.value is None


@pytest.mark.parametrize("lex,dt,ok", [("+5", "integer", True), ("1_0", "integer", False), ("-1", "nonNegativeInteger", False),
                                       ("0", "positiveInteger", False), ("2020-02-29", "date", True),
                                       ("2021-02-29", "date", False), ("2021", "gYear", True), ("21", "gYear", False),
                                       ("P1DT2H", "duration", True), ("PT", "duration", False), ("INF", "double", True),
                                       ("1e", "float", False), ("maybe", "boolean", False), ("12:00:00Z", "time", True),
                                       ("2021-01-01T10:00:00", "dateTime", True), ("a b", "anyURI", False)])
def test_xsd_lexical_forms(lex, dt, ok):
    assert (check_literal(lex, XSD + dt) == []) is ok


def test_iri_and_langtag_checks():
    assert check_iri("http://x.org/%7E") == []
    assert [c for _, c, _ in check_iri("http://x.org/%zz")] == ["bad-percent-encoding"]
    assert [c for _, c, _ in check_iri("HTTP://x.org/")] == ["iri-scheme-case"]
    assert [c for _, c, _ in check_iri("http://x.org:8o/")] == ["bad-iri-port"]
    assert check_langtag("sr-Latn-RS") == [] and check_langtag("en_US") != []


@pytest.mark.skipif(not riot_available(), reason="Java or Debian's Jena jars are not installed")
def test_riot_cross_check_agrees_on_validity(tmp_path):
    f = tmp_path / "kg.nt"
    f.write_text(BAD, encoding="utf-8")
    assert riot_check(f).value is False


def test_sv2_bulk_path_keeps_line_and_column_of_rare_faults(tmp_path):
    # most lines go through pyoxigraph and the per-distinct-term checks; the faulty ones keep their positions
    lines = [f"<http://ex.org/s{i}> <http://ex.org/p> \"{i}\"^^<{XSD}integer> ." for i in range(6000)]
    lines[2999] = "<http://ex.org/s> <http://ex.org/p> <http://ex.org/a b> ."  # pyoxigraph rejects it
    lines[4999] = f'<http://ex.org/s> <http://ex.org/n> "x1"^^<{XSD}integer> .'  # parses, but ill-typed
    lines[5499] = "<HTTP://ex.org/s> <http://ex.org/p> <http://ex.org/o%7e> ."  # legal, two warnings
    f = tmp_path / "kg.nt"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = check_ntriples(f)
    assert r.details == {"N_warn": 2, "N_err": 2, "N_fatal": 0, "n_lines": 6000, "n_triples": 6000,
                         "strict_valid": False, "strict": True}
    assert [(x.severity, x.code, x.line, x.column) for x in r.findings] == [
        ("error", "bad-iri-char", 3000, 37), ("error", "ill-typed-literal", 5000, 37),
        ("warning", "iri-scheme-case", 5500, 1), ("warning", "iri-pct-case", 5500, 37)]


def test_sv2_bulk_path_agrees_with_the_line_checker_on_every_line(tmp_path):
    # the two-level check must give exactly what the line checker gives when run on every line
    import random

    from pipeline.validation.syntax import _check_line

    good = [f'<http://ex.org/s{i}> <http://ex.org/p> "v{i}"@en .' for i in range(2000)]
    faults = ["<http://ex.org/a b> <http://ex.org/p> <http://ex.org/o> .", "<HTTP://ex.org/s> <http://ex.org/p> _:b .",
              f'<http://ex.org/s> <http://ex.org/p> "1"^^<{XSD}foo> .', '<http://ex.org/s> <http://ex.org/p> "a\\qb" .',
              '<http://ex.org/s> <http://ex.org/p> "x"@deutschland .', "# comment", "",
              '<http://ex.org/s>\t<http://ex.org/p> "x" .', '<http://ex.org/s> <http://ex.org/p> "x" . # c',
              f'<http://ex.org/s> <http://ex.org/p> "2021-02-29"^^<{XSD}date> .', "<rel> <http://ex.org/p> _:b .",
              "<http://ex.org/\\u00e9> <http://ex.org/p> <http://x.org:8o/> ."]
    rng = random.Random(7)
    for i in rng.sample(range(len(good)), 60):
        good[i] = rng.choice(faults)
    f = tmp_path / "kg.nt"
    f.write_text("\n".join(good) + "\n", encoding="utf-8")
    expected, n = [], 0
    for lineno, line in enumerate(good, start=1):
        n += _check_line(line, lineno, True, expected)
    r = check_ntriples(f)
    assert [(x.severity, x.code, x.line, x.column, x.term) for x in r.findings] == \
        [(x.severity, x.code, x.line, x.column, x.term) for x in expected]
    assert r.details["n_triples"] == n and len(r.findings) == 36


@pytest.mark.parametrize("tag,ok", [("None", False), ("null", False), ("en", True), ("sr-Latn-RS", True),
                                    ("zh-Hant", True), ("x-none", True), ("nan", True), ("english", False),
                                    ("French", False), ("deutsch-DE", False), ("x-english", True)])
def test_language_tag_with_a_primary_subtag_of_four_to_eight_letters_is_an_error(tag, ok):
    # RFC 5646 2.2.1: 4 letters reserved, 5-8 kept for registration; the IANA registry holds none of either
    from pipeline.validation.terms import check_langtag
    assert (check_langtag(tag) == []) is ok


def test_sv2_flags_a_missing_value_written_as_language_tag(tmp_path):
    from pipeline.validation.syntax import check_ntriples
    f = tmp_path / "kg.nt"
    f.write_text('<http://ex.org/a> <http://ex.org/title> "The Starry Night"@None .\n'
                 '<http://ex.org/b> <http://ex.org/title> "Las Meninas"@es .\n', encoding="utf-8")
    r = check_ntriples(f)
    assert r.value is False
    assert [(x.code, x.line, x.term) for x in r.findings] == [
        ("bad-language-tag", 1, '"The Starry Night"@None')]
    assert r.findings[0].message == ("language tag @None: a 4-letter primary language subtag is reserved "
                                     "(RFC 5646 section 2.2.1); a missing value written as a tag?")
