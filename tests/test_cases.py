"""Golden case folders: every ``tests/cases/<id>/`` with an ``expect.yaml`` is one test.

The runner copies the folder to a temporary directory, runs each step's ``kgc`` command in it
(``pipeline.cli.main(argv)``, the working directory being the copy; a ``--distributed`` step in a
child process, ``python -m pipeline.cli``, see tests/conftest.py) and compares the exit code,
stdout, stderr and the files written with what ``expect.yaml`` says. The expected files in a
folder were checked by hand once; they say what is right, not merely what the code gave.

Format of ``expect.yaml`` (unknown keys are an error, so a misspelt check cannot pass unnoticed)::

    about: one line: what the case checks
    fresh_cache: true                       # optional: the case's own empty cache root
                                            # (KGC_CACHE_DIR), for a case whose output says whether
                                            # something was computed or loaded (a text fit)
    steps:                                  # run in order, in the same copy of the folder
      - run: [compile, case.yaml, table.md, "{out}/m.rml.ttl"]   # argv of `kgc`
        exit: 0                             # the exit code (required)
        stdout: ["substring", {re: "regex"}]   # each must occur (re.search, MULTILINE)
        stderr: [...]
        not_stdout: [...]                   # none may occur
        not_stderr: [...]
        stdout_lines: [...]                 # the output's lines, exactly and in order
        stderr_lines: [...]
        stderr_count: {"[datatype]": 1}     # number of lines containing the substring; or a list of
                                            # [pattern, n] pairs, the pattern a substring or {re: ...}
        stdout_count: {...}
        env: {LLM_MODEL: openai/m}          # environment variables set for this step only
        files: [...]                        # checked right after this step (see below)
    files:                                  # checked after the last step
      - path: "{out}/kg.nt"
        exists: true                        # false: the file must not exist (no other check then)
        graph: expected.nt                  # isomorphic as RDF (N-Triples, Turtle, or N-Quads: each
                                            # named graph compared); a readable diff on failure
        text: ""                            # the exact content
        contains: [...]                     # as for stdout
        not_contains: [...]
        line_count: 2                       # number of non-empty lines
        lines_with: {"#reportsTo>": [...]}  # the sorted lines containing the key equal the list
        json: {"/status": ok}               # JSON Pointer (RFC 6901) -> the value there

Placeholders, in ``run``, ``path`` and every expected string: ``{out}`` is a fresh folder outside
the copy, ``{case}`` the copy itself. Nothing else is substituted (IRI templates keep their braces).
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from rdflib import Dataset, Graph
from rdflib.compare import graph_diff, to_isomorphic

from pipeline.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
FOLDERS = sorted(p.parent for p in CASES.glob("*/expect.yaml"))

_TOP = {"about", "fresh_cache", "steps", "files"}
_STEP = {"run", "exit", "stdout", "stderr", "not_stdout", "not_stderr", "stdout_lines", "stderr_lines",
         "stdout_count", "stderr_count", "env", "files"}
_FILE = {"path", "exists", "graph", "text", "contains", "not_contains", "line_count", "lines_with", "json"}


class Places:
    """The substitutions of one case run: ``{out}`` and ``{case}``."""

    def __init__(self, case: Path, out: Path) -> None:
        self.case, self.out = case, out

    def __call__(self, value):
        """``value`` with the placeholders replaced (strings, and strings inside lists and dicts)."""
        if isinstance(value, str):
            return value.replace("{out}", str(self.out)).replace("{case}", str(self.case))
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {self(k): self(v) for k, v in value.items()}
        return value


def _unknown(where: str, given: dict, allowed: set[str]) -> None:
    extra = sorted(set(given) - allowed)
    assert not extra, f"{where}: unknown key(s) {extra}; expected some of {sorted(allowed)}"


def _occurs(pattern, text: str) -> bool:
    """A substring occurs, or a ``{re: ...}`` pattern matches, in ``text``."""
    if isinstance(pattern, dict):
        _unknown("pattern", pattern, {"re"})
        return re.search(pattern["re"], text, re.MULTILINE) is not None
    return pattern in text


def check_text(name: str, text: str, spec: dict, key: str) -> None:
    """The checks of ``spec`` whose key names ``key`` (``stdout``, ``stderr``, ``contains``) on ``text``.

    Raises:
        AssertionError: naming the stream, the check and the text seen.
    """
    present, absent = (("contains", "not_contains") if key == "contains" else (key, f"not_{key}"))
    for p in spec.get(present, []):
        assert _occurs(p, text), f"{name}: expected {p!r} in:\n{text}"
    for p in spec.get(absent, []):
        assert not _occurs(p, text), f"{name}: {p!r} should not occur in:\n{text}"
    if f"{key}_lines" in spec:
        assert text.splitlines() == spec[f"{key}_lines"], f"{name}: lines differ:\n{text}"
    counts = spec.get(f"{key}_count", {})
    for pattern, n in counts.items() if isinstance(counts, dict) else counts:
        got = sum(_occurs(pattern, line) for line in text.splitlines())
        assert got == n, f"{name}: {got} line(s) contain {pattern!r}, expected {n}:\n{text}"


def _datasets(path: Path) -> dict[str, Graph]:
    """The graphs of an RDF file by name ('' for the default graph); N-Quads keep their graph names."""
    fmt = {".nq": "nquads", ".trig": "trig", ".ttl": "turtle", ".nt": "nt"}.get(path.suffix, "nt")
    if fmt in ("nquads", "trig"):
        ds = Dataset()
        ds.parse(path, format=fmt)
        graphs = {}
        for g in ds.graphs():
            if len(g):
                name = "" if g.identifier == ds.default_context.identifier else str(g.identifier)
                graphs[name] = Graph()
                graphs[name] += g
        return graphs
    return {"": Graph().parse(path, format=fmt)}


def check_graph(actual: Path, expected: Path) -> None:
    """``actual`` and ``expected`` hold isomorphic RDF (per named graph).

    Raises:
        AssertionError: with the statements only in one of them, sorted, as N-Triples.
    """
    got, want = _datasets(actual), _datasets(expected)
    assert sorted(got) == sorted(want), f"{actual}: graph names {sorted(got)}, expected {sorted(want)}"
    for name in want:
        a, b = to_isomorphic(got[name]), to_isomorphic(want[name])
        if a == b:
            continue
        _, only_got, only_want = graph_diff(a, b)
        lines = lambda g: "\n".join(sorted(g.serialize(format="nt").splitlines()))  # noqa: E731
        raise AssertionError(f"{actual} {name or '(default graph)'} differs from {expected.name}:\n"
                             f"only in the output:\n{lines(only_got)}\nonly expected:\n{lines(only_want)}")


def _pointer(doc, pointer: str):
    """The value at a JSON Pointer (RFC 6901) in ``doc``."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def check_file(spec: dict, case: Path) -> None:
    """One file's checks (already substituted); expected files are read from the case copy ``case``."""
    _unknown(f"file {spec.get('path')}", spec, _FILE)
    path = Path(spec["path"])
    path = path if path.is_absolute() else case / path
    if spec.get("exists", True) is False:
        assert not path.exists(), f"{path} should not exist"
        return
    assert path.is_file(), f"{path}: no such file"
    if "graph" in spec:
        check_graph(path, case / spec["graph"])
    text = path.read_text(encoding="utf-8")
    if "text" in spec:
        assert text == spec["text"], f"{path}: content {text!r}, expected {spec['text']!r}"
    check_text(str(path), text, spec, "contains")
    if "line_count" in spec:
        got = len([line for line in text.splitlines() if line.strip()])
        assert got == spec["line_count"], f"{path}: {got} lines, expected {spec['line_count']}"
    for sub, expected in spec.get("lines_with", {}).items():
        got = sorted(line for line in text.splitlines() if sub in line)
        assert got == expected, f"{path}: lines with {sub!r}:\n" + "\n".join(got)
    if "json" in spec:
        doc = json.loads(text)
        for pointer, expected in spec["json"].items():
            assert _pointer(doc, pointer) == expected, f"{path}: {pointer} is {_pointer(doc, pointer)!r}, " \
                                                       f"expected {expected!r}"


