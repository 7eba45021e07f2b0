"""Ctrl-C while ``kgc run`` writes a scenario's report: report.json, .md and .html stay one run's (all
this run's or all the earlier run's) and the one line says which (nu18 interrupt-during-report-stale-html:
this run's JSON and Markdown beside the earlier run's page, and a bare "interrupted")."""
from __future__ import annotations

import importlib
import os
import shutil
import signal

import pytest

from pipeline.cli import main

from helpers import case_folder

render = importlib.import_module("pipeline.report.render")  # the module: pipeline.report exports a function so named

FILES = ("report.json", "report.md", "report.html")


def test_replace_together_holds_a_signal_until_all_are_replaced(tmp_path, monkeypatch, request):
    # Ctrl-C raises KeyboardInterrupt here, as in a command's process (a test runner's worker may ignore it)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    paths = [tmp_path / name for name in FILES]
    for p in paths:
        p.write_text("old", encoding="utf-8")
    replace, done = os.replace, []

    def replace_then_signal(src, dst):  # Ctrl-C right after the first file is in place
        replace(src, dst)
        done.append(dst)
        if len(done) == 1:
            os.kill(os.getpid(), signal.SIGINT)
    monkeypatch.setattr(render.os, "replace", replace_then_signal)
    with pytest.raises(KeyboardInterrupt):
        render._replace_together({p: "new" for p in paths})
    assert len(done) == 3 and [p.read_text(encoding="utf-8") for p in paths] == ["new"] * 3
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(FILES)  # no .part file left


def test_interrupt_while_report_is_written_keeps_the_earlier_report_and_says_so(tmp_path, monkeypatch, capsys):
    shutil.copytree(case_folder("interrupt-during-report-stale-html"), tmp_path / "c")
    monkeypatch.chdir(tmp_path / "c")
    assert main(["run", "case.yaml", "--out", "out", "-q"]) == 0
    folder = tmp_path / "c" / "out" / "custom"
    earlier = {n: (folder / n).read_bytes() for n in FILES}
    capsys.readouterr()

    def interrupted_page(report):
        raise KeyboardInterrupt  # as Ctrl-C lands while the page is rendered
    monkeypatch.setattr(render, "to_html", interrupted_page)
    assert main(["run", "case.yaml", "--out", "out", "-q"]) == 130
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "interrupted: while the report was written: the cases' folders are this run's, out/custom/report.json, .md, "
        ".html are not (the earlier run's, if any); run the command again to write them")
    assert {n: (folder / n).read_bytes() for n in FILES} == earlier
    assert not list(folder.glob(".*.part"))
