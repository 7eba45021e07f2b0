"""RML-IO logical targets (https://w3id.org/rml/io/spec): which statements go to which file, and how it is written.

A term map may name logical targets (``rml:logicalTarget``); a statement goes to every target
of every term map that made it (subject, predicate, object, graph, language and datatype maps),
and to the default target (the output ``kgc materialize`` writes) when none has one. A logical
target says where (``rml:target [ rml:path; rml:root ]``), in which serialization
(``rml:serialization formats:N-Quads``, ``N-Triples``, ``Turtle``, ``TriG``, ``N3``,
``JSON-LD``, ``RDF_XML``, ``RDF_JSON``), compression (``rml:compression rml:gzip``, ``zip``,
``targz``, ``tarxz``) and encoding (``rml:encoding rml:UTF-8``, ``UTF-16``).

Since each of the engine's mapping rules is one subject map with one predicate-object map, the
targets of its statements are known from the mapping alone: :func:`split_targets` splits each
TriplesMap so that all its rules have the same targets (the class statements stay with the
subject map's targets), and the materialize stage runs the engine once per target with the
TriplesMaps of that target asserted (:mod:`pipeline.materialize.document`); :func:`write_target`
writes each target's statements in its serialization.
"""
from __future__ import annotations

import gzip
import io
import re
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph
from rdflib import BNode, Dataset, Graph, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.errors import RMLError
from pipeline.materialize.rdfjson import serialize_rdfjson
from pipeline.materialize.rml.check import gather_members, node_name, triples_maps
from pipeline.materialize.rml.vocabulary import RML
from pipeline.rdffile import NQUADS

__all__ = ["LogicalTarget", "TargetPlan", "split_targets", "check_target_paths", "write_target", "SERIALIZATIONS"]

_FORMATS = "http://www.w3.org/ns/formats/"
#: ``formats:`` serializations -> (rdflib/pyoxigraph format name, holds named graphs).
SERIALIZATIONS = {"N-Quads": ("nquads", True), "N-Triples": ("nt", False), "Turtle": ("turtle", False),
                  "TriG": ("trig", True), "N3": ("n3", False), "JSON-LD": ("json-ld", True),
                  "RDF_XML": ("xml", False), "RDF_JSON": ("rdfjson", False)}
_COMPRESSIONS = ("gzip", "zip", "targz", "tarxz", "none")
_ENCODINGS = {"UTF-8": "utf-8", "UTF-16": "utf-16"}


@dataclass
class LogicalTarget:
    """One logical target: the file, its serialization, compression and encoding."""

    node: Node
    path: Path
    serialization: str = "N-Quads"
    compression: str | None = None
    encoding: str = "utf-8"

    def label(self) -> str:
        return node_name(self.node)


@dataclass
class TargetPlan:
    """The logical targets of a mapping and which TriplesMaps write to each.

    Attributes:
        targets: the logical targets by node.
        assignment: TriplesMap (text of its node) -> the targets of all its statements (empty: the
            default target).
        where: the mapping file, named in errors.
    """

    targets: dict[Node, LogicalTarget] = field(default_factory=dict)
    assignment: dict[str, frozenset] = field(default_factory=dict)
    where: str = ""


def _local(node: Node | None) -> str:
    return "" if node is None else re.split(r"[/#]", str(node))[-1]


def _read_target(g: Graph, lt: Node, mapping_dir: Path, where: str) -> LogicalTarget:
    target = g.value(lt, RML.target)
    if target is None or g.value(target, RML.path) is None:
        raise RMLError(f"logical target {node_name(lt)} has no rml:target with an rml:path (kgc writes files only)",
                       path=where)
    root = g.value(target, RML.root)
    base = Path.cwd() if root == RML.CurrentWorkingDirectory else mapping_dir
    path = Path(str(g.value(target, RML.path)))
    ser = g.value(lt, RML.serialization) or g.value(target, RML.serialization)
    serialization = _local(ser) if ser is not None else "N-Quads"
    if serialization not in SERIALIZATIONS:
        raise RMLError(f"logical target {node_name(lt)}: serialization {ser} is not one kgc writes "
                       f"({', '.join('formats:' + s for s in SERIALIZATIONS)})", path=where)
    comp = g.value(lt, RML.compression) or g.value(target, RML.compression)
    compression = _local(comp) if comp is not None else None
    if compression is not None and compression not in _COMPRESSIONS:
        raise RMLError(f"logical target {node_name(lt)}: compression {comp} is not one kgc writes "
                       f"({', '.join('rml:' + c for c in _COMPRESSIONS)})", path=where)
    enc = g.value(lt, RML.encoding) or g.value(target, RML.encoding)
    if enc is not None and _local(enc) not in _ENCODINGS:
        raise RMLError(f"logical target {node_name(lt)}: encoding {enc} is not one kgc writes "
                       f"({', '.join('rml:' + e for e in _ENCODINGS)})", path=where)
    return LogicalTarget(lt, path if path.is_absolute() else (base / path), serialization,
                         None if compression in (None, "none") else compression,
                         _ENCODINGS[_local(enc)] if enc is not None else "utf-8")


