"""A `kgc text` run stopped by SIGTERM or Ctrl-C during the fit records itself (status stopped, why,
the stage) in <case>.interrupted/ and leaves the earlier run's files in <case>/; a run that ends on
bad input found late leaves no empty folder and the earlier run in place. Real runs of the offline
extractor on the tiny case (tests/cases/text), the first through the `kgc` command and a signal."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.text.harness import run_case
from pipeline.text.manifest import load_case

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "text" / "case.yaml"
EARLIER = {"kg.nt": "<http://e/a> <http://e/p> <http://e/b> .\n", "provenance.json": '{"status": "complete"}'}


def _earlier(folder: Path) -> None:
    folder.mkdir(parents=True)
    for name, text in EARLIER.items():
        (folder / name).write_text(text, encoding="utf-8")


def test_sigterm_during_the_fit_records_the_stopped_run_and_keeps_the_earlier_one(tmp_path):
    out = tmp_path / "out"
    _earlier(out / "tiny_university")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGC_CACHE_DIR": "0", "PIPELINE_NO_EMBEDDINGS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "text", str(CASE), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    seen = []
    for line in proc.stderr:  # the stage line comes as the fit starts; the fit takes seconds of CPU
        seen.append(line)
        if "fitting the offline extractor" in line:
            proc.send_signal(signal.SIGTERM)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == 130, "".join(seen) + rest
    assert rest.strip().splitlines()[-1] == (
        "interrupted: terminated (SIGTERM); tiny_university stopped while fitting the offline extractor on 8 "
        f"training sentences of 1 ontology: this run's files are in {out / 'tiny_university.interrupted'}; the "
        f"earlier run is back in {out / 'tiny_university'}")
    assert "Traceback" not in rest
    prov = json.loads((out / "tiny_university.interrupted" / "provenance.json").read_text(encoding="utf-8"))
    assert (prov["status"], prov["reason"], prov["stage"], prov["sentences_total"], prov["settings"]) == (
        "stopped", "interrupted: terminated (SIGTERM)",
        "fitting the offline extractor on 8 training sentences of 1 ontology", 2, {"threshold": 0.3})
    scores = json.loads((out / "tiny_university.interrupted" / "scores.json").read_text(encoding="utf-8"))
    assert (scores["status"], scores["scored_sentences"], scores["not_scored"]) == (
        "stopped", 0, "the run was interrupted")
    assert "triple" not in scores
    assert {p.name: p.read_text(encoding="utf-8") for p in (out / "tiny_university").iterdir()} == EARLIER
    assert sorted(p.name for p in out.iterdir()) == ["tiny_university", "tiny_university.interrupted"]


def test_ctrl_c_without_an_earlier_run_leaves_no_empty_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", "0")

    def ctrl_c(line: str) -> None:
        if "extracting triples" in line:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt, match=r"^Ctrl-C; tiny_university stopped while extracting triples from 2 "
                       r"sentences: this run's files are in .*tiny_university\.interrupted$"):
        run_case(load_case(CASE), tmp_path / "tiny_university", progress=ctrl_c)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny_university.interrupted"]
    prov = json.loads((tmp_path / "tiny_university.interrupted" / "provenance.json").read_text(encoding="utf-8"))
    assert (prov["status"], prov["reason"]) == ("stopped", "interrupted: Ctrl-C")


def test_bad_input_found_late_keeps_the_earlier_run(tmp_path, monkeypatch):
    # no 'train' and no Text2KGBench to learn from: refused after the folder was made fresh
    monkeypatch.setenv("TEXT2KGBENCH_DIR", str(tmp_path / "nothing"))
    monkeypatch.setenv("TEXT2KGBENCH_TEKGEN_DIR", str(tmp_path / "nothing"))
    (tmp_path / "c.yaml").write_text(f"kind: text\nname: t\nontology: {CASE.parent / 'ontology.json'}\n"
                                     f"sentences: {CASE.parent / 'test.jsonl'}\n", encoding="utf-8")
    _earlier(tmp_path / "out" / "t")
    with pytest.raises(InputError, match="no training sentences"):
        run_case(load_case(tmp_path / "c.yaml"), tmp_path / "out" / "t")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["t"]
    assert {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out" / "t").iterdir()} == EARLIER
