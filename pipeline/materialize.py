"""Materialize stage: run Morph-KGC on a compiled RML document and guard its output.

Morph-KGC 2.10 is the engine. Three of its behaviours would put wrong triples
into a KG silently, so this adapter guards them:

* ``xsd:integer`` values go through ``float`` (``3.7`` -> ``3``, huge numbers
  overflow, a non-number aborts the run): the engine copy of the mapping
  (``mapping.morph-kgc.ttl``) types such literals with a private marker
  datatype, and this module checks and restores ``xsd:integer`` afterwards.
* IRIs from references or functions are not checked: relative or illegal
  IRIs are dropped with a finding.
* An empty XML element becomes the literal ``"None"``: such literals are
  dropped unless the source data really holds the text ``None``.

Every IRI, literal and language tag is also checked with the checks of SV2
(:mod:`pipeline.validation.terms`: RFC 3987, XSD lexical spaces, BCP 47); what
fails is dropped and reported, so the written KG passes strict validation.
"""
from __future__ import annotations

import configparser
import io
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rdflib import Graph, URIRef
from rdflib.namespace import XSD

from .errors import MaterializeError
from .findings import Finding
from .fno import UDF_FILE
from .validation.terms import check_iri, check_langtag, check_literal

__all__ = ["ENGINE_INTEGER", "MaterializeResult", "engine_config", "write_engine_config", "engine_mapping", "materialize", "guard_triples",
           "generation_events"]

LOGGER = logging.getLogger(__name__)

#: Stand-in datatype the engine copy uses for ``xsd:integer`` (see module docstring).
ENGINE_INTEGER = URIRef("https://w3id.org/kgc-pipeline/engine#integer")

_TERM = r'(<[^<>"{}|^`\\\s]*>|_:[A-Za-z0-9_\-.]+|"(?:[^"\\]|\\.)*"(?:\^\^<[^<>\s]*>|@[A-Za-z0-9\-]+)?)'
_TRIPLE = re.compile(rf"^\s*{_TERM}\s+{_TERM}\s+{_TERM}\s*\.?\s*$")


@dataclass
class MaterializeResult:
    """Triples written and what the guards dropped or repaired.

    Attributes:
        triples: N-Triples lines (without the final newline), sorted.
        findings: one finding per guard reason, with counts and examples.
        dropped: number of engine triples the guards dropped.
    """

    triples: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    dropped: int = 0

    def write(self, path: Path) -> Path:
        """Write the triples as an N-Triples file (UTF-8, one statement a line); returns ``path``."""
        Path(path).write_text("".join(t + "\n" for t in self.triples), encoding="utf-8")
        return Path(path)


def engine_config(mapping_file: str | Path, processes: int = 1, output_file: str | Path | None = None) -> str:
    """Morph-KGC configuration (INI text) for ``mapping_file``, with the ``udfs`` entry our FnO functions need.

    Paths are absolute, so the file works from any working directory.

    Args:
        mapping_file: the RML document. processes: worker processes.
        output_file: where Morph-KGC's command line (``python -m morph_kgc <ini>``) writes the KG
            (``None``: no ``output_file`` entry, for :func:`morph_kgc.materialize_set`).
    Returns:
        The INI text (sections ``CONFIGURATION`` and ``DataSource1``).
    """
    config = configparser.ConfigParser()
    config["CONFIGURATION"] = {"output_format": "N-TRIPLES", "udfs": str(UDF_FILE.resolve()),
                               "number_of_processes": str(processes), "logging_level": "ERROR",
                               "na_values": ","}
    if output_file is not None:
        config["CONFIGURATION"]["output_file"] = str(Path(output_file).resolve())
    config["DataSource1"] = {"mappings": str(Path(mapping_file).resolve())}
    buf = io.StringIO()
    config.write(buf)
    return buf.getvalue()


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


