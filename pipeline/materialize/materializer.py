"""Materialize stage: run Morph-KGC on a normalised RML document and guard its output.

Morph-KGC 2.10 is the engine (:mod:`pipeline.materialize.engine`, which also corrects six of its
behaviours at the source, among them unescaped function outputs, ``"None"``/``"nan"`` from empty
values and URI-safe instead of IRI-safe templates). Every RML document goes through
:func:`pipeline.materialize.rml.normalize.normalize_rml` before the engine copy is written.

The engine runs in this process as its command line runs it (mapping partitions, one rule at a
time; with ``processes`` > 1 the partitions run in a pool of workers, as Morph-KGC's own
``number_of_processes`` does), and each rule's statements are guarded as they come
(:mod:`pipeline.materialize.guard`: every distinct term checked once, statements with a failing term dropped
and reported) and then freed; the kept lines go to :class:`pipeline.materialize.output.Runs`, which writes the
KG file sorted and without duplicates (across rules and mapping partitions; Morph-KGC alone
removes duplicates within a partition only). So the KG is never held in memory, neither as text
nor as RDF objects: peak memory is the engine's own plus one rule. With ``overlap`` (what
``kgc materialize`` asks for) and one engine process, the guard runs in a forked worker while the
engine computes the next rules (:mod:`pipeline.materialize.guard_worker`; same output and findings). The guards:

* ``xsd:integer`` values reach the guard as the source holds them (:mod:`pipeline.materialize.engine`): what
  is no integer is dropped with a finding.
* Relative or illegal IRIs (from references or functions) are dropped with a finding.
* Every IRI, literal and language tag is checked with the checks of SV2
  (:mod:`pipeline.validation.terms`: RFC 3987, XSD lexical spaces, BCP 47); what fails is
  dropped and reported, so the written KG passes strict validation.
* IRIs under :data:`pipeline.materialize.rml.vocabulary.BNODE_NS` become blank nodes again.

Output: N-Triples, or N-Quads/TriG when the mapping has graph maps. An engine crash is
explained: the TriplesMap that fails alone is named, with its term map and the engine's error
(:class:`RMLError`).
"""
from __future__ import annotations

import ast
import csv
import functools
import io
import logging
import multiprocessing as mp
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Callable

import numpy as np
import pyoxigraph
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline.errors import MaterializeError, RMLError
from pipeline.findings import Finding
from pipeline.fno import FILTERS, written_name
from pipeline.fno.udfs import MISSING_VALUES
from pipeline.materialize.columnar import Joins, Unsupported, join_id as id_of, plan_rules, run_file
from pipeline.materialize.data_errors import DataError, stopping, value_place
from pipeline.materialize.engine import (EMPTY_VALUES, JOIN_MISSES, KEY_SEPARATOR, NO_VALUE, engine_config,
                                         engine_groups, engine_run, group_frames, ini_value, run_engine)
from pipeline.materialize.guard import ILL_IRI, NOT_NT, Guard, split_statement
from pipeline.materialize.guard_worker import GuardWorker, available as overlap_available
from pipeline.materialize.output import Runs, sort_command
from pipeline.materialize.readers import INNER_ARRAY, NESTED_VALUES
from pipeline.materialize.rml.check import term_maps, triples_maps
from pipeline.materialize.rml.vocabulary import RML
from pipeline.sources.engine_copy import original_of
from pipeline.sources.folders import folder_source_name, shown_source

__all__ = ["MaterializeResult", "write_engine_config", "materialize", "guard_triples", "findings_of", "run_engine_group",
           "function_drops", "join_drops", "object_drops", "value_findings", "NO_VALUE_REASON", "JOIN_REASON", "OBJECT_REASON"]

#: The start of the reason under which :func:`function_drops` counts values a function gave no value for.
NO_VALUE_REASON = "no value from function"
#: The start of the reason under which :func:`join_drops` counts child join keys no parent matched.
JOIN_REASON = "no parent record for join key"
#: The start of the reason under which :func:`object_drops` counts JSON objects met where a reference
#: needs a value (R2RML section 11, a data error: no term is made of them).
OBJECT_REASON = "a JSON object where a reference needs a value"
#: The start of the reason under which :func:`object_drops` counts the arrays that are elements of
#: the array a reference reads (``[[50.85, 4.35], ...]``).
INNER_ARRAY_REASON = f"a JSON {INNER_ARRAY} where a reference needs a value"
#: kind of :data:`~pipeline.materialize.readers.NESTED_VALUES` -> the reason its values are dropped under
_DROPPED_KINDS = {"object": OBJECT_REASON, INNER_ARRAY: INNER_ARRAY_REASON}

LOGGER = logging.getLogger(__name__)


@dataclass
class MaterializeResult:
    """Statements written and what the guards dropped or repaired.

    Attributes:
        triples: N-Triples lines of the default graph (``"<s> <p> <o> ."``), sorted (empty when
            :func:`materialize` wrote a file).
        quads: N-Quads lines of the statements in named graphs (``"<s> <p> <o> <g> ."``), sorted
            (idem).
        findings: one finding per guard reason (and predicate), with counts and examples.
        dropped: number of distinct engine statements the guards dropped.
        n_triples, n_quads: statements in the default graph and in named graphs.
        path: the file written by :func:`materialize` (``None`` for an in-memory result).
    """

    triples: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    dropped: int = 0
    quads: list[str] = field(default_factory=list)
    n_triples: int = 0
    n_quads: int = 0
    path: Path | None = None

    def write(self, path: Path, fmt: str | None = None) -> Path:
        """Write the statements of an in-memory result; returns ``path``.

        Args:
            path: output file.
            fmt: ``nt`` (default graph only), ``nq`` (all statements) or ``trig``; default: by
                the suffix of ``path`` (``.nq``, ``.trig``; anything else is N-Triples).
        """
        path = Path(path)
        fmt = fmt or _fmt(path)
        lines = self.triples if fmt == "nt" else [*self.triples, *self.quads]
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(t + "\n" for t in lines)
        if fmt == "trig":
            _to_trig(path)
        return path


