"""The part of the ontology the data needs: candidate classes and properties for the sources.

A vocabulary of thousands of terms (schema.org, DBpedia, ePO) does not fit a local model's context
window, and most of it is noise for one data set. :func:`retrieve_terms` ranks every class and
property of the ontology against what the sources name and hold, and keeps:

* for each data reference (a CSV column, the last steps of a JSON or XML path), the
  :data:`PER_REFERENCE` best properties, matched on the reference's words and a few of its values,
  and the :data:`CLASSES_PER_REFERENCE` best classes (a nested element names the entity it holds:
  ``cac:WinningParty``, ``address``);
* for each source (its name and iterator), the :data:`PER_SOURCE` best classes;
* the naming and identifying properties the vocabularies declare (:data:`NAMING`: ``rdfs:label``,
  ``schema:name``, ``dct:identifier`` ...): almost every entity has a name or an identifier, and
  a column holding one is named after the data set's own wording (``title``, ``code``), which
  rarely resembles the property's;
* the domains and ranges of the kept properties, and the superclasses of the kept classes, so that
  every kept term is sent with the classes its description names;
* the object properties whose domain and range are both kept classes (the links a join needs).

A term is described by its local name split into words, its labels and its comment
(:meth:`pipeline.ontology.Ontology.verbalise`). The score of a (query, term) pair is the larger of
the cosine of their sentence embeddings (the packaged all-MiniLM-L6-v2 of :mod:`pipeline.embeddings`)
and the share of the query's word stems found in the term's words (so that an exact name wins
without embeddings, and the ranking still works when they are unavailable).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL

from pipeline import embeddings
from pipeline.ontology import Ontology

__all__ = ["PER_REFERENCE", "CLASSES_PER_REFERENCE", "PER_SOURCE", "NAMING", "Retrieval", "retrieve_terms",
           "words"]

log = logging.getLogger(__name__)

#: properties kept per data reference
PER_REFERENCE = 6
#: classes kept per data reference
CLASSES_PER_REFERENCE = 2
#: classes kept per source
PER_SOURCE = 6
#: naming and identifying properties, kept whenever the ontology declares them
NAMING = tuple(URIRef(u) for u in (
    "http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://schema.org/name", "https://schema.org/name", "http://schema.org/identifier",
    "https://schema.org/identifier", "http://schema.org/description", "https://schema.org/description",
    "http://purl.org/dc/terms/title", "http://purl.org/dc/terms/identifier", "http://purl.org/dc/terms/description",
    "http://purl.org/dc/elements/1.1/title", "http://purl.org/dc/elements/1.1/identifier",
    "http://purl.org/dc/elements/1.1/description", "http://xmlns.com/foaf/0.1/name"))
#: values of a reference added to its query
VALUES_PER_REFERENCE = 3
#: object properties added as links between kept classes, at most
MAX_LINKS = 60

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+")
_STOP = {"the", "of", "a", "an", "to", "in", "for", "and", "or", "is", "has", "by", "on", "at", "with"}


def words(text: str) -> list[str]:
    """Lower-case words of a name or a text (camelCase, snake_case, paths and prefixes split)."""
    return [w.lower() for w in _CAMEL.split(text or "") if w]


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@dataclass
class Retrieval:
    """The terms to send and why.

    Attributes:
        terms: the kept IRIs (classes and properties).
        total: classes and properties in the ontology.
        method: how queries and terms were compared.
        reasons: IRI -> the first query (or rule) that kept it.
    """

    terms: frozenset[URIRef]
    total: int
    method: str
    reasons: dict[URIRef, str] = field(default_factory=dict)


def _reference_words(ref: str) -> str:
    """The last steps of a path (``cac:ProcurementProject/cbc:Name`` -> ``procurement project name``)."""
    steps = [s for s in re.split(r"[/.\[\]$@]+", ref) if s and s != "*"]
    return " ".join(" ".join(words(s.split(":")[-1])) for s in steps[-2:]) or " ".join(words(ref))


def _sample(values: Sequence[str]) -> str:
    out: list[str] = []
    for v in values:
        v = str(v).strip()
        if v and v not in out and len(v) <= 60:
            out.append(v)
        if len(out) >= VALUES_PER_REFERENCE:
            break
    return ", ".join(out)


def _term_text(ontology: Ontology, iri: URIRef) -> str:
    local = re.split(r"[#/:]", str(iri))[-1]
    text = " ".join(words(local))
    try:
        extra = ontology.verbalise(iri)
    except Exception:  # an odd IRI rdflib cannot look up: its name alone describes it
        extra = ""
    return f"{text}. {extra}"[:400] if extra else text


def _lexical(query: str, term_words: set[str]) -> float:
    q = [_stem(w) for w in words(query) if w not in _STOP]
    return sum(1 for w in q if w in term_words) / len(q) if q else 0.0


def _scores(queries: list[str], texts: list[str], term_words: list[set[str]], use_embeddings: bool) -> np.ndarray:
    """``(len(queries), len(texts))`` scores in [0, 1]."""
    lex = np.array([[_lexical(q, tw) for tw in term_words] for q in queries], dtype=np.float32).reshape(
        len(queries), len(texts))
    if not use_embeddings or not queries or not texts:
        return lex
    sims = embeddings.embed(queries) @ embeddings.embed(texts).T
    return np.maximum(lex, np.clip(sims, 0.0, 1.0))


def _top(scores: np.ndarray, k: int) -> Iterable[int]:
    if scores.size == 0:
        return []
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k] if scores[i] > 0]


def retrieve_terms(ontology: Ontology, sources: Sequence, *, per_reference: int = PER_REFERENCE,
                   per_source: int = PER_SOURCE, use_embeddings: bool | None = None) -> Retrieval:
    """The classes and properties to send for ``sources`` (see the module docstring).

    Args:
        ontology: the case's ontology (without SKOS vocabularies).
        sources: loaded sources (:class:`pipeline.sources.model.SourceData`).
        per_reference / per_source: properties per reference, classes per source.
        use_embeddings: compare with sentence embeddings (default: when available).
    Returns:
        A :class:`Retrieval`; ``terms`` is empty only for an ontology without classes or properties.
    """
    use = embeddings.available() if use_embeddings is None else use_embeddings and embeddings.available()
    props = sorted(p for p in ontology.properties if not str(p).startswith(str(OWL)))
    classes = sorted(ontology.classes)
    total = len(props) + len(classes)
    reasons: dict[URIRef, str] = {}
    if not total:
        return Retrieval(frozenset(), 0, "nothing to retrieve")
    p_texts = [_term_text(ontology, p) for p in props]
    c_texts = [_term_text(ontology, c) for c in classes]
    p_words = [{_stem(w) for w in words(t)} for t in p_texts]
    c_words = [{_stem(w) for w in words(t)} for t in c_texts]
    ref_queries: list[str] = []
    src_queries: list[str] = []
    for src in sources:
        name = getattr(src.source, "name", None) or src.source.path.name
        it = src.iterator or ""
        src_queries.append(" ".join(words(re.sub(r"\.(csv|json|xml)$", "", name))) + " " + _reference_words(it))
        for ref in src.references:
            try:
                values = src.values(ref)
            except Exception:  # a reference the loader cannot evaluate: its name alone is the query
                values = []
            sample = _sample(values)
            ref_queries.append(_reference_words(ref) + (f": {sample}" if sample else ""))
    kept: set[URIRef] = set()
    if props and ref_queries:
        scores = _scores(ref_queries, p_texts, p_words, use)
        for qi, q in enumerate(ref_queries):
            for i in _top(scores[qi], per_reference):
                if props[i] not in kept:
                    kept.add(props[i])
                    reasons[props[i]] = f"reference {q!r}"
    if classes and src_queries:
        scores = _scores(src_queries, c_texts, c_words, use)
        for qi, q in enumerate(src_queries):
            for i in _top(scores[qi], per_source):
                if classes[i] not in kept:
                    kept.add(classes[i])
                    reasons[classes[i]] = f"source {q.strip()!r}"
    if classes and ref_queries:
        scores = _scores(ref_queries, c_texts, c_words, use)
        for qi, q in enumerate(ref_queries):
            for i in _top(scores[qi], CLASSES_PER_REFERENCE):
                if classes[i] not in kept:
                    kept.add(classes[i])
                    reasons[classes[i]] = f"reference {q!r}"
    for p in NAMING:
        if p in ontology.properties and p not in kept:
            kept.add(p)
            reasons[p] = "names or identifies entities"
    for p in [t for t in kept if t in ontology.properties]:
        for c in ontology.domains(p) | {r for r in ontology.ranges(p) if r in ontology.classes}:
            if c not in kept:
                kept.add(c)
                reasons[c] = f"domain or range of {ontology.compact(p)}"
    for c in [t for t in kept if t in ontology.classes]:
        for sup in ontology.superclasses(c):
            if sup in ontology.classes and sup not in kept:
                kept.add(sup)
                reasons[sup] = f"superclass of {ontology.compact(c)}"
    links = 0
    for p in sorted(ontology.object_properties):
        if p in kept or links >= MAX_LINKS:
            continue
        dom, rng = ontology.domains(p), ontology.ranges(p)
        if dom and rng and dom & kept and rng & kept:
            kept.add(p)
            reasons[p] = "links two kept classes"
            links += 1
    method = ("max(cosine of all-MiniLM-L6-v2 embeddings, shared word stems)" if use
              else "shared word stems (embeddings unavailable)")
    log.info("retrieved %d of %d ontology terms (%s)", len(kept), total, method)
    return Retrieval(frozenset(kept), total, method, reasons)
