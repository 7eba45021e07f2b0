"""The stages of a case run: load, map, compile, materialize, check, validate, score.

Each stage is ``stage(run, state, config)``: it reads what earlier stages left in the
:class:`State`, writes its artifacts into the run folder, adds findings and counts to the
:class:`~pipeline.run.case.CaseRun`, and raises :class:`~pipeline.errors.PipelineError` on failure
(:func:`pipeline.run.runner.run_case` runs them in order and keeps the artifacts of a failed run).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable
from typing import Any

from rdflib import Graph
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
from rdflib.namespace import RDF

from pipeline.compile import compile_table, require_triples_maps
from pipeline.compile.coverage import source_coverage
from pipeline.compile.views import pom_references
from pipeline.errors import CompileError, InputError, PipelineError, on_user_file
from pipeline.findings import Finding
from pipeline.validation.loss import coverage_loss
from pipeline.manifest import Case
from pipeline.mappers import MapInput, get_mapper
from pipeline.mappers.repair import repair_findings
from pipeline.materialize.data_errors import DataError, dropped_value, located, logical_sources, policy
from pipeline.materialize.materializer import write_engine_config
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX
from pipeline.ontology import load_ontology
from pipeline.rdffile import NTRIPLES, load_graph
from pipeline.validation.shacl import check_shapes
from pipeline.run.case import CaseRun, RunConfig, write_json
from pipeline.run.evaluate import (GoldKG, case_competency_questions, entity_alignment, gold_kg, graph_scores,
                                   graph_validation, mapping_scores, subject_templates)
from pipeline.scoring.graph.align import Alignment
from pipeline.scoring.graph.cq import cannot_run
from pipeline.scoring.graph.values import term_key
from pipeline.scoring.mapping import check_cn4
from pipeline.scoring.mapping.cn4 import materialize_with_events
from pipeline.scoring.mapping.gold_columns import ignored_gold_columns
from pipeline.sources.engine_copy import copies_folder, json_engine_copies
from pipeline.sources.load import csv_row_findings, require_readable, load_sources
from pipeline.table import read_table, write_table
from pipeline.validation.verdict import NOT_RUN, check_reason

__all__ = ["State", "STAGES", "use_result", "mapping_level", "is_self_replay", "graph_counts", "ntriples_counts",
           "compare_graphs", "gold_diff"]


def graph_counts(graph: Graph) -> dict[str, int]:
    """Triples, distinct subjects, classes (objects of rdf:type) and properties of ``graph``."""
    return {"triples": len(graph), "subjects": len(set(graph.subjects())),
            "classes": len(set(graph.objects(None, RDF.type))), "properties": len(set(graph.predicates()))}


_RDF_TYPE = f"<{RDF.type}>"


def ntriples_counts(lines: Iterable[str]) -> dict[str, int]:
    """:func:`graph_counts` of the distinct N-Triples statements ``lines`` (``<s> <p> <o> .``, one per
    string, as the materializer writes them: each term in one canonical form), read without building a
    graph. A subject or predicate holds no space (N-Triples 1.1: IRIs and blank-node labels have
    none), so a statement splits into subject, predicate and the rest at its first two spaces."""
    triples, subjects, classes, properties = 0, set(), set(), set()
    for line in lines:
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        triples += 1
        subjects.add(parts[0])
        properties.add(parts[1])
        if parts[1] == _RDF_TYPE:
            classes.add(parts[2].rstrip().removesuffix(".").rstrip())
    return {"triples": triples, "subjects": len(subjects), "classes": len(classes), "properties": len(properties)}


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


def gold_diff(produced: Graph, gold: Graph, examples: int = 3, alignment: Alignment | None = None
              ) -> dict[str, dict[str, Any]]:
    """Triples of the gold KG the KG misses and triples it has in excess, per predicate.

    Entities are matched as ``alignment`` pairs them (predicted -> gold entity), so that the list
    says what the graph F1 counted: given :func:`pipeline.run.evaluate.entity_alignment`, a triple of
    ``<venue/V1>`` matches the gold's ``<place/V1>`` when both subject templates encode the key
    ``V1``; without one, IRIs are compared as written. Blank nodes never match; literals are
    compared by value as every graph score compares them
    (:func:`pipeline.scoring.graph.values.term_key`: ``"9.5"`` and ``"9.50"^^xsd:decimal`` agree).
    The example lines are the triples as each graph writes them.

    Returns:
        ``{predicate IRI: {"missing": n, "extra": n, "missing_examples": [nt line], "extra_examples": [...]}}``
        with at most ``examples`` sorted lines each, predicates sorted.
    """
    m = alignment.pairs if alignment is not None else {}
    mine = {(m.get(s, s), p, term_key(m.get(o, o))): (s, p, o) for s, p, o in produced}
    theirs = {(s, p, term_key(o)): (s, p, o) for s, p, o in gold}
    out: dict[str, dict[str, Any]] = {}
    for kind, (these, other) in (("missing", (theirs, mine)), ("extra", (mine, theirs))):
        for s, p, o in sorted(t for k, t in these.items() if k not in other):
            entry = out.setdefault(str(p), {"missing": 0, "extra": 0, "missing_examples": [], "extra_examples": []})
            entry[kind] += 1
            if len(entry[f"{kind}_examples"]) < examples:
                entry[f"{kind}_examples"].append(f"{s.n3()} {p.n3()} {o.n3()} .")
    return dict(sorted(out.items()))


@dataclass
class State:
    """What the stages of one run hand to each other."""

    ontology: Any = None
    sources: list = field(default_factory=list)
    table: Any = None
    raw: Any = None  # an LLM's table before validate-and-repair (None for other mappers)
    results: list = field(default_factory=list)  # the mapper's results, one per run
    compiled: Any = None
    engine: Graph | None = None  # the engine copy of the compiled RML (repaired input paths)
    normalized: Any = None  # the normalisation that made it (its derived sources' names)
    kg: Graph | None = None  # the KG parsed, once a stage needs it (:meth:`graph`)
    kg_file: Path | None = None  # the KG the materialize stage wrote
    events: list = field(default_factory=list)
    validation: dict[str, Any] = field(default_factory=dict)

    def graph(self) -> Graph:
        """The KG as an rdflib graph, parsed from :attr:`kg_file` on first use: a run that stops after
        materialize (``--no-evaluate``) never pays for it (at 1.2M triples, 8x the CPU time and 5x the
        memory of the materialize stage itself)."""
        if self.kg is None:
            self.kg = Graph().parse(self.kg_file, format=NTRIPLES)
        return self.kg


def _load(run: CaseRun, st: State, config: RunConfig) -> None:
    case, folder = run.case, run.folder
    st.ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    for f in case.shapes:  # a shapes file that does not parse is bad input, not a SHACL check left unrun
        run.findings.extend(check_shapes(f, st.ontology, case.shapes))
    run.findings.extend(Finding("ontology", n.split(": ", 1)[0], n.split(": ", 1)[1], severity="warning")
                        for n in st.ontology.notes)
    st.sources = load_sources(case.sources, copies_folder(folder))
    for s in st.sources:
        run.findings.extend(s.findings)
        if s.path != s.source.path:
            run.artifacts[f"input:{s.source.path.name}"] = str(s.path.relative_to(folder))
    require_readable(st.sources)  # bad input: stop before the mapper spends time on it
    if case.gold_table is not None and config.evaluate:  # read at the score stage: a bad header stops the run now
        gold = read_table(case.gold_table)
        if not is_self_replay(case, config):  # a gold column not read leaves a task unscored: said in the audit
            run.findings.extend(ignored_gold_columns(gold)[1])
    if config.evaluate:  # a CQ that cannot run is named now, in the audit; the others are scored later
        for bad in filter(None, map(cannot_run, case_competency_questions(case))):
            run.findings.append(_cq_finding(bad.to_dict()))


def _answer_rows(n: int | None) -> str:
    """A KG's answer size as run.json says it: ``3 row(s)``, or ``query failed`` (``None``)."""
    return "query failed" if n is None else f"{n} row(s)"


