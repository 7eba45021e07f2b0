"""Shared fixtures (the BLINKG benchmark folder, read in place, never copied) and the test order.

Tests that start a Dask cluster inside the test process run last: Dask leaves threads running
(``Dask-Offload``, its event loop), and a process forked while another thread holds a lock keeps
that lock held forever (POSIX ``fork`` copies only the calling thread). The engine's process pool,
the guard worker and the parallel validation fork; forked after a Dask test, one of them once hung
the suite. The case runner runs ``--distributed`` steps in a child process for the same reason.
"""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLINKG = Path(os.environ.get("BLINKG_DIR") or ROOT.parent / "shared" / "benchmarks" / "blinkg").resolve()
SCENARIOS = BLINKG / "scenarios"

#: test modules that start a Dask cluster in the test process (see the module docstring)
IN_PROCESS_DASK = ("test_scale_distributed.py", "test_scale_distributed_workers.py")


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test (the product runs offline)."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def pytest_collection_modifyitems(config, items: list) -> None:
    """Move the tests of :data:`IN_PROCESS_DASK` to the end, keeping every other order."""
    items.sort(key=lambda item: item.path.name in IN_PROCESS_DASK)  # stable: False first


@pytest.fixture(scope="session")
def scenarios() -> Path:
    """The BLINKG ``scenarios/`` folder; tests that need it skip when it is absent."""
    if not SCENARIOS.is_dir():
        pytest.skip(f"BLINKG benchmark not found at {BLINKG}")
    return SCENARIOS
