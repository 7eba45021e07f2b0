"""The guard in a worker process while the engine runs on (pipeline/materialize/guard_worker.py): the same bytes and
the same findings as the guard run inline, on the stream-guard case (drops of every kind, a
repaired literal, blank nodes, named graphs, several mapping groups)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import pipeline.materialize.guard_worker as overlap_module
from pipeline.errors import MaterializeError
from pipeline.materialize.materializer import materialize

CASE = Path(__file__).resolve().parent / "cases" / "stream-guard"

pytestmark = pytest.mark.skipif(not overlap_module.available() or shutil.which("sort") is None,
                                reason="needs fork and a sort command")


def _engine_copy(tmp_path: Path, monkeypatch) -> Path:
    """The case's engine copy, as `kgc materialize --engine-copy` writes it."""
    from pipeline.cli import main

    folder = tmp_path / "case"
    shutil.copytree(CASE, folder)
    monkeypatch.chdir(folder)
    main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "first.nq"), "--engine-copy", str(tmp_path / "first.morph-kgc.ttl")])
    return tmp_path / "first.morph-kgc.ttl"


def _findings(result) -> list[tuple]:
    return sorted((f.message, f.severity, f.value, f.file) for f in result.findings)


def test_worker_gives_the_bytes_and_findings_of_the_inline_guard(tmp_path, monkeypatch):
    engine = _engine_copy(tmp_path, monkeypatch)
    sent = []
    send = overlap_module.GuardWorker.send
    monkeypatch.setattr(overlap_module.GuardWorker, "send", lambda self, *a: (sent.append(a[1]), send(self, *a)))
    inline = materialize(engine, output=tmp_path / "inline.nq", fmt="nq", columnar=False)
    assert sent == []  # off by default
    worker = materialize(engine, output=tmp_path / "worker.nq", fmt="nq", overlap=True, columnar=False)
    assert sorted(sent) == [f"#TM{i}" for i in range(10)]  # every engine rule of the case went to the worker
    assert (tmp_path / "worker.nq").read_bytes() == (tmp_path / "inline.nq").read_bytes() \
        == (CASE / "expected.nq").read_bytes()
    assert (worker.n_triples, worker.n_quads, worker.dropped) == (inline.n_triples, inline.n_quads, inline.dropped) \
        == (36, 10, 10)
    assert _findings(worker) == _findings(inline)
    assert len(_findings(worker)) == 8  # 5 drops and repairs, 3 columns with an empty cell
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith((".kgc-runs-", "rule-"))]


def test_the_command_line_guards_in_the_worker(tmp_path, monkeypatch, capsys):
    engine = _engine_copy(tmp_path, monkeypatch)  # `kgc materialize` (its output: the inline guard's, tested below)
    assert (tmp_path / "first.nq").read_bytes() == (CASE / "expected.nq").read_bytes()
    sent = []
    send = overlap_module.GuardWorker.send
    monkeypatch.setattr(overlap_module.GuardWorker, "send", lambda self, *a: (sent.append(a[1]), send(self, *a)))
    from pipeline.cli import main

    assert main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "again.nq"), "--engine-only"]) == 1  # dropped
    assert len(sent) == 10 and engine.exists()
    assert (tmp_path / "again.nq").read_bytes() == (CASE / "expected.nq").read_bytes()
    assert main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "p2.nq"), "--processes", "2", "--engine-only"]) == 1
    assert len(sent) == 10  # a pool of engine processes guards in its workers, not in a guard worker


def test_a_guard_failure_in_the_worker_names_the_triples_map(tmp_path, monkeypatch):
    engine = _engine_copy(tmp_path, monkeypatch)

    def broken(self, columns, runs, triple=None, trusted=None, text_only=False):
        raise ValueError("boom")

    monkeypatch.setattr(overlap_module.Guard, "frame", broken)  # the worker is forked: it inherits this
    with pytest.raises(MaterializeError, match=r"output guard failed on the statements of \S+TM\S*: ValueError: boom"):
        materialize(engine, output=tmp_path / "kg.nq", fmt="nq", overlap=True, columnar=False)
    assert not list(tmp_path.glob(".kgc-runs-*"))


