"""``kgc map`` and ``kgc compile``: one stage each, on the user's files (``kgc materialize``:
:mod:`pipeline.commands.materialize`)."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from rdflib.namespace import RDF

from pipeline.commands import case_files, chosen_mapper, say_ontology_notes, nothing_left_on_bad_input, output_file, require_llm_settings
from pipeline.compile import RML, compile_table, require_triples_maps
from pipeline.compile.legacy import to_legacy_rml
from pipeline.compile.yarrrml import SUFFIXES as YARRRML_SUFFIXES
from pipeline.compile.yarrrml import load_yarrrml, to_yarrrml
from pipeline.compile.yarrrml.check import check_yarrrml
from pipeline.fno import FN, UDF_FILE
from pipeline.errors import CompileError, InputError
from pipeline.findings import Finding
from pipeline.llm import LLMError
from pipeline.manifest import is_manifest_file, load_manifest, refuse_swapped_manifest
from pipeline.mappers import DEFAULT_MAPPER, MapInput, get_mapper, known_mappers
from pipeline.mappers.repair import repair_findings
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.checks import check_logical_sources
from pipeline.sources.load import csv_row_findings, require_readable, load_sources
from pipeline.table import read_table, write_table

__all__ = ["PARSERS", "add_map_parser", "add_compile_parser", "copies_beside"]

class _Progress:
    """One line per stage on standard error (``kgc map: mapper 'offline' (2.1 s)``), unless -q."""

    def __init__(self, command: str, quiet: bool) -> None:
        self.command, self.quiet = command, quiet
        self.t0 = time.perf_counter()

    def __call__(self, stage: str) -> None:
        if not self.quiet:
            print(f"{self.command}: {stage} ({time.perf_counter() - self.t0:.1f} s)", file=sys.stderr, flush=True)


def _cmd_map(args: argparse.Namespace) -> int:
    refuse_swapped_manifest(args.manifest, [args.output, args.output_opt, args.table], "kgc map MANIFEST OUTPUT")
    args.mapper = chosen_mapper(args.mapper, args.table, DEFAULT_MAPPER)
    if args.output and args.output_opt and args.output != args.output_opt:
        raise InputError(f"two outputs given: {args.output} and -o {args.output_opt}; give one")
    args.output = args.output or args.output_opt
    if not args.output:
        raise InputError(f"no output given: kgc map {args.manifest} OUTPUT (or -o OUTPUT; .md, .csv or .json)")
    output_file(args.output, "output")
    out = Path(args.output)
    if out.suffix.lower() not in (".md", ".csv", ".json"):
        # checked before the mapper runs, not after minutes of work
        raise InputError(f"unknown mapping-table format {out.suffix!r}; expected .md, .csv or .json",
                         path=args.output)
    progress = _Progress("kgc map", args.quiet)
    case = load_manifest(args.manifest)
    # the evidence of each row (matched labels, profiles, scores) beside a .md/.csv table, as a run's
    # table.json; named so that it never takes the name of a data file (orders.md -> orders.evidence.json)
    evidence = out.with_name(f"{out.stem}.evidence.json") if out.suffix.lower() != ".json" else None
    raw_md = out.with_name(f"{out.stem}.raw.md")  # an LLM's answer as parsed, before validate-and-repair
    transcript = out.with_name(f"{out.stem}.llm.json")  # an LLM's prompts and partial answers when it failed
    for written in (args.output, evidence, raw_md, transcript):
        if written is not None:
            output_file(str(written), "output", [*case_files(case), args.table])
    options = {"table": args.table} if args.table else {}
    mapper = get_mapper(args.mapper)
    require_llm_settings(args.mapper)
    # the folder is made before the work, not after it; bad input found in the work removes it again
    with nothing_left_on_bad_input(out), tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:
        out.parent.mkdir(parents=True, exist_ok=True)
        progress(f"reading {len(case.sources)} source(s)")  # as `run`'s load stage: bad sources stop here
        # the mapper needs value statistics: a large CSV is read as its sample plus value counts
        sources = load_sources(case.sources, Path(tmp), profile=True)
        require_readable(sources)
        gone = str(Path(tmp).resolve())
        progress(f"reading the ontology ({len(case.ontologies)} file(s), {len(case.skos)} SKOS)")
        ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
        say_ontology_notes(ontology)
        progress(f"mapping with the {args.mapper} mapper")
        try:
            result = mapper.map(MapInput(case, ontology, tuple(sources)), **options)
        except LLMError as exc:
            raise _keep_transcripts(exc, transcript) from exc
        # records cut or padded to the header's width, read while the decompressed copies still exist
        ragged = [f for s in sources for f in csv_row_findings(s)]
    write_table(result.table, out)
    if evidence is not None:
        write_table(result.table, evidence)
    raw = result.raw_tables[0] if result.raw_tables else None
    if raw is not None:
        write_table(raw, raw_md)
    progress("written")
    mapped = [Finding(**f) for f in result.provenance.get("findings", [])]
    mapped += repair_findings(result.provenance.get("repair") or {}, str(raw_md))
    # what loading found (empty header cells, an XML file read as one record), as `run`'s audit has it;
    # not the repairs, whose copies were in the temporary folder, which is gone; the mapper repeats some
    said = " ".join(f.message for f in mapped)
    for f in (f for s in sources for f in s.findings):
        if gone not in f.message and str(Path(gone).name) not in f.message and f.message not in said:
            print(f, file=sys.stderr)
    for f in mapped:  # what the mapper left out, and why
        print(f, file=sys.stderr)
    for f in ragged:  # records the mapper saw cut or padded to the header's width
        print(f, file=sys.stderr)
    if raw is not None and len(raw) and not len(result.table):
        # an answer whose every row was dropped is no mapping: say so, never "0 rows written", exit 0
        print(f"error: {args.output}: the mapper answered {len(raw)} row(s) and validate-and-repair dropped every "
              f"one (the reasons above; the answer as parsed in {raw_md}): no mapping row", file=sys.stderr)
        return 1
    print(f"{len(result.table)} rows written to {args.output}" + (f" (evidence per row in {evidence})"
                                                                 if evidence else "")
          + (f"; the answer before validate-and-repair in {raw_md}" if raw is not None else ""))
    return 0


def _keep_transcripts(exc: LLMError, path: Path) -> LLMError:
    """``exc`` as it is when no answer had started; else the prompts and answers exchanged (the
    partial one too: a stream that broke off, a server gone silent) written to ``path`` as JSON, as
    ``kgc run`` keeps them in ``llm/``, and an error whose message names the file."""
    if not any(t.get("answer") for t in exc.transcripts):
        return exc
    path.write_text(json.dumps(exc.transcripts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return LLMError(f"{exc}; the prompts and the partial answer are in {path}", provenance=exc.provenance,
                    transcripts=exc.transcripts)


def copies_beside(output: Path) -> Path:
    """The folder of the engine copies (repaired inputs) of a command writing ``output``: named after
    it (``m.ttl`` -> ``m.inputs/``), so that no folder of the user's (an ``inputs/`` holding the
    data itself) is written into; created only when a repair is needed."""
    return output.parent / f"{output.stem}.inputs"


def _compile_inputs(args: argparse.Namespace) -> tuple[str | None, str, str]:
    """(manifest or None, table or YARRRML, output) from ``kgc compile``'s arguments:
    ``MANIFEST TABLE OUTPUT``, ``MANIFEST TABLE -o OUTPUT``, ``YARRRML OUTPUT`` or ``YARRRML -o OUTPUT``."""
    given = list(args.inputs) + ([args.output_opt] if args.output_opt else [])
    if len(given) in (2, 3):
        refuse_swapped_manifest(given[0], given[1:2], "kgc compile MANIFEST TABLE OUTPUT")
    if len(given) == 3:
        return given[0], given[1], given[2]
    if len(given) == 2 and Path(given[0]).suffix.lower() in YARRRML_SUFFIXES and not is_manifest_file(Path(given[0])):
        return None, given[0], given[1]  # the YARRRML reader names what is wrong in it
    if len(given) == 2 and is_manifest_file(Path(given[0])):
        raise InputError(f"no output given: kgc compile {given[0]} {given[1]} OUTPUT (or -o OUTPUT)")
    if len(given) == 2:
        raise InputError(f"{given[0]} is no YARRRML mapping; compiling a mapping table needs MANIFEST TABLE OUTPUT")
    raise InputError(f"kgc compile takes MANIFEST TABLE OUTPUT or YARRRML OUTPUT, got {len(given)} file name(s)")


def _write_rml(rml, output: str, flavour: str) -> None:
    """Write the RML: RML-Core as compiled, or legacy RML (:mod:`pipeline.compile.legacy`)."""
    if flavour == "legacy":
        to_legacy_rml(rml).serialize(output)
        foreign = sorted({str(f) for f in rml.objects(None, RML.function) if str(f).startswith(str(FN))})
        if foreign:
            print(f"note: {output} calls kgc's own functions ({', '.join(f.rsplit('#', 1)[-1] for f in foreign)}); "
                  f"other engines need them registered (they are in {UDF_FILE})", file=sys.stderr)
        if any(True for _ in rml.objects(None, RML.function)):
            # legacy RML's functions are old FNML, which RMLMapper and SDM-RDFizer run and Morph-KGC does not
            print(f"note: {output} writes its functions in old FNML (fnml:functionValue), which Morph-KGC 2.10 does not "
                  "run (it stops with KeyError: 'object'); for Morph-KGC use the RML-Core document (without --rml "
                  "legacy), which kgc materialize runs too", file=sys.stderr)
    else:
        rml.serialize(output, format="turtle")


def _compile_yarrrml(args: argparse.Namespace, manifest: str | None, mapping: str, output: str,
                     yarrrml_out: Path | None) -> int:
    """``kgc compile`` of a YARRRML mapping: translated as it is (there is no table to audit), and
    checked as ``kgc materialize`` checks it, so that what the engine cannot run fails here."""
    case = load_manifest(manifest) if manifest else None
    doc = load_yarrrml(mapping, prefixes=case.prefixes if case else None, base_iri=case.base_iri if case else None)
    for note in doc.notes:
        print(f"note: {mapping}: {note}", file=sys.stderr)
    check_yarrrml(doc, mapping)
    norm = normalize_rml(doc.graph, mapping_dir=Path(mapping).resolve().parent, base_iri=doc.base_iri,
                         where=str(mapping))
    unreadable = check_logical_sources(norm.graph)
    if unreadable:
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in unreadable))
    for f in norm.findings:  # what materialize will repair or resolve (relative IRIs without a base ...)
        if f.severity != "info":
            print(f, file=sys.stderr)
    Path(output).resolve().parent.mkdir(parents=True, exist_ok=True)  # as for a table
    _write_rml(doc.graph, output, args.rml)
    maps = len(set(doc.graph.subjects(RDF.type, RML.TriplesMap)))
    print(f"{maps} TriplesMaps translated from YARRRML {mapping} to {output} (not audited: no table)")
    if yarrrml_out:
        yarrrml_out.write_text(to_yarrrml(doc.graph), encoding="utf-8")
        print(f"YARRRML written to {yarrrml_out}")
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    manifest, table_path, output = _compile_inputs(args)
    output_file(output, "output", [manifest, table_path])
    yarrrml_out = None if args.yarrrml is None else \
        Path(args.yarrrml) if args.yarrrml else Path(output).with_suffix(".yarrrml.yml")
    if yarrrml_out is not None:
        output_file(str(yarrrml_out), "--yarrrml", [manifest, table_path])
    if manifest is None or Path(table_path).suffix.lower() in YARRRML_SUFFIXES:
        return _compile_yarrrml(args, manifest, table_path, output, yarrrml_out)
    case = load_manifest(manifest)
    for written in (output, yarrrml_out):
        if written is not None:
            output_file(str(written), "output", case_files(case))
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    say_ontology_notes(ontology)
    work = Path(output).resolve().parent
    table = read_table(table_path)  # before anything is written: an unreadable table writes nothing
    copies = copies_beside(Path(output))
    # bad input writes nothing: not the repaired copies of the sources, nor the folders made for them
    with nothing_left_on_bad_input(copies, output, yarrrml_out):
        sources = load_sources(case.sources, copies)
        require_readable(sources)
        for note in table.notes:  # what the reader guessed or ignored (an unknown header ...), as `run`'s audit has it
            line, _, text = note.partition(": ") if note.startswith("line ") else ("", "", note)
            print(f"note: {table_path}{':' + line.removeprefix('line ') if line else ''}: {text}", file=sys.stderr)
        compiled = compile_table(table, ontology, case, sources)
        source_findings = [f for s in sources for f in [*s.findings, *csv_row_findings(s)]]
        for f in [*source_findings, *compiled.findings]:
            print(f, file=sys.stderr)
        try:
            require_triples_maps(compiled, source_findings)
        except CompileError as exc:  # a table no row of which compiles is bad input (exit 2), as for `run`'s manifests
            raise InputError(str(exc), path=table_path) from exc
        work.mkdir(parents=True, exist_ok=True)
        _write_rml(compiled.rml, output, args.rml)
    review = len(compiled.audit.review)  # marked rows are shown for a person's check, not lost
    left_out = len(table) - len(compiled.plan.compiled_lines) - review
    rows = f"{len(compiled.plan.compiled_lines)} of {len(table)} rows" + \
        (f"; {left_out} left out, see the errors above" if left_out else "") + \
        (f"; {review} marked for review, not compiled" if review else "")
    print(f"{len(compiled.plan.triples_maps)} TriplesMaps ({rows}) written to {output}"
          + (" (legacy RML)" if args.rml == "legacy" else ""))
    if yarrrml_out:
        try:
            # the user's prefix names: the ontology files' and the manifest's before the well-known ones
            order = {"declared": 0, "manifest": 1}
            names = dict(sorted(ontology.prefixes.items(), key=lambda kv: order.get(ontology.prefix_origin.get(kv[0]), 2)))
            text = to_yarrrml(compiled.rml, names)
        except InputError as exc:  # the RML stays written (it runs); the YARRRML asked for cannot be
            raise InputError(f"--yarrrml: {exc} (the RML is written to {output})", path=table_path) from exc
        yarrrml_out.write_text(text, encoding="utf-8")
        print(f"YARRRML written to {yarrrml_out}")
    return 1 if left_out else 0  # the RML is written, but rows of the table are not in it: something was lost


def add_map_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc map`` on the CLI's subparsers."""
    m = sub.add_parser("map", parents=[common], help="propose a mapping table for a case",
                       description="Write the mapper's table (.md/.csv/.json by suffix) for editing, and beside a "
                                   ".md or .csv table the same table as .json with each row's evidence; a line per "
                                   "stage on stderr (not with -q). "
                                   "Example: kgc map case.yaml table.md --mapper replay")
    m.add_argument("manifest", help="the case manifest (.yaml): sources, ontologies, SKOS")
    m.add_argument("output", nargs="?", metavar="OUTPUT", help="table file to write; .md, .csv or .json by its suffix")
    m.add_argument("-o", "--output", "--out", dest="output_opt", metavar="OUTPUT",
                   help="the table file to write, instead of the positional argument")
    m.add_argument("--mapper", default=None,
                   help=f"one of: {', '.join(known_mappers())} (default: {DEFAULT_MAPPER}; replay with --table)")
    m.add_argument("--table", help="table for the replay mapper, which --table implies (default: the case's gold "
                                   "table); refused with another --mapper")
    m.set_defaults(func=_cmd_map)