def _cq_finding(bad: dict[str, Any]) -> Finding:
    """A CQ that is not run (a :func:`pipeline.scoring.graph.cq.cannot_run` finding, or one that failed on the
    gold KG, as ``Finding.to_dict()``) as an audit finding."""
    return Finding("cq", bad["location"], bad["message"], line=bad.get("line"), column="query",
                   expected="a SPARQL SELECT or ASK query answered on the KG alone" if bad.get("code") == "cq-remote"
                   else "a SPARQL SELECT or ASK query")


def _write_transcripts(run: CaseRun, transcripts: list[dict[str, Any]]) -> None:
    """Every prompt and answer of an LLM mapper as ``llm/run-<i>-part-<j>.json`` (no key is in them)."""
    if not transcripts:
        return
    folder = run.folder / "llm"
    folder.mkdir(exist_ok=True)
    for t in transcripts:
        write_json(folder / f"run-{t['run']}-part-{t['part']}.json", t)
    run.artifacts["llm_transcripts"] = "llm/"


def _map(run: CaseRun, st: State, config: RunConfig) -> None:
    mapper = get_mapper(config.mapper)
    many = getattr(mapper, "map_runs", None)  # mappers that sample several runs (LLM_RUNS)
    inputs = MapInput(run.case, st.ontology, tuple(st.sources))  # what the load stage loaded
    try:
        results = many(inputs, **config.mapper_options) if many else [mapper.map(inputs, **config.mapper_options)]
    except (PipelineError, KeyboardInterrupt) as exc:  # keep what the mapper recorded before it failed or Ctrl-C
        run.provenance = getattr(exc, "provenance", None) or run.provenance
        _write_transcripts(run, getattr(exc, "transcripts", []))
        raise
    st.results = results
    _write_transcripts(run, [t for r in results for t in r.transcripts])
    if len(results) == 1:
        use_result(run, st, results[0])
    else:
        run.provenance = {"runs": len(results), "per_run": [r.provenance for r in results]}


