"""The loaded form of a source (:class:`SourceData`): references, per-record values, iterator.

Built by the readers in :mod:`pipeline.sources.tabular` and :mod:`pipeline.sources.tree`, through
:func:`pipeline.sources.load.load_source`; the audit, the compiler and the mappers query it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from jsonpath_ng.ext import parse as jp_parse
from lxml import etree

from pipeline.findings import Finding
from pipeline.manifest import Source
from pipeline.sources.columns import ColumnRecords, Values, sample_indices
from pipeline.sources.jsonld import JsonLd
from pipeline.sources.namespaces import bind_default_prefix

__all__ = ["SourceData"]

#: What sets a JSONPath expression relative to the record apart from a plain dotted key: brackets
#: (index, wildcard, quoted member), a wildcard, a filter. (A ``$``-rooted one is no table reference.)
_JSONPATH_SYNTAX = re.compile(r"[\[\]*?]")
#: Members with ``[*]`` after some (``authors[*].name``): the table writes these in dotted form
#: (``authors.name``), which the compiler reads per part (docs/methods/nested-iteration.md).
_STARRED_MEMBERS = re.compile(r"[^.\[\]*?@()$]+(?:\[\*\])?(?:\.[^.\[\]*?@()$]+(?:\[\*\])?)*")


@dataclass
class SourceData:
    """A loaded source: references, per-record values, iterator and findings.

    Attributes:
        source: the manifest entry.
        path: the file the engine reads: the input, or its engine copy
            (:class:`~pipeline.sources.engine_copy.EngineCopy`).
        iterator: JSONPath/XPath of records (``None`` for CSV).
        references: available references in document order.
        records: one dict per record: reference -> list of string values (CSV: a
            :class:`~pipeline.sources.columns.ColumnRecords`, parsed on first use, columns inside).
        findings: problems met while reading (repairs, unreadable rows).
        namespaces: XML prefix -> namespace URI (XML only; bound default namespaces included).
        default_prefixes: default namespace URI -> the prefix bound to it (XML only).
        element_prefixes: namespace URI -> the one prefix references name its elements and attributes
            with (XML only; :func:`~pipeline.sources.namespaces.element_prefixes`).
        markup: reference -> the element of mixed content it is markup in (XML only,
            :func:`~pipeline.sources.tree.markup_references`): part of that element's text, which a
            reference reads whole; mappers map the text, not the markup.
        unaddressable: reference -> why no table row can address it (JSON keys holding ``.``,
            which Morph-KGC reads as a nested path, or white space at their ends; an array of
            arrays); mappers must not use them.
        delimiter / bom: CSV separator and byte-order mark (CSV only; a copy is read otherwise).
        trimmed: CSV header names that had white space at their ends, as in the file; ``references``
            holds them trimmed and the engine reads a copy whose header is trimmed too.
        repeated_header: CSV lines below the header that repeat it (no records: the engine reads a
            copy without them); 0 for none and for other formats.
        record_lines: the line of the user's file each record is on, when a record is a line of a
            JSON Lines file (:func:`~pipeline.sources.engine_copy.json_lines_copy`); else ``None``.
        places: where each record is among the files of a folder source, in iterator order
            (``line 3 of b.csv``, ``record 2 of b.json``: :class:`~pipeline.sources.folders.FolderCopy`);
            else ``None``.
        jsonld: what the JSON-LD contexts of the document say of the records' members
            (:class:`~pipeline.sources.jsonld.JsonLd`); ``None`` for a JSON document without ``@context``
            and for other formats.
    """

    source: Source
    path: Path
    iterator: str | None
    references: list[str] = field(default_factory=list)
    records: list[dict[str, list[str]]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    namespaces: dict[str, str] = field(default_factory=dict)
    delimiter: str = ","
    bom: bool = False
    trimmed: list[str] = field(default_factory=list)
    repeated_header: int = 0
    default_prefixes: dict[str, str] = field(default_factory=dict)
    element_prefixes: dict[str, str] = field(default_factory=dict)
    markup: dict[str, str] = field(default_factory=dict)
    unaddressable: dict[str, str] = field(default_factory=dict)
    record_lines: list[int] | None = None
    places: list[str] | None = None
    jsonld: JsonLd | None = None
    _tree: object = None
    _json: list | None = None

    def bind(self, expr: str) -> str:
        """``expr`` with unprefixed element names bound to the default namespace, when that form
        selects data and ``expr`` itself does not (XML with a default namespace); else ``expr``."""
        if self._tree is None or not self.default_prefixes or expr in self.references:
            return expr
        try:
            if self._select(expr):
                return expr
        except etree.XPathError:
            pass
        for prefix in dict.fromkeys(self.default_prefixes.values()):
            bound = bind_default_prefix(expr, prefix)
            try:
                if bound != expr and (bound in self.references or self._select(bound)):
                    return bound
            except etree.XPathError:
                continue
        return expr

    def values(self, reference: str) -> list[str]:
        """All values of ``reference`` across records, in order (may repeat).

        Returns:
            A :class:`~pipeline.sources.columns.Values` (a ``list``) computed once per reference and
            shared by every call: read it, do not modify it. Its ``memo`` keeps what profiling
            computed on the column (distinct values, datatype), so a second test costs nothing. Of
            a CSV held as its sample (profile-and-sample, :mod:`pipeline.sources.columns`), the
            sample's values, with ``counts`` over all records.
        """
        cache = self.__dict__.setdefault("_values", {})
        if reference not in cache:
            if isinstance(self.records, ColumnRecords):
                col = self.records.column(reference)
                counts = self.records.value_counts(reference)  # all records' counts, when col is a sample
                cache[reference] = Values((v for v in col if v), counts=counts) if col is not None else Values()
            elif (per_record := self.json_path_values(reference)) is not None and reference not in self.references:
                cache[reference] = Values(v for values in per_record for v in values)
            else:
                cache[reference] = Values(v for r in self.records for v in r.get(reference, []))
        return cache[reference]

    def record_places(self, indices) -> dict[int, str]:
        """Where each record of ``indices`` (0-based, in iterator order) is in the user's file, for a
        message: ``line 4`` for a CSV record (the line it starts on) or a JSON Lines record, else
        ``record 4`` (1-based, the iterator's order); of a folder source, the file too (``line 4 of
        b.csv``, ``record 2 of b.json``, :attr:`places`)."""
        if self.places is not None:
            return {i: self.places[i] for i in indices}
        if self.record_lines is not None:
            return {i: f"line {self.record_lines[i]}" for i in indices}
        if isinstance(self.records, ColumnRecords):
            lines = self.records.start_lines(indices)
            if len(lines) == len(set(indices)):
                return {i: f"line {lines[i]}" for i in indices}
        return {i: f"record {i + 1}" for i in indices}

    def head_values(self, reference: str, k: int) -> list[str]:
        """The non-empty values of ``reference`` in the first ``k`` records, in order; a CSV file
        is not parsed further (see :meth:`values` for all of them)."""
        if isinstance(self.records, ColumnRecords):
            return [v for v in self.records.head(reference, k) or [] if v]
        return [v for r in self.records[:k] for v in r.get(reference, [])]

    def profiling(self) -> str | None:
        """How the mapper's profiling covered this source, when a sample was involved (CSV
        with more than :data:`~pipeline.sources.columns.SAMPLE_RECORDS` records), else ``None``."""
        if not isinstance(self.records, ColumnRecords) or not self.records.parsed:
            return None
        if self.records.sampled:
            r = self.records
            return (f"{r.total:,} records, read as a systematic sample of {len(r):,} (records 0, {r.step}, "
                    f"{2 * r.step}, ...) plus each column's value counts over all records: datatypes, inclusion "
                    f"dependencies and one-column keys from all records; keys of several columns and per-record "
                    f"patterns from the sample")
        n = len(self.records)
        idx = sample_indices(n)
        if len(idx) >= n:
            return None
        return (f"{n:,} records: key candidates screened on a systematic sample of {len(idx):,} records "
                f"(records 0, {idx.step}, {2 * idx.step}, ...), each key kept confirmed on all records; datatypes and "
                f"inclusion dependencies tested on every distinct value")

    def has_reference(self, reference: str) -> bool:
        """True when ``reference`` names data in this source.

        CSV/JSON: an exact column / dotted key; JSON also a JSONPath relative to the record that
        selects a value (a string, number or boolean) in some record (``coords[*][0]``, RFC 9535
        index selectors; see :meth:`json_path_values`). XML: a known relative path, or any XPath
        (absolute or relative to the iterator) that selects something.
        """
        if reference in self.references:
            return True
        if self.source.format == "json":
            per_record = self.json_path_values(reference)
            return per_record is not None and any(per_record)
        if self.source.format != "xml" or self._tree is None:
            return False
        reference = self.bind(reference)
        if reference in self.references:
            return True
        try:
            return bool(self.xpath(reference))
        except etree.XPathError:
            return False

    def json_path_values(self, reference: str) -> list[list[str]] | None:
        """Per record of a JSON source, in record order, the values (strings, numbers, booleans as
        text) the JSONPath ``reference`` selects relative to the record (``coords[*][0]``; jsonpath-ng,
        the dialect that evaluates such a reference at materialization); arrays, objects and nulls
        it selects are no values and left out. ``None`` when ``reference`` is a plain dotted key
        (see :attr:`references`) or members with ``[*]`` (``authors[*].name``, which the table writes
        ``authors.name``), does not parse, or the source is no JSON."""
        if self.source.format != "json" or self._json is None or not _JSONPATH_SYNTAX.search(reference) \
                or reference.startswith("$") or _STARRED_MEMBERS.fullmatch(reference):
            return None
        cache = self.__dict__.setdefault("_json_paths", {})
        if reference not in cache:
            try:
                expr = jp_parse(reference)
            except Exception:  # noqa: BLE001 - jsonpath-ng raises its own lexer/parser errors: no reference here
                cache[reference] = None
                return None
            found = [[m.value for m in expr.find(r)] for r in self._json]
            cache[reference] = [[str(v).lower() if isinstance(v, bool) else str(v)
                                 for v in values if v is not None and not isinstance(v, (dict, list))]
                                for values in found]
        return cache[reference]

    def max_per_record(self, reference: str, iterator: str | None = None) -> int:
        """Largest number of values ``reference`` (relative to the iterator) selects in one record.

        XML only (0 otherwise or for an invalid expression); used to spot references that an
        engine would combine as a cross product. ``iterator``: another iterator than the source's
        (a TriplesMap iterating at a repeated element inside the record).
        """
        iterator = iterator or self.iterator
        if self._tree is None or not iterator:
            return 0
        reference = self.bind(reference)
        try:
            records = self._tree.xpath(iterator, namespaces=self.namespaces)
            return max((len(r.xpath(reference, namespaces=self.namespaces)) for r in records), default=0)
        except etree.XPathError:
            return 0

    def per_record(self, expr: str) -> list[list[str]] | None:
        """The string values the XPath ``expr`` (relative to the iterator) selects in each record, in
        record order (an element's text, as :meth:`xpath` gives it); ``None`` when it cannot be
        evaluated (not XML, no tree, a malformed XPath)."""
        if self._tree is None or not self.iterator:
            return None
        try:
            find = etree.XPath(self.bind(expr), namespaces=self.namespaces)  # compiled once for every record
            found = [find(e) for e in self._tree.xpath(self.iterator, namespaces=self.namespaces)]
        except etree.XPathError:
            return None
        return [[_text(v) for v in (hits if isinstance(hits, list) else [hits])] for hits in found]

    def reference_values(self, reference: str) -> list[str]:
        """Every record's values of a data reference, any format, in record order (may repeat): the
        values a mapping row's reference gives at materialize. Of an XML source, the XPath evaluated
        in each record (:meth:`per_record`; an absolute one in the document), the text as written,
        white space kept (:meth:`xpath` reads the first record only); ``[]`` for a malformed one. Of
        the other formats, :meth:`values`."""
        if self.source.format != "xml":
            return self.values(reference)
        if reference.startswith("/"):
            try:
                return self.xpath(reference)
            except etree.XPathError:
                return []
        per_record = self.per_record(reference)
        if per_record is None:
            return self.values(reference) if reference in self.references else []
        return [v for values in per_record for v in values]

    def _select(self, expr: str) -> list:
        """Raw XPath result of ``expr`` (absolute, or relative to the first record)."""
        ctx = self._tree
        if not expr.startswith("/") and self.iterator:
            hits = self._tree.xpath(self.iterator, namespaces=self.namespaces)
            ctx = hits[0] if hits else self._tree
        out = ctx.xpath(expr, namespaces=self.namespaces)
        return out if isinstance(out, list) else [out]

    def xpath(self, expr: str) -> list[str]:
        """Evaluate an XPath (absolute, or relative to the first record) to string values.

        Raises:
            lxml.etree.XPathError: malformed expression or unknown prefix.
        """
        if self._tree is None:
            return []
        expr = self.bind(expr)
        ctx = self._tree
        if not expr.startswith("/") and self.iterator:
            hits = self._tree.xpath(self.iterator, namespaces=self.namespaces)
            ctx = hits[0] if hits else self._tree
        out = ctx.xpath(expr, namespaces=self.namespaces)
        if not isinstance(out, list):
            return [str(out)]
        return [_text(x) for x in out]


def _text(node: object) -> str:
    """An XPath result as a value: an element's text (``""`` when it has none), else the string."""
    return node.text or "" if isinstance(node, etree._Element) else str(node)
