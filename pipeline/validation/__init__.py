"""Graph-layer validation of a materialized KG (issue 5).

* :func:`.syntax.check_ntriples` - SV2 strict N-Triples syntax (RIOT-like);
  :func:`.syntax.riot_check` - the same with real Jena RIOT where installed.
* :func:`.consistency.owlrl_consistency`, :func:`.consistency.hermit_consistency` - CS2.
* :func:`.shacl.derive_shapes`, :func:`.shacl.validate_shacl` - SHACL.
* :func:`.sample.subject_sample` - the bounded, stratified sample CS2 and SHACL run on above
  :data:`.sample.FULL_LIMIT` triples (each result then says what it covered).

Every check returns one :class:`.result.Result` and never raises on bad data.
"""
from __future__ import annotations

from pipeline.validation.consistency import hermit_available, hermit_consistency, owlrl_consistency, relevant_instance_data
from pipeline.validation.result import Finding, Result
from pipeline.validation.sample import FULL_LIMIT, subject_sample
from pipeline.validation.shacl import derive_shapes, validate_shacl
from pipeline.validation.syntax import check_ntriples, riot_available, riot_check

__all__ = ["Finding", "Result", "check_ntriples", "riot_available", "riot_check", "owlrl_consistency",
           "hermit_consistency", "hermit_available", "relevant_instance_data", "derive_shapes", "validate_shacl",
           "FULL_LIMIT", "subject_sample"]
