"""Source data access: read CSV/JSON/XML inputs, repair XML namespaces, profile references.

For each :class:`~pipeline.manifest.Source` this module answers what the
audit, the compiler and the mappers need: which references exist (CSV
columns, JSON keys as dotted paths relative to the iterator, XML element and
attribute paths relative to the iterator), their values per record, and the
record iterator (detected when the manifest does not give one). CSV cells are read
on first use, into columns (:mod:`pipeline.columns`); loading reads the header only.

Repaired copies (see :mod:`pipeline.input_repair`; inputs are never modified):
XML with undeclared prefixes or default namespaces (each default namespace is
bound to a prefix, ``d:`` unless the document has its own, for iterators and
references alike), JSON with ``null`` members (which Morph-KGC 2.10 reads as
"drop the whole object"), JSON with a byte-order mark, XML declared in another encoding than
UTF-8 (the engine reads a UTF-8 copy). A file whose iterator selects no record is a finding
naming the file and the cause, never an empty source without a word. A file that cannot be
mapped at all (not UTF-8, an unclosed CSV quote, no records, an external XML entity) is an
``error`` finding of stage ``source`` (:mod:`pipeline.source_checks`), which callers turn into
bad input with :func:`require_readable`.
"""
from __future__ import annotations

import csv
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from .columns import ColumnRecords, Values, check_utf8, sample_indices
from .findings import Finding
from .input_repair import (KNOWN_XML_NAMESPACES, bind_default_prefix, declare_on_root, default_namespace_prefixes,
                           repair_xml, strip_json_nulls, undeclared_prefixes)
from .manifest import Source
from .source_checks import (NO_RECORDS, json_top_level, parse_xml, read_error, require_readable, unclosed_quote,
                            unresolved_entity, utf8_xml_copy, xml_encoding)

__all__ = ["KNOWN_XML_NAMESPACES", "SourceData", "load_source", "require_readable", "repair_xml", "undeclared_prefixes",
           "xml_namespaces", "all_values", "csv_row_findings"]

LOGGER = logging.getLogger(__name__)

def xml_namespaces(root: etree._Element) -> dict[str, str]:
    """All prefix -> URI declarations in a parsed document (default namespace left out)."""
    out: dict[str, str] = {}
    for el in root.iter():
        for p, uri in (el.nsmap or {}).items():
            if p:
                out.setdefault(p, uri)
    return out


def _qname(el: etree._Element, defaults: dict[str, str] | None = None) -> str:
    """``prefix:local`` of an element; a default-namespace element gets its bound prefix."""
    q = etree.QName(el)
    if q.namespace:
        prefix = el.prefix or (defaults or {}).get(q.namespace)
        return f"{prefix}:{q.localname}" if prefix else q.localname
    return q.localname