def use_result(run: CaseRun, st: State, result: Any) -> None:
    """Take one mapper result as the run's table: write it (and the table before repair)."""
    st.table = result.table
    run.provenance = result.provenance
    given = Path(st.table.source or "")
    given = given.resolve() if given.is_file() else None  # a table file replayed (its findings cite it)
    if given is None:
        # a mapper's own table: findings cite the written table.md, one row per line after the header
        st.table.source = str(run.folder / "table.md")
        for i, row in enumerate(st.table.rows):
            row.line = i + 3
    for fmt in ("md", "csv", "json"):
        target = run.folder / f"table.{fmt}"
        if target.resolve() != given:  # a table replayed from this very place stays as the user wrote it
            write_table(st.table, target)
        run.artifacts[f"table.{fmt}"] = target.name
    if result.raw_tables:  # an LLM's answer as parsed, before validate-and-repair
        st.raw = result.raw_tables[0]
        for fmt in ("md", "json"):
            run.artifacts[f"table.raw.{fmt}"] = write_table(st.raw, run.folder / f"table.raw.{fmt}").name
    run.findings.extend(Finding("table", st.table.source, n, severity="info") for n in st.table.notes)
    run.findings.extend(Finding("map", str(run.folder / "llm"), w, severity="warning")
                        for w in result.provenance.get("warnings", []))
    run.findings.extend(repair_findings(result.provenance.get("repair") or {}, str(run.folder / "table.raw.md")))
    run.findings.extend(Finding(**f) for f in result.provenance.get("findings", []))  # the mapper's own


