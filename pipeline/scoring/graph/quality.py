"""CN1-CN3, CN5 conciseness and CM2, CM3 completeness of a predicted KG.

Definitions (the KG-quality benchmark's measures, made operational here). ``U(G)``
is the set of schema elements a KG uses (classes as ``rdf:type`` objects and
predicates other than ``rdf:type``); entities are subjects (:mod:`.align`).

* **CN1 schema-element conciseness** = ``1 - |R| / |U(pred)|`` with
  ``R`` = used elements the gold KG does not use, plus elements declared
  ``owl:equivalentClass``/``owl:equivalentProperty`` to another used element
  (one of each equivalent group counts as needed). Counts: ``n_used``, ``n_redundant``.
* **CN2 extensional conciseness** = ``|groups| / |entities(pred)|`` where
  predicted entities fall in one group when they share a source key (caller's
  ``pred_keys``) or, without keys, the same types and the same non-empty set of
  non-type out-edges (they describe one real-world object twice). Counts:
  ``n_entities``, ``n_duplicates`` (= entities - groups).
* **CN3 identifier collisions** = ``1 - n_colliding / |entities(pred)|``; a
  predicted entity collides (one identifier for several real-world objects)
  when its keys match ≥2 gold entities, or when it has more distinct values for
  a predicate than any gold entity has for that predicate.
* **CN5 property-value conciseness** = ``1 - n_redundant / n_values`` over all
  ``(s, p, o)``; a value is redundant when another value of the same ``(s, p)``
  has the same loose key (numbers by value, other text trimmed and case-folded,
  datatype ignored: ``"20"`` and ``"20.0"^^xsd:double``) and the same language tag (compared
  case-insensitively, BCP 47 section 2.1.1; none for a literal without one): the tag is part of a
  literal's value (RDF 1.1 Concepts, section 3.3), so ``"Animal"@en`` and ``"Animal"@fr`` are two
  statements, a label in two languages, not a repeated value.
* **CM2 source-information completeness** = share of the gold KG's distinct
  literal values (loose keys) present anywhere in the predicted KG; missing listed.
* **CM3 population completeness** = aligned gold entities / gold entities,
  overall and per gold class.
"""
from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any, Mapping

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF

from pipeline.findings import Finding
from pipeline.validation.result import Result
from pipeline.scoring.graph.align import Alignment, align_entities, entities_of, graph_memo, graph_triples, key_set
from pipeline.scoring.graph.values import loose_key, term_key

#: rdf:type, looked up once (rdflib resolves namespace attributes on every access)
_TYPE = RDF.type

__all__ = ["loose_key", "cn1", "cn2", "cn3", "cn5", "cm2", "cm3", "conciseness_completeness"]




def _used(g: Graph) -> set:
    rdf_type = _TYPE
    return {o if p == rdf_type else p for _, p, o in graph_triples(g) if p != rdf_type or isinstance(o, URIRef)}


def cn1(pred: Graph, gold: Graph | None, ontology: Any = None) -> Result:
    """CN1 schema-element conciseness; ``Result("CN1", value)``, not applicable without gold or used elements."""
    t0 = time.perf_counter()
    if gold is None:  # before reading the KG: nothing to compare its schema elements with
        return Result.not_applicable("CN1", "no gold KG")
    used = _used(pred)
    if not used:
        return Result.not_applicable("CN1", "the predicted KG uses no schema element")
    needed = _used(gold)
    redundant = {u for u in used if u not in needed}
    og = ontology.graph if ontology is not None and not isinstance(ontology, Graph) else ontology
    if og is not None:
        for rel in (OWL.equivalentClass, OWL.equivalentProperty):
            for a, b in og.subject_objects(rel):
                if a in used and b in used and a != b:
                    keep = a if a in needed or (b not in needed and str(a) < str(b)) else b
                    redundant.add(b if keep == a else a)
    findings = [Finding(severity="info", message=f"schema element not needed by the gold KG: {u}", location=str(u),
                        code="redundant-element") for u in sorted(redundant, key=str)]
    return Result("CN1", 1 - len(redundant) / len(used), findings=findings, elapsed_s=time.perf_counter() - t0,
                  details={"n_used": len(used), "n_redundant": len(redundant), "n_gold_used": len(needed)})