def _fmt(path: Path) -> str:
    return {".nq": "nq", ".trig": "trig"}.get(Path(path).suffix, "nt")


def _to_trig(path: Path) -> None:
    """Rewrite an N-Quads file as TriG (pyoxigraph streams it)."""
    tmp = path.with_name(path.name + ".nq.tmp")
    path.replace(tmp)
    try:
        with open(path, "wb") as out:
            pyoxigraph.serialize(pyoxigraph.parse(str(tmp), "application/n-quads"), out, "application/trig")
    finally:
        tmp.unlink(missing_ok=True)


def write_engine_config(mapping_file: str | Path, ini_file: str | Path, output_file: str | Path,
                        note: str = "") -> Path:
    """Write a ready ``morph-kgc.ini`` for ``mapping_file`` (see :func:`engine_config`); returns its path.

    The file runs the mapping unchanged in Morph-KGC: ``python -m morph_kgc morph-kgc.ini``
    or ``morph_kgc.materialize(<ini path>)``. Unlike ``kgc materialize`` it has no output guards
    (``xsd:integer`` through floats, relative IRIs, ``"None"`` from empty XML elements). ``note``:
    comment lines (without ``#``) added to the header, such as why it names that mapping file.
    """
    ini = Path(ini_file)
    header = ("# Morph-KGC configuration for the mapping beside it (written by kgc).\n"
              "# Run: python -m morph_kgc morph-kgc.ini  (paths are absolute). kgc materialize adds\n"
              "# output guards Morph-KGC has not (xsd:integer through floats, relative IRIs, 'None').\n"
              + "".join(f"# {line}\n" for line in note.splitlines()))
    mappings = None
    if "," in str(Path(mapping_file).resolve()):
        # Morph-KGC reads a comma in `mappings` as a list separator: the file is named relative to
        # the working directory, this folder (whose path has the comma)
        mappings = ini_value(os.path.relpath(Path(mapping_file).resolve(), ini.resolve().parent))
        header = header.replace("(paths are absolute)", "from this folder")
    ini.write_text(header + engine_config(mapping_file, output_file=output_file, mappings=mappings), encoding="utf-8")
    return ini


def findings_of(guard: Guard, where: str,
                locate: Callable[[str, str], tuple] | None) -> list[Finding]:
    """One finding per (reason, predicate) the guard dropped statements for, and one for the literals
    it repaired.

    Args:
        guard: the guard after the run.
        where: the file findings name when ``locate`` cannot say better.
        locate: ``(predicate IRI, reason)`` -> ``(file, line)`` of the table row that maps it (the finding's column
            is then ``ontology_property``) or ``(file, line, column)`` for another kind of mapping
            file (an RML document: its ``rml:predicate``).
    Returns:
        The findings; a drop's ``value`` holds up to 3 of its statements, ``" | "``-separated (values a
        function or a join gave no term for: up to 3 values, after the statements' findings).
    """
    out, values = [], []
    for (reason, predicate), (count, examples) in guard.dropped.items():
        if reason.startswith(tuple(_DROPPED_KINDS.values())):  # keyed by its source file (object_drops)
            loc = (str(original_of(predicate)), None)  # the user's file, not the engine's copy of it
        else:
            loc = locate(predicate, reason) if locate and predicate else (where, None)
        file, line = loc[0], loc[1]
        column = loc[2] if len(loc) > 2 else ("ontology_property" if line else None)
        if reason.startswith((NO_VALUE_REASON, JOIN_REASON, *_DROPPED_KINDS.values())):
            values.append(Finding("materialize", file, f"{count} value(s) dropped: {reason}", line=line, column=column,
                                  value=" | ".join(examples), severity="error",
                                  expected="a value the function reads" if reason.startswith(NO_VALUE_REASON)
                                  else "a key of a parent record" if reason.startswith(JOIN_REASON)
                                  else "a string, number or boolean"))
            continue
        out.append(Finding("materialize", file, f"{count} triple(s) dropped: {reason}", line=line,
                           column=column, value=" | ".join(examples),
                           expected="a valid RDF triple", severity="error"))
    # the values' findings after the statements', in the order of the mapping (mapping groups run in any order)
    out += sorted(values, key=lambda f: (str(f.file), f.line or 0, f.message))
    if guard.repaired:
        out.append(Finding(
            "materialize", where,
            f"{len(guard.repaired)} literal(s) written without the white space around their value",
            value=min(guard.repaired)[:200], expected="a lexical form without surrounding white space",
            severity="warning"))
    return out


