"""Materialize stage: run Morph-KGC on a normalised RML document and guard its output.

Morph-KGC 2.10 is the engine (:mod:`pipeline.engine`, which also corrects three of its
behaviours at the source: unescaped function outputs, ``"None"``/``"nan"`` from empty values,
URI-safe instead of IRI-safe templates). Every RML document goes through
:func:`pipeline.rmlnorm.normalize_rml` before the engine copy is written (:func:`prepare`).
The engine's statements are then parsed once by a real RDF parser (pyoxigraph, Rust) and
guarded term by term, each distinct term checked once:

* ``xsd:integer`` values reach the guard as the source holds them (:mod:`pipeline.engine`): what
  is no integer is dropped with a finding. (:data:`ENGINE_INTEGER`, the marker datatype earlier
  engine copies used, is still read back as ``xsd:integer``.)
* Relative or illegal IRIs (from references or functions) are dropped with a finding.
* Every IRI, literal and language tag is checked with the checks of SV2
  (:mod:`pipeline.validation.terms`: RFC 3987, XSD lexical spaces, BCP 47); what fails is
  dropped and reported, so the written KG passes strict validation.
* IRIs under :data:`pipeline.rmlnorm.BNODE_NS` become blank nodes again.

What is kept is written by pyoxigraph's serializer from the parsed terms (N-Triples, or
N-Quads/TriG when the mapping has graph maps). An engine crash is explained: the TriplesMap
that fails alone is named, with its term map and the engine's error (:class:`RMLError`).
"""
from __future__ import annotations

import hashlib
import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rdflib import Graph, URIRef
from rdflib.namespace import XSD

from .engine import EMPTY_VALUES, engine_config, run_engine
from .errors import MaterializeError, RMLError
from .findings import Finding
from .rmlnorm import BNODE_NS, REF_NS, RML, Normalized, normalize_rml
from .validation.terms import check_iri, check_langtag, check_literal

__all__ = ["ENGINE_INTEGER", "MaterializeResult", "engine_config", "write_engine_config", "engine_mapping", "prepare",
           "materialize", "guard_triples"]

LOGGER = logging.getLogger(__name__)

#: Stand-in datatype earlier engine copies used for ``xsd:integer`` (still read back as ``xsd:integer``).
ENGINE_INTEGER = URIRef("https://w3id.org/kgc-pipeline/engine#integer")
_XSD_INTEGER, _XSD_STRING = str(XSD.integer), str(XSD.string)
_PREDICATE = re.compile(r"^\s*\S+\s+<([^<>\s]*)>")
# an IRI in which check_iri cannot find an error (no bad '%', one '#' at most, no port; ucschar allowed)
_UCS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ((0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF),
                                                    *((0x10000 * k, 0x10000 * k + 0xFFFD) for k in range(1, 15))))
_IRI_CHAR = rf"(?:[A-Za-z0-9\-._~:/?\[\]@!$&'()*+,;={_UCS}]|%[0-9A-F]{{2}})"
_PLAIN_IRI = re.compile(rf"^[a-z][a-z0-9+.\-]*:(?!//[^/?#]*:){_IRI_CHAR}*(#{_IRI_CHAR}*)?$")


@dataclass
class MaterializeResult:
    """Statements written and what the guards dropped or repaired.

    Attributes:
        triples: N-Triples lines of the default graph (``"<s> <p> <o> ."``), sorted.
        quads: N-Quads lines of the statements in named graphs (``"<s> <p> <o> <g> ."``), sorted.
        findings: one finding per guard reason (and predicate), with counts and examples.
        dropped: number of engine statements the guards dropped.
    """

    triples: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    dropped: int = 0
    quads: list[str] = field(default_factory=list)

    def write(self, path: Path, fmt: str | None = None) -> Path:
        """Write the statements; returns ``path``.

        Args:
            path: output file.
            fmt: ``nt`` (default graph only), ``nq`` (all statements) or ``trig``; default: by
                the suffix of ``path`` (``.nq``, ``.trig``; anything else is N-Triples).
        """
        import pyoxigraph

        path = Path(path)
        fmt = fmt or {".nq": "nq", ".trig": "trig"}.get(path.suffix, "nt")
        if fmt == "nt":
            path.write_text("".join(t + "\n" for t in self.triples), encoding="utf-8")
        elif fmt == "nq":
            path.write_text("".join(t + "\n" for t in [*self.triples, *self.quads]), encoding="utf-8")
        else:
            text = "\n".join([*self.triples, *self.quads]).encode("utf-8")
            quads = pyoxigraph.parse(io.BytesIO(text), "application/n-quads")
            with path.open("wb") as out:
                pyoxigraph.serialize(quads, out, "application/trig")
        return path