def _descriptions(g: Graph) -> tuple[dict[Any, set], dict[Any, set]]:
    """``rdf:type`` objects and ``(p, term_key(o))`` out-edges per subject of ``g`` (read once per graph)."""
    return graph_memo(g, "quality-descriptions", _read_descriptions)


def _read_descriptions(triples: list[tuple]) -> tuple[dict[Any, set], dict[Any, set]]:
    types: dict[Any, set] = defaultdict(set)
    edges: dict[Any, set] = defaultdict(set)
    rdf_type = _TYPE
    for s, p, o in triples:
        if p == rdf_type:
            types[s].add(o)
        else:
            edges[s].add((p, term_key(o)))
    return types, edges


def cn2(pred: Graph, pred_keys: Mapping[Any, Any] | None = None) -> Result:
    """CN2 extensional conciseness; ``Result("CN2", groups/entities)``; n/a for an empty KG."""
    ents = entities_of(pred)
    if not ents:
        return Result.not_applicable("CN2", "the predicted KG has no entities")
    groups: dict[Any, list] = defaultdict(list)
    keyless = []
    for e in ents:
        keys = key_set((pred_keys or {}).get(e))
        if keys:
            groups[("key", min(keys))].append(e)
        else:
            keyless.append(e)
    if keyless:  # the descriptions (a pass over every triple) only for entities without a source key
        types, edges = _descriptions(pred)
        for e in keyless:
            out = edges.get(e)
            groups[("sig", (frozenset(types.get(e, ())), frozenset(out))) if out else ("self", e)].append(e)
    # each group's members in IRI order, the groups by their first member: the same on every run
    dups = sorted((sorted(g, key=str) for g in groups.values() if len(g) > 1), key=lambda g: str(g[0]))
    findings = [Finding(severity="warning",
                        message=f"{len(g)} entities describe one object: {', '.join(map(str, g[:5]))}",
                        location=str(g[0]), code="duplicate-entity") for g in dups]
    return Result("CN2", len(groups) / len(ents), findings=findings,
                  details={"n_entities": len(ents), "n_groups": len(groups), "n_duplicates": len(ents) - len(groups)})


def cn3(pred: Graph, gold: Graph | None, pred_keys: Mapping[Any, Any] | None = None,
        gold_keys: Mapping[Any, Any] | None = None) -> Result:
    """CN3 identifier collisions; ``Result("CN3", 1 - colliding/entities)``; n/a without gold or entities."""
    ents = sorted(entities_of(pred), key=str)
    if gold is None or not ents:
        return Result.not_applicable("CN3", "no gold KG" if gold is None else "the predicted KG has no entities")
    gold_by_key: dict[tuple, set] = defaultdict(set)
    for e, k in (gold_keys or {}).items():
        for t in key_set(k):
            gold_by_key[t].add(e)
    per_gold: Counter = Counter((e, p) for e, p, _ in graph_triples(gold) if p != _TYPE and isinstance(e, (URIRef, BNode)))
    gold_max: Counter = Counter()
    for (_, p), n in per_gold.items():
        gold_max[p] = max(gold_max[p], n)
    _, edges = _descriptions(pred)
    colliding: list[tuple[Any, str]] = []
    for e in ents:
        keys = key_set((pred_keys or {}).get(e))
        hits = set().union(*(gold_by_key.get(k, set()) for k in keys)) if keys else set()
        if len(hits) >= 2:
            colliding.append((e, f"its keys match {len(hits)} gold entities"))
            continue
        counts = Counter(p for p, _ in edges.get(e, ()))
        over = sorted((p for p, n in counts.items() if p in gold_max and n > gold_max[p]), key=str)
        if over:
            colliding.append((e, f"{counts[over[0]]} values of {over[0]}, a gold entity has at most {gold_max[over[0]]}"))
    findings = [Finding(severity="warning", message=f"identifier collision: {why}", location=str(e),
                        code="identifier-collision") for e, why in colliding]
    return Result("CN3", 1 - len(colliding) / len(ents), findings=findings,
                  details={"n_entities": len(ents), "n_colliding": len(colliding)})