@dataclass
class SourceData:
    """A loaded source: references, per-record values, iterator and findings.

    Attributes:
        source: the manifest entry.
        path: the file actually read (the repaired copy for repaired XML).
        iterator: JSONPath/XPath of records (``None`` for CSV).
        references: available references in document order.
        records: one dict per record: reference -> list of string values (CSV: a
            :class:`~pipeline.columns.ColumnRecords`, parsed on first use, columns inside).
        findings: problems met while reading (repairs, unreadable rows).
        namespaces: XML prefix -> namespace URI (XML only; bound default namespaces included).
        default_prefixes: default namespace URI -> the prefix bound to it (XML only).
        unaddressable: reference -> why no table row can address it (JSON keys holding ``.``,
            which Morph-KGC reads as a nested path, or white space at their ends); mappers must not use them.
        delimiter / bom: CSV separator and byte-order mark (CSV only; a copy is read otherwise).
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
    default_prefixes: dict[str, str] = field(default_factory=dict)
    unaddressable: dict[str, str] = field(default_factory=dict)
    _tree: object = None

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
            A :class:`~pipeline.columns.Values` (a ``list``) computed once per reference and
            shared by every call: read it, do not modify it. Its ``memo`` keeps what profiling
            computed on the column (distinct values, datatype), so a second test costs nothing.
        """
        cache = self.__dict__.setdefault("_values", {})
        if reference not in cache:
            if isinstance(self.records, ColumnRecords):
                col = self.records.column(reference)
                cache[reference] = Values(v for v in col if v) if col is not None else Values()
            else:
                cache[reference] = Values(v for r in self.records for v in r.get(reference, []))
        return cache[reference]

    def profiling(self) -> str | None:
        """How the mapper's profiling covered this source, when a sample was involved (CSV
        with more than :data:`~pipeline.columns.SAMPLE_RECORDS` records), else ``None``."""
        if not isinstance(self.records, ColumnRecords) or not self.records.parsed:
            return None
        n = len(self.records)
        idx = sample_indices(n)
        if len(idx) >= n:
            return None
        return (f"{n:,} records: key candidates screened on a systematic sample of {len(idx):,} records "
                f"(records 0, {idx.step}, {2 * idx.step}, ...), each key kept confirmed on all records; datatypes and "
                f"inclusion dependencies tested on every distinct value")

    def has_reference(self, reference: str) -> bool:
        """True when ``reference`` names data in this source.

        CSV/JSON: an exact column / dotted key. XML: a known relative path, or
        any XPath (absolute or relative to the iterator) that selects something.
        """
        if reference in self.references:
            return True
        if self.source.format != "xml" or self._tree is None:
            return False
        reference = self.bind(reference)
        if reference in self.references:
            return True
        try:
            return bool(self.xpath(reference))
        except etree.XPathError:
            return False

    def max_per_record(self, reference: str) -> int:
        """Largest number of values ``reference`` (relative to the iterator) selects in one record.

        XML only (0 otherwise or for an invalid expression); used to spot references that an
        engine would combine as a cross product.
        """
        if self._tree is None or not self.iterator:
            return 0
        reference = self.bind(reference)
        try:
            records = self._tree.xpath(self.iterator, namespaces=self.namespaces)
            return max((len(r.xpath(reference, namespaces=self.namespaces)) for r in records), default=0)
        except etree.XPathError:
            return 0

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
        return [x.text or "" if isinstance(x, etree._Element) else str(x) for x in out]


def _load_csv(src: Source, workdir: Path | None) -> SourceData:
    limit = csv.field_size_limit(2 ** 31 - 1)  # long cells are data too (the default stops at 128 KiB)
    try:
        data = _read_csv(src)
        if data.delimiter != "," or data.bom:
            _normalise_csv(data, workdir or src.path.parent / ".repaired")
        return data
    finally:
        csv.field_size_limit(limit)


