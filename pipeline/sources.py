"""Source data access: read CSV/JSON/XML inputs, repair XML namespaces, profile references.

For each :class:`~pipeline.manifest.Source` this module answers what the
audit, the compiler and the mappers need: which references exist (CSV
columns, JSON keys as dotted paths relative to the iterator, XML element and
attribute paths relative to the iterator), their values per record, and the
record iterator (detected when the manifest does not give one).

XML repair: CODICE feeds (scenario 3) use ``cac:``/``cbc:`` ... prefixes
without declaring them. :func:`repair_xml` declares the standard CODICE
namespaces on the root element, reports prefixes it cannot resolve, and
writes the repaired copy into the run folder; the input is never modified.
"""
from __future__ import annotations

import csv
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from .findings import Finding
from .manifest import Source

__all__ = ["KNOWN_XML_NAMESPACES", "SourceData", "load_source", "repair_xml", "undeclared_prefixes",
           "xml_namespaces", "all_values"]

LOGGER = logging.getLogger(__name__)

#: Namespace URIs of the CODICE (Spanish public procurement, PLACSP) schemas and
#: the Atom/UBL ones they travel with, by their conventional prefix.
KNOWN_XML_NAMESPACES: dict[str, str] = {
    "cac": "urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2",
    "cac-place-ext": "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2",
    "cbc-place-ext": "urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    "at": "http://purl.org/atompub/tombstones/1.0",
    "atom": "http://www.w3.org/2005/Atom",
}

_QNAME_USE = re.compile(r"</?([A-Za-z_][\w.\-]*):[A-Za-z_][\w.\-]*|\s([A-Za-z_][\w.\-]*):[A-Za-z_][\w.\-]*\s*=")
_DECL = re.compile(r"xmlns:([A-Za-z_][\w.\-]*)\s*=")


def undeclared_prefixes(text: str) -> list[str]:
    """Namespace prefixes used in element/attribute names of ``text`` but never declared.

    ``xml`` and ``xmlns`` are always declared. Returns sorted prefixes.
    """
    used = {m.group(1) or m.group(2) for m in _QNAME_USE.finditer(text)}
    declared = set(_DECL.findall(text)) | {"xml", "xmlns"}
    return sorted(p for p in used - declared if p)


def repair_xml(path: Path, out_dir: Path) -> tuple[Path, list[Finding]]:
    """Declare undeclared namespace prefixes of an XML file in a repaired copy.

    Args:
        path: the input XML file (read only).
        out_dir: folder for the repaired copy (created); the copy keeps the file name.
    Returns:
        ``(path_to_read, findings)``: the repaired copy when a repair was needed,
        else ``path`` itself; one finding per declared or unresolvable prefix.
        An unresolvable prefix is declared as ``urn:undeclared:<prefix>`` so the
        document parses, and reported as an error.
    """
    text = path.read_text(encoding="utf-8")
    missing = undeclared_prefixes(text)
    if not missing:
        return path, []
    findings = []
    decls = []
    for p in missing:
        ns = KNOWN_XML_NAMESPACES.get(p)
        if ns:
            findings.append(Finding("xml-repair", str(path), f"undeclared namespace prefix {p!r} declared as <{ns}>",
                                    column="namespace", value=p, expected="a declared prefix", candidate=ns,
                                    severity="warning"))
        else:
            ns = f"urn:undeclared:{p}"
            findings.append(Finding("xml-repair", str(path), f"undeclared namespace prefix {p!r} is no known "
                                    f"namespace; declared as <{ns}> so the file parses",
                                    column="namespace", value=p, expected="a declared prefix", severity="error"))
        decls.append(f' xmlns:{p}="{ns}"')
    m = re.search(r"<([A-Za-z_][\w.\-:]*)", re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", lambda x: " " * len(x.group()),
                                                  text, flags=re.S))
    if not m:
        return path, findings
    insert_at = m.end()
    repaired = text[:insert_at] + "".join(decls) + text[insert_at:]
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    target.write_text(repaired, encoding="utf-8")
    return target, findings


def xml_namespaces(root: etree._Element) -> dict[str, str]:
    """All prefix -> URI declarations in a parsed document (default namespace left out)."""
    out: dict[str, str] = {}
    for el in root.iter():
        for p, uri in (el.nsmap or {}).items():
            if p:
                out.setdefault(p, uri)
    return out


