"""Mappers: propose a mapping table for a case (``offline``, ``llm``, ``replay``)."""
from __future__ import annotations

from pipeline.mappers.base import DEFAULT_MAPPER, MapResult, Mapper, get_mapper, known_mappers, register

__all__ = ["DEFAULT_MAPPER", "MapResult", "Mapper", "get_mapper", "known_mappers", "register"]
