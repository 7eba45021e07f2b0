"""Offline default mapper (deterministic, no network): see :mod:`.mapper`."""
from __future__ import annotations

from pipeline.mappers.offline.mapper import OfflineMapper
from pipeline.mappers.offline.rows import subject_template

__all__ = ["OfflineMapper", "subject_template"]
