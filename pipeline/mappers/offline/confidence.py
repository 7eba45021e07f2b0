"""How sure the offline mapper is of each row, and which rows a person must check.

Every row the mapper proposes rests on one kind of evidence (its *basis*) and a raw score in [0, 1]
that the rule behind it computed (a name similarity, the share of values a value map covers ...):

====================  ===========================================================================
basis                 what it rests on
====================  ===========================================================================
``context``           the data's JSON-LD ``@context`` defines the member as the property (:mod:`.jsonld`)
``exact name``        the column's words are one of the property's names (``startDate``, ``start date``)
``name``              the column's name resembles the property (similarity of names and embeddings)
``subject key``       a name match of the column that keys the entity's subject (its value is in the IRI)
``values``            nothing but the kind of the values (a date column and the only date property
                      left): elimination, the only member of a kind in a nested object
``joint assignment``  leftover columns paired with leftover properties of their value kind by the
                      best joint assignment of weak name or sample-value similarities (>= 0.2), when
                      more properties than columns are left (else every property left is taken and
                      the pairing is ``values``)
``linked``            a text column taken as the name of an entity linked to the record's class
``identifier``        an identifier column naming a class no source describes
``label``             a name column labelled with a naming annotation property (``rdfs:label``,
                      ``skos:prefLabel``: :mod:`.labels`)
``key``               a foreign key (every value is a key of another source), a link file, a composite key
``record``            two entities of one record related by the only object property of their classes
``record choice``     two entities of one record related by one of several object properties of their
                      classes, the one named most like the related class
``value map``         codes of a column mapped to the concepts of a SKOS scheme
``document``          a document-like XML record (one notice per file)
``entity``            an entity with nothing but its identifier, or its class alone (a class-only row)
====================  ===========================================================================

:func:`evidence_line` writes the basis and the raw score as a line of a row's evidence;
:func:`calibrate_rows` turns them, for a basis with calibration knots, into the row's ``confidence``
(and the line, last, says it), a probability of the row being right (isotonic regression of "the row is
right" on the raw score per basis, fitted by ``python -m pipeline.bench.real --calibrate``, which also
reports its leave-one-case-out precision), and marks the rows below :data:`REVIEW_THRESHOLD` for review
(:attr:`pipeline.table.MappingRow.review`): the compiler does not assert them; a person accepts one by
clearing the mark. :data:`CALIBRATION` ships knots for the ``joint assignment`` and ``record`` bases
only (see there); other rows are marked for what only a person can give (:mod:`.rows`), a name match to a
property of no domain whose column another property names better (:func:`mark_second_choices`), and a relation of
one record by a property no domain ties to the subject's class (:func:`mark_unowned_relations`), and what
evidence in the values or among the rows speaks against (:mod:`.doubts`).
"""
from __future__ import annotations

import math
import re
from bisect import bisect_right

from pipeline.table import MappingRow
from pipeline.mappers.offline.features import FEATURES, parse_features

__all__ = ["BASES", "CALIBRATION", "MODEL", "NAME_BASES", "REVIEW_THRESHOLD", "evidence_line", "basis_of", "calibrated",
           "model_confidence", "mark_second_choices", "mark_unowned_relations",
           "calibrate_rows"]

BASES = ("context", "exact name", "name", "subject key", "values", "joint assignment", "linked", "identifier", "label", "key",
         "record", "record choice", "value map", "document", "entity")

#: basis -> isotonic calibration knots ``(raw score, probability right)``, increasing in both; read by
#: linear interpolation, constant beyond the ends; fitted by ``python -m pipeline.bench.real --calibrate``.
#: Shipped for the two kinds of evidence that rest on a choice among leftovers and say nothing about
#: what a column *means*: ``joint assignment`` (leftover columns paired with some of more leftover
#: properties of their kind by weak similarities: any text column "fits" any of a large vocabulary's
#: string properties) and ``record choice`` (two entities of one record related by one of several object
#: properties of their classes). On the real-mappings corpus no row of either was right (0 of 5 and 0 of
#: 9; every left-one-case-out fit marks them too), so such rows are shown for review instead of asserted.
#: Forced pairings (``values``: the only property left of a kind, or as many properties as columns;
#: ``record``: the only relation between two classes) are not marked: wrong in the corpus too (0 of 8, 0
#: of 4), they are what the unseen generator's and BLINKG's leftovers are, and marking them costs the
#: unseen benchmark's graph F1 (docs/benchmarks/real.md gives both sides). The name-based bases are not
#: shipped: their fit puts most name matches below 0.5, which would withhold the name matches that give
#: BLINKG's 0.80-0.96 task F1, and left one case out no threshold keeps rows at 0.9 precision. A basis
#: without knots keeps the confidence its rule gave and is never marked for it.
CALIBRATION: dict[str, list[tuple[float, float]]] = {
    "joint assignment": [(0.5, 0.143)],
    "record choice": [(0.508, 0.091)],
}

