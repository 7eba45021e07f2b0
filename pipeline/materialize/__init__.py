"""Materialize stage: Morph-KGC runs a normalised RML document; the guard makes every term valid.

* :mod:`.materializer` - the stage (:func:`materialize`, the engine copy, the Morph-KGC config);
* :mod:`.engine`, :mod:`.readers` - Morph-KGC 2.10 as the engine and the corrections applied to it;
* :mod:`.limits` - what the engine can read (checks the compile audit runs before it);
* :mod:`.guard`, :mod:`.guard_worker` - the output guard, in-process or in a second process;
* :mod:`.output` - the sorted, de-duplicated output writer;
* :mod:`.distributed` - the same mapping on Dask workers;
* :mod:`.rml` - the normalisation passes any RML document goes through before the engine.
"""
from __future__ import annotations

from pipeline.materialize.materializer import (ENGINE_INTEGER, MaterializeResult, engine_config, engine_mapping,
                                               guard_triples, materialize, prepare, write_engine_config)

__all__ = ["ENGINE_INTEGER", "MaterializeResult", "engine_config", "write_engine_config", "engine_mapping", "prepare",
           "materialize", "guard_triples"]
