"""The output folder of one ``kgc text`` case across runs: an earlier run is kept until this one ends.

A run writes a fresh ``<case>/``; the earlier run's folder waits as ``<case>.previous/`` and is
deleted when the run ends (complete, or stopped by the LLM with its record written). A run
stopped by Ctrl-C or SIGTERM writes ``provenance.json`` (and ``scores.json`` when the case has
gold) with ``status: stopped``, why and the stage it was in, is moved to ``<case>.interrupted/``
with what it had written, and the earlier run comes back to ``<case>/``: as ``kgc run`` does
(:mod:`pipeline.run.runner`). A run that ends on any other error (bad input found late) is moved
to ``<case>.failed/`` when it wrote anything, and the earlier run comes back. A run killed
outright leaves ``<case>.previous/``; the next run keeps the killed run's folder as
``<case>.interrupted/`` and treats ``<case>.previous/`` as the earlier run.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline import outfolder
from pipeline.outfolder import begin, end

__all__ = ["begin", "end", "interrupted", "failed"]


def _restore(folder: Path, previous: Path | None, suffix: str) -> tuple[Path | None, str]:
    """:func:`pipeline.outfolder.restore`, and the words saying where the earlier run is."""
    back = previous is not None and previous.is_dir()
    kept = outfolder.restore(folder, previous, suffix)
    return kept, f"; the earlier run is back in {folder}" if back else ""


def interrupted(folder: Path, previous: Path | None, record: dict[str, Any], has_gold: bool) -> str:
    """Close a run stopped by Ctrl-C or SIGTERM: its record written, its folder set aside, the
    earlier run back.

    Args:
        folder: this run's folder (``<case>/``).
        previous: :func:`begin`'s answer.
        record: what ``provenance.json`` says (``status: stopped``, ``reason``, ``stage`` ...).
        has_gold: the case has gold: ``scores.json`` says the run stopped and has no scores.
    Returns:
        One line: where this run's files and the earlier run are.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "provenance.json").write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    if has_gold:  # no figure: the sentences were not all extracted, or not scored yet
        keys = ("status", "reason", "stage", "sentences_total")
        (folder / "scores.json").write_text(json.dumps(
            {**{k: record[k] for k in keys if k in record}, "scored_sentences": 0,
             "not_scored": "the run was interrupted"}, indent=1), encoding="utf-8")
    kept, back = _restore(folder, previous, ".interrupted")
    return f"this run's files are in {kept}{back}"


def failed(folder: Path, previous: Path | None) -> None:
    """A run that ended on an error: what it wrote goes to ``<case>.failed/``, the earlier run back."""
    _restore(folder, previous, ".failed")