def engine_mapping(rml: Graph) -> Graph:
    """Copy of ``rml`` for Morph-KGC with ``xsd:integer`` datatypes replaced by :data:`ENGINE_INTEGER`."""
    from .compile.rml import RML

    g = Graph()
    for prefix, ns in rml.namespaces():
        g.bind(prefix, ns)
    for s, p, o in rml:
        g.add((s, p, ENGINE_INTEGER if (p == RML.datatype and o == XSD.integer) else o))
    return g


def _unescape(body: str) -> str:
    try:
        return json.loads(f'"{body}"')
    except ValueError:
        return body.encode("utf-8").decode("unicode_escape", errors="replace")


_PREDICATE = re.compile(r"^\s*\S+\s+<([^<>\s]*)>")


def guard_triples(lines: list[str], source_values: set[str], where: str,
                  locate: Callable[[str], tuple[str, int | None]] | None = None) -> MaterializeResult:
    """Check engine output line by line; keep what is valid, report the rest.

    Args:
        lines: N-Triples statements from the engine (final ``.`` optional).
        source_values: every value found in the sources (to tell a real ``"None"``).
        where: file name used in findings when ``locate`` cannot say better.
        locate: predicate IRI -> (table file, table line) of the row that maps it, so a
            finding points at the row to fix rather than at the mapping document.
    Returns:
        A :class:`MaterializeResult` with sorted valid lines; one finding per reason and predicate.
    """
    kept: set[str] = set()
    reasons: dict[tuple[str, str], list[str]] = {}
    repaired: list[str] = []

    def drop(reason: str, line: str) -> None:
        m = _PREDICATE.match(line)
        reasons.setdefault((reason, m.group(1) if m else ""), []).append(line)

    for raw in lines:
        m = _TRIPLE.match(raw)
        if not m:
            drop("not a valid N-Triples statement (illegal IRI characters or syntax)", raw)
            continue
        terms = list(m.groups())
        bad = next((t for t in terms if t.startswith("<") and _errors(check_iri(t[1:-1]))), None)
        if bad:
            drop("relative or illegal IRI", raw)
            continue
        obj = terms[2]
        if obj.startswith('"'):
            body, _, tail = obj[1:].rpartition('"')
            lex = _unescape(body)
            if tail.startswith("^^"):
                dt = str(XSD.integer) if tail[3:-1] == str(ENGINE_INTEGER) else tail[3:-1]
                if lex != lex.strip():
                    # XSD collapses white space around non-string values; RDF lexical forms may not carry it
                    if dt != str(XSD.string) and _well_typed(lex.strip(), dt):
                        repaired.append(raw)
                        body, lex = body.strip(), lex.strip()
                if not _well_typed(lex, dt):
                    drop(f"ill-typed literal for <{dt}>" if dt != str(XSD.integer)
                         else "xsd:integer value that is no integer", raw)
                    continue
                obj = f'"{body}"^^<{dt}>'
            elif tail.startswith("@") and _errors(check_langtag(tail[1:])):
                drop("language tag that is not BCP 47", raw)
                continue
            if lex == "None" and "None" not in source_values:
                drop("literal 'None' from an empty XML element", raw)
                continue
        kept.add(f"{terms[0]} {terms[1]} {obj} .")
    result = MaterializeResult(sorted(kept))
    for (reason, predicate), examples in reasons.items():
        result.dropped += len(examples)
        shown = " | ".join(e.replace(str(ENGINE_INTEGER), str(XSD.integer))[:200] for e in examples[:3])
        file, line = locate(predicate) if locate and predicate else (where, None)
        result.findings.append(Finding("materialize", file, f"{len(examples)} triple(s) dropped: {reason}",
                                       line=line, column="ontology_property" if line else None, value=shown,
                                       expected="a valid RDF triple", severity="error"))
    if repaired:
        result.findings.append(Finding(
            "materialize", where, f"{len(repaired)} literal(s) written without the white space around their value",
            value=repaired[0].replace(str(ENGINE_INTEGER), str(XSD.integer))[:200],
            expected="a lexical form without surrounding white space", severity="warning"))
    return result


