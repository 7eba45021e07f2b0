"""Shared fixtures: the BLINKG benchmark folder (read in place, never copied); each test starts
with pyparsing's memoization as the suite found it."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from pyparsing import ParserElement

ROOT = Path(__file__).resolve().parent.parent
BLINKG = Path(os.environ.get("BLINKG_DIR") or ROOT.parent / "shared" / "benchmarks" / "blinkg").resolve()
SCENARIOS = BLINKG / "scenarios"


@pytest.fixture(scope="session")
def scenarios() -> Path:
    """The BLINKG ``scenarios/`` folder; tests that need it skip when it is absent."""
    if not SCENARIOS.is_dir():
        pytest.skip(f"BLINKG benchmark not found at {BLINKG}")
    return SCENARIOS


@pytest.fixture(autouse=True)
def pyparsing_memoization_restored():
    """Turn pyparsing's packrat cache off again after a test that turned it on.

    Importing matplotlib.pyplot (the report's plots) enables it for the whole process
    (matplotlib/_mathtext.py calls ``ParserElement.enable_packrat()``); with it, rdflib's SPARQL
    parser, which Morph-KGC runs about 90 times per mapping, takes twice the CPU. The cache changes
    no result, only the cost, so a test that builds a report must not make the later ones slower.
    """
    enabled = ParserElement._packratEnabled
    yield
    if ParserElement._packratEnabled and not enabled:
        ParserElement.disable_memoization()