def _engine_graph(mapping_file: str | None) -> Graph | None:
    """The engine copy of the mapping, parsed once per file version (its path, size and modification
    time): both the function and the join drops name their TriplesMaps from it; ``None`` when there is
    none or it does not parse (names are a courtesy: the findings still name the RML line)."""
    if not mapping_file:
        return None
    try:
        st = os.stat(mapping_file)
    except OSError:
        return None
    return _parsed_engine_copy(str(mapping_file), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _parsed_engine_copy(path: str, size: int, mtime_ns: int) -> Graph | None:  # noqa: ARG001 - cache key
    try:
        return Graph().parse(path, format="turtle")
    except Exception:  # noqa: BLE001 - see _engine_graph
        return None


def _executions_of(mapping_file: str | None) -> dict[str, str]:
    """Function execution IRI -> ``<TriplesMap IRI>`` of the term map that calls it in the engine copy
    (the engine's rule table names TriplesMaps ``#TM0``, ``#TM1``...); ``{}`` when unreadable."""
    g = _engine_graph(mapping_file)
    if g is None:
        return {}
    out = {}
    for tm in triples_maps(g):
        for _, node in term_maps(g, tm):
            for execution in g.objects(node, RML.functionExecution):
                if isinstance(execution, URIRef):
                    out[str(execution)] = f"<{tm}>" if isinstance(tm, URIRef) else "[]"
    return out


def function_drops(guard: Guard, rml_df, fnml_df, mapping_file: str | None = None) -> None:
    """Move the engine's count of rows a function gave no value for (:data:`~pipeline.materialize.engine.NO_VALUE`)
    into ``guard``, one entry per TriplesMap, term map and predicate, so that they are reported and
    counted as dropped like the statements the guard drops (the run exits 1).

    A row reaches a function only when the values it references are there (the engine leaves out
    a record with a null reference first, counted apart as empty values), so a function without
    value for it lost a value of the data: ``toDate('2024-02-30')``, a code missing from a value
    map. Functions whose purpose is to give no value (:data:`pipeline.fno.FILTERS`) are not counted,
    nor inputs that say "no value" themselves (:data:`pipeline.fno.udfs.MISSING_VALUES`: ``NA``, ``-``).
    The count is of distinct tuples of the function's input values.

    Args:
        guard: the mapping group's guard (its ``dropped`` gains entries keyed
            ``(reason, predicate IRI)``; the reason starts with :data:`NO_VALUE_REASON`).
        rml_df: the engine's rules that ran (a mapping group, or the rules of a file the columnar path
            ran): only theirs are named, so a group counts its own drops.
        fnml_df: the engine's function table (:func:`~pipeline.materialize.engine.engine_rules`).
        mapping_file: the engine copy, read (only when something was counted) for the TriplesMaps' names.
    """
    import pandas as pd
    from morph_kgc.constants import RML_EXECUTION
    from morph_kgc.utils import get_references_in_fnml_execution

    counts = {execution: frames for execution, frames in NO_VALUE.items() if frames}
    NO_VALUE.clear()
    names = _executions_of(mapping_file) if counts else {}
    tops: dict[str, list] = {}
    for execution, frames in counts.items():
        calls = fnml_df[fnml_df["function_execution"] == execution]
        if calls.empty or str(calls.iloc[0]["function_map_value"]) in FILTERS:
            continue
        top = execution
        for _ in range(32):  # a nested execution: the term map holds the outermost one
            outer = fnml_df[(fnml_df["value_map_type"] == RML_EXECUTION) & (fnml_df["value_map_value"] == top)]
            if outer.empty:
                break
            top = str(outer.iloc[0]["function_execution"])
        tops.setdefault(top, []).extend((str(calls.iloc[0]["function_map_value"]), f) for f in frames)
    for top, found in tops.items():
        function = found[0][0]
        refs = list(dict.fromkeys(get_references_in_fnml_execution(fnml_df, top)))
        frame = pd.concat([f for _, f in found], ignore_index=True)
        present = [r for r in refs if r in frame.columns]
        # distinct tuples of the function's inputs: the engine calls it once per distinct rule row,
        # the columnar path once per distinct value, so this count is the same on both paths
        distinct = frame[present].astype(str).drop_duplicates() if present else frame.head(1)
        if present:  # a cell that says "no value" (NA, -, null) has none to lose: the compiler says those apart
            distinct = distinct[~distinct.apply(lambda c: c.str.strip().isin(MISSING_VALUES)).all(axis=1)]
        count = len(distinct)
        if not count:
            continue
        examples = [", ".join(f"{r}={v!r}" for r, v in zip(present, row)) for row in distinct.head(3).itertuples(
            index=False)]
        name = written_name(function)
        located = False
        keys: set[tuple] = set()  # a subject map's drops once, however many rules share it
        for role in ("object", "subject", "lang_datatype", "graph"):
            column = f"{role}_map_value"
            if column not in rml_df:
                continue
            rules = rml_df[rml_df[column] == top]
            for _, rule in rules.drop_duplicates(subset=["triples_map_id", "predicate_map_value"]).iterrows():
                located = True
                predicate = str(rule["predicate_map_value"]) if role != "subject" else ""
                source = shown_source(str(rule["logical_source_value"]))
                if len(present) == 1:  # the record: where the user's file holds the first value (one input only)
                    place = value_place(str(rule["logical_source_value"]), str(distinct.iloc[0, 0]))
                    source += f"; first: {place}" if place else ""
                what = {"lang_datatype": "language or datatype map", "subject": "subject map"}.get(role, f"{role} map")
                tm = names.get(top) or (f"<{rule['triples_map_id']}>" if not re.fullmatch(r"#TM\d+",
                                                                                          str(rule["triples_map_id"]))
                                        else "")
                if stopping():  # --on-data-error stop: a value the function cannot read is a data error too
                    value = str(distinct.iloc[0, 0]) if len(present) == 1 else (examples[0] if examples else None)
                    raise DataError(reason=f"{NO_VALUE_REASON} {name}", value=value,
                                    position=role if role in ("object", "subject", "graph") else None,
                                    predicate=predicate or None,
                                    reference=f"{name} of {', '.join(repr(r) for r in refs) or 'its inputs'}",
                                    triples_map=tm.strip("<>") if tm.startswith("<") else str(rule["triples_map_id"]),
                                    expected="a value the function reads",
                                    rule={"source": str(rule["logical_source_value"]),
                                          "subject": str(rule["subject_map_value"]),
                                          "object": str(rule["object_map_value"])})
                reason = (f"{NO_VALUE_REASON} {name} for values of {', '.join(repr(r) for r in refs) or 'its inputs'} "
                          f"that are there ({'TriplesMap ' + tm + ', ' if tm else ''}{what}, source {source}): "
                          "no triple")
                key = (reason, predicate if predicate.startswith(("http", "urn")) else "")
                if key in keys:
                    continue
                keys.add(key)
                entry = guard.dropped.setdefault(key, [0, []])
                entry[0] += count
                entry[1].extend(examples[:3 - len(entry[1])])
        if not located:
            if stopping():
                raise DataError(reason=f"{NO_VALUE_REASON} {name} (execution {top})", value=examples[0] if examples
                                else None, expected="a value the function reads")
            entry = guard.dropped.setdefault((f"{NO_VALUE_REASON} {name} (execution {top}): no triple", ""), [0, []])
            entry[0] += count
            entry[1].extend(examples[:3 - len(entry[1])])


def _joins_of(mapping_file: str | None) -> dict[tuple, tuple[str, set[str]]]:
    """``(child source, subject template or reference, predicate IRI, sorted child references) ->
    (<TriplesMap>, {parent source file names})`` for the referencing object maps with join conditions
    of the engine copy (the engine's rule table names TriplesMaps ``#TM0``...); ``{}`` when unreadable."""
    g = _engine_graph(mapping_file)
    if g is None:
        return {}
    out: dict[tuple, tuple[str, set[str]]] = {}
    for tm in triples_maps(g):
        ls, sm = g.value(tm, RML.logicalSource), g.value(tm, RML.subjectMap)
        source = str(g.value(ls, RML.source)) if ls is not None else ""
        subject = str(g.value(sm, RML.template) or g.value(sm, RML.reference) or "") if sm is not None else ""
        for pom in g.objects(tm, RML.predicateObjectMap):
            predicates = [str(p) for pm in g.objects(pom, RML.predicateMap) for p in g.objects(pm, RML.constant)]
            predicates += [str(p) for p in g.objects(pom, RML.predicate)]
            for om in g.objects(pom, RML.objectMap):
                parent = g.value(om, RML.parentTriplesMap)
                if parent is None:
                    continue
                pls = g.value(parent, RML.logicalSource)
                parent_source = shown_source(str(g.value(pls, RML.source))) if pls is not None else ""
                children = tuple(sorted(str(g.value(jc, RML.child)) for jc in g.objects(om, RML.joinCondition)))
                for p in predicates:
                    name, parents = out.setdefault((source, subject, p, children),
                                                   (f"<{tm}>" if isinstance(tm, URIRef) else "", set()))
                    parents.add(parent_source)
    return out


def object_drops(guard: Guard) -> None:
    """Count the JSON objects the readers met where a plain reference needs a value
    (:data:`pipeline.materialize.readers.NESTED_VALUES`, kind ``object``) as dropped values of the
    guard, under :data:`OBJECT_REASON` with the source, the reference and the first record: the data
    held something there and the KG has no term of it (an array gives one term per element instead,
    and stays a warning)."""
    for (source, reference), (n, first, value, kind, fix) in sorted(guard.nested.items()):
        if kind not in _DROPPED_KINDS:
            continue
        # the key's second part, a predicate for other drops, is the source file here (findings_of)
        reason = f"{_DROPPED_KINDS[kind]} (reference {reference!r}; first: record {first}): no term" + (
            fix if kind == INNER_ARRAY else "")
        entry = guard.dropped.setdefault((reason, source), [0, []])
        entry[0] = max(entry[0], n)
        if not entry[1]:
            entry[1].append(value)


def join_drops(guard: Guard, mapping_file: str | None = None) -> None:
    """Count, in ``guard.dropped``, the child join keys no parent record matched (``guard.join_misses``,
    gathered from :data:`~pipeline.materialize.engine.JOIN_MISSES` over the run): a referencing object
    map gives no term for a child record whose key no parent has, so the link is lost (a trailing
    space, another case, a dangling identifier). One entry per child term map and predicate, with
    up to three keys and their near misses; the run exits 1.

    A key is lost when none of the joins of the same child records and predicate matched it: a
    mapping that joins to several parent TriplesMaps (one per source, as YARRRML writes a mapping
    with several sources) loses a key only when no parent has it. The count is of child values whose
    key is lost (a key two records hold is two links lost), not of distinct keys.

    Args:
        guard: the run's guard, after every mapping group (its ``join_misses`` are emptied).
        mapping_file: the engine copy, read (only when a key was lost) for the names.
    """
    groups: dict[tuple, list] = {}
    for (source, subject, predicate, child, parent_tm, parent), entry in guard.join_misses.items():
        groups.setdefault((source, subject, predicate, child), []).append((parent_tm, parent, entry))
    guard.join_misses = {}
    names: dict | None = None
    for (source, subject, predicate, child), rules in groups.items():
        lost, held = None, []
        for _, _, (arrays, _) in rules:
            values = np.concatenate(arrays).tolist() if arrays else []
            held = held or values  # each join of these child records saw all of them: one is enough to count
            lost = set(values) if lost is None else lost & set(values)
        if not lost:
            continue
        names = _joins_of(mapping_file) if names is None else names
        tm, parents = names.get((source, subject, predicate, tuple(sorted(child))), ("", set()))
        parents = sorted(parents - {""})
        condition = ", ".join(f"{c} == {p}" for c, p in zip(child, rules[0][1]))
        first = sorted(map(str, lost))[0]
        # the record: where the user's file holds the first lost key (a one-reference key only)
        place = value_place(source, first) if len(child) == 1 and source else None
        reason = (f"{JOIN_REASON} ({condition}{' in ' + ', '.join(parents) if parents else ''}; "
                  f"{'TriplesMap ' + tm + ', ' if tm else ''}referencing object map, source {shown_source(source)}"
                  f"{'; first: ' + place if place else ''}): no triple")
        entry = guard.dropped.setdefault((reason, predicate if predicate.startswith(("http", "urn")) else ""), [0, []])
        entry[0] += sum(k in lost for k in held)
        shown = [(k, h) for _, _, (_, examples) in rules for k, h in examples if k in lost]
        if not shown:
            shown = [(k, "") for k in sorted(lost)[:3]]
        for key, hint in list(dict.fromkeys(shown))[:3 - len(entry[1])]:
            text = ", ".join(f"{c}={v!r}" for c, v in zip(child, str(key).split(KEY_SEPARATOR)))
            entry[1].append(f"{text} ({hint})" if hint else text)


def guard_triples(lines: list[str] | set[str], where: str = "mapping",
                  locate: Callable[[str, str], tuple[str, int | None]] | None = None) -> MaterializeResult:
    """Guard engine statements given as text (the guards of :func:`materialize`, in memory).

    Args:
        lines: statements (``"<s> <p> <o> [<g>]"``, final ``.`` optional).
        where: file name used in findings when ``locate`` cannot say better.
        locate: predicate IRI -> (table file, table line) of the row that maps it, so a
            finding points at the row to fix rather than at the mapping document.
    Returns:
        A :class:`MaterializeResult`: sorted N-Triples lines (default graph) and N-Quads lines
        (named graphs); one finding per reason and predicate. A line that is no statement of
        four terms at most is dropped as "not a valid N-Triples statement".
    """
    guard = Guard()
    columns: list[list[str]] = [[], [], [], []]
    for line in sorted(set(lines)):
        terms = split_statement(line) or _parse_statement(line, guard)
        if terms is None:
            continue
        for col, term in zip(columns, terms):
            col.append(term)
    with tempfile.TemporaryDirectory(prefix="kgc-guard-") as tmp:
        runs = Runs(Path(tmp))
        guard.frame(columns, runs)
        return _collect(runs, Path(tmp), guard, where, locate, keep=None)


def _parse_statement(line: str, guard: Guard) -> tuple[str, str, str, str] | None:
    """A line the term grammar does not split: pyoxigraph's parser decides (its message says
    whether an IRI is the cause); ``None`` when it is dropped."""
    text = line.rstrip()
    try:
        quads = list(pyoxigraph.parse(io.BytesIO((text if text.endswith(".") else text + " .").encode("utf-8")),
                                      "application/n-quads"))
    except SyntaxError as exc:
        m = re.match(r"^\s*\S+\s+<([^<>\s]*)>", line)
        guard.drop(ILL_IRI if "IRI" in str(exc) else NOT_NT, m.group(1) if m else "", text)
        return None
    if len(quads) != 1:
        guard.drop(NOT_NT, "", text)
        return None
    q = quads[0]
    return str(q.subject), str(q.predicate), str(q.object), "" if isinstance(q.graph_name, pyoxigraph.DefaultGraph) \
        else str(q.graph_name)


def _collect(runs: Runs, work: Path, guard: Guard, where: str, locate, keep: Path | None,
             fmt: str = "nt") -> MaterializeResult:
    """Merge the runs; read them into the result (``keep`` None) or write the file ``keep``."""
    default, named = work / "default.nt", work / "named.nq"
    result = MaterializeResult(findings=findings_of(guard, where, locate),
                               dropped=sum(c for c, _ in guard.dropped.values()))
    result.n_triples = runs.finish(False, default)
    result.n_quads = runs.finish(True, named)
    if keep is None:
        result.triples = default.read_text(encoding="utf-8").splitlines()
        result.quads = named.read_text(encoding="utf-8").splitlines()
        return result
    keep.parent.mkdir(parents=True, exist_ok=True)
    if fmt != "nt" and result.n_quads:
        with open(default, "ab") as out, open(named, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)  # N-Quads: the default graph's lines, then the named ones
    shutil.move(str(default), str(keep))
    if fmt == "trig":
        _to_trig(keep)
    result.path = keep
    return result


def _explain(mapping_file: Path, exc: BaseException, processes: int) -> RMLError:
    """Name the TriplesMap (and term map) on which the engine fails: each asserted TriplesMap
    is run alone (the others non-asserted, so joins still resolve) until one fails."""
    cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    try:
        g = Graph().parse(mapping_file, format="turtle")
    except Exception:  # the engine copy is ours; if even it does not parse, say what the engine said
        return RMLError(f"Morph-KGC failed: {cause}", path=mapping_file)
    # every TriplesMap, typed or not (R2RML/RML infer the type from the logical source and subject map)
    maps = [tm for tm in triples_maps(g) if (tm, RDF.type, RML.NonAssertedTriplesMap) not in g]
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
    where, absent = "", None
    if culprit is not None:
        where = f"TriplesMap <{culprit}>" if isinstance(culprit, URIRef) else f"TriplesMap [] ({culprit})"
        absent = _absent_columns(g, culprit, str(exc))
        if absent:  # pandas lists every column the rule reads; say which ones the file lacks
            file, header, names = absent
            cause = (f"{', '.join(repr(n) for n in names)} {'is not a column' if len(names) == 1 else 'are not columns'}"
                     f" of {file} (its columns: {', '.join(header) or 'none'})")
            exc = ValueError(" ".join(repr(n) for n in names))
        hint = _term_map_hint(g, culprit, str(exc))
        where += f", {hint}" if hint else ""
        where += ": "
    if culprit is not None and absent:
        return RMLError(f"{where}{cause}", path=mapping_file)
    return RMLError(f"{where}the engine (Morph-KGC) cannot run it: {cause}", path=mapping_file)


#: pandas' words when a CSV file lacks columns a rule reads (``usecols``), with the list it read.
_USECOLS = re.compile(r"columns expected but not found: (\[.*?\])")


def _absent_columns(g: Graph, tm, message: str) -> tuple[str, list[str], list[str]] | None:
    """``(file name, header, names)`` when the engine failed because a CSV source that ``tm`` reads
    (its own, or a parent TriplesMap's through a join) lacks the columns ``names`` (pandas' usecols
    error lists the columns it did not find; the header tells which file lacks them), else None."""
    m = _USECOLS.search(message)
    if m is None:
        return None
    try:
        listed = [str(n) for n in ast.literal_eval(m.group(1))]
    except (ValueError, SyntaxError):
        return None
    parents = [(node, parent) for _, node in term_maps(g, tm) for parent in g.objects(node, RML.parentTriplesMap)]
    # a join's rml:parent names a column of the parent's source: that file first when it is listed
    joined = [parent for node, parent in parents
              if any(str(g.value(jc, RML.parent)) in listed for jc in g.objects(node, RML.joinCondition))]
    owners = joined + [tm] + [parent for _, parent in parents]
    found = []
    for owner in dict.fromkeys(owners):
        ls = g.value(owner, RML.logicalSource)
        src = g.value(ls, RML.source) if ls is not None else None
        if src is None or not Path(str(src)).is_file():
            continue
        try:
            with open(str(src), encoding="utf-8-sig", newline="") as fh:
                header = next(csv.reader(fh), [])
        except (OSError, UnicodeDecodeError, csv.Error):
            continue
        names = [n for n in listed if n not in header]
        if names:
            found.append((len(names) == len(listed), Path(str(src)).name, header, names))
    # the file that lacks every listed column is the one pandas read
    best = next((f for f in found if f[0]), found[0] if found else None)
    return best[1:] if best else None


def _term_map_hint(g: Graph, tm, message: str) -> str:
    """The term map of ``tm`` (or its language map, or a join condition of it) whose reference or
    template the engine's ``message`` names, as ``"object map rml:reference 'x'"``; ``""`` if none."""
    candidates = []
    for role, node in term_maps(g, tm):
        candidates += [(role, node, p) for p in (RML.reference, RML.template)]
        candidates += [(f"{role}'s language map", lm, p) for lm in g.objects(node, RML.languageMap)
                       for p in (RML.reference, RML.template)]
        candidates += [(f"{role}'s join condition", jc, p) for jc in g.objects(node, RML.joinCondition)
                       for p in (RML.child, RML.parent)]
    for quoted in (True, False):  # a quoted name ('name') first: 'name' also occurs in 'fullname'
        for role, node, p in candidates:
            value = g.value(node, p)
            if value is None or len(str(value)) <= 1:
                continue
            parts = [str(value)] + (re.findall(r"\{([^{}]+)\}", str(value)) if p == RML.template else [])
            if any(part and (f"'{part}'" if quoted else part) in message for part in parts):
                return f"{role} {p.n3(g.namespace_manager)} {str(value)!r}"
    for role, node in term_maps(g, tm):
        if g.value(node, RML.functionExecution) is not None and "reference_results" in message:
            return f"{role} with a function execution (the engine cannot combine it with this template or path)"
    return ""


def materialize(mapping_file: Path, processes: int = 1,
                locate: Callable[[str, str], tuple[str, int | None]] | None = None,
                output: Path | None = None, fmt: str | None = None, overlap: bool = False,
                extra: list[str] | None = None, columnar: bool = True) -> MaterializeResult:
    """Run Morph-KGC on an engine mapping file and guard the result, one engine rule at a time.

    Args:
        mapping_file: an engine-ready RML file (the graph of :func:`~pipeline.materialize.rml.normalize.normalize_rml`).
        processes: worker processes (Morph-KGC's mapping groups run in parallel, each guarded in
            its worker).
        locate: see :func:`guard_triples`.
        output: write the KG to this file and keep no statement in memory (the result's
            ``triples``/``quads`` stay empty, ``path`` and the counts say what was written);
            ``None``: return the statements in the result.
        fmt: format of ``output``: ``nt`` (default graph only), ``nq`` or ``trig``; default: by
            its suffix.
        overlap: with one engine process, guard the rules in a forked worker process while the
            engine computes the next ones (:mod:`pipeline.materialize.guard_worker`; same output and findings;
            ignored where ``fork`` or a ``sort`` command is missing). Off by default: a caller
            that is itself a multi-threaded worker (the distributed mode) must not fork.
        extra: statements computed beside the engine (``"s p o [g]"`` in the engine's term text,
            e.g. RML-CC collections, :mod:`pipeline.materialize.gather`), guarded and written with
            the engine's.
        columnar: run the rules over CSV/TSV sources with :mod:`pipeline.materialize.columnar`
            (same statements and findings, a fraction of the CPU); ``False``: every rule by the
            engine's own per-row path.
    Returns:
        The guarded statements (or counts) and findings; a warning names the TriplesMaps when the
        mapping yields no statement at all, an ``info`` per source reference whose empty or missing
        values were left out.
    Raises:
        RMLError: Morph-KGC failed; the message names the TriplesMap, term map and cause.
        MaterializeError: Morph-KGC exited.
    """
    mapping_file = Path(mapping_file)
    t0 = time.perf_counter()
    parent = Path(output).resolve().parent if output is not None else None
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".kgc-runs-", dir=parent) as tmp:
        work = Path(tmp)
        try:
            with engine_run():
                # stopping on a data error: the guard runs in this process, where the error is raised
                guard, runs, rows, empty = _run_groups(mapping_file, processes, work, overlap and not stopping(),
                                                       columnar)
        except SystemExit as exc:  # Morph-KGC exits on some mapping errors
            raise MaterializeError(f"Morph-KGC stopped on {mapping_file}: exit {exc.code}") from exc
        except (MaterializeError, DataError):
            raise
        except Exception as exc:  # the engine raises many unrelated types; _explain names the rule
            raise _explain(mapping_file, exc, processes) from exc
        join_drops(guard, str(mapping_file))  # over the whole run: a key one parent lacks may be another's
        object_drops(guard)
        if extra:
            columns: list[list[str]] = [[], [], [], []]
            for line in extra:
                terms = split_statement(line) or _parse_statement(line, guard)
                if terms is not None:
                    for col, term in zip(columns, terms):
                        col.append(term)
            guard.frame(columns, runs)
            rows += len(columns[0])
        result = _collect(runs, work, guard, str(mapping_file), locate,
                          keep=Path(output) if output is not None else None, fmt=fmt or _fmt(output or Path("x.nt")))
    result.findings += value_findings(guard, empty)
    if not rows:
        g = Graph().parse(mapping_file, format="turtle")
        maps = sorted(str(tm) for tm in g.subjects(RDF.type, RML.TriplesMap))
        if maps:
            # the mapping the user has (locate's answer for no predicate), not the engine copy
            result.findings.append(Finding("materialize", locate("")[0] if locate else str(mapping_file),
                                           f"the mapping declares {len(maps)} TriplesMap(s) and yields no triple: "
                                           + ", ".join(f"<{m}>" for m in maps), severity="warning"))
    LOGGER.info("materialize: %d engine rows, %d statements kept, %d dropped in %.1f s", rows,
                result.n_triples + result.n_quads, result.dropped, time.perf_counter() - t0)
    return result


