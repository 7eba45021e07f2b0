"""SKOS value maps: map the codes of a column to concepts of one concept scheme.

A coded column (few distinct values) is matched against every concept
scheme: a value matches a concept when it equals (case-insensitively, after
trimming) the concept's ``skos:notation``, local name, or a label. The scheme
covering the most distinct values wins; ties go to the scheme whose name is
closest to the column name. Binary codes (``0``/``1``, ``yes``/``no``) that match no
concept map onto a two-concept scheme of a term and its negation (``Available`` /
``Not Available``); integer codes onto a scheme whose description enumerates its concepts
in order (``0`` -> the first concept named).

A class whose members the vocabularies declare (an enumeration: schema.org's ``schema:EventStatusType``
and its ``schema:EventScheduled`` ...; SKOS concepts typed with a class) is matched the same way
(:func:`match_members`): the codes of a column that name its members are mapped onto them, for a
property whose range is that class.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, RDFS, SKOS

from pipeline.ontology import Ontology
from pipeline.mappers.offline.names import words

__all__ = ["ValueMap", "concept_schemes", "match_value_map", "match_members"]


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


def _keys(ontology: Ontology, concept: URIRef, preds: tuple = (SKOS.notation, SKOS.prefLabel, SKOS.altLabel)) -> set[str]:
    """What a value may say to name ``concept``: its local name and the texts of ``preds``, lower-cased."""
    g = ontology.graph
    keys = {re.split(r"[#/]", str(concept).rstrip("/#"))[-1].lower()}
    for pred in preds:
        keys |= {str(o).strip().lower() for o in g.objects(concept, pred) if isinstance(o, Literal)}
    return keys


def _named_values(ontology: Ontology, terms, distinct: list[str],
                  preds: tuple = (SKOS.notation, SKOS.prefLabel, SKOS.altLabel)) -> dict[str, str]:
    """``value -> IRI`` of each of ``distinct`` that names one of ``terms`` (:func:`_keys` with ``preds``,
    case-insensitive); of two terms named alike, the first of ``terms``."""
    index: dict[str, URIRef] = {}
    for t in terms:
        for k in _keys(ontology, t, preds):
            index.setdefault(k, t)
    return {v: str(index[v.lower()]) for v in distinct if v.lower() in index}


def _name_similarity(ontology: Ontology, scheme: URIRef, column_words: str) -> float:
    """rapidfuzz ``token_set_ratio`` / 100 of a column's words and the scheme's local name or labels, best one."""
    names = [" ".join(words(re.split(r"[#/]", str(scheme).rstrip("/#"))[-1]))] + \
        [" ".join(words(str(l))) for l in ontology.labels(scheme)]
    return max(fuzz.token_set_ratio(column_words, n) for n in names) / 100


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
        mapping = _named_values(ontology, concepts, distinct)
        coverage = len(mapping) / len(distinct)
        if coverage < min_coverage:
            continue
        name_sim = _name_similarity(ontology, scheme, col)
        vm = ValueMap(scheme, mapping, coverage,
                      f"{len(mapping)}/{len(distinct)} distinct values of {column!r} match concepts of "
                      f"<{scheme}> (name similarity {name_sim:.2f})")
        if best is None or (coverage, name_sim) > best[:2]:
            best = (coverage, name_sim, vm)
    if best is None or best[0] < 1.0:
        fallback = _polarity_map(ontology, column, distinct) or _enumeration_map(ontology, column, distinct)
        if fallback is not None:
            return fallback
    return best[2] if best else None


#: What names a member of a class: its notation, its SKOS labels and its ``rdfs:label`` (of which the SKOS
#: labels are sub-properties, SKOS Reference 5.4).
_MEMBER_NAMES = (SKOS.notation, SKOS.prefLabel, SKOS.altLabel, RDFS.label)


def match_members(ontology: Ontology, column: str, values: list[str], cls: URIRef | None = None,
                  min_coverage: float = 0.5, max_distinct: int = 50) -> ValueMap | None:
    """The codes of a column mapped onto the declared members of a class (:meth:`.Ontology.members`), or ``None``.

    A value names a member when it equals (case-insensitively, trimmed) the member's local name, notation or
    a label (:data:`_MEMBER_NAMES`): ``EventScheduled`` -> ``schema:EventScheduled``, ``SCH`` -> the concept of
    notation ``SCH``. ``cls``: that class only; ``None``: the class of declared members covering most
    distinct values (ties: the closer name to the column, then the IRI). ``min_coverage`` and
    ``max_distinct`` as for :func:`match_value_map`. The map's ``scheme`` is the class.
    """
    distinct = sorted({v.strip() for v in values if v and v.strip()})
    if not distinct or len(distinct) > max_distinct:
        return None
    col = " ".join(words(column))
    found: list[tuple[float, float, str, ValueMap]] = []
    for c in [cls] if cls is not None else sorted(ontology.enumerated_classes):
        members = sorted(ontology.members(c))
        if not members:
            continue
        mapping = _named_values(ontology, members, distinct, _MEMBER_NAMES)
        coverage = len(mapping) / len(distinct)
        if coverage < min_coverage:
            continue
        sim = _name_similarity(ontology, c, col)
        found.append((coverage, sim, str(c), ValueMap(c, mapping, coverage, (
            f"{len(mapping)}/{len(distinct)} distinct values of {column!r} name members of {ontology.compact(c)} "
            f"(its declared instances: local name, notation or label)"))))
    if not found:
        return None
    found.sort(key=lambda x: (-x[0], -x[1], x[2]))
    return found[0][3]


_DESCRIPTIONS = ("title", "description", "definition", "comment", "scopeNote")


def _enumeration_map(ontology: Ontology, column: str, distinct: list[str]) -> ValueMap | None:
    """Integer codes onto a scheme whose description enumerates all its concepts in order
    ("Stop, station, entrance/exit, generic node and boarding area"): code ``i`` -> the i-th concept,
    counting from 0 unless the codes only fit counting from 1; the map covers the whole
    enumeration. Only for a scheme whose name resembles the column (at least 0.6), since the
    order is read from prose."""
    if not all(re.fullmatch(r"\d+", v) for v in distinct):
        return None
    codes = sorted(int(v) for v in distinct)
    col = " ".join(words(column))
    g = ontology.graph
    found: list[tuple[float, ValueMap]] = []
    for scheme, concepts in concept_schemes(ontology).items():
        # positions count from 0 (GTFS-style codes) unless the codes only fit counting from 1
        base = 0 if codes[-1] < len(concepts) else 1
        if codes[0] < base or codes[-1] - base >= len(concepts):
            continue
        sim = _name_similarity(ontology, scheme, col)
        if sim < 0.6:
            continue
        texts = [str(o).lower() for p, o in g.predicate_objects(scheme) if isinstance(o, Literal)
                 and re.split(r"[#/]", str(p))[-1] in _DESCRIPTIONS]
        for text in texts:
            where = {}
            for c in concepts:
                labels = [str(o).strip().lower() for pred in (SKOS.prefLabel, SKOS.notation)
                          for o in g.objects(c, pred) if isinstance(o, Literal)]
                pos = [m.start() for lab in labels if lab for m in [re.search(rf"\b{re.escape(lab)}\b", text)] if m]
                if not pos:  # prose has typos ("oppostite direction"): an approximate occurrence
                    near = [a for lab in labels if len(lab) > 5
                            for a in [fuzz.partial_ratio_alignment(lab, text)] if a and a.score >= 90]
                    pos = [a.dest_start for a in near]
                if pos:
                    where[c] = min(pos)
            if len(where) != len(concepts) or len(set(where.values())) != len(concepts):
                continue
            ordered = sorted(concepts, key=lambda c: where[c])
            # the whole enumeration, not only the codes of this sample: codes absent here still map
            mapping = {str(i + base): str(c) for i, c in enumerate(ordered)}
            found.append((sim, ValueMap(scheme, mapping, 1.0, (
                f"integer codes {distinct} of {column!r} read as positions (from {base}) in the enumeration of "
                f"the {len(concepts)} concepts in the description of <{scheme}> (name similarity {sim:.2f})"))))
            break
    if not found:
        return None
    found.sort(key=lambda x: (-x[0], str(x[1].scheme)))
    return found[0][1]


_TRUE, _FALSE = {"1", "true", "yes", "y", "t"}, {"0", "false", "no", "n", "f"}
_NEGATIONS = ("not ", "not-", "non ", "non-", "no ", "un")


def _polarity_map(ontology: Ontology, column: str, distinct: list[str]) -> ValueMap | None:
    """Binary codes (``0``/``1``, ``yes``/``no``) onto a two-concept scheme whose concepts are a
    term and its negation (``Available`` / ``Not Available``): true -> the term, false -> the negation."""
    low = {v.lower() for v in distinct}
    if not low <= _TRUE | _FALSE or not low & _TRUE or not low & _FALSE:
        return None
    col = " ".join(words(column))
    found: list[tuple[float, ValueMap]] = []
    for scheme, concepts in concept_schemes(ontology).items():
        if len(concepts) != 2:
            continue
        a, b = concepts
        for pos, neg in ((a, b), (b, a)):
            pk, nk = sorted(_keys(ontology, pos)), sorted(_keys(ontology, neg))  # sorted: same evidence every run
            hit = next(((p, n) for p in pk for n in nk if any(n == f"{m}{p}" for m in _NEGATIONS)), None)
            if hit is None:
                continue
            mapping = {v: str(pos if v.lower() in _TRUE else neg) for v in distinct}
            sim = _name_similarity(ontology, scheme, col)
            found.append((sim, ValueMap(scheme, mapping, 1.0, (
                f"binary codes {sorted(distinct)} of {column!r}: true -> {hit[0]!r}, false -> its negation "
                f"{hit[1]!r} (the two concepts of <{scheme}>; name similarity {sim:.2f})"))))
    if not found:
        return None
    found.sort(key=lambda x: (-x[0], str(x[1].scheme)))
    return found[0][1]
