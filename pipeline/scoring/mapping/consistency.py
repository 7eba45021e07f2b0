"""CS1 consistency of the predictions of a mapping table with the ontology.

Semi-structured KGC benchmark, mapping-level check CS1 (001 seed). Each
predicted assertion is judged *compatible*, *incompatible* or *unknown*
using the reflexive-transitive ``rdfs:subClassOf`` / ``rdfs:subPropertyOf``
closures, domains and ranges inherited from super-properties
(:meth:`pipeline.ontology.Ontology.domains`/``ranges``) and class
disjointness (``owl:disjointWith``, ``owl:AllDisjointClasses``,
``owl:disjointUnionOf``, inherited through superclasses). Criteria:

* ``domain``: the row's entity class ``C`` vs the property's domains ``D``:
  compatible when ``C ⊑ d`` for some ``d ∈ D`` (or no domain is declared, or
  ``owl:Thing``); incompatible when ``C`` is disjoint with every ``d``;
  unknown otherwise (an out-of-domain class that is not provably disjoint:
  under the open-world reading the subject would simply also be a ``d``),
  or when ``C`` or the property is no ontology term.
* ``range``: object property -> related class vs ranges, judged like domain;
  a literal-valued row (datatype given, no related class) for an object
  property, or a related class for a datatype property, is incompatible.
  Datatype property -> datatype vs datatype ranges: equal or derived (XSD
  type hierarchy; ``rdfs:Literal`` accepts all) is compatible, another
  datatype incompatible, an unknown datatype unknown.
* ``subject_types``: rows sharing one subject template assert all their
  classes of that subject; two provably disjoint classes are incompatible,
  otherwise compatible (one assertion per template with >= 2 classes).

``D`` with several members is treated as a union (the ontology module
flattens unions and repeated ``rdfs:domain``); ``strict=True`` counts unknown
as incompatible (closed-world reading). Rates per criterion are shares of
that criterion's assertions; the macro average is over criteria with at
least one assertion; incompatible and unknown are also given as counts.
"""
from __future__ import annotations

import logging
import statistics
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.findings import Finding
from pipeline.ontology import Ontology, is_xsd_datatype
from pipeline.rdflists import members as rdf_members
from pipeline.table.cells import split_class_alternatives
from pipeline.table.model import MappingTable

__all__ = ["CS1_CRITERIA", "ConsistencyResult", "check_cs1", "disjoint"]

log = logging.getLogger(__name__)

#: CS1 criteria, in report order.
CS1_CRITERIA = ("domain", "range", "subject_types")
_VERDICTS = ("compatible", "incompatible", "unknown")
_X = str(XSD)
#: XSD derivation used for datatype ranges (XML Schema 1.1 Part 2, section 3 type hierarchy).
_XSD_PARENT = {
    "integer": "decimal", "long": "integer", "int": "long", "short": "int", "byte": "short",
    "nonNegativeInteger": "integer", "positiveInteger": "nonNegativeInteger", "nonPositiveInteger": "integer",
    "negativeInteger": "nonPositiveInteger", "unsignedLong": "nonNegativeInteger", "unsignedInt": "unsignedLong",
    "unsignedShort": "unsignedInt", "unsignedByte": "unsignedShort", "normalizedString": "string",
    "token": "normalizedString", "language": "token", "Name": "token", "NCName": "Name", "NMTOKEN": "token",
    "dateTimeStamp": "dateTime", "dayTimeDuration": "duration", "yearMonthDuration": "duration",
}


def _datatype_ancestors(iri: URIRef) -> set[str]:
    out, cur = {str(iri)}, str(iri)
    while cur.startswith(_X) and cur[len(_X):] in _XSD_PARENT:
        cur = _X + _XSD_PARENT[cur[len(_X):]]
        out.add(cur)
    return out


