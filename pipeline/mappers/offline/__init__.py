"""Offline default mapper (deterministic, no network): see :mod:`.mapper`."""
from __future__ import annotations

from .mapper import OfflineMapper
from .rows import subject_template

__all__ = ["OfflineMapper", "subject_template"]