def _compile(run: CaseRun, st: State, config: RunConfig) -> None:
    st.compiled = compile_table(st.table, st.ontology, run.case, st.sources)
    earlier = list(run.findings)
    run.findings.extend(st.compiled.findings)
    st.compiled.rml.serialize(run.folder / "mapping.rml.ttl", format="turtle")
    # derived sources (views, array references) go with the run's other copies, never into the
    # working directory
    st.normalized = normalize_rml(st.compiled.rml, base_iri=run.case.base_iri,
                                  where=str(run.folder / "mapping.rml.ttl"), copies=copies_folder(run.folder))
    st.engine = engine = st.normalized.graph
    # JSON the engine reads whole; a finding on a copy of a source (a JSON Lines file's array) names the user's file
    users = {str(s.path.resolve()): str(s.source.path) for s in st.sources if s.path != s.source.path}
    run.findings.extend(dataclasses.replace(f, file=users.get(str(Path(f.file).resolve()), f.file))
                        for f in json_engine_copies(engine, run.folder, copies_folder(run.folder)))
    engine.serialize(run.folder / "mapping.morph-kgc.ttl", format="turtle")
    # Morph-KGC 2.10 cannot run what kgc reads as derived sources (an RML-LV logical view, a reference its
    # JSONPath or XPath cannot evaluate: pipeline.materialize.views.derive) and stops on them: the
    # configuration then runs the engine copy, which reads the records kgc computed
    derived = sorted({Path(str(o)).name for o in engine.objects() if str(o).endswith(DERIVED_SUFFIX)})
    write_engine_config(run.folder / ("mapping.morph-kgc.ttl" if derived else "mapping.rml.ttl"),
                        run.folder / "morph-kgc.ini", run.folder / "morph-kgc.nt",
                        note="mapping.rml.ttl has what Morph-KGC 2.10 does not run (a logical view, or a reference\n"
                             "its JSONPath/XPath cannot evaluate): this runs kgc's engine copy, mapping.morph-kgc.ttl,\n"
                             f"which reads the records kgc computed for them: {', '.join(derived)} in inputs/"
                        if derived else "")
    run.artifacts.update({"rml": "mapping.rml.ttl", "engine_rml": "mapping.morph-kgc.ttl",
                          "morph_kgc_ini": "morph-kgc.ini"})
    plan = st.compiled.plan
    review = len(st.compiled.audit.review)  # marked rows are shown, not compiled: not counted as dropped
    run.counts.update({"rows": len(st.table), "rows_compiled": len(plan.compiled_lines),
                       **({"rows_review": review} if review else {}),
                       "rows_dropped": len(st.table) - len(plan.compiled_lines) - review,
                       "triples_maps": len(plan.triples_maps)})
    run.extra["coverage"] = source_coverage(plan, st.sources)
    for s in st.sources:  # after the coverage pass has read the cells: no extra parse of a mapped CSV
        run.findings.extend(csv_row_findings(s))
    try:
        require_triples_maps(st.compiled, earlier)
    except CompileError as exc:
        if config.mapper == "replay":  # the table is the user's own input: bad input (exit 2), as for `kgc compile`
            raise InputError(str(exc), path=st.table.source) from exc
        raise


def _with_record(f: Finding, engine: Graph, sources: dict[str, str], folder: Path) -> Finding:
    """A finding on triples the guards dropped, with the record of the first of them in the user's file
    (:func:`~pipeline.materialize.data_errors.dropped_value`: ``first: record id='E104' in events.jsonl
    line 5, column 9``) when it is known; any other finding as it is."""
    if f.stage != "materialize" or not f.value or "triple(s) dropped" not in f.message:
        return f
    where = dropped_value(engine, sources, f.value.split(" | ")[0], folder)
    return dataclasses.replace(f, message=f"{f.message} (first: {where})") if where else f