#: The confidence model: logistic regression of "the row is right" on the row's features
#: (:data:`.features.FEATURES`), ``P(right) = 1 / (1 + exp(-(intercept + sum of weight * feature)))``,
#: fitted, with its leave-one-case-out precision, by ``python -m pipeline.bench.real --calibrate``; when it
#: has weights it gives every row with features its confidence instead of :data:`CALIBRATION`. Empty: no
#: model is shipped. Fitted on the real-mappings corpus ({"intercept": -1.72, "exact": 1.219, "margin": 2.009,
#: "own": 0.83}), it keeps the rows that are an exact name of a property of their class's own and marks
#: nearly every other row: left one case out the rows it keeps at 0.5 (79 of 234 judged) are right 0.60 of
#: the time in the mean case, 0.65 of all rows (the table as proposed today: 0.43, 0.44), but
#: it marks 111 of BLINKG's 172 rows (all 20 of scenario 3), which are right there (task F1 of the rows
#: left 0.28 / 0.35 / 0.00 instead of 0.965 / 0.795 / 0.811), and every row of some generated unseen
#: cases. Right and wrong rows of the corpus differ less in how their column matched than in what the
#: reference chose (docs/benchmarks/real.md).
MODEL: dict[str, float] = {}

#: Rows whose calibrated confidence is below this are marked for review: assert a row when it is more
#: likely right than wrong. Only a calibrated confidence (a probability) is compared with it.
REVIEW_THRESHOLD = 0.5

_LINE = re.compile(r"^confidence(?: [\d.]+ from|:) (.+?) evidence, raw (\d+(?:\.\d+)?)")


def evidence_line(basis: str, raw: float) -> str:
    """The evidence line of a row's basis and raw score (parsed back by :func:`basis_of`;
    :func:`calibrate_rows` rewrites it with the confidence and moves it last).

    Raises:
        ValueError: ``basis`` is not one of :data:`BASES`.
    """
    if basis not in BASES:
        raise ValueError(f"unknown basis {basis!r}; expected one of {BASES}")
    return f"confidence: {basis} evidence, raw {min(max(raw, 0.0), 1.0):.3f}"


def basis_of(row: MappingRow) -> tuple[str, float] | None:
    """``(basis, raw score)`` from a row's evidence (:func:`evidence_line`), ``None`` when it has none."""
    for line in row.evidence:
        m = _LINE.match(line)
        if m:
            return m.group(1), float(m.group(2))
    return None


def calibrated(basis: str, raw: float, table: dict[str, list[tuple[float, float]]] | None = None) -> float:
    """The probability that a row of ``basis`` with raw score ``raw`` is right (:data:`CALIBRATION`)."""
    knots = (CALIBRATION if table is None else table).get(basis)
    if not knots:
        return raw
    xs = [x for x, _ in knots]
    i = bisect_right(xs, raw)
    if i == 0:
        return knots[0][1]
    if i == len(knots):
        return knots[-1][1]
    (x0, y0), (x1, y1) = knots[i - 1], knots[i]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (raw - x0) / (x1 - x0)


def model_confidence(features: dict[str, float], model: dict[str, float] | None = None) -> float:
    """The probability that a row with ``features`` (:func:`.features.parse_features`) is right under the
    logistic ``model`` (default :data:`MODEL`; ``intercept`` and one weight per feature, a missing weight
    counting 0). Logistic regression: Cox, The regression analysis of binary sequences, JRSS B 20 (1958).

    Raises:
        KeyError: a feature the model weighs is missing from ``features``.
    """
    model = MODEL if model is None else model
    z = model.get("intercept", 0.0) + sum(w * features[k] for k, w in model.items() if k != "intercept")
    return 1.0 / (1.0 + math.exp(-z))


#: The bases of a column matched by the similarity of its name, not word for word: a row of one whose column another
#: property names better is marked (:func:`mark_second_choices`).
NAME_BASES = ("name", "subject key")


