"""RML vocabulary and sources: passes 1 and 2 of :func:`pipeline.materialize.rml.normalize.normalize_rml`.

1. ``unify``: R2RML (``rr:``) and legacy RML (``http://semweb.mmlab.be/ns/rml#``, ``ql:``)
   terms become RML-Core terms (``http://w3id.org/rml/``); constant shortcuts with a datatype or
   language tag become constant object maps and reference-valued join child/parent maps become
   ``rml:child`` / ``rml:parent``, which is what Morph-KGC 2.10 reads; old FNML (``fnml:functionValue``) becomes
   RML-FNML (:func:`unify`).
2. ``sources``: RML-IO source descriptions and relative file names become absolute paths
   (:func:`resolve_sources`).
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.findings import Finding
from pipeline.materialize.rml.check import node_name
from pipeline.materialize.rml.vocabulary import FNML, KGC, LEGACY, QL, RML, RR
from pipeline.sources.engine_copy import EngineCopy, csv_copy, csv_dialect, decoded_copy

__all__ = ["unify", "resolve_sources"]

_RENAMED = {RR.column: RML.reference, RR.logicalTable: RML.logicalSource, RR.sqlQuery: RML.query,
            RR.datatype: RML.datatype, RR.language: RML.language}
_NO_HASH = ("http://www.w3.org/ns/r2rml", "http://semweb.mmlab.be/ns/rml", "http://semweb.mmlab.be/ns/ql",
            "http://semweb.mmlab.be/ns/fnml")
#: RMLMapper's logical-target vocabulary (http://semweb.mmlab.be/ns/rml-target#, the RML-IO draft's
#: ``rmlt:``) and its compression namespace: each term is the RML-IO term of the same local name.
RMLT = "http://semweb.mmlab.be/ns/rml-target#"
COMP = "http://semweb.mmlab.be/ns/rml-compression#"
_RMLT_TERMS = {"LogicalTarget", "target", "serialization", "compression", "encoding"}
_COMP_TERMS = {"gzip", "zip", "tarxz", "targz", "none", "UTF-8", "UTF-16"}
_VOID_DUMP = (URIRef("http://rdfs.org/ns/void#dataDump"), URIRef("http://www.w3.org/ns/dcat#dataDump"))
_DUMP_SUFFIXES = {".nq": "N-Quads", ".nt": "N-Triples", ".ttl": "Turtle", ".jsonld": "JSON-LD"}


def _missing_hash(term: str, ns: str) -> bool:
    """Whether ``term`` is a term of namespace ``ns`` declared without its '#' (``rml:source`` with
    ``rml: <http://semweb.mmlab.be/ns/rml>`` gives ``...ns/rmlsource``): a plain name follows ``ns``,
    not another namespace that merely starts like it (``rml-target#``, ``rml-compression#``)."""
    return term.startswith(ns) and re.fullmatch(r"[A-Za-z_]\w*", term[len(ns):]) is not None


def unify(g: Graph, where: str) -> Graph:
    """A copy of ``g`` in the RML-Core vocabulary.

    Raises:
        RMLError: an RML/R2RML namespace is missing its ``#``.
    """
    missing = sorted({ns for _, p, o in g for term in (p, o) if isinstance(term, URIRef) for ns in _NO_HASH
                      if _missing_hash(str(term), ns)})
    if missing:
        raise RMLError(f"namespace{'s' if len(missing) > 1 else ''} {', '.join(f'<{ns}>' for ns in missing)} "
                       f"{'are missing their' if len(missing) > 1 else 'is missing its'} '#': no RML or R2RML term is recognised; "
                       f"declare the prefix{'es' if len(missing) > 1 else ''} as "
                       f"{', '.join(f'<{ns}#>' for ns in missing)}", path=where)
    out = Graph()
    for prefix, ns in g.namespaces():
        if str(ns) not in (str(RR), str(LEGACY), str(QL)):
            out.bind(prefix, ns)
    out.bind("rml", RML, override=True)

    def conv(t: Node) -> Node:
        if isinstance(t, URIRef):
            if t in _RENAMED:
                return _RENAMED[t]
            if t == RML.UnsafeIRI:
                # an RML-Core term type the engine does not know; read as IRI (an unsafe IRI that is
                # not a valid IRI cannot be written anyway); rml:URI is kept for the derived sources
                return RML.IRI
            for ns in (RR, LEGACY, QL):
                if t.startswith(str(ns)):
                    return RML[t[len(str(ns)):]]
            for ns, known in ((RMLT, _RMLT_TERMS), (COMP, _COMP_TERMS)):
                if t.startswith(ns):
                    if t[len(ns):] not in known:
                        raise RMLError(f"<{t}> is a term of RMLMapper's logical-target vocabulary that kgc does not "
                                       f"run (it reads rmlt:{', rmlt:'.join(sorted(_RMLT_TERMS))} as the RML-IO terms "
                                       "of the same name); write the target with rml:LogicalTarget (RML-IO)",
                                       path=where)
                    return RML[t[len(ns):]]
        return t

    for s, p, o in g:
        out.add((conv(s), conv(p), conv(o)))
    for pom, lit in list(out.subject_objects(RML.object)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            # the engine drops the datatype / language tag of a constant shortcut (rml:object "x"@en)
            om = BNode()
            out.remove((pom, RML.object, lit))
            out.add((pom, RML.objectMap, om))
            out.add((om, RML.constant, lit))
    for om, lit in list(out.subject_objects(RML.constant)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            out.set((om, RML.constant, Literal(str(lit))))
            if lit.language and out.value(om, RML.language) is None:
                out.add((om, RML.language, Literal(lit.language)))
            elif lit.datatype is not None and out.value(om, RML.datatype) is None:
                out.add((om, RML.datatype, lit.datatype))
    _legacy_functions(out, where)
    _legacy_targets(out, where)
    for short, long in ((RML.child, RML.childMap), (RML.parent, RML.parentMap)):
        # RML-Core join conditions may use child/parent maps; the engine reads rml:child/rml:parent.
        # A template- or constant-valued one stays: the join key is derived
        # (:mod:`pipeline.materialize.views.derive`), and logical views evaluate their joins themselves.
        for cond, m in list(out.subject_objects(long)):
            ref = out.value(m, RML.reference)
            if ref is None:
                continue
            out.remove((cond, long, m))
            out.add((cond, short, ref))
    return out


_FNO_EXECUTES = URIRef("https://w3id.org/function/ontology#executes")


def _legacy_targets(g: Graph, where: str) -> None:
    """The target descriptions of RMLMapper's logical targets, in place, as RML-IO file targets:
    a VoID or DCAT dataset's data dump (``rmlt:target [ a void:Dataset; void:dataDump
    <file://dump.nt> ]``: the path after ``file://``, relative to the mapping's folder) and a
    literal path (its serialization from its extension, as RMLMapper takes it) become
    ``rml:target [ rml:path "dump.nt" ]``.

    Raises:
        RMLError: a data dump that is no local file (kgc writes files only).
    """
    for lt, target in list(g.subject_objects(RML.target)):
        if isinstance(target, Literal):
            node = BNode()
            g.remove((lt, RML.target, target))
            g.add((lt, RML.target, node))
            g.add((node, RML.path, target))
            ser = _DUMP_SUFFIXES.get(Path(str(target)).suffix.lower())
            if ser is not None and g.value(lt, RML.serialization) is None:
                g.add((lt, RML.serialization, URIRef("http://www.w3.org/ns/formats/" + ser)))
            continue
        if g.value(target, RML.path) is not None:
            continue
        dump = next((d for p in _VOID_DUMP for d in g.objects(target, p)), None)
        if dump is None:
            continue  # said by the targets pass: no rml:path
        if not str(dump).startswith("file:"):
            raise RMLError(f"logical target {node_name(lt)}: the data dump <{dump}> is no local file (kgc writes "
                           "files only: write rml:target [ rml:path \"kg.nt\" ])", path=where)
        g.add((target, RML.path, Literal(re.sub(r"^file:(//)?", "", str(dump)))))


def _owner(g: Graph, node: Node) -> Node | None:
    """The TriplesMap a node of a mapping hangs below (the nearest ancestor with a logical source or
    subject map), ``None`` when there is none."""
    todo, seen = [node], set()
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.add(n)
        if any(g.value(n, p) is not None for p in (RML.logicalSource, RML.subjectMap, RML.subject)):
            return n
        todo += list(g.subjects(None, n))
    return None


def _remove_node(g: Graph, node: Node | None) -> None:
    """Remove the triples whose subject is ``node``; nothing for ``None`` (``g.remove((None, None,
    None))`` would empty the whole graph)."""
    if node is not None:
        g.remove((node, None, None))


def _legacy_functions(g: Graph, where: str) -> None:
    """Old FNML, in place: ``fnml:functionValue`` (a nested predicate-object map whose
    ``fno:executes`` names the function and whose other predicates are its parameters, what
    yarrrml-parser and RMLMapper write) becomes an RML-FNML ``rml:functionExecution``, which the
    engine (Morph-KGC 2.10) runs; it does not read the old form. The function and each parameter
    value may be given by an object map or by the ``rr:object`` shortcut (R2RML section 6.1: a
    constant object map), as RMLMapper's documentation writes them.

    Raises:
        RMLError: a function value without ``fno:executes`` (the message names its TriplesMap).
    """
    value = URIRef(FNML + "functionValue")
    for term_map, fv in list(g.subject_objects(value)):
        ex = BNode()
        fn = None
        said: list[str] = []
        for pom in list(g.objects(fv, RML.predicateObjectMap)):
            pred = g.value(pom, RML.predicate)
            if pred is None and g.value(pom, RML.predicateMap) is not None:
                pred = g.value(g.value(pom, RML.predicateMap), RML.constant)
            om = g.value(pom, RML.objectMap)
            shortcut = g.value(pom, RML.object)
            if pred is not None:
                said.append(pred.n3(g.namespace_manager))
            if pred == _FNO_EXECUTES:
                fn = g.value(om, RML.constant) if om is not None else shortcut
                _remove_node(g, om)
            elif pred is not None and (om is not None or shortcut is not None):
                if om is None:  # rr:object x: the constant object map [ rr:constant x ]
                    om = BNode()
                    g.add((om, RML.constant, shortcut))
                inp = BNode()
                g.add((ex, RML.input, inp))
                g.add((inp, RDF.type, RML.Input))
                g.add((inp, RML.parameter, pred))
                g.add((inp, RML.inputValueMap, om))
                g.remove((om, RDF.type, None))
            _remove_node(g, g.value(pom, RML.predicateMap))
            _remove_node(g, pom)
        if fn is None:
            tm = _owner(g, term_map)
            raise RMLError(f"{f'TriplesMap {node_name(tm)}: ' if tm is not None else ''}a function value "
                           "(fnml:functionValue) names no function: it needs a predicate-object map with "
                           "rr:predicate fno:executes and the function as rr:object (its predicates: "
                           f"{', '.join(sorted(said)) or 'none'})", path=where)
        _remove_node(g, fv)
        g.remove((term_map, value, fv))
        g.remove((term_map, RDF.type, URIRef(FNML + "FunctionTermMap")))
        g.add((term_map, RML.functionExecution, ex))
        g.add((ex, RDF.type, RML.FunctionExecution))
        g.add((ex, RML.function, URIRef(str(fn))))


#: RML-IO encodings (local names of ``rml:UTF-8`` ...) -> Python codecs.
_ENCODINGS = {"UTF-8": None, "UTF-16": "utf-16", "UTF-16LE": "utf-16-le", "UTF-16BE": "utf-16-be",
              "UTF-32": "utf-32", "ISO-8859-1": "latin-1", "Latin1": "latin-1", "US-ASCII": "ascii",
              "Windows-1252": "cp1252"}
#: Source descriptions kgc cannot read (databases, endpoints, streams): refused with what they are.
_NOT_FILES = {"Database": "a D2RQ database (d2rq:Database)", "Service": "a SPARQL endpoint (sd:Service)",
              "DCATDistribution": "a DCAT distribution", "WebAPI": "a Web API (hydra)",
              "Kafka": "a Kafka stream", "Stream": "a stream", "SQL": "a database"}


#: CSV on the Web (Metadata Vocabulary for Tabular Data): a source description's dialect.
CSVW = "http://www.w3.org/ns/csvw#"
#: Dialect properties (section 5.9) whose other values change what the header, a record or a field
#: is, which the engine cannot read: each with its default, the one value accepted.
_CSVW_FIXED = {"header": "true", "headerRowCount": "1", "skipRows": "0", "skipColumns": "0", "quoteChar": '"',
               "doubleQuote": "true", "encoding": "utf-8"}


def _declared_delimiter(g: Graph, src: Node, who: str, where: str) -> str | None:
    """The separator a CSVW dialect of the source description ``src`` declares (``csvw:dialect [
    csvw:delimiter ";" ]``), or ``None``.

    Raises:
        RMLError: a dialect property of :data:`_CSVW_FIXED` with another value than its default, or a
            delimiter that is not one character.
    """
    dialect = g.value(src, URIRef(CSVW + "dialect"))
    if dialect is None:
        return None
    for name, default in _CSVW_FIXED.items():
        value = g.value(dialect, URIRef(CSVW + name))
        if value is not None and str(value).strip().lower() != default:
            raise RMLError(f"{who}: the CSVW dialect's csvw:{name} {str(value)!r} is not one kgc reads (expected: "
                           f"{default!r}, the default, or no csvw:{name})", path=where)
    delimiter = g.value(dialect, URIRef(CSVW + "delimiter"))
    if delimiter is not None and len(str(delimiter)) != 1:
        raise RMLError(f"{who}: the CSVW dialect's csvw:delimiter {str(delimiter)!r} is not one character", path=where)
    return None if delimiter is None else str(delimiter)


def _comma_separated(found: Path, declared: str | None, copies: Path | None, taken: dict[str, Path],
                     ) -> tuple[Path, Finding | None]:
    """The file the engine reads for the CSV source ``found``: ``found`` when it is comma-separated
    (tab-separated: ``.tsv``) without a byte-order mark, else a comma-separated UTF-8 copy in ``copies``
    (:func:`~pipeline.sources.engine_copy.csv_copy`, as ``kgc run`` reads such a file), named as the
    input unless another file of that name was copied already (``taken``: copy name -> input).

    Morph-KGC 2.10 reads ``,`` and guesses another separator only when that fails, with the byte-order
    mark as part of the first column's name; a declared separator it never reads."""
    try:
        delimiter, bom = csv_dialect(found, declared)
    except (OSError, UnicodeDecodeError):
        return found, None  # the load-time checks report an unreadable file
    if delimiter == ("\t" if found.suffix.lower() == ".tsv" else ",") and not bom:
        return found, None  # the engine reads a .tsv file as tab-separated, any other as comma-separated
    name = found.name  # csv_copy names it .csv: the engine takes the separator from the suffix
    if taken.get(name, found) != found or (copies is not None and found.parent == Path(copies).resolve()):
        name = f"{found.stem}.comma.csv"  # another input's copy, or a decoded copy itself
    taken[name] = found
    copy = EngineCopy(found, copies, name=name)
    finding = csv_copy(copy, delimiter, bom)
    return copy.path.resolve(), finding


def _local(node: Node | None) -> str:
    return "" if node is None else re.split(r"[/#]", str(node))[-1]


def _users(g: Graph, ls: Node) -> str:
    """The TriplesMaps (or views) that read a logical source, for messages."""
    tms = sorted(g.subjects(RML.logicalSource, ls), key=str) or sorted(g.subjects(RML.viewOn, ls), key=str)
    return ", ".join(f"TriplesMap {node_name(t)}" if (t, RML.viewOn, None) not in g else f"logical view {node_name(t)}"
                     for t in tms) or f"logical source {node_name(ls)}"


def _csv_format(g: Graph, ls: Node, path: Path) -> bool:
    rf = g.value(ls, RML.referenceFormulation)
    return _local(rf) == "CSV" if rf is not None else path.suffix.lower() in (".csv", ".tsv")


def _scan_csv(path: Path, nulls: set[str], who: str, where: str) -> bool:
    """Check an RML-IO CSV source (RFC 4180: every record has the header's field count) and say
    whether the engine, which reads an empty cell as null and nothing else, would read its null
    values wrongly (an empty cell that is a value, or a declared null string).

    Raises:
        RMLError: a record with another field count than the header (line named).
    """
    differs = False
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh)
            header = next(reader, None) or []
            for fields in reader:
                if not fields:
                    continue
                if len(fields) != len(header):
                    raise RMLError(f"{who}: the CSV source {path.name} is not valid CSV (RFC 4180): record "
                                   f"{reader.line_num} has {len(fields)} field(s), the header has {len(header)} "
                                   f"({', '.join(header)})", path=where, line=reader.line_num)
                if not differs:
                    differs = any((v == "" and "" not in nulls) or (v != "" and v in nulls) for v in fields)
    except (OSError, UnicodeDecodeError, csv.Error):
        return False  # the load-time checks report an unreadable file
    return differs


def resolve_sources(g: Graph, mapping_dir: Path, where: str, copies: Path | None = None) -> list[Finding]:
    """Give every logical source an absolute file path the engine reads, in place (relative names
    are looked up in ``mapping_dir``, then the current directory; ``rml:root`` decides for RML-IO
    sources).

    A CSV file not comma-separated or with a byte-order mark is read through a comma-separated copy
    in ``copies``, its separator as a CSVW dialect of its source description declares it
    (``csvw:delimiter``), else detected (:func:`pipeline.sources.engine_copy.csv_dialect`).

    RML-IO source descriptions: a compressed or non-UTF-8 source (``rml:compression``,
    ``rml:encoding``) is read through a decoded copy in ``copies``
    (:func:`pipeline.sources.engine_copy.decoded_copy`); a CSVW table's ``csvw:url`` naming a local
    file is read as ``rml:path``. Its null values (``rml:null``) are kept on the
    logical source. A CSV source described with RML-IO has no null value unless it declares some
    (an empty cell is the empty string), is checked to be valid CSV, and is marked ``kgc:derive``
    when the engine would read its nulls wrongly. A literal ``rml:source`` (legacy RML) keeps the
    engine's reading: an empty CSV cell is null.

    Returns:
        One ``info`` finding per decoded or comma-separated copy.
    Raises:
        RMLError: a source file is not found (message names the TriplesMap and the paths tried),
            a CSVW dialect kgc cannot read (``csvw:header false`` ...),
            a source kgc cannot read (a database, an endpoint), an invalid RML-IO CSV file.
    """
    findings: list[Finding] = []
    taken: dict[str, Path] = {}  # CSV copy name -> its input
    for ls in sorted(set(g.subjects(RML.source, None)), key=str):
        src = g.value(ls, RML.source)
        who = _users(g, ls)
        described = isinstance(src, (BNode, URIRef)) and not isinstance(src, Literal)
        compression = encoding = None
        nulls: list[str] = []
        if described:
            kinds = {_local(t) for t in g.objects(src, RDF.type)}
            path_value = g.value(src, RML.path)
            other = next((_NOT_FILES[k] for k in kinds if k in _NOT_FILES), None)
            if other:
                raise RMLError(f"{who}: the logical source is {other}; kgc materialize reads files only "
                               "(describe it with rml:path, e.g. a rml:RelativePathSource)", path=where)
            url = g.value(src, URIRef(CSVW + "url"))
            if path_value is None and url is not None and "://" not in str(url):
                path_value = url  # a CSVW table (RMLMapper's form): its url names a local file
            if path_value is None:
                continue  # another description (a URL): the engine reads it or says why not
            root = g.value(src, RML.root)
            name = str(path_value)
            bases = [Path.cwd()] if root == RML.CurrentWorkingDirectory else [mapping_dir]
            compression = _local(g.value(src, RML.compression)) or None
            enc = g.value(src, RML.encoding)
            if enc is not None:
                if _local(enc) not in _ENCODINGS:
                    raise RMLError(f"{who}: encoding {_local(enc)!r} is not one kgc reads "
                                   f"({', '.join(_ENCODINGS)})", path=where)
                encoding = _ENCODINGS[_local(enc)]
            nulls = [str(v) for v in g.objects(src, RML.null)]
        elif isinstance(src, Literal):
            name = str(src)
            if "://" in name or (name.startswith("{") and name.endswith("}")):
                continue  # a URL or an in-memory source: the engine reads it itself
            bases = [mapping_dir, Path.cwd()]
        else:
            continue
        path = Path(name)
        candidates = [path] if path.is_absolute() else [b / path for b in bases]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise RMLError(f"{who}: logical source file {name!r} not found "
                           f"(looked for {', '.join(str(c) for c in candidates)})", path=where)
        found = found.resolve()
        if compression not in (None, "none") or encoding:
            try:
                found, finding = decoded_copy(found, compression, encoding, copies)
            except InputError as exc:
                raise RMLError(f"{who}: {exc}", path=where) from exc
            findings.append(finding)
        if _csv_format(g, ls, found):
            declared = _declared_delimiter(g, src, who, where) if described else None
            found, finding = _comma_separated(found, declared, copies, taken)
            if finding is not None:
                findings.append(finding)
        g.set((ls, RML.source, Literal(str(found))))
        if described:
            for v in nulls:
                g.add((ls, RML.null, Literal(v)))
            if _csv_format(g, ls, found) and _scan_csv(found, set(nulls), who, where):
                g.set((ls, KGC.derive, Literal("CSV null values as RML-IO declares them (an empty cell is "
                                              "the empty string unless rml:null says otherwise)")))
        elif _csv_format(g, ls, found):
            g.set((ls, RML.null, Literal("")))  # legacy RML read as R2RML: an empty cell is NULL
    return findings
