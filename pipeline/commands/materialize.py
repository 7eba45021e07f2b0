"""``kgc materialize``: any RML (or a Morph-KGC configuration) -> the KG, in the syntax of the output's
extension, to a file or to standard output."""
from __future__ import annotations

import argparse
import configparser
import dataclasses
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pyoxigraph
from rdflib import Graph, Literal, URIRef

from pipeline.commands import nothing_left_on_bad_input, output_file
from pipeline.commands.build import copies_beside
from pipeline.compile import RML
from pipeline.compile.yarrrml import SUFFIXES as YARRRML_SUFFIXES
from pipeline.compile.yarrrml import load_yarrrml
from pipeline.errors import InputError, not_utf8_error, on_user_file
from pipeline.manifest import load_manifest
from pipeline.materialize.data_errors import POLICIES, DataError, dropped_value, located, logical_sources, policy
from pipeline.materialize.distributed import BLOCK_SIZE, materialize_distributed, parse_size
from pipeline.materialize.document import materialize_document
from pipeline.materialize.rml.locate import at_triples_map
from pipeline.materialize.rml.normalize import document_base, normalize_rml
from pipeline.rdffile import NTRIPLES, RDF_FORMATS, SYNTAX_NAMES, parse_error, parse_turtle
from pipeline.sources.checks import check_logical_sources
from pipeline.sources.engine_copy import json_engine_copies

__all__ = ["PARSERS", "add_materialize_parser", "TURTLE_IN_MEMORY"]

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
        given = "ttl" if given == "turtle" else given
        by_suffix = _BY_SUFFIX.get(Path(output).suffix.lower()) if output != "-" else None
        if by_suffix is not None and by_suffix != given:  # kg.nt holding Turtle misleads every reader after
            name = {s: SYNTAX_NAMES[RDF_FORMATS[ext]] for s, ext in _SYNTAXES.items()}
            raise InputError(f"--format {given} writes {name[given]}, but the output's extension "
                             f"{Path(output).suffix!r} says {name[by_suffix]}; expected an output named "
                             f"{_SYNTAXES[given]}, or no --format", path=output)
        return given
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
        return parse_turtle(data=text, public_id=path.absolute().as_uri()), text
    except FileNotFoundError as exc:
        raise InputError("RML file not found", path=path.absolute()) from exc
    except IsADirectoryError as exc:
        raise InputError("is a folder; expected an RML file (Turtle) or a Morph-KGC configuration (.ini)",
                         path=path) from exc
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, exc) from exc
    except Exception as exc:  # rdflib raises parser-specific types
        line, why = parse_error(exc)
        raise InputError(f"not an RML mapping in Turtle: {why}", path=path, line=line) from exc


def _read_mapping(path: Path) -> tuple[Graph, str]:
    """A mapping file as RML and its text: Turtle RML, or YARRRML (by suffix, as Morph-KGC reads a
    configuration's ``mappings``) translated by kgc's YARRRML reader (text ``""``: no ``@base``).

    Raises:
        InputError: as :func:`_read_rml`, or the YARRRML reader's error naming file and line.
    """
    if path.suffix.lower() in YARRRML_SUFFIXES:
        if not path.is_file():
            raise InputError("YARRRML file not found", path=path.absolute())
        doc = load_yarrrml(path)
        for note in doc.notes:  # what the reader read with a remark (a prefix Morph-KGC reads otherwise ...)
            print(f"note: {path}: {note}", file=sys.stderr)
        return doc.graph, ""
    return _read_rml(path)


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
    # read as Morph-KGC reads it ("$$" is one "$", "%" is plain)
    config = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())
    try:
        config.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, exc) from exc
    except configparser.Error as exc:
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


def _drop_unparsable(src: Path) -> tuple[int, str]:
    """Rewrite the N-Triples file ``src`` without its lines that are not N-Triples statements.

    Returns:
        ``(lines dropped, "line N: the first of them")``.
    """
    kept = src.with_suffix(".checked.tmp")
    dropped, first = 0, ""
    with open(src, "rb") as fin, open(kept, "wb") as fout:
        for n, line in enumerate(fin, 1):
            try:
                list(pyoxigraph.parse(io.BytesIO(line), "application/n-triples"))
            except (SyntaxError, ValueError):
                dropped += 1
                first = first or f"line {n}: {line.decode('utf-8', 'replace').strip()[:300]}"
                continue
            fout.write(line)
    kept.replace(src)
    return dropped, first


