"""``kgc map``, ``kgc compile`` and ``kgc materialize``: one stage each, on the user's files."""
from __future__ import annotations

import argparse
import configparser
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph
import yaml
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.commands import output_file, require_llm_settings
from pipeline.compile import RML, compile_table, require_triples_maps
from pipeline.compile.legacy import to_legacy_rml
from pipeline.compile.yarrrml import SUFFIXES as YARRRML_SUFFIXES
from pipeline.compile.yarrrml import load_yarrrml, to_yarrrml
from pipeline.fno import FN, UDF_FILE
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
from pipeline.sources.engine_copy import json_engine_copies
from pipeline.sources.load import csv_row_findings, load_source, require_readable
from pipeline.table import read_table, write_table

__all__ = ["PARSERS", "add_map_parser", "add_compile_parser", "add_materialize_parser"]

class _Progress:
    """One line per stage on standard error (``kgc map: mapper 'offline' (2.1 s)``), unless -q."""

    def __init__(self, command: str, quiet: bool) -> None:
        self.command, self.quiet = command, quiet
        self.t0 = time.perf_counter()

    def __call__(self, stage: str) -> None:
        if not self.quiet:
            print(f"{self.command}: {stage} ({time.perf_counter() - self.t0:.1f} s)", file=sys.stderr, flush=True)


def _cmd_map(args: argparse.Namespace) -> int:
    output_file(args.output, "output")
    out = Path(args.output)
    if out.suffix.lower() not in (".md", ".csv", ".json"):
        # checked before the mapper runs, not after minutes of work
        raise InputError(f"unknown mapping-table format {out.suffix!r}; expected .md, .csv or .json",
                         path=args.output)
    progress = _Progress("kgc map", args.quiet)
    case = load_manifest(args.manifest)
    options = {"table": args.table} if args.table else {}
    mapper = get_mapper(args.mapper)
    require_llm_settings(args.mapper)
    out.parent.mkdir(parents=True, exist_ok=True)  # before the work, not after it

    with tempfile.TemporaryDirectory(prefix="kgc-map-") as tmp:  # as `run`'s load stage: bad sources stop here
        progress(f"reading {len(case.sources)} source(s)")
        sources = [load_source(s, Path(tmp)) for s in case.sources]
        require_readable(sources)
        gone = str(Path(tmp).resolve())
        progress(f"reading the ontology ({len(case.ontologies)} file(s), {len(case.skos)} SKOS)")
        ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
        progress(f"mapping with the {args.mapper} mapper")
        result = mapper.map(MapInput(case, ontology, tuple(sources)), **options)
    write_table(result.table, out)
    # the evidence of each row (matched labels, profiles, scores) is in the JSON form, as a run's table.json
    evidence = out.with_suffix(".json") if out.suffix.lower() != ".json" else None
    if evidence is not None:
        write_table(result.table, evidence)
    progress("written")
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
    print(f"{len(result.table)} rows written to {args.output}" + (f" (evidence per row in {evidence})"
                                                                 if evidence else ""))
    return 0


def _copies(output: Path) -> Path:
    """The folder of the engine copies (repaired inputs) of a command writing ``output``: named after
    it (``m.ttl`` -> ``m.inputs/``), so that no folder of the user's (an ``inputs/`` holding the
    data itself) is written into; created only when a repair is needed."""
    return output.parent / f"{output.stem}.inputs"


def _yarrrml_document(path: Path) -> bool:
    """Whether ``path`` is a YARRRML document (by suffix: ``.yarrrml``; a ``.yml``/``.yaml`` file when
    its top level has ``mappings``, as a manifest's never has)."""
    if path.suffix.lower() == ".yarrrml":
        return True
    if path.suffix.lower() not in YARRRML_SUFFIXES or not path.is_file():
        return False
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return False
    return isinstance(doc, dict) and any(k in doc for k in ("mappings", "mapping", "m"))