def _targets_below(g: Graph, node: Node) -> set[Node]:
    """Logical targets of a term map, its language/datatype maps and the term maps it gathers."""
    out = set(g.objects(node, RML.logicalTarget))
    for p in (RML.languageMap, RML.datatypeMap):
        for m in g.objects(node, p):
            out |= set(g.objects(m, RML.logicalTarget))
    for m in gather_members(g, node):
        out |= _targets_below(g, m)
    return out


def _copy(g: Graph, node: Node, skip: set) -> Node:
    new = BNode()
    for p, o in list(g.predicate_objects(node)):
        if p not in skip:
            g.add((new, p, o))
    return new


def split_targets(g: Graph, mapping_dir: Path, where: str) -> TargetPlan | None:
    """Split the TriplesMaps of ``g`` (in place) so that each has one set of logical targets, and
    say which; ``None`` when the mapping names no logical target.

    A statement's targets are those of its subject map, predicate map, object map (with its
    language and datatype maps) and of the graph map that made its graph (a statement made in two
    graphs is two statements, each with its graph map's targets). Each TriplesMap with targets
    becomes copies (``<tm>-kgc-target-<n>``), one per set of targets and subject graph map, that
    hold the predicate-object maps (and the classes) with those targets, each with the one graph
    map that made them; the original keeps its subject map for joins and makes nothing itself
    when it was split. ``rml:logicalTarget`` statements are removed (the engine ignores them).

    Raises:
        RMLError: a logical target without a file path, or with a serialization, compression or
            encoding kgc does not write.
    """
    used = set(g.objects(None, RML.logicalTarget))
    if not used:
        return None
    plan = TargetPlan({lt: _read_target(g, lt, mapping_dir, where) for lt in sorted(used, key=str)}, where=where)
    for tm in triples_maps(g):
        sm = g.value(tm, RML.subjectMap)
        if sm is None:
            continue
        base = _targets_below(g, sm)
        sgms = sorted(g.objects(sm, RML.graphMap), key=str)
        poms = sorted(g.objects(tm, RML.predicateObjectMap), key=str)
        # (targets, subject graph map) -> [classes?, [(predicate-object map, its graph map)]]
        groups: dict[tuple[frozenset, Node | None], list] = {}
        for sgm in sgms or [None]:
            ts = frozenset(base | (_targets_below(g, sgm) if sgm is not None else set()))
            groups.setdefault((ts, sgm), [False, []])[0] = True
        for pom in poms:
            own = set(base)
            for p in (RML.predicateMap, RML.objectMap):
                for m in g.objects(pom, p):
                    own |= _targets_below(g, m)
            pgms = sorted(g.objects(pom, RML.graphMap), key=str)
            choices = [(sgm, None) for sgm in sgms] + [(None, pgm) for pgm in pgms] or [(None, None)]
            for sgm, pgm in choices:
                ts = frozenset(own | _targets_below(g, sgm if sgm is not None else pgm)
                               if (sgm or pgm) is not None else own)
                groups.setdefault((ts, sgm), [False, []])[1].append((pom, pgm))
        if len(groups) == 1 and not any(_targets_below(g, m) for m in sgms):
            (ts, _), = groups
            plan.assignment[str(tm)] = ts
            continue
        # the original makes nothing itself (its statements move to the copies); a parent still
        for pom in poms:
            g.remove((tm, RML.predicateObjectMap, pom))
        for t in (RML.TriplesMap, RML.AssertedTriplesMap):
            g.remove((tm, RDF.type, t))
        g.add((tm, RDF.type, RML.NonAssertedTriplesMap))
        for n, ((ts, sgm), (classes, members)) in enumerate(sorted(
                groups.items(), key=lambda kv: (sorted(map(str, kv[0][0])), str(kv[0][1]))), 1):
            if not classes and not members:
                continue
            clone = URIRef(f"{tm}-kgc-target-{n}") if isinstance(tm, URIRef) else BNode()
            for p, o in g.predicate_objects(tm):
                if p not in (RML.predicateObjectMap, RML.subjectMap, RDF.type):
                    g.add((clone, p, o))
            g.add((clone, RDF.type, RML.TriplesMap))
            sm_copy = _copy(g, sm, {RML["class"], RML.graphMap} if not classes else {RML.graphMap})
            if sgm is not None:
                g.add((sm_copy, RML.graphMap, sgm))
            g.add((clone, RML.subjectMap, sm_copy))
            for pom, pgm in members:
                pom_copy = _copy(g, pom, {RML.graphMap})
                if pgm is not None:
                    g.add((pom_copy, RML.graphMap, pgm))
                g.add((clone, RML.predicateObjectMap, pom_copy))
            plan.assignment[str(clone)] = ts
    g.remove((None, RML.logicalTarget, None))
    return plan


