"""Command line: ``kgc <command>``; every command calls the same functions as the Python API.

Exit codes: 0 success; 1 a run failed (``run``), triples were dropped as invalid
(``materialize``) or the KG fails validation (``validate``); 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from tqdm import tqdm

from . import __version__
from .blinkg import blinkg_dir, write_manifests
from .compile import compile_table, require_triples_maps
from .errors import InputError, PipelineError
from .manifest import load_manifest
from .mappers import DEFAULT_MAPPER, get_mapper, known_mappers
from .materialize import engine_mapping, materialize
from .ontology import load_ontology
from .report import write_report
from .scoring.mapping import write_scenario_markdown
from .run import RunConfig, run_case
from .sources import all_values, load_source
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


def _cmd_data(args: argparse.Namespace) -> int:
    root = blinkg_dir(args.blinkg)
    paths, notes = write_manifests(root, Path(args.out), tuple(args.formats))
    for n in notes:
        print(f"note: {n}")
    print(f"{len(paths)} manifests written under {args.out} (benchmark: {root})")
    return 0


def _run_exit_code(runs: list) -> int:
    """2 when a case failed on bad input, 1 when a case failed otherwise or its KG fails
    validation (SV2, CS2, SHACL), else 0."""
    if any(r.status != "ok" and r.error_kind == "input" for r in runs):
        return 2
    if any(r.status != "ok" for r in runs):
        return 1
    invalid = [r for r in runs if any(v.get("value") is False for v in r.extra.get("graph_validation", {}).values())]
    return 1 if invalid else 0


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
    options = {"table": args.table} if args.table else {}
    get_mapper(args.mapper)  # an unknown mapper is bad input: fail before running anything
    config = RunConfig(out_dir=Path(args.out), mapper=args.mapper, mapper_options=options, processes=args.processes,
                       turtle=args.turtle, evaluate=args.evaluate)
    runs = []
    mapping_reports: dict[str, list] = {}
    rows: dict[str, list[dict]] = {}
    bar = tqdm(cases, desc="cases", unit="case", disable=args.quiet, file=sys.stderr)
    for case in bar:
        result = run_case(case, config, progress=lambda stage, c=case: bar.set_postfix_str(f"{c.name}: {stage}"))
        runs.append(result)
        tqdm.write(result.summary())
        if result.mapping_report is not None:
            mapping_reports.setdefault(case.scenario, []).append(result.mapping_report)
        rows.setdefault(case.scenario, []).append(
            {"scenario": case.scenario, "case": case.name, "mapping": result.extra.get("mapping_scores"),
             "graph": {**result.extra.get("graph_scores", {}),
                       **{k: v["value"] for k, v in result.extra.get("graph_validation", {}).items()}}})
    for scenario, cases_rows in (rows.items() if args.evaluate else ()):
        paths = write_report(cases_rows, Path(args.out) / scenario, stem="report")
        print(f"\n{scenario}: mapping level (BLINKG task F1 vs gold table) next to graph level "
              f"(SA2 property F1 vs gold KG); n/a = no independent gold. Report: {paths['html']}")
        print(paths["console"])
        if mapping_reports.get(scenario):
            md = write_scenario_markdown(mapping_reports[scenario], Path(args.out) / scenario, scenario)
            print(f"mapping-level tasks x P/R/F1 (raw and post-processed): {md}")
    return _run_exit_code(runs)


def _case_context(manifest: str, work: Path):
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, work / "inputs") for s in case.sources]
    return case, ontology, sources


def _cmd_validate(args: argparse.Namespace) -> int:
    from rdflib import Graph

    from .evaluate import graph_validation, skipped, validation_passed

    case, ontology, _ = _case_context(args.manifest, Path(args.out).resolve().parent)
    try:
        kg = Graph().parse(args.kg, format="nt")
    except FileNotFoundError as exc:
        raise InputError("KG file not found", path=Path(args.kg).absolute()) from exc
    except Exception:  # rdflib raises parser-specific types; SV2 gives the positions
        from .validation import check_ntriples

        # reasoners and SHACL on an unparsable KG would judge an empty graph: not applicable
        reason = "the KG does not parse (see SV2)"
        result = {"SV2": check_ntriples(Path(args.kg)).to_dict(), "CS2-owlrl": skipped("CS2-owlrl", reason),
                  "SHACL": skipped("SHACL", reason)}
    else:
        result = graph_validation(Path(args.kg), kg, ontology, case, max_triples=None)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r.get('value')} ({r.get('status')}, {len(r.get('findings', []))} finding(s))")
    print(f"diagnostics written to {args.out}")
    return 0 if validation_passed(result) else 1


def _cmd_score(args: argparse.Namespace) -> int:
    from rdflib import Graph

    from .evaluate import gold_kg, graph_scores, mapping_scores

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    case, ontology, sources = _case_context(args.manifest, out)
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
        scores = graph_scores(Graph().parse(args.kg, format="nt"), gold.graph, ontology, case, None,
                              gold_templates=gold.templates)
        (out / "graph_scores.json").write_text(json.dumps(scores, indent=2, default=str) + "\n", encoding="utf-8")
        for name, r in scores.items():
            print(f"{name}: {r.get('value')}")
    return 0


def _cmd_map(args: argparse.Namespace) -> int:
    case = load_manifest(args.manifest)
    options = {"table": args.table} if args.table else {}
    result = get_mapper(args.mapper).map(case, **options)
    write_table(result.table, args.output)
    print(f"{len(result.table)} rows written to {args.output}")
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    case = load_manifest(args.manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    work = Path(args.output).resolve().parent
    sources = [load_source(s, work / "inputs") for s in case.sources]
    compiled = compile_table(read_table(args.table), ontology, case, sources)
    source_findings = [f for s in sources for f in s.findings]
    for f in [*source_findings, *compiled.findings]:
        print(f, file=sys.stderr)
    require_triples_maps(compiled, source_findings)
    compiled.rml.serialize(args.output, format="turtle")
    print(f"{len(compiled.plan.triples_maps)} TriplesMaps ({len(compiled.plan.compiled_lines)} rows) "
          f"written to {args.output}")
    return 0


def _cmd_materialize(args: argparse.Namespace) -> int:
    from rdflib import Graph

    try:
        rml = Graph().parse(args.rml, format="turtle")
    except FileNotFoundError as exc:
        raise InputError("RML file not found", path=Path(args.rml).absolute()) from exc
    except Exception as exc:  # rdflib raises parser-specific types
        raise InputError(f"not an RML mapping in Turtle: {exc}", path=args.rml) from exc
    engine = Path(args.output).with_suffix(".morph-kgc.ttl")
    engine_mapping(rml).serialize(engine, format="turtle")
    values: set[str] = set()
    if args.manifest:
        case = load_manifest(args.manifest)
        values = all_values([load_source(s, engine.parent / "inputs") for s in case.sources])
    result = materialize(engine, values)
    result.write(Path(args.output))
    for f in result.findings:
        print(f, file=sys.stderr)
    print(f"{len(result.triples)} triples written to {args.output}")
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
    d.add_argument("--out", default="data/manifests/blinkg")
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
    r.add_argument("--out", default="out")
    r.add_argument("--mapper", default=DEFAULT_MAPPER,
                   help=f"one of: {', '.join(known_mappers())} (default: %(default)s; llm reads LLM_MODEL, "
                        "LLM_API_BASE, LLM_API_KEY from the environment)")
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
                                   "the manifest's shapes. Exit 1 when any check fails. "
                                   "Example: kgc validate case.yaml kg.nt --out validation.json")
    v.add_argument("manifest", help="the case (ontology, shapes)")
    v.add_argument("kg", help="N-Triples file")
    v.add_argument("--out", default="validation.json")
    v.set_defaults(func=_cmd_validate)

    s = sub.add_parser("score", parents=[common], help="score a table and/or a KG against the case's gold",
                       description="Mapping level: BLINKG task precision/recall/F1 of --table against the gold "
                                   "table. Graph level: SA2-SA4, conciseness/completeness and competency questions "
                                   "of --kg against the gold graph (or the gold table's KG). "
                                   "Example: kgc score case.yaml --table table.md --kg kg.nt --out scores/")
    s.add_argument("manifest")
    s.add_argument("--table", help="mapping table to score")
    s.add_argument("--kg", help="N-Triples KG to score")
    s.add_argument("--out", default="scores")
    s.set_defaults(func=_cmd_score)

    m = sub.add_parser("map", parents=[common], help="propose a mapping table for a case",
                       description="Write the mapper's table (.md/.csv/.json by suffix) for editing. "
                                   "Example: kgc map case.yaml table.md --mapper replay")
    m.add_argument("manifest")
    m.add_argument("output")
    m.add_argument("--mapper", default=DEFAULT_MAPPER, help=f"one of: {', '.join(known_mappers())} (default: %(default)s)")
    m.add_argument("--table", help="table to replay")
    m.set_defaults(func=_cmd_map)

    c = sub.add_parser("compile", parents=[common], help="compile a mapping table into RML",
                       description="Audit the table against ontology and data, print findings, write the RML. "
                                   "Example: kgc compile case.yaml table.md mapping.rml.ttl")
    c.add_argument("manifest")
    c.add_argument("table")
    c.add_argument("output")
    c.set_defaults(func=_cmd_compile)

    t = sub.add_parser("materialize", parents=[common], help="run Morph-KGC on an RML file",
                       description="Materialize with Morph-KGC, drop and report invalid triples, write N-Triples "
                                   "(and the engine copy <output>.morph-kgc.ttl beside it). "
                                   "Exit 1 when triples were dropped. "
                                   "Example: kgc materialize mapping.rml.ttl kg.nt --manifest case.yaml")
    t.add_argument("rml")
    t.add_argument("output")
    t.add_argument("--manifest", help="the case, to tell real 'None' values from empty XML elements")
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
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