def mark_second_choices(rows: list[MappingRow]) -> None:
    """Mark for review each row matched by name (basis ``name`` or ``subject key``, not an ``exact name``) to a
    property its vocabulary does not declare for the row's class (``own`` below 1: no domain, a superclass's or
    another vocabulary's) whose column another property the class may take names better (``margin`` below 0;
    :data:`.features.FEATURES`, where a super-property of the row's own is no other property).

    Nothing speaks for such a row but a similarity the mapper itself rates below another's: the column's best
    name went to another column (the one-to-one assignment) or was barred, and what it got is a property of
    general use (``dct:identifier`` for ``stop_id`` in ``stops.csv``, ``schema:legalName`` for an event's
    ``nombre``), which no domain ties to the records. A property the vocabulary declares for the class itself
    is left alone: the class's own attributes compete for its columns by design, and the one-to-one assignment
    among them is the vocabulary's evidence (a generated synonym case's columns take their class's properties
    so). A column named word for word is left alone too: the name is the property's."""
    for row in rows:
        found, features = basis_of(row), parse_features(row.evidence)
        if found is None or found[0] not in NAME_BASES or features is None or features["margin"] >= 0 \
                or features["own"] >= 1:
            continue
        why = (f"second choice: another property the class may take names {row.data_reference!r} better "
               f"(margin {features['margin']:.2f}, {found[0]} evidence), and no domain ties this one to the "
               "class: check the property")
        row.review = f"{row.review}; {why}" if row.review else why


def mark_unowned_relations(rows: list[MappingRow]) -> None:
    """Mark for review each relation between two entities of one record by the only object property of their
    classes (basis ``record``) whose vocabulary does not declare it for the subject's class (``own`` below 1,
    :data:`.features.FEATURES`: no domain, a generic one, a superclass's or another vocabulary's).

    Such a row rests on nothing but the two entities sharing a record and the property admitting them: the
    record says the two things occur together, not how they are related, and a property no domain ties to
    the subject class relates anything to anything (``schema:subjectOf``, domain ``schema:Thing``, from an
    event's address to the event; ``era:lineReference`` of another class from a section of line). When the
    vocabulary declares the property for the subject's class itself (``ev:heldAt``, domain ``ev:Event``), the
    vocabulary's authors say such a class takes that relation, and the forced choice stands."""
    for row in rows:
        found, features = basis_of(row), parse_features(row.evidence)
        if found is None or found[0] != "record" or features is None or features["own"] >= 1:
            continue
        why = (f"relation of one record by a property no domain ties to {row.entity_class} (own "
               f"{features['own']:g}, record evidence): the record says the entities occur together, not how "
               "they are related; check the property")
        row.review = f"{row.review}; {why}" if row.review else why


def calibrate_rows(rows: list[MappingRow], threshold: float = REVIEW_THRESHOLD,
                   table: dict[str, list[tuple[float, float]]] | None = None,
                   model: dict[str, float] | None = None) -> None:
    """Set the ``confidence`` of each row the confidence model or a basis's knots calibrate, and mark those
    below ``threshold``.

    A row with features (:func:`.features.parse_features`) gets the probability of ``model`` (default
    :data:`MODEL`, when it has weights); else a row whose basis has knots in ``table`` (default
    :data:`CALIBRATION`) gets the calibrated probability of its raw score. Such a row has its evidence line
    rewritten (and moved last) to say it, and a review mark when the probability is below ``threshold``,
    after any reason the row was already marked for (a missing language tag). Other rows keep their
    confidence and are never marked for it: a raw score is no probability, so a threshold on it would mean
    nothing."""
    table = CALIBRATION if table is None else table
    model = MODEL if model is None else model
    mark_second_choices(rows)
    mark_unowned_relations(rows)
    for row in rows:
        found = basis_of(row)
        features = parse_features(row.evidence) if model else None
        if found is None or (features is None and found[0] not in table):
            continue
        if features is not None:
            row.confidence = round(model_confidence(features, model), 3)
            how = "model of " + ", ".join(f"{k} {features[k]:g}" for k in FEATURES)
        else:
            row.confidence = round(calibrated(*found, table), 3)
            how = "calibrated"
        row.evidence = [e for e in row.evidence if not _LINE.match(e)] + [
            f"confidence {row.confidence:.3f} from {found[0]} evidence, raw {found[1]:.3f} ({how})"]
        if row.confidence < threshold:
            why = (f"confidence {row.confidence:.2f} < {threshold:.2f} ({found[0]} evidence): check the property, "
                   "class and values")
            row.review = f"{row.review}; {why}" if row.review else why
