"""Columnar execution of the engine's rules over CSV/TSV sources: same statements, far less work.

Morph-KGC runs a mapping rule (one predicate-object map of a TriplesMap) by reading the rule's
columns of the source again, removing empty values and duplicate rows, and building the term text
of every remaining row with pandas string operations (``Series.apply`` for IRI encoding and for
functions: a Python call per row). A TriplesMap with ten predicate-object maps builds its subject
IRIs ten times. Here a source file is read once (in chunks of :data:`CHUNK_ROWS` rows, so memory
does not grow with the file) and its rules are run together:

* each **term map** (subject, predicate, object with its language or datatype, graph) is built once
  per chunk, for the chunk's *distinct* tuples of the values it references, by the engine's own
  term functions (``_materialize_template``, ``_materialize_fnml_execution``, with the corrections
  of :func:`pipeline.materialize.engine.engine_run`) called on a frame of those distinct tuples:
  the same text, byte for byte, as the engine writes for a row holding those values. A column of a
  few distinct codes (a type, a weekday flag) costs a few calls instead of one per row, and a
  subject template shared by a TriplesMap's rules is built once for all of them;
* a **rule** is then integer work: a row counts when none of the rule's references is empty (the
  engine's ``na_values``, the empty string) and each of its term maps gave a term; the rule's
  statements are its distinct tuples of term codes, in the order of their first row (the order of
  the engine's de-duplicated frame, which the guard's examples follow);
* a **join** (a referencing object map with join conditions) reads the parent's source once per
  run for the distinct pairs (join key, parent subject term) and matches each chunk of the child
  against them (an equi-join on the keys' values, as the engine's ``DataFrame.join``/``merge``).

The statements go to the guard (:meth:`pipeline.materialize.guard.Guard.frame`) rule by rule, as
the engine's do. The set of statements per rule is the engine's (the KG is the set of all of them,
written sorted and without duplicates), so the output bytes and the guard's counts are the same
(``tests/test_materialize_columnar.py`` compares them with the engine's on every test case).

What runs here (:func:`columnar_rule`): rules of the asserted TriplesMaps over a local CSV or TSV
file whose term maps are constants, references, templates or function executions, with joins
whose parent reads a CSV or TSV file and has a template, reference or constant subject map; the
engine configuration kgc writes (``na_values`` the empty string, no printable-only or custom
percent encoding). Everything else (XML, JSON, quoted triples, a function returning a list, a
header without a referenced column) is run by the engine as before: a mapping partition of the
engine runs here only when every rule of it does, so the guard's per-partition counts are those
of the engine path.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.materialize.engine import NO_VALUE, join_key_text, note_join_misses, trusted_term

__all__ = ["CHUNK_ROWS", "VOLATILE", "Rule", "Join", "Unsupported", "columnar_rule", "plan_rules", "run_file", "Joins",
           "ParentIndex", "read_chunks", "join_id", "key_text", "parent_pairs", "child_pairs", "join_statements",
           "rule_statements", "chunk_of"]

#: Rows of a source read and run at once (memory per chunk grows with it, CPU hardly).
CHUNK_ROWS = 1 << 18
#: The column that carries a distinct tuple's index through the engine's term functions.
_ROW = "__kgc_tuple"

_RML = "http://w3id.org/rml/"
_TEMPLATE, _CONSTANT, _REFERENCE, _EXECUTION = (_RML + t for t in ("template", "constant", "reference",
                                                                    "functionExecution"))
_PARENT, _QUOTED = _RML + "parentTriplesMap", _RML + "quotedTriplesMap"
_LANGUAGE_MAP, _DATATYPE_MAP = _RML + "languageMap", _RML + "datatypeMap"
_SOURCE, _DEFAULT_GRAPH, _IRI, _LITERAL = _RML + "source", _RML + "defaultGraph", _RML + "IRI", _RML + "Literal"
_TERM_KINDS = (_TEMPLATE, _CONSTANT, _REFERENCE)
_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
#: Engine built-ins whose value is not a function of their inputs (the clock, chance): built per row
#: by the engine, so rules calling them are left to it.
VOLATILE = frozenset({_GREL + "date_now", _GREL + "date_diff", _GREL + "date_datePart", _GREL + "date_inc",
                      _GREL + "math_randomNumber", "https://github.com/morph-kgc/morph-kgc/function/built-in.ttl#uuid"})


class Unsupported(Exception):
    """A rule (or a chunk of it) this module does not run: the engine runs it."""


@dataclass(frozen=True)
class Term:
    """One position's term map of a rule, as the engine builds it.

    Attributes:
        position: ``subject``, ``predicate``, ``object`` or ``graph``.
        refs: the source columns it reads (order of first use; ``parent_``-less for a join's object).
        key: identity of the term text function (equal keys give equal terms for equal values).
        build: ``build(frame)`` -> the frame with the term text in column ``position`` (rows may
            be dropped where a function gave no value).
        alias: prefix of the columns in the frame given to ``build`` (``parent_`` for a join's object).
    """

    position: str
    refs: tuple[str, ...]
    key: tuple
    build: Callable[[Any], Any] = field(compare=False, hash=False)
    alias: str = ""


@dataclass
class Join:
    """The parent side of a referencing object map: its file and how its keys and term are read."""

    path: str
    source_type: str
    child_keys: tuple[str, ...]
    parent_keys: tuple[str, ...]
    term: Term  # the object term, built from the parent's columns


@dataclass
class Rule:
    """An engine rule this module runs (see :func:`columnar_rule`).

    Attributes:
        row: the engine's rule (a row of its rule table). path, source_type: its CSV/TSV file.
        refs: every column the rule reads from its own source (null in any of them: no statement).
        terms: subject, predicate, object, graph (``None``: the default graph).
        join: the parent side of a join, else ``None``.
        trusted: per position, whether the guard need not check the column
            (:func:`pipeline.materialize.engine.trusted_template`).
    """

    row: Any
    path: str
    source_type: str
    refs: tuple[str, ...]
    terms: tuple
    join: Join | None
    trusted: tuple[bool, bool, bool, bool]

    @property
    def triples_map(self) -> str:
        return str(self.row["triples_map_id"])

    @property
    def partition(self) -> str:
        return str(self.row["mapping_partition"])


def _text(value: Any) -> str:
    """A rule table cell as text (pandas gives NaN for an empty one)."""
    return value if isinstance(value, str) else ""


def _is(value: Any, *kinds: str) -> bool:
    return isinstance(value, str) and value in kinds


def _template_refs(kind: str, value: str) -> list[str]:
    from morph_kgc.utils import get_references_in_template

    if kind == _TEMPLATE:
        return get_references_in_template(value)
    if kind == _REFERENCE:
        return [value]
    return []


def _local_csv(row: Any) -> bool:
    value = row["logical_source_value"]
    return (_is(row["source_type"], "CSV", "TSV") and _is(row["logical_source_type"], _SOURCE)
            and isinstance(value, str) and not value.startswith(("{", "http://", "https://"))
            and os.path.isfile(value))


def _term(row: Any, position: str, fnml_df: Any, config: Any, alias: str = "",
          parent: Any = None) -> Term:
    """The term map of ``position`` as ``_materialize_rml_rule_terms`` builds it for ``row``
    (for a join's object, ``parent``'s subject map with the child's term type and datatype)."""
    from morph_kgc import materializer
    from morph_kgc.utils import get_references_in_fnml_execution

    source = parent if parent is not None else row
    prefix = "subject" if parent is not None else position
    kind, value = source[f"{prefix}_map_type"], source[f"{prefix}_map_value"]
    if position == "subject":
        termtype, datatype = row["subject_termtype"], ""
    elif position in ("predicate", "graph"):
        termtype, datatype = _IRI, ""
    else:
        termtype, datatype = row["object_termtype"], row["lang_datatype_map_value"]
    if not isinstance(value, str) or not isinstance(termtype, str):
        raise Unsupported(f"{position}: no term map value or term type")
    if kind in _TERM_KINDS:
        if kind == _CONSTANT and any(c in value for c in "{}\\"):
            raise Unsupported(f"{position}: a constant with braces")  # the engine reads them as a template
        refs = _template_refs(kind, value)

        def make(frame: Any) -> Any:
            return materializer._materialize_template(frame, value, kind, config, position, columns_alias=alias,
                                                      termtype=termtype, datatype=datatype)
    elif kind == _EXECUTION and not alias:
        _deterministic(fnml_df, value)
        refs = get_references_in_fnml_execution(fnml_df, value)

        def make(frame: Any) -> Any:
            return materializer._materialize_fnml_execution(frame, value, fnml_df, config, position,
                                                            termtype=termtype, datatype=datatype)
    else:
        raise Unsupported(f"{position}: term map of type {kind}")
    # the key is compared across processes (the distributed mode's shuffle): text only, no NaN
    key: tuple = (position, kind, value, termtype, _text(datatype), alias)
    build = make
    if position == "object" and parent is None and _is(row["lang_datatype"], _LANGUAGE_MAP, _DATATYPE_MAP):
        # the object term carries its language tag or datatype (engine: object + '@'/'^^' + lang_datatype)
        ld_kind, ld_value = row["lang_datatype_map_type"], row["lang_datatype_map_value"]
        language = row["lang_datatype"] == _LANGUAGE_MAP
        if not isinstance(ld_value, str):
            raise Unsupported("language or datatype map without a value")
        if ld_kind in _TERM_KINDS:
            if ld_kind == _CONSTANT and any(c in ld_value for c in "{}\\"):
                raise Unsupported("a constant language or datatype with braces")
            ld_refs = _template_refs(ld_kind, ld_value)

            def ld_make(frame: Any) -> Any:
                if language:
                    return materializer._materialize_template(frame, ld_value, ld_kind, config, "lang_datatype")
                return materializer._materialize_template(frame, ld_value, ld_kind, config, "lang_datatype",
                                                          termtype=_IRI)
        elif ld_kind == _EXECUTION:
            _deterministic(fnml_df, ld_value)
            ld_refs = get_references_in_fnml_execution(fnml_df, ld_value)

            def ld_make(frame: Any) -> Any:
                if language:
                    return materializer._materialize_fnml_execution(frame, ld_value, fnml_df, config,
                                                                    "lang_datatype")
                return materializer._materialize_fnml_execution(frame, ld_value, fnml_df, config, "lang_datatype",
                                                                termtype=_IRI)
        else:
            raise Unsupported(f"language or datatype map of type {ld_kind}")
        refs = [*refs, *ld_refs]
        key = (*key, row["lang_datatype"], ld_kind, ld_value)

        def build(frame: Any) -> Any:
            frame = ld_make(make(frame))
            frame["object"] = frame["object"] + ("@" if language else "^^") + frame["lang_datatype"]
            return frame
    return Term(position, tuple(dict.fromkeys(refs)), key, build, alias)


def _deterministic(fnml_df: Any, execution: str, depth: int = 0) -> None:
    """Raise :class:`Unsupported` when the execution (or one nested in it) calls a :data:`VOLATILE` function."""
    rows = fnml_df[fnml_df["function_execution"] == execution]
    if depth > 32 or rows.empty or set(rows["function_map_value"]) & VOLATILE:
        raise Unsupported(f"function execution {execution}: a function whose value is not one of its inputs")
    for _, param in rows.iterrows():
        if param["value_map_type"] == _EXECUTION:
            _deterministic(fnml_df, param["value_map_value"], depth + 1)


def _join_conditions(text: Any) -> list[tuple[str, str]]:
    if not isinstance(text, str) or not text:
        return []
    conditions = ast.literal_eval(text)
    return [(str(c["child_value"]), str(c["parent_value"])) for c in conditions.values()]


def columnar_rule(row: Any, rml_df: Any, fnml_df: Any, config: Any) -> Rule:
    """The :class:`Rule` for one engine rule, or :class:`Unsupported` (the engine runs it).

    Args:
        row: a row of the engine's rule table (``rml_df``). rml_df, fnml_df, config: from
            :func:`pipeline.materialize.engine.engine_groups`.
    Raises:
        Unsupported: with the reason.
    """
    if sorted(config.get_na_values()) != [""] or config.only_write_printable_characters() \
            or config.get_safe_percent_encoding():
        raise Unsupported("engine configuration")
    if not _local_csv(row):
        raise Unsupported("not a local CSV or TSV file")
    if _QUOTED in (row["subject_map_type"], row["object_map_type"]) or _join_conditions(row["subject_join_conditions"]):
        raise Unsupported("quoted triples")
    subject = _term(row, "subject", fnml_df, config)
    predicate = _term(row, "predicate", fnml_df, config)
    graph = None
    if row["graph_map_type"] in (*_TERM_KINDS, _EXECUTION) and row["graph_map_value"] != _DEFAULT_GRAPH:
        graph = _term(row, "graph", fnml_df, config)
    join = None
    refs = [*subject.refs, *predicate.refs, *(graph.refs if graph else ())]
    if row["object_map_type"] == _PARENT:
        conditions = _join_conditions(row["object_join_conditions"])
        if not conditions or _is(row["lang_datatype"], _LANGUAGE_MAP, _DATATYPE_MAP):
            raise Unsupported("a referencing object map without join condition, or with a language or datatype")
        parents = rml_df[rml_df["triples_map_id"] == row["object_map_value"]]
        if parents.empty:
            raise Unsupported("parent TriplesMap not in the rule table")
        parent = parents.iloc[0]
        if not _local_csv(parent) or parent["subject_map_type"] not in _TERM_KINDS:
            raise Unsupported("the parent is no CSV source or has no template, reference or constant subject")
        term = _term(row, "object", fnml_df, config, alias="parent_", parent=parent)
        join = Join(os.path.normpath(parent["logical_source_value"]), str(parent["source_type"]),
                    tuple(c for c, _ in conditions), tuple(p for _, p in conditions), term)
        obj = term
        refs += [c for c, _ in conditions]
        trusted_object = trusted_term(parent, "subject", config) and row["object_termtype"] == parent["subject_termtype"]
    else:
        obj = _term(row, "object", fnml_df, config)
        refs += obj.refs
        trusted_object = trusted_term(row, "object", config)
    if not refs:
        raise Unsupported("no reference: the engine's path for constant rules")
    return Rule(row, os.path.normpath(row["logical_source_value"]), str(row["source_type"]),
                tuple(dict.fromkeys(refs)), (subject, predicate, obj, graph), join,
                (trusted_term(row, "subject", config), False, trusted_object, False))


def plan_rules(groups: list, rml_df: Any, fnml_df: Any, config: Any) -> tuple[list[Rule], list]:
    """Split the engine's mapping groups into the rules run here and the groups the engine runs.

    A group (Morph-KGC mapping partition) runs here only when all its rules do.

    Returns:
        ``(rules, engine_groups)``.
    """
    rules: list[Rule] = []
    rest = []
    for group in groups:
        try:
            rules.extend(columnar_rule(row, rml_df, fnml_df, config) for _, row in group.iterrows())
        except Unsupported:
            rest.append(group)
    return rules, rest


def read_chunks(path: str, source_type: str, columns: list[str], rows: int | None = None) -> Iterator[Any]:
    """The columns of a CSV/TSV file, ``rows`` rows at a time (default :data:`CHUNK_ROWS`), read with
    the engine's options (``dtype=str``, no NA filtering, the C parser; ``data_file._read_csv``).

    Raises:
        Unsupported: the header lacks a column, or the C parser refuses the file.
    """
    import pandas as pd

    try:
        reader = pd.read_table(path, sep="," if source_type == "CSV" else "\t", index_col=False, encoding="utf-8",
                               encoding_errors="strict", usecols=columns, engine="c", dtype=str,
                               keep_default_na=False, na_filter=False, chunksize=rows or CHUNK_ROWS)
        with reader:
            yield from reader
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise Unsupported(f"{path}: {exc}") from exc


@dataclass
class _Coded:
    """A term map over the rows of a chunk: per row the index of its term (-1: none), and the terms."""

    codes: Any
    terms: Any


class _Chunk:
    """One chunk's columns and the term maps built over it (each once)."""

    def __init__(self, frame: Any) -> None:
        self.n = len(frame)
        self.columns = {c: frame[c].to_numpy(dtype=object) for c in frame.columns}
        self.empty: dict[str, Any] = {}
        self.factors: dict[str, tuple[Any, Any]] = {}
        self.coded: dict[tuple, _Coded] = {}

    def missing(self, column: str) -> Any:
        """Rows whose value is empty (the engine's ``na_values``: no term, no statement)."""
        if column not in self.empty:
            self.empty[column] = self.columns[column] == ""
        return self.empty[column]

    def factor(self, column: str) -> tuple[Any, Any]:
        """Per row the index of its value among the column's distinct non-empty values (-1: empty),
        and those values (factorized once per chunk, shared by every term map reading the column)."""
        import pandas as pd

        if column not in self.factors:
            codes, values = pd.factorize(self.columns[column])
            empty = np.flatnonzero(values == "")
            if len(empty):  # no term is built from an empty value
                e = int(empty[0])
                codes = np.where(codes == e, -1, np.where(codes > e, codes - 1, codes))
                values = np.delete(values, e)
            self.factors[column] = (codes.astype(np.int64, copy=False), np.asarray(values, dtype=object))
        return self.factors[column]

    def tuples(self, refs: tuple[str, ...]) -> tuple[Any, list]:
        """Per row the index of its distinct tuple of ``refs`` values (-1 when one is empty), and
        the distinct tuples as columns."""
        import pandas as pd

        if not refs:
            return np.zeros(self.n, dtype=np.int64), []
        if len(refs) == 1:
            codes, values = self.factor(refs[0])
            return codes, [values]
        combined, bound, bad = None, 1, np.zeros(self.n, dtype=bool)
        for ref in refs:
            c, u = self.factor(ref)
            bad |= c < 0
            if combined is None:
                combined, bound = c.copy(), max(len(u), 1)
                continue
            if bound * max(len(u), 1) >= 1 << 62:  # keep the mixed-radix number in 64 bits
                combined = pd.factorize(combined)[0].astype(np.int64)
                bound = int(combined.max()) + 1 if len(combined) else 1
            combined = combined * len(u) + c
            bound *= max(len(u), 1)
        valid = ~bad
        codes = np.full(self.n, -1, dtype=np.int64)
        c, _ = pd.factorize(combined[valid])
        _, first = np.unique(c, return_index=True)
        codes[valid] = c
        at = np.flatnonzero(valid)[first]
        return codes, [self.columns[ref][at] for ref in refs]

    def term(self, term: Term) -> _Coded:
        """The term map ``term`` over this chunk (built once per chunk)."""
        if term.key not in self.coded:
            rows, tuples = self.tuples(term.refs)
            self.coded[term.key] = build_terms(term, rows, tuples)
        return self.coded[term.key]


def build_terms(term: Term, rows: Any, tuples: list) -> _Coded:
    """Build ``term`` on the distinct tuples and index each row's term.

    Args:
        term: the term map. rows: per row its tuple's index (-1: none). tuples: the distinct
            tuples as columns (one array per reference of ``term``; empty for a constant).
    Returns:
        A :class:`_Coded` whose terms are distinct.
    Raises:
        Unsupported: the engine's function gave several values for one tuple (a list it explodes).
    """
    import pandas as pd

    n = len(tuples[0]) if tuples else 1
    if n == 0:
        return _Coded(np.full(len(rows), -1, dtype=np.int64), np.array([], dtype=object))
    frame = pd.DataFrame({term.alias + ref: col for ref, col in zip(term.refs, tuples)} if tuples
                         else {"placeholder": ["placeholder"]})
    frame[_ROW] = np.arange(n)
    # the engine's function step escapes a column its template step leaves behind (and then does not use it)
    frame["reference_results"] = ""
    frame = term.build(frame)
    index = frame[_ROW].to_numpy(dtype=np.int64)
    if len(index) != len(np.unique(index)):
        raise Unsupported(f"{term.position}: a function gave several values for one record")
    texts = frame[term.position].to_numpy(dtype=object)
    codes, terms = pd.factorize(texts)  # equal texts from distinct tuples: one term
    per_tuple = np.full(n, -1, dtype=np.int64)
    per_tuple[index] = codes
    if not tuples:  # a constant: every row
        return _Coded(np.full(len(rows), per_tuple[0], dtype=np.int64), np.asarray(terms, dtype=object))
    out = np.where(rows >= 0, per_tuple[np.maximum(rows, 0)], -1)
    return _Coded(out, np.asarray(terms, dtype=object))


@dataclass
class ParentIndex:
    """A join's parent side: its distinct (join key, parent term) pairs, indexed by key.

    Attributes:
        keys: the distinct key tuples (values joined by :func:`key_text`), a ``pandas.Index``.
        starts: per key the start of its run in ``codes`` (``starts[-1]``: the number of pairs).
        codes: per pair its term's index in ``terms``, runs sorted by key.
        terms: the distinct parent terms (N-Triples text).
    """

    keys: Any
    starts: Any
    codes: Any
    terms: Any

    @classmethod
    def from_pairs(cls, keys: Any, terms: Any) -> "ParentIndex":
        """Index pairs given as two arrays of text (duplicates allowed)."""
        import pandas as pd

        term_codes, distinct_terms = pd.factorize(np.asarray(terms, dtype=object))
        key_codes, distinct_keys = pd.factorize(np.asarray(keys, dtype=object))
        pairs = np.unique(np.stack([key_codes.astype(np.int64), term_codes.astype(np.int64)]), axis=1) \
            if len(keys) else np.zeros((2, 0), dtype=np.int64)
        starts = np.searchsorted(pairs[0], np.arange(len(distinct_keys) + 1))
        return cls(pd.Index(distinct_keys), starts, pairs[1], np.asarray(distinct_terms, dtype=object))

    def match(self, keys: Any) -> tuple[Any, Any]:
        """The equi-join of child keys with the parent's: ``(child positions, parent term codes)``,
        a child position repeated once per parent term of its key (absent keys: none)."""
        at = self.keys.get_indexer(keys)
        rows = np.flatnonzero(at >= 0)
        at = at[rows]
        counts = self.starts[at + 1] - self.starts[at]
        rows = np.repeat(rows, counts)
        # for each matched child row, the run of its key's parent terms
        offsets = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        return rows, self.codes[np.repeat(self.starts[at], counts) + offsets]


def parent_pairs(join: Join, chunk: "_Chunk") -> tuple[Any, Any]:
    """A chunk of a join's parent source: the join key text and the parent term text of each row
    that has both (the engine leaves out parent records with an empty key or subject value)."""
    coded = chunk.term(join.term)
    ok = coded.codes >= 0
    for k in join.parent_keys:
        ok &= ~chunk.missing(k)
    return key_text([chunk.columns[k][ok] for k in join.parent_keys]), coded.terms[coded.codes[ok]]


class Joins:
    """The parent sides of the joins of a run, each read once (:class:`ParentIndex` per parent file,
    keys and term), kept until :meth:`drop`."""

    def __init__(self) -> None:
        self.sides: dict[tuple, ParentIndex] = {}

    def side(self, join: Join) -> ParentIndex:
        """The parent side of ``join``, read from its file the first time."""
        id_ = join_id(join)
        if id_ not in self.sides:
            columns = list(dict.fromkeys([*join.parent_keys, *join.term.refs]))
            keys, terms = [], []
            for frame in read_chunks(join.path, join.source_type, columns):
                k, t = parent_pairs(join, _Chunk(frame))
                keys.append(k)
                terms.append(t)
            self.sides[id_] = ParentIndex.from_pairs(np.concatenate(keys) if keys else np.zeros(0, dtype=object),
                                                     np.concatenate(terms) if terms else np.zeros(0, dtype=object))
        return self.sides[id_]

    def drop(self, join: Join) -> None:
        """Forget a parent side (no rule needs it any more)."""
        self.sides.pop(join_id(join), None)


def join_id(join: Join) -> tuple:
    """What identifies a join's parent side: file, keys and term (rules sharing it read it once)."""
    return join.path, join.source_type, join.parent_keys, join.term.key


def key_text(columns: list) -> Any:
    """Join key tuples as one string each (:func:`pipeline.materialize.engine.join_key_text`)."""
    return join_key_text(columns)


def _rows(rule: Rule, chunk: "_Chunk") -> tuple[Any, list]:
    """The rows of ``chunk`` where the rule has all its values and a subject, predicate (and graph)
    term; and those three term maps over the chunk."""
    ok = np.ones(chunk.n, dtype=bool)
    for ref in rule.refs:
        ok &= ~chunk.missing(ref)
    coded = []
    for term in rule.terms[:2] + ((rule.terms[3],) if rule.terms[3] is not None else ()):
        c = chunk.term(term)
        _no_value(term, chunk, ok, c.codes)
        ok &= c.codes >= 0
        coded.append(c)
    return np.flatnonzero(ok), coded


def _execution(term: Term) -> str | None:
    """The function execution that makes ``term`` (its language or datatype map's when the term
    itself is no function), else ``None``."""
    if term.key[1] == _EXECUTION:
        return term.key[2]
    if len(term.key) > 8 and term.key[7] == _EXECUTION:
        return term.key[8]
    return None


def _no_value(term: Term, chunk: "_Chunk", present: Any, codes: Any) -> None:
    """Keep the rows where every value the rule references is ``present`` but the function making
    ``term`` gave no term (:data:`pipeline.materialize.engine.NO_VALUE`, as the engine path keeps them)."""
    execution = _execution(term)
    if execution is None or term.alias:
        return
    bad = present & (codes < 0)
    if bad.any():
        import pandas as pd

        NO_VALUE.setdefault(execution, []).append(pd.DataFrame({r: chunk.columns[r][bad] for r in term.refs}))


def first_rows(codes: list[tuple[Any, int]]) -> Any:
    """The rows where each distinct tuple of codes first appears, in row order.

    Args:
        codes: per column ``(codes, cardinality)``: non-negative codes below the cardinality.
    """
    import pandas as pd

    key, bound = None, 1
    for c, card in codes:
        card = max(card, 1)
        if card == 1:
            continue
        if key is None:
            key, bound = c.astype(np.int64, copy=True), card
            continue
        if bound * card >= 1 << 62:  # keep the mixed-radix number in 64 bits
            key = pd.factorize(key)[0].astype(np.int64)
            bound = int(key.max()) + 1 if len(key) else 1
        key = key * card + c
        bound *= card
    if key is None:
        return np.zeros(1 if len(codes[0][0]) else 0, dtype=np.int64)
    return np.flatnonzero(~pd.Series(key, copy=False).duplicated().to_numpy())


def _distinct(coded: list, rows: Any, o_codes: Any, o_terms: Any, graph: bool) -> tuple[list, int]:
    """The distinct (s, p, o, g) of the given rows as coded term columns (``(codes, terms)``, or
    ``""`` for the default graph), in the order of their first row."""
    if len(rows) == 0:
        return [], 0
    s_codes, p_codes = coded[0].codes[rows], coded[1].codes[rows]
    g_codes = coded[2].codes[rows] if graph else None
    first = first_rows([(s_codes, len(coded[0].terms)), (p_codes, len(coded[1].terms)), (o_codes, len(o_terms)),
                        *([(g_codes, len(coded[2].terms))] if graph else [])])
    return [(s_codes[first], coded[0].terms), (p_codes[first], coded[1].terms), (o_codes[first], o_terms),
            (g_codes[first], coded[2].terms) if graph else ""], len(first)


def rule_statements(rule: Rule, chunk: "_Chunk", joins: Joins | None) -> tuple[list, int]:
    """The distinct statements of ``rule`` over ``chunk``, in the order of their first row; and
    their number.

    Returns:
        ``([subject, predicate, object, graph], n)``: each column ``(codes, terms)`` (per statement
        the index of its N-Triples term text in ``terms``, distinct texts), graph ``""`` for the
        default graph (:meth:`pipeline.materialize.guard.Guard.frame` takes them so); ``([], 0)``.
    """
    rows, coded = _rows(rule, chunk)
    if rule.join is None:
        obj = chunk.term(rule.terms[2])
        if len(rows) and _execution(rule.terms[2]) is not None:
            present = np.zeros(chunk.n, dtype=bool)
            present[rows] = True
            _no_value(rule.terms[2], chunk, present, obj.codes)
        rows = rows[obj.codes[rows] >= 0]
        return _distinct(coded, rows, obj.codes[rows], obj.terms, rule.terms[3] is not None)
    side = joins.side(rule.join)
    keys = key_text([chunk.columns[k][rows] for k in rule.join.child_keys])
    at, o_codes = side.match(keys)
    matched = np.zeros(len(rows), dtype=bool)
    matched[at] = True
    # child records the join leaves without object, as the engine path keeps them (none: the rule ran)
    note_join_misses(rule.row, list(rule.join.child_keys), list(rule.join.parent_keys),
                     np.asarray(keys, dtype=object)[~matched], side.keys)
    return _distinct(coded, rows[at], o_codes, side.terms, rule.terms[3] is not None)


def _column(coded: _Coded, rows: Any) -> Any:
    """The terms of ``rows`` as an array, or one ``str`` when the term map has one term."""
    return coded.terms[0] if len(coded.terms) == 1 else coded.terms[coded.codes[rows]]


def child_pairs(rule: Rule, chunk: "_Chunk") -> tuple[list, Any]:
    """A chunk of a join's child source: its distinct (subject, predicate, graph, join key) among the
    rows that have all the rule's values; each term column an array of text or one ``str`` (graph
    ``""``: the default graph), and the keys' text."""
    rows, coded = _rows(rule, chunk)
    keys = [chunk.factor(k) for k in rule.join.child_keys]
    first = first_rows([(c.codes[rows], len(c.terms)) for c in coded] + [(k[0][rows], len(k[1])) for k in keys])
    rows = rows[first]
    terms = [_column(c, rows) for c in coded] + ([""] if rule.terms[3] is None else [])
    return terms, key_text([chunk.columns[k][rows] for k in rule.join.child_keys])


def join_statements(child: list, keys: Any, parent: ParentIndex) -> tuple[list, int]:
    """The statements of a join from its child rows (:func:`child_pairs`, gathered) and its parent
    side, in the order of the child rows (duplicates are possible: the output is de-duplicated).

    Args:
        child: subject, predicate, graph terms per child row (arrays of text, or one ``str``).
        keys: their join keys. parent: the parent side (all of it, or all of it whose keys hash to
            these keys' bucket).
    Returns:
        ``([subject, predicate, object, graph], n)`` as :func:`rule_statements`.
    """
    import pandas as pd

    at, o_codes = parent.match(keys)
    if len(at) == 0:
        return [], 0
    columns = []
    for c in child:
        if isinstance(c, str):
            columns.append(c)
        else:
            codes, terms = pd.factorize(np.asarray(c, dtype=object)[at])
            columns.append((codes, np.asarray(terms, dtype=object)))
    s, p, g = columns
    return [s, p, (o_codes, parent.terms), g], len(at)


def chunk_of(frame: Any) -> "_Chunk":
    """A frame read by :func:`read_chunks` (or from a block of the file) as a chunk rules run on."""
    return _Chunk(frame)


def run_file(path: str, source_type: str, rules: list[Rule], joins: Joins,
             emit: Callable[[Rule, list, int], None], rows: int | None = None) -> dict[str, int]:
    """Run ``rules`` (all reading ``path``) chunk by chunk; ``emit(rule, columns, n)`` gets each
    rule's distinct statements of a chunk (:func:`rule_statements`).

    Returns:
        Per column the rules read, the records whose value is empty (no term is made from them).
    Raises:
        Unsupported: the file cannot be read as the engine reads it, or a term map needs the
            engine (the caller has the engine run the rules; statements already emitted are
            statements of the engine's output).
    """
    columns = list(dict.fromkeys(ref for rule in rules for ref in rule.refs))
    empty = dict.fromkeys(columns, 0)
    for frame in read_chunks(path, source_type, columns, rows):
        chunk = _Chunk(frame)
        for c in columns:
            empty[c] += int(chunk.missing(c).sum())
        for rule in rules:
            cols, n = rule_statements(rule, chunk, joins)
            if n:
                emit(rule, cols, n)
    return empty