def _manifest_document(path: Path) -> bool:
    """Whether ``path`` reads as a manifest (``sources`` and ``ontologies`` at its top level)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return False
    return isinstance(doc, dict) and "sources" in doc and "ontologies" in doc


def _compile_inputs(args: argparse.Namespace) -> tuple[str | None, str, str]:
    """(manifest or None, table or YARRRML, output) from ``kgc compile``'s arguments:
    ``MANIFEST TABLE OUTPUT``, ``MANIFEST TABLE -o OUTPUT``, ``YARRRML OUTPUT`` or ``YARRRML -o OUTPUT``."""
    given = list(args.inputs) + ([args.output_opt] if args.output_opt else [])
    if len(given) == 3:
        return given[0], given[1], given[2]
    if len(given) == 2 and Path(given[0]).suffix.lower() in YARRRML_SUFFIXES and not _manifest_document(Path(given[0])):
        return None, given[0], given[1]  # the YARRRML reader names what is wrong in it
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
    norm = normalize_rml(doc.graph, mapping_dir=Path(mapping).resolve().parent, base_iri=doc.base_iri,
                         where=str(mapping))
    unreadable = check_logical_sources(norm.graph)
    if unreadable:
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in unreadable))
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
    output_file(output, "output")
    yarrrml_out = None if args.yarrrml is None else \
        Path(args.yarrrml) if args.yarrrml else Path(output).with_suffix(".yarrrml.yml")
    if manifest is None or _yarrrml_document(Path(table_path)) or Path(table_path).suffix.lower() in YARRRML_SUFFIXES:
        return _compile_yarrrml(args, manifest, table_path, output, yarrrml_out)
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    work = Path(output).resolve().parent
    table = read_table(table_path)  # before anything is written: an unreadable table writes nothing
    copies = _copies(Path(output))
    fresh = not copies.exists()
    try:
        sources = [load_source(s, copies) for s in case.sources]
        require_readable(sources)
    except InputError:
        if fresh:  # bad input writes nothing, not even the repaired copies of the other sources
            shutil.rmtree(copies, ignore_errors=True)
        raise
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
    left_out = len(table) - len(compiled.plan.compiled_lines)
    rows = f"{len(compiled.plan.compiled_lines)} of {len(table)} rows" + \
        (f"; {left_out} left out, see the errors above" if left_out else "")
    print(f"{len(compiled.plan.triples_maps)} TriplesMaps ({rows}) written to {output}"
          + (" (legacy RML)" if args.rml == "legacy" else ""))
    if yarrrml_out:
        yarrrml_out.write_text(to_yarrrml(compiled.rml), encoding="utf-8")
        print(f"YARRRML written to {yarrrml_out}")
    return 1 if left_out else 0  # the RML is written, but rows of the table are not in it: something was lost


#: Output syntaxes of ``kgc materialize``, by ``--format`` and by the output's suffix.
_SYNTAXES = {"nt": ".nt", "nq": ".nq", "trig": ".trig", "ttl": ".ttl"}
_BY_SUFFIX = {".nt": "nt", ".ntriples": "nt", ".nq": "nq", ".nquads": "nq", ".trig": "trig", ".ttl": "ttl",
              ".turtle": "ttl"}


def _output_syntax(output: str, given: str | None) -> str:
    """The syntax to write: ``--format``, else by the output's suffix (``-``: N-Triples).

    Raises:
        InputError: a suffix no syntax is known by (``kg.txt``), before any work.
    """
    if given:
        return "ttl" if given == "turtle" else given
    if output == "-":
        return "nt"
    syntax = _BY_SUFFIX.get(Path(output).suffix.lower())
    if syntax is None:
        raise InputError(f"unknown RDF syntax for the output's extension {Path(output).suffix or '(none)'!r}; "
                         "expected .nt, .nq, .trig or .ttl, or give --format", path=output)
    return syntax


def _read_rml(path: Path) -> tuple[Graph, str]:
    """An RML document (Turtle) and its text.

    Raises:
        InputError: missing, not UTF-8, or not Turtle (the message names the line).
    """
    try:
        text = path.read_text(encoding="utf-8")
        return Graph().parse(data=text, format="turtle", publicID=path.absolute().as_uri()), text
    except FileNotFoundError as exc:
        raise InputError("RML file not found", path=path.absolute()) from exc
    except IsADirectoryError as exc:
        raise InputError("is a folder; expected an RML file (Turtle) or a Morph-KGC configuration (.ini)",
                         path=path) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not a UTF-8 text file: {exc}", path=path) from exc
    except Exception as exc:  # rdflib raises parser-specific types
        line, why = parse_error(exc)
        raise InputError(f"not an RML mapping in Turtle: {why}", path=path, line=line) from exc


def _absolute_sources(g: Graph, folder: Path) -> None:
    """Relative file names of ``g``'s logical sources made absolute against ``folder`` where the file
    is there (several mappings of one configuration, each relative to its own folder)."""
    for pred in (RML.source, URIRef("http://semweb.mmlab.be/ns/rml#source")):
        for ls, src in list(g.subject_objects(pred)):
            if isinstance(src, Literal) and "://" not in str(src) and not Path(str(src)).is_absolute() \
                    and (folder / str(src)).is_file():
                g.set((ls, pred, Literal(str((folder / str(src)).resolve()))))


def _morph_kgc_config(path: Path) -> tuple[list[Path], str | None, str | None]:
    """The mapping files, output file and output syntax of a Morph-KGC configuration (INI).

    Relative paths are taken from the working directory, as Morph-KGC takes them, else from the
    configuration's folder. Raises:
        InputError: not INI, no data source with ``mappings``, a database source, a missing file.
    """
    config = configparser.ConfigParser()
    try:
        config.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise InputError(f"not a Morph-KGC configuration (INI): {str(exc).splitlines()[0]}",
                         path=path, line=getattr(exc, "lineno", None)) from exc
    mappings: list[Path] = []
    for section in config.sections():
        if section.upper() == "CONFIGURATION":
            continue
        if config[section].get("db_url"):
            raise InputError(f"[{section}]: database sources (db_url) are not supported; kgc reads CSV, JSON and "
                             "XML files", path=path)
        for name in filter(None, (n.strip() for n in config[section].get("mappings", "").split(","))):
            here = Path(name) if Path(name).is_absolute() else Path.cwd() / name
            there = path.resolve().parent / name
            mappings.append(here if here.exists() or Path(name).is_absolute() else there)
    if not mappings:
        raise InputError("no data source section with 'mappings' (expected e.g. [DataSource1] mappings: m.ttl)",
                         path=path)
    conf = config["CONFIGURATION"] if config.has_section("CONFIGURATION") else {}
    fmt = {"N-TRIPLES": "nt", "N-QUADS": "nq"}.get(str(conf.get("output_format", "")).upper())
    out = conf.get("output_file")
    if out and not Path(out).is_absolute():
        out = str(Path.cwd() / out)
    return mappings, out, fmt


#: Above this many statements Turtle is written by pyoxigraph, streaming, one statement a line;
#: below it by rdflib, with the mapping's prefixes and one block per subject (rdflib holds the
#: graph in memory, about 1.5 KB a triple).
TURTLE_IN_MEMORY = 500_000


def _copy_out(src: Path, dst: Path | None, syntax: str, statements: int = 0,
              prefixes: tuple[tuple[str, str], ...] = ()) -> None:
    """Write the engine's output ``src`` (N-Triples for Turtle) to ``dst`` (``None``: standard output)."""
    if syntax == "ttl":
        turtle = src.with_suffix(".ttl.tmp")
        if statements <= TURTLE_IN_MEMORY:
            g = Graph()
            for prefix, ns in prefixes:
                g.bind(prefix, ns)
            g.parse(src, format="nt").serialize(turtle, format="turtle", encoding="utf-8")
        else:
            with open(turtle, "wb") as out:
                pyoxigraph.serialize(pyoxigraph.parse(str(src), "application/n-triples"), out, "text/turtle")
        src.unlink()
        src = turtle
    if dst is None:
        with open(src, "rb") as fh:
            shutil.copyfileobj(fh, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif src != dst:
        shutil.move(str(src), str(dst))


#: Namespaces of a mapping that are no vocabulary of its KG.
_MAPPING_NAMESPACES = ("http://w3id.org/rml/", "http://www.w3.org/ns/r2rml#", "http://semweb.mmlab.be/",
                       "https://w3id.org/kgc-pipeline/", "https://w3id.org/function/", "http://mapping.example.com/")


def _cmd_materialize(args: argparse.Namespace) -> int:
    given = args.mapping_opt or args.rml
    if given is None:
        raise InputError("no mapping given: kgc materialize RML OUTPUT (or -m RML -o OUTPUT)")
    source = Path(given)
    ini_output = ini_format = None
    if source.suffix.lower() in (".ini", ".cfg"):
        files, ini_output, ini_format = _morph_kgc_config(source)
    else:
        files = [source]
    target = args.output_opt or args.output or ini_output
    if target is None:
        raise InputError("no output given: kgc materialize RML OUTPUT (or -o OUTPUT; '-' for standard output)")
    if target != "-":
        output_file(target, "output")
    syntax = _output_syntax(target, args.format or ini_format)
    if args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    if args.distributed and (target == "-" or syntax == "ttl"):
        raise InputError("--distributed writes N-Triples or N-Quads parts beside a file: give an .nt or .nq output")
    rml, text = _read_rml(files[0])
    for more in files[1:]:
        graph, _ = _read_rml(more)
        _absolute_sources(graph, more.resolve().parent)
        rml += graph
    rml_path = files[0]
    base = document_base(text) or args.base_iri
    if base is None and args.manifest:
        base = load_manifest(args.manifest).base_iri
    norm = normalize_rml(rml, mapping_dir=rml_path.resolve().parent, base_iri=base, where=str(rml_path))
    if not norm.triples_maps:
        raise InputError("no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)", path=rml_path)
    unreadable = check_logical_sources(norm.graph)
    if unreadable:  # as `run`'s load stage: named here, not as an engine error on the copy
        raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} (expected: {f.expected})"
                                   for f in unreadable))
    with tempfile.TemporaryDirectory(prefix="kgc-materialize-") as tmp:
        # standard output: the engine copies and the KG file live in a folder that is removed after
        output = Path(tmp) / f"kg{_SYNTAXES[syntax]}" if target == "-" else Path(target)
        output.parent.mkdir(parents=True, exist_ok=True)
        return _materialize_to(args, norm, rml_path, output, syntax, target == "-", Path(tmp))


