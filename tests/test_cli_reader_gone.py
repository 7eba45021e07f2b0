"""`kgc ... | head`: a reader that leaves changes neither the work done nor the exit code."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ONTOLOGY = """@prefix ex: <http://example.org/ontology#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Person a owl:Class . ex:name a owl:DatatypeProperty ; <http://www.w3.org/2000/01/rdf-schema#domain> ex:Person .
"""


def _case(tmp_path: Path) -> Path:
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "a.json").write_text('{"name": "Ann"}\n', encoding="utf-8")
    (tmp_path / "records" / "b.json").write_text('{"name":\n', encoding="utf-8")  # not JSON: exit 2
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    manifest = tmp_path / "m.yaml"
    manifest.write_text("name: badj\nsources:\n  - path: records/\nontologies: [onto.ttl]\n", encoding="utf-8")
    return manifest


def test_run_whose_reader_left_keeps_its_exit_code_and_writes_its_report(tmp_path):
    manifest = _case(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "-q", "run", str(manifest), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    proc.stdout.close()  # the reader leaves before the first line: every write meets a closed pipe
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err.decode()
    assert (out / "custom" / "report.json").is_file()
    assert b"Traceback" not in err and b"BrokenPipe" not in err
