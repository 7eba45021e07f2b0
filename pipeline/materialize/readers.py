"""Morph-KGC 2.10's file readers as :func:`pipeline.materialize.engine.engine_run` corrects them.

* XML: a record is handed to the reader with attributes where a missing one reads as absent
  (:class:`ElementPath`), not ``KeyError``, which aborted the whole run; a prefixed attribute
  (``@xml:lang``, ``title/@xlink:href``) is read by its expanded name, which is how ElementTree
  keys it (``{http://www.w3.org/XML/1998/namespace}lang``): the engine asked for ``xml:lang``
  and found no value in any record. An element's value is its XPath string value (mixed content
  read whole: ``<title>The <i>Night</i> Watch</title>`` is ``The Night Watch``).
* JSON: :func:`read_json` flattens records as the engine does, without dropping a record for a
  null in a member no rule reads, and keeps JSON numbers as written (see the engine module). A
  reference with ``[*]`` after members (``tags[*]``, ``items[*].name``) reads the values of the
  arrays there; a plain reference whose value is an array or object (``tags`` for
  ``["jazz", "music"]``) is a data error (RML-Core: a reference yields values): with the ``stop``
  policy it ends the run (:class:`~pipeline.materialize.data_errors.DataError`), else it is noted in
  :data:`NESTED_VALUES` (a warning) and the engine makes one term per element of an array, none
  for an object.
* CSV/TSV: :class:`CsvReads` parses a file once per engine run, not once per mapping rule (not a
  correction: the same frames for less CPU).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Iterator

from jsonpath import ExprSyntaxError

from pipeline.materialize.data_errors import DataError, stopping
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX
from pipeline.sources import json_numbers
from pipeline.sources.tree import values_path

__all__ = ["CsvReads", "ElementPath", "read_json", "NESTED_VALUES", "INNER_ARRAY", "NO_VALUE_RECORDS", "VALUES_OF",
           "nested_reference", "has_value"]

#: Plain JSON references whose value was an array or object in some record, from :func:`read_json`:
#: ``{(source file, reference): [records, first record (1-based), first value (JSON text), "array", "object" or
#: :data:`INNER_ARRAY` (then the first number counts the inner arrays), "; to read ...: '<reference>'" or ""]}``.
NESTED_VALUES: dict[tuple[str, str, str], list] = {}
#: ``(source, reference) -> records of the iterator that give the reference no value`` (missing,
#: ``null``, ``""``, an empty array on the way), counted by :func:`read_json` for the engine's
#: count of empty values (the flattening leaves a record with an empty array out without a trace,
#: and ``""`` becomes no value only later, as the engine's ``na_values``).
NO_VALUE_RECORDS: dict[tuple[str, str], int] = {}
#: The kind of value, in :data:`NESTED_VALUES`, of an array that is an element of the array a reference
#: reads (``coords`` or ``coords[*]`` for ``[[50.85, 4.35], ...]``): no value, and no term is made of it.
INNER_ARRAY = "array inside an array"
#: The suffix of a JSON reference that reads the values of the array it names (``tags[*]``).
VALUES_OF = "[*]"
#: a member path with [*] after members (``items[*].name``), which the engine's flattening evaluates
_STARRED = re.compile(r"[^.\[\]*?@()]+(?:\[\*\])?(?:\.[^.\[\]*?@()]+(?:\[\*\])?)*")
#: A plain dotted key path (``customer.id``): no JSONPath syntax, so it names members step by step.
_PLAIN = re.compile(r"[^.\[\]*?@()]+(?:\.[^.\[\]*?@()]+)*")


#: ``xml`` is bound to this namespace in every document (Namespaces in XML 1.0, section 3).
XML_NS = "http://www.w3.org/XML/1998/namespace"


def expanded_name(name: str, namespaces: dict[str, str]) -> str | None:
    """ElementTree's key of a prefixed attribute name: ``xml:lang`` ->
    ``{http://www.w3.org/XML/1998/namespace}lang``; ``None`` for an unprefixed name or an unbound prefix.

    Args:
        name: the attribute name as an XPath step writes it, without ``@``.
        namespaces: the document's prefixes -> namespace IRIs (``xml`` needs none).
    """
    prefix, colon, local = name.partition(":")
    if not colon or not prefix or name.startswith("{"):
        return None
    uri = XML_NS if prefix == "xml" else namespaces.get(prefix)
    return f"{{{uri}}}{local}" if uri else None


class _AttribOrNone(dict):
    """An element's attributes in which a missing one reads as ``None`` (absent), not ``KeyError``,
    and a prefixed name reads the attribute of its expanded name."""

    def __init__(self, attrib: Any, namespaces: dict[str, str]) -> None:
        super().__init__(attrib)
        self._namespaces = namespaces

    def __missing__(self, key: str) -> str | None:
        full = expanded_name(key, self._namespaces)
        return dict.get(self, full) if full else None


class _Element:
    """An element as the reader reads it: ``get`` resolves a prefixed attribute name as :class:`_AttribOrNone`."""

    __slots__ = ("_element", "_namespaces")

    def __init__(self, element: Any, namespaces: dict[str, str]) -> None:
        self._element = element
        self._namespaces = namespaces

    @property
    def attrib(self) -> _AttribOrNone:
        return _AttribOrNone(self._element.attrib, self._namespaces)

    @property
    def text(self) -> str | None:
        """The element's string value (XPath 1.0 section 5.2: the text of all its descendants), so
        ``<title>The <i>Night</i> Watch</title>`` reads ``The Night Watch`` where ElementTree's
        ``text`` stops at the first child element; ``None`` for an element without text."""
        if len(self._element) == 0:
            return self._element.text
        return "".join(self._element.itertext())

    def get(self, key: str, default: Any = None) -> Any:
        value = self.attrib[key]
        return default if value is None else value

    def findall(self, path: str, namespaces: dict[str, str] | None = None) -> list[_Element]:
        return [_Element(e, self._namespaces) for e in self._element.findall(path, namespaces=namespaces)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._element, name)


class ElementPath:
    """The ``elementpath`` module as Morph-KGC's XML reader uses it, records wrapped in :class:`_Element`."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def iter_select(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        namespaces = dict(kwargs.get("namespaces") or {})
        for item in self._module.iter_select(*args, **kwargs):
            yield _Element(item, namespaces) if hasattr(item, "attrib") else item


def _as_text(value: Any) -> Any:
    """JSON scalars as the engine writes them (``str``: ``686``, ``87.25``, ``True``; a number Python
    writes with an exponent in positional form: ``1e-07`` -> ``0.0000001``, ``1e+16`` ->
    ``10000000000000000``), ``None`` kept, dicts and lists walked."""
    if isinstance(value, dict):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    if isinstance(value, json_numbers.JsonNumber):  # digits a float cannot hold, as written
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        # a JSON number is a decimal however it is written (RFC 8259 section 6): 1e-7 in positional
        # form (0.0000001), the lexical form xsd:decimal and xsd:double both accept; inf/nan stay
        return format(Decimal(text), "f") if "e" in text and value == value and abs(value) != float("inf") else text
    return value if value is None or isinstance(value, str) else str(value)


def read_json(rml_rule: Any, references: list) -> Any:
    """Morph-KGC's JSON reader (``data_file._read_json``) without its record drops.

    Same records and columns: the iterator's objects restricted to the top-level keys of the
    ``references``, nested members flattened with dotted names (arrays expand to one record per
    element, Morph-KGC's ``normalize_hierarchical_data``), a column of nulls for a reference the
    data lacks. It drops nothing: the caller leaves a record out for exactly the references
    that are null in it (and counts them), not for a null in a member no rule reads.

    Raises:
        OSError, json.JSONDecodeError: the file cannot be read (the caller reports it).
    """
    import pandas as pd
    from morph_kgc.data_source.data_file import JSONPath  # the engine's own JSONPath dialect
    from morph_kgc.utils import normalize_hierarchical_data

    with open(rml_rule["logical_source_value"], encoding="utf-8") as f:
        data = json_numbers.load(f)
    # `tags[*]`: the array's values, which the engine's flattening gives for the member path `tags`
    paths = {r: r.replace(VALUES_OF, "") if VALUES_OF in r and _STARRED.fullmatch(r) else r for r in references}
    tops = dict.fromkeys(p.split(".")[0] for p in paths.values())
    try:
        found = JSONPath(rml_rule["iterator"] + ".(" + ",".join(tops) + ")").parse(data)
    except ExprSyntaxError:  # a record that is no object (an array, a scalar), which the field extractor refuses:
        # it has no member a reference can name, so it gives no value (the load-time check warned about it)
        records = [r for r in JSONPath(rml_rule["iterator"]).parse(data) if isinstance(r, dict)]
        found = JSONPath("$[*].(" + ",".join(tops) + ")").parse(records)
    # only the members on the rule's reference paths: the flattening makes one record per element of
    # every array it meets, so an empty array the rule does not read (a CVE's `tags: []`) left the
    # record out of every rule of its source, its rdf:type too
    tree = _path_tree(paths.values())
    found = [_prune(r, tree) for r in found]
    source = str(rml_rule["logical_source_value"])
    if not source.endswith(DERIVED_SUFFIX):  # (a derived source holds values only)
        _inner_arrays(rml_rule, paths, found)
    # values as text before the frame is built: a number column with a null in it would become
    # float (686 -> "686.0"); the engine's reader kept it integer by dropping such records first
    df = pd.json_normalize([_as_text(r) for r in normalize_hierarchical_data(found)])
    if not source.endswith(DERIVED_SUFFIX):  # (there "" is a value)
        for ref, path in paths.items():
            if _PLAIN.fullmatch(path):
                steps = path.split(".")
                NO_VALUE_RECORDS[(source, ref)] = sum(not has_value(r, steps) for r in found)
    if not str(rml_rule["logical_source_value"]).endswith(DERIVED_SUFFIX):  # (there a list is several values)
        plain = [r for r, p in paths.items() if r == p]
        # an array on the way changes the number of rows, an object leaves columns of its members
        # (``name.first``), beside the reference's own column when other records hold a value there
        if plain and (len(df) != len(found) or any(r not in df.columns for r in plain)
                      or any(c.startswith(f"{r}.") for r in plain for c in df.columns)):
            _nested_values(rml_rule, plain, found)
    for ref, path in paths.items():
        if ref not in df.columns:
            df[ref] = df[path] if path in df.columns else None
    return df


def _path_tree(paths: Any) -> dict:
    """The members the dotted ``paths`` pass through, as a tree (``{"a": {"b": None}}`` for ``a.b``;
    ``None``: the whole value). A path that is no plain dotted name keeps its top member whole."""
    tree: dict = {}
    for path in paths:
        steps = path.split(".")
        if not _PLAIN.fullmatch(path):
            tree[steps[0]] = None
            continue
        node = tree
        for i, step in enumerate(steps):
            last = i == len(steps) - 1
            if step in node and node[step] is None:
                break  # kept whole already
            if last:
                node[step] = None
            else:
                node = node.setdefault(step, {})
    return tree


def _prune(value: Any, tree: dict | None) -> Any:
    """``value`` with only the members of ``tree`` (:func:`_path_tree`), through arrays."""
    if tree is None:
        return value
    if isinstance(value, list):
        return [_prune(v, tree) for v in value]
    if isinstance(value, dict):
        return {k: _prune(value[k], sub) for k, sub in tree.items() if k in value}
    return value


def has_value(record: Any, steps: list[str]) -> bool:
    """Whether the member path ``steps`` (``["items", "name"]``) reaches, through objects and arrays,
    at least one value that makes a term: not missing, not ``null``, not ``""``, not an empty array."""
    if isinstance(record, list):
        return any(has_value(r, steps) for r in record)
    if not steps:
        return record is not None and record != "" and not isinstance(record, dict)
    if not isinstance(record, dict):
        return False
    return has_value(record.get(steps[0]), steps[1:])


def nested_reference(record: Any, reference: str) -> Any:
    """The array or object a plain dotted ``reference`` meets in ``record`` (an array on the way or
    at the end, an object at the end), or ``None`` when it yields a scalar or nothing."""
    value = record
    for step in reference.split("."):
        if isinstance(value, list):
            return value
        if not isinstance(value, dict):
            return None
        value = value.get(step)
    return value if isinstance(value, (list, dict)) else None


def _inner_arrays(rml_rule: Any, paths: dict[str, str], records: list) -> None:
    """Take the arrays that are elements of the array a reference reads (``coords`` or ``coords[*]``
    for ``"coords": [[50.85, 4.35], [50.86, 4.36]]``) out of ``records`` and note them in
    :data:`NESTED_VALUES` (kind :data:`INNER_ARRAY`). An array is no value (RML-Core: a reference
    yields values); the engine's flattening would make a term of every number of every pair, in one
    bag, the pairing lost. An index selector reads one position of each: ``coords[*][0]``.

    Args:
        rml_rule: the engine's rule. paths: reference -> its member path (``tags[*]`` -> ``tags``).
        records: the rule's records, as :func:`_prune` built them (each object on a reference's
            path is a copy, so an array replaced in it is replaced in this read only).
    Raises:
        DataError: with the ``stop`` policy, at the first such array (its record, 1-based).
    """
    source = str(rml_rule["logical_source_value"])
    for ref, path in paths.items():
        if not _PLAIN.fullmatch(path):
            continue
        steps = path.split(".")
        count, first = 0, None
        for i, record in enumerate(records, 1):
            inner = _take_inner_arrays(record, steps)
            if inner and first is None:
                fix = f"; to read one position of the inner arrays: '{values_path([record], path)}[0]'"
                first = (i, json_numbers.dumps(inner[0], ensure_ascii=False), fix)
                if stopping():
                    raise DataError(reason="the reference yields a JSON array inside an array, not a value "
                                           "(RML-Core: a reference yields values)", value=first[1][:120],
                                    triples_map=str(rml_rule["triples_map_id"]), reference=f"reference {ref!r}",
                                    record=f"record {i} of {rml_rule['iterator']}",
                                    expected=f"a string, number or boolean{fix}",
                                    rule={"source": source, "subject": str(rml_rule["subject_map_value"]),
                                          "object": str(rml_rule["object_map_value"])})
            count += len(inner)
        if first is not None:
            entry = NESTED_VALUES.setdefault((source, ref), [0, first[0], first[1][:120], INNER_ARRAY, first[2]])
            entry[0] = max(entry[0], count)  # several rules read one reference: the count is per read


def _take_inner_arrays(record: Any, steps: list[str]) -> list:
    """The arrays that are elements of an array at the member path ``steps`` of ``record`` (through
    arrays on the way), taken out of it: the array is replaced, in its object, by one without them."""
    taken: list = []

    def walk(node: Any, i: int) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, i)
            return
        if not isinstance(node, dict) or steps[i] not in node:
            return
        value = node[steps[i]]
        if i < len(steps) - 1:
            walk(value, i + 1)
        elif isinstance(value, list) and any(isinstance(x, list) for x in value):
            taken.extend(x for x in value if isinstance(x, list))
            node[steps[i]] = [x for x in value if not isinstance(x, list)]

    walk(record, 0)
    return taken


