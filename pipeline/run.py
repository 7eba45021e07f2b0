"""Run the pipeline for one case: map -> compile -> materialize -> check, writing every artifact.

Output folder ``<out>/<scenario>/<case>/``:

* ``table.md`` / ``table.csv`` / ``table.json`` - the mapping table as mapped (parsed, for replay);
* ``audit.json`` / ``audit.md`` - findings on the table, the inputs and the output;
* ``inputs/`` - repaired input copies (XML with undeclared namespaces);
* ``mapping.rml.ttl`` - the RML document (absolute source paths); ``morph-kgc.ini`` - a ready
  Morph-KGC configuration for it (``udfs`` entry for our FnO functions; writes ``morph-kgc.nt``);
  ``mapping.morph-kgc.ttl`` - the engine copy the run itself uses;
* ``kg.nt`` - the knowledge graph (N-Triples, sorted);
* ``expected_graph.json`` - comparison with the case's gold KG, when it has one;
* ``run.json`` - status, counts, per-stage timings (seconds), versions, provenance.

A failing stage never loses the artifacts of the stages before it: the error
goes into ``run.json`` (``status: failed``, ``failed_stage``) and the report.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import platform
import shutil
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable

from rdflib import Graph
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
from rdflib.namespace import RDF

from . import __version__
from .compile import compile_table, require_triples_maps
from .coverage import source_coverage
from .input_repair import repair_mapping_sources
from .evaluate import (NOT_RUN, GoldKG, case_competency_questions, gold_kg, graph_scores, graph_validation,
                       mapping_scores, subject_templates)
from .errors import CompileError, InputError, PipelineError, on_user_file
from .findings import Finding
from .manifest import Case
from .mappers import get_mapper
from .materialize import engine_mapping, write_engine_config
from .ontology import load_ontology
from .rdffile import load_graph
from .sources import csv_row_findings, load_source, require_readable
from .table import read_table, write_table

__all__ = ["RunConfig", "CaseRun", "run_case", "versions", "graph_counts", "compare_graphs", "gold_diff"]

LOGGER = logging.getLogger(__name__)


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
    """

    out_dir: Path = Path("out")
    mapper: str = "replay"
    mapper_options: dict[str, Any] = field(default_factory=dict)
    processes: int = 1
    turtle: bool = False
    evaluate: bool = True


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
        """One console line: scenario/case, status, triples, rows, findings, seconds."""
        c = self.counts
        own = [f for f in self.findings if f.stage != "gold"]  # the gold table's own defects are listed apart
        errs = sum(f.severity == "error" for f in own)
        warns = sum(f.severity == "warning" for f in own)
        status = self.status if self.status == "ok" else f"FAILED at {self.failed_stage}: {self.error}"
        checks = self.extra.get("graph_validation") or {}
        failing = [k for k, v in checks.items() if v.get("value") is False]
        not_run = [k for k, v in checks.items() if v.get("status") in NOT_RUN]
        if self.status == "ok" and (failing or not_run):  # the run worked; the KG it wrote is not valid
            status += " (KG " + "; ".join(([f"fails {', '.join(failing)}"] if failing else [])
                                          + ([f"not validated: {', '.join(not_run)} did not run"] if not_run else [])) + ")"
        iso = self.extra.get("expected_graph", {}).get("isomorphic")
        gold = "" if iso is None else f"  expected-graph: {'isomorphic' if iso else 'differs'}"
        lost = self.extra.get("gold_kg", {}).get("rows_dropped")
        gold += f"  gold-table-rows-dropped={lost}" if lost else ""
        mf1 = self.extra.get("mapping_scores", {}).get("f1")
        gf1 = self.extra.get("graph_scores", {}).get("SA2-prop-exact")
        scores = "" if mf1 is None and gf1 is None else \
            f"  mapping-F1={'n/a' if mf1 is None else f'{mf1:.3f}'} graph-F1={'n/a' if gf1 is None else f'{gf1:.3f}'}"
        where = f"  see {self.folder / 'audit.md'}" if errs or self.status != "ok" else ""
        ms = self.extra.get("mapping_scores") or {}
        if "runs" in c:  # LLM_RUNS > 1: the per-run counts are in runs/<i>/run.json
            spread = f" [{ms['f1_min']:.3f}-{ms['f1_max']:.3f}]" if ms.get("f1_min") is not None else ""
            size = f"runs={c['runs_ok']}/{c['runs']} ok{spread}"
        else:
            size = f"triples={c.get('triples', 0)} rows={c.get('rows_compiled', 0)}/{c.get('rows', 0)}"
            if c.get("triples_dropped_by_guards"):  # lost data says so on the console, not only in audit.md
                size += f" triples-dropped={c['triples_dropped_by_guards']}"
        return (f"{self.case.scenario}/{self.case.name}: {status}{scores}  {size} errors={errs} warnings={warns}"
                f"{gold}  {sum(self.timings.values()):.1f}s{where}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of ``run.json``."""
        return {"scenario": self.case.scenario, "case": self.case.name, "status": self.status,
                "failed_stage": self.failed_stage, "error": self.error, "error_kind": self.error_kind,
                "manifest": str(self.case.manifest) if self.case.manifest else None,
                "counts": self.counts, "timings_s": {k: round(v, 3) for k, v in self.timings.items()},
                "findings": {"errors": sum(f.severity == "error" for f in self.findings),
                             "warnings": sum(f.severity == "warning" for f in self.findings),
                             "info": sum(f.severity == "info" for f in self.findings)},
                "artifacts": self.artifacts, "provenance": self.provenance, "config": self.config,
                "versions": versions(), **self.extra}


def versions() -> dict[str, str]:
    """Versions of Python, this package and the libraries that shape the output."""
    out = {"python": platform.python_version(), "pipeline": __version__}
    for pkg in ("morph-kgc", "rdflib", "pyoxigraph", "pyshacl", "owlrl", "litellm", "lxml", "pandas"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def graph_counts(graph: Graph) -> dict[str, int]:
    """Triples, distinct subjects, classes (objects of rdf:type) and properties of ``graph``."""
    return {"triples": len(graph), "subjects": len(set(graph.subjects())),
            "classes": len(set(graph.objects(None, RDF.type))), "properties": len(set(graph.predicates()))}


def compare_graphs(produced: Graph, expected: Graph) -> dict[str, Any]:
    """Isomorphism check and readable diff of two graphs.

    Returns:
        ``{"isomorphic": bool, "missing": [nt lines in expected only], "extra": [nt lines in produced only]}``
        (lines sorted).
    """
    iso = isomorphic(produced, expected)
    _, only_produced, only_expected = graph_diff(to_isomorphic(produced), to_isomorphic(expected))

    def lines(g: Graph) -> list[str]:
        return sorted(f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in g)

    return {"isomorphic": iso, "missing": lines(only_expected), "extra": lines(only_produced)}


def gold_diff(produced: Graph, gold: Graph, examples: int = 3) -> dict[str, dict[str, Any]]:
    """Triples of the gold KG the KG misses and triples it has in excess, per predicate.

    Triples are compared as written (no entity alignment; blank nodes never match), which is
    what a reader checks by hand; SA2/SA4 align entities and give the scores.

    Returns:
        ``{predicate IRI: {"missing": n, "extra": n, "missing_examples": [nt line], "extra_examples": [...]}}``
        with at most ``examples`` sorted lines each, predicates sorted.
    """
    mine, theirs = set(produced), set(gold)
    out: dict[str, dict[str, Any]] = {}
    for kind, triples in (("missing", theirs - mine), ("extra", mine - theirs)):
        for s, p, o in sorted(triples):
            entry = out.setdefault(str(p), {"missing": 0, "extra": 0, "missing_examples": [], "extra_examples": []})
            entry[kind] += 1
            if len(entry[f"{kind}_examples"]) < examples:
                entry[f"{kind}_examples"].append(f"{s.n3()} {p.n3()} {o.n3()} .")
    return dict(sorted(out.items()))


@dataclass
class _State:
    """What the stages of one run hand to each other."""

    ontology: Any = None
    sources: list = field(default_factory=list)
    table: Any = None
    raw: Any = None  # an LLM's table before validate-and-repair (None for other mappers)
    results: list = field(default_factory=list)  # the mapper's results, one per run
    compiled: Any = None
    engine: Graph | None = None  # the engine copy of the compiled RML (repaired input paths)
    kg: Graph | None = None
    events: list = field(default_factory=list)
    validation: dict[str, Any] = field(default_factory=dict)


def _write_json(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path.name


def _audit_md(run: CaseRun) -> str:
    lines = [f"# Audit of {run.case.scenario}/{run.case.name}", "",
             "| severity | stage | file:line | column | value | message | closest valid |", "|---|---|---|---|---|---|---|"]
    for f in run.findings:
        where = Path(f.file).name + (f":{f.line}" if f.line else "")
        cells = [f.severity, f.stage, where, f.column or "", (f.value or "")[:120], f.message, f.candidate or ""]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _load(run: CaseRun, st: _State, config: RunConfig) -> None:
    case, folder = run.case, run.folder
    st.ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    for f in case.shapes:  # a shapes file that does not parse is bad input, not a SHACL check left unrun
        load_graph(f, "SHACL shapes")
    run.findings.extend(Finding("ontology", n.split(": ", 1)[0], n.split(": ", 1)[1], severity="warning")
                        for n in st.ontology.notes)
    st.sources = [load_source(s, folder / "inputs") for s in case.sources]
    for s in st.sources:
        run.findings.extend(s.findings)
        if s.path != s.source.path:
            run.artifacts[f"input:{s.source.path.name}"] = str(s.path.relative_to(folder))
    require_readable(st.sources)  # bad input: stop before the mapper spends time on it
    if case.gold_table is not None and config.evaluate:  # read at the score stage: a bad header stops the run now
        read_table(case.gold_table)
    if config.evaluate:  # a CQ that does not parse is named now, in the audit; the others are scored later
        from .scoring.graph.cq import syntax_error

        for bad in filter(None, map(syntax_error, case_competency_questions(case))):
            run.findings.append(Finding("cq", bad.location, bad.message, line=bad.line, column="query",
                                        expected="a SPARQL SELECT or ASK query"))


def _write_transcripts(run: CaseRun, transcripts: list[dict[str, Any]]) -> None:
    """Every prompt and answer of an LLM mapper as ``llm/run-<i>-part-<j>.json`` (no key is in them)."""
    if not transcripts:
        return
    folder = run.folder / "llm"
    folder.mkdir(exist_ok=True)
    for t in transcripts:
        _write_json(folder / f"run-{t['run']}-part-{t['part']}.json", t)
    run.artifacts["llm_transcripts"] = "llm/"


def _map(run: CaseRun, st: _State, config: RunConfig) -> None:
    mapper = get_mapper(config.mapper)
    many = getattr(mapper, "map_runs", None)  # mappers that sample several runs (LLM_RUNS)
    try:
        results = many(run.case, workdir=run.folder / "inputs", **config.mapper_options) if many else \
            [mapper.map(run.case, **config.mapper_options)]
    except PipelineError as exc:  # keep what the mapper recorded before it failed
        run.provenance = getattr(exc, "provenance", None) or run.provenance
        _write_transcripts(run, getattr(exc, "transcripts", []))
        raise
    st.results = results
    _write_transcripts(run, [t for r in results for t in r.transcripts])
    if len(results) == 1:
        _use_result(run, st, results[0])
    else:
        run.provenance = {"runs": len(results), "per_run": [r.provenance for r in results]}


def _use_result(run: CaseRun, st: _State, result: Any) -> None:
    """Take one mapper result as the run's table: write it (and the table before repair)."""
    st.table = result.table
    run.provenance = result.provenance
    if not Path(st.table.source or "").is_file():
        # a mapper's own table: findings cite the written table.md, one row per line after the header
        st.table.source = str(run.folder / "table.md")
        for i, row in enumerate(st.table.rows):
            row.line = i + 3
    for fmt in ("md", "csv", "json"):
        run.artifacts[f"table.{fmt}"] = write_table(st.table, run.folder / f"table.{fmt}").name
    if result.raw_tables:  # an LLM's answer as parsed, before validate-and-repair
        st.raw = result.raw_tables[0]
        for fmt in ("md", "json"):
            run.artifacts[f"table.raw.{fmt}"] = write_table(st.raw, run.folder / f"table.raw.{fmt}").name
    run.findings.extend(Finding("table", st.table.source, n, severity="info") for n in st.table.notes)
    run.findings.extend(Finding("map", str(run.folder / "llm"), w, severity="warning")
                        for w in result.provenance.get("warnings", []))
    repair = result.provenance.get("repair") or {}
    run.findings.extend(Finding("repair", str(run.folder / "table.raw.md"), r["reason"], line=r.get("line"),
                                column=r.get("column"), value=r.get("value"), severity="warning")
                        for r in repair.get("rejected", []))
    run.findings.extend(Finding(**f) for f in result.provenance.get("findings", []))  # the mapper's own


def _compile(run: CaseRun, st: _State, config: RunConfig) -> None:
    st.compiled = compile_table(st.table, st.ontology, run.case, st.sources)
    earlier = list(run.findings)
    run.findings.extend(st.compiled.findings)
    st.compiled.rml.serialize(run.folder / "mapping.rml.ttl", format="turtle")
    st.engine = engine = engine_mapping(st.compiled.rml, base_iri=run.case.base_iri,
                                              where=str(run.folder / "mapping.rml.ttl"))
    run.findings.extend(repair_mapping_sources(engine, run.folder, run.folder / "inputs"))  # JSON the engine reads whole
    engine.serialize(run.folder / "mapping.morph-kgc.ttl", format="turtle")
    write_engine_config(run.folder / "mapping.rml.ttl", run.folder / "morph-kgc.ini", run.folder / "morph-kgc.nt")
    run.artifacts.update({"rml": "mapping.rml.ttl", "engine_rml": "mapping.morph-kgc.ttl",
                          "morph_kgc_ini": "morph-kgc.ini"})
    plan = st.compiled.plan
    run.counts.update({"rows": len(st.table), "rows_compiled": len(plan.compiled_lines),
                       "rows_dropped": len(st.table) - len(plan.compiled_lines), "triples_maps": len(plan.triples_maps)})
    run.extra["coverage"] = source_coverage(plan, st.sources)
    for s in st.sources:  # after the coverage pass has read the cells: no extra parse of a mapped CSV
        run.findings.extend(csv_row_findings(s))
    try:
        require_triples_maps(st.compiled, earlier)
    except CompileError as exc:
        if config.mapper == "replay":  # the table is the user's own input: bad input (exit 2), as for `kgc compile`
            raise InputError(str(exc), path=st.table.source) from exc
        raise


def _materialize(run: CaseRun, st: _State, config: RunConfig) -> None:
    from .scoring.mapping.cn4 import materialize_with_events

    folder = run.folder
    rows = {str(pom.predicate): pom.line for tm in st.compiled.plan.triples_maps for pom in tm.poms}
    table_file = st.table.source or str(folder / "table.md")

    def locate(predicate: str) -> tuple[str, int | None]:
        """The table row that maps ``predicate`` (for findings on dropped triples)."""
        return (table_file, rows[predicate]) if predicate in rows else (str(folder / "mapping.rml.ttl"), None)

    # one engine run gives the KG and, from a named graph per TriplesMap, the CN4 generation events
    try:
        mat, st.events = materialize_with_events(st.engine, folder / "cn4", processes=config.processes,
                                                 locate=locate)
    except InputError as exc:  # the engine ran a copy: name the mapping the user has
        raise on_user_file(exc, folder / "mapping.rml.ttl") from exc
    run.findings.extend(mat.findings)
    mat.write(folder / "kg.nt")
    run.artifacts["kg"] = "kg.nt"
    st.kg = Graph().parse(folder / "kg.nt", format="nt")
    run.counts.update(graph_counts(st.kg))
    run.counts["triples_dropped_by_guards"] = mat.dropped
    if config.turtle:
        for prefix, ns in st.ontology.graph.namespaces():
            st.kg.bind(prefix, ns)
        st.kg.serialize(folder / "kg.ttl", format="turtle")
        run.artifacts["kg_turtle"] = "kg.ttl"


def _check(run: CaseRun, st: _State, config: RunConfig) -> None:
    case = run.case
    if case.gold_graph is None:
        return
    diff = compare_graphs(st.kg, load_graph(case.gold_graph, "gold graph"))
    run.extra["expected_graph"] = {"file": str(case.gold_graph), "isomorphic": diff["isomorphic"],
                                   "missing": len(diff["missing"]), "extra": len(diff["extra"])}
    run.artifacts["expected_graph"] = _write_json(run.folder / "expected_graph.json", diff)
    if not diff["isomorphic"]:
        run.findings.append(Finding(
            "check", str(case.gold_graph),
            f"the KG and the expected graph disagree: {len(diff['missing'])} triple(s) only in "
            f"the expected graph, {len(diff['extra'])} only in the KG (see expected_graph.json)",
            severity="warning", value=(diff["missing"] or diff["extra"])[0][:300]))


def _validate(run: CaseRun, st: _State, config: RunConfig) -> None:
    st.validation = graph_validation(run.folder / "kg.nt", st.kg, st.ontology, run.case)
    run.extra["graph_validation"] = {k: {"value": v.get("value"), "status": v.get("status"),
                                         "coverage": (v.get("details") or {}).get("coverage")}
                                     for k, v in st.validation.items()}
    run.artifacts["graph_validation"] = _write_json(run.folder / "graph_validation.json", st.validation)


def _self_replay(case: Case, config: RunConfig) -> bool:
    return config.mapper == "replay" and not config.mapper_options.get("table") and case.gold_table is not None


def _mapping_level(run: CaseRun, st: _State, config: RunConfig, events: list | None = None) -> None:
    """BLINKG task scores of the table (and of the LLM's table before repair) against the gold table.

    Runs in the score stage, and after a later stage failed (compile, materialize ...) so that a
    failed case still has its mapping-level scores (without CN4, which needs the engine).
    """
    case = run.case
    if case.gold_table is None or _self_replay(case, config) or st.table is None or "mapping_scores" in run.extra:
        return
    gold = read_table(case.gold_table)
    run.extra["mapping_scores"], run.mapping_report = mapping_scores(
        st.table, gold, st.ontology, case, st.sources, run.folder, events)
    run.artifacts["mapping_scores"] = "mapping.mapping-scores.json"
    if st.raw is not None:
        run.extra["mapping_scores_raw"], _ = mapping_scores(st.raw, gold, st.ontology, case, st.sources, run.folder,
                                                            stem="mapping-raw")
        run.artifacts["mapping_scores_raw"] = "mapping-raw.mapping-scores.json"


def _score(run: CaseRun, st: _State, config: RunConfig) -> None:
    """Mapping level against the gold table, graph level against the gold KG.

    Replaying the case's own gold table would compare it with itself: its mapping scores and,
    without an independent gold graph, its graph scores are then not applicable (the report
    says so) rather than a meaningless 1.0.
    """
    from .scoring.mapping import check_cn4

    case = run.case
    self_replay = _self_replay(case, config)
    events = st.events  # from the materialize stage's one engine run
    run.extra["CN4"] = check_cn4(events).to_dict() if events is not None else \
        {"value": None, "status": "not_run", "reason": "the mapping has graph maps of its own: no TriplesMap tags"}
    _mapping_level(run, st, config, events)
    templates = subject_templates(st.compiled.plan)
    gold = GoldKG() if self_replay and case.gold_graph is None else \
        gold_kg(case, st.ontology, st.sources, run.folder, config.processes)
    run.findings.extend(gold.findings)
    if gold.graph is not None and case.gold_graph is None:
        run.extra["gold_kg"] = {"from": "gold table", "rows_dropped": gold.rows_dropped,
                                "triples": len(gold.graph)}
    if self_replay:
        run.extra["self_comparison"] = ("the gold table was replayed: mapping scores and scores against the gold "
                                        "table's KG would compare it with itself and are not applicable")
    if gold.graph is not None and not self_replay:
        run.artifacts["gold_diff"] = _write_json(run.folder / "gold_diff.json", gold_diff(st.kg, gold.graph))
    consistent = st.validation.get("CS2-owlrl", {}).get("value")
    scores = graph_scores(st.kg, gold.graph, st.ontology, case, consistent if isinstance(consistent, bool) else None,
                          templates, gold.templates)
    run.extra["graph_scores"] = {k: v.get("value") for k, v in scores.items()}
    run.artifacts["graph_scores"] = _write_json(run.folder / "graph_scores.json", scores)



#: The stages in order; ``validate`` and ``score`` run only with ``RunConfig.evaluate``.
STAGES = (("load", _load), ("map", _map), ("compile", _compile), ("materialize", _materialize),
          ("check", _check), ("validate", _validate), ("score", _score))


def _stages(run: CaseRun, state: _State, config: RunConfig, stages, progress) -> bool:
    """Run ``stages`` in order until one fails; returns ``True`` when all succeeded."""
    for name, stage in stages:
        if name in ("validate", "score") and not config.evaluate:
            continue
        if progress is not None:
            progress(name)
        t0 = time.perf_counter()
        n_findings = len(run.findings)
        try:
            stage(run, state, config)
        except PipelineError as exc:
            run.status, run.failed_stage, run.error = "failed", name, str(exc)
            run.error_kind = "input" if isinstance(exc, InputError) else "pipeline"
            if not any(f.severity == "error" for f in run.findings[n_findings:]):
                # e.g. an unparsable ontology: the audit must say why the case stopped, not be empty
                where = getattr(exc, "path", None)
                msg = str(exc).removeprefix(f"{where}:{exc.line}: " if getattr(exc, "line", None) else f"{where}: ")
                run.findings.append(Finding(name, Path(where).name if where else "", msg,
                                            line=getattr(exc, "line", None)))
            LOGGER.error("%s/%s failed at %s: %s", run.case.scenario, run.case.name, name, exc)
        except Exception as exc:  # keep artifacts and report, whatever broke
            run.status, run.failed_stage, run.error = "failed", name, f"{type(exc).__name__}: {exc}"
            run.error_kind = "internal"
            LOGGER.exception("%s/%s failed at %s", run.case.scenario, run.case.name, name)
        finally:
            run.timings[name] = run.timings.get(name, 0.0) + time.perf_counter() - t0
        if run.status != "ok":
            return False
    return True


def _after_failure(run: CaseRun, state: _State, config: RunConfig) -> None:
    """A case that failed after the map stage still gets its mapping-level scores."""
    if run.status == "ok" or not config.evaluate or state.table is None:
        return
    try:
        _mapping_level(run, state, config)
    except Exception:  # the scores are a bonus of a failed run; the failure is what is reported
        LOGGER.exception("%s/%s: mapping-level scores after the failure could not be computed",
                         run.case.scenario, run.case.name)


def _finish(run: CaseRun) -> None:
    run.artifacts["audit"] = _write_json(run.folder / "audit.json", [f.to_dict() for f in run.findings])
    (run.folder / "audit.md").write_text(_audit_md(run), encoding="utf-8")
    _write_json(run.folder / "run.json", run.to_dict())


def _values_over_runs(dicts: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Per key: the mean of the numeric values over runs (``[min, max]`` apart); booleans: ``False``
    when any run is ``False``, ``True`` when all are ``True``, else ``None``."""
    means: dict[str, Any] = {}
    ranges: dict[str, list[float]] = {}
    for key in dict.fromkeys(k for d in dicts for k in d):
        vals = [d.get(key) for d in dicts]
        if any(isinstance(v, bool) for v in vals):
            means[key] = False if False in vals else True if all(v is True for v in vals) else None
            continue
        nums = [float(v) for v in vals if isinstance(v, (int, float))]
        means[key] = sum(nums) / len(nums) if nums else None
        if nums:
            ranges[key] = [min(nums), max(nums)]
    return means, ranges


def _run_many(run: CaseRun, state: _State, config: RunConfig, progress) -> None:
    """LLM_RUNS > 1: compile, materialize, validate and score each run in ``runs/<i>/``; the case's
    scores are the macro average over runs (BLINKG), with min and max."""
    children: list[CaseRun] = []
    for i, result in enumerate(state.results):
        child = CaseRun(run.case, run.folder / "runs" / str(i), config=run.config)
        child.folder.mkdir(parents=True, exist_ok=True)
        sub = _State(ontology=state.ontology, sources=state.sources)
        _use_result(child, sub, result)
        _stages(child, sub, config, STAGES[2:], progress)
        _after_failure(child, sub, config)
        _finish(child)
        children.append(child)
        state.results[i] = (result, sub)
    run.findings.extend(dataclasses.replace(f, message=f"run {i}: {f.message}")
                        for i, c in enumerate(children) for f in c.findings)
    for i, c in enumerate(children):
        for name, seconds in c.timings.items():
            run.timings[name] = run.timings.get(name, 0.0) + seconds
    failed = [(i, c) for i, c in enumerate(children) if c.status != "ok"]
    if failed:
        i, c = failed[0]
        run.status, run.failed_stage, run.error, run.error_kind = "failed", f"{c.failed_stage} (run {i})", \
            c.error, c.error_kind
    run.counts = {"runs": len(children), "runs_ok": len(children) - len(failed)}
    run.extra["runs"] = [{"run": i, "folder": f"runs/{i}", "status": c.status, "failed_stage": c.failed_stage,
                          "error": c.error, "counts": c.counts,
                          "mapping_f1": (c.extra.get("mapping_scores") or {}).get("f1"),
                          "mapping_f1_raw": (c.extra.get("mapping_scores_raw") or {}).get("f1"),
                          "graph_scores": c.extra.get("graph_scores", {})} for i, c in enumerate(children)]
    run.extra["graph_scores"], run.extra["graph_scores_range"] = _values_over_runs(
        [c.extra.get("graph_scores", {}) for c in children if c.extra.get("graph_scores")])
    validation, _ = _values_over_runs([{k: v.get("value") for k, v in c.extra.get("graph_validation", {}).items()}
                                       for c in children if c.extra.get("graph_validation")])
    if validation:
        run.extra["graph_validation"] = {k: {"value": v, "status": "over runs"} for k, v in validation.items()}
    case = run.case
    if config.evaluate and case.gold_table is not None and not _self_replay(case, config):
        gold = read_table(case.gold_table)
        tables = [sub.table for _, sub in state.results]
        run.extra["mapping_scores"], run.mapping_report = mapping_scores(
            tables, gold, state.ontology, case, state.sources, run.folder)
        raws = [sub.raw for _, sub in state.results if sub.raw is not None]
        if len(raws) == len(tables):
            run.extra["mapping_scores_raw"], _ = mapping_scores(raws, gold, state.ontology, case, state.sources,
                                                                run.folder, stem="mapping-raw")


def run_case(case: Case, config: RunConfig = RunConfig(),
             progress: Callable[[str], None] | None = None) -> CaseRun:
    """Run every stage for ``case`` and write the artifacts.

    With a mapper that returns several runs (the LLM mapper with ``LLM_RUNS=n``), the stages after
    ``map`` run once per run in ``runs/<i>/``, and the case folder gets the scores macro-averaged
    over the runs (``mapping_scores`` with ``f1_min``/``f1_max``; ``graph_scores`` means with
    ``graph_scores_range``) and the per-run summary under ``runs`` in ``run.json``.

    Args:
        case: the scenario case.
        config: run settings.
        progress: called with each stage's name as it starts (the CLI shows it on its progress bar).
    Returns:
        The :class:`CaseRun`; a failing stage sets ``status="failed"`` (and ``failed_stage``)
        instead of raising, and the artifacts of the stages before it stay on disk.
    """
    folder = config.out_dir / case.scenario / case.name
    if folder.is_dir():  # artifacts of an earlier run must not pass for this one's
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    run = CaseRun(case, folder, config={"mapper": config.mapper, "mapper_options": config.mapper_options,
                                        "processes": config.processes, "out_dir": str(config.out_dir),
                                        "evaluate": config.evaluate})
    state = _State()
    if _stages(run, state, config, STAGES[:2], progress):
        if len(state.results) > 1:
            _run_many(run, state, config, progress)
        else:
            _stages(run, state, config, STAGES[2:], progress)
            _after_failure(run, state, config)
    _finish(run)
    return run
