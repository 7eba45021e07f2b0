"""Graph-layer validation of a materialized KG.

* :func:`.syntax.check_ntriples` - SV2 strict N-Triples syntax (RIOT-like);
  :func:`.syntax.riot_check` - the same with real Jena RIOT where installed.
* :func:`.consistency.owlrl_consistency`, :func:`.consistency.hermit_consistency` - CS2.
* :func:`.shacl.derive_shapes`, :func:`.shacl.validate_shacl` - SHACL.
* :mod:`.terms` - the IRI, language-tag and literal checks SV2 applies to each term, which the
  audit, the mappers and the materializer's guard apply too.
* :func:`.sample.subject_sample` - the bounded, stratified sample CS2 and SHACL run on above
  :data:`.sample.FULL_LIMIT` triples (each result then says what it covered). Not re-exported
  here: it reads the KG with the materializer's line counter, and the materializer's guard
  imports :mod:`.terms`, which runs this package first.

Every check returns one :class:`.result.Result` and never raises on bad data; its findings are
:class:`pipeline.findings.Finding` objects.
"""
from __future__ import annotations

from pipeline.validation.consistency import hermit_available, hermit_consistency, owlrl_consistency, relevant_instance_data
from pipeline.validation.result import Result
from pipeline.validation.shacl import derive_shapes, validate_shacl
from pipeline.validation.syntax import check_ntriples, riot_available, riot_check

__all__ = ["Result", "check_ntriples", "riot_available", "riot_check", "owlrl_consistency",
           "hermit_consistency", "hermit_available", "relevant_instance_data", "derive_shapes", "validate_shacl"]