def value_findings(guard: Guard, empty: dict[tuple[str, str], int]) -> list[Finding]:
    """The findings on references whose values are no single value, after :func:`object_drops`: a
    warning per reference that met JSON arrays (one term per element), and an info per reference
    with empty or missing values (``empty``: ``(source, reference) -> records``; the records holding
    a JSON object are said as dropped values, not again as empty).

    Returns:
        The findings, sorted by source and reference within each kind.
    """
    findings = []
    for (source, reference), (n, first, value, kind, fix) in sorted(guard.nested.items()):
        if kind in _DROPPED_KINDS:  # counted as dropped values (object_drops): an error finding says it
            continue
        findings.append(Finding(
            "materialize", _user_source(source), f"{n} record(s) hold a JSON {kind} where the reference {reference!r} needs a value "
            f"(first: record {first}, {value}): " + ("one term per element" if kind == "array" else "no term")
            + f" (RML-Core: a reference yields values{fix}; --on-data-error stop refuses it)", column=reference,
            severity="warning"))
    empty = dict(empty)
    for (source, reference), (n, *_rest, kind, _fix) in guard.nested.items():
        if kind in _DROPPED_KINDS and (source, reference) in empty:
            empty[(source, reference)] = max(empty[(source, reference)] - n, 0)
    for (source, reference), n in sorted((k, v) for k, v in empty.items() if v):
        findings.append(Finding("materialize", _user_source(source), f"{n} record(s) have no value for {reference!r} "
                                "(empty or missing): no term made from them", column=reference, severity="info"))
    return findings