def _disjoint_pairs(ontology: Ontology) -> set[frozenset[URIRef]]:
    g = ontology.graph
    pairs: set[frozenset[URIRef]] = set()
    for a, b in g.subject_objects(OWL.disjointWith):
        if isinstance(a, URIRef) and isinstance(b, URIRef):
            pairs.add(frozenset((a, b)))
    groups = []
    for node in g.subjects(RDF.type, OWL.AllDisjointClasses):
        for lst in g.objects(node, OWL.members):
            groups.append([m for m in rdf_members(g, lst) if isinstance(m, URIRef)])
    for _, lst in g.subject_objects(OWL.disjointUnionOf):
        groups.append([m for m in rdf_members(g, lst) if isinstance(m, URIRef)])
    for members in groups:
        pairs.update(frozenset(p) for p in combinations(members, 2))
    return pairs


def disjoint(ontology: Ontology, a: URIRef, b: URIRef, pairs: set[frozenset[URIRef]] | None = None) -> bool:
    """True when classes ``a`` and ``b`` are provably disjoint (some superclasses declared disjoint)."""
    pairs = _disjoint_pairs(ontology) if pairs is None else pairs
    if not pairs:
        return False
    sa, sb = ontology.superclasses(a) | {a}, ontology.superclasses(b) | {b}
    return any(frozenset((x, y)) in pairs for x in sa for y in sb if x != y)


@dataclass
class ConsistencyResult:
    """Result of CS1.

    Attributes:
        name: ``"CS1"``.
        criteria: criterion -> ``{"assertions", "compatible", "incompatible", "unknown",
            "rate_compatible", "rate_incompatible", "rate_unknown"}`` (rates ``None`` with no assertions).
        rate_compatible: macro average of ``rate_compatible`` over criteria with assertions.
        incompatible / unknown: absolute counts over all criteria.
        strict: whether unknown was counted as incompatible.
        higher_is_better: ``True`` (for ``rate_compatible``).
        findings: one per incompatible or unknown assertion, with the table line.
    """

    name: str = "CS1"
    criteria: dict[str, dict[str, Any]] = field(default_factory=dict)
    rate_compatible: float | None = None
    incompatible: int = 0
    unknown: int = 0
    strict: bool = False
    higher_is_better: bool = True
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"name": self.name, "rate_compatible": self.rate_compatible, "incompatible": self.incompatible,
                "unknown": self.unknown, "strict": self.strict, "higher_is_better": self.higher_is_better,
                "criteria": self.criteria, "findings": [f.to_dict() for f in self.findings]}


class _Judge:
    def __init__(self, ontology: Ontology) -> None:
        self.o = ontology
        self.pairs = _disjoint_pairs(ontology)

    def class_in(self, cls: URIRef | None, allowed: set[URIRef], what: str) -> tuple[str, str]:
        named = {c for c in allowed if not is_xsd_datatype(c)}
        if cls is None or cls not in self.o.classes:
            return "unknown", "class is no ontology class"
        if not named or OWL.Thing in named or RDFS.Resource in named:
            return "compatible", f"no {what} constraint"
        sup = self.o.superclasses(cls) | {cls}
        if sup & named:
            return "compatible", f"subclass of the {what}"
        if all(disjoint(self.o, cls, d, self.pairs) for d in named):
            return "incompatible", f"disjoint with the {what} {sorted(map(self.o.compact, named))}"
        return "unknown", f"outside the {what} {sorted(map(self.o.compact, named))}, not provably disjoint"

    def datatype_in(self, dt: URIRef | None, ranges: set[URIRef]) -> tuple[str, str]:
        types = {r for r in ranges if self.o.kind(r) == "datatype" or is_xsd_datatype(r)}
        if not ranges or RDFS.Literal in ranges:
            return "compatible", "no datatype constraint"
        if dt is None or self.o.kind(dt) != "datatype":
            return "unknown", "datatype unknown"
        if not types:
            return "incompatible", "literal for a property whose range is a class"
        if _datatype_ancestors(dt) & {str(t) for t in types}:
            return "compatible", "datatype within the range"
        return "incompatible", f"datatype outside the range {sorted(map(self.o.compact, types))}"


