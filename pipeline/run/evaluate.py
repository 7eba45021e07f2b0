"""Validate and score stage of a run: the mapping layer and the graph layer side by side.

* Mapping layer (:mod:`pipeline.scoring.mapping`): BLINKG task precision/recall/F1 of
  the mapped table against the gold table (post-processed setting), plus SV1/CS1/CM1.
* Graph layer (:mod:`pipeline.validation`, :mod:`pipeline.scoring.graph`): SV2 strict
  syntax, CS2 consistency (OWL 2 RL with owlrl; OWL 2 DL with HermiT where Java is available),
  SHACL (shapes derived from the ontology plus ``shapes/<scenario>.ttl`` and the case's own),
  each against the part of the ontology the KG's terms reach and bounded in time; and
  SA2-SA4, CN/CM and competency questions against the gold KG.

Gold KG: the case's ``gold.graph`` when it has one (BLINKG scenario 1), else the KG
materialized from the gold table by this pipeline (scenarios 2 and 3), so the rows
the audit rejected are missing from it too (they are listed in the gold run's audit).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import shutil
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Sequence

from rdflib import Graph

from pipeline import __version__
from pipeline.cache import root as cache_root
from pipeline.compile import compile_table
from pipeline.errors import InputError, on_user_file
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import Ontology
from pipeline.rdffile import NTRIPLES, RemoteContextError, load_graph, ntriples_copy
from pipeline.scoring.gold_graph import gold_vocabulary_findings
from pipeline.scoring.graph import (Alignment, align_entities, keys_from_local_names, keys_from_templates,
                                    load_competency_questions, score_graph)
from pipeline.scoring.mapping import score_case, write_case_json
from pipeline.sources.engine_copy import copies_folder
from pipeline.sources.load import SourceData
from pipeline.table import MappingTable, read_table
from pipeline.validation.axioms import AxiomCheck
from pipeline.validation.consistency import hermit_consistency, hermit_missing, start_owlrl
from pipeline.validation.result import Result
from pipeline.validation.sample import FULL_LIMIT, SubjectSample, count_triples
from pipeline.validation.module import kg_signature, ontology_module, unresolved_imports
from pipeline.validation.shacl import start_shacl
from pipeline.validation.verdict import NOT_RUN, kg_verdict
from pipeline.validation.syntax import check_ntriples
from pipeline.validation.vocabulary import NAME as VOCABULARY, VocabularyCheck

__all__ = ["SHAPES_DIR", "CQ_DIR", "CHECK_TIMEOUT_S", "mapping_scores", "subject_templates", "GoldKG", "gold_kg", "NOT_RUN", "skipped", "graph_validation", "graph_scores", "entity_alignment", "case_competency_questions", "validation_passed"]

LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[2]
#: Hand-written SHACL shapes per scenario (``<scenario>.ttl``).
SHAPES_DIR = _ROOT / "shapes"
#: Competency questions per scenario (``<scenario>/<case or common>/*.rq``).
CQ_DIR = _ROOT / "data" / "competency_questions"
#: Wall-clock seconds each of owlrl, HermiT and SHACL may run before it is reported ``timeout``.
CHECK_TIMEOUT_S = 120.0


def _scenario_key(case: Case) -> str:
    return case.scenario.split("-")[0]


def mapping_scores(table: MappingTable | Sequence[MappingTable], gold: MappingTable, ontology: Ontology, case: Case,
                   sources: list[SourceData], folder: Path,
                   events: list[tuple[str, set[str]]] | None = None,
                   stem: str = "mapping") -> tuple[dict[str, Any], Any]:
    """BLINKG task scores of ``table`` against ``gold`` (written to ``<stem>.mapping-scores.json``).

    Args:
        table: one table, or one table per run of the same prompt (BLINKG's macro average
            over runs: each task's P/R/F1 is the mean over runs).
        stem: name of the written file (``mapping``; ``mapping-raw`` for an LLM's table before repair).
    Returns:
        ``(summary, report)``: ``summary`` is ``{"f1", "precision", "recall"}`` (unweighted mean
        over the applicable tasks, post-processed setting), ``"tasks": {task: F1 or None}``,
        ``"task_prf": {setting: {task: {"precision", "recall", "f1"}}}`` and the
        check headlines (SV1, CS1, CM1, and CN4 when ``events`` - see
        :func:`pipeline.scoring.mapping.cn4.materialize_with_events` - are given); with several runs also
        ``"runs": n`` and ``"f1_min"`` / ``"f1_max"`` (of the per-run mean task F1);
        ``report`` is the full :class:`pipeline.scoring.mapping.CaseReport`.
    """
    tables = [table] if isinstance(table, MappingTable) else list(table)
    refs = {s.source.path.name: set(s.references) for s in sources}
    report = score_case(tables, gold, ontology, case=case.name, scenario=case.scenario, available_references=refs,
                        generation_events=[events] if events is not None and len(tables) == 1 else None)
    write_case_json(report, folder, stem)
    macro = report.macro.get("post-processed", {})

    def mean(values: list) -> float | None:
        vals = [v for v in values if v is not None]
        return sum(vals) / len(vals) if vals else None

    summary = {"f1": mean([m.f1 for m in macro.values()]), "precision": mean([m.precision for m in macro.values()]),
               "recall": mean([m.recall for m in macro.values()]),
               "tasks": {t: m.f1 for t, m in macro.items()},
               "task_prf": {setting: {t: {"precision": m.precision, "recall": m.recall, "f1": m.f1}
                                      for t, m in tasks.items()} for setting, tasks in report.macro.items()},
               **report.check_summary}
    if report.unscored_tasks:  # a gold column not read: the mean is over fewer tasks than the gold meant
        summary["partial_gold"] = dict(report.unscored_tasks)
    if len(tables) > 1:
        per_run = [mean([t.f1 for t in run.tasks.values()]) for run in report.runs.get("post-processed", [])]
        per_run = [v for v in per_run if v is not None]
        summary.update({"runs": len(tables), "f1_min": min(per_run, default=None), "f1_max": max(per_run, default=None)})
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
        findings: the gold table's own audit and compile findings (rows it loses), or the gold
            graph's undeclared terms (:mod:`pipeline.scoring.gold_graph`), re-labelled
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
    if case.gold_graph is not None:
        graph = load_graph(case.gold_graph, "gold graph")
        if len(graph) == 0:  # every score against it would be n/a or 0: a failed export, not a reference
            raise InputError("gold graph: it holds no triple (expected: the reference KG the KG is scored against)",
                             path=case.gold_graph)
        return GoldKG(graph, None, gold_vocabulary_findings(graph, ontology, case.gold_graph))
    if case.gold_table is None:
        return GoldKG(None, [])
    gold_dir = folder / "gold"
    gold_dir.mkdir(parents=True, exist_ok=True)
    cache = _gold_cache_dir(case)
    if cache is not None and (cache / "gold.json").is_file():
        meta = json.loads((cache / "gold.json").read_text(encoding="utf-8"))
        for name in ("kg.nt", "mapping.morph-kgc.ttl"):
            shutil.copyfile(cache / name, gold_dir / name)
        here = str(gold_dir)
        findings = [Finding(**{**f, "file": f["file"].replace(_GOLD_DIR, here)}) for f in meta["findings"]]
        return GoldKG(Graph().parse(gold_dir / "kg.nt", format=NTRIPLES), meta["templates"], findings,
                      meta["rows_dropped"])
    table = read_table(case.gold_table)
    compiled = compile_table(table, ontology, case, sources)
    normalize_rml(compiled.rml, base_iri=case.base_iri, copies=copies_folder(gold_dir)).graph.serialize(
        gold_dir / "mapping.morph-kgc.ttl", format="turtle")
    try:
        mat = materialize(gold_dir / "mapping.morph-kgc.ttl", processes=processes)
    except InputError as exc:  # the engine ran our copy of the gold table's mapping: name the table
        raise on_user_file(exc, case.gold_table) from exc
    mat.write(gold_dir / "kg.nt")
    findings = [dataclasses.replace(f, stage="gold", message="gold table: " + f.message)
                for f in [*compiled.findings, *mat.findings] if f.severity in ("error", "warning")]
    gold = GoldKG(Graph().parse(gold_dir / "kg.nt", format=NTRIPLES), subject_templates(compiled.plan), findings,
                  len(table) - len(compiled.plan.compiled_lines))
    if cache is not None:
        try:
            cache.mkdir(parents=True, exist_ok=True)
            for name in ("kg.nt", "mapping.morph-kgc.ttl"):
                (cache / name).write_bytes((gold_dir / name).read_bytes())
            stored = [{**f.to_dict(), "file": f.file.replace(str(gold_dir), _GOLD_DIR)} for f in findings]
            (cache / "gold.json").write_text(json.dumps({"templates": gold.templates, "rows_dropped": gold.rows_dropped,
                                                         "findings": stored}), encoding="utf-8")
        except OSError as exc:  # a cache that cannot be written is no cache, never an error
            LOGGER.debug("gold KG not cached: %s", exc)
    return gold


_GOLD_DIR = "<gold>"  # stands for the run's gold/ folder in cached findings


def _gold_cache_dir(case: Case) -> Path | None:
    """Cache folder of a case's gold KG, keyed by the bytes of its gold table, sources, ontologies
    and SKOS files, by the pipeline's code files (size, mtime) and by the pipeline and engine
    versions: ``gold/<hash>`` under the one cache root (:func:`pipeline.cache.root`; ``None`` when
    disk caching is off). The gold KG depends on nothing else, so a warm run reuses it instead
    of compiling and running the engine again."""
    top = cache_root()
    if top is None:
        return None
    h = hashlib.sha256(f"{__version__}|{version('morph-kgc')}|{case.base_iri}|{sorted(case.prefixes.items())}".encode())
    for code in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):  # the pipeline's own code, as installed or edited
        st = code.stat()
        h.update(f"{code}|{st.st_size}|{st.st_mtime_ns}".encode())
    try:
        for path in [case.gold_table, *(s.path for s in case.sources), *case.ontologies, *case.skos]:
            h.update(str(path).encode() + b"\0" + Path(path).read_bytes())
    except OSError:
        return None
    return top / "gold" / h.hexdigest()[:32]


def skipped(name: str, reason: str) -> dict[str, Any]:
    """A ``not_run`` result (``Result.to_dict()`` shape) for a check that could not run on this KG
    (e.g. the KG does not parse). It never counts as a pass (see :func:`validation_passed`)."""
    return {"name": name, "value": None, "status": "not_run", "findings": [],
            "details": {"reason": reason, "coverage": {"mode": "not run", "reason": reason}}}


def graph_validation(kg_path: Path, kg: Graph | None, ontology: Ontology, case: Case,
                     full_limit: int | None = None, work: Path | None = None,
                     timeout_s: float = CHECK_TIMEOUT_S) -> dict[str, Any]:
    """SV2, CS2 (owlrl; HermiT too where Java is available) and SHACL results of a written KG.

    Nothing is skipped for size: SV2 always reads the whole file, first (its verdict gates the
    other checks); up to ``full_limit`` triples (default :data:`pipeline.validation.sample.FULL_LIMIT`)
    CS2 and SHACL run on the whole KG, above it on a stratified subject sample drawn from the
    triples SV2's pass reads (:class:`pipeline.validation.sample.SubjectSample`: the file is parsed
    once), and each result's ``details["coverage"]`` says which and how much it covered. When the KG
    does not parse (SV2 fatal), CS2 and SHACL are ``not_run`` with the reason.

    CS2 and SHACL validate the KG against the module of the ontology its terms reach
    (:func:`pipeline.validation.module.ontology_module`; sizes in ``details["ontology_module"]``),
    so their cost follows what the KG uses, not the ontology's size; each runs at most
    ``timeout_s`` seconds (wall clock), and one that does not finish is ``timeout`` with the reason,
    never a pass and never a hang. Imports none of the ontology files holds are a warning of
    each CS2 result (``details["unresolved_imports"]``): the checks run without them.

    A KG in another syntax (Turtle, N-Quads, TriG, RDF/XML, JSON-LD, N3; by extension) is read by
    :func:`pipeline.rdffile.ntriples_copy` into ``<work>/<name>.nt`` and every check runs on that
    copy: syntax, IRIs and language tags are checked as it is read, and SV2's lexical checks
    (literal forms per datatype, discouraged IRIs) cite lines of the copy; ``SV2.details`` say so
    (``read_as``, ``checked_copy``, ``note``). A syntax error is SV2 fatal with the parser's line.

    Args:
        kg_path: the KG file (N-Triples, or another RDF syntax by extension).
        kg: the same KG parsed (``None``: parsed here when needed).
        full_limit: triples up to which the heavy checks see the whole KG (``None``: the default).
        work: folder for the N-Triples copy of a KG in another syntax (default: the KG's folder).
        timeout_s: wall-clock limit in seconds of each of owlrl, HermiT and SHACL.
    Above ``min(full_limit, FULL_LIMIT)`` triples, CS2-axioms (:class:`pipeline.validation.axioms.AxiomCheck`:
    functional and inverse-functional properties, disjoint classes, datatype ranges, maximum
    cardinalities) reads every triple in the same pass of the parser, so the common violations are
    found whatever the sample holds and whether or not the reasoners finish.

    Returns:
        ``{"SV2", "CS2-axioms" (above the limit), "CS2-owlrl", "CS2-hermit", "SHACL", "vocabulary"
        (:mod:`pipeline.validation.vocabulary`, on every triple)}`` ->
        ``Result.to_dict()`` (``CS2-hermit`` not applicable, with the reason, where Java or HermiT's
        jar is missing).
    """
    limit = FULL_LIMIT if full_limit is None else full_limit
    no_hermit = hermit_missing()  # Java is optional: then HermiT is listed as not applicable, with why
    names = ["CS2-owlrl", "CS2-hermit", "SHACL"]
    read_as: dict[str, Any] = {}
    if Path(kg_path).suffix.lower() != ".nt":
        copy = (work or Path(kg_path).parent) / f"{Path(kg_path).name}.nt"
        try:
            syntax = ntriples_copy(kg_path, copy)
        except RemoteContextError as exc:  # unreadable offline, which says nothing against its syntax: not run
            reason = f"{Path(kg_path).name}: {str(exc).split(': KG: ', 1)[-1]}"
            unread = Result("SV2", None, status="not_run", details={
                "reason": reason, "remote_contexts": exc.urls, "coverage": {"mode": "not run", "reason": reason}})
            return {"SV2": unread.to_dict(), **{n: skipped(n, "the KG could not be read (see SV2)")
                                                for n in [*names, VOCABULARY]}}
        except InputError as exc:  # the KG does not parse: SV2 fails (exit 1), as for N-Triples
            message = str(exc).split(": ", 1)[-1] if exc.path else str(exc)
            fatal = Result("SV2", False, findings=[Finding(severity="fatal", message=message, location=str(kg_path),
                                                           line=exc.line, code="unparsable")],
                           details={"N_warn": 0, "N_err": 0, "N_fatal": 1, "n_lines": None, "n_triples": 0,
                                    "strict_valid": False, "strict": True, "coverage": {"mode": "full"}})
            return {"SV2": fatal.to_dict(), **{n: skipped(n, "the KG does not parse (see SV2)")
                                               for n in [*names, VOCABULARY]}}
        read_as = {"read_as": syntax,
                   "note": f"{Path(kg_path).name} was read as {syntax} " + (
                       "by rdflib, which checks no IRI or language tag: SV2 checks them" if syntax in ("N3", "JSON-LD")
                       else "by pyoxigraph, which checks its syntax, IRIs and language tags: SV2 adds the literal "
                            "lexical forms") + f"; SV2 positions are those of each offending term's first occurrence "
                            f"in {Path(kg_path).name}"}
        source, kg_path, kg = Path(kg_path), copy, None
    result: dict[str, Any] = {}

    def gate(sv2: Result) -> dict[str, Any] | None:  # records SV2; the final result when the KG does not parse
        result["SV2"] = {**sv2.to_dict(), "details": {**sv2.details, **read_as, "coverage": {"mode": "full"}}}
        if read_as:  # the copy is the checker's, not the user's: positions in the file the user gave
            try:  # read once for all the findings (up to Result.to_dict's cap)
                lines = source.read_text(encoding="utf-8").splitlines() if result["SV2"]["findings"] else []
            except (OSError, UnicodeDecodeError):
                lines = []
            result["SV2"]["findings"] = [source_position(f, source, lines) for f in result["SV2"]["findings"]]
        if sv2.status != "ok" or sv2.details.get("N_fatal"):
            reason = "the KG does not parse (see SV2)" if sv2.status == "ok" else "the KG file could not be read"
            return {**result, **{n: skipped(n, reason) for n in [*names, VOCABULARY]}}
        return None

    # above the limit, the sample is drawn from the triples SV2's one pass of the parser reads
    n_lines = count_triples(kg_path)
    sample = SubjectSample(n_lines) if n_lines > limit else None
    # where the reasoners see a sample, or may not finish (--full above FULL_LIMIT), the axioms that
    # need no reasoner are checked on every triple in the same pass (pipeline.validation.axioms)
    axioms = AxiomCheck(ontology.graph) if n_lines > min(limit, FULL_LIMIT) else None
    vocabulary = VocabularyCheck(ontology)  # terms no reasoner or shape sees: read on every triple of the pass
    readers = [r.add for r in (sample, axioms, vocabulary) if r is not None]
    if axioms is not None:
        names.insert(0, "CS2-axioms")
    stop = gate(check_ntriples(kg_path, on_triple=_both(readers)))
    if stop is not None:
        return stop
    terms = vocabulary.result(source if read_as else kg_path).to_dict()
    if axioms is not None:
        result["CS2-axioms"] = axioms.result().to_dict()
        names.remove("CS2-axioms")
    n_triples = result["SV2"]["details"]["n_triples"]
    try:
        if n_triples <= limit:
            data = kg if kg is not None else _parse_nt(Path(kg_path))
            coverage: dict[str, Any] = {"mode": "full", "triples": [len(data), len(data)]}
        else:
            data, coverage = sample.result(n_triples, kg_path)
    except Exception:  # noqa: BLE001 - rdflib rejects a term SV2 reports as an error (parser-specific types)
        reason = "rdflib cannot read the KG (an illegal term; see SV2)"
        return {**result, **{n: skipped(n, reason) for n in names}, VOCABULARY: terms}
    shapes = [*case.shapes]
    scenario_shapes = SHAPES_DIR / f"{_scenario_key(case)}.ttl"
    if scenario_shapes.exists():
        shapes.append(scenario_shapes)
    # the reasoners and SHACL see the part of the ontology the KG's terms reach, not all of it
    scope = ontology_module(ontology.graph, kg_signature(data))
    missing = unresolved_imports(ontology.graph)
    # owlrl and SHACL run in child processes, each bounded by timeout_s, while HermiT runs
    finish_owlrl = start_owlrl(data, scope.graph, timeout_s=timeout_s)
    finish_shacl = start_shacl(data, scope.graph, shapes, timeout_s=timeout_s)
    done = {"CS2-hermit": hermit_consistency(data, scope.graph, timeout_s=timeout_s) if no_hermit is None else
            Result("CS2-hermit", None, status="not_applicable", details={"reason": no_hermit},
                   findings=[Finding(severity="info", message=no_hermit, code="not-applicable")])}
    done["SHACL"] = finish_shacl()
    done["CS2-owlrl"] = finish_owlrl()
    for name in names:  # Java and owlready2's HermiT jar; otherwise only the OWL 2 RL check runs
        r = done[name].to_dict()
        r["details"] = {**r["details"], "coverage": coverage, "ontology_module": scope.details()}
        if missing and name.startswith("CS2"):
            r["details"]["unresolved_imports"] = missing
            r["findings"].append(_imports_finding(missing))
            r["n_findings"] += 1
        result[name] = r
    # results naming a node (HermiT's: the triples its clash was traced to; owlrl's: the individual or literal)
    for name in ("SHACL", "CS2-hermit", "CS2-owlrl"):
        result[name]["findings"] = shacl_positions(result[name]["findings"], source if read_as else Path(kg_path))
    result[VOCABULARY] = terms  # last: the other checks keep their places in the listings
    return result


def _both(readers: list[Any]) -> Any:
    """One ``on_triple`` callback feeding every reader (``None`` when there is none)."""
    if not readers:
        return None
    if len(readers) == 1:
        return readers[0]

    def feed(s: Any, p: Any, o: Any) -> None:
        for read in readers:
            read(s, p, o)
    return feed


#: Above this size a KG file is not read again to locate SHACL results (they keep their focus node).
LOCATE_MAX_BYTES = 50_000_000


def shacl_positions(findings: list[dict[str, Any]], source: Path) -> list[dict[str, Any]]:
    """SHACL results (``Finding.to_dict()``, ``location`` the focus node) located in the KG file the
    user gave: ``line``/``column`` of the offending value on a line that also names the focus node
    (N-Triples), else of the value's first occurrence, else of the focus node's (``location`` stays
    the focus node). Results without a position, and every result when ``source`` is above
    :data:`LOCATE_MAX_BYTES` or unreadable, are returned as they are.

    Args:
        findings: SHACL's findings. source: the KG file the user gave.
    Returns:
        A new list, the same length and order.
    """
    def located(f: dict[str, Any]) -> bool:  # an error whose focus node a line can name
        return f.get("severity") in ("fatal", "error") and str(f.get("location") or "").startswith(
            ("http", "urn", "file", "_:", '"'))  # a literal focus node (sh:node on values) in N-Triples form

    try:
        if not any(map(located, findings)) or source.stat().st_size > LOCATE_MAX_BYTES:
            return findings
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return findings
    out = []
    for f in findings:
        at = _position(str(f["location"]), str(f.get("term") or ""), source, lines) if located(f) else None
        if at is None:
            out.append(f)
            continue
        out.append({**f, "line": at[0], "column": at[1]})
    return out


def _position(focus: str, term: str, source: Path, lines: list[str]) -> tuple[int, int] | None:
    """``(line, column)`` of a SHACL result in ``lines``: its value (``term``, N-Triples form; may be
    empty) on a line naming the focus node, else the value's first occurrence, else the focus
    node's; each lookup only when the one before found nothing; ``None`` when none does."""
    named = focus if focus.startswith(("_:", '"')) else f"<{focus}>"  # a blank node by the file's label; a literal
    if term:
        key = _value_key(term)
        for n, line in enumerate(lines, 1):  # the value on the focus node's own line (N-Triples, one-line Turtle)
            if named in line and key in line:
                return n, line.find(key) + 1
        value = source_position({"term": term, "line": 1}, source, lines)
        if value.get("line"):
            return value["line"], value["column"]
    node = source_position({"term": named, "line": 1}, source, lines)
    return (node["line"], node["column"]) if node.get("line") else None


def _value_key(term: str) -> str:
    """The text by which a value (N-Triples form) is found in a line: a literal's quoted lexical form."""
    m = re.match(r'^("(?:[^"\\]|\\.)*")', term)
    return m.group(1) if m else term


def source_position(finding: dict[str, Any], source: Path, lines: list[str]) -> dict[str, Any]:
    """``finding`` (``Finding.to_dict()``) of SV2 on the N-Triples copy of ``source``, located in
    ``source``: the line and column of the first occurrence of its term there (a literal by its
    quoted lexical form, an IRI written whole or by the local name of a prefixed name, a blank node
    by its label ``_:x``, which the checks keep from the file); without
    one, no line (a line of the copy, which is deleted, would mislead).

    Args:
        finding: the finding; its ``term`` in N-Triples form. source: the KG file the user gave.
        lines: the text lines of ``source`` (empty when it cannot be read: no position then).
    Returns:
        A new dict: ``location`` the file, ``line``/``column`` 1-based or ``None``.
    """
    term, out = str(finding.get("term") or ""), {**finding, "location": str(source), "line": None, "column": None}
    if not finding.get("line") or not term:
        return out
    keys = []
    if m := re.match(r'^"((?:[^"\\]|\\.)*)"', term):
        keys = [f'"{m.group(1)}"', f"'{m.group(1)}'"]
    elif m := re.match(r"^<([^>]*)>", term):
        iri = m.group(1)
        keys = [f"<{iri}>"] + ([":" + local] if (local := re.split(r"[#/]", iri)[-1]) else [])
    elif re.match(r"^_:[^\s]+$", term):
        keys = [term]
    for n, line in enumerate(lines, 1):
        for key in keys:
            at = line.find(key)
            if at >= 0 and (not key.startswith((":", "_:"))
                            or not re.match(r"[\w.-]", line[at + len(key):at + len(key) + 1])):
                if key.startswith(":"):  # the prefixed name starts at its prefix
                    at = next(i for i in range(at, -2, -1) if i < 0 or not re.match(r"[\w.-]", line[i])) + 1
                return {**out, "line": n, "column": at + 1}
    return out


def _imports_finding(missing: list[str]) -> dict[str, Any]:
    """A warning naming the imported ontologies none of the files given holds (``Finding.to_dict()``)."""
    names = ", ".join(f"<{m}>" for m in missing)
    return Finding(severity="warning", code="unresolved-import", location=names,
                   message=f"owl:imports of {len(missing)} ontolog{'y' if len(missing) == 1 else 'ies'} not among the "
                           f"ontology files given, reasoned without: {names} (nothing is downloaded; add the files "
                           "to the manifest's ontologies to include them)").to_dict()


class _FileLabels(dict):
    """An rdflib ``bnode_context`` that maps each blank node label of the file to itself: the
    checks' findings name ``_:x`` as the file does, the same on every run, instead of a fresh id
    (RDF 1.1 Concepts 3.4: labels are local to the document, so its own is the one a user finds)."""

    def get(self, key, default=None):
        return key


def _parse_nt(path: Path) -> Graph:
    """An N-Triples file as rdflib reads it, after a UTF-8 byte-order mark, which SV2 accepts
    and rdflib's N-Triples parser rejects ("Invalid line"; the checks would not run); blank nodes
    keep the file's labels (:class:`_FileLabels`)."""
    with path.open("rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    if bom:
        return Graph().parse(data=path.read_text(encoding="utf-8-sig"), format=NTRIPLES, bnode_context=_FileLabels())
    return Graph().parse(path, format=NTRIPLES, bnode_context=_FileLabels())


def validation_passed(validation: dict[str, Any]) -> bool:
    """True only when every check of :func:`graph_validation` ran and none says the KG fails
    (:func:`pipeline.validation.verdict.kg_verdict` is ``valid``), or when no check ran at all
    (``kgc run --no-evaluate``: nothing was asked).

    Rule: a check with value ``False`` fails the KG; a check that did not run or finish
    (status ``not_run``, ``timeout``, ``failed``) leaves the KG *not validated*, which is not
    a pass either; ``not_applicable`` (the measure does not apply) does not count. A check
    run on a sample counts with its value; its coverage is in ``details["coverage"]``.
    """
    return not validation or kg_verdict(validation).state == "valid"


def case_competency_questions(case: Case) -> list:
    """The case's competency questions: the manifest's ``competency_questions`` and the packaged
    ``common`` and per-case folders of its scenario (:class:`~pipeline.scoring.graph.CompetencyQuestion`)."""
    cq_paths = [*case.competency_questions]
    folder = CQ_DIR / _scenario_key(case)
    for sub in ("common", case.name):
        if (folder / sub).is_dir():
            cq_paths.append(folder / sub)
    return load_competency_questions(cq_paths, case=case.name) if cq_paths else []


def graph_scores(kg: Graph, gold_kg: Graph | None, ontology: Ontology, case: Case,
                 consistent: bool | None, pred_templates: list[str] = (),
                 gold_templates: list[str] | None = ()) -> dict[str, Any]:
    """SA2-SA4, CN/CM and PQ scores of ``kg`` against ``gold_kg`` (``None``: not applicable).

    Entities are aligned by IRI first, then by the key values their subject templates
    encode (``pred_templates`` / ``gold_templates``); against a gold graph read from a file,
    whose templates are unknown (``gold_templates=None``), by class and last IRI segment on both sides
    (:func:`pipeline.scoring.graph.align.keys_from_local_names`).
    """
    cqs = case_competency_questions(case)
    pred_keys, gold_keys = _entity_keys(kg, gold_kg, pred_templates, gold_templates)
    results = score_graph(kg, gold_kg, ontology.graph, cqs=cqs, consistent=consistent,
                          pred_keys=pred_keys, gold_keys=gold_keys)
    return {name: r.to_dict() for name, r in results.items()}


def _entity_keys(kg: Graph, gold_kg: Graph | None, pred_templates: Sequence[str],
                 gold_templates: Sequence[str] | None) -> tuple[dict | None, dict | None]:
    if gold_kg is not None and gold_templates is None:
        # a gold graph from a file: its IRI scheme is unknown, so both sides key by class and last IRI segment
        return keys_from_local_names(kg), keys_from_local_names(gold_kg)
    pred_keys = keys_from_templates(kg, pred_templates) if pred_templates else None
    gold_keys = keys_from_templates(gold_kg, gold_templates) if gold_templates and gold_kg is not None else None
    return pred_keys, gold_keys


def entity_alignment(kg: Graph, gold_kg: Graph, pred_templates: Sequence[str] = (),
                     gold_templates: Sequence[str] | None = ()) -> Alignment:
    """The entity alignment :func:`graph_scores` gives the IRI/key measures (graph F1, ``SA2-prop-exact``):
    by IRI, then by the key values the subject templates encode (by class and last IRI segment
    against a gold graph from a file, ``gold_templates=None``); arguments as for :func:`graph_scores`."""
    return align_entities(kg, gold_kg, *_entity_keys(kg, gold_kg, pred_templates, gold_templates))
