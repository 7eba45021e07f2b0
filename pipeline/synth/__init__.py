"""Generator of unseen scenarios with a controlled schema distance (``kgc synth``, ``make bench-unseen``).

:func:`generate` writes, from a seed and a level (:data:`LEVELS`), an ontology with a SKOS
code list, CSV/JSON/XML data, a manifest, the gold mapping table and the gold KG.
"""
from __future__ import annotations

from pipeline.synth.generate import DATE_FORMATS, Scenario, generate
from pipeline.synth.vocab import DOMAINS, LEVELS

__all__ = ["DATE_FORMATS", "DOMAINS", "LEVELS", "Scenario", "generate"]