def test_an_engine_failure_stops_the_worker(tmp_path, monkeypatch):
    engine = _engine_copy(tmp_path, monkeypatch)
    pids = []
    init = overlap_module.GuardWorker.__init__

    def record(self, work):
        init(self, work)
        pids.append(self.pid)

    monkeypatch.setattr(overlap_module.GuardWorker, "__init__", record)
    import pipeline.materialize.materializer as materialize_module
    def fail(*args, **kwargs):
        raise RuntimeError("engine down")

    monkeypatch.setattr(materialize_module, "group_frames", fail)  # the engine fails on its first rule
    with pytest.raises(Exception, match="engine down"):
        materialize(engine, output=tmp_path / "kg.nq", fmt="nq", overlap=True, columnar=False)
    assert len(pids) == 1
    with pytest.raises(ChildProcessError):  # already waited for: no worker left behind
        os.waitpid(pids[0], os.WNOHANG)


def test_without_statement_text_the_engine_gives_the_same_term_columns(tmp_path, monkeypatch):
    from pipeline.materialize.engine import engine_groups, engine_run, group_frames

    engine = _engine_copy(tmp_path, monkeypatch)

    def frames(statements: bool) -> list:
        with engine_run():
            groups, rml_df, fnml_df, config = engine_groups(engine)
            return [(tm, [list(c) for c in columns], None if triple is None else list(triple), trusted)
                    for g in groups for tm, columns, triple, trusted in
                    group_frames(g, rml_df, fnml_df, config, statements=statements)]

    full, bare = frames(True), frames(False)
    assert [f[0] for f in full] == [b[0] for b in bare] and len(full) == 10
    assert [(f[0], f[1], f[3]) for f in full] == [(b[0], b[1], b[3]) for b in bare]
    assert all(b[2] is None for b in bare)
    # the engine's own text is the columns joined, which the worker rebuilds
    assert all(t == f"{s} {p} {o} {g}" for f in full for s, p, o, g, t in zip(*f[1], f[2]))


def test_worker_takes_terms_with_line_breaks_and_many_slices(tmp_path, monkeypatch):
    import numpy as np

    from pipeline.materialize.guard import Guard
    from pipeline.materialize.output import Runs

    monkeypatch.setattr(overlap_module, "SLICE", 2)  # several slices per column
    s = np.array(["<http://e.org/a>", "<http://e.org/b\nc>", "<http://e.org/d>", "<http://e.org/a>", "<e>"], dtype=object)
    p = np.array(["<http://e.org/p>"] * 5, dtype=object)
    o = np.array(['"x"', '"y"', '"z"', '"x"', '"w"'], dtype=object)
    g = np.array([""] * 5, dtype=object)
    worker = overlap_module.GuardWorker(tmp_path / "w")
    worker.send(0, "#TM0", [s, p, o, g])
    worker.send(0, "#TM1", [s[::-1].copy(), p, o[::-1].copy(), g])
    guards, files = worker.finish()
    runs = Runs(tmp_path / "w")
    runs.files = files
    assert runs.finish(False, tmp_path / "worker.nt") == 2
    inline_runs, inline = Runs(tmp_path / "i", stream=True), Guard()
    inline.frame([s, p, o, g], inline_runs, None)
    inline.frame([s[::-1].copy(), p, o[::-1].copy(), g], inline_runs, None)
    assert inline_runs.finish(False, tmp_path / "inline.nt") == 2
    assert (tmp_path / "worker.nt").read_bytes() == (tmp_path / "inline.nt").read_bytes() == (
        b'<http://e.org/a> <http://e.org/p> "x" .\n<http://e.org/d> <http://e.org/p> "z" .\n')
    assert guards[0].dropped == inline.dropped and sum(c for c, _ in inline.dropped.values()) == 2