def _materialize(run: CaseRun, st: State, config: RunConfig) -> None:
    folder = run.folder
    rows: dict[str, list[tuple[int, list[str]]]] = {}
    for tm in st.compiled.plan.triples_maps:
        for pom in tm.poms:
            rows.setdefault(str(pom.predicate), []).append((pom.line, pom_references(pom)))
    table_file = st.table.source or str(folder / "table.md")

    def locate(predicate: str, reason: str = "") -> tuple[str, int | None]:
        """The table row that maps ``predicate`` (for findings on dropped triples); of several rows mapping
        it, the one whose references the finding's reason quotes (``for values of 'neg'``)."""
        found = rows.get(predicate)
        if not found:
            return str(folder / "mapping.rml.ttl"), None
        named = [line for line, refs in found if any(f"'{r}'" in reason for r in refs)]
        return table_file, (named or [line for line, _ in found])[0]

    # one engine run gives the KG and, from a named graph per TriplesMap, the CN4 generation events
    try:
        with policy(config.on_data_error):
            mat, st.events = materialize_with_events(st.engine, folder / "cn4", processes=config.processes,
                                                     locate=locate, shown_as=str(folder / "mapping.rml.ttl"))
    except DataError as exc:  # --on-data-error stop: named in the mapping and the data the engine read
        raise located(exc, st.engine, logical_sources(st.engine), folder) from None
    except InputError as exc:  # the engine ran a copy: name the mapping the user has
        raise on_user_file(exc, folder / "mapping.rml.ttl") from exc
    # a finding on a derived source's key names the user's reference instead
    sources = logical_sources(st.engine)
    run.findings.extend(_with_record(st.normalized.in_user_terms(f, folder / "mapping.rml.ttl") if st.normalized
                                     else f, st.engine, sources, folder) for f in mat.findings)
    mat.write(folder / "kg.nt")
    run.artifacts["kg"] = "kg.nt"
    st.kg, st.kg_file = None, folder / "kg.nt"
    with open(st.kg_file, encoding="utf-8") as fh:  # the counts of run.json, without parsing the KG into a graph
        run.counts.update(ntriples_counts(fh))
    run.counts["triples_dropped_by_guards"] = mat.dropped
    if mat.dropped:  # the total's kinds, as the report lists them (pipeline.validation.loss)
        loss = coverage_loss(run.counts, None, run.findings)
        run.counts["dropped_by_kind"] = {"invalid_terms": loss.guard, "join_keys": loss.join,
                                         "function_values": loss.function}
    if config.turtle:
        kg = st.graph()
        for prefix, ns in st.ontology.graph.namespaces():
            kg.bind(prefix, ns)
        kg.serialize(folder / "kg.ttl", format="turtle")
        run.artifacts["kg_turtle"] = "kg.ttl"


def _check(run: CaseRun, st: State, config: RunConfig) -> None:
    case = run.case
    if case.gold_graph is None:
        return
    diff = compare_graphs(st.graph(), load_graph(case.gold_graph, "gold graph"))
    run.extra["expected_graph"] = {"file": str(case.gold_graph), "isomorphic": diff["isomorphic"],
                                   "missing": len(diff["missing"]), "extra": len(diff["extra"])}
    run.artifacts["expected_graph"] = write_json(run.folder / "expected_graph.json", diff)
    if not diff["isomorphic"]:
        run.findings.append(Finding(
            "check", str(case.gold_graph),
            f"the KG and the expected graph disagree: {len(diff['missing'])} triple(s) only in "
            f"the expected graph, {len(diff['extra'])} only in the KG (see expected_graph.json)",
            severity="warning", value=(diff["missing"] or diff["extra"])[0][:300]))


def _validate(run: CaseRun, st: State, config: RunConfig) -> None:
    st.validation = graph_validation(run.folder / "kg.nt", st.graph(), st.ontology, run.case)
    run.extra["graph_validation"] = {k: {"value": v.get("value"), "status": v.get("status"),
                                         "coverage": (v.get("details") or {}).get("coverage"),
                                         **({"caveat": v["details"]["caveat"]} if (v.get("details") or {}).get("caveat")
                                            else {}),
                                         # why a check did not run, or does not apply (HermiT without Java)
                                         **({"reason": check_reason(v)}
                                            if v.get("status") in (*NOT_RUN, "not_applicable") else {})}
                                     for k, v in st.validation.items()}
    run.artifacts["graph_validation"] = write_json(run.folder / "graph_validation.json", st.validation)


def is_self_replay(case: Case, config: RunConfig) -> bool:
    """True when the run replays the case's own gold table (its scores would compare it with itself)."""
    return config.mapper == "replay" and not config.mapper_options.get("table") and case.gold_table is not None


