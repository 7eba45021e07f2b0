"""Shared fixtures: the BLINKG benchmark folder (read in place, never copied)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLINKG = Path(os.environ.get("BLINKG_DIR") or ROOT.parent / "shared" / "benchmarks" / "blinkg").resolve()
SCENARIOS = BLINKG / "scenarios"


@pytest.fixture(scope="session")
def scenarios() -> Path:
    """The BLINKG ``scenarios/`` folder; tests that need it skip when it is absent."""
    if not SCENARIOS.is_dir():
        pytest.skip(f"BLINKG benchmark not found at {BLINKG}")
    return SCENARIOS
