"""Automated knowledge-graph construction from (semi-)structured data.

Stages: map (mapping table) -> compile (RML + FNML) -> materialize (Morph-KGC)
-> validate and score. Each stage lives in its own module; :mod:`pipeline.run.runner`
chains them for one scenario case.
"""
from __future__ import annotations

__all__ = ["__version__"]
__version__ = "0.1.0"
