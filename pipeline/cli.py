"""Command line: ``kgc <command>``; every command calls the same functions as the Python API.

Exit codes: 0 success; 1 a run failed (``run``), triples were dropped as invalid
(``materialize``) or the KG fails validation (``validate``); 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from tqdm import tqdm

from . import __version__
from .blinkg import blinkg_dir, write_manifests
from .compile import RML, compile_table, require_triples_maps
from .errors import CompileError, InputError, PipelineError, on_user_file
from .findings import Finding
from .input_repair import repair_mapping_sources
from .manifest import load_manifest
from .mappers import DEFAULT_MAPPER, get_mapper, known_mappers
from .ontology import load_ontology
from .rdffile import load_graph
from .synth.vocab import LEVELS as SYNTH_LEVELS
from .source_checks import check_logical_sources
from .sources import csv_row_findings, load_source, require_readable
from .table import read_table, write_table

__all__ = ["main", "build_parser"]

LOGGER = logging.getLogger("pipeline")


def _manifests(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.rglob("*.yaml")))
        elif p.exists():
            out.append(p)
        else:
            raise InputError("manifest or folder not found", path=p)
    if not out:
        raise InputError(f"no manifest (*.yaml) found in {', '.join(paths)}")
    return out


def _output_file(path: str, what: str) -> Path:
    """``path`` as an output file; a folder there is bad input, found before any work (else the
    work is lost at the end, and ``kgc materialize`` wrote its engine copy beside the folder)."""
    if Path(path).is_dir():
        raise InputError(f"{what} is a folder; expected a file name", path=path)
    return Path(path)


def _cmd_data(args: argparse.Namespace) -> int:
    root = blinkg_dir(args.blinkg)
    paths, notes = write_manifests(root, Path(args.out), tuple(args.formats))
    for n in notes:
        print(f"note: {n}")
    print(f"{len(paths)} manifests written under {args.out} (benchmark: {root})")
    return 0


def _run_exit_code(runs: list) -> int:
    """2 when a case failed on bad input, 1 when a case failed otherwise, the guards dropped
    triples of its KG (as ``kgc materialize`` exits 1 then: data was lost), or its KG fails
    validation (SV2, CS2, SHACL) or was not validated (a check did not run or finish; see
    :func:`pipeline.evaluate.validation_passed`), else 0."""
    from .evaluate import validation_passed

    if any(r.status != "ok" and r.error_kind == "input" for r in runs):
        return 2
    if any(r.status != "ok" for r in runs):
        return 1
    if any(r.counts.get("triples_dropped_by_guards") for r in runs):
        return 1
    invalid = [r for r in runs if not validation_passed(r.extra.get("graph_validation", {}))]
    return 1 if invalid else 0


def _require_llm_settings(mapper: str) -> None:
    """The LLM mapper's settings read before any case runs: no ``LLM_MODEL`` or a numeric
    ``LLM_*`` variable that does not parse is bad input (exit 2), not a failed case."""
    if mapper != "llm":
        return
    from .mappers.llm_client import LLMError, LLMSettings

    try:
        LLMSettings.from_env()
    except LLMError as exc:
        raise InputError(str(exc)) from exc


def _report_meta(config) -> dict:
    """Header facts of a report: mapper, model and settings (LLM), date, versions."""
    from datetime import datetime, timezone

    from .run import versions

    meta = {"mapper": config.mapper, "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "settings": {k: v for k, v in config.mapper_options.items()}, "versions": versions()}
    if config.mapper == "llm":
        from .mappers.llm_client import LLMSettings

        settings = LLMSettings.from_env().public()
        meta["model"] = settings.pop("model")
        meta["settings"].update({k: v for k, v in settings.items() if v is not None and k != "cache_dir"})
    return meta


def _cmd_run(args: argparse.Namespace) -> int:
    manifests = _manifests(args.manifests)
    cases = [load_manifest(m) for m in manifests]  # validate all before running any
    seen: dict[tuple[str, str], Path] = {}
    for case in cases:
        key = (case.scenario, case.name)
        if key in seen:
            raise InputError(f"case {case.scenario}/{case.name} is also defined by {seen[key]}; both would write "
                             f"{Path(args.out) / case.scenario / case.name} (give one a other name or scenario)",
                             path=case.manifest, key="name")
        seen[key] = case.manifest
    # the run stage, reports and scores load here only: `kgc compile`/`kgc materialize` start without them
    from .report import case_entry, write_report
    from .run import RunConfig, run_case
    from .scoring.mapping import write_scenario_markdown

    options = {"table": args.table} if args.table else {}
    get_mapper(args.mapper)  # an unknown mapper is bad input: fail before running anything
    _require_llm_settings(args.mapper)
    if args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    config = RunConfig(out_dir=Path(args.out), mapper=args.mapper, mapper_options=options, processes=args.processes,
                       turtle=args.turtle, evaluate=args.evaluate)
    runs = []
    mapping_reports: dict[str, list] = {}
    bar = tqdm(cases, desc="cases", unit="case", disable=args.quiet, file=sys.stderr)
    for case in bar:
        result = run_case(case, config, progress=lambda stage, c=case: bar.set_postfix_str(f"{c.name}: {stage}"))
        runs.append(result)
        tqdm.write(result.summary())
        if result.mapping_report is not None:
            mapping_reports.setdefault(case.scenario, []).append(result.mapping_report)
    for scenario in (dict.fromkeys(r.case.scenario for r in runs) if args.evaluate else ()):
        out = Path(args.out) / scenario
        entries = [case_entry(r.folder, out) for r in runs if r.case.scenario == scenario]
        paths = write_report(entries, out, stem="report", meta=_report_meta(config))
        print(f"\n{scenario}: mapping level (BLINKG task F1 vs gold table) next to graph level "
              f"(SA2 property F1 vs gold KG); n/a = no independent gold. Report: {paths['html']}")
        print(paths["console"])
        if mapping_reports.get(scenario):
            md = write_scenario_markdown(mapping_reports[scenario], out, scenario)
            print(f"mapping-level tasks x P/R/F1 (raw and post-processed): {md}")
    return _run_exit_code(runs)


def _case_context(manifest: str, work: Path, with_sources: bool = True):
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    for f in case.shapes:  # as `run` does: unparsable shapes are bad input
        load_graph(f, "SHACL shapes")
    if not with_sources:  # validating a KG reads no source
        return case, ontology, []
    sources = [load_source(s, work / "inputs") for s in case.sources]
    require_readable(sources)  # as `run` does: an unreadable source is bad input, not a score of nothing
    return case, ontology, sources


def _cmd_validate(args: argparse.Namespace) -> int:
    from .evaluate import graph_validation, validation_passed

    _output_file(args.out, "--out")
    Path(args.out).resolve().parent.mkdir(parents=True, exist_ok=True)
    case, ontology, _ = _case_context(args.manifest, Path(args.out).resolve().parent, with_sources=False)
    if not Path(args.kg).is_file():
        raise InputError("KG file not found", path=Path(args.kg).absolute())
    # SV2 reads the file first; an unparsable KG leaves the reasoners and SHACL not run (never a pass)
    from .rdffile import rdf_format

    if rdf_format(args.kg) is None:  # before the checks: an extension no parser is chosen by
        raise InputError(f"unknown RDF syntax for extension {Path(args.kg).suffix or '(none)'!r}; expected .nt, "
                         ".ttl, .nq, .trig, .rdf/.owl/.xml, .jsonld/.json or .n3", path=args.kg)
    result = graph_validation(Path(args.kg), None, ontology, case, full_limit=sys.maxsize if args.full else None,
                              work=Path(args.out).resolve().parent)
    if (result["SV2"].get("details") or {}).get("note"):
        print(f"note: {result['SV2']['details']['note']}")
    if (result["SV2"].get("details") or {}).get("n_triples") == 0:  # valid, but rarely what was meant
        print(f"warning: {args.kg} holds no triple: every check passes vacuously", file=sys.stderr)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    for name, r in result.items():
        cov = (r.get("details") or {}).get("coverage") or {}
        scope = "" if cov.get("mode") in (None, "full") else \
            f", {cov['mode']}" + (f": {cov['triples'][0]:,} of {cov['triples'][1]:,} triples" if "triples" in cov else "")
        print(f"{name}: {r.get('value')} ({r.get('status')}{scope}, {len(r.get('findings', []))} finding(s))")
        first = next((f for f in r.get("findings") or [] if f.get("severity") in ("fatal", "error")), None)
        if r.get("value") is False and first:  # say what is wrong, not only that something is
            checked = (r.get("details") or {}).get("checked_copy") or args.kg  # lines of the copy a syntax maps to
            where = f"{checked}:{first['line']}:{first.get('column') or 1}: " if first.get("line") else ""
            if first.get("code") == "unparsable":  # the parser's error on the file as given (not the copy)
                where = f"{args.kg}:{first['line']}: " if first.get("line") else f"{args.kg}: "
            print(f"  first: {where}{first.get('message')}")
        elif r.get("status") == "not_run":
            print(f"  not run: {(r.get('details') or {}).get('reason', 'no reason recorded')}")
    print(f"diagnostics written to {args.out}")
    return 0 if validation_passed(result) else 1


def _cmd_score(args: argparse.Namespace) -> int:
    from .evaluate import gold_kg, graph_scores, mapping_scores

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    case, ontology, sources = _case_context(args.manifest, out)
    for given, name in ((args.table, "--table"), (args.kg, "--kg")):  # before the gold is looked at
        if given and not Path(given).is_file():
            raise InputError(f"{name}: file not found", path=given)
    if case.gold_table is None and case.gold_graph is None:
        raise InputError("the manifest names no gold table or gold graph to score against", path=case.manifest,
                         key="gold")
    if args.table:
        if case.gold_table is None:
            print("mapping level: n/a (no gold table)")
        else:
            summary, _ = mapping_scores(read_table(args.table), read_table(case.gold_table), ontology, case, sources,
                                        out)
            f1 = summary["f1"]
            print(f"mapping level: mean task F1 = {'n/a' if f1 is None else f'{f1:.3f}'} "
                  f"(details: {out / 'mapping.mapping-scores.json'})")
    if args.kg:
        gold = gold_kg(case, ontology, sources, out)
        for f in gold.findings:
            print(f, file=sys.stderr)
        scores = graph_scores(load_graph(args.kg, "--kg"), gold.graph, ontology, case, None,
                              gold_templates=gold.templates)
        (out / "graph_scores.json").write_text(json.dumps(scores, indent=2, default=str) + "\n", encoding="utf-8")
        for name, r in scores.items():
            value = r.get("value")
            if value is None:  # say why, as the report does, instead of Python's "None"
                why = next((f.get("message") for f in r.get("findings") or []), None) or \
                    (r.get("details") or {}).get("reason") or r.get("status") or "not computed"
                print(f"{name}: n/a ({why})")
            else:
                part = (r.get("details") or {}).get("not_run")  # CQs that did not parse: the score covers the rest
                note = f" (partial, not run: {r['details']['reason']})" if part else ""
                print(f"{name}: {value:.3f}{note}" if isinstance(value, float) else f"{name}: {value}{note}")
        for f in scores.get("PQ3", {}).get("findings") or []:
            if f.get("code") == "cq-syntax":
                print(f"error: {f['location']}:{f['line'] or ''}:{f['column'] or ''}: {f['message']}".replace("::", ":"),
                      file=sys.stderr)
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from .synth import generate

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError("the scenario folder is a file; expected a folder", path=args.out)
    old = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if old and not args.force:
        # files of an earlier scenario would stay next to the new one (another manifest, other data)
        raise InputError(f"the scenario folder is not empty ({len(old)} entries, e.g. {', '.join(old[:3])}); "
                         "expected an empty or new folder (--force writes into it anyway)", path=args.out)
    try:
        sc = generate(args.seed, args.level, args.out)
    except OSError as exc:
        raise InputError(f"cannot write the scenario: {exc.strerror or exc}", path=args.out) from exc
    print(f"{sc.domain} scenario at level {sc.level} written to {sc.folder} (manifest {sc.manifest.name}; "
          + ", ".join(f"{k}={v}" for k, v in sc.formats.items()) + ")")
    if not args.check:
        return 0
    import tempfile

    from .synth.check import check_gold

    with tempfile.TemporaryDirectory(prefix="kgc-synth-check-") as tmp:  # keeps the scenario folder as generated
        res = check_gold(sc.manifest, tmp)
    if res.agree:
        print(f"gold check: the gold table compiles to the gold KG ({res.n_gold} triples)")
        return 0
    print(f"gold check: the compiled gold table differs from the gold KG: {len(res.missing)} of {res.n_gold} "
          f"triple(s) missing, {len(res.extra)} extra; reported by the pipeline: {len(res.findings)} finding(s)")
    for line in [*res.findings[:10], *res.missing[:5], *res.extra[:5]]:
        print(f"  {line}")
    return 1


def _cmd_map(args: argparse.Namespace) -> int:
    _output_file(args.output, "output")
    if Path(args.output).suffix.lower() not in (".md", ".csv", ".json"):
        # checked before the mapper runs, not after minutes of work
        raise InputError(f"unknown mapping-table format {Path(args.output).suffix!r}; expected .md, .csv or .json",
                         path=args.output)
    case = load_manifest(args.manifest)
    options = {"table": args.table} if args.table else {}
    mapper = get_mapper(args.mapper)
    _require_llm_settings(args.mapper)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)  # before the work, not after it
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:  # as `run`'s load stage: bad sources stop here
        sources = [load_source(s, Path(tmp)) for s in case.sources]
        require_readable(sources)
    result = mapper.map(case, **options)
    write_table(result.table, args.output)
    for f in result.provenance.get("findings", []):  # what the mapper left out, and why
        print(Finding(**f), file=sys.stderr)
    for s in sources:  # records the mapper saw cut or padded to the header's width
        for f in csv_row_findings(s):
            print(f, file=sys.stderr)
    print(f"{len(result.table)} rows written to {args.output}")
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    from .compile.yarrrml import read_yarrrml, to_yarrrml

    _output_file(args.output, "output")
    yarrrml_out = None if args.yarrrml is None else \
        Path(args.yarrrml) if args.yarrrml else Path(args.output).with_suffix(".yarrrml.yml")
    if Path(args.table).suffix.lower() in (".yml", ".yaml"):
        # a YARRRML mapping: translated as it is (there is no table to audit)
        load_manifest(args.manifest)
        rml = read_yarrrml(args.table)
        Path(args.output).resolve().parent.mkdir(parents=True, exist_ok=True)  # as for a table
        rml.serialize(args.output, format="turtle")
        maps = len(set(rml.subjects(None, RML.TriplesMap)))
        print(f"{maps} TriplesMaps translated from YARRRML {args.table} to {args.output} (not audited: no table)")
        if yarrrml_out:
            yarrrml_out.write_text(to_yarrrml(rml), encoding="utf-8")
        return 0
    case = load_manifest(args.manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    work = Path(args.output).resolve().parent
    work.mkdir(parents=True, exist_ok=True)
    sources = [load_source(s, work / "inputs") for s in case.sources]
    require_readable(sources)
    table = read_table(args.table)
    for note in table.notes:  # what the reader guessed or ignored (an unknown header ...), as `run`'s audit has it
        line, _, text = note.partition(": ") if note.startswith("line ") else ("", "", note)
        print(f"note: {args.table}{':' + line.removeprefix('line ') if line else ''}: {text}", file=sys.stderr)
    compiled = compile_table(table, ontology, case, sources)
    source_findings = [f for s in sources for f in [*s.findings, *csv_row_findings(s)]]
    for f in [*source_findings, *compiled.findings]:
        print(f, file=sys.stderr)
    try:
        require_triples_maps(compiled, source_findings)
    except CompileError as exc:  # a table no row of which compiles is bad input (exit 2), as for `run`'s manifests
        raise InputError(str(exc), path=args.table) from exc
    compiled.rml.serialize(args.output, format="turtle")
    left_out = len(table) - len(compiled.plan.compiled_lines)
    rows = f"{len(compiled.plan.compiled_lines)} of {len(table)} rows" + \
        (f"; {left_out} left out, see the errors above" if left_out else "")
    print(f"{len(compiled.plan.triples_maps)} TriplesMaps ({rows}) written to {args.output}")
    if yarrrml_out:
        yarrrml_out.write_text(to_yarrrml(compiled.rml), encoding="utf-8")
        print(f"YARRRML written to {yarrrml_out}")
    return 1 if left_out else 0  # the RML is written, but rows of the table are not in it: something was lost


def _cmd_materialize(args: argparse.Namespace) -> int:
    from rdflib import Graph

    from .rdffile import parse_error

    from .materialize import materialize, prepare
    from .rmlnorm import document_base

    rml_path = Path(args.rml)
    _output_file(args.output, "output")
    try:
        text = rml_path.read_text(encoding="utf-8")
        rml = Graph().parse(data=text, format="turtle", publicID=rml_path.absolute().as_uri())
    except FileNotFoundError as exc:
        raise InputError("RML file not found", path=rml_path.absolute()) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not a UTF-8 text file: {exc}", path=rml_path) from exc
    except Exception as exc:  # rdflib raises parser-specific types
        line, why = parse_error(exc)
        raise InputError(f"not an RML mapping in Turtle: {why}", path=rml_path, line=line) from exc
    base = document_base(text) or args.base_iri
    if base is None and args.manifest:
        base = load_manifest(args.manifest).base_iri
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    norm = prepare(rml, mapping_dir=rml_path.resolve().parent, base_iri=base, where=str(rml_path))
    if not norm.triples_maps:
        raise InputError("no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)", path=rml_path)
    unreadable = check_logical_sources(norm.graph)
    if unreadable:  # as `run`'s load stage: named here, not as an engine error on the copy
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in unreadable))
    engine = output.with_suffix(".morph-kgc.ttl")
    for f in repair_mapping_sources(norm.graph, rml_path.resolve().parent, output.parent / "inputs"):
        print(f, file=sys.stderr)  # JSON with nulls: the engine reads a copy without them
    norm.graph.serialize(engine, format="turtle")
    if args.distributed:
        from .distributed import materialize_distributed

        dist = materialize_distributed(norm.graph, output, args.partitions, args.master, where=str(engine))
        for f in [*norm.findings, *dist.findings]:
            print(f, file=sys.stderr)
        print(f"{dist.triples} triples written to {output} ({dist.partitions} partitions on {dist.workers} "
              f"Dask workers, {dist.broadcast} join parents broadcast; parts in {output}.parts/)")
        return 1 if dist.dropped else 0
    fmt = args.format or {".nq": "nq", ".trig": "trig"}.get(output.suffix, "nt")
    if fmt == "nt" and norm.graph_maps:
        output = output.with_suffix(".nq")
        fmt = "nq"
        print(f"note: the mapping has graph maps: N-Quads written to {output} (N-Triples cannot hold named graphs)",
              file=sys.stderr)
    if args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    try:
        # findings name the RML the user gave, not the engine copy beside the output
        result = materialize(engine, processes=args.processes, output=output, fmt=fmt,
                             locate=lambda predicate: (str(rml_path), None))
    except InputError as exc:  # the engine ran the copy beside the output: name the user's mapping
        raise on_user_file(exc, rml_path) from exc
    for f in [*norm.findings, *result.findings]:
        print(f, file=sys.stderr)
    print(f"{result.n_triples + result.n_quads} statements ({result.n_quads} in named graphs) "
          f"written to {output}")
    return 1 if result.dropped else 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``kgc`` (subcommands: data, run, map, compile, materialize, validate, score)."""
    p = argparse.ArgumentParser(prog="kgc", description="Knowledge-graph construction: mapping table -> RML -> KG.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.add_argument("-q", "--quiet", action="store_true", help="errors only, no progress bar")
    sub = p.add_subparsers(dest="command", required=True)
    # -v/-q are accepted after the subcommand too; SUPPRESS keeps a subcommand from resetting them
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug logging")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="errors only, no progress bar")

    d = sub.add_parser("data", parents=[common], help="write manifests for the BLINKG benchmark cases",
                       description="Write one manifest per BLINKG case (paths point into the benchmark folder). "
                                   "Example: kgc data --out data/manifests/blinkg")
    d.add_argument("--blinkg", help="benchmark folder (default: $BLINKG_DIR or ../shared/benchmarks/blinkg)")
    d.add_argument("--out", default="data/manifests/blinkg",
                   help="folder for the manifests, one sub-folder per scenario (default: %(default)s)")
    d.add_argument("--formats", nargs="+", default=["csv"], choices=["csv", "json", "xml"],
                   help="scenario-1 input formats to generate cases for")
    d.set_defaults(func=_cmd_data)

    r = sub.add_parser("run", parents=[common], help="map, compile, materialize, validate and score one or many cases",
                       description="Run every stage for each manifest and write out/<scenario>/<case>/ "
                                   "(table, audit, RML, KG, validation, scores, run.json) and a report per "
                                   "scenario (report.md/html/json). Exit 0 when every case ran and its KG passed "
                                   "validation, 1 when a case failed or a KG fails SV2/CS2/SHACL, 2 on bad input. "
                                   "Example: kgc run data/manifests/blinkg/scenario3 --mapper replay")
    r.add_argument("manifests", nargs="+", help="manifest files or folders of them")
    r.add_argument("--out", default="out",
                   help="output root: each case writes <out>/<scenario>/<case>/, each scenario a report in "
                        "<out>/<scenario>/ (default: %(default)s; a case's earlier folder is replaced)")
    r.add_argument("--mapper", default=DEFAULT_MAPPER,
                   help=f"one of: {', '.join(known_mappers())} (default: %(default)s). llm reads LLM_MODEL, "
                        "LLM_API_BASE, LLM_API_KEY, LLM_RUNS (runs per case, kept in runs/<i>/, scores "
                        "macro-averaged with min/max), LLM_CONTEXT_WINDOW (the model's input window in tokens; "
                        "a prompt is split only when it exceeds it; default: litellm's figure, else not split), "
                        "LLM_MAX_TOKENS (default: sized from the case), LLM_TIMEOUT, LLM_MAX_RETRIES, "
                        "LLM_TEMPERATURE, LLM_SHOTS, LLM_CACHE_DIR from the environment")
    r.add_argument("--table", help="table file for the replay mapper (default: the case's gold table)")
    r.add_argument("--processes", type=int, default=1, help="Morph-KGC worker processes")
    r.add_argument("--turtle", action="store_true", help="also write the KG as Turtle (kg.ttl)")
    r.add_argument("--no-evaluate", dest="evaluate", action="store_false",
                   help="stop after materialize (and the expected-graph check): no validation, no scores")
    r.set_defaults(func=_cmd_run)

    from .text.cli import add_parser as add_text_parser
    add_text_parser(sub, common)

    v = sub.add_parser("validate", parents=[common], help="validate a KG: strict syntax (SV2), OWL 2 RL consistency (CS2), SHACL",
                       description="Check a KG file strictly (IRIs, literal lexical forms, language tags, with "
                                   "line and column), run the owlrl OWL 2 RL closure over KG + ontology, and "
                                   "validate SHACL shapes derived from the ontology plus shapes/<scenario>.ttl and "
                                   "the manifest's shapes (HermiT too where Java is available). Above 20,000 "
                                   "triples CS2 and SHACL run on a stratified subject sample and report their "
                                   "coverage (--full: the whole KG). Exit 1 when any check fails or does not run. "
                                   "Example: kgc validate case.yaml kg.nt --out validation.json")
    v.add_argument("manifest", help="the case manifest (.yaml): ontology, SKOS and shapes")
    v.add_argument("kg", help="the KG to check: N-Triples, or Turtle, N-Quads, TriG, RDF/XML, JSON-LD, N3 by "
                              "extension (checked on an N-Triples copy beside --out)")
    v.add_argument("--out", default="validation.json",
                   help="JSON file for the results with every finding and its position (default: %(default)s)")
    v.add_argument("--full", action="store_true",
                   help="CS2 and SHACL on the whole KG whatever its size (owlrl: ~1.6 ms a triple)")
    v.set_defaults(func=_cmd_validate)

    s = sub.add_parser("score", parents=[common], help="score a table and/or a KG against the case's gold",
                       description="Mapping level: BLINKG task precision/recall/F1 of --table against the gold "
                                   "table. Graph level: SA2-SA4, conciseness/completeness and competency questions "
                                   "of --kg against the gold graph (or the gold table's KG). "
                                   "Example: kgc score case.yaml --table table.md --kg kg.nt --out scores/")
    s.add_argument("manifest", help="the case manifest (.yaml) naming the gold table and/or gold graph")
    s.add_argument("--table", help="mapping table to score")
    s.add_argument("--kg", help="KG to score (.nt .ttl .nq .trig .rdf .jsonld, syntax by extension)")
    s.add_argument("--out", default="scores",
                   help="folder for mapping.mapping-scores.json, graph_scores.json and the gold KG "
                        "(default: %(default)s)")
    s.set_defaults(func=_cmd_score)

    y = sub.add_parser("synth", parents=[common], help="generate an unseen scenario with a controlled schema distance",
                       description="Write an ontology (+ SKOS code list), CSV/JSON/XML data, a manifest, the gold "
                                   "table and the gold KG for one seed; column names at the given distance from the "
                                   "ontology's labels (label, synonym, language, opaque). Same seed, same files. "
                                   "Example: kgc synth --seed 7 --level synonym --out synth/7")
    y.add_argument("--seed", type=int, required=True, help="integer seed (picks domain, formats and values)")
    y.add_argument("--level", required=True, choices=list(SYNTH_LEVELS),
                   help="schema distance of the column names")
    y.add_argument("--out", required=True,
                   help="scenario folder (created); a folder that is not empty is refused (exit 2) unless --force")
    y.add_argument("--force", action="store_true",
                   help="write into a non-empty --out folder: the scenario's files are overwritten, other files "
                        "stay as they are")
    y.add_argument("--check", action="store_true",
                   help="also compile the gold table and compare with the gold KG (exit 1 when they differ)")
    y.set_defaults(func=_cmd_synth)

    m = sub.add_parser("map", parents=[common], help="propose a mapping table for a case",
                       description="Write the mapper's table (.md/.csv/.json by suffix) for editing. "
                                   "Example: kgc map case.yaml table.md --mapper replay")
    m.add_argument("manifest", help="the case manifest (.yaml): sources, ontologies, SKOS")
    m.add_argument("output", help="table file to write; .md, .csv or .json by its suffix")
    m.add_argument("--mapper", default=DEFAULT_MAPPER, help=f"one of: {', '.join(known_mappers())} (default: %(default)s)")
    m.add_argument("--table", help="table to replay")
    m.set_defaults(func=_cmd_map)

    c = sub.add_parser("compile", parents=[common], help="compile a mapping table (or YARRRML) into RML",
                       description="Audit the table against ontology and data, print findings, write the RML "
                                   "(RML-Core + RML-FNML, http://w3id.org/rml/; source paths absolute). A .yml/.yaml "
                                   "mapping is read as YARRRML (the subset kgc writes; relative source paths are "
                                   "relative to the YARRRML file) and translated without audit. "
                                   "Example: kgc compile case.yaml table.md mapping.rml.ttl --yarrrml")
    c.add_argument("manifest", help="the case manifest (.yaml): sources, ontologies, SKOS")
    c.add_argument("table", help="mapping table (.md, .csv or .json), or a YARRRML mapping (.yml, .yaml)")
    c.add_argument("output", help="RML file to write (Turtle; source paths absolute)")
    c.add_argument("--yarrrml", nargs="?", const="", default=None, metavar="FILE",
                   help="also write the mapping as YARRRML (default file: <output>.yarrrml.yml)")
    c.set_defaults(func=_cmd_compile)

    t = sub.add_parser("materialize", parents=[common], help="run Morph-KGC on an RML file",
                       description="Normalise the RML (R2RML, legacy RML or RML-Core; RML-IO sources, base IRI), "
                                   "materialize with Morph-KGC, drop and report invalid triples, write N-Triples, "
                                   "or N-Quads when the mapping has graph maps (said on stderr), and the engine copy "
                                   "<output>.morph-kgc.ttl beside it. Exit 1 when triples were dropped, 2 when the "
                                   "mapping is invalid (the message names the TriplesMap and term map). "
                                   "Example: kgc materialize mapping.rml.ttl kg.nt --manifest case.yaml")
    t.add_argument("rml", help="RML mapping (Turtle: R2RML, legacy RML or RML-Core), e.g. a run's mapping.rml.ttl")
    t.add_argument("output", help="output file (.nt, .nq or .trig; the folder is created)")
    t.add_argument("--manifest", help="the case: its base_iri resolves relative IRI templates when the RML "
                                      "has no @base or rml:baseIRI")
    t.add_argument("--base-iri", help="base IRI for relative IRI templates when the RML declares none (no @base, "
                                       "no rml:baseIRI); before the manifest's base_iri")
    t.add_argument("--format", choices=["nt", "nq", "trig"], help="output syntax (default: by the output suffix)")
    t.add_argument("--distributed", action="store_true",
                   help="partition the sources and run Morph-KGC on Dask workers (join parents broadcast)")
    t.add_argument("--partitions", type=int, default=2, help="partitions of the sources (with --distributed)")
    t.add_argument("--processes", type=int, default=1,
                   help="engine worker processes: Morph-KGC's mapping partitions run in parallel, each guarded in "
                        "its worker (default: %(default)s)")
    t.add_argument("--master", help="Dask scheduler address, e.g. tcp://host:8786 (default: a local cluster)")
    t.set_defaults(func=_cmd_materialize)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``kgc``; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR if args.quiet else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        # rdflib logs a traceback for every ill-typed literal it meets; the guards and SV2 report them
        logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `kgc ... | head`: the reader left; not an input error
        try:  # the Python docs' recipe (signal module, "Note on SIGPIPE"): no second error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
