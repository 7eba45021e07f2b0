"""SV1 syntactic validity and CM1 source-reference completeness of a mapping table.

Semi-structured KGC benchmark, mapping-level checks (001 seed):

**SV1** - the share of predictions whose terms exist in the target ontologies
and whose data references exist in the source data. One criterion per kind
of prediction; for each, ``valid / applicable`` where *applicable* are the
non-empty predicted cells of that kind:

* ``property``: ``ontology_property`` is a property of the ontology (declared, RDFS's own such as
  ``rdfs:label``, or an annotation property the vocabularies use: :meth:`pipeline.ontology.Ontology.kind`);
  a class-only row has none to check;
* ``class``: each ``entity_class`` alternative and ``related_entity_class`` is a
  class of the ontology (``skos:Concept`` counts when SKOS concepts are loaded);
* ``datatype``: ``datatype`` is an XSD/RDF datatype or one declared in the
  ontology (markers such as ``Object Property``/``IRI`` are no datatype
  prediction and are not applicable);
* ``data_reference``: every reference (``concat`` arguments, unquoted) exists
  among ``available_references[source]`` (not applicable when that map is not given).

*Raw* validity needs an exact match; *similarity-based* validity accepts the
closest existing term/reference when its similarity reaches ``tau``
(:class:`~.similarity.CellSimilarity`, the same measure as the task scores).
The headline value is the macro average over criteria with at least one
applicable prediction.

**CM1** - share of required source references (those the gold table uses:
data references with ``concat`` arguments, subject-template variables
``{col}``/``$(xpath)``, join-condition columns) that the predicted table also
uses, per source file; micro = covered / required over all sources, macro =
mean of the per-source shares. Source names are compared by file stem,
case-insensitively; a reference with no known source matches any source.
"""
from __future__ import annotations

import logging
import re
import statistics
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Iterable, Mapping

from rdflib.namespace import SKOS

from pipeline.findings import Finding
from pipeline.ontology import Ontology
from pipeline.table.cells import parse_concat, parse_join_condition, quoted_constant, split_class_alternatives
from pipeline.table.model import MappingRow, MappingTable
from pipeline.scoring.mapping.similarity import CellSimilarity

__all__ = ["SV1_CRITERIA", "ValidityResult", "CompletenessResult", "check_sv1", "check_cm1",
           "row_references"]

log = logging.getLogger(__name__)

#: SV1 criteria, in report order.
SV1_CRITERIA = ("property", "class", "datatype", "data_reference")
_NON_DATATYPES = {"object property", "objectproperty", "iri", "uri", "resource", "none"}
_TEMPLATE_VAR = re.compile(r"\{([^{}]+)\}")
_XPATH_VAR = re.compile(r"\$\(\s*(?:replace\s*\(\s*)?([^,()]+)")


def _stem(name: str | None) -> str:
    return PurePath(name).stem.lower() if name else ""


@dataclass
class ValidityResult:
    """Result of SV1.

    Attributes:
        name: ``"SV1"``.
        criteria: criterion -> ``{"applicable", "valid_raw", "valid_similar", "rate_raw", "rate_similar"}``
            (rates ``None`` when nothing is applicable).
        rate_raw / rate_similar: macro averages over applicable criteria (``None`` if none).
        higher_is_better: ``True``.
        findings: one per invalid cell (with the closest valid candidate when found).
    """

    name: str = "SV1"
    criteria: dict[str, dict[str, Any]] = field(default_factory=dict)
    rate_raw: float | None = None
    rate_similar: float | None = None
    higher_is_better: bool = True
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"name": self.name, "rate_raw": self.rate_raw, "rate_similar": self.rate_similar,
                "higher_is_better": self.higher_is_better, "criteria": self.criteria,
                "findings": [f.to_dict() for f in self.findings]}


def _reference_parts(ref: str | None) -> list[str]:
    if not ref:
        return []
    args = parse_concat(ref)
    if args is None:
        return [] if quoted_constant(ref) is not None else [ref.strip()]  # a constant reads no column
    return [a for a in args if a and a[0] not in "'\""]