def _materialize_to(args: argparse.Namespace, norm, rml_path: Path, output: Path, syntax: str, to_stdout: bool,
                    tmp: Path) -> int:
    """Run the engine on the normalised mapping ``norm`` and write ``output`` (see :func:`_cmd_materialize`)."""
    say = sys.stderr if to_stdout else sys.stdout  # the statements go to standard output, the words not
    engine = output.with_suffix(".morph-kgc.ttl")
    for f in json_engine_copies(norm.graph, rml_path.resolve().parent, tmp if to_stdout else _copies(output)):
        print(f, file=sys.stderr)  # JSON with nulls: the engine reads a copy without them
    norm.graph.serialize(engine, format="turtle")
    if args.distributed:
        dist = materialize_distributed(norm.graph, output, args.partitions, args.master, where=str(engine))
        for f in [*norm.findings, *dist.findings]:
            print(f, file=sys.stderr)
        print(f"{dist.triples} triples written to {output} ({dist.partitions} partitions on {dist.workers} "
              f"Dask workers, {dist.broadcast} join parents broadcast; parts in {output}.parts/)", file=say)
        return 1 if dist.dropped else 0
    if norm.graph_maps and syntax in ("nt", "ttl"):
        wanted, syntax = syntax, "nq" if syntax == "nt" else "trig"
        if not to_stdout:
            output = output.with_suffix(_SYNTAXES[syntax])
        print(f"note: the mapping has graph maps: {'N-Quads' if syntax == 'nq' else 'TriG'} written to "
              f"{'standard output' if to_stdout else output} ({'N-Triples' if wanted == 'nt' else 'Turtle'} "
              "cannot hold named graphs)", file=sys.stderr)
    written = output.with_suffix(".nt.tmp") if syntax == "ttl" else output
    try:
        # findings name the RML the user gave, not the engine copy beside the output
        result = materialize(engine, processes=args.processes, output=written, fmt="nt" if syntax == "ttl" else syntax,
                             locate=lambda predicate: (str(rml_path), None), overlap=True)
    except InputError as exc:  # the engine ran the copy beside the output: name the user's mapping
        raise on_user_file(exc, rml_path) from exc
    for f in [*norm.findings, *result.findings]:
        print(f, file=sys.stderr)
    prefixes = tuple((p, str(ns)) for p, ns in norm.graph.namespaces()
                     if p and not str(ns).startswith(_MAPPING_NAMESPACES))
    _copy_out(written, None if to_stdout else output, syntax, result.n_triples, prefixes)
    print(f"{result.n_triples + result.n_quads} statements ({result.n_quads} in named graphs) "
          f"written to {'standard output' if to_stdout else output}", file=say)
    return 1 if result.dropped else 0


