"""What a case run is and what it writes: :class:`RunConfig`, :class:`CaseRun`, and the
``run.json`` / ``audit.json`` / ``audit.md`` artifacts (see :mod:`pipeline.run.runner` for the folder).
"""
from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.validation.loss import coverage_loss
from pipeline.validation.verdict import kg_verdict

__all__ = ["RunConfig", "CaseRun", "versions", "write_json", "audit_md", "finish"]


@dataclass(frozen=True)
class RunConfig:
    """Settings of one run.

    Attributes:
        out_dir: root of the output folders.
        mapper: mapper name (see :func:`pipeline.mappers.known_mappers`).
        mapper_options: keyword options for the mapper (``table=...`` for replay).
        processes: Morph-KGC worker processes.
        turtle: also write the KG as Turtle (``kg.ttl``).
        evaluate: validate and score the KG (off: stop after materialize and the gold-graph check).
        on_data_error: ``drop`` or ``stop`` (:mod:`pipeline.materialize.data_errors`) for the KG's
            materialization (not the gold mapping's).
    """

    out_dir: Path = Path("out")
    mapper: str = "replay"
    mapper_options: dict[str, Any] = field(default_factory=dict)
    processes: int = 1
    turtle: bool = False
    evaluate: bool = True
    on_data_error: str = "drop"