def check_sv1(table: MappingTable, ontology: Ontology, *,
              available_references: Mapping[str, Iterable[str]] | None = None,
              similarity: CellSimilarity | None = None) -> ValidityResult:
    """Check that predicted terms and references exist (formulas in the module docstring).

    Args:
        table: the predicted mapping table.
        ontology: the target ontology (and SKOS vocabularies).
        available_references: source file name -> references present in it (from the source
            profiler); ``None`` makes the ``data_reference`` criterion not applicable.
        similarity: measure for the similarity-based variant (default: a new
            :class:`CellSimilarity` with ``tau`` 0.8).
    Returns:
        A :class:`ValidityResult`; never raises on odd cells.
    """
    sim = similarity or CellSimilarity(ontology)
    props = sorted(ontology.properties)
    classes = set(ontology.classes) | ({SKOS.Concept} if ontology.concepts else set())
    class_list = sorted(classes)
    prop_names = [ontology.compact(p) for p in props]
    class_names = [ontology.compact(c) for c in class_list]
    refs_by_source = {_stem(k): {str(r) for r in v} for k, v in (available_references or {}).items()}
    all_refs = sorted(set().union(*refs_by_source.values())) if refs_by_source else []
    counts = {c: {"applicable": 0, "valid_raw": 0, "valid_similar": 0} for c in SV1_CRITERIA}
    result = ValidityResult()
    src = table.source or "<predicted>"

    def record(criterion: str, row: MappingRow, column: str, value: str, ok: bool,
               candidates: list[str]) -> None:
        counts[criterion]["applicable"] += 1
        cand, score = None, 0.0
        if ok:
            counts[criterion]["valid_raw"] += 1
            counts[criterion]["valid_similar"] += 1
            return
        if candidates:
            sims = sim.matrix([value], candidates, terms=criterion != "data_reference")[0]
            k = int(sims.argmax())
            cand, score = candidates[k], float(sims[k])
            if score >= sim.tau:
                counts[criterion]["valid_similar"] += 1
        result.findings.append(Finding(
            stage="mapping-check", file=src, line=row.line, column=column, value=value, candidate=cand,
            severity="warning" if score >= sim.tau else "error",
            message=f"SV1 {criterion}: {value!r} does not exist" + (f" (closest similarity {score:.3f})"
                                                                   if cand else "")))

    for row in table.rows:
        try:
            if row.ontology_property:
                iri = ontology.expand(row.ontology_property)
                # a property by the compiler's reading: declared, RDFS's own (rdfs:label) or an annotation
                # property the vocabularies use
                record("property", row, "ontology_property", row.ontology_property,
                       iri is not None and ontology.kind(iri) in ("object_property", "datatype_property", "property"),
                       prop_names)
            for column, cells in (("entity_class", split_class_alternatives(row.entity_class)),
                                  ("related_entity_class", [row.related_entity_class] if row.related_entity_class
                                   else [])):
                for cell in cells:
                    record("class", row, column, cell, ontology.expand(cell) in classes, class_names)
            if row.datatype and row.datatype.strip().lower() not in _NON_DATATYPES:
                iri = ontology.expand(row.datatype)
                record("datatype", row, "datatype", row.datatype,
                       iri is not None and ontology.kind(iri) == "datatype", [])
            if available_references is not None and row.data_reference:
                pool = refs_by_source.get(_stem(row.source_file)) if row.source_file else None
                pool_set = pool if pool is not None else set(all_refs)
                for part in _reference_parts(row.data_reference):
                    record("data_reference", row, "data_reference", part, part in pool_set, sorted(pool_set))
        except Exception as exc:  # never raise on messy data
            log.warning("SV1: cannot check row at line %s: %s", row.line, exc)
    for crit, c in counts.items():
        n = c["applicable"]
        c["rate_raw"] = c["valid_raw"] / n if n else None
        c["rate_similar"] = c["valid_similar"] / n if n else None
    result.criteria = counts
    raw = [c["rate_raw"] for c in counts.values() if c["rate_raw"] is not None]
    similar = [c["rate_similar"] for c in counts.values() if c["rate_similar"] is not None]
    result.rate_raw = statistics.fmean(raw) if raw else None
    result.rate_similar = statistics.fmean(similar) if similar else None
    return result


