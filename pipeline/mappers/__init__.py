"""Mappers: propose a mapping table for a case's loaded inputs (``offline``, ``llm``, ``replay``).

:mod:`.contract` (what a mapper receives and returns), :mod:`.registry` (mappers by name),
:mod:`.replay`, :mod:`.offline`, :mod:`.llm`, and :mod:`.repair` (validate-and-repair of a table).
"""
from __future__ import annotations

from pipeline.mappers.contract import MapInput, MapResult, Mapper, load_inputs, map_case
from pipeline.mappers.registry import DEFAULT_MAPPER, get_mapper, known_mappers, register

__all__ = ["DEFAULT_MAPPER", "MapInput", "MapResult", "Mapper", "get_mapper", "known_mappers", "load_inputs",
           "map_case", "register"]