def _errors(issues: list[tuple[str, str, str]]) -> bool:
    return any(severity in ("error", "fatal") for severity, _, _ in issues)


def _well_typed(lex: str, datatype: str) -> bool:
    # the very checks SV2 applies to the written file, so a guarded KG passes SV2
    return not _errors(check_literal(lex, datatype))


def materialize(mapping_file: Path, source_values: set[str], processes: int = 1,
                locate: Callable[[str], tuple[str, int | None]] | None = None) -> MaterializeResult:
    """Run Morph-KGC on an engine mapping file and guard the result.

    Args:
        mapping_file: an RML file (use :func:`engine_mapping` to prepare it).
        source_values: all source values (see :func:`guard_triples`).
        processes: Morph-KGC worker processes.
        locate: see :func:`guard_triples`.
    Returns:
        The guarded triples and findings.
    Raises:
        MaterializeError: Morph-KGC failed; the message carries its error.
    """
    import morph_kgc

    try:
        triples = morph_kgc.materialize_set(engine_config(mapping_file, processes))
    except SystemExit as exc:  # Morph-KGC exits on some mapping errors
        raise MaterializeError(f"Morph-KGC stopped on {mapping_file}: exit {exc.code}") from exc
    except Exception as exc:  # the engine raises many unrelated types; the message is what matters
        raise MaterializeError(f"Morph-KGC failed on {mapping_file}: {type(exc).__name__}: {exc}") from exc
    return guard_triples(list(triples), source_values, str(mapping_file), locate)


def generation_events(engine_rml: Graph, work_dir: Path, source_values: set[str],
                      processes: int = 1) -> list[tuple[str, set[str]]]:
    """Statement-generation events of a compiled mapping, for CN4 (mapping-level redundancy).

    An event is one TriplesMap's class assertions (``<TM>#class``) or one of its predicates
    (``<TM>#<predicate IRI>``). Each TriplesMap is materialized alone (the others declared
    ``rml:NonAssertedTriplesMap`` so joins still resolve) and its triples are attributed to
    its events by predicate; two predicate-object maps of one TriplesMap with the same
    predicate form one event. Cost: one Morph-KGC run per TriplesMap.

    Args:
        engine_rml: the engine copy of the mapping (:func:`engine_mapping`).
        work_dir: folder for the per-TriplesMap mapping files (created).
        source_values: as for :func:`guard_triples`.
        processes: Morph-KGC worker processes.
    Returns:
        ``[(event_id, {N-Triples line, ...}), ...]``; a TriplesMap whose run fails yields no events.
    """
    from rdflib.namespace import RDF

    from .compile.rml import RML

    work_dir.mkdir(parents=True, exist_ok=True)
    maps = sorted(set(engine_rml.subjects(RDF.type, RML.TriplesMap)))
    events: list[tuple[str, set[str]]] = []
    for i, tm in enumerate(maps):
        g = Graph()
        for t in engine_rml:
            g.add(t)
        for other in maps:
            if other != tm:
                g.remove((other, RDF.type, RML.TriplesMap))
                g.add((other, RDF.type, RML.NonAssertedTriplesMap))
        path = work_dir / f"tm{i}.ttl"
        g.serialize(path, format="turtle")
        try:
            triples = materialize(path, source_values, processes).triples
        except MaterializeError as exc:
            LOGGER.warning("CN4: TriplesMap %s could not run alone: %s", tm, exc)
            continue
        by_event: dict[str, set[str]] = {}
        for line in triples:
            pred = line.split(" ", 2)[1][1:-1]
            key = f"{tm}#class" if pred == str(RDF.type) else f"{tm}#{pred}"
            by_event.setdefault(key, set()).add(line)
        events.extend(sorted(by_event.items()))
    return events