def _user_source(source: str) -> str:
    """``source`` as a finding names it: the user's folder for the combined copy of a folder source
    (:func:`~pipeline.sources.folders.folder_source_name`), else as the engine read it."""
    return folder_source_name(source) or source


def _mappings(config) -> str | None:
    """The mapping file of an engine configuration (:func:`~pipeline.materialize.engine.engine_config`)."""
    try:
        return config.get("DataSource1", "mappings")
    except Exception:  # noqa: BLE001 - a configuration of another shape: no names
        return None


def run_engine_group(group, rml_df, fnml_df, config, work: Path, runs: Runs | None = None,
               worker: tuple[GuardWorker, int] | None = None) -> tuple[Guard, Runs, int, dict]:
    """One mapping group: engine rule by rule, each guarded and sent to ``runs`` (default, in a pool
    worker: the group's own ``sort``, sealed into run files the parent merges), or handed to a
    guard ``worker`` (with this group's index) that guards it while the engine runs on."""
    guard, rows = Guard(), 0
    NO_VALUE.clear()  # counts of another group or run (a forked worker inherits them)
    JOIN_MISSES.clear()
    NESTED_VALUES.clear()
    pool = runs is None
    runs = Runs(work, stream=True) if pool else runs
    for tm, columns, triple, trusted in group_frames(group, rml_df, fnml_df, config, statements=worker is None):
        rows += len(columns[0])
        if worker is not None:
            worker[0].send(worker[1], tm, columns, trusted)
            del columns, triple
            continue
        try:
            guard.frame(columns, runs, triple, trusted)
        except DataError as exc:
            raise exc.completed(triples_map=tm, rule=_rule_of(group, tm, exc.predicate))
        except (OSError, ValueError, RuntimeError) as exc:  # ours, not the engine's: no TriplesMap to blame
            raise MaterializeError(f"output guard failed on the statements of {tm}: {type(exc).__name__}: {exc}") \
                from exc
        del columns, triple
    guard.end_group()
    function_drops(guard, group, fnml_df, _mappings(config))
    guard.take_join_misses(JOIN_MISSES)
    guard.take_nested(NESTED_VALUES)
    return guard, runs.seal() if pool else runs, rows, dict(EMPTY_VALUES)


