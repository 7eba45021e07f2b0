"""One scored pair of candidate mentions of a sentence: what the fit's models and the stacker
write (:meth:`.offline.OfflineExtractor.pair_scores`, :mod:`.stacking`) and the decoders read
(:mod:`.decode`).

The record is kept apart from the decoders: the fit builds it (the stacker learns from
out-of-fold rows), the decoders only read it, so a change of decoding is not a change of the fit
(:func:`.fit_cache.fit_parts`)."""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.text.mentions import Mention

__all__ = ["PairScore"]


@dataclass(frozen=True)
class PairScore:
    """One ordered pair of candidate mentions of a sentence, scored.

    Attributes:
        a, b: subject and object candidate.
        p: pair model probability that ``a`` and ``b`` form a triple (0..1).
        ps: subject model probability of ``a`` (0..1; 1 when the subject model is off).
        rel: the relation of this row: the best allowed for ``b`` (range) by the relation SVM
            score plus the label-word bonus (``alt`` 0; the next best for ``alt`` 1 ...);
            ``None`` when no ontology relation accepts ``b``.
        rel_score: that relation's score (SVM decision value plus bonus).
        raw_rel: best allowed relation by the SVM score alone (fallback pair).
        fact: the relation of a training triple with these two names, or ``None``.
        cue: label-word cue added to ``p`` before the threshold (weighted overlap of the context
            words with the best-matching relation name).
        sent: the sentence (``""`` when not given; the stacker's clause features need it).
        pair: index of the pair among the sentence's candidate pairs (:func:`.features.sentence_pairs`
            order: its row among the pair model's inputs, which the training labels are read by).
        alt: 0 for the pair's best relation, 1 for its second best (an alternative the stacker
            may prefer: :mod:`.stacking`), and so on.
        label: share of the relation name's word stems found around the pair (between the two
            names, three words before each, two after the object); ``label_other``: the highest
            such share of the other relations allowed for the pair.
    """

    a: Mention
    b: Mention
    p: float
    ps: float
    rel: str | None
    rel_score: float
    raw_rel: str | None
    fact: str | None
    cue: float
    sent: str = ""
    pair: int = 0
    alt: int = 0
    label: float = 0.0
    label_other: float = 0.0
