"""A case run: every stage in order, writing every artifact into ``<out>/<scenario>/<case>/``.

* :mod:`.runner` - :func:`run_case` (the stages in order, once per mapper run);
* :mod:`.case` - :class:`RunConfig`, :class:`CaseRun` and the ``run.json`` / ``audit.*`` artifacts;
* :mod:`.stages` - load, map, compile, materialize, check, validate, score;
* :mod:`.evaluate` - the validate-and-score stage (mapping layer and graph layer).
"""
from __future__ import annotations

from pipeline.run.case import CaseRun, RunConfig
from pipeline.run.runner import run_case

__all__ = ["RunConfig", "CaseRun", "run_case"]
