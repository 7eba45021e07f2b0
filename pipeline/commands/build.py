"""``kgc map``, ``kgc compile`` and ``kgc materialize``: one stage each, on the user's files."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rdflib import Graph

from pipeline.commands import output_file, require_llm_settings
from pipeline.compile import RML, compile_table, require_triples_maps
from pipeline.compile.yarrrml import read_yarrrml, to_yarrrml
from pipeline.errors import CompileError, InputError, on_user_file
from pipeline.findings import Finding
from pipeline.manifest import load_manifest
from pipeline.mappers import DEFAULT_MAPPER, MapInput, get_mapper, known_mappers
from pipeline.materialize.distributed import materialize_distributed
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import document_base, normalize_rml
from pipeline.ontology import load_ontology
from pipeline.rdffile import parse_error
from pipeline.sources.checks import check_logical_sources
from pipeline.sources.engine_copy import copies_folder, json_engine_copies
from pipeline.sources.load import csv_row_findings, load_source, require_readable
from pipeline.table import read_table, write_table

__all__ = ["PARSERS", "add_map_parser", "add_compile_parser", "add_materialize_parser"]

def _cmd_map(args: argparse.Namespace) -> int:
    output_file(args.output, "output")
    if Path(args.output).suffix.lower() not in (".md", ".csv", ".json"):
        # checked before the mapper runs, not after minutes of work
        raise InputError(f"unknown mapping-table format {Path(args.output).suffix!r}; expected .md, .csv or .json",
                         path=args.output)
    case = load_manifest(args.manifest)
    options = {"table": args.table} if args.table else {}
    mapper = get_mapper(args.mapper)
    require_llm_settings(args.mapper)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)  # before the work, not after it

    with tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:  # as `run`'s load stage: bad sources stop here
        sources = [load_source(s, Path(tmp)) for s in case.sources]
        require_readable(sources)
        gone = str(Path(tmp).resolve())
        ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
        result = mapper.map(MapInput(case, ontology, tuple(sources)), **options)
    write_table(result.table, args.output)
    mapped = [Finding(**f) for f in result.provenance.get("findings", [])]
    # what loading found (empty header cells, an XML file read as one record), as `run`'s audit has it;
    # not the repairs, whose copies were in the temporary folder, which is gone; the mapper repeats some
    said = " ".join(f.message for f in mapped)
    for f in (f for s in sources for f in s.findings):
        if gone not in f.message and str(Path(gone).name) not in f.message and f.message not in said:
            print(f, file=sys.stderr)
    for f in mapped:  # what the mapper left out, and why
        print(f, file=sys.stderr)
    for s in sources:  # records the mapper saw cut or padded to the header's width
        for f in csv_row_findings(s):
            print(f, file=sys.stderr)
    print(f"{len(result.table)} rows written to {args.output}")
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    output_file(args.output, "output")
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
    sources = [load_source(s, copies_folder(work)) for s in case.sources]
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
    review = len(compiled.audit.review)  # marked rows are shown for a person's check, not lost
    left_out = len(table) - len(compiled.plan.compiled_lines) - review
    rows = f"{len(compiled.plan.compiled_lines)} of {len(table)} rows" + \
        (f"; {left_out} left out, see the errors above" if left_out else "") + \
        (f"; {review} marked for review, not compiled" if review else "")
    print(f"{len(compiled.plan.triples_maps)} TriplesMaps ({rows}) written to {args.output}")
    if yarrrml_out:
        yarrrml_out.write_text(to_yarrrml(compiled.rml), encoding="utf-8")
        print(f"YARRRML written to {yarrrml_out}")
    return 1 if left_out else 0  # the RML is written, but rows of the table are not in it: something was lost


def _cmd_materialize(args: argparse.Namespace) -> int:
    rml_path = Path(args.rml)
    output_file(args.output, "output")
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
    norm = normalize_rml(rml, mapping_dir=rml_path.resolve().parent, base_iri=base, where=str(rml_path))
    if not norm.triples_maps:
        raise InputError("no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)", path=rml_path)
    unreadable = check_logical_sources(norm.graph)
    if unreadable:  # as `run`'s load stage: named here, not as an engine error on the copy
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in unreadable))
    engine = output.with_suffix(".morph-kgc.ttl")
    for f in json_engine_copies(norm.graph, rml_path.resolve().parent, copies_folder(output.parent)):
        print(f, file=sys.stderr)  # JSON with nulls: the engine reads a copy without them
    norm.graph.serialize(engine, format="turtle")
    if args.distributed:
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
                             locate=lambda predicate: (str(rml_path), None), overlap=True)
    except InputError as exc:  # the engine ran the copy beside the output: name the user's mapping
        raise on_user_file(exc, rml_path) from exc
    for f in [*norm.findings, *result.findings]:
        print(f, file=sys.stderr)
    print(f"{result.n_triples + result.n_quads} statements ({result.n_quads} in named graphs) "
          f"written to {output}")
    return 1 if result.dropped else 0


def add_map_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc map`` on the CLI's subparsers."""
    m = sub.add_parser("map", parents=[common], help="propose a mapping table for a case",
                       description="Write the mapper's table (.md/.csv/.json by suffix) for editing. "
                                   "Example: kgc map case.yaml table.md --mapper replay")
    m.add_argument("manifest", help="the case manifest (.yaml): sources, ontologies, SKOS")
    m.add_argument("output", help="table file to write; .md, .csv or .json by its suffix")
    m.add_argument("--mapper", default=DEFAULT_MAPPER, help=f"one of: {', '.join(known_mappers())} (default: %(default)s)")
    m.add_argument("--table", help="table to replay")
    m.set_defaults(func=_cmd_map)


def add_compile_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc compile`` on the CLI's subparsers."""
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
                   help="also write the mapping as YARRRML (default file: the output with its last suffix replaced: m.ttl -> m.yarrrml.yml)")
    c.set_defaults(func=_cmd_compile)


def add_materialize_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc materialize`` on the CLI's subparsers."""
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


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"map": add_map_parser, "compile": add_compile_parser, "materialize": add_materialize_parser}
