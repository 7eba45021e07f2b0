"""Validate and score stage of a run: the mapping layer and the graph layer side by side.

* Mapping layer (:mod:`pipeline.scoring.mapping`): BLINKG task precision/recall/F1 of
  the mapped table against the gold table (post-processed setting), plus SV1/CS1/CM1.
* Graph layer (:mod:`pipeline.validation`, :mod:`pipeline.scoring.graph`): SV2 strict
  syntax, CS2 consistency (OWL 2 RL with owlrl; OWL 2 DL with HermiT where Java is available), SHACL (shapes derived from the ontology plus
  ``shapes/<scenario>.ttl`` and the case's own), and SA2-SA4, CN/CM and competency
  questions against the gold KG.

Gold KG: the case's ``gold.graph`` when it has one (BLINKG scenario 1), else the KG
materialized from the gold table by this pipeline (scenarios 2 and 3), so the rows
the audit rejected are missing from it too (they are listed in the gold run's audit).
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import Graph

from .findings import Finding
from .manifest import Case
from .ontology import Ontology
from .sources import SourceData, all_values
from .table import MappingTable

__all__ = ["SHAPES_DIR", "CQ_DIR", "mapping_scores", "subject_templates", "GoldKG", "gold_kg", "HEAVY_CHECK_LIMIT", "skipped", "graph_validation", "graph_scores", "validation_passed"]

LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parent.parent
#: Hand-written SHACL shapes per scenario (``<scenario>.ttl``).
SHAPES_DIR = _ROOT / "shapes"
#: Competency questions per scenario (``<scenario>/<case or common>/*.rq``).
CQ_DIR = _ROOT / "data" / "competency_questions"


def _scenario_key(case: Case) -> str:
    return case.scenario.split("-")[0]


def mapping_scores(table: MappingTable, gold: MappingTable, ontology: Ontology, case: Case,
                   sources: list[SourceData], folder: Path,
                   events: list[tuple[str, set[str]]] | None = None) -> tuple[dict[str, Any], Any]:
    """BLINKG task scores of ``table`` against ``gold`` (written to ``mapping.mapping-scores.json``).

    Returns:
        ``(summary, report)``: ``summary`` is ``{"f1", "precision", "recall"}`` (unweighted mean
        over the applicable tasks, post-processed setting), ``"tasks": {task: F1 or None}`` and the
        check headlines (SV1, CS1, CM1, and CN4 when ``events`` - see
        :func:`pipeline.materialize.generation_events` - are given); ``report`` is the full
        :class:`pipeline.scoring.mapping.CaseReport`.
    """
    from .scoring.mapping import score_case, write_case_json

    refs = {s.source.path.name: set(s.references) for s in sources}
    report = score_case([table], gold, ontology, case=case.name, scenario=case.scenario, available_references=refs,
                        generation_events=[events] if events is not None else None)
    write_case_json(report, folder, "mapping")
    macro = report.macro.get("post-processed", {})

    def mean(attr: str) -> float | None:
        vals = [getattr(m, attr) for m in macro.values() if getattr(m, attr, None) is not None]
        return sum(vals) / len(vals) if vals else None

    summary = {"f1": mean("f1"), "precision": mean("precision"), "recall": mean("recall"),
               "tasks": {t: m.f1 for t, m in macro.items()}, **report.check_summary}
    return summary, report


def subject_templates(plan: Any) -> list[str]:
    """IRI templates of a compiled plan's subject maps (``rml:template`` ones; function-built
    subjects have none), for entity alignment by key values."""
    return [tm.subject.value for tm in plan.triples_maps if tm.subject.kind == "template"]


@dataclass
class GoldKG:
    """The gold KG of a case.

    Attributes:
        graph: the gold KG (``None`` when the case has no gold table or graph).
        templates: subject templates that minted its IRIs; ``None`` when unknown (a gold graph
            read from a file), ``[]`` when its subjects are built by functions.
        findings: the gold table's own audit and compile findings (rows it loses), re-labelled
            ``stage="gold"`` so a report says what the gold KG is missing.
        rows_dropped: gold table rows that did not compile.
    """

    graph: Graph | None = None
    templates: list[str] | None = None
    findings: list[Finding] = field(default_factory=list)
    rows_dropped: int = 0


def gold_kg(case: Case, ontology: Ontology, sources: list[SourceData], folder: Path,
            processes: int = 1) -> GoldKG:
    """The gold KG of a case: its ``gold.graph``, else the KG of its gold table compiled and
    materialized by this pipeline into ``<folder>/gold/`` (see :class:`GoldKG`)."""
    from .compile import compile_table
    from .materialize import engine_mapping, materialize
    from .table import read_table

    if case.gold_graph is not None:
        return GoldKG(Graph().parse(case.gold_graph, format="nt"), None)
    if case.gold_table is None:
        return GoldKG(None, [])
    gold_dir = folder / "gold"
    gold_dir.mkdir(parents=True, exist_ok=True)
    table = read_table(case.gold_table)
    compiled = compile_table(table, ontology, case, sources)
    engine_mapping(compiled.rml, base_iri=case.base_iri).serialize(gold_dir / "mapping.morph-kgc.ttl", format="turtle")
    values = all_values(sources)
    mat = materialize(gold_dir / "mapping.morph-kgc.ttl", values, processes)
    mat.write(gold_dir / "kg.nt")
    findings = [dataclasses.replace(f, stage="gold", message="gold table: " + f.message)
                for f in [*compiled.findings, *mat.findings] if f.severity in ("error", "warning")]
    return GoldKG(Graph().parse(gold_dir / "kg.nt", format="nt"), subject_templates(compiled.plan), findings,
                  len(table) - len(compiled.plan.compiled_lines))


#: Above this many triples a run skips the reasoners, SHACL and CN4 (minutes to hours on
#: two cores; see ``make bench-validation``); ``kgc validate`` runs them whatever the size.
HEAVY_CHECK_LIMIT = 100_000


def skipped(name: str, reason: str) -> dict[str, Any]:
    """A not-applicable result (``Result.to_dict()`` shape) for a check that was not run."""
    return {"name": name, "value": None, "status": "not_applicable", "findings": [],
            "details": {"reason": reason}}


def graph_validation(kg_path: Path, kg: Graph, ontology: Ontology, case: Case,
                     max_triples: int | None = HEAVY_CHECK_LIMIT) -> dict[str, Any]:
    """SV2, CS2 (owlrl; HermiT too where Java is available) and SHACL results of a written KG.

    Args:
        max_triples: above this KG size only SV2 runs; the others are reported not applicable
            with the reason (``None``: no limit).
    Returns:
        ``{"SV2", "CS2-owlrl", ["CS2-hermit",] "SHACL"}`` -> ``Result.to_dict()``.
    """
    from .validation import check_ntriples, hermit_available, hermit_consistency, owlrl_consistency, validate_shacl

    if max_triples is not None and len(kg) > max_triples:
        reason = f"KG of {len(kg)} triples is over the limit of {max_triples}; run `kgc validate` to force"
        return {"SV2": check_ntriples(kg_path).to_dict(), "CS2-owlrl": skipped("CS2-owlrl", reason),
                "SHACL": skipped("SHACL", reason)}

    shapes = [*case.shapes]
    scenario_shapes = SHAPES_DIR / f"{_scenario_key(case)}.ttl"
    if scenario_shapes.exists():
        shapes.append(scenario_shapes)
    result = {"SV2": check_ntriples(kg_path).to_dict(),
              "CS2-owlrl": owlrl_consistency(kg, ontology.graph).to_dict()}
    if hermit_available():  # Java and owlready2's HermiT jar; otherwise only the OWL 2 RL check runs
        result["CS2-hermit"] = hermit_consistency(kg, ontology.graph, timeout_s=120).to_dict()
    result["SHACL"] = validate_shacl(kg, ontology.graph, shapes=shapes).to_dict()
    return result


def validation_passed(validation: dict[str, Any]) -> bool:
    """False when any check of :func:`graph_validation` says the KG fails (value ``False``);
    a check that could not run (``None``) does not count as a failure."""
    return all(v.get("value") is not False for v in validation.values())


def graph_scores(kg: Graph, gold_kg: Graph | None, ontology: Ontology, case: Case,
                 consistent: bool | None, pred_templates: list[str] = (),
                 gold_templates: list[str] | None = ()) -> dict[str, Any]:
    """SA2-SA4, CN/CM and PQ scores of ``kg`` against ``gold_kg`` (``None``: not applicable).

    Entities are aligned by IRI first, then by the key values their subject templates
    encode (``pred_templates`` / ``gold_templates``); against a gold graph read from a file,
    whose templates are unknown (``gold_templates=None``), by class and last IRI segment on both sides
    (:func:`pipeline.scoring.graph.align.keys_from_local_names`).
    """
    from .scoring.graph import keys_from_local_names, keys_from_templates, load_competency_questions, score_graph

    cq_paths = [*case.competency_questions]
    folder = CQ_DIR / _scenario_key(case)
    for sub in ("common", case.name):
        if (folder / sub).is_dir():
            cq_paths.append(folder / sub)
    cqs = load_competency_questions(cq_paths, case=case.name) if cq_paths else []
    if gold_kg is not None and gold_templates is None:
        # a gold graph from a file: its IRI scheme is unknown, so both sides key by class and last IRI segment
        pred_keys, gold_keys = keys_from_local_names(kg), keys_from_local_names(gold_kg)
    else:
        pred_keys = keys_from_templates(kg, pred_templates) if pred_templates else None
        gold_keys = keys_from_templates(gold_kg, gold_templates) if gold_templates and gold_kg is not None else None
    results = score_graph(kg, gold_kg, ontology.graph, cqs=cqs, consistent=consistent,
                          pred_keys=pred_keys, gold_keys=gold_keys)
    return {name: r.to_dict() for name, r in results.items()}
