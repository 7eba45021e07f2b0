"""SHACL results are located in the KG file: the value on the focus node's line first, and only when it
is not there the value's first occurrence, then the focus node's (looked up lazily)."""
from __future__ import annotations

from pipeline.run import evaluate

KG = ('<http://e.org/a> <http://e.org/p> "x" .\n'
      '<http://e.org/b> <http://e.org/p> "bad" .\n'
      '<http://e.org/c> <http://e.org/q> "bad" .\n'
      '<http://e.org/d> <http://e.org/p> <http://e.org/a> .\n')


def _finding(focus: str, term: str | None) -> dict:
    return {"severity": "error", "location": focus, "term": term, "message": "[S] value", "line": None, "column": None}


def test_the_value_on_the_focus_line_needs_no_other_lookup(tmp_path, monkeypatch):
    kg = tmp_path / "kg.nt"
    kg.write_text(KG, encoding="utf-8")
    looked_up: list[str] = []
    real = evaluate.source_position

    def counting(finding, source, lines):
        looked_up.append(finding["term"])
        return real(finding, source, lines)

    monkeypatch.setattr(evaluate, "source_position", counting)
    got = evaluate.shacl_positions([_finding("http://e.org/c", '"bad"')], kg)
    assert [(f["line"], f["column"]) for f in got] == [(3, 35)] and looked_up == []
    got = evaluate.shacl_positions([_finding("http://e.org/x", '"bad"')], kg)  # focus node absent: the value's first line
    assert [(f["line"], f["column"]) for f in got] == [(2, 35)] and looked_up == ['"bad"']
    looked_up.clear()
    got = evaluate.shacl_positions([_finding("http://e.org/d", '"none"')], kg)  # value absent: the focus node's line
    assert [(f["line"], f["column"]) for f in got] == [(4, 1)] and looked_up == ['"none"', "<http://e.org/d>"]
    looked_up.clear()
    got = evaluate.shacl_positions([_finding("http://e.org/a", None)], kg)  # no value: the focus node
    assert [(f["line"], f["column"]) for f in got] == [(1, 1)] and looked_up == ["<http://e.org/a>"]
