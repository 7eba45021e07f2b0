"""Generate scenario manifests for the BLINKG benchmark folder.

BLINKG (Apache-2.0) is read from a configurable folder (default
``../shared/benchmarks/blinkg`` from the project root, or ``$BLINKG_DIR``)
and never copied: each case becomes a manifest under
``data/manifests/blinkg/<scenario>/<case>.yaml`` whose paths point into it.

Scenario 1 offers every input as CSV, JSON and XML; the gold tables speak
of CSV columns, so the manifests use the CSV files (``formats`` selects
others: the JSON/XML variants become scenarios ``scenario1-json`` ...).
"""
from __future__ import annotations

import os
from pathlib import Path

from pipeline.errors import InputError
from pipeline.manifest import Case, Source, dump_manifest

__all__ = ["DEFAULT_BLINKG_DIR", "blinkg_dir", "blinkg_cases", "write_manifests"]

DEFAULT_BLINKG_DIR = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "blinkg"
_BASE = {"scenario1": "http://example.org/", "scenario2": "http://example.org/",
         "scenario3": "http://data.europa.eu/a4g/resource/"}


def blinkg_dir(path: str | Path | None = None) -> Path:
    """The benchmark folder: ``path``, else ``$BLINKG_DIR``, else :data:`DEFAULT_BLINKG_DIR`.

    Raises:
        InputError: the folder has no ``scenarios/`` subfolder.
    """
    # absolute, not resolved: manifests written from a `data/blinkg` link keep pointing through it
    root = Path(path or os.environ.get("BLINKG_DIR") or DEFAULT_BLINKG_DIR).absolute()
    if not (root / "scenarios").is_dir():
        raise InputError("BLINKG benchmark folder not found (expected a 'scenarios/' folder inside; "
                         "set BLINKG_DIR or pass --blinkg)", path=root)
    return root


def _case(scenario: str, folder: Path, fmt: str) -> Case | None:
    inputs = sorted(p for p in folder.iterdir() if p.suffix.lower() == f".{fmt}")
    if not inputs:
        return None
    ontologies = sorted(folder.glob("ontology*.ttl"))
    skos = sorted(folder.glob("skos*.ttl"))
    gold_table = folder / "expected_table.md"
    gold_graph = folder / "expected-graph.nt"
    name = scenario if fmt in ("csv", "xml") and scenario != "scenario1" else \
        (scenario if fmt == "csv" else f"{scenario}-{fmt}")
    return Case(name=folder.name, scenario=name, sources=tuple(Source(p, fmt, None, p.name) for p in inputs),
                ontologies=tuple(ontologies), skos=tuple(skos), base_iri=_BASE.get(scenario, "http://example.org/"),
                prefixes={"ex": _BASE.get(scenario, "http://example.org/")} if scenario != "scenario3" else {},
                gold_table=gold_table if gold_table.exists() else None,
                gold_graph=gold_graph if gold_graph.exists() else None)


def blinkg_cases(root: Path, formats: tuple[str, ...] = ("csv",)) -> tuple[list[Case], list[str]]:
    """All runnable BLINKG cases, plus notes on folders that cannot run (no input data).

    Scenario 3 is XML only; scenarios 1 and 2 use ``formats`` (scenario 2 is CSV only).
    """
    cases, notes = [], []
    for sc in sorted((root / "scenarios").iterdir()):
        if not sc.is_dir():
            continue
        for folder in sorted(p for p in sc.iterdir() if p.is_dir()):
            wanted = ("xml",) if sc.name == "scenario3" else formats
            made = [c for c in (_case(sc.name, folder, f) for f in wanted) if c is not None]
            if not made:
                notes.append(f"{sc.name}/{folder.name}: no {'/'.join(wanted)} input file in the benchmark; skipped")
            cases.extend(made)
    return cases, notes


def write_manifests(root: Path, out: Path, formats: tuple[str, ...] = ("csv",)) -> tuple[list[Path], list[str]]:
    """Write one manifest per case under ``out/<scenario>/<case>.yaml``; returns (paths, notes)."""
    cases, notes = blinkg_cases(root, formats)
    paths = [dump_manifest(c, out / c.scenario / f"{c.name}.yaml") for c in cases]
    return paths, notes