def write_engine_config(mapping_file: str | Path, ini_file: str | Path, output_file: str | Path) -> Path:
    """Write a ready ``morph-kgc.ini`` for ``mapping_file`` (see :func:`engine_config`); returns its path.

    The file runs the mapping unchanged in Morph-KGC: ``python -m morph_kgc morph-kgc.ini``
    or ``morph_kgc.materialize(<ini path>)``. Unlike ``kgc materialize`` it has no output guards
    (``xsd:integer`` through floats, relative IRIs, ``"None"`` from empty XML elements).
    """
    ini = Path(ini_file)
    header = ("# Morph-KGC configuration for the mapping beside it (written by kgc).\n"
              "# Run: python -m morph_kgc morph-kgc.ini  (paths are absolute). kgc materialize adds\n"
              "# output guards Morph-KGC has not (xsd:integer through floats, relative IRIs, 'None').\n")
    ini.write_text(header + engine_config(mapping_file, output_file=output_file), encoding="utf-8")
    return ini


def prepare(rml: Graph, *, mapping_dir: Path | None = None, base_iri: str | None = None,
            where: str = "mapping") -> Normalized:
    """The engine copy of an RML document (:func:`~pipeline.rmlnorm.normalize_rml`).

    Raises:
        RMLError: the mapping is invalid (see :func:`~pipeline.rmlnorm.normalize_rml`).
    """
    return normalize_rml(rml, mapping_dir=mapping_dir, base_iri=base_iri, where=where)


def engine_mapping(rml: Graph, *, mapping_dir: Path | None = None, base_iri: str | None = None,
                   where: str = "mapping") -> Graph:
    """The engine copy of ``rml`` as a graph (see :func:`prepare`)."""
    return prepare(rml, mapping_dir=mapping_dir, base_iri=base_iri, where=where).graph