def _normalise_csv(data: SourceData, out_dir: Path) -> None:
    """Write a comma-separated, BOM-less UTF-8 copy for the engine (Morph-KGC reads only that)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / data.source.path.name
    with data.source.path.open(encoding="utf-8-sig", newline="") as fh, target.open("w", encoding="utf-8",
                                                                                     newline="") as out:
        csv.writer(out).writerows(csv.reader(fh, delimiter=data.delimiter))
    what = [w for w, on in ((f"{data.delimiter!r} as separator", data.delimiter != ","), ("a byte-order mark", data.bom))
            if on]
    data.findings.append(Finding("source", str(data.source.path), f"CSV uses {' and '.join(what)}; the engine reads "
                                 f"a comma-separated UTF-8 copy: {target}", expected="comma-separated UTF-8",
                                 severity="info"))
    data.path = target


def _read_csv(src: Source) -> SourceData:
    """Header, separator and BOM now; the cells on first use (:class:`~pipeline.columns.ColumnRecords`)."""
    quotes = check_utf8(src.path)  # an undecodable file is a finding at load, as when every cell was read here
    with src.path.open(encoding="utf-8-sig", newline="") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        delimiter = "\t" if src.path.suffix.lower() == ".tsv" else ","
        try:
            delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter if sample.count("\n") > 1 else delimiter
        except csv.Error:
            pass
        reader = csv.reader(fh, delimiter=delimiter)
        refs = next(reader, [])
        has_record = any(row for row in reader)
    records = ColumnRecords(src.path, delimiter, refs)
    data = SourceData(src, src.path, None, refs, records)
    data.delimiter = delimiter
    with src.path.open("rb") as fh:
        data.bom = fh.read(3) == b"\xef\xbb\xbf"
    opened = unclosed_quote(src.path, delimiter) if quotes % 2 else None
    if not refs:
        data.findings.append(Finding("source", str(src.path), "empty CSV file", line=1,
                                     expected="a header line with column names"))
    elif opened:
        data.findings.append(Finding("source", str(src.path), f"unclosed quote: the quoted field opened at line "
                                     f"{opened[0]}, column {opened[1]} runs to the end of the file", line=opened[0],
                                     expected='a closing "; a quote inside a quoted '
                                     'field is written ""'))
    elif not has_record:
        data.findings.append(Finding("source", str(src.path), "CSV file has a header but no records: nothing to map",
                                     line=2, column=NO_RECORDS, expected="at least one record below the header",
                                     severity="warning"))
    data.findings += _header_warnings(src, refs)
    return data


def _header_warnings(src: Source, refs: list[str]) -> list[Finding]:
    """Header names no reference can address as the engine reads them: a name given twice (pandas,
    inside Morph-KGC, reads the first column; kgc's profiling the last) and an empty name."""
    out = []
    for name in dict.fromkeys(refs):
        cols = [i + 1 for i, r in enumerate(refs) if r == name]
        if name.strip() == "":
            out.append(Finding("source", str(src.path), f"header cell(s) in column(s) {', '.join(map(str, cols))} "
                               "are empty: no reference addresses that data", line=1, column="header", value=name,
                               expected="a name for every column", severity="warning"))
        elif len(cols) > 1:
            out.append(Finding("source", str(src.path), f"the header names {name!r} in columns "
                               f"{', '.join(map(str, cols))}: the engine reads column {cols[0]} only", line=1,
                               column="header", value=name, expected="distinct column names", severity="warning"))
    return out


def csv_row_findings(data: SourceData) -> list[Finding]:
    """Records of a CSV source whose cell count differs from its header's (parses the file).

    Returns:
        At most two findings: a ``warning`` for records with more cells than the header (the
        extra cells reach no column, so neither kgc nor the engine reads them: data is lost)
        and an ``info`` for records with fewer (their missing cells are empty), each naming
        the first lines. ``[]`` for other formats and well-formed files.
    """
    if not isinstance(data.records, ColumnRecords):
        return []
    long, short = data.records.ragged()
    width, out = len(data.references), []
    for rows, severity, what in ((long, "warning", "more cells than the header; the extra cells are dropped "
                                  "(no column name addresses them)"),
                                 (short, "info", "fewer cells than the header; the missing cells are read as empty")):
        if rows:
            first = ", ".join(f"line {line} ({cells} cells)" for line, cells in rows[:5])
            more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
            out.append(Finding("source", str(data.source.path), f"{len(rows)} record(s) have {what}: {first}{more}",
                               line=rows[0][0], column="record", expected=f"{width} cells per record, as the header",
                               severity=severity))
    return out


def _flatten_json(obj, prefix: str = "", odd: set[str] | None = None) -> dict[str, list[str]]:
    """Leaf values by dotted path; paths through a key holding ``.`` (the engine reads a nested path)
    or white space at its ends (a table cell cannot hold it) go into ``odd``. Spaces inside a key
    (``"book title"``) are fine: Morph-KGC reads them."""
    out: dict[str, list[str]] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            for kk, vv in _flatten_json(v, path, odd).items():
                out.setdefault(kk, []).extend(vv)
                if odd is not None and ("." in str(k) or str(k) != str(k).strip()):
                    odd.add(kk)
    elif isinstance(obj, list):
        for item in obj:
            for kk, vv in _flatten_json(item, prefix, odd).items():
                out.setdefault(kk, []).extend(vv)
    elif obj is not None:
        out[prefix] = [str(obj).lower() if isinstance(obj, bool) else str(obj)]
    return out


def _json_records_path(data) -> tuple[str, list]:
    if isinstance(data, list):
        return "$[*]", data
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                return f"$.{k}[*]", v
        for k, v in data.items():
            if isinstance(v, dict):
                sub, recs = _json_records_path(v)
                if recs and sub != "$":
                    return "$." + k + sub[1:], recs
        return "$", [data]
    return "$", []


def _load_json(src: Source, workdir: Path | None) -> SourceData:
    data = json.loads(src.path.read_text(encoding="utf-8-sig"))
    top = json_top_level(src, data)
    if top is not None:
        return SourceData(src, src.path, src.iterator, findings=[top])
    iterator, recs = _json_records_path(data)
    if src.iterator:
        from jsonpath_ng.ext import parse as jp_parse
        iterator = src.iterator
        recs = [m.value for m in jp_parse(iterator).find(data)]
    odd: set[str] = set()
    records = [_flatten_json(r, odd=odd) for r in recs]
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    out_dir = workdir or src.path.parent / ".repaired"
    path, repair = strip_json_nulls(src.path, data, out_dir)
    with src.path.open("rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    if bom and path == src.path:  # the engine's json.load refuses a byte-order mark: it reads a copy without
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / src.path.name
        path.write_bytes(src.path.read_bytes()[3:])
        repair = Finding("source", str(src.path), f"JSON starts with a byte-order mark; the engine reads a copy "
                         f"without it: {path}", expected="UTF-8 without a byte-order mark", severity="info")
    out = SourceData(src, path, iterator, refs, records, [repair] if repair else [])
    for ref in sorted(odd):
        out.unaddressable[ref] = (f"a key on the path {ref!r} holds '.' or starts or ends with white space: "
                                  "Morph-KGC reads a dotted reference as a nested path and a table cell drops the "
                                  "white space, so no reference selects it")
        out.findings.append(Finding("source", str(src.path), out.unaddressable[ref], column="reference", value=ref,
                                    expected="JSON keys without '.' or white space at their ends", severity="warning"))
    if not recs:
        out.findings.append(Finding("source", str(src.path), f"iterator {iterator!r} selects no record",
                                    column="iterator", value=iterator, expected="a JSONPath selecting the records",
                                    severity="warning"))
    return out


def _xml_iterator(root: etree._Element, defaults: dict[str, str]) -> str:
    children = [c for c in root if isinstance(c.tag, str)]
    names = [_qname(c, defaults) for c in children]
    # a root whose children are all one kind of record element (even a single one) holds records
    if children and len(set(names)) == 1 and any(len(c) for c in children):
        return f"/{_qname(root, defaults)}/{names[0]}"
    return f"/{_qname(root, defaults)}"


def _xml_record(el: etree._Element, defaults: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for a, v in el.attrib.items():
        out.setdefault(f"@{etree.QName(a).localname}", []).append(v)

    def walk(node: etree._Element, path: str) -> None:
        for child in node:
            if not isinstance(child.tag, str):
                continue
            p = f"{path}/{_qname(child, defaults)}" if path else _qname(child, defaults)
            text = (child.text or "").strip()
            if len(child) == 0:
                out.setdefault(p, []).append(text)
            for a, v in child.attrib.items():
                out.setdefault(f"{p}/@{etree.QName(a).localname}", []).append(v)
            walk(child, p)

    walk(el, "")
    return out


def _bind_defaults(src: Source, path: Path, root: etree._Element, out_dir: Path) -> tuple[Path, dict[str, str],
                                                                                           list[Finding]]:
    """Bind the default namespaces of a parsed document; write the engine copy declaring the new prefixes."""
    defaults = default_namespace_prefixes(root)
    new = {p: uri for uri, p in defaults.items() if p not in (root.nsmap or {}) or root.nsmap[p] != uri}
    if not new:
        return path, defaults, []
    text = declare_on_root(path.read_text(encoding="utf-8"), new)
    if text is None:
        return path, defaults, []
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / src.path.name
    target.write_text(text, encoding="utf-8")
    findings = [Finding("xml-repair", str(src.path), f"default namespace <{uri}> bound to the prefix '{p}:' for "
                        f"iterators and references (XPath 1.0 has no default element namespace); the engine "
                        f"reads a copy declaring it: {target}", column="namespace", value=uri,
                        expected="namespaced paths", candidate=f"{p}:", severity="info")
                for p, uri in new.items()]
    return target, defaults, findings


def _load_xml(src: Source, workdir: Path | None) -> SourceData:
    out_dir = workdir or src.path.parent / ".repaired"
    path, findings = src.path, []
    declared = xml_encoding(src.path)
    if declared:  # the engine reads XML as UTF-8: it gets a UTF-8 copy, which the repairs below start from
        path, converted = utf8_xml_copy(src.path, declared, out_dir)
        findings.append(converted)
    path, repaired = repair_xml(path, out_dir)
    findings += repaired
    try:
        tree = parse_xml(path)
    except etree.XMLSyntaxError as exc:
        findings.append(Finding("source", str(src.path), f"XML is not well-formed: {exc.msg}",
                                line=exc.lineno, expected="well-formed XML"))
        return SourceData(src, path, src.iterator, findings=findings)
    entity = unresolved_entity(tree)
    if entity is not None:
        findings.append(Finding("source", str(src.path), entity[1], line=entity[0], column="entity",
                                expected="entities declared in the document itself, no SYSTEM or PUBLIC entity, "
                                "no external DTD; replace the reference by its text"))
        return SourceData(src, path, src.iterator, findings=findings)
    root = tree.getroot()
    path, defaults, bound = _bind_defaults(src, path, root, out_dir)
    findings += bound
    namespaces = xml_namespaces(root)
    namespaces.update({p: uri for uri, p in defaults.items()})
    iterator = src.iterator or _xml_iterator(root, defaults)
    elements: list = []
    try:
        elements = tree.xpath(iterator, namespaces=namespaces)
    except etree.XPathError as exc:
        findings.append(Finding("source", str(src.path), f"iterator {iterator!r} is no valid XPath: {exc}",
                                column="iterator", value=iterator, expected="an XPath selecting the records"))
    if not elements and defaults and src.iterator:
        for p in dict.fromkeys(defaults.values()):
            bound_it = bind_default_prefix(iterator, p)
            try:
                hits = tree.xpath(bound_it, namespaces=namespaces)
            except etree.XPathError:
                continue
            if hits:
                findings.append(Finding("source", str(src.path), f"iterator {iterator!r} names elements of the "
                                        f"default namespace <{ {v: k for k, v in defaults.items()}[p]}> without a "
                                        f"prefix; read as {bound_it!r}", column="iterator", value=iterator,
                                        expected="a namespaced XPath", candidate=bound_it, severity="warning"))
                iterator, elements = bound_it, hits
                break
    records = [_xml_record(e, defaults) for e in elements if isinstance(e, etree._Element)]
    if not records and not any(f.column == "iterator" for f in findings):
        ns = f"; the document's elements are in the default namespace <{next(iter(defaults))}>" if defaults else ""
        findings.append(Finding("source", str(src.path), f"iterator {iterator!r} selects no record{ns}",
                                column="iterator", value=iterator, expected="an XPath selecting the records",
                                candidate=_xml_iterator(root, defaults), severity="warning"))
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    data = SourceData(src, path, iterator, refs, records, findings, namespaces, _tree=tree)
    data.default_prefixes = defaults
    return data


def load_source(source: Source, workdir: Path | None = None) -> SourceData:
    """Read one source and profile it.

    Args:
        source: the manifest entry.
        workdir: where repaired copies go (XML); defaults to a ``.repaired``
            folder beside the input only when no run folder is given.
    Returns:
        The :class:`SourceData`; unreadable content becomes findings, not exceptions. A finding of
        stage ``source`` and severity ``error`` means the file cannot be mapped (not UTF-8, not
        well-formed, an unclosed CSV quote, an external XML entity, no records);
        :func:`require_readable` turns those into one :class:`~pipeline.errors.InputError`.
    """
    try:
        if source.format == "csv":
            return _load_csv(source, workdir)
        if source.format == "json":
            return _load_json(source, workdir)
        return _load_xml(source, workdir)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        return SourceData(source, source.path, source.iterator, findings=[read_error(source.path, source.format, exc)])


def all_values(sources: list[SourceData]) -> set[str]:
    """Every value found in the sources (the materializer's guards use it to tell a real
    ``"None"`` from an empty XML element)."""
    out: set[str] = set()
    for s in sources:
        if isinstance(s.records, ColumnRecords):
            cells: set[str] = set()
            for name in s.records.names:
                cells.update(s.records.column(name) or ())
            cells.discard("")  # an empty CSV cell is no value
            out |= cells
        else:
            out.update(v for r in s.records for vs in r.values() for v in vs)
    return out