def _turtle(src: Path, turtle: Path, statements: int, prefixes: tuple[tuple[str, str], ...]) -> None:
    if statements <= TURTLE_IN_MEMORY:
        g = Graph()
        for prefix, ns in prefixes:
            g.bind(prefix, ns)
        g.parse(src, format=NTRIPLES).serialize(turtle, format="turtle", encoding="utf-8")
    else:
        with open(turtle, "wb") as out:
            pyoxigraph.serialize(pyoxigraph.parse(str(src), "application/n-triples"), out, "text/turtle")


def _copy_out(src: Path, dst: Path | None, syntax: str, statements: int = 0,
              prefixes: tuple[tuple[str, str], ...] = ()) -> tuple[int, str]:
    """Write the engine's output ``src`` (N-Triples for Turtle) to ``dst`` (``None``: standard output).

    Returns:
        ``(statements dropped, the first of them)``: for Turtle, lines of ``src`` the guard let
        through that are not N-Triples (none when the guard holds): they are left out of the
        Turtle, which is written from the others, never a parser's traceback.
    """
    dropped, first = 0, ""
    if syntax == "ttl":
        turtle = src.with_suffix(".ttl.tmp")
        try:
            _turtle(src, turtle, statements, prefixes)
        except Exception:  # noqa: BLE001 - rdflib raises parser-specific types; whatever it is, it is a line
            dropped, first = _drop_unparsable(src)
            _turtle(src, turtle, statements, prefixes)
        src.unlink()
        src = turtle
    if dst is None:
        with open(src, "rb") as fh:
            shutil.copyfileobj(fh, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif src != dst:
        shutil.move(str(src), str(dst))
    return dropped, first


#: Namespaces of a mapping that are no vocabulary of its KG.
_MAPPING_NAMESPACES = ("http://w3id.org/rml/", "http://www.w3.org/ns/r2rml#", "http://semweb.mmlab.be/",
                       "https://w3id.org/kgc-pipeline/", "https://w3id.org/function/", "http://mapping.example.com/")


def _predicate_locator(files: list[Path], graph: Graph):
    """A ``locate`` for the guard's findings on a user's RML: predicate IRI -> ``(file, line,
    "rml:predicate")`` of the first line of ``files`` that writes the predicate (as ``<IRI>`` or as
    a prefixed name of ``graph``'s prefixes) after a ``predicate`` key; ``(files[0], None)`` when no
    line does (a predicate map's template, a mapping translated from another syntax).

    Args:
        files: the RML documents the user gave, in order.
        graph: the parsed mapping (its namespace bindings give the prefixed names).
    Returns:
        The callable ``locate(predicate, reason) -> tuple``.
    """
    texts = [(f, f.read_text(encoding="utf-8").splitlines()) for f in files]
    prefixes = [(p, str(ns)) for p, ns in graph.namespaces() if p]

    def locate(predicate: str, reason: str = "") -> tuple:  # noqa: ARG001 - an RML predicate has one place
        written = [f"<{predicate}>"] + [f"{p}:{predicate[len(ns):]}" for p, ns in prefixes
                                          if predicate.startswith(ns) and predicate[len(ns):]]
        for f, lines in texts:
            for n, line in enumerate(lines, 1):
                at = line.find("predicate")
                if at >= 0 and any(re.search(re.escape(w) + r"(?![\w.:-]*[\w:-])", line[at:]) for w in written):
                    return str(f), n, "rml:predicate"
        return str(files[0]), None

    return locate


#: The message of a JSON engine copy's finding (:func:`~pipeline.sources.engine_copy.json_engine_copies`): the copy.
_ENGINE_READS = re.compile(r"the engine reads (.+?)(?: for the iterator |: only )")


def _say_finding(finding, where_from=None) -> None:
    """Print ``finding`` on standard error; for statements the guard dropped, the first of them on
    the next line, so a user can find the record (its subject) and the value; for values a function
    or a join gave no term for, the first (up to three) values.

    Args:
        finding: the finding. where_from: ``(predicate IRI, statement) -> "value 'x' in file line N"``
            or ``None`` (:func:`~pipeline.materialize.data_errors.dropped_value`), for an IRI or a
            literal read as it is dropped.
    """
    file = sys.stderr  # looked up per call: the stream may be replaced after import (capture, redirection)
    print(finding, file=file)
    if finding.stage == "materialize" and finding.value and "value(s) dropped" in finding.message:
        print(f"  first dropped: {'; '.join(finding.value.split(' | '))[:600]}", file=file)  # the values, up to 3
    elif finding.stage == "materialize" and finding.value and "dropped" in finding.message:
        first = finding.value.split(" | ")[0]
        found = where_from(first) if where_from is not None else None
        print(f"  first dropped: {f'{found}: ' if found else ''}{first[:300]}{' ...' if len(first) > 300 else ''}",
              file=file)


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
        output_file(target, "output", [source, *files, args.manifest])
    if args.engine_copy:
        output_file(args.engine_copy, "--engine-copy", [source, *files, args.manifest, target])
    syntax = _output_syntax(target, args.format or ini_format)
    if args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    if args.distributed and args.on_data_error == "stop":
        raise InputError("--on-data-error stop runs in one process: run without --distributed")
    if args.distributed and (target == "-" or syntax in ("ttl", "trig")):
        raise InputError("--distributed writes N-Triples or N-Quads parts beside a file: give an .nt or .nq output")
    rml, text = _read_mapping(files[0])
    for more in files[1:]:
        graph, _ = _read_mapping(more)
        _absolute_sources(graph, more.resolve().parent)
        rml += graph
    rml_path = files[0]
    base = document_base(text) or args.base_iri
    if base is None and args.manifest:
        base = load_manifest(args.manifest).base_iri
    # bad input writes nothing: not the KG begun, nor the repaired copies of the sources (kept beside an
    # --engine-copy, which reads them), nor the folders made for them
    made = [] if target == "-" else [Path(target), Path(target).with_suffix(".nt.tmp")]
    if target != "-" and not args.engine_copy:
        made.append(copies_beside(Path(target)))
    with nothing_left_on_bad_input(*made), tempfile.TemporaryDirectory(prefix="kgc-materialize-") as tmp:
        # standard output: the engine copies and the KG file live in a folder that is removed after
        output = Path(tmp) / f"kg{_SYNTAXES[syntax]}" if target == "-" else Path(target)
        # decoded copies of compressed or non-UTF-8 sources (RML-IO) go where the JSON copies go
        try:
            norm = normalize_rml(rml, mapping_dir=rml_path.resolve().parent, base_iri=base, where=str(rml_path),
                                 copies=Path(tmp) if target == "-" else copies_beside(output))
        except InputError as exc:  # RMLError too: the line of the TriplesMap it names
            raise at_triples_map(exc, files) from exc
        if not norm.triples_maps:
            raise InputError("no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)", path=rml_path)
        if target != "-":  # the data the mapping reads is never written over either
            output_file(target, "output", [str(v) for v in norm.graph.objects(None, RML.source) if isinstance(v, Literal)])
        unreadable = check_logical_sources(norm.graph)
        if unreadable:  # as `run`'s load stage: named here, not as an engine error on the copy
            raise InputError("; ".join(f"{f.file}{f':{f.line}' if f.line else ''}: {f.message} "
                                       f"(expected: {f.expected})" for f in unreadable))
        if args.distributed and (norm.gathers is not None or norm.targets is not None):
            raise InputError("--distributed runs the engine copy only: this mapping has "
                             + ("RML-CC gather maps" if norm.gathers is not None else "RML-IO logical targets")
                             + ", which kgc computes beside the engine; run without --distributed", path=rml_path)
        output.parent.mkdir(parents=True, exist_ok=True)
        return _materialize_to(args, norm, rml_path, output, syntax, target == "-", Path(tmp),
                               _predicate_locator(files, rml), files)


def _on_mapping(exc: InputError, rml_path: Path, engine: Path) -> InputError:
    """``exc``, raised on the engine copy ``engine``, named on the user's mapping ``rml_path``; the
    copy is not named when it is the temporary one (removed when the command ends)."""
    if exc.path is not None and Path(exc.path) == engine:
        out = type(exc)(str(exc)[len(f"{exc.path}" + (f":{exc.line}" if exc.line is not None else "") + ": "):],
                        path=rml_path, key=exc.key)
        out.__cause__ = exc.__cause__
        return out
    return on_user_file(exc, rml_path)


def _materialize_to(args: argparse.Namespace, norm, rml_path: Path, output: Path, syntax: str, to_stdout: bool,
                    tmp: Path, locate, files: list[Path]) -> int:
    """Run the engine on the normalised mapping ``norm`` and write ``output`` (see :func:`_cmd_materialize`)."""
    say = sys.stderr if to_stdout else sys.stdout  # the statements go to standard output, the words not
    # the engine copy lives in the command's temporary folder: a file beside the output may be the
    # user's (even the mapping being read), and nothing is written where the user did not ask
    engine = tmp / f"{output.stem}.morph-kgc.ttl"
    sources = logical_sources(norm.graph)  # the files the user's mapping names, not the engine copies
    mapping_dir = rml_path.resolve().parent

    def where_from(statement: str) -> str | None:
        return dropped_value(norm.graph, sources, statement, mapping_dir)
    copies: dict[str, str] = {}  # engine copy -> the user's file, for the findings on the data
    # with the KG on standard output the copies live in the temporary folder: a message names none of
    # them (the file is gone when the user reads it) but says that the file was temporary
    temporary = re.compile("|".join(re.escape(str(t)) for t in {tmp, tmp.resolve()}) + r"/[^\s,:;()]+")

    def untemporary(f):
        if not to_stdout or not temporary.search(f.message):
            return f
        return dataclasses.replace(f, message=temporary.sub("a temporary file removed when the command ends", f.message))
    for f in json_engine_copies(norm.graph, rml_path.resolve().parent, tmp if to_stdout else copies_beside(output)):
        if m := _ENGINE_READS.match(f.message):
            copies[m.group(1)] = f.file
        print(untemporary(f), file=sys.stderr)  # JSON with nulls: the engine reads a copy without them

    def on_user_data(f):
        if f.file == str(engine):  # a finding on the temporary engine copy is one on the user's mapping
            return dataclasses.replace(f, file=str(rml_path))
        return untemporary(dataclasses.replace(f, file=copies[f.file]) if f.file in copies else f)
    norm.graph.serialize(engine, format="turtle")
    if args.engine_copy:  # asked for: written before the engine runs, so it is there to read when it fails
        Path(args.engine_copy).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(engine, args.engine_copy)
    if norm.graph_maps and syntax in ("nt", "ttl"):
        wanted, syntax = syntax, "nq" if syntax == "nt" else "trig"
        if not to_stdout:
            output = output.with_suffix(_SYNTAXES[syntax])
        print(f"note: the mapping has graph maps: {'N-Quads' if syntax == 'nq' else 'TriG'} written to "
              f"{'standard output' if to_stdout else output} ({'N-Triples' if wanted == 'nt' else 'Turtle'} "
              "cannot hold named graphs)", file=sys.stderr)
    if args.distributed:
        try:
            dist = materialize_distributed(engine, output, workers=args.workers, scheduler=args.scheduler,
                                           block_size=parse_size(args.block_size), merge=not args.no_merge, fmt=syntax,
                                           where=str(rml_path), locate=locate)
        except InputError as exc:
            raise at_triples_map(_on_mapping(exc, rml_path, engine), files) from exc
        for f in [*norm.findings, *dist.findings]:
            _say_finding(on_user_data(norm.in_user_terms(f, rml_path)), where_from)
        merged = (f"{dist.n_triples + dist.n_quads} statements ({dist.n_quads} in named graphs) written to {output}; "
                  if dist.merged is not None else "")
        print(f"{merged}{len(dist.parts)} sorted parts and their manifest in {dist.manifest.parent}/ ({dist.blocks} "
              f"source blocks, {dist.buckets} join buckets, tasks {dist.tasks} on {dist.workers} Dask workers)", file=say)
        return 1 if dist.dropped else 0
    written = output.with_suffix(".nt.tmp") if syntax == "ttl" else output
    try:
        # findings name the RML the user gave, not the engine copy beside the output
        with policy(args.on_data_error):
            done = materialize_document(norm, engine, written, "nt" if syntax == "ttl" else syntax,
                                        processes=args.processes, locate=locate,
                                        overlap=True, columnar=not args.engine_only)
    except DataError as exc:  # --on-data-error stop: the first one, named in the user's mapping and data
        raise located(exc, norm.graph, sources, rml_path.resolve().parent) from None
    except InputError as exc:  # the engine ran the temporary copy: name the user's mapping
        raise at_triples_map(_on_mapping(exc, rml_path, engine), files) from exc
    result = done.result
    for f in [*norm.findings, *result.findings]:
        _say_finding(on_user_data(norm.in_user_terms(f, rml_path)), where_from)
    prefixes = tuple((p, str(ns)) for p, ns in norm.graph.namespaces()
                     if p and not str(ns).startswith(_MAPPING_NAMESPACES))
    unparsable, first = _copy_out(written, None if to_stdout else output, syntax, result.n_triples, prefixes)
    if unparsable:  # the guard's contract broken: said, and the statements are not written
        print(f"error: {rml_path}: {unparsable} statement(s) the engine wrote are not N-Triples and were left out "
              f"of {'standard output' if to_stdout else output} (first: {first})", file=sys.stderr)
    print(f"{result.n_triples + result.n_quads - unparsable} statements ({result.n_quads} in named graphs) "
          f"written to {'standard output' if to_stdout else output}", file=say)
    for target, path, n in done.targets:
        print(f"{n} statements written to logical target {target.label()}: {path} ({target.serialization}"
              f"{', ' + target.compression if target.compression else ''}"
              f"{', ' + target.encoding.upper() if target.encoding != 'utf-8' else ''})", file=say)
    return 1 if done.dropped or unparsable else 0


def add_materialize_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc materialize`` on the CLI's subparsers."""
    t = sub.add_parser("materialize", parents=[common], help="run Morph-KGC on an RML file",
                       description="Normalise the RML (R2RML, legacy RML or RML-Core, old FNML; RML-IO sources, base "
                                   "IRI), materialize with Morph-KGC, drop and report invalid triples, write the KG "
                                   "in the syntax of the output's extension (.nt, .nq, .trig, .ttl; '-' is standard "
                                   "output, N-Triples), N-Quads or TriG when the mapping has graph maps (said on "
                                   "stderr), each RML-IO logical target in its own file; nothing else is written (the "
                                   "engine's copy of the mapping is temporary; --engine-copy keeps it). The mapping may be "
                                   "a Morph-KGC configuration (.ini): its mappings, output_file and output_format. "
                                   "Exit 1 when triples or values were dropped (a value a function cannot read, a join key no "
                                   "parent has), 2 when the mapping is invalid (the message "
                                   "names the TriplesMap and term map). Examples: kgc materialize mapping.rml.ttl "
                                   "kg.nt --manifest case.yaml; kgc materialize -m mapping.rml.ttl -o kg.ttl; "
                                   "kgc materialize morph-kgc.ini; kgc materialize m.ttl - | head")
    t.add_argument("rml", nargs="?", metavar="RML",
                   help="RML mapping (Turtle: R2RML, legacy RML or RML-Core), e.g. a run's mapping.rml.ttl, a "
                        "YARRRML file (.yml, .yaml, .yarrrml), or a Morph-KGC configuration (.ini) naming either")
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
                   help="run on Dask workers: the sources in blocks read by the workers, joins partitioned by their key, "
                        "sorted parts plus a manifest in <output>.parts/, merged into the output")
    t.add_argument("--workers", type=int, default=2, help="worker processes of the local Dask cluster (with --distributed; "
                                                          "default: %(default)s)")
    t.add_argument("--scheduler", "--master", dest="scheduler", metavar="ADDRESS",
                   help="a Dask scheduler, e.g. tcp://host:8786, instead of a local cluster (with --distributed; "
                        "sources and the output folder on storage every worker reads)")
    t.add_argument("--block-size", default=f"{BLOCK_SIZE >> 20}M",
                   help="bytes of source per task, e.g. 8M, 64MiB (with --distributed; default: %(default)s)")
    t.add_argument("--no-merge", action="store_true",
                   help="keep the sorted parts and their manifest as the output, without the merged file (with --distributed)")
    t.add_argument("--on-data-error", choices=POLICIES, default="drop",
                   help="a term the data make invalid (an IRI that is not absolute or valid, an ill-typed literal, a "
                        "JSON array or object where a reference needs a value; R2RML section 11): 'drop' drops the "
                        "statement, reports it and exits 1 (default); 'stop' stops at the first one with exit 2 and "
                        "one line naming the TriplesMap, term map, source file, record and value (no KG written)")
    t.add_argument("--processes", type=int, default=1,
                   help="engine worker processes: Morph-KGC's mapping partitions run in parallel, each guarded in "
                        "its worker (default: %(default)s)")
    t.add_argument("--engine-copy", metavar="FILE",
                   help="also write the engine's copy of the mapping (the normalised RML Morph-KGC runs) to FILE; "
                        "without it the copy is temporary")
    t.add_argument("--engine-only", action="store_true",
                   help="run every rule through Morph-KGC's own per-row path, also those over CSV/TSV files that "
                        "kgc runs column by column (same output, more CPU; for comparison)")
    t.set_defaults(func=_cmd_materialize)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"materialize": add_materialize_parser}