def add_compile_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc compile`` on the CLI's subparsers."""
    c = sub.add_parser("compile", parents=[common], help="compile a mapping table (or YARRRML) into RML",
                       usage="kgc compile [-h] [-v] [-q] [--yarrrml [FILE]] [--rml {core,legacy}] "
                             "{MANIFEST TABLE | YARRRML} [OUTPUT] [-o OUTPUT]",
                       description="Audit the table against ontology and data, print findings, write the RML "
                                   "(RML-Core + RML-FNML, http://w3id.org/rml/; source paths absolute; rml:baseIRI "
                                   "the manifest's base_iri). A YARRRML mapping (.yarrrml, or a .yml/.yaml file with "
                                   "'mappings') is translated without audit, with or without a manifest, and checked "
                                   "as kgc materialize checks it. Examples: kgc compile case.yaml table.md "
                                   "mapping.rml.ttl --yarrrml; kgc compile mapping.yarrrml -o mapping.rml.ttl; "
                                   "kgc compile case.yaml table.md m.ttl --rml legacy (for RMLMapper, SDM-RDFizer, "
                                   "RocketRML)")
    c.add_argument("inputs", nargs="+", metavar="FILE",
                   help="MANIFEST TABLE OUTPUT (a table: .md, .csv or .json), or YARRRML OUTPUT; a manifest before "
                        "a YARRRML file gives its base_iri and prefixes")
    c.add_argument("-o", "--output", dest="output_opt", metavar="OUTPUT",
                   help="RML file to write (Turtle), instead of the last positional argument")
    c.add_argument("--yarrrml", nargs="?", const="", default=None, metavar="FILE",
                   help="also write the mapping as YARRRML (default file: the output with its last suffix replaced: m.ttl -> m.yarrrml.yml)")
    c.add_argument("--rml", choices=["core", "legacy"], default="core",
                   help="core: RML-Core + RML-FNML (default; Morph-KGC, kgc materialize); legacy: rr: + the RML of "
                        "semweb.mmlab.be + old FNML, with @base (RMLMapper, SDM-RDFizer, RocketRML)")
    c.set_defaults(func=_cmd_compile)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"map": add_map_parser, "compile": add_compile_parser}