def _rule_of(rules, tm: str, predicate: str | None) -> dict | None:
    """The source file and subject and object map expressions of engine rule ``tm`` (the one with
    ``predicate`` where several are), for a :class:`~pipeline.materialize.data_errors.DataError`."""
    rows = rules[rules["triples_map_id"].astype(str) == tm]
    if rows.empty:
        return None
    if predicate and (rows["predicate_map_value"].astype(str) == predicate).any():
        rows = rows[rows["predicate_map_value"].astype(str) == predicate]
    row = rows.iloc[0]
    return {"source": str(row["logical_source_value"]), "subject": str(row["subject_map_value"]),
            "object": str(row["object_map_value"])}


def _run_groups(mapping_file: Path, processes: int, work: Path,
                overlap: bool = False, columnar: bool = True) -> tuple[Guard, Runs, int, dict]:
    """All mapping groups: those :mod:`pipeline.materialize.columnar` runs, then the others by the
    engine (in a pool of ``processes`` when above 1, or with the guard in a
    :class:`~pipeline.materialize.guard_worker.GuardWorker` with ``overlap``); the guards' counts summed."""
    runs = Runs(work, stream=True)
    worker = None
    try:
        groups, rml_df, fnml_df, config = engine_groups(mapping_file, processes)
        outs, groups = _run_columnar(groups, rml_df, fnml_df, config, runs) if columnar else ([], groups)
        # the guard beside the engine: forked now, before the engine's rules build their frames
        if groups and overlap and processes == 1 and overlap_available() and sort_command() is not None:
            worker = GuardWorker(work)
        # workers must inherit the engine corrections: fork only (Morph-KGC parallelises on Linux only too)
        if worker is None and processes > 1 and len(groups) > 1 and "fork" in mp.get_all_start_methods():
            with mp.get_context("fork").Pool(processes) as pool:  # workers inherit the engine corrections
                outs += pool.starmap(run_engine_group, zip(groups, repeat(rml_df), repeat(fnml_df), repeat(config),
                                                     repeat(work)))
        else:
            engine_outs = [run_engine_group(g, rml_df, fnml_df, config, work, runs, None if worker is None else (worker, i))
                           for i, g in enumerate(groups)]
            if worker is not None:
                guards, files = worker.finish()
                worker = None
                for i, (g, _, _, _) in enumerate(engine_outs):  # g holds what the engine counted (no value)
                    if i in guards:
                        guards[i].merge(g)
                engine_outs = [(guards.get(i, g), r, n, e) for i, (g, r, n, e) in enumerate(engine_outs)]
                for named in (False, True):
                    runs.files[named] += files[named]
            outs += engine_outs
    except BaseException:
        if worker is not None:
            worker.abort()
        runs.close()
        raise
    guard, rows, empty = Guard(), 0, {}
    for g, r, n, e in outs:
        guard.merge(g)
        if r is not runs:
            runs.files[False] += r.files[False]
            runs.files[True] += r.files[True]
        rows += n
        for k, v in e.items():  # several rules read the same source: the count is per record
            empty[k] = max(empty.get(k, 0), v)
    return guard, runs, rows, empty