def mapping_level(run: CaseRun, st: State, config: RunConfig, events: list | None = None) -> None:
    """BLINKG task scores of the table (and of the LLM's table before repair) against the gold table.

    Runs in the score stage, and after a later stage failed (compile, materialize ...) so that a
    failed case still has its mapping-level scores (without CN4, which needs the engine).
    """
    case = run.case
    if case.gold_table is None or is_self_replay(case, config) or st.table is None or "mapping_scores" in run.extra:
        return
    gold = read_table(case.gold_table)
    run.extra["mapping_scores"], run.mapping_report = mapping_scores(
        st.table, gold, st.ontology, case, st.sources, run.folder, events)
    # an absent gold column leaves the table's values there unjudged: in the audit with the gold's other findings
    run.findings.extend(f for f in run.mapping_report.gold_findings if f.code == "gold-column-absent")
    run.artifacts["mapping_scores"] = "mapping.mapping-scores.json"
    if st.raw is not None:
        run.extra["mapping_scores_raw"], _ = mapping_scores(st.raw, gold, st.ontology, case, st.sources, run.folder,
                                                            stem="mapping-raw")
        run.artifacts["mapping_scores_raw"] = "mapping-raw.mapping-scores.json"


def _score(run: CaseRun, st: State, config: RunConfig) -> None:
    """Mapping level against the gold table, graph level against the gold KG.

    Replaying the case's own gold table would compare it with itself: its mapping scores and,
    without an independent gold graph, its graph scores are then not applicable (the report
    says so) rather than a meaningless 1.0.
    """
    case = run.case
    self_replay = is_self_replay(case, config)
    events = st.events  # from the materialize stage's one engine run
    run.extra["CN4"] = check_cn4(events).to_dict() if events is not None else \
        {"value": None, "status": "not_run", "reason": "the mapping has graph maps of its own: no TriplesMap tags"}
    mapping_level(run, st, config, events)
    templates = subject_templates(st.compiled.plan)
    gold = GoldKG() if self_replay and case.gold_graph is None else \
        gold_kg(case, st.ontology, st.sources, run.folder, config.processes)
    run.findings.extend(gold.findings)
    if gold.graph is not None and case.gold_graph is None:
        # a gold-table column not read (a misspelt header) is missing from its KG as from its scores
        unread = sorted((run.extra.get("mapping_scores") or {}).get("partial_gold") or {})
        run.extra["gold_kg"] = {"from": "gold table", "rows_dropped": gold.rows_dropped,
                                "triples": len(gold.graph), **({"columns_unread": unread} if unread else {})}
    if self_replay:
        run.extra["self_comparison"] = ("the gold table was replayed: mapping scores and scores against the gold "
                                        "table's KG would compare it with itself and are not applicable")
    if gold.graph is not None and not self_replay:
        # entities matched as the graph F1 matches them, so the list and the score tell one story
        aligned = entity_alignment(st.graph(), gold.graph, templates, gold.templates)
        run.artifacts["gold_diff"] = write_json(run.folder / "gold_diff.json",
                                                gold_diff(st.graph(), gold.graph, alignment=aligned))
    consistent = st.validation.get("CS2-owlrl", {}).get("value")
    scores = graph_scores(st.graph(), gold.graph, st.ontology, case, consistent if isinstance(consistent, bool) else None,
                          templates, gold.templates)
    run.extra["graph_scores"] = {k: v.get("value") for k, v in scores.items()}
    run.artifacts["graph_scores"] = write_json(run.folder / "graph_scores.json", scores)
    per_cq = ((scores.get("PQ3") or {}).get("details") or {}).get("per_cq") or []
    if per_cq:  # what each question gave, scored or not: run.json tells it without the report
        run.extra["competency_questions"] = [
            {"id": q["id"], "status": q.get("status"), "f1": q.get("f1"),
             "answer": q.get("answer") or (None if q.get("status") == "not_run" else _answer_rows(q.get("n_pred")))}
            for q in per_cq]
    for f in scores.get("PQ3", {}).get("findings") or []:  # known only once run: in the audit with the others
        if f.get("code") == "cq-gold-failed":
            run.findings.append(_cq_finding(f))



#: The stages in order; ``validate`` and ``score`` run only with ``RunConfig.evaluate``.
STAGES = (("load", _load), ("map", _map), ("compile", _compile), ("materialize", _materialize),
          ("check", _check), ("validate", _validate), ("score", _score))
