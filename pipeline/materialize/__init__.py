"""Materialize stage: Morph-KGC runs a normalised RML document; the guard makes every term valid.

* :mod:`.document` - an RML document end to end: the engine, what is computed beside it, its
  logical targets (what ``kgc materialize`` runs);
* :mod:`.materializer` - the engine stage (:func:`~.materializer.materialize`, the Morph-KGC config file);
* :mod:`.engine`, :mod:`.readers` - Morph-KGC 2.10 as the engine and the corrections applied to it;
* :mod:`.limits` - what the engine can read (checks the compile audit runs before it);
* :mod:`.guard` - the output guard (each rule's terms checked, canonical lines kept);
* :mod:`.guard_worker` - the guard in a second process while the engine computes the next rules;
* :mod:`.output` - the sorted, de-duplicated writer of the kept statements;
* :mod:`.distributed` - the same mapping on Dask workers;
* :mod:`.rml` - the normalisation passes any RML document goes through before the engine;
* :mod:`.views` - derived sources: RML-LV logical views and logical sources the engine cannot read;
* :mod:`.gather` - RML-CC collections and containers, with :mod:`.term_maps` (term maps evaluated in Python);
* :mod:`.targets` - RML-IO logical targets, with :mod:`.rdfjson` (the RDF/JSON serialization).

The package imports none of its modules: import the one you need.
"""
