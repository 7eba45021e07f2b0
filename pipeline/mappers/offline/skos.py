"""SKOS value maps: map the codes of a column to concepts of one concept scheme.

A coded column (few distinct values) is matched against every concept
scheme: a value matches a concept when it equals (case-insensitively, after
trimming) the concept's ``skos:notation``, local name, or a label. The scheme
covering the most distinct values wins; ties go to the scheme whose name is
closest to the column name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, SKOS

from ...ontology import Ontology
from .names import words

__all__ = ["ValueMap", "concept_schemes", "match_value_map"]


@dataclass(frozen=True)
class ValueMap:
    """Codes of a column mapped to concepts of a scheme.

    Attributes:
        scheme: the concept scheme IRI.
        mapping: code -> concept IRI, for the codes found in the data.
        coverage: share of the column's distinct values that are mapped, in [0, 1].
        evidence: how the codes were matched.
    """

    scheme: URIRef
    mapping: dict[str, str]
    coverage: float
    evidence: str

    def output(self) -> str:
        """The BLINKG *Function Output* cell: ``code -> IRI <br> code -> IRI``."""
        return " <br> ".join(f"{k} -> {v}" for k, v in self.mapping.items())


def concept_schemes(ontology: Ontology) -> dict[URIRef, list[URIRef]]:
    """Scheme IRI -> its concepts (``skos:inScheme``, ``skos:hasTopConcept``, ``skos:topConceptOf``)."""
    g = ontology.graph
    out: dict[URIRef, set[URIRef]] = {}
    for s in set(g.subjects(RDF.type, SKOS.ConceptScheme)) | set(g.objects(None, SKOS.inScheme)):
        if isinstance(s, URIRef):
            out.setdefault(s, set())
    for c, s in g.subject_objects(SKOS.inScheme):
        out.setdefault(s, set()).add(c)
    for s, c in g.subject_objects(SKOS.hasTopConcept):
        out.setdefault(s, set()).add(c)
    for c, s in g.subject_objects(SKOS.topConceptOf):
        out.setdefault(s, set()).add(c)
    return {s: sorted(c for c in cs if isinstance(c, URIRef)) for s, cs in out.items() if isinstance(s, URIRef)}


def _keys(ontology: Ontology, concept: URIRef) -> set[str]:
    g = ontology.graph
    keys = {re.split(r"[#/]", str(concept).rstrip("/#"))[-1].lower()}
    for pred in (SKOS.notation, SKOS.prefLabel, SKOS.altLabel):
        keys |= {str(o).strip().lower() for o in g.objects(concept, pred) if isinstance(o, Literal)}
    return keys


def match_value_map(ontology: Ontology, column: str, values: list[str], min_coverage: float = 0.5,
                    max_distinct: int = 50) -> ValueMap | None:
    """Best value map of a column's codes onto one scheme, or ``None``.

    Args:
        ontology: ontology plus SKOS vocabularies.
        column: the reference name (for tie-breaking by name similarity).
        values: the column's values.
        min_coverage: least share of distinct values that must match a concept.
        max_distinct: columns with more distinct values are no coded columns.
    """
    distinct = sorted({v.strip() for v in values if v and v.strip()})
    if not distinct or len(distinct) > max_distinct:
        return None
    col = " ".join(words(column))
    best: tuple[float, float, ValueMap] | None = None
    for scheme, concepts in concept_schemes(ontology).items():
        index: dict[str, URIRef] = {}
        for c in concepts:
            for k in _keys(ontology, c):
                index.setdefault(k, c)
        mapping = {v: str(index[v.lower()]) for v in distinct if v.lower() in index}
        coverage = len(mapping) / len(distinct)
        if coverage < min_coverage:
            continue
        scheme_name = " ".join(words(re.split(r"[#/]", str(scheme).rstrip("/#"))[-1]))
        names = [scheme_name] + [" ".join(words(str(l))) for l in ontology.labels(scheme)]
        name_sim = max(fuzz.token_set_ratio(col, n) for n in names) / 100
        vm = ValueMap(scheme, mapping, coverage,
                      f"{len(mapping)}/{len(distinct)} distinct values of {column!r} match concepts of "
                      f"<{scheme}> (name similarity {name_sim:.2f})")
        if best is None or (coverage, name_sim) > best[:2]:
            best = (coverage, name_sim, vm)
    return best[2] if best else None