def _nested_values(rml_rule: Any, references: list[str], records: list) -> None:
    """Note (or, with the ``stop`` policy, raise) the plain references of ``references`` whose value
    is an array or object in ``records`` (:data:`NESTED_VALUES`).

    Raises:
        DataError: with the ``stop`` policy, at the first such value (its record, 1-based).
    """
    source = str(rml_rule["logical_source_value"])
    tm = str(rml_rule["triples_map_id"])
    for ref in references:
        if not _PLAIN.fullmatch(ref):
            continue
        if NESTED_VALUES.get((source, ref), [None] * 4)[3] == INNER_ARRAY:
            continue  # said (its elements are arrays); what is left of the array is read as its values
        for i, record in enumerate(records, 1):
            value = nested_reference(record, ref)
            if value is None:
                continue
            kind = "array" if isinstance(value, list) else "object"
            text = json_numbers.dumps(value, ensure_ascii=False)  # a long number with its digits
            fix = values_path([record], ref)
            fix = f"; to read the values of the array: '{fix}'" if fix != ref else ""
            if stopping():
                raise DataError(reason=f"the reference yields a JSON {kind}, not a value (RML-Core: a reference "
                                       "yields values)", value=text[:120], triples_map=tm,
                                reference=f"reference {ref!r}", record=f"record {i} of {rml_rule['iterator']}",
                                expected=f"a string, number or boolean{fix}",
                                rule={"source": source, "subject": str(rml_rule["subject_map_value"]),
                                      "object": str(rml_rule["object_map_value"])})
            count = sum(nested_reference(r, ref) is not None for r in records[i - 1:])
            entry = NESTED_VALUES.setdefault((source, ref), [0, i, text[:120], kind, fix])
            entry[0] = max(entry[0], count)  # several rules read one reference: the count is per record
            break