def _qname(el: etree._Element) -> str:
    q = etree.QName(el)
    if q.namespace:
        prefix = el.prefix
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
        records: one dict per record: reference -> list of string values.
        findings: problems met while reading (repairs, unreadable rows).
        namespaces: XML prefix -> namespace URI (XML only).
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
    _tree: object = None

    def values(self, reference: str) -> list[str]:
        """All values of ``reference`` across records, in order (may repeat)."""
        return [v for r in self.records for v in r.get(reference, [])]

    def has_reference(self, reference: str) -> bool:
        """True when ``reference`` names data in this source.

        CSV/JSON: an exact column / dotted key. XML: a known relative path, or
        any XPath (absolute or relative to the iterator) that selects something.
        """
        if reference in self.references:
            return True
        if self.source.format != "xml" or self._tree is None:
            return False
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
        try:
            records = self._tree.xpath(self.iterator, namespaces=self.namespaces)
            return max((len(r.xpath(reference, namespaces=self.namespaces)) for r in records), default=0)
        except etree.XPathError:
            return 0

    def xpath(self, expr: str) -> list[str]:
        """Evaluate an XPath (absolute, or relative to the first record) to string values.

        Raises:
            lxml.etree.XPathError: malformed expression or unknown prefix.
        """
        if self._tree is None:
            return []
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
    with src.path.open(encoding="utf-8-sig", newline="") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        delimiter = "\t" if src.path.suffix.lower() == ".tsv" else ","
        try:
            delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter if sample.count("\n") > 1 else delimiter
        except csv.Error:
            pass
        reader = csv.DictReader(fh, delimiter=delimiter)
        records = [{k: ([v] if v not in (None, "") else []) for k, v in row.items() if k is not None} for row in reader]
        refs = list(reader.fieldnames or [])
    data = SourceData(src, src.path, None, refs, records)
    data.delimiter = delimiter
    data.bom = src.path.read_bytes()[:3] == b"\xef\xbb\xbf"
    if not refs:
        data.findings.append(Finding("source", str(src.path), "empty CSV file", line=1,
                                     expected="a header line with column names"))
    elif not records:
        data.findings.append(Finding("source", str(src.path), "CSV file has a header but no records", line=2,
                                     expected="at least one record", severity="warning"))
    return data


def _flatten_json(obj, prefix: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            for kk, vv in _flatten_json(v, f"{prefix}.{k}" if prefix else str(k)).items():
                out.setdefault(kk, []).extend(vv)
    elif isinstance(obj, list):
        for item in obj:
            for kk, vv in _flatten_json(item, prefix).items():
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


def _load_json(src: Source) -> SourceData:
    data = json.loads(src.path.read_text(encoding="utf-8"))
    iterator, recs = _json_records_path(data)
    if src.iterator:
        from jsonpath_ng.ext import parse as jp_parse
        iterator = src.iterator
        recs = [m.value for m in jp_parse(iterator).find(data)]
    records = [_flatten_json(r) for r in recs]
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    return SourceData(src, src.path, iterator, refs, records)


def _xml_iterator(root: etree._Element) -> str:
    children = [c for c in root if isinstance(c.tag, str)]
    names = [_qname(c) for c in children]
    # a root whose children are all one kind of record element (even a single one) holds records
    if children and len(set(names)) == 1 and any(len(c) for c in children):
        return f"/{_qname(root)}/{names[0]}"
    return f"/{_qname(root)}"


def _xml_record(el: etree._Element) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for a, v in el.attrib.items():
        out.setdefault(f"@{etree.QName(a).localname}", []).append(v)

    def walk(node: etree._Element, path: str) -> None:
        for child in node:
            if not isinstance(child.tag, str):
                continue
            p = f"{path}/{_qname(child)}" if path else _qname(child)
            text = (child.text or "").strip()
            if len(child) == 0:
                out.setdefault(p, []).append(text)
            for a, v in child.attrib.items():
                out.setdefault(f"{p}/@{etree.QName(a).localname}", []).append(v)
            walk(child, p)

    walk(el, "")
    return out


def _load_xml(src: Source, workdir: Path | None) -> SourceData:
    path, findings = repair_xml(src.path, (workdir or src.path.parent / ".repaired"))
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        tree = etree.parse(str(path), parser)
    except etree.XMLSyntaxError as exc:
        findings.append(Finding("source", str(src.path), f"XML is not well-formed: {exc.msg}",
                                line=exc.lineno, expected="well-formed XML"))
        return SourceData(src, path, src.iterator, findings=findings)
    root = tree.getroot()
    namespaces = xml_namespaces(root)
    iterator = src.iterator or _xml_iterator(root)
    try:
        elements = tree.xpath(iterator, namespaces=namespaces)
    except etree.XPathError as exc:
        findings.append(Finding("source", str(src.path), f"iterator {iterator!r} is no valid XPath: {exc}",
                                column="iterator", value=iterator, expected="an XPath selecting the records"))
        elements = []
    records = [_xml_record(e) for e in elements if isinstance(e, etree._Element)]
    refs: list[str] = []
    for r in records:
        refs.extend(k for k in r if k not in refs)
    return SourceData(src, path, iterator, refs, records, findings, namespaces, _tree=tree)


def load_source(source: Source, workdir: Path | None = None) -> SourceData:
    """Read one source and profile it.

    Args:
        source: the manifest entry.
        workdir: where repaired copies go (XML); defaults to a ``.repaired``
            folder beside the input only when no run folder is given.
    Returns:
        The :class:`SourceData`; unreadable content becomes findings, not exceptions.
    """
    try:
        if source.format == "csv":
            return _load_csv(source, workdir)
        if source.format == "json":
            return _load_json(source)
        return _load_xml(source, workdir)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        line = getattr(exc, "lineno", None)
        if isinstance(exc, UnicodeDecodeError):
            line = source.path.read_bytes()[: exc.start].count(b"\n") + 1
        return SourceData(source, source.path, source.iterator,
                          findings=[Finding("source", str(source.path), f"cannot read {source.format} source: {exc}",
                                            line=line, expected=f"a readable {source.format} file")])


def all_values(sources: list[SourceData]) -> set[str]:
    """Every value found in the sources (the materializer's guards use it to tell a real
    ``"None"`` from an empty XML element)."""
    return {v for s in sources for r in s.records for vs in r.values() for v in vs}
