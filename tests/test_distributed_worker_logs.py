"""The workers of a local Dask cluster keep their own logs off the console, memory warnings apart.

A worker forked from ``kgc materialize --distributed`` writes its log lines on the user's console;
when a run is interrupted (SIGTERM from a batch scheduler), a worker outliving the scheduler by a
moment logged a heartbeat error with its traceback under the command's one-line message.
Run in a child process: a Dask cluster started in the test process leaves threads behind
(tests/conftest.py).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """
import logging
from pipeline.materialize.distributed import _client
client, cluster = _client(1, None)
levels = client.run(lambda: [logging.getLogger(n).getEffectiveLevel() for n in
                             ("distributed.worker", "distributed.core", "distributed.worker.memory")])
print(list(levels.values())[0], logging.getLogger("distributed.worker.memory").getEffectiveLevel())
client.close(); cluster.close()
"""


def test_local_workers_log_only_memory_warnings() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "[51, 51, 30] 30"  # CRITICAL + 1, WARNING; the command's own levels unchanged