class CsvReads:
    """Morph-KGC 2.10's CSV/TSV reader (``data_file._read_csv``) with each file parsed once per run.

    The engine parses a source file again for every mapping rule that reads it (each
    predicate-object map, each join's parent side), with ``usecols`` set to the rule's
    references (77 parses of 9 files for the million-statement workload of ``make bench-scale``).
    Here a file is parsed once with every column, with the engine's options (``dtype=str``, no
    NA filtering, the C parser), and each rule gets the columns it references, in file order:
    the frame the engine's own read gives. Anything else (a reference the header lacks, a file
    the C parser or the delimiter refuses, no reference at all) goes to the engine's reader,
    which decides as it does without this class.

    Memory: files are kept until the run ends, up to :attr:`budget` bytes of source files in all
    (about 1.5x their size in memory at the million-statement workload); a file beyond it is
    read per rule as by the engine.

    Args:
        original: the engine's ``_read_csv(rml_rule, references, source_type)``.
        budget: the most bytes of source files kept parsed.
    """

    budget = 32 << 20

    def __init__(self, original: Callable[..., Any]) -> None:
        self.original = original
        self.frames: dict[tuple, Any] = {}
        self.kept = 0

    def __call__(self, rml_rule: Any, references: list, source_type: str) -> Any:
        refs = set(references)
        full = self._frame(str(rml_rule["logical_source_value"]), source_type) if refs else None
        if full is None or not refs <= set(full.columns):
            return self.original(rml_rule, references, source_type)
        return full[[c for c in full.columns if c in refs]]

    def _frame(self, path: str, source_type: str) -> Any:
        key = (path, source_type)
        if key not in self.frames:
            import pandas as pd

            self.frames[key] = None
            try:
                size = os.path.getsize(path)
                if self.kept + size <= self.budget:
                    self.frames[key] = pd.read_table(path, sep="," if source_type == "CSV" else "\t", index_col=False,
                                                     encoding="utf-8", encoding_errors="strict", engine="c", dtype=str,
                                                     keep_default_na=False, na_filter=False)
                    self.kept += size
            except Exception:  # noqa: BLE001 - whatever fails here, the engine's own reader decides
                self.frames[key] = None
        return self.frames[key]