def _main_with_log(argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` and the lines it logged at WARNING or above, in the CLI's format: under pytest the
    root logger already has pytest's handler, so the CLI's ``logging.basicConfig`` adds none and the
    lines never reach the captured standard error."""
    lines: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: lines.append(f"{record.levelname.lower()}: {record.getMessage()}")
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        rc = main(argv)
    finally:
        root.removeHandler(handler)
    return rc, "".join(line + "\n" for line in lines)


def _child(argv: list[str], cwd: Path) -> tuple[str, str, int]:
    """``kgc argv`` in a child process in ``cwd``: ``(stdout, stderr, exit code)``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    return done.stdout, done.stderr, done.returncode


def run_case(folder: Path, tmp_path: Path, capsys, monkeypatch) -> int:
    """Run and check one case folder; returns the number of steps run.

    Raises:
        AssertionError: on the first check that fails, naming the step.
    """
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    _unknown(str(folder / "expect.yaml"), expect, _TOP)
    assert expect.get("about") and expect.get("steps"), f"{folder}/expect.yaml: 'about' and 'steps' are required"
    work, out = tmp_path / "case", tmp_path / "out"
    shutil.copytree(folder, work)
    out.mkdir()
    places = Places(work, out)
    monkeypatch.chdir(work)
    if expect.get("fresh_cache"):  # what other runs stored must not decide what this one prints
        monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    for i, step in enumerate(expect["steps"], 1):
        _unknown(f"{folder.name} step {i}", step, _STEP)
        assert "run" in step and "exit" in step, f"{folder.name} step {i}: 'run' and 'exit' are required"
        step = places(step)
        argv = [str(a) for a in step["run"]]
        with monkeypatch.context() as env:
            for key, value in (step.get("env") or {}).items():
                env.setenv(str(key), str(value))
            if "--distributed" in argv:  # a Dask cluster in this process would outlive the step (tests/conftest.py)
                stdout, stderr, rc = _child(argv, work)
            else:
                capsys.readouterr()
                rc, logged = _main_with_log(argv)
                stdout, stderr = capsys.readouterr()
                stderr = logged + stderr  # what a user's terminal shows: kgc's log lines go to standard error too
        where = f"{folder.name} step {i} (kgc {' '.join(map(str, step['run']))})"
        assert rc == step["exit"], f"{where}: exit {rc}, expected {step['exit']}\nstdout:\n{stdout}\nstderr:\n{stderr}"
        check_text(f"{where} stdout", stdout, step, "stdout")
        check_text(f"{where} stderr", stderr, step, "stderr")
        for f in step.get("files", []):
            check_file(f, work)
    for f in places(expect.get("files", [])):
        check_file(f, work)
    return len(expect["steps"])


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_case(folder: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """The case's commands give the exit codes, messages and files its ``expect.yaml`` names."""
    assert run_case(folder, tmp_path, capsys, monkeypatch) > 0


# The runner's own checks must be able to fail: a golden test whose check cannot fail is a defect.

def test_each_kind_of_check_fails_on_a_wrong_expectation(tmp_path):
    kg = tmp_path / "kg.nt"
    kg.write_text('<http://e/a> <http://e/p> "x" .\n<http://e/b> <http://e/p> _:n .\n', encoding="utf-8")
    (tmp_path / "same.nt").write_text('<http://e/b> <http://e/p> _:other .\n<http://e/a> <http://e/p> "x" .\n',
                                      encoding="utf-8")
    (tmp_path / "other.nt").write_text('<http://e/a> <http://e/p> "y" .\n<http://e/b> <http://e/p> _:n .\n',
                                       encoding="utf-8")
    (tmp_path / "j.json").write_text('{"a": {"b/c": [1, 2]}}', encoding="utf-8")
    right = [{"graph": "same.nt"}, {"contains": ['"x"', {"re": r"^<http://e/b>"}]}, {"not_contains": ["zz"]},
             {"line_count": 2}, {"lines_with": {'"x"': ['<http://e/a> <http://e/p> "x" .']}},
             {"text": kg.read_text()}]
    wrong = [{"graph": "other.nt"}, {"contains": ['"y"']}, {"contains": [{"re": r"^<http://e/c>"}]},
             {"not_contains": ['"x"']}, {"line_count": 3}, {"lines_with": {'"x"': []}}, {"text": ""}]
    for spec in right:
        check_file({"path": str(kg), **spec}, tmp_path)
    for spec in wrong:
        with pytest.raises(AssertionError):
            check_file({"path": str(kg), **spec}, tmp_path)
    check_file({"path": str(tmp_path / "j.json"), "json": {"/a/b~1c/1": 2}}, tmp_path)
    with pytest.raises(AssertionError):
        check_file({"path": str(tmp_path / "j.json"), "json": {"/a/b~1c/1": 1}}, tmp_path)
    with pytest.raises(AssertionError, match="should not exist"):
        check_file({"path": str(kg), "exists": False}, tmp_path)
    with pytest.raises(AssertionError, match="no such file"):
        check_file({"path": str(tmp_path / "nope.nt")}, tmp_path)
    with pytest.raises(AssertionError, match="unknown key"):
        check_file({"path": str(kg), "contain": ["x"]}, tmp_path)


def test_stream_checks_fail_on_a_wrong_expectation():
    text = "warning: t.md:3 [datatype]: narrow\ninfo: t.md:4 [language_tag]: read per record\n"
    check_text("err", text, {"stderr": ["narrow"], "not_stderr": ["Traceback"], "stderr_count": {"[datatype]": 1},
                             "stderr_lines": text.splitlines()}, "stderr")
    check_text("err", text, {"stderr_count": [[{"re": r"^\w+: t\.md:\d+ \["}, 2], ["[language_tag]", 1]]}, "stderr")
    for spec in ({"stderr": ["wide"]}, {"not_stderr": ["narrow"]}, {"stderr_count": {"[datatype]": 2}},
                 {"stderr_lines": text.splitlines()[:1]}, {"stderr": [{"re": r"^info: t\.md:3"}]},
                 {"stderr_count": [[{"re": r"^\w+: t\.md:\d+ \["}, 1]]}):
        with pytest.raises(AssertionError):
            check_text("err", text, spec, "stderr")


def test_a_named_graph_in_the_wrong_graph_is_a_difference(tmp_path):
    (tmp_path / "a.nq").write_text("<http://e/a> <http://e/p> <http://e/o> <http://e/g1> .\n", encoding="utf-8")
    (tmp_path / "b.nq").write_text("<http://e/a> <http://e/p> <http://e/o> <http://e/g2> .\n", encoding="utf-8")
    check_graph(tmp_path / "a.nq", tmp_path / "a.nq")
    with pytest.raises(AssertionError, match="graph names"):
        check_graph(tmp_path / "a.nq", tmp_path / "b.nq")