def add_map_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc map`` on the CLI's subparsers."""
    m = sub.add_parser("map", parents=[common], help="propose a mapping table for a case",
                       description="Write the mapper's table (.md/.csv/.json by suffix) for editing, and beside a "
                                   ".md or .csv table the same table as .json with each row's evidence; a line per "
                                   "stage on stderr (not with -q). "
                                   "Example: kgc map case.yaml table.md --mapper replay")
    m.add_argument("manifest", help="the case manifest (.yaml): sources, ontologies, SKOS")
    m.add_argument("output", help="table file to write; .md, .csv or .json by its suffix")
    m.add_argument("--mapper", default=DEFAULT_MAPPER, help=f"one of: {', '.join(known_mappers())} (default: %(default)s)")
    m.add_argument("--table", help="table to replay")
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


def add_materialize_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc materialize`` on the CLI's subparsers."""
    t = sub.add_parser("materialize", parents=[common], help="run Morph-KGC on an RML file",
                       description="Normalise the RML (R2RML, legacy RML or RML-Core, old FNML; RML-IO sources, base "
                                   "IRI), materialize with Morph-KGC, drop and report invalid triples, write the KG "
                                   "in the syntax of the output's extension (.nt, .nq, .trig, .ttl; '-' is standard "
                                   "output, N-Triples), N-Quads or TriG when the mapping has graph maps (said on "
                                   "stderr), and the engine copy <output>.morph-kgc.ttl beside it. The mapping may be "
                                   "a Morph-KGC configuration (.ini): its mappings, output_file and output_format. "
                                   "Exit 1 when triples were dropped, 2 when the mapping is invalid (the message "
                                   "names the TriplesMap and term map). Examples: kgc materialize mapping.rml.ttl "
                                   "kg.nt --manifest case.yaml; kgc materialize -m mapping.rml.ttl -o kg.ttl; "
                                   "kgc materialize morph-kgc.ini; kgc materialize m.ttl - | head")
    t.add_argument("rml", nargs="?", metavar="RML",
                   help="RML mapping (Turtle: R2RML, legacy RML or RML-Core), e.g. a run's mapping.rml.ttl, or a "
                        "Morph-KGC configuration (.ini)")
    t.add_argument("output", nargs="?", metavar="OUTPUT",
                   help="output file (.nt, .nq, .trig or .ttl; the folder is created), or '-' for standard output")
    t.add_argument("-m", "--mapping", dest="mapping_opt", metavar="RML", help="the mapping, as RMLMapper's -m")
    t.add_argument("-o", "--output", dest="output_opt", metavar="OUTPUT", help="the output, as RMLMapper's -o")
    t.add_argument("--manifest", help="the case: its base_iri resolves relative IRI templates when the RML "
                                      "has no @base or rml:baseIRI")
    t.add_argument("--base-iri", help="base IRI for relative IRI templates when the RML declares none (no @base, "
                                       "no rml:baseIRI); before the manifest's base_iri")
    t.add_argument("--format", choices=["nt", "nq", "trig", "ttl", "turtle"],
                   help="output syntax (default: by the output's extension; N-Triples for '-')")
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
