"""Row alignment between a predicted and a gold mapping table (BLINKG section 4.2).

BLINKG pairs predicted and gold rows first on the ontology property, and
widens the key with the entity class and the data reference when the
property alone is ambiguous (several gold rows share it: ``gtfs:id`` on
agencies and on routes). Here that priority is a tiered pair score

    w(i, j) = 4·[s_P >= tau] + 2·[s_C >= tau] + 1·[s_R >= tau] + (s_P + s_C + s_R) / 6

where ``s_P``, ``s_C``, ``s_R`` are the cell similarities
(:class:`~.similarity.CellSimilarity`) of ontology property, entity class
(best gold alternative) and data reference; two empty cells count as equal.
The tiers make a property match outweigh class + reference together, and
the continuous last term (< 0.5) breaks ties between equal tiers. A pair is
*admissible* when the property matches, or, failing that, both class and
reference match (a right row with a wrong property). Inadmissible pairs are
never aligned.

**Hungarian vs greedy.** The BLINKG scripts (``citiususc/blinkg``,
``evaluate.py`` ``match_tables``) match greedily: unique property values
first, then each predicted row in table order takes its best still-free gold
row (first come, first served). A row early in the table can thus take the
gold row a later row needed, leaving the later row with a worse partner or
none. Here the alignment maximises the total score over one-to-one pairs
(Kuhn-Munkres / Hungarian method, :func:`scipy.optimize.linear_sum_assignment`),
so no such order effect exists; ``method="greedy"`` reproduces the
first-come rule for comparison.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from pipeline.table.cells import split_class_alternatives
from pipeline.table.model import MappingTable
from pipeline.scoring.mapping.similarity import CellSimilarity

__all__ = ["ALIGNMENT_METHODS", "Alignment", "alignment_scores", "align_rows"]

log = logging.getLogger(__name__)

#: Accepted values of ``method``.
ALIGNMENT_METHODS = ("hungarian", "greedy")
_ADMISSIBLE = 3.0


@dataclass
class Alignment:
    """One-to-one pairing of predicted and gold rows.

    Attributes:
        pairs: ``(predicted_index, gold_index)`` pairs (0-based row indices), sorted by predicted index.
        unmatched_predicted: predicted row indices with no partner.
        unmatched_gold: gold row indices with no partner.
        method: ``"hungarian"`` or ``"greedy"``.
        total_score: sum of the pair scores ``w(i, j)`` (higher is better).
        pair_scores: ``w(i, j)`` of each pair, in the order of :attr:`pairs`.
    """

    pairs: list[tuple[int, int]] = field(default_factory=list)
    unmatched_predicted: list[int] = field(default_factory=list)
    unmatched_gold: list[int] = field(default_factory=list)
    method: str = "hungarian"
    total_score: float = 0.0
    pair_scores: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (indices 0-based)."""
        return {"method": self.method, "pairs": [list(p) for p in self.pairs],
                "unmatched_predicted": list(self.unmatched_predicted),
                "unmatched_gold": list(self.unmatched_gold), "total_score": round(self.total_score, 6),
                "pair_scores": [round(s, 6) for s in self.pair_scores]}


def _class_matrix(pred: MappingTable, gold: MappingTable, sim: CellSimilarity) -> np.ndarray:
    """Entity-class similarity, best gold alternative per gold row."""
    flat: list[str | None] = []
    owner: list[int] = []
    for j, row in enumerate(gold.rows):
        alts = split_class_alternatives(row.entity_class) or [None]
        flat.extend(alts)
        owner.extend([j] * len(alts))
    full = sim.matrix([r.entity_class for r in pred.rows], flat, terms=True)
    out = np.zeros((len(pred.rows), len(gold.rows)))
    for k, j in enumerate(owner):
        out[:, j] = np.maximum(out[:, j], full[:, k])
    return out


def alignment_scores(pred: MappingTable, gold: MappingTable, sim: CellSimilarity) -> np.ndarray:
    """Pair scores ``w(i, j)`` (formula in the module docstring), 0.0 for inadmissible pairs.

    Returns:
        ``float64`` array ``(len(pred), len(gold))``; admissible entries are >= 3.
    """
    n, m = len(pred.rows), len(gold.rows)
    if n == 0 or m == 0:
        return np.zeros((n, m))
    tau = sim.tau
    s_p = sim.matrix([r.ontology_property for r in pred.rows], [r.ontology_property for r in gold.rows],
                     terms=True)
    s_c = _class_matrix(pred, gold, sim)
    s_r = sim.matrix([r.data_reference for r in pred.rows], [r.data_reference for r in gold.rows])
    w = 4.0 * (s_p >= tau) + 2.0 * (s_c >= tau) + 1.0 * (s_r >= tau) + (s_p + s_c + s_r) / 6.0
    admissible = (s_p >= tau) | ((s_c >= tau) & (s_r >= tau))
    return np.where(admissible, w, 0.0)


def align_rows(pred: MappingTable, gold: MappingTable, sim: CellSimilarity,
               method: str = "hungarian", scores: np.ndarray | None = None) -> Alignment:
    """Align predicted rows to gold rows one-to-one.

    Args:
        pred: predicted table (``n`` rows).
        gold: gold table (``m`` rows).
        sim: cell similarity (gives ``tau``).
        method: ``"hungarian"`` (optimal total score) or ``"greedy"`` (BLINKG's first-come rule).
        scores: precomputed :func:`alignment_scores` (``(n, m)``), to avoid recomputing.
    Returns:
        An :class:`Alignment`; pairs are only formed from admissible pairs.
    Raises:
        ValueError: unknown ``method`` (a programming error, not messy data).
    """
    if method not in ALIGNMENT_METHODS:
        raise ValueError(f"unknown alignment method {method!r}; expected one of {ALIGNMENT_METHODS}")
    w = alignment_scores(pred, gold, sim) if scores is None else scores
    n, m = w.shape
    pairs: list[tuple[int, int]] = []
    if n and m:
        if method == "hungarian":
            rows, cols = linear_sum_assignment(w, maximize=True)
            pairs = [(int(i), int(j)) for i, j in zip(rows, cols) if w[i, j] >= _ADMISSIBLE]
        else:
            free = set(range(m))
            for i in range(n):
                cands = [j for j in sorted(free) if w[i, j] >= _ADMISSIBLE]
                if cands:
                    best = max(cands, key=lambda j: (w[i, j], -j))
                    pairs.append((i, best))
                    free.discard(best)
    pairs.sort()
    used_p = {i for i, _ in pairs}
    used_g = {j for _, j in pairs}
    pair_scores = [float(w[i, j]) for i, j in pairs]
    result = Alignment(pairs=pairs, unmatched_predicted=[i for i in range(n) if i not in used_p],
                       unmatched_gold=[j for j in range(m) if j not in used_g], method=method,
                       total_score=float(sum(pair_scores)), pair_scores=pair_scores)
    log.debug("aligned %d of %d predicted / %d gold rows (%s)", len(pairs), n, m, method)
    return result
