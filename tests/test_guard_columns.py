"""The guard's column forms: a constant term map handed over as one ``str`` (what the guard worker reads
back) gives the bytes and findings of the term repeated on every row; dropped statements are counted
per reason and predicate in row order; the output's lines are counted the same with ``wc`` or without."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from pipeline.materialize.guard import Guard
from pipeline.materialize.output import Runs

S = np.array(["<http://e.org/a>", "<http://e.org/b>", "<rel>", "<http://e.org/a>"], dtype=object)
O = np.array(['"x"', '" 7 "^^<http://www.w3.org/2001/XMLSchema#integer>', '"z"', '"x"'], dtype=object)
P_OK, P_BAD = "<http://e.org/p>", "<not an iri>"
G_NAMED = "<http://e.org/g>"


def _guarded(tmp_path, name, columns, stream, text_only=False):
    runs, guard = Runs(tmp_path / name, stream=stream), Guard()
    guard.frame(columns, runs, None, (False, False, False, False), text_only=text_only)
    default, named = tmp_path / f"{name}.nt", tmp_path / f"{name}.nq"
    counts = runs.finish(False, default), runs.finish(True, named)
    return counts, default.read_bytes() + named.read_bytes(), guard.dropped, guard.repaired


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("p, g", [(P_OK, ""), (P_OK, G_NAMED), (P_BAD, "")])
def test_a_constant_given_once_is_guarded_as_the_repeated_term(tmp_path, stream, p, g):
    if stream and shutil.which("sort") is None:
        pytest.skip("needs a sort command")
    n = len(S)
    full = _guarded(tmp_path, "full", [S, np.full(n, p, dtype=object), O, np.full(n, g, dtype=object)], stream)
    once = _guarded(tmp_path, "once", [S, p, O, g], stream, text_only=True)
    assert once == full
    if p == P_BAD:  # every row dropped, counted once per distinct statement
        assert full[0] == (0, 0) and sum(c for c, _ in full[2].values()) == 3
    else:  # the relative IRI dropped, the integer written without its spaces, the duplicate once
        assert full[0] == ((2, 0) if g == "" else (0, 2)) and full[3] == {
            '" 7 "^^<http://www.w3.org/2001/XMLSchema#integer>'}
        assert b'<http://e.org/b> <http://e.org/p> "7"^^<http://www.w3.org/2001/XMLSchema#integer>' in full[1]


def test_a_rule_of_one_row_with_every_term_constant(tmp_path):
    one = [np.array(["<http://e.org/a>"], dtype=object), P_OK, '"x"', ""]
    assert _guarded(tmp_path, "one", one, stream=False)[:2] == ((1, 0), b'<http://e.org/a> <http://e.org/p> "x" .\n')


def test_drops_are_counted_per_reason_and_predicate_in_row_order_each_statement_once(tmp_path):
    s = np.array(["<http://e.org/a>", "<rel>", "<http://e.org/b>", "<rel>", "<http://e.org/c>", "<rel>"], dtype=object)
    p = np.array(["<http://e.org/n>", "<http://e.org/m>", "<http://e.org/n>", "<http://e.org/m>", "<http://e.org/m>",
                  "<http://e.org/n>"], dtype=object)
    o = np.array(['"1"^^<http://www.w3.org/2001/XMLSchema#integer>', '"x"', '"y"^^<http://www.w3.org/2001/XMLSchema#integer>',
                  '"x"', '"z"^^<http://www.w3.org/2001/XMLSchema#integer>', '"w"'], dtype=object)
    guard, runs = Guard(), Runs(tmp_path / "r", stream=False)
    guard.frame([s, p, o, ""], runs, None)
    guard.frame([s[::-1].copy(), p[::-1].copy(), o[::-1].copy(), ""], runs, None)  # the same statements again
    ill = "xsd:integer value that is no integer"
    assert list(guard.dropped.items()) == [
        (("relative or illegal IRI", "http://e.org/m"), [1, ['<rel> <http://e.org/m> "x"']]),
        ((ill, "http://e.org/n"), [1, ['<http://e.org/b> <http://e.org/n> "y"^^<http://www.w3.org/2001/XMLSchema#integer>']]),
        ((ill, "http://e.org/m"), [1, ['<http://e.org/c> <http://e.org/m> "z"^^<http://www.w3.org/2001/XMLSchema#integer>']]),
        (("relative or illegal IRI", "http://e.org/n"), [1, ['<rel> <http://e.org/n> "w"']]),
    ]
    assert runs.finish(False, tmp_path / "kg.nt") == 1


def test_output_lines_are_counted_the_same_with_and_without_wc(tmp_path, monkeypatch):
    import pipeline.materialize.output as runs_module
    path = tmp_path / "big.nt"
    path.write_bytes(b"<http://e.org/s> <http://e.org/p> <http://e.org/o> .\n" * 100_000 + b"no final break")
    assert path.stat().st_size > 1 << 22
    with_wc = runs_module.count_lines(path)
    monkeypatch.setattr(runs_module.shutil, "which", lambda name: None)
    assert with_wc == runs_module.count_lines(path) == 100_000
