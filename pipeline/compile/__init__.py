"""Compile stage: mapping table -> RML mapping document (RML-Core + RML-FNML).

Passes: audit (:mod:`.audit`: check cells against ontology and data) -> plan (:mod:`.plan`: group
rows into TriplesMaps, resolve joins, functions, iterators) -> emit (:mod:`.rml`: RDF graph).
"""
from __future__ import annotations

from dataclasses import dataclass

from rdflib import Graph

from pipeline.compile.audit import AuditResult, audit_table
from pipeline.compile.model import Plan
from pipeline.compile.plan import plan_mapping
from pipeline.compile.rml import RML, emit_rml
from pipeline.errors import CompileError
from pipeline.manifest import Case
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.sources.selection import selected_sources
from pipeline.table import MappingTable

__all__ = ["CompileResult", "compile_table", "require_triples_maps", "RML"]


@dataclass
class CompileResult:
    """Audit, plan and RML graph of one table."""

    audit: AuditResult
    plan: Plan
    rml: Graph

    @property
    def findings(self):
        """Audit findings then plan findings."""
        return [*self.audit.findings, *self.plan.findings]


def compile_table(table: MappingTable, ontology: Ontology, case: Case, sources: list[SourceData]) -> CompileResult:
    """Audit ``table`` and compile the rows that pass into RML.

    Args:
        table: the mapping table.
        ontology: the case's ontology and SKOS.
        case: the case (sources, base IRI).
        sources: loaded sources (see :func:`pipeline.sources.load.load_source`); a Source File cell
            naming a selection of one's records by kind (``stix.json[?(@.type=="malware")]``) reads
            that selection (:mod:`pipeline.sources.selection`).
    Returns:
        A :class:`CompileResult`; broken rows are findings, never exceptions.
    """
    sources = [*sources, *selected_sources((r.source_file for r in table.rows), sources)]
    audit = audit_table(table, ontology, case, sources)
    plan = plan_mapping(audit, ontology, case, table.source or "<table>", sources)
    return CompileResult(audit, plan, emit_rml(plan, case.base_iri))


def require_triples_maps(result: CompileResult, earlier: list | tuple = ()) -> None:
    """Stop a run whose table compiled to nothing, naming the first causes.

    Args:
        result: the compile result.
        earlier: findings of earlier stages (unreadable sources), quoted first.
    Raises:
        CompileError: no TriplesMap came out of the table; the message quotes up to
            three error findings (earlier stages first, then table rows).
    """
    if result.plan.triples_maps:
        return
    errors = [f for f in [*earlier, *result.findings] if f.severity == "error"]
    review = len(result.audit.review)  # rows shown for a person's check are no cause of failure, but say why
    causes = "; ".join(str(f) for f in errors[:3]) or (
        f"every row of the table ({review}) is marked for review: clear the Review cell of the rows to accept "
        "(they are listed first in audit.md)" if review else "the table has no rows")
    raise CompileError(f"no row of the table compiled, so there is nothing to materialize. First causes: {causes}")