@dataclass
class CaseRun:
    """What a run of one case produced (also written as ``run.json``)."""

    case: Case
    folder: Path
    status: str = "ok"
    failed_stage: str | None = None
    error: str | None = None
    error_kind: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    mapping_report: Any = None
    config: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        """One console line: scenario/case, the run's status and the KG's verdict (valid, fails a check,
        not validated with the reason), scores, triples, rows, findings (the gold table's own apart), seconds."""
        c = self.counts
        own = [f for f in self.findings if f.stage != "gold"]  # the gold table's own defects are listed apart
        errs = sum(f.severity == "error" for f in own)
        warns = sum(f.severity == "warning" for f in own)
        status = self.status if self.status == "ok" else f"FAILED at {self.failed_stage}: {self.error}"
        verdict = kg_verdict(self.extra.get("graph_validation"))
        if self.status == "ok" and verdict.state == "valid":
            # valid, but values were dropped or most mapped records got no subject: the report's "lossy"
            lossy = coverage_loss(c, self.extra.get("coverage"), self.findings).lossy or bool(
                c.get("rows_dropped"))  # rows of the table (the user's or a mapper's) the compiler left out
            held = f", {c['rows_review']} table row(s) held for review, not in it" if c.get("rows_review") else ""
            status += f" (KG {verdict.label}, lossy{held})" if lossy else f" (KG {verdict.label}{held})"
        elif self.status == "ok" and verdict.state != "not checked":  # the run worked; the KG it wrote is not valid
            status += " (KG " + "; ".join(([f"fails {', '.join(verdict.failing)}"] if verdict.failing else [])
                                          + [f"not validated: {k} did not run: {_short(why)}"
                                             for k, why in verdict.not_run.items()]) + ")"
        iso = self.extra.get("expected_graph", {}).get("isomorphic")
        gold = "" if iso is None else f"  expected-graph: {'isomorphic' if iso else 'differs'}"
        lost = self.extra.get("gold_kg", {}).get("rows_dropped")
        gold += f"  gold-table-rows-dropped={lost} (partial gold)" if lost else ""
        unread = self.extra.get("gold_kg", {}).get("columns_unread")
        gold += f"  gold-table-columns-unread={','.join(unread)} (partial gold)" if unread else ""
        gold_errors = sum(f.severity == "error" for f in self.findings if f.stage == "gold")
        gold += f"  gold-errors={gold_errors}" if gold_errors else ""
        mf1 = self.extra.get("mapping_scores", {}).get("f1")
        gf1 = self.extra.get("graph_scores", {}).get("SA2-prop-exact")
        scores = "" if mf1 is None and gf1 is None else \
            f"  mapping-F1={'n/a' if mf1 is None else f'{mf1:.3f}'}" \
            + (" (partial gold)" if mf1 is not None and self.extra.get("mapping_scores", {}).get("partial_gold") else "") \
            + f" graph-F1={'n/a' if gf1 is None else f'{gf1:.3f}'}"
        # a KG minting other IRIs than the gold scores 0 by IRI: its score after aligning IRI schemes beside it
        af1 = self.extra.get("graph_scores", {}).get("SA2-prop-aligned")
        if isinstance(af1, (int, float)) and af1 != gf1:
            scores += f" (aligned {af1:.3f})"
        where = f"  see {self.folder / 'audit.md'}" if errs or self.status != "ok" else ""
        ms = self.extra.get("mapping_scores") or {}
        if "runs" in c:  # LLM_RUNS > 1: the per-run counts are in runs/<i>/run.json
            spread = f" [{ms['f1_min']:.3f}-{ms['f1_max']:.3f}]" if ms.get("f1_min") is not None else ""
            size = f"runs={c['runs_ok']}/{c['runs']} ok{spread}"
        else:
            size = f"triples={c.get('triples', 0)} rows={c.get('rows_compiled', 0)}/{c.get('rows', 0)}"
            if c.get("rows_review"):  # rows the mapper was unsure of: shown in audit.md, not in the KG
                size += f" review={c['rows_review']}"
            if c.get("triples_dropped_by_guards"):  # lost data says so on the console, not only in audit.md
                size += f" triples-dropped={c['triples_dropped_by_guards']}"
                kinds = c.get("dropped_by_kind") or {}
                if kinds.get("join_keys") or kinds.get("function_values"):  # the total is not all invalid terms
                    size += " (" + ", ".join(f"{n} {what}" for n, what in (
                        (kinds.get("invalid_terms"), "invalid term(s)"), (kinds.get("join_keys"), "join key(s)"),
                        (kinds.get("function_values"), "function value(s)")) if n) + ")"
        unmapped = sum(f.severity == "warning" and f.stage == "map" and f.column == "data_reference" for f in own)
        if unmapped:  # most warnings of a wide source are coverage notes: say so, not only a count
            warns = f"{warns} ({unmapped} unmapped column{'s' if unmapped != 1 else ''})"
        return (f"{self.case.scenario}/{self.case.name}: {status}{scores}  {size} errors={errs} warnings={warns}"
                f"{gold}  {sum(self.timings.values()):.1f}s{where}")

    def verdict(self) -> dict[str, Any]:
        """The KG's verdict (:func:`pipeline.validation.verdict.kg_verdict`) as written in ``run.json``."""
        return kg_verdict(self.extra.get("graph_validation")).to_dict()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of ``run.json`` (with ``kg_verdict``: the KG's verdict beside the run's ``status``)."""
        return {"scenario": self.case.scenario, "case": self.case.name, "status": self.status,
                "failed_stage": self.failed_stage, "error": self.error, "error_kind": self.error_kind,
                "manifest": str(self.case.manifest) if self.case.manifest else None,
                "counts": self.counts, "timings_s": {k: round(v, 3) for k, v in self.timings.items()},
                "findings": {"errors": sum(f.severity == "error" for f in self.findings),
                             "warnings": sum(f.severity == "warning" for f in self.findings),
                             "info": sum(f.severity == "info" for f in self.findings)},
                "artifacts": self.artifacts, "provenance": self.provenance, "config": self.config,
                "versions": versions(), "kg_verdict": self.verdict(), **self.extra}


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def versions() -> dict[str, str]:
    """Versions of Python, this package and the libraries that shape the output."""
    out = {"python": platform.python_version(), "pipeline": __version__}
    for pkg in ("morph-kgc", "rdflib", "pyoxigraph", "pyshacl", "owlrl", "litellm", "lxml", "pandas"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def write_json(path: Path, data: Any) -> str:
    """Write ``data`` as indented UTF-8 JSON (``str()`` for what JSON lacks); returns the file name."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path.name


def audit_md(run: CaseRun) -> str:
    """The run's findings as the Markdown table of ``audit.md``; rows marked for review come first."""
    lines = [f"# Audit of {run.case.scenario}/{run.case.name}", "",
             "| severity | stage | file:line | column | value | message | expected | closest valid |",
             "|---|---|---|---|---|---|---|---|"]
    for f in sorted(run.findings, key=lambda f: f.column != "review"):
        where = Path(f.file).name + (f":{f.line}" if f.line else "")
        # what would have been valid (often the fix: "state the format in the Function Output cell ..."),
        # unless the message already says it
        expected = f.expected if f.expected and f.expected not in f.message else ""
        cells = [f.severity, f.stage, where, f.column or "", (f.value or "")[:120], f.message, expected,
                 f.candidate or ""]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def finish(run: CaseRun) -> None:
    """Write ``audit.json``, ``audit.md`` and ``run.json`` of ``run`` into its folder."""
    run.artifacts["audit"] = write_json(run.folder / "audit.json", [f.to_dict() for f in run.findings])
    (run.folder / "audit.md").write_text(audit_md(run), encoding="utf-8")
    write_json(run.folder / "run.json", run.to_dict())