def _serialize(nquads: bytes, target: LogicalTarget) -> bytes:
    """N-Quads (UTF-8) -> the target's serialization (text in UTF-8)."""
    fmt, quads = SERIALIZATIONS[target.serialization]
    if fmt == "nquads":
        return nquads
    if fmt == "nt":
        if b"<<" in nquads:  # RDF-star: pyoxigraph writes quoted triples
            return b"".join(f"{q.subject} {q.predicate} {q.object} .\n".encode("utf-8")
                            for q in pyoxigraph.parse(io.BytesIO(nquads), "application/n-quads"))
        ds = Dataset()
        ds.parse(data=nquads.decode("utf-8"), format=NQUADS)
        return "".join(f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o, _ in ds.quads()).encode("utf-8")
    if fmt == "trig":
        out = io.BytesIO()
        pyoxigraph.serialize(pyoxigraph.parse(io.BytesIO(nquads), "application/n-quads"), out, "application/trig")
        return out.getvalue()
    ds = Dataset()
    ds.parse(data=nquads.decode("utf-8"), format=NQUADS)
    if fmt == "json-ld":
        return ds.serialize(format="json-ld").encode("utf-8")
    triples = Graph()
    for s, p, o, _ in ds.quads():
        triples.add((s, p, o))
    if fmt == "rdfjson":
        return serialize_rdfjson(sorted(triples)).encode("utf-8")
    return triples.serialize(format=fmt).encode("utf-8")


def _member_name(path: Path) -> str:
    return re.sub(r"(\.tar)?\.(gz|gzip|zip|xz|tgz)$", "", path.name, flags=re.IGNORECASE)


def check_target_paths(plan: TargetPlan, output: Path) -> None:
    """Refuse logical targets that cannot be written as files of their own, before anything runs.

    Raises:
        RMLError: a target's ``rml:path`` is an existing folder; it is the output file (the default
            target), whose statements it would replace; two targets name one file.
    """
    seen: dict[Path, LogicalTarget] = {}
    out = Path(output).resolve()
    for target in plan.targets.values():
        path = target.path.resolve()
        if path.is_dir():
            raise RMLError(f"logical target {target.label()}: rml:path {str(target.path)!r} is a folder (expected: "
                           "a file path)", path=plan.where or None)
        if path == out:
            raise RMLError(f"logical target {target.label()} writes {target.path}, the output file too: one would "
                           "replace the other's statements (expected: another file for the target or the output)",
                           path=plan.where or None)
        if path in seen:
            raise RMLError(f"logical targets {seen[path].label()} and {target.label()} both write {target.path}: one "
                           "would replace the other's statements (expected: one file per target)", path=plan.where or None)
        seen[path] = target


def write_target(nquads: Path, target: LogicalTarget) -> Path:
    """Write the statements of an N-Quads file to a logical target (serialization, encoding,
    compression); returns the file written (folders created)."""
    data = _serialize(nquads.read_bytes(), target)
    if target.encoding != "utf-8":
        data = data.decode("utf-8").encode(target.encoding)
    path = target.path
    path.parent.mkdir(parents=True, exist_ok=True)
    member = _member_name(path)
    if target.compression == "gzip":
        data = gzip.compress(data)
    elif target.compression == "zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(member, data)
        data = buf.getvalue()
    elif target.compression in ("targz", "tarxz"):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz" if target.compression == "targz" else "w:xz") as tar:
            info = tarfile.TarInfo(member)
            info.size, info.mtime = len(data), int(time.time())
            tar.addfile(info, io.BytesIO(data))
        data = buf.getvalue()
    path.write_bytes(data)
    return path