def _run_columnar(groups: list, rml_df, fnml_df, config, runs: Runs) -> tuple[list, list]:
    """Run the mapping groups :mod:`pipeline.materialize.columnar` can run, file by file, each
    rule's statements guarded into ``runs``; one guard per mapping group, as on the engine path.

    Returns:
        ``(outs, rest)``: ``(guard, runs, rows, empty values)`` per group run here, and the
        groups left to the engine (those with a rule it cannot run, or whose file it could not
        read as the engine does; what was written for them is part of the engine's output).
    """
    import pandas as pd

    rules, rest = plan_rules(groups, rml_df, fnml_df, config)
    if not rules:
        return [], rest
    NO_VALUE.clear()
    JOIN_MISSES.clear()
    by_partition = {str(g.iloc[0]["mapping_partition"]): g for g in groups}
    guards: dict[str, Guard] = {}
    rows: dict[str, int] = {}
    left: dict[str, int] = {}  # rules of a partition still to run: its guard forgets its drops after the last
    files: dict[tuple[str, str], list] = {}
    for rule in rules:
        files.setdefault((rule.path, rule.source_type), []).append(rule)
        left[rule.partition] = left.get(rule.partition, 0) + 1
    needs: dict[tuple, int] = {}  # rules still to run per parent side of a join
    for rule in rules:
        if rule.join is not None:
            needs[id_of(rule.join)] = needs.get(id_of(rule.join), 0) + 1
    failed: set[str] = set()
    joins = Joins()
    dropped = Guard()  # values functions gave no term for (function_drops), file by file
    empty: dict[tuple[str, str], int] = {}  # (source, reference) -> records with an empty value

    def emit(rule, columns, n) -> None:
        guard = guards.setdefault(rule.partition, Guard())
        rows[rule.partition] = rows.get(rule.partition, 0) + n
        try:
            guard.frame(columns, runs, None, rule.trusted)
        except DataError as exc:
            raise exc.completed(triples_map=str(rule.triples_map), rule=_rule_of(pd.DataFrame([rule.row]),
                                                                                  str(rule.triples_map), None))
        except (OSError, ValueError, RuntimeError) as exc:  # ours, not the engine's: no TriplesMap to blame
            raise MaterializeError(f"output guard failed on the statements of {rule.triples_map}: "
                                   f"{type(exc).__name__}: {exc}") from exc

    with engine_run():
        for (path, source_type), file_rules in files.items():
            todo = [r for r in file_rules if r.partition not in failed]
            if todo:
                try:
                    counts = run_file(path, source_type, todo, joins, emit)
                    for rule in todo:  # keyed as the engine's path keys them (its logical source value)
                        for ref in rule.refs:
                            key = (str(rule.row["logical_source_value"]), ref)
                            empty[key] = max(empty.get(key, 0), counts.get(ref, 0))
                    function_drops(dropped, pd.DataFrame([r.row for r in todo]), fnml_df, _mappings(config))
                    dropped.take_join_misses(JOIN_MISSES)
                except Unsupported as exc:
                    LOGGER.info("the engine runs the rules of %s: %s", path, exc)
                    failed.update(r.partition for r in todo)
                    NO_VALUE.clear()  # the engine runs them again and counts for itself
                    JOIN_MISSES.clear()
            for rule in file_rules:
                left[rule.partition] -= 1
                if not left[rule.partition] and rule.partition in guards:
                    guards[rule.partition].end_group()
                if rule.join is not None:
                    needs[id_of(rule.join)] -= 1
                    if not needs[id_of(rule.join)]:
                        joins.drop(rule.join)
    outs = [(guards.get(p, Guard()), runs, rows.get(p, 0), {}) for p in dict.fromkeys(r.partition for r in rules)
            if p not in failed]
    if outs:
        outs[0][0].merge(dropped)
        outs[0] = (*outs[0][:3], {k: v for k, v in empty.items() if v})
    NO_VALUE.clear()
    JOIN_MISSES.clear()
    return outs, rest + [by_partition[p] for p in sorted(failed)]
