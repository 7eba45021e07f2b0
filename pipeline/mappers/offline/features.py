"""The evidence of a row as a few named numbers, for the confidence model (:mod:`.confidence`).

A row's basis and raw score (:func:`.confidence.basis_of`) say what rule proposed it and how strongly
its own similarity spoke for it. They do not say what else the mapper saw: whether the column's words
are the property's name word for word, whether another property the class may take named the column
nearly as well, whether the property is one the vocabulary declares for the row's class or one merely
allowed on it. :func:`row_features` measures these with the measures the decisions used
(:class:`.names.NameMatcher`, :class:`.fit.DomainIndex`), and :func:`features_line` writes them as one
line of the row's evidence, which :func:`parse_features` reads back: the benchmark fits the model on the
tables it judges and the mapper applies it to the table it writes, both from the same line.

Every feature is defined for every row (a row without a column matched to a datatype property, such as
an object-property row, has margin 0); none names a case, a vocabulary or a column.
"""
from __future__ import annotations

import re
from typing import Iterable

from rdflib import URIRef

from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.fit import DomainIndex
from pipeline.mappers.offline.names import NameMatcher, reference_words

__all__ = ["FEATURES", "row_features", "features_line", "parse_features", "describe_rows"]

#: The features, in the order of :func:`features_line`:
#:
#: ``exact``     1 when the column's words are one of the property's names (basis ``exact name``), else 0;
#: ``margin``    the column's name similarity to its property minus its best similarity to another property
#:               the class may take (domain fits; not one of the property's super-properties, which the row
#:               states too), in [-1, 1]; 0 for a row without a column of its own;
#: ``own``       1 when a declared domain of the property is the row's class itself, 0.5 when it is a
#:               superclass, 0 when the property has no domain, a generic one, or another vocabulary's.
FEATURES = ("exact", "margin", "own")

_LINE = re.compile(r"^features: (.+)$")


def row_features(row: MappingRow, basis: tuple[str, float] | None, info: SourceInfo | None, ontology: Ontology,
                 matcher: NameMatcher, candidates: list[URIRef], index: DomainIndex) -> dict[str, float]:
    """The :data:`FEATURES` of one row.

    Args:
        row: the row. basis: its ``(basis, raw score)`` (:func:`.confidence.basis_of`), ``None`` when it has none.
        info: the source the row reads (``row.source_file``), ``None`` when none.
        candidates: the datatype properties the mapper matched columns against, in the order of ``index``.
        index: a :class:`.fit.DomainIndex` of ``candidates``.
    Returns:
        feature name -> value, rounded to 3 decimals.
    """
    kind = basis[0] if basis else ""
    prop = ontology.expand(row.ontology_property)
    cls = ontology.expand(row.entity_class)
    ref = row.data_reference
    plain = info is not None and ref in info.refs and prop in candidates  # a column matched to a datatype property
    margin = 0.0
    if plain:
        text = " ".join(reference_words(ref))
        mine = matcher.score(text, prop)
        weights = index.weights(cls) if cls is not None else None
        # a super-property (or an equivalent) of the row's property is no alternative to it: the row states it too
        # (RDFS rdfs7), so its name is no evidence against the row
        entailed = ontology.superproperties(prop)
        others = [matcher.score(text, p) for i, p in enumerate(candidates)
                  if p not in entailed and (weights is None or weights[i] > 0)]
        margin = mine - max(others, default=0.0)
    own = 0.0
    if prop is not None and cls is not None:
        doms = ontology.domains(prop)
        own = 1.0 if cls in doms else 0.5 if doms & ontology.superclasses(cls) else 0.0
    values = {"exact": float(kind == "exact name"), "margin": margin, "own": own}
    return {k: round(float(values[k]), 3) for k in FEATURES}


def features_line(features: dict[str, float]) -> str:
    """The evidence line of a row's features (``features: exact 1, margin 0.21, own 1``)."""
    return "features: " + ", ".join(f"{k} {features[k]:g}" for k in FEATURES)


def parse_features(evidence: Iterable[str]) -> dict[str, float] | None:
    """The features of a row from its evidence lines (:func:`features_line`); ``None`` when no line has
    them or a feature is missing (a table written before the features were)."""
    for line in evidence:
        m = _LINE.match(line)
        if m:
            found = {}
            for part in m.group(1).split(", "):
                name, _, value = part.partition(" ")
                try:
                    found[name] = float(value)
                except ValueError:
                    return None
            return found if all(k in found for k in FEATURES) else None
    return None


def describe_rows(rows: list[MappingRow], bases: list[tuple[str, float] | None], infos: list[SourceInfo],
                  ontology: Ontology, matcher: NameMatcher, candidates: list[URIRef]) -> None:
    """Put the :func:`features_line` of every row in its evidence, right after the basis line (the first
    line) when it has one, so that the lines the rules wrote keep their order and the last line stays the
    rule's own; ``bases``: each row's :func:`.confidence.basis_of` (the model reads the features, so
    :mod:`.confidence` imports this module)."""
    by_name = {i.name: i for i in infos}
    index = DomainIndex(ontology, candidates)
    for row, basis in zip(rows, bases, strict=True):
        line = features_line(row_features(row, basis, by_name.get(row.source_file), ontology, matcher, candidates,
                                          index))
        row.evidence.insert(1 if basis is not None and row.evidence else 0, line)
