"""A distributed re-run works beside the previous result and replaces it only when it has finished.

``kgc materialize --distributed`` writes its parts in ``<output>.parts.running/``; an interrupted
re-run (SIGTERM, as a batch scheduler's time limit sends it) ends with one line and exit 130 and
leaves the previous parts, manifest and merged output as they were. An earlier run interrupted
during the final renames is finished by the next one.
"""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.materialize.distributed import _swap, _work_folder

pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parent.parent
MAPPING = """@prefix rml: <http://w3id.org/rml/> .
<http://example.org/#Obs> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "obs.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/obs/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://example.org/value> ; rml:objectMap [ rml:reference "value" ] ] .
"""


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _written(work: Path) -> bool:
    """Whether a run's work folder holds a part (more than its empty shuffle folder)."""
    try:
        return any(p.name != "shuffle" for p in work.iterdir())
    except FileNotFoundError:
        return False


def _kgc(args: list[str], cwd: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_interrupted_rerun_keeps_the_previous_result(tmp_path: Path) -> None:
    (tmp_path / "m.ttl").write_text(MAPPING, encoding="utf-8")
    (tmp_path / "obs.csv").write_text("id,value\n" + "".join(f"{i},v{i}\n" for i in range(3000)), encoding="utf-8")
    args = ["materialize", "m.ttl", "out/kg.nt", "--distributed", "--workers", "1", "--block-size", "16k"]
    first = _kgc(args, tmp_path)
    assert first.wait(timeout=300) == 0, first.stderr.read()
    parts, running = tmp_path / "out" / "kg.nt.parts", tmp_path / "out" / "kg.nt.parts.running"
    before, merged = _digests(parts), hashlib.sha1((tmp_path / "out" / "kg.nt").read_bytes()).hexdigest()
    assert "manifest.json" in before and len(before) > 2 and not running.exists()

    # the re-run reads a source a hundred times larger, so that it is still mapping blocks when the
    # signal comes on a slow machine too: interrupted once its first part is written
    (tmp_path / "obs.csv").write_text("id,value\n" + "".join(f"{i},v{i}\n" for i in range(300_000)),
                                      encoding="utf-8")
    second = _kgc(args, tmp_path)
    deadline = time.monotonic() + 120
    while second.poll() is None and time.monotonic() < deadline and not _written(running):
        time.sleep(0.05)
    assert second.poll() is None, "the re-run ended before it could be interrupted"
    second.send_signal(signal.SIGTERM)
    _, err = second.communicate(timeout=120)
    assert second.returncode == 130
    assert err.splitlines() == ["interrupted: terminated (SIGTERM)"], err
    assert _digests(parts) == before
    assert hashlib.sha1((tmp_path / "out" / "kg.nt").read_bytes()).hexdigest() == merged
    assert not running.exists()


def test_ctrl_c_to_the_process_group_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C on a terminal sends SIGINT to the whole foreground group, the Dask workers too: the
    command alone says the interruption (the workers, started with SIGINT blocked, print nothing)."""
    (tmp_path / "m.ttl").write_text(MAPPING, encoding="utf-8")
    (tmp_path / "obs.csv").write_text("id,value\n" + "".join(f"{i},v{i}\n" for i in range(300_000)),
                                      encoding="utf-8")
    running = tmp_path / "out" / "kg.nt.parts.running"
    args = ["materialize", "m.ttl", "out/kg.nt", "--distributed", "--workers", "2", "--block-size", "16k"]
    # a new session, as a terminal's job is its own group; SIGINT at its default (a shell's background
    # job would ignore it)
    run = _kgc(args, tmp_path, start_new_session=True,
               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while run.poll() is None and time.monotonic() < deadline and not _written(running):
        time.sleep(0.05)
    assert run.poll() is None, "the run ended before it could be interrupted"
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130
    assert err.splitlines() == ["interrupted"], err
    assert not running.exists()


def test_swap_interrupted_between_renames_is_finished_by_the_next_run(tmp_path: Path) -> None:
    output = tmp_path / "kg.nt"
    old, new = Path(f"{output}.parts"), Path(f"{output}.parts.running")
    old.mkdir()
    (old / "manifest.json").write_text("old", encoding="utf-8")
    old.rename(Path(f"{output}.parts.previous"))  # interrupted after the first rename of _swap
    work = _work_folder(output)
    assert (old / "manifest.json").read_text(encoding="utf-8") == "old"  # the previous result back
    assert work == new and sorted(p.name for p in work.iterdir()) == ["shuffle"]
    (work / "manifest.json").write_text("new", encoding="utf-8")
    (work / "merged.tmp").write_text("<s> <p> <o> .\n", encoding="utf-8")
    (work / "shuffle").rmdir()
    _swap(work, old, output)
    assert (old / "manifest.json").read_text(encoding="utf-8") == "new"
    assert output.read_text(encoding="utf-8") == "<s> <p> <o> .\n"
    assert not Path(f"{output}.parts.previous").exists() and not new.exists()
