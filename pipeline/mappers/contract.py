"""The mapper contract: what a mapper receives (:class:`MapInput`) and returns (:class:`MapResult`).

A mapper turns a case's loaded inputs - the ontology with its SKOS vocabularies, and the sources -
into a :class:`~pipeline.table.MappingTable` plus provenance. The inputs are loaded once per run (by
the run's load stage, or by :func:`load_inputs` for a caller without one) and the stages after the
map stage use the same objects: a mapper reads them and never modifies them. :func:`map_case` maps a
case on its own, for a caller without a run.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pipeline.manifest import Case
from pipeline.ontology import Ontology, load_ontology
from pipeline.sources.load import SourceData, load_sources
from pipeline.table import MappingTable

__all__ = ["MapInput", "MapResult", "Mapper", "load_inputs", "map_case"]


@dataclass(frozen=True)
class MapInput:
    """What every mapper receives.

    Attributes:
        case: the scenario case (base IRI, prefixes, file paths, gold table).
        ontology: the case's ontologies and SKOS vocabularies, loaded together
            (``load_ontology([*case.ontologies, *case.skos], case.prefixes)``).
        sources: the case's sources, loaded (:func:`pipeline.sources.load.load_sources`), in the
            order of ``case.sources``; their repaired copies live in the folder they were loaded
            into, which must outlive the mapper's call.
    """

    case: Case
    ontology: Ontology
    sources: tuple[SourceData, ...]


def load_inputs(case: Case, workdir: Path) -> MapInput:
    """Load the inputs of a mapper as a run's load stage does: ontology with SKOS, then the sources.

    Args:
        case: the scenario case.
        workdir: folder for the repaired copies of the sources (inputs are never written); it must
            exist as long as the :class:`MapInput` is used.
    Returns:
        The :class:`MapInput`. Unreadable sources are findings of their
        :class:`~pipeline.sources.load.SourceData`, as in the load stage; callers that must stop on
        them call :func:`pipeline.sources.load.require_readable`.
    Raises:
        OntologyError: an ontology or SKOS file is missing or cannot be parsed.
    """
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    return MapInput(case, ontology, tuple(load_sources(case.sources, workdir)))


@dataclass
class MapResult:
    """What a mapper returns.

    Attributes:
        table: the proposed mapping table (rows carry evidence and confidence).
        provenance: mapper name and version, model, prompt hash, latency (s),
            tokens and cost where an LLM was used, and anything else a reader
            needs to reproduce the table.
        raw_tables: tables before validate-and-repair, when the mapper repaired.
        transcripts: for LLM mappers, every prompt and answer of the run
            (``[{"run", "part", "messages", "answer", "finish_reason", "error", "cached"}]``); never a key.
    """

    table: MappingTable
    provenance: dict[str, Any] = field(default_factory=dict)
    raw_tables: list[MappingTable] = field(default_factory=list)
    transcripts: list[dict[str, Any]] = field(default_factory=list)


class Mapper(Protocol):
    """A mapper: ``mapper.map(inputs, **options) -> MapResult``.

    ``options`` are the mapper's own (``use_embeddings`` for ``offline``, ``table`` for ``replay``,
    :class:`~pipeline.llm.LLMSettings` fields for ``llm``); a mapper ignores options it does not know.
    A mapper that samples several runs also has ``map_runs(inputs, **options) -> list[MapResult]``.
    """

    name: str

    def map(self, inputs: MapInput, **options: Any) -> MapResult:  # pragma: no cover - protocol
        """Propose a mapping table for ``inputs.case``."""
        ...


def map_case(mapper: Mapper, case: Case, **options: Any) -> MapResult:
    """Map ``case`` on its own: its inputs loaded (:func:`load_inputs`) into a temporary folder,
    removed when the mapper is done.

    Args:
        mapper: the mapper (:func:`pipeline.mappers.get_mapper`). case: the scenario case.
        options: the mapper's options.
    Returns:
        The mapper's :class:`MapResult`.
    Raises:
        OntologyError: an ontology or SKOS file cannot be parsed; and whatever the mapper raises.
    """
    with tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:
        return mapper.map(load_inputs(case, Path(tmp)), **options)
