"""Columns the guard need not check (pipeline/materialize/engine.py `trusted_template`): IRIs the engine built
from a template whose constant parts are valid, with IRI-safe values. Skipping their check must
change nothing: same bytes, same findings as checking every column."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pipeline.materialize.engine as engine_module
from pipeline.materialize.engine import trusted_template
from pipeline.materialize.rml.vocabulary import BNODE_NS, REF_NS
from pipeline.materialize.materializer import materialize

CASE = Path(__file__).resolve().parent / "cases" / "stream-guard"


@pytest.mark.parametrize("template, trusted", [
    ("http://e.org/s/{id}", True), ("urn:x:{id}", True), ("http://e.org?{q}", True), ("http://e.org/{a}#{b}", True),
    ("http://{host}/x", False),        # a value in the authority
    ("http://e.org:{port}/", False),   # ... in the port
    ("http://e.org:8080/{x}", False),  # a port: checked as before
    ("HTTP://e.org/{x}", False),       # upper-case scheme: not canonical
    ("{x}", False),                    # no constant scheme
    ("http://e.org/s", False),         # no reference: a constant, checked once anyway
    ("http://e.org/a#{x}#", False), ("http://e.org/%zz{x}", False), ("http://e.org/{a} b", False),
    ("http://e.org/é/{x}", False),     # non-ASCII constant part: checked
    ("http://e.org/{a}/\\{b\\}", False),  # escaped braces are literal '{' '}': illegal
    (BNODE_NS + "{x}", False), (REF_NS + "b/{x}", False), ("https://w3id.org/kgc-pipeline/{x}", False),
])
def test_which_templates_are_trusted(template, trusted):
    assert trusted_template(template) is trusted


def test_skipping_trusted_columns_changes_nothing(tmp_path, monkeypatch):
    from pipeline.cli import main

    folder = tmp_path / "case"
    shutil.copytree(CASE, folder)
    monkeypatch.chdir(folder)
    main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "first.nq"), "--engine-copy", str(tmp_path / "first.morph-kgc.ttl")])
    engine = tmp_path / "first.morph-kgc.ttl"
    seen = []
    real = engine_module.trusted_template
    monkeypatch.setattr(engine_module, "trusted_template", lambda t: seen.append((t, real(t))) or real(t))
    trusted = materialize(engine, output=tmp_path / "trusted.nq", fmt="nq")
    assert ("http://example.org/base/person/{name}", True) in seen  # the subjects are not checked
    assert any(not ok for _, ok in seen)  # "{name} ({id})" made absolute: a space, checked and dropped
    monkeypatch.setattr(engine_module, "trusted_template", lambda t: False)
    checked = materialize(engine, output=tmp_path / "checked.nq", fmt="nq")
    assert (tmp_path / "trusted.nq").read_bytes() == (tmp_path / "checked.nq").read_bytes() \
        == (CASE / "expected.nq").read_bytes()
    assert sorted((f.message, f.value) for f in trusted.findings) == sorted((f.message, f.value) for f in checked.findings)
    assert (trusted.n_triples, trusted.n_quads, trusted.dropped) == (36, 10, 10)
