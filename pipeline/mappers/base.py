"""Mapper contract and registry.

A mapper turns a scenario case (sources, ontology, SKOS, base IRI) into a
:class:`~pipeline.table.MappingTable` plus provenance. Mappers are chosen by
name (``offline`` default, ``llm``, ``replay``); implementations register
themselves with :func:`register` and are imported lazily so that optional
SDKs (litellm, torch) load only when their mapper is used.
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from pipeline.errors import InputError
from pipeline.manifest import Case
from pipeline.table import MappingTable

__all__ = ["MapResult", "Mapper", "register", "get_mapper", "known_mappers", "DEFAULT_MAPPER"]

DEFAULT_MAPPER = "offline"


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
    """A mapper: ``mapper.map(case, **options) -> MapResult``."""

    name: str

    def map(self, case: Case, **options: Any) -> MapResult:  # pragma: no cover - protocol
        """Propose a mapping table for ``case``."""
        ...


_REGISTRY: dict[str, Callable[[], Mapper]] = {}
#: name -> module that registers it on import (lazy: optional SDKs load on use)
_LAZY: dict[str, str] = {
    "replay": "pipeline.mappers.replay",
    "offline": "pipeline.mappers.offline",
    "llm": "pipeline.mappers.llm.mapper",
}


def register(name: str) -> Callable[[Callable[[], Mapper]], Callable[[], Mapper]]:
    """Class/factory decorator: make a mapper available under ``name``."""
    def deco(factory: Callable[[], Mapper]) -> Callable[[], Mapper]:
        _REGISTRY[name] = factory
        return factory
    return deco


def known_mappers() -> list[str]:
    """Names a user may pass to :func:`get_mapper`."""
    return sorted(set(_REGISTRY) | set(_LAZY))


def get_mapper(name: str) -> Mapper:
    """Instantiate the mapper registered under ``name``.

    Raises:
        InputError: unknown name (the message lists the known ones and the closest),
            or a mapper whose module is not installed.
    """
    if name not in _REGISTRY and name in _LAZY:
        try:
            importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as exc:
            raise InputError(f"mapper {name!r} is not available in this installation: {exc}", key=name) from exc
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, known_mappers(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown mapper {name!r}; known mappers: {', '.join(known_mappers())}{hint}", key=name)
    return _REGISTRY[name]()
