"""Workarounds for defects of the engine (Morph-KGC 2.10) in running FnO function executions.

Applied once per process, before Morph-KGC materializes (:func:`pipeline.materialize.materialize`).
Each patch is the smallest change that makes a valid RML-FNML mapping run; it changes no value.
"""
from __future__ import annotations

__all__ = ["patch_engine"]


def patch_engine() -> None:
    """Let a literal object map with a function execution run when the subject map is a function too.

    Morph-KGC 2.10 escapes a literal function result through the column ``reference_results``,
    which only a template or reference term map evaluated earlier in the same rule creates
    (``materializer._materialize_fnml_execution``). A TriplesMap whose subject is a function
    execution (a ``$(replace(...))`` subject template) and whose object is a function
    (``toUpperCase``) has no such column, and the run stops with ``KeyError: 'reference_results'``.
    The patch creates the column (empty) when it is missing; the function's own result column,
    which is what the engine writes, is untouched. Idempotent.
    """
    from morph_kgc import materializer

    original = materializer._materialize_fnml_execution
    if getattr(original, "kgc_patched", False):
        return

    def fnml_execution(results_df, *args, **kwargs):
        if "reference_results" not in results_df.columns:
            results_df["reference_results"] = ""
        return original(results_df, *args, **kwargs)

    fnml_execution.kgc_patched = True
    materializer._materialize_fnml_execution = fnml_execution
