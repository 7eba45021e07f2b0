"""Scorers: mapping-level (:mod:`pipeline.scoring.mapping`) and graph-level (:mod:`pipeline.scoring.graph`).

Every scorer returns one typed result (dataclass with ``to_dict()``) and never
raises on messy data.
"""
from __future__ import annotations

__all__: list[str] = []