def cn5(pred: Graph) -> Result:
    """CN5 property-value conciseness; ``Result("CN5", 1 - redundant/values)``; n/a for an empty KG."""
    seen: set[tuple] = set()
    extra: Counter = Counter()  # (s, p) -> its values whose loose key an earlier value of (s, p) has
    n_values = 0
    rdf_type = _TYPE
    for s, p, o in graph_triples(pred):
        if p == rdf_type:
            continue
        n_values += 1
        value = (s, p, (loose_key(o), (o.language or "").lower()) if isinstance(o, Literal) else ("node", o))
        if value in seen:
            extra[(s, p)] += 1
        else:
            seen.add(value)
    if n_values == 0:
        return Result.not_applicable("CN5", "the predicted KG has no property values")
    findings = [Finding(severity="warning", message=f"{n} redundant value(s) of {p}", location=str(s),
                        code="redundant-value")
                for (s, p), n in sorted(extra.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1])))]
    n_red = sum(extra.values())
    return Result("CN5", 1 - n_red / n_values, findings=findings, details={"n_values": n_values, "n_redundant": n_red})


def cm2(pred: Graph, gold: Graph | None) -> Result:
    """CM2 source-information completeness; ``Result("CM2", present/required)``; n/a without gold literals."""
    if gold is None:
        return Result.not_applicable("CM2", "no gold KG")
    required = {loose_key(o): o for _, _, o in graph_triples(gold) if isinstance(o, Literal)}
    if not required:
        return Result.not_applicable("CM2", "the gold KG has no literal values")
    present = {loose_key(o) for _, _, o in graph_triples(pred) if isinstance(o, Literal)}
    missing = sorted((str(v) for k, v in required.items() if k not in present))
    findings = [Finding(severity="info", message=f"source value missing from the KG: {m!r}", code="missing-value")
                for m in missing[:200]]
    n_present = len(required) - len(missing)
    return Result("CM2", n_present / len(required), findings=findings,
                  details={"n_required": len(required), "n_present": n_present, "n_missing": len(missing)})


def cm3(pred: Graph, gold: Graph | None, alignment: Alignment | None = None) -> Result:
    """CM3 population completeness; ``Result("CM3", aligned/gold entities)`` with ``per_class`` details."""
    if gold is None:
        return Result.not_applicable("CM3", "no gold KG")
    ge = entities_of(gold)
    if not ge:
        return Result.not_applicable("CM3", "the gold KG has no entities")
    al = alignment if alignment is not None else align_entities(pred, gold)
    found = set(al.pairs.values()) & ge
    per: dict[str, dict[str, Any]] = {}
    for e in ge:
        for c in set(gold.objects(e, _TYPE)) or {None}:
            d = per.setdefault(str(c) if c is not None else "(untyped)", {"n_gold": 0, "n_found": 0})
            d["n_gold"] += 1
            d["n_found"] += e in found
    for d in per.values():
        d["ratio"] = d["n_found"] / d["n_gold"]
    findings = [Finding(severity="info", message="gold entity without a predicted counterpart", location=str(e),
                        code="missing-entity") for e in sorted(ge - found, key=str)[:200]]
    return Result("CM3", len(found) / len(ge), findings=findings,
                  details={"n_gold": len(ge), "n_found": len(found), "per_class": dict(sorted(per.items()))})


def conciseness_completeness(pred: Graph, gold: Graph | None, ontology: Any = None,
                             alignment: Alignment | None = None, pred_keys: Mapping | None = None,
                             gold_keys: Mapping | None = None, population: bool = True) -> dict[str, Result]:
    """All of CN1, CN2, CN3, CN5, CM2 and (``population``) CM3 as ``{name: Result}``; each result's
    ``elapsed_s`` is the wall-clock seconds of its own computation, reading the KG's triples included
    for the first measure that reads them."""
    measures = [("CN1", lambda: cn1(pred, gold, ontology)), ("CN2", lambda: cn2(pred, pred_keys)),
                ("CN3", lambda: cn3(pred, gold, pred_keys, gold_keys)), ("CN5", lambda: cn5(pred)),
                ("CM2", lambda: cm2(pred, gold))]
    if population:
        measures.append(("CM3", lambda: cm3(pred, gold, alignment)))
    out = {}
    for name, measure in measures:
        t0 = time.perf_counter()
        out[name] = measure()
        out[name].elapsed_s = time.perf_counter() - t0
    return out
