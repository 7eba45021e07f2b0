"""Text to KG: ontology-guided triple extraction from sentences, scored with the LettrIA metrics.

* :mod:`.data` - text manifests (``kind: text``), ontologies, sentences; Text2KGBench manifests.
* :mod:`.normalize` - the published normalization rules of Text2KGBench-LettrIA.
* :mod:`.schema` - the JSON Schema of one sentence's output, structural validity.
* :mod:`.mentions`, :mod:`.offline` - the offline extractor (default; no network).
* :mod:`.llm` - the LLM extractor (litellm, JSON Schema response format).
* :mod:`.rdf` - triples -> RDF (entity IRIs, rdf:type, typed literals), ontology -> OWL.
* :mod:`.metrics` - E/A/P/R, Text2KGBench triple P/R/F1, hallucination, fidelity, adherence.
* :mod:`.harness` - one case end to end; :mod:`.bench` - ``make text2kg``; :mod:`.cli` - ``kgc text``.
"""
from __future__ import annotations

__all__ = ["data", "normalize", "schema", "mentions", "offline", "llm", "rdf", "metrics", "harness", "bench", "cli"]
