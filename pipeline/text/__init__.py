"""Text to KG: ontology-guided triple extraction from sentences, scored with the LettrIA metrics.

The modules form layers: a module imports from its own layer and the ones before it, never from a
later one (within a layer, in the order listed):

1. data and normalisation: :mod:`.normalize` (the published normalization rules of
   Text2KGBench-LettrIA), :mod:`.data` (ontologies, sentences), :mod:`.schema` (the JSON Schema
   of one sentence's output, structural validity), :mod:`.windows` (long texts cut in windows);
2. mentions and names: :mod:`.names` (DBpedia disambiguations learned from training names),
   :mod:`.mentions` (candidate mentions of a sentence), :mod:`.entity_types` (classes of names);
3. features: :mod:`.features` (pair and subject features, name variants), :mod:`.canonical` (one
   spelling per name across a run), :mod:`.vectors` (MiniLM sentence and token vectors);
4. models: :mod:`.decode` (scored pairs -> triples), :mod:`.corpus` and :mod:`.stacking`
   (corpus evidence, sentence-level re-scoring), :mod:`.tagging_scheme` and :mod:`.tagger` (the
   sequence tagger), :mod:`.label_model` (relations chosen by the ontology's words: zero-shot);
5. extractors: :mod:`.offline` (the default; no network), :mod:`.llm` (any litellm model,
   through the pipeline's one LLM client :mod:`pipeline.llm`);
6. cases: :mod:`.manifest` (the ``kind: text`` manifest), :mod:`.rdf` (triples -> RDF, ontology
   -> OWL), :mod:`.metrics` (E/A/P/R, Text2KGBench triple P/R/F1, hallucination, fidelity,
   adherence), :mod:`.error_analysis`, :mod:`.run_folder` (a case's folder across runs), :mod:`.harness` (one
   case end to end), :mod:`.bench`
   (``make text2kg``), :mod:`.cli` (``kgc text``).
"""
from __future__ import annotations

__all__ = ["normalize", "data", "schema", "windows", "names", "mentions", "entity_types", "features", "canonical",
           "vectors", "decode", "corpus", "stacking", "tagging_scheme", "tagger", "label_model", "offline", "llm", "manifest", "rdf",
           "metrics", "error_analysis", "run_folder", "harness", "bench", "cli"]