def row_references(row: MappingRow, sources: Iterable[str] = ()) -> set[tuple[str, str]]:
    """Source references a row uses, as ``(source stem or "", reference)`` pairs.

    Covers the data reference (``concat`` arguments), subject-template variables
    (``{col}``, ``$(xpath)``, ``$(replace(xpath, ...))``) and join-condition columns
    (with the source written before the column, if any). ``sources``: the lower-case stems of
    the tables' Source File cells, so a join side naming a file whose stem holds dots
    (``books.v2.author_id``) is read as that file's column.
    """
    src = _stem(row.source_file)
    known = set(sources)
    out = {(src, r) for r in _reference_parts(row.data_reference)}
    template = row.subject_template or ""
    out |= {(src, v.strip()) for v in _TEMPLATE_VAR.findall(template) if v.strip()}
    out |= {(src, v.strip()) for v in _XPATH_VAR.findall(template) if v.strip()}

    def stem(name: str) -> str:
        return name.lower() if name.lower() in known else _stem(name)

    for alt in parse_join_condition(row.join_condition, known):
        for pair in alt:
            out.add((stem(pair.child_source) if pair.child_source else src, pair.child_ref))
            out.add((stem(pair.parent_source) if pair.parent_source else "", pair.parent_ref))
    return out


@dataclass
class CompletenessResult:
    """Result of CM1.

    Attributes:
        name: ``"CM1"``.
        required / covered: counts over all sources.
        micro: ``covered / required`` (``None`` when nothing is required).
        macro: mean of per-source shares (``None`` when nothing is required).
        per_source: source stem (``""`` = unknown) -> ``{"required", "covered", "share", "missing": [...]}``.
        missing: every missing ``"source: reference"``, sorted.
        higher_is_better: ``True``.
    """

    name: str = "CM1"
    required: int = 0
    covered: int = 0
    micro: float | None = None
    macro: float | None = None
    per_source: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    higher_is_better: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"name": self.name, "required": self.required, "covered": self.covered, "micro": self.micro,
                "macro": self.macro, "higher_is_better": self.higher_is_better, "per_source": self.per_source,
                "missing": self.missing}


def check_cm1(predicted: MappingTable, gold: MappingTable) -> CompletenessResult:
    """Share of the gold table's source references that the predicted table uses.

    Args:
        predicted: the predicted mapping table.
        gold: the gold mapping table (defines the required references).
    Returns:
        A :class:`CompletenessResult` (formulas in the module docstring); never raises.
    """
    stems = {_stem(r.source_file) for r in [*gold.rows, *predicted.rows] if r.source_file}
    required: set[tuple[str, str]] = set()
    for row in gold.rows:
        required |= row_references(row, stems)
    used: set[tuple[str, str]] = set()
    for row in predicted.rows:
        used |= row_references(row, stems)
    sources_of: dict[str, set[str]] = {}
    for s, r in used:
        sources_of.setdefault(r, set()).add(s)
    per: dict[str, dict[str, Any]] = {}
    for s, r in sorted(required):
        found = sources_of.get(r, set())
        ok = bool(found) and (not s or s in found or "" in found)
        entry = per.setdefault(s, {"required": 0, "covered": 0, "share": None, "missing": []})
        entry["required"] += 1
        if ok:
            entry["covered"] += 1
        else:
            entry["missing"].append(r)
    for entry in per.values():
        entry["share"] = entry["covered"] / entry["required"]
    result = CompletenessResult(per_source=per)
    result.required = sum(e["required"] for e in per.values())
    result.covered = sum(e["covered"] for e in per.values())
    if result.required:
        result.micro = result.covered / result.required
        result.macro = statistics.fmean(e["share"] for e in per.values())
    result.missing = sorted(f"{s or '?'}: {r}" for s, e in per.items() for r in e["missing"])
    return result
