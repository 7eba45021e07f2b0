"""Data errors (R2RML section 11) and what a run does on the first one: drop and report, or stop.

A *data error* is a term a mapping would generate from the data that is not valid RDF or not what
the mapping says: an IRI that is invalid or relative without a base IRI, a literal that is
ill-typed for its datatype, a language tag that names no BCP 47 language, and (RML-Core: a reference yields
values) a reference whose value is a JSON array or object instead of a scalar. R2RML section 11
says a processor "MUST abort the operation that would return such a term" and "MAY provide
partial access" to the rest; both readings are offered:

* ``drop`` (default): the statement with such a term is dropped and counted, the run goes on and
  ends with exit 1 (a JSON array value gives one term per element, with a warning);
* ``stop``: the first data error ends the run with :class:`DataError` (exit 2), one line naming the
  TriplesMap and term map, the source file and record, the value and what was expected; files
  written before it are kept, the KG file is not written.

The policy is process-wide for the time of one run (:func:`policy`), so that the engine's readers,
which Morph-KGC calls without any context of ours, and forked workers see it.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from pipeline.errors import InputError
from pipeline.materialize.rml.vocabulary import REF_NS, RML
from pipeline.sources.engine_copy import DerivedOrigin, derived_origin, original_of
from pipeline.sources.folders import folder_members

__all__ = ["POLICIES", "DataError", "policy", "stopping", "logical_sources", "located", "dropped_value", "value_place"]

#: The choices of ``--on-data-error``.
POLICIES = ("drop", "stop")

_STATE = {"stop": False}
#: Morph-KGC's own names of the rules of a TriplesMap (its RML-star expansion numbers them)
_ENGINE_ID = re.compile(r"#TM\d+")
_REF_TEMPLATE = re.compile(re.escape(REF_NS) + r"[^{}]*/\{([^{}]*)\}")


def stopping() -> bool:
    """Whether the run in progress stops on the first data error."""
    return _STATE["stop"]


@contextmanager
def policy(mode: str) -> Iterator[None]:
    """Set the data-error policy (``drop`` or ``stop``) for the time of the ``with`` block.

    Raises:
        ValueError: an unknown mode.
    """
    if mode not in POLICIES:
        raise ValueError(f"unknown data-error policy {mode!r}; expected one of {', '.join(POLICIES)}")
    before = _STATE["stop"]
    _STATE["stop"] = mode == "stop"
    try:
        yield
    finally:
        _STATE["stop"] = before


class DataError(InputError):
    """The first data error of a run with the ``stop`` policy (exit 2).

    What the guard or a reader knows is kept in attributes, completed by the caller that knows
    more (the TriplesMap, then the mapping and its sources: :func:`located`).

    Attributes:
        reason: what is wrong (``relative or illegal IRI``, ``ill-typed literal for <...>``, ...).
        term: the term as the engine wrote it (N-Triples text), or ``None``.
        value: the data value the term was made from, as far as it can be told.
        position: ``subject``, ``predicate``, ``object`` or ``graph``, or ``None``.
        predicate: the predicate IRI of the statement, or ``None``.
        triples_map: the TriplesMap's IRI, or ``None`` when not known (yet).
        source: the source file, or ``None``.
        record: where in the source (``record 3``, ``line 7``), or ``None``.
        reference: the reference (term map expression) concerned, or ``None``.
        expected: what a valid term needs (``an absolute IRI``, ``a scalar value``, ...).
        rule: the engine's rule (``{"source", "subject", "object"}``: its logical source file and
            subject and object map expressions), which names the TriplesMap where the engine's own
            name for it is a number (``#TM3``).
    """

    _FIELDS = ("reason", "term", "value", "position", "predicate", "triples_map", "source", "record", "reference",
               "expected", "rule")

    def __init__(self, message: str = "", **fields: str | None) -> None:
        super().__init__(message)
        for name in self._FIELDS:
            setattr(self, name, fields.get(name))

    def __reduce__(self):  # raised in a pool worker: the fields cross the process boundary
        return (_rebuild, (str(self), {n: getattr(self, n) for n in self._FIELDS}))

    def text(self) -> str:
        """The one-line message from the fields known."""
        what = f"TriplesMap <{self.triples_map}>" if self.triples_map and not _ENGINE_ID.fullmatch(self.triples_map) \
            else "a statement"
        if self.position:
            what += f", {self.position} map" + (f" of <{self.predicate}>" if self.position == "object"
                                                   and self.predicate else "")
        if self.reference:
            what += f" ({self.reference})"
        where, source = "", self.source or (self.rule or {}).get("source")
        if source:
            where = f" in {source}" + (f" {self.record}" if self.record else "")
        value = f"value {self.value!r}" if self.value is not None else f"term {self.term}"
        expected = f"; expected {self.expected}" if self.expected else ""
        return (f"data error (--on-data-error stop): {what}: {value}{where}: {self.reason}{expected}"
                .replace("\n", "\\n"))

    def completed(self, **fields: str | None) -> "DataError":
        """This error with the fields given set where they were unknown, its message rebuilt."""
        for name, v in fields.items():
            if getattr(self, name, None) is None and v is not None:
                setattr(self, name, v)
        self.args = (self.text(),)
        return self


def _rebuild(message: str, fields: dict) -> DataError:
    return DataError(message, **fields)


def logical_sources(g: Graph) -> dict[str, str]:
    """TriplesMap IRI -> the file its logical source reads (through logical views), as the
    normalised mapping ``g`` names it; taken before the engine copies replace the paths."""
    out: dict[str, str] = {}
    for tm in set(g.subjects(RML.logicalSource, None)):
        ls, seen = g.value(tm, RML.logicalSource), set()
        while ls is not None and g.value(ls, RML.viewOn) is not None and ls not in seen:
            seen.add(ls)
            ls = g.value(ls, RML.viewOn)
        src = g.value(ls, RML.source) if ls is not None else None
        if src is not None and g.value(src, RML.path) is not None:
            src = g.value(src, RML.path)
        if isinstance(src, Literal):
            out[str(tm)] = str(src)
    return out


def _expression(g: Graph, node: Node | None) -> str | None:
    if node is None:
        return None
    for p, name in ((RML.reference, "rml:reference"), (RML.template, "rml:template"), (RML.constant, "rml:constant")):
        v = g.value(node, p)
        if v is not None:
            m = _REF_TEMPLATE.fullmatch(str(v)) if p == RML.template else None
            if m is not None:  # a reference-valued IRI as the normalisation writes it for the engine
                return f"rml:reference {json.dumps(m.group(1), ensure_ascii=False)}"
            return f"{name} {json.dumps(str(v), ensure_ascii=False)}"
    return None


def _term_map(g: Graph, tm: Node, position: str | None, predicate: str | None) -> str | None:
    """The expression of the term map that made the failing term."""
    if position == "subject":
        return _expression(g, g.value(tm, RML.subjectMap))
    if position == "graph":
        sm = g.value(tm, RML.subjectMap)
        return _expression(g, g.value(sm, RML.graphMap)) if sm is not None else None
    if position == "object" and predicate:
        for pom in g.objects(tm, RML.predicateObjectMap):
            preds = {str(p) for p in g.objects(pom, RML.predicate)}
            preds |= {str(g.value(pm, RML.constant)) for pm in g.objects(pom, RML.predicateMap)}
            if predicate in preds:
                return _expression(g, g.value(pom, RML.objectMap))
    return None


def _triples_map_of(g: Graph, rule: dict) -> str | None:
    """The TriplesMap of ``g`` an engine rule comes from: same source file and subject map expression."""
    for tm in g.subjects(RML.logicalSource, None):
        ls = g.value(tm, RML.logicalSource)
        while ls is not None and g.value(ls, RML.viewOn) is not None:
            ls = g.value(ls, RML.viewOn)
        if ls is None or str(g.value(ls, RML.source)) != rule.get("source"):
            continue
        sm = g.value(tm, RML.subjectMap)
        if sm is not None and any(str(v) == rule.get("subject") for p in (RML.reference, RML.template, RML.constant)
                                  for v in g.objects(sm, p)):
            return str(tm)
    return None


def _first_place(path: Path, value: str) -> str | None:
    """Where the first occurrence of ``value`` (plain, JSON- or XML-escaped) is in ``path``: ``line 4``
    in a CSV file, where a line is a record; ``line 1, column 84213`` in a JSON or XML file, where
    one line may hold every record (``json.dump`` and web APIs write a document on one line); the
    column counts characters from 1. ``None`` when the file does not hold it as written."""
    forms = [f for f in dict.fromkeys((value, json.dumps(value, ensure_ascii=False)[1:-1],
                                       value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))) if f]
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                at = [i for i in (line.find(f) for f in forms) if i >= 0]
                if at:
                    return f"line {n}" if path.suffix.lower() in (".csv", ".tsv") else f"line {n}, column {min(at) + 1}"
    except OSError:
        return None
    return None


def value_place(src: str | Path, value: str) -> str | None:
    """Where the user's file behind the source ``src`` (an input or an engine copy) first holds ``value``:
    ``events.jsonl line 5, column 118`` (:func:`_first_place`); ``None`` when no file holds it as written."""
    where, place = _place(Path(src), str(original_of(src).name), value)
    return f"{Path(where).name} {place}" if place else None


def _place(path: Path, src: str, value: str) -> tuple[str, str | None]:
    """``(file, place)`` of the first occurrence of ``value`` (:func:`_first_place`) in the source ``src``
    (read at ``path``); of the combined copy of a folder source, in the user's file that holds it
    (:func:`~pipeline.sources.folders.folder_members`), and of another engine copy, in the file it was
    written from (:func:`~pipeline.sources.engine_copy.original_of`): not in the copy, which the user did
    not write."""
    origin = derived_origin(path)
    if origin is not None:  # kgc's records of the user's file: the record holding the value, in that file
        at = _derived_record(path, origin, lambda record: value in record.values()
                             or any(isinstance(v, list) and value in v for v in record.values()))
        return str(origin.file), at[1] if at else None
    members = folder_members(path)
    if members is None:
        user = original_of(path)  # an engine copy's lines are not the user's: the file it was written from
        return (src if user == path else str(user)), _first_place(user, value)
    for member in members:
        place = _first_place(member, value)
        if place is not None:
            return str(member), place
    return src, None


def _derived_record(path: Path, origin: DerivedOrigin, holds) -> tuple[int, str] | None:
    """``(index, place)`` of the first record of the derived source ``path`` for which ``holds(record)``
    (the record as a dict); ``place`` is where it starts in the user's file (``line 4``), else its
    ordinal (``record 3``, where the format keeps no line); ``None`` when no record holds it."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for i, record in enumerate(records if isinstance(records, list) else []):
        if isinstance(record, dict) and holds(record):
            place = origin.places[i] if i < len(origin.places) else None
            return i, place or f"record {i + 1}"
    return None


def located(err: DataError, g: Graph, sources: dict[str, str], base: Path | None = None) -> DataError:
    """``err`` completed with the term map (its expression in ``g``), the source file (``sources``,
    :func:`logical_sources`) and the first line of the file holding the value.

    Args:
        err: raised by the guard or a reader during the run.
        g: the normalised mapping the engine ran.
        sources: TriplesMap IRI -> source file, as the user's mapping names it.
        base: folder a relative source path is read from (the mapping's folder).
    Returns:
        ``err`` itself, its message rebuilt.
    """
    if (not err.triples_map or _ENGINE_ID.fullmatch(err.triples_map)) and err.rule:
        err.triples_map = _triples_map_of(g, err.rule) or err.triples_map
    tm = URIRef(err.triples_map) if err.triples_map and not _ENGINE_ID.fullmatch(err.triples_map) else None
    src = sources.get(err.triples_map or "")
    if src is None and tm is not None:  # a TriplesMap split by the normalisation: the one it came from
        src = next((f for t, f in sources.items() if err.triples_map.startswith(t)), None)
    record = None
    if src is not None and err.record is None and isinstance(err.value, str) and err.value:
        path = Path(src) if Path(src).is_absolute() or base is None else base / src
        src, place = _place(path, src, err.value)
        record = f"{place} (the first holding the value)" if place else "(the value is not in the file as written)"
    reference = _term_map(g, tm, err.position, err.predicate) if tm is not None else None
    return err.completed(source=src, record=record, reference=reference)


_TOKEN = re.compile(r'<[^<>]*>|_:\S+|"(?:[^"\\]|\\.)*"\S*')


def _lexical(token: str) -> str | None:
    """The lexical form of an N-Triples literal token (``"1990-02-30"^^<...>``), else ``None``."""
    m = re.match(r'"((?:[^"\\]|\\.)*)"', token)
    if m is None:
        return None
    try:
        return json.loads(f'"{m.group(1)}"')  # N-Triples' escapes are JSON's but for \U, kept as written
    except ValueError:
        return m.group(1)


def dropped_value(g: Graph, sources: dict[str, str], statement: str, base: Path | None = None) -> str | None:
    """Where a statement dropped for a reference-valued IRI (``rml:reference`` with term type IRI),
    or for a literal an ``rml:reference`` object map read as it is (an ill-typed literal), got its
    value: ``value 'x' in <file> line N`` (with the column in a JSON or XML file, see
    :func:`_first_place`), the value as the data hold it.

    Args:
        g: the normalised mapping the engine ran. sources: TriplesMap IRI -> source file, as the
            user's mapping names it (:func:`logical_sources`).
        statement: the statement as a finding shows it (:func:`pipeline.materialize.guard.shown`: the
            value in ``<...>``, which may hold spaces). base: folder a relative source path is read from.
    Returns:
        The text; else the record the statement's subject was made from, when a subject template with
        one reference made it (``record id='E104' in events.jsonl line 5, column 9``); ``None`` when
        neither is found, or the value is in no source file as written.
    """
    tokens = _TOKEN.findall(statement)
    if len(tokens) < 3 or not tokens[1].startswith("<"):
        return None
    predicate = tokens[1][1:-1]
    subject, obj = (t[1:-1] if t.startswith("<") else None for t in (tokens[0], tokens[2]))
    lexical = _lexical(tokens[2]) if "\"^^<" in tokens[2] else None  # a typed literal: its value is what failed
    for tm in sorted(g.subjects(RML.logicalSource, None), key=str):
        src = sources.get(str(tm))
        if src is None:
            continue
        nodes = [(g.value(tm, RML.subjectMap), subject)]
        for pom in g.objects(tm, RML.predicateObjectMap):
            preds = {str(p) for p in g.objects(pom, RML.predicate)}
            preds |= {str(g.value(pm, RML.constant)) for pm in g.objects(pom, RML.predicateMap)}
            if predicate in preds:
                nodes += [(om, obj) for om in g.objects(pom, RML.objectMap)]
                # a literal read as it is: its lexical form is the value (not so through a function)
                nodes += [(om, lexical) for om in g.objects(pom, RML.objectMap) if g.value(om, RML.reference)]
        for node, value in nodes:
            template = g.value(node, RML.template) if node is not None else None
            plain = value is lexical and node is not None and g.value(node, RML.reference) is not None
            if not value or not plain and (template is None or _REF_TEMPLATE.fullmatch(str(template)) is None):
                continue
            path = Path(src) if Path(src).is_absolute() or base is None else base / src
            where, place = _place(path, src, value)
            if place is not None:
                return f"value {value!r} in {where} {place}"
    return _subject_record(g, sources, subject, base) if subject else None


#: An IRI template with one reference: ``(text before, reference, text after)``.
_ONE_REFERENCE = re.compile(r"([^{}]*)\{([^{}]+)\}([^{}]*)")


def _subject_record(g: Graph, sources: dict[str, str], subject: str, base: Path | None) -> str | None:
    """The record a statement's subject was made from, when a subject map's template has one reference
    and the subject fits it (``http://x/event/{id}`` and ``http://x/event/E104``: the record whose ``id``
    is ``E104``, the template's value percent-decoded as R2RML section 7.3 encodes it):
    ``record id='E104' in events.jsonl line 5, column 9``; ``None`` when no template fits or no source
    file holds the value as written."""
    for tm in sorted(g.subjects(RML.logicalSource, None), key=str):
        src, sm = sources.get(str(tm)), g.value(tm, RML.subjectMap)
        template = g.value(sm, RML.template) if sm is not None else None
        m = _ONE_REFERENCE.fullmatch(str(template)) if template is not None and src else None
        if m is None or not subject.startswith(m.group(1)) or not subject.endswith(m.group(3)) \
                or len(subject) <= len(m.group(1)) + len(m.group(3)):
            continue
        value = unquote(subject[len(m.group(1)):len(subject) - len(m.group(3))])
        path = Path(src) if Path(src).is_absolute() or base is None else base / src
        origin = derived_origin(path)
        if origin is not None:  # the record whose key holds the value, named by the user's reference
            key = m.group(2)
            at = _derived_record(path, origin, lambda record: record.get(key) == value)
            if at is not None:
                return f"record {origin.references.get(key, key)}={value!r} in {origin.file.name} {at[1]}"
            continue
        where, place = _place(path, src, value)
        if place is not None:
            return f"record {m.group(2)}={value!r} in {Path(where).name} {place}"
    return None
