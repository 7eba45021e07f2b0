"""Does the generated gold table compile to the generated gold KG? (``kgc synth --check``)

The gold KG is written from the records (:mod:`.gold`); the gold table is what a
perfect mapper would propose. Compiling that table with our compiler and Morph-KGC
must give the same graph; where it does not, either the table or the compiler and
engine are wrong, and the triples that differ say which. Disagreements the pipeline
already reports (a finding of the audit, compile or materialize stage) are listed with
the triples.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.rdffile import load_graph
from pipeline.run.evaluate import gold_kg
from pipeline.sources.load import load_sources

__all__ = ["GoldCheck", "check_gold"]


@dataclass
class GoldCheck:
    """Result of :func:`check_gold`.

    Attributes:
        agree: the compiled gold table gives exactly the gold KG.
        n_gold, n_compiled: triples in each graph.
        missing: N-Triples lines only in the gold KG (sorted); extra: only in the compiled KG.
        findings: messages of the errors and warnings the pipeline reported on the gold table.
    """

    agree: bool
    n_gold: int
    n_compiled: int
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


def _lines(g) -> set[str]:
    return {f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in g}


def check_gold(manifest: str | Path, workdir: str | Path) -> GoldCheck:
    """Compile the scenario's gold table, materialize it and compare with its gold KG.

    Args:
        manifest: a generated scenario's manifest (needs ``gold.table`` and ``gold.graph``).
        workdir: folder for the engine files (``<workdir>/gold/``) and repaired inputs.
    Returns:
        A :class:`GoldCheck`.
    Raises:
        InputError: the manifest, ontology, sources or gold graph cannot be read, or the
            manifest has no gold table and gold graph.
    """
    case = load_manifest(manifest)
    if case.gold_table is None or case.gold_graph is None:
        raise InputError("the manifest needs gold.table and gold.graph to check them against each other",
                         path=case.manifest, key="gold")
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = load_sources(case.sources, work / "inputs")
    expected = load_graph(case.gold_graph, "gold graph")
    built = gold_kg(dataclasses.replace(case, gold_graph=None), ontology, sources, work)
    got = built.graph if built.graph is not None else expected.__class__()
    a, b = _lines(expected), _lines(got)
    findings = [f.message for s in sources for f in s.findings] + [f.message for f in built.findings]
    return GoldCheck(a == b, len(a), len(b), sorted(a - b), sorted(b - a), findings)
