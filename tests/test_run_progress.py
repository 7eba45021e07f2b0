"""``kgc run`` prints a line per stage on a terminal (case ``run-silent-for-minutes``: a run of minutes
printed nothing until its last line), none with ``-q`` or when stderr is not a terminal."""
from __future__ import annotations

import io
import re
import shutil
import sys
from pathlib import Path

from pipeline.cli import main

CASE = Path(__file__).parent / "cases" / "report-cq-summary-omits-not-run"
STAGES = ["load", "map", "compile", "materialize", "check"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(tmp_path, monkeypatch, stderr: io.StringIO, *flags: str) -> list[str]:
    shutil.copytree(CASE, tmp_path / "c")
    monkeypatch.chdir(tmp_path / "c")
    monkeypatch.setattr(sys, "stderr", stderr)
    main([*flags, "run", "case.yaml", "--out", str(tmp_path / "out"), "--no-evaluate"])
    return [line for line in stderr.getvalue().splitlines() if line.startswith("cqtest/cqcase: ")]


def test_a_line_per_stage_on_a_terminal(tmp_path, monkeypatch):
    lines = _run(tmp_path, monkeypatch, _Terminal())
    assert [line.split(": ", 1)[1].split(" ...")[0] for line in lines] == STAGES
    assert lines[0] == "cqtest/cqcase: load ..."
    for line, before in zip(lines[1:], STAGES):  # each line gives the time the stage before took
        assert re.fullmatch(rf"cqtest/cqcase: \w+ \.\.\. \({before} \d+\.\d s\)", line), line


def test_quiet_and_not_a_terminal_print_no_stage_line(tmp_path, monkeypatch):
    assert _run(tmp_path, monkeypatch, _Terminal(), "-q") == []
    shutil.rmtree(tmp_path / "c")
    assert _run(tmp_path, monkeypatch, io.StringIO()) == []