def check_cs1(table: MappingTable, ontology: Ontology, *, strict: bool = False) -> ConsistencyResult:
    """Judge each predicted assertion against the ontology (criteria in the module docstring).

    Args:
        table: the predicted mapping table.
        ontology: target ontology.
        strict: count unknown as incompatible (closed-world reading).
    Returns:
        A :class:`ConsistencyResult`; never raises on odd cells.
    """
    judge = _Judge(ontology)
    counts = {c: dict.fromkeys(("assertions",) + _VERDICTS, 0) for c in CS1_CRITERIA}
    result = ConsistencyResult(strict=strict)
    src = table.source or "<predicted>"

    def record(criterion: str, verdict: str, why: str, line: int, column: str, value: str | None) -> None:
        if strict and verdict == "unknown":
            verdict = "incompatible"
        counts[criterion]["assertions"] += 1
        counts[criterion][verdict] += 1
        if verdict != "compatible":
            result.findings.append(Finding(stage="mapping-check", file=src, line=line, column=column, value=value,
                                           severity="error" if verdict == "incompatible" else "info",
                                           message=f"CS1 {criterion}: {verdict}: {why}"))

    by_subject: dict[str, list[tuple[URIRef, int]]] = {}
    for row in table.rows:
        try:
            prop = ontology.expand(row.ontology_property) if row.ontology_property else None
            classes = [ontology.expand(c) for c in split_class_alternatives(row.entity_class)]
            if row.subject_template:
                for c in classes:
                    if c is not None:
                        by_subject.setdefault(row.subject_template, []).append((c, row.line))
            if prop is None:
                continue
            known = prop in ontology.properties
            for cls in classes or [None]:
                if cls is None and not row.entity_class:
                    break
                verdict, why = judge.class_in(cls, ontology.domains(prop), "domain") if known \
                    else ("unknown", "property is no ontology property")
                record("domain", verdict, why, row.line, "entity_class", row.entity_class)
            ranges = ontology.ranges(prop) if known else set()
            kind = ontology.kind(prop) if known else None
            related = ontology.expand(row.related_entity_class) if row.related_entity_class else None
            dt = ontology.expand(row.datatype) if row.datatype else None
            if not known:
                if row.related_entity_class or row.datatype:
                    record("range", "unknown", "property is no ontology property", row.line, "ontology_property",
                           row.ontology_property)
            elif row.related_entity_class:
                if kind == "datatype_property":
                    record("range", "incompatible", "related class for a datatype property", row.line,
                           "related_entity_class", row.related_entity_class)
                else:
                    verdict, why = judge.class_in(related, ranges, "range")
                    record("range", verdict, why, row.line, "related_entity_class", row.related_entity_class)
            elif dt is not None and (is_xsd_datatype(dt) or ontology.kind(dt) == "datatype"):
                if kind == "object_property":
                    record("range", "incompatible", "literal datatype for an object property", row.line,
                           "datatype", row.datatype)
                else:
                    verdict, why = judge.datatype_in(dt, ranges)
                    record("range", verdict, why, row.line, "datatype", row.datatype)
        except Exception as exc:  # never raise on messy data
            log.warning("CS1: cannot judge row at line %s: %s", row.line, exc)
    for template, found in by_subject.items():
        distinct = sorted({c for c, _ in found})
        if len(distinct) < 2:
            continue
        clash = [(a, b) for a, b in combinations(distinct, 2) if disjoint(ontology, a, b, judge.pairs)]
        line = min(ln for _, ln in found)
        if clash:
            names = ", ".join(f"{ontology.compact(a)} / {ontology.compact(b)}" for a, b in clash)
            record("subject_types", "incompatible", f"subject typed with disjoint classes {names}", line,
                   "subject_template", template)
        else:
            record("subject_types", "compatible", "", line, "subject_template", template)
    for c in counts.values():
        n = c["assertions"]
        for v in _VERDICTS:
            c[f"rate_{v}"] = c[v] / n if n else None
    result.criteria = counts
    rates = [c["rate_compatible"] for c in counts.values() if c["rate_compatible"] is not None]
    result.rate_compatible = statistics.fmean(rates) if rates else None
    result.incompatible = sum(c["incompatible"] for c in counts.values())
    result.unknown = sum(c["unknown"] for c in counts.values())
    return result