def _parse(lines: list[str]) -> tuple[list, list[tuple[str, str]]]:
    """Parse engine statements with pyoxigraph in one go. When some do not parse, chunks are
    split until the bad statements are isolated, and the others are parsed again together (one
    parse, so that a blank-node label means the same node everywhere).
    Returns (quads, [(statement, parser message)])."""
    import pyoxigraph

    def parse(chunk: list[str]) -> list:
        data = (" .\n".join(chunk) + " .\n").encode("utf-8") if chunk else b""
        return list(pyoxigraph.parse(io.BytesIO(data), "application/n-quads"))

    try:
        return parse(lines), []
    except SyntaxError:
        pass
    bad: list[tuple[str, str]] = []
    stack = [lines]
    while stack:
        chunk = stack.pop()
        try:
            parse(chunk)
        except SyntaxError as exc:
            if len(chunk) == 1:
                bad.append((chunk[0], str(exc)))
            else:
                stack.extend((chunk[len(chunk) // 2:], chunk[:len(chunk) // 2]))
    wrong = {line for line, _ in bad}
    return parse([line for line in lines if line not in wrong]), bad


def _serialize(quads: list) -> list[str]:
    """Distinct N-Quads lines of parsed quads, written by pyoxigraph's serializer, sorted."""
    import pyoxigraph

    out = io.BytesIO()
    pyoxigraph.serialize(quads, out, "application/n-quads")
    return sorted(set(out.getvalue().decode("utf-8").splitlines()))


def _errors(issues: list[tuple[str, str, str]]) -> bool:
    return any(severity in ("error", "fatal") for severity, _, _ in issues)


class _Guard:
    """Per-term checks with one cache entry per distinct term."""

    def __init__(self) -> None:
        import pyoxigraph

        self.ox = pyoxigraph
        self.cache: dict = {}
        self.repaired: list[str] = []

    def node(self, term):
        """(kept term or None, reason)."""
        hit = self.cache.get(term)
        if hit is not None:
            return hit
        ox = self.ox
        if isinstance(term, ox.NamedNode):
            iri = term.value
            if iri.startswith(BNODE_NS):
                out = (ox.BlankNode("b" + hashlib.sha1(iri.encode("utf-8")).hexdigest()[:24]), None)
            elif iri.startswith(REF_NS):
                out = self.reference_iri(iri)
            elif _PLAIN_IRI.match(iri) or not _errors(check_iri(iri)):
                out = (term, None)
            else:
                out = (None, "relative or illegal IRI")
        elif isinstance(term, ox.Literal):
            out = self.literal(term)
        else:
            out = (term, None)
        self.cache[term] = out
        return out

    def reference_iri(self, iri: str):
        """A reference-valued IRI (:data:`~pipeline.rmlnorm.REF_NS`): the value when it is an absolute
        IRI, else the base IRI + the value (R2RML section 11.2: concatenation, no resolution)."""
        from urllib.parse import unquote

        base, _, value = iri[len(REF_NS):].partition("/")
        value = unquote(value)
        if _errors(check_iri(value)):
            value = unquote(base) + value
        if _errors(check_iri(value)):
            return None, "relative or illegal IRI"
        return self.ox.NamedNode(value), None

    def literal(self, term):
        ox = self.ox
        lex, dt, lang = term.value, term.datatype.value, term.language
        if lang is not None:
            return (None, "language tag that is not BCP 47") if _errors(check_langtag(lang)) else (term, None)
        integer = dt == str(ENGINE_INTEGER)
        dt = _XSD_INTEGER if integer else dt
        if dt == _XSD_STRING:
            return term, None
        if lex != lex.strip() and _well_typed(lex.strip(), dt):
            # XSD collapses white space around non-string values; RDF lexical forms may not carry it
            self.repaired.append(str(term))
            lex = lex.strip()
        if not _well_typed(lex, dt):
            return None, (f"ill-typed literal for <{dt}>" if dt != _XSD_INTEGER else "xsd:integer value that is no integer")
        return ox.Literal(lex, datatype=ox.NamedNode(dt)), None


def _well_typed(lex: str, datatype: str) -> bool:
    # the very checks SV2 applies to the written file, so a guarded KG passes SV2
    return not _errors(check_literal(lex, datatype))


_IRI_TOKEN = re.compile(r"<([^<>\s]*)>")
_LITERAL_TOKEN = re.compile(r'"((?:[^"\\\n]|\\.)*)"(?:\^\^<([^<>\s]*)>|@([^\s"<>]+))?')
_ATTENTION_LIMIT = 2000


def _triage(lines) -> tuple[list[str], list[str]]:
    """Split the engine's statements into those whose terms all pass as they are and those with a
    term to check, change or drop. The distinct IRI and literal tokens of the whole output are
    found by two regular-expression scans (reading only: what is written comes from parsed terms)
    and each is checked once; a statement holding a flagged token or a private namespace goes
    through the per-term guard. A token found inside a literal can only flag a statement
    needlessly, never let a bad term through (the parser rejects what is malformed)."""
    lines = list(lines)
    text = "\n".join(lines)
    flagged = {BNODE_NS, REF_NS, str(ENGINE_INTEGER)}
    for iri in set(_IRI_TOKEN.findall(text)):
        if not _PLAIN_IRI.match(iri) and ("\\" in iri or _errors(check_iri(iri))):
            flagged.add(f"<{iri}>")
    for body, dt, lang in set(_LITERAL_TOKEN.findall(text)):
        if lang and _errors(check_langtag(lang)):
            flagged.add(f'"{body}"@{lang}')
        elif dt and dt != _XSD_STRING:
            lex = _unescape(body)
            if lex != lex.strip() or not _well_typed(lex, dt):
                flagged.add(f'"{body}"^^<{dt}>')
        if len(flagged) > _ATTENTION_LIMIT:
            return [], lines
    flagged = {token for token in flagged if token in text}
    if not flagged:
        return lines, []
    pattern = re.compile("|".join(map(re.escape, sorted(flagged, key=len, reverse=True))))
    plain, attention = [], []
    for line in lines:
        (attention if pattern.search(line) else plain).append(line)
    return plain, attention


def _unescape(body: str) -> str:
    import json

    try:
        return json.loads(f'"{body}"')
    except ValueError:
        return body


def _bad_statements(bad: list[tuple[str, str]], reasons: dict) -> None:
    for line, message in bad:
        m = _PREDICATE.match(line)
        reason = "relative or illegal IRI" if "IRI" in message else "not a valid N-Triples statement"
        reasons.setdefault((reason, m.group(1) if m else ""), []).append(line)


def guard_triples(lines: list[str] | set[str], source_values: set[str] | None = None, where: str = "mapping",
                  locate: Callable[[str], tuple[str, int | None]] | None = None) -> MaterializeResult:
    """Parse the engine's statements once, keep what is valid, report the rest.

    Args:
        lines: statements from the engine (``"<s> <p> <o> [<g>]"``, final ``.`` optional).
        source_values: unused, kept for callers of the previous guard (empty values are
            now left out per value at the source, see :mod:`pipeline.engine`).
        where: file name used in findings when ``locate`` cannot say better.
        locate: predicate IRI -> (table file, table line) of the row that maps it, so a
            finding points at the row to fix rather than at the mapping document.
    Returns:
        A :class:`MaterializeResult`: sorted N-Triples lines (default graph) and N-Quads lines
        (named graphs), written from parsed terms; one finding per reason and predicate.
    """
    del source_values
    guard = _Guard()
    plain, attention = _triage(lines)
    reasons: dict[tuple[str, str], list[str]] = {}
    ox = guard.ox
    default = ox.DefaultGraph()
    kept_default: list = []
    kept_named: list = []
    # statements none of whose terms needs a change or a drop: parsed and written as they are
    quads, bad = _parse(plain)
    _bad_statements(bad, reasons)
    for q in quads:
        (kept_default if q.graph_name == default else kept_named).append(q)
    quads, bad = _parse(attention)
    _bad_statements(bad, reasons)
    cache, node = guard.cache, guard.node
    for q in quads:
        s, p, o, g = q.subject, q.predicate, q.object, q.graph_name
        # one dict lookup per term in the common case; ``node`` runs once per distinct term
        ks, why = cache.get(s) or node(s)
        if ks is not None:
            kp, why = cache.get(p) or node(p)
            if kp is not None:
                ko, why = cache.get(o) or node(o)
                if ko is not None and g != default:
                    kg, why = cache.get(g) or node(g)
                    if kg is None:
                        ko = None
        if ks is None or kp is None or ko is None:
            reasons.setdefault((why, p.value), []).append(str(q))
        elif g == default:
            kept_default.append(q if (ks is s and kp is p and ko is o) else ox.Quad(ks, kp, ko, default))
        else:
            kept_named.append(q if (ks is s and kp is p and ko is o and kg is g) else ox.Quad(ks, kp, ko, kg))
    triples, named = _serialize(kept_default), _serialize(kept_named)
    result = MaterializeResult(triples, quads=named)
    for (reason, predicate), examples in reasons.items():
        result.dropped += len(examples)
        shown = " | ".join(e.replace(str(ENGINE_INTEGER), _XSD_INTEGER)[:200] for e in examples[:3])
        file, line = locate(predicate) if locate and predicate else (where, None)
        result.findings.append(Finding("materialize", file, f"{len(examples)} triple(s) dropped: {reason}",
                                       line=line, column="ontology_property" if line else None, value=shown,
                                       expected="a valid RDF triple", severity="error"))
    if guard.repaired:
        result.findings.append(Finding(
            "materialize", where, f"{len(guard.repaired)} literal(s) written without the white space around their value",
            value=guard.repaired[0].replace(str(ENGINE_INTEGER), _XSD_INTEGER)[:200],
            expected="a lexical form without surrounding white space", severity="warning"))
    return result


def _explain(mapping_file: Path, exc: BaseException, processes: int) -> RMLError:
    """Name the TriplesMap (and term map) on which the engine fails: each asserted TriplesMap
    is run alone (the others non-asserted, so joins still resolve) until one fails."""
    from rdflib.namespace import RDF

    cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    try:
        g = Graph().parse(mapping_file, format="turtle")
    except Exception:  # the engine copy is ours; if even it does not parse, say what the engine said
        return RMLError(f"Morph-KGC failed: {cause}", path=mapping_file)
    maps = sorted(g.subjects(RDF.type, RML.TriplesMap), key=str)
    culprit = None
    if len(maps) > 1:
        for tm in maps:
            alone = Graph()
            for t in g:
                alone.add(t)
            for other in maps:
                if other != tm:
                    alone.remove((other, RDF.type, RML.TriplesMap))
                    alone.add((other, RDF.type, RML.NonAssertedTriplesMap))
            path = mapping_file.with_suffix(".alone.ttl")
            alone.serialize(path, format="turtle")
            try:
                run_engine(str(path), processes)
            except BaseException:  # noqa: BLE001 - any engine failure identifies the culprit
                culprit = tm
                break
            finally:
                path.unlink(missing_ok=True)
    elif maps:
        culprit = maps[0]
    where = ""
    if culprit is not None:
        where = f"TriplesMap <{culprit}>" if isinstance(culprit, URIRef) else f"TriplesMap [] ({culprit})"
        hint = _term_map_hint(g, culprit, str(exc))
        where += f", {hint}" if hint else ""
        where += ": "
    return RMLError(f"{where}the engine (Morph-KGC) cannot run it: {cause}", path=mapping_file)


def _term_map_hint(g: Graph, tm, message: str) -> str:
    from .rmlcheck import term_maps

    for role, node in term_maps(g, tm):
        for p in (RML.reference, RML.template):
            value = g.value(node, p)
            if value is not None and len(str(value)) > 1 and (str(value) in message or
                                                               any(part and part in message for part in
                                                                   re.findall(r"\{([^{}]+)\}", str(value)))):
                return f"{role} {p.n3(g.namespace_manager)} {str(value)!r}"
        if g.value(node, RML.functionExecution) is not None and "reference_results" in message:
            return f"{role} with a function execution (the engine cannot combine it with this template or path)"
    return ""


def materialize(mapping_file: Path, source_values: set[str] | None = None, processes: int = 1,
                locate: Callable[[str], tuple[str, int | None]] | None = None) -> MaterializeResult:
    """Run Morph-KGC on an engine mapping file and guard the result.

    Args:
        mapping_file: an engine-ready RML file (write it with :func:`engine_mapping`).
        source_values: unused (see :func:`guard_triples`).
        processes: Morph-KGC worker processes.
        locate: see :func:`guard_triples`.
    Returns:
        The guarded statements and findings; a warning names the TriplesMaps when the mapping
        yields no statement at all, an ``info`` per source reference whose empty or missing
        values were left out.
    Raises:
        RMLError: Morph-KGC failed; the message names the TriplesMap, term map and cause.
        MaterializeError: Morph-KGC exited.
    """
    mapping_file = Path(mapping_file)
    try:
        statements = run_engine(str(mapping_file), processes)
    except SystemExit as exc:  # Morph-KGC exits on some mapping errors
        raise MaterializeError(f"Morph-KGC stopped on {mapping_file}: exit {exc.code}") from exc
    except Exception as exc:  # the engine raises many unrelated types; _explain names the rule
        raise _explain(mapping_file, exc, processes) from exc
    empty = dict(EMPTY_VALUES)
    result = guard_triples(statements, None, str(mapping_file), locate)
    for (source, reference), n in sorted((k, v) for k, v in empty.items() if v):
        result.findings.append(Finding("materialize", source, f"{n} record(s) have no value for {reference!r} "
                                       "(empty or missing): no term made from them", column=reference,
                                       severity="info"))
    if not statements:
        from rdflib.namespace import RDF

        g = Graph().parse(mapping_file, format="turtle")
        maps = sorted(str(tm) for tm in g.subjects(RDF.type, RML.TriplesMap))
        if maps:
            result.findings.append(Finding("materialize", str(mapping_file),
                                           f"the mapping declares {len(maps)} TriplesMap(s) and yields no triple: "
                                           + ", ".join(f"<{m}>" for m in maps), severity="warning"))
    return result
