"""Scenario manifests: one YAML file describes one case (sources, ontology, gold ...).

Example (paths resolve relative to the manifest file)::

    name: 1E
    scenario: scenario1
    base_iri: http://example.org/
    sources:
      - path: student.csv
      - path: sport.json
        iterator: $.sports[*]
    ontologies: [ontology.ttl]
    skos: []
    prefixes: {ex: "http://example.org/"}
    gold:
      table: expected_table.md
      graph: expected-graph.nt
    competency_questions: [cq/]
    shapes: [shapes.ttl]

Only ``sources`` and ``ontologies`` are required. Validation happens before
anything runs and names the file, the line and the key at fault.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml
from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext import parse as jsonpath_parse
from lxml import etree

from pipeline.errors import ManifestError, not_utf8_error
from pipeline.rdffile import RDF_FORMATS, rdf_format
from pipeline.validation.terms import check_iri

__all__ = ["FORMATS", "SELECTION", "Source", "Case", "load_manifest", "dump_manifest", "is_text_manifest", "yaml_kind",
           "is_manifest_file", "refuse_swapped_manifest"]

#: Supported source formats and the file suffixes that imply them. GeoJSON (``.geojson``, media type
#: application/geo+json, RFC 7946 section 12) and JSON-LD (``.jsonld``, application/ld+json) documents are JSON.
FORMATS: dict[str, tuple[str, ...]] = {"csv": (".csv", ".tsv"),
                                       "json": (".json", ".jsonl", ".ndjson", ".geojson", ".jsonld"),
                                       "xml": (".xml",)}

_TOP_KEYS = {"name", "scenario", "base_iri", "sources", "ontologies", "skos", "prefixes", "gold",
             "competency_questions", "shapes", "notes"}
_SOURCE_KEYS = {"path", "format", "iterator", "name"}

#: The name of a selection of a JSON file's records by the value of one of their members, written as the
#: JSONPath filter that selects them after the file's name (``stix.json[?(@.type=="malware")]``): the
#: form Morph-KGC's JSONPath reads (double quotes, no space around ``==``); see
#: :mod:`pipeline.sources.selection`.
SELECTION = re.compile(r'(?P<file>[^\[\]]+)\[\?\(@\.(?P<member>[A-Za-z_][A-Za-z0-9_]*)=="(?P<value>[^"\\\[\]()]+)"\)\]')
_GOLD_KEYS = {"table", "graph"}


@dataclass(frozen=True)
class Source:
    """One input file of a case.

    Attributes:
        path: absolute path (of the folder, for a folder source).
        format: ``csv``, ``json`` or ``xml``.
        iterator: JSONPath/XPath of the records (``None``: detected from the data).
        name: the file name the mapping table uses (default: the file's name; for a folder source
            the folder's name with the format's suffix, ``records.json``).
        members: the files of a folder source (``path: records/`` or ``path: records/*.json``),
            sorted, read as one logical source (:mod:`pipeline.sources.folders`); empty for a file.
    """

    path: Path
    format: str
    iterator: str | None = None
    name: str = ""
    members: tuple[Path, ...] = ()

    @property
    def stem(self) -> str:
        """File name without suffix (``routes`` for ``routes.csv``); of a selection of a file's records by
        kind (:data:`SELECTION`), the kind (``malware`` for ``stix.json[?(@.type=="malware")]``), which join
        conditions name it by."""
        chosen = SELECTION.fullmatch(self.name)
        return chosen.group("value") if chosen else Path(self.name or self.path.name).stem


@dataclass(frozen=True)
class Case:
    """One scenario case: everything a run needs, with absolute paths.

    Attributes:
        name: case name (``1A``, ``d3``, ``1``).
        scenario: scenario name (``scenario1``); used for output folders.
        sources: input files.
        ontologies: ontology files.
        skos: SKOS vocabulary files.
        base_iri: base for generated IRIs (``http://example.org/``).
        prefixes: extra prefixes (prefix -> namespace) tables may use.
        gold_table / gold_graph: optional gold mapping table and gold KG.
        competency_questions: SPARQL files (``.rq``) or folders of them (read recursively).
        shapes: SHACL shape files.
        manifest: the manifest file this case came from (``None`` if built in code).
        notes: free text carried into reports.
    """

    name: str
    sources: tuple[Source, ...]
    ontologies: tuple[Path, ...]
    scenario: str = "custom"
    skos: tuple[Path, ...] = ()
    base_iri: str = "http://example.org/"
    prefixes: dict[str, str] = field(default_factory=dict)
    gold_table: Path | None = None
    gold_graph: Path | None = None
    competency_questions: tuple[Path, ...] = ()
    shapes: tuple[Path, ...] = ()
    manifest: Path | None = None
    notes: str = ""

    def source_named(self, name: str | None) -> Source | None:
        """The source whose file name or stem equals ``name`` (case-insensitive), else ``None``."""
        if not name:
            return None
        low = name.lower()
        for s in self.sources:
            if low in {s.path.name.lower(), (s.name or "").lower(), s.stem.lower()}:
                return s
        return None


def _absolute_iri(text: str) -> bool:
    """An absolute IRI (RFC 3987: scheme ``:`` then the rest) holding no character an IRI forbids."""
    return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", text)) and \
        not any(sev == "error" for sev, *_ in check_iri(text))


def _line_of(node: yaml.Node | None, key: str) -> int | None:
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if getattr(k, "value", None) == key:
                return k.start_mark.line + 1
    return None


def _unknown(keys: set[str], allowed: set[str], where: str, path: Path, node: yaml.Node | None) -> None:
    for key in sorted(keys - allowed):
        hint = difflib.get_close_matches(key, sorted(allowed), n=1)
        did = f"; did you mean {hint[0]!r}?" if hint else ""
        raise ManifestError(f"unknown key {key!r} in {where} (allowed: {', '.join(sorted(allowed))}){did}",
                            path=path, line=_line_of(node, key), key=key)


def _file(base: Path, value: Any, key: str, path: Path, node: yaml.Node | None, folder_of: str | None = None) -> Path:
    """``value`` resolved against ``base``: an existing file, or with ``folder_of`` (a suffix such as
    ``.rq``) also a folder holding such files."""
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{key}: expected a file path, found {value!r}", path=path,
                            line=_line_of(node, key.split('.')[0].split('[')[0]), key=key)
    p = (base / value).resolve() if not Path(value).is_absolute() else Path(value)
    if not p.exists():
        raise ManifestError(f"{key}: file not found: {p}", path=path, line=_line_of(node, key.split('.')[0].split('[')[0]), key=key)
    if p.is_dir() and folder_of and not any(p.rglob(f"*{folder_of}")):
        raise ManifestError(f"{key}: the folder {p} holds no {folder_of} file", path=path,
                            line=_line_of(node, key.split('.')[0].split('[')[0]), key=key)
    if p.is_dir() and not folder_of:
        raise ManifestError(f"{key}: {p} is a folder; expected a file", path=path,
                            line=_line_of(node, key.split('.')[0].split('[')[0]), key=key)
    return p


def yaml_kind(value: Any) -> str:
    """What a YAML value is, for a message (``a list``, ``a mapping``, ``a boolean (true)``)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    return f"{type(value).__name__} {value!r}"


def _text(value: Any, key: str, what: str, path: Path, line: int | None, numbers: bool = False) -> None:
    """Refuse a manifest value that is not one text (a number too with ``numbers``); ``None`` is absent.

    Raises:
        ManifestError: ``name: expected a plain name, found a list`` with the file and line.
    """
    if value is None or isinstance(value, str) or (numbers and isinstance(value, (int, float))
                                                   and not isinstance(value, bool)):
        return
    raise ManifestError(f"{key}: expected {what}, found {yaml_kind(value)}", path=path, line=line, key=key)


def _item_line(node: yaml.Node | None, key: str, idx: int, inner: str) -> int | None:
    """The line of ``inner`` in the ``idx``-th item of the list at ``key`` (else that item's, else ``key``'s)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == key and isinstance(v, yaml.SequenceNode) and idx < len(v.value):
                item = v.value[idx]
                return _line_of(item, inner) or item.start_mark.line + 1
    return _line_of(node, key)


def _iterator_problem(fmt: str, iterator: Any) -> str | None:
    """Why ``iterator`` cannot select the records of a ``fmt`` source, or ``None`` when it parses.

    A JSON iterator is parsed by ``jsonpath_ng.ext`` (the grammar the loader evaluates it with; the
    engine's JSONPath reads the same paths and filters), an XML one compiled by lxml (XPath 1.0);
    whether it selects anything is told by the loader, which reads the data.
    """
    if not isinstance(iterator, str) or not iterator.strip():
        return f"expected a JSONPath or XPath text, found {iterator!r}"
    if fmt == "json":
        try:
            jsonpath_parse(iterator)
        except (JSONPathError, ValueError) as exc:
            reason = str(exc).rstrip("!").replace("Parse error near the end of string", "parse error at the end")
            return f"{iterator!r} is no JSONPath: {reason} (expected: a JSONPath selecting the records, e.g. $.books[*])"
    elif fmt == "xml":
        try:
            etree.XPath(iterator)
        except etree.XPathError as exc:
            return f"{iterator!r} is no XPath 1.0 expression: {exc} (expected: an XPath selecting the records, " \
                   "e.g. /library/book)"
    return None


def _list(data: dict, key: str, path: Path, node: yaml.Node | None) -> list:
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ManifestError(f"{key}: expected a list, found {type(value).__name__}", path=path,
                            line=_line_of(node, key), key=key)
    return value


#: Suffixes of spreadsheet workbooks (Office Open XML, legacy Excel, OpenDocument, Numbers): zip packages or
#: binary files of several sheets, no source kgc reads; a sheet saved as CSV is.
SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods", ".numbers")
#: Suffixes of compressed single files, read through a decompressed copy (:mod:`pipeline.sources.load`).
COMPRESSED_SUFFIXES = (".gz", ".xz", ".bz2")


def _format_of(p: Path, given: Any, path: Path, node: yaml.Node | None, idx: int) -> str:
    if given is not None:
        if given not in FORMATS:
            raise ManifestError(f"sources[{idx}].format: unknown format {given!r} (allowed: {', '.join(FORMATS)})",
                                path=path, line=_line_of(node, "sources"), key="format")
        return str(given)
    # a compressed file (people.csv.gz) has the format of the file inside (the loader decompresses it)
    suffix = Path(p.stem).suffix if p.suffix.lower() in COMPRESSED_SUFFIXES else p.suffix
    for fmt, suffixes in FORMATS.items():
        if suffix.lower() in suffixes:
            return fmt
    if suffix.lower() in SPREADSHEET_SUFFIXES:
        raise ManifestError(f"sources[{idx}]: {p.name!r} is a spreadsheet workbook, which kgc does not read "
                            f"(expected: {', '.join(FORMATS)}); save each sheet as CSV UTF-8 and list the .csv files",
                            path=path, line=_line_of(node, "sources"), key="path")
    raise ManifestError(f"sources[{idx}]: cannot tell the format of {p.name!r} from its suffix; "
                        f"add format: one of {', '.join(FORMATS)}", path=path, line=_line_of(node, "sources"),
                        key="format")


#: JSONPath filter or wildcard syntax, which a glob never means: ``[?(`` opens a filter, ``[*]`` every item.
_JSONPATH_IN_PATH = re.compile(r"\[\?\(|\[\*\]")


def _selection_source(base: Path, item: dict, idx: int, path: Path, node: yaml.Node | None) -> Source | None:
    """The source a ``path`` naming a selection of a JSON file's records stands for
    (``events.json[?(@.type=="club")]``, :data:`SELECTION`): the file, named by the selection, whose
    loader keeps the records of that kind (:func:`pipeline.sources.load.load_source`), as a table's
    Source File cell of that form reads them. ``None`` for any other path.

    The filter's brackets and ``?`` are glob syntax too, where they would match another file
    (``[?(@.type=="club")]`` is one character of ``?(@.type=club)``: ``events.json`` + ``l``), so a
    path with JSONPath filter syntax is never read as a glob.

    Raises:
        ManifestError: the file does not exist or is no JSON file; a ``name`` or ``iterator`` beside the
            selection (the selection is the name, its filter the iterator's last step); filter syntax
            in another form than the one the engine reads.
    """
    value = item["path"]
    if not isinstance(value, str) or not _JSONPATH_IN_PATH.search(value):
        return None
    key, line = f"sources[{idx}].path", _item_line(node, "sources", idx, "path")
    chosen = SELECTION.fullmatch(value.strip())
    if chosen is None:
        raise ManifestError(f"{key}: {value!r} holds JSONPath filter syntax, but is no selection of a file's "
                            'records; expected <file>[?(@.<member>=="<value>")] (double quotes, no blank around '
                            '==: the only form Morph-KGC 2.10 reads), or the file as path and the filter in '
                            "its iterator", path=path, line=line, key=key)
    file = _file(base, chosen.group("file"), key, path, node)
    fmt = _format_of(file, item.get("format"), path, node, idx)
    if fmt != "json":
        raise ManifestError(f"{key}: {value!r} selects records of {file.name}, a {fmt} file; a selection by "
                            "a member's value reads JSON records", path=path, line=line, key=key)
    for extra in ("name", "iterator"):
        if extra in item:
            raise ManifestError(f"sources[{idx}].{extra}: a selection ({value!r}) is named by its path and "
                                "iterates the file's records with its filter; leave out "
                                f"{extra!r}, or give the file as path with the filter in 'iterator'",
                                path=path, line=_item_line(node, "sources", idx, extra), key=extra)
    return Source(path=file, format=fmt, name=value.strip())


#: Formats a folder source may hold: records that concatenate (JSON documents, CSV rows under one header).
FOLDER_FORMATS = ("json", "csv")


def _folder_source(base: Path, item: dict, idx: int, path: Path,
                   node: yaml.Node | None) -> tuple[Path, str, tuple[Path, ...]] | None:
    """``(folder, format, files)`` when the source's ``path`` names a folder (``records/``) or a glob
    (``records/*.json``, ``records/**/*.json``: :meth:`pathlib.Path.glob`), else ``None``. A folder
    holds the files of the format its ``format`` key or its files' suffixes say (one format).

    Raises:
        ManifestError: no such folder, no file matches, files of two formats, or XML files (one
            document per file has no one root to read them under).
    """
    value = item["path"]
    if not isinstance(value, str) or not value.strip():
        return None
    key, line = f"sources[{idx}].path", _item_line(node, "sources", idx, "path")
    glob = re.search(r"[*?\[]", value)
    if glob:
        head, _, pattern = value[:glob.start()].rpartition("/")
        pattern = value[len(head) + 1 if head else 0:]
        folder = Path(head) if Path(head).is_absolute() else (base / head).resolve()
        if not folder.is_dir():
            raise ManifestError(f"{key}: folder not found: {folder}", path=path, line=line, key=key)
        files = sorted(p for p in folder.glob(pattern) if p.is_file())
    else:
        folder = Path(value) if Path(value).is_absolute() else (base / value).resolve()
        if not folder.is_dir():
            return None
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    given = item.get("format")
    if given is not None:
        fmt = _format_of(folder, given, path, node, idx)
        listed, files = files, [p for p in files if glob or p.suffix.lower() in FORMATS[fmt]]
        if not files and not glob:
            raise ManifestError(_no_data_file(key, folder, value, FORMATS[fmt], [p for p in listed if p not in files]),
                                path=path, line=line, key=key)
    else:
        kinds = {next((f for f, suffixes in FORMATS.items() if p.suffix.lower() in suffixes), None) for p in files}
        if None in kinds or len(kinds) > 1:
            odd = sorted(p.name for p in files)[:3]
            raise ManifestError(f"{key}: the folder {folder} holds files of {'several formats' if len(kinds) > 1 else 'no known format'} "
                                f"({', '.join(odd)}{' ...' if len(files) > 3 else ''}); name the files with a glob "
                                "(records/*.json) or add format",
                                path=path, line=line, key=key)
        if not files and not glob:
            read = tuple(x for f in FOLDER_FORMATS for x in FORMATS[f])
            raise ManifestError(_no_data_file(key, folder, value, read, []), path=path, line=line, key=key)
        fmt = kinds.pop() if kinds else "json"
    if not files:
        raise ManifestError(f"{key}: no file in {folder} matches {value!r}", path=path, line=line, key=key)
    if fmt not in FOLDER_FORMATS:
        raise ManifestError(f"{key}: a folder source reads {' or '.join(FOLDER_FORMATS)} files, not {fmt}: list "
                            "each XML file as a source", path=path, line=line, key=key)
    return folder, fmt, tuple(files)


def _no_data_file(key: str, folder: Path, value: str, suffixes: tuple[str, ...], other: list[Path]) -> str:
    """The message for a folder source (``value``, as the manifest writes it) whose folder holds no file it
    reads: the suffixes read and what the folder holds instead (files of other suffixes, hidden files,
    subfolders, which a folder source does not descend into: a glob ``records/**/*.json`` does)."""
    entries = sorted(folder.iterdir())
    hidden = [p.name for p in entries if p.is_file() and p.name.startswith(".")]
    subfolders = [p.name + "/" for p in entries if p.is_dir()]

    def few(names: list[str]) -> str:
        return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
    skipped = [f"{few([p.name for p in other])} (another format)" if other else "",
               f"hidden file(s) {few(hidden)}" if hidden else "",
               f"subfolder(s) {few(subfolders)} (not read: name their files with a glob, "
               f"{value.rstrip('/')}/**/*{suffixes[0]})" if subfolders else ""]
    held = "; it holds only " + ", ".join(filter(None, skipped)) if any(skipped) else "; it is empty"
    return f"{key}: the folder {folder} holds no data file (a folder source reads {', '.join(suffixes)} files){held}"


def is_text_manifest(data: Any) -> bool:
    """Whether parsed manifest ``data`` describes a text case (``kind: text``, read by ``kgc text``)."""
    return isinstance(data, dict) and str(data.get("kind", "")).strip().lower() == "text"


def is_manifest_file(path: str | Path) -> bool:
    """Whether the file at ``path`` reads as a table manifest (a YAML mapping with ``sources`` and
    ``ontologies`` at its top level); ``False`` for a missing, unreadable or other file."""
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError, ValueError):
        return False
    return isinstance(doc, dict) and "sources" in doc and "ontologies" in doc


def refuse_swapped_manifest(manifest: str | None, others: Iterable[str | None], usage: str) -> None:
    """Refuse a command line whose manifest argument is no manifest while another file argument is one:
    the arguments are in the wrong order, which reading the first as YAML would report as invalid
    YAML (a Markdown table) or as no mapping of keys (a KG) without saying so.

    Args:
        manifest: the argument given where the manifest goes.
        others: the command's other file arguments (``None`` for one not given).
        usage: the order expected, as ``kgc compile MANIFEST TABLE OUTPUT``.
    Raises:
        ManifestError: naming both files and ``usage``.
    """
    if not manifest or is_manifest_file(manifest):
        return
    for other in others:
        if other and other != manifest and is_manifest_file(other):
            raise ManifestError(f"{manifest} is given where the manifest goes and {other} is a manifest: the "
                             f"arguments are in the wrong order; expected {usage}")


_FILE_KINDS = {".csv": "a CSV file", ".tsv": "a TSV file", ".json": "a JSON file", ".jsonl": "a JSON Lines file",
               ".xml": "an XML file", ".md": "a Markdown file", ".nt": "an N-Triples file", ".ttl": "a Turtle file",
               ".n3": "an N3 file", ".nq": "an N-Quads file", ".trig": "a TriG file", ".rdf": "an RDF/XML file",
               ".owl": "an OWL file", ".jsonld": "a JSON-LD file"}


def _file_kind(path: Path) -> str | None:
    """What the file's extension says it is when that is a data, RDF or table file, else ``None``:
    a user who gives a data file or a KG where the manifest goes is told so, not that the YAML
    lacks keys."""
    return _FILE_KINDS.get(path.suffix.lower())


def load_manifest(path: str | Path) -> Case:
    """Read and validate a manifest file.

    Returns:
        The :class:`Case` with every path resolved and checked to exist.
    Raises:
        ManifestError: unreadable YAML, unknown key, missing required key,
            missing file or unknown format; the message names the file, line and key.
    """
    path = Path(path).resolve()
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except FileNotFoundError as exc:
        raise ManifestError("manifest not found", path=path) from exc
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, exc, ManifestError) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ManifestError(f"invalid YAML: {getattr(exc, 'problem', exc)}", path=path,
                            line=mark.line + 1 if mark else None) from exc
    except RecursionError as exc:  # PyYAML composes nested collections recursively
        raise ManifestError("invalid YAML: collections nested too deeply to read", path=path) from exc
    if not isinstance(data, dict) or (set(data).isdisjoint(_TOP_KEYS) and _file_kind(path)):
        kind = _file_kind(path)
        if kind:
            raise ManifestError(f"this is {kind}, not a manifest: expected a YAML manifest naming the case's "
                                "sources and ontologies (README, 'The manifest')", path=path)
        raise ManifestError("expected a mapping of keys (sources, ontologies, ...) at the top level", path=path)
    if is_text_manifest(data):
        raise ManifestError("a text manifest (kind: text): run it with kgc text", path=path, key="kind")
    _unknown(set(data), _TOP_KEYS, "the manifest", path, node)
    for key, what in (("name", "a plain name"), ("scenario", "a plain name"), ("base_iri", "an IRI text"),
                      ("notes", "a text")):
        _text(data.get(key), key, what, path, _line_of(node, key), numbers=key != "base_iri")
    for req in ("sources", "ontologies"):
        if req not in data:
            raise ManifestError(f"missing required key {req!r}", path=path, key=req)
        if not data[req]:  # present but empty: say so, pointing at the key, rather than "missing"
            raise ManifestError(f"{req!r} is empty: expected at least one file", path=path,
                                line=_line_of(node, req), key=req)
    base = path.parent
    sources = []
    for i, item in enumerate(_list(data, "sources", path, node)):
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or "path" not in item:
            raise ManifestError(f"sources[{i}]: expected a path or a mapping with 'path'", path=path,
                                line=_line_of(node, "sources"), key="sources")
        _unknown(set(item), _SOURCE_KEYS, f"sources[{i}]", path, node)
        for key, what in (("format", "one of " + ", ".join(FORMATS)), ("name", "a file name")):
            _text(item.get(key), f"sources[{i}].{key}", what, path, _item_line(node, "sources", i, key),
                  numbers=key == "name")
        selection = _selection_source(base, item, i, path, node)
        folder = None if selection is not None else _folder_source(base, item, i, path, node)
        if selection is not None:
            src = selection
        elif folder is not None:
            p, fmt, members = folder
            src = Source(path=p, format=fmt, iterator=item.get("iterator"),
                         name=str(item.get("name") or p.name + FORMATS[fmt][0]), members=members)
        else:
            p = _file(base, item["path"], f"sources[{i}].path", path, node)
            src = Source(path=p, format=_format_of(p, item.get("format"), path, node, i),
                         iterator=item.get("iterator"), name=str(item.get("name") or p.name))
        if "iterator" in item and (problem := _iterator_problem(src.format, item["iterator"])):
            raise ManifestError(f"sources[{i}].iterator: {problem}", path=path,
                                line=_item_line(node, "sources", i, "iterator"), key="iterator")
        twin = next((j for j, s in enumerate(sources) if s.name == src.name), None)
        if twin is not None:  # the table's Source File cell names a source: two of one name map alike (twice)
            same = (sources[twin].path, sources[twin].iterator) == (src.path, src.iterator)
            raise ManifestError(f"sources[{i}]: " + (f"the same source as sources[{twin}] ({p.name})" if same else
                                f"named {src.name!r} as sources[{twin}]; give one a distinct 'name'"),
                                path=path, line=_line_of(node, "sources"), key="sources")
        sources.append(src)
    gold = data.get("gold") or {}
    if not isinstance(gold, dict):
        raise ManifestError("gold: expected a mapping with 'table' and/or 'graph'", path=path,
                            line=_line_of(node, "gold"), key="gold")
    _unknown(set(gold), _GOLD_KEYS, "gold", path, node)
    if gold.get("graph") and rdf_format(str(gold["graph"])) is None:
        raise ManifestError(f"gold.graph: unknown RDF syntax for {gold['graph']!r}; expected an extension "
                            f"among {' '.join(sorted(RDF_FORMATS))}", path=path, line=_line_of(node, "gold"),
                            key="gold.graph")
    prefixes = data.get("prefixes") or {}
    if not isinstance(prefixes, dict):
        raise ManifestError("prefixes: expected a mapping prefix -> namespace IRI", path=path,
                            line=_line_of(node, "prefixes"), key="prefixes")
    for k, v in prefixes.items():
        _text(v, f"prefixes.{k}", "a namespace IRI text", path, _line_of(node, "prefixes"))
    for key, iri in [("base_iri", data.get("base_iri")), *((f"prefixes.{k}", v) for k, v in prefixes.items())]:
        if iri is not None and not _absolute_iri(str(iri)):
            # every subject would be a relative or illegal IRI, dropped later with a misleading reason
            raise ManifestError(f"{key}: {str(iri)!r} is not an absolute IRI (expected e.g. 'http://example.org/')",
                                path=path, line=_line_of(node, key.split(".")[0]), key=key)
    for key in ("name", "scenario"):  # folder names under --out: never a path out of it
        value = data.get(key)
        if value not in (None, "") and (str(value).strip() in (".", "..") or re.search(r"[/\\\x00]", str(value))):
            raise ManifestError(f"{key}: {str(value)!r} names a folder under --out; expected a plain name "
                                "(no '/', '\\', '.' or '..')", path=path, line=_line_of(node, key), key=key)
    return Case(
        name=str(data.get("name") or path.stem),
        scenario=str(data.get("scenario") or "custom"),
        sources=tuple(sources),
        ontologies=tuple(_file(base, f, "ontologies", path, node) for f in _list(data, "ontologies", path, node)),
        skos=tuple(_file(base, f, "skos", path, node) for f in _list(data, "skos", path, node)),
        base_iri=str(data.get("base_iri") or "http://example.org/"),
        prefixes={str(k): str(v) for k, v in prefixes.items()},
        gold_table=_file(base, gold["table"], "gold.table", path, node) if gold.get("table") else None,
        gold_graph=_file(base, gold["graph"], "gold.graph", path, node) if gold.get("graph") else None,
        competency_questions=tuple(_file(base, f, "competency_questions", path, node, folder_of=".rq")
                                   for f in _list(data, "competency_questions", path, node)),
        shapes=tuple(_file(base, f, "shapes", path, node) for f in _list(data, "shapes", path, node)),
        manifest=path,
        notes=str(data.get("notes") or ""),
    )


def dump_manifest(case: Case, path: str | Path) -> Path:
    """Write ``case`` as a manifest at ``path`` with paths relative to its folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    base = path.parent.resolve()

    def rel(p: Path) -> str:
        return os.path.relpath(p, base)

    data: dict[str, Any] = {"name": case.name, "scenario": case.scenario, "base_iri": case.base_iri,
                            "sources": [{"path": rel(s.path), **({"format": s.format}),
                                         **({"iterator": s.iterator} if s.iterator else {})} for s in case.sources],
                            "ontologies": [rel(p) for p in case.ontologies]}
    if case.skos:
        data["skos"] = [rel(p) for p in case.skos]
    if case.prefixes:
        data["prefixes"] = dict(case.prefixes)
    gold = {k: rel(v) for k, v in (("table", case.gold_table), ("graph", case.gold_graph)) if v}
    if gold:
        data["gold"] = gold
    if case.competency_questions:
        data["competency_questions"] = [rel(p) for p in case.competency_questions]
    if case.shapes:
        data["shapes"] = [rel(p) for p in case.shapes]
    if case.notes:
        data["notes"] = case.notes
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
