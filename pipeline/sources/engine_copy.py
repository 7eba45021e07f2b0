"""Which file the engine reads for a source: the input itself, or a copy repaired for it.

Inputs are never modified. When Morph-KGC 2.10 would misread an input, the engine reads a copy,
and every such decision is made here, for ``kgc run``, ``kgc map``, ``kgc compile`` and
``kgc materialize`` alike. A source path goes from the manifest to the engine in three steps:

1. **Load** (:func:`pipeline.sources.load.load_source`): the reader of the format says what
   the engine cannot read as it is, and the source's :class:`EngineCopy` writes the copy,
   ``<folder>/<input name>``; each repair starts from the previous one, so an input has one copy
   at most. ``SourceData.path`` is then the file the engine reads, and the compiler writes it
   as the mapping's ``rml:source``.

   * CSV that is not comma-separated BOM-less UTF-8 (:func:`csv_copy`);
   * JSON with ``null`` members, which Morph-KGC 2.10 reads as "drop the whole object", or
     with a byte-order mark, which its ``json.load`` refuses (:func:`json_copy`);
   * XML declared in another encoding than UTF-8, which the engine reads as UTF-8 whatever the
     declaration says (:func:`xml_utf8_copy`), with undeclared prefixes (:func:`declare_prefixes`)
     or with default namespaces, bound to prefixes for iterators and references
     (:func:`bind_default_namespaces`; see :mod:`pipeline.sources.namespaces`), or with a prefix
     bound to several namespaces, which the engine resolves by the document's last binding
     (:func:`one_prefix_per_namespace`);

2. **Normalisation** (:func:`pipeline.materialize.rml.normalize.normalize_rml`): a relative
   ``rml:source`` of a hand-written mapping becomes the absolute name of the same file, or of its
   :func:`csv_copy` when it is a CSV file the engine would misread (its separator as a CSVW
   dialect declares it or as :func:`csv_dialect` detects it), or of its :func:`decoded_copy`.

3. **Mapping** (:func:`json_engine_copies`, once the mapping is known): each iterator over a
   JSON source gets ``<folder>/<stem>.engine.json`` (``<stem>.<iterator hash>.engine.json`` when
   the file is read with several iterators), its records cut to the keys the TriplesMaps with
   that iterator read, when the engine would otherwise lose records; the engine copy of the
   mapping reads it.

The folder of the copies is ``inputs/`` in a run folder or beside the file ``kgc compile`` or
``kgc materialize`` writes (:func:`copies_folder`); a caller that names none (a check that only reads
the mapping, a library call) gets a temporary folder (:func:`scratch_folder`): never a folder beside
the input, which may be shared or read-only.
Each copy is reported by a :class:`~pipeline.findings.Finding` of stage ``source``,
``xml-repair`` or ``json-repair`` that names it.
"""
from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import json
import lzma
import re
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from jsonpath import JSONPath
from lxml import etree
from rdflib import Literal, URIRef

from pipeline.errors import InputError
from pipeline.findings import Finding
from pipeline.manifest import FORMATS
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX
from pipeline.sources import json_numbers
from pipeline.sources.namespaces import (KNOWN_XML_NAMESPACES, declare_on_root, default_namespace_prefixes,
                                         undeclared_prefixes)

__all__ = ["EngineCopy", "original_of", "copies_folder", "scratch_folder", "csv_dialect", "csv_copy", "json_copy", "xml_utf8_copy", "declare_prefixes",
           "bind_default_namespaces", "one_prefix_per_namespace", "json_engine_copies", "decoded_copy", "COMPRESSIONS", "JSON_LINES_SUFFIXES",
           "is_json_lines", "json_lines_copy", "parse_json_lines", "DerivedOrigin", "remember_derived", "derived_origin"]


def copies_folder(beside: Path) -> Path:
    """The folder of the engine copies of a run (``beside``: its folder) or of a command writing
    into the folder ``beside``: ``beside/inputs``."""
    return Path(beside) / "inputs"


_SCRATCH: list[tempfile.TemporaryDirectory] = []  # one per process, removed when it exits


def scratch_folder(original: Path | None = None) -> Path:
    """A temporary folder for the copies of a caller that names no folder; removed when the process
    ends. Inputs of different folders get different subfolders (two ``data.csv`` do not meet).

    Args:
        original: the input (or the mapping folder) the copies are made for.
    Returns:
        ``<temporary folder>/<hash of original's folder>`` (not created until a copy is written).
    """
    if not _SCRATCH:
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="kgc-copies-"))
    where = Path(original).resolve() if original is not None else Path.cwd()
    where = where.parent if where.is_file() else where
    return Path(_SCRATCH[0].name) / hashlib.sha1(str(where).encode("utf-8")).hexdigest()[:12]


#: Each copy this process wrote (resolved path) -> the file it was written from (resolved), for
#: :func:`original_of`.
_ORIGINALS: dict[Path, Path] = {}


def original_of(path: str | Path) -> Path:
    """The user's file an engine copy was written from, through every copy made of a copy
    (``events.<hash>.engine.json`` -> ``events.<hash>.json`` -> ``events.jsonl``), so that a finding on
    a value the engine read names the file the user wrote; ``path`` itself when this process wrote
    no copy there (an input, or a copy written by another command)."""
    here = Path(path)
    seen = set()
    while (key := here.resolve()) in _ORIGINALS and key not in seen:
        seen.add(key)
        here = _ORIGINALS[key]
    return here


@dataclass(frozen=True)
class DerivedOrigin:
    """What a derived source (:data:`~pipeline.materialize.rml.vocabulary.DERIVED_SUFFIX`, one JSON object
    per record of one logical source, under keys kgc names) stands for in the user's terms.

    Attributes:
        file: the user's file the records were read from (through every copy, :func:`original_of`).
        references: key -> the reference or template of the user's mapping it holds (``k0_id`` -> ``id``).
        places: per record, in the derived file's order, where it starts in ``file`` (``line 4``), or
            ``None`` where the format gives no line (JSON).
    """

    file: Path
    references: dict[str, str]
    places: list[str | None]


_DERIVED: dict[Path, DerivedOrigin] = {}


def remember_derived(path: Path, origin: DerivedOrigin) -> None:
    """Record that the derived source ``path`` (written by this process) stands for ``origin``."""
    _DERIVED[Path(path).resolve()] = origin


def derived_origin(path: str | Path) -> DerivedOrigin | None:
    """The :class:`DerivedOrigin` of a derived source this process wrote, ``None`` for any other file."""
    return _DERIVED.get(Path(path).resolve())


class EngineCopy:
    """The file the engine reads for one input: the input itself until a repair writes a copy.

    Args:
        original: the input file (read only).
        folder: where the copy goes (created when written); ``None``: a temporary folder
            (:func:`scratch_folder`), never one beside the input.
        name: the copy's file name (default: the input's).
    Attributes:
        path: the file the engine reads: ``original``, or the copy once written.
    """

    def __init__(self, original: Path, folder: Path | None = None, name: str | None = None) -> None:
        self.original = Path(original)
        self.folder = Path(folder) if folder is not None else scratch_folder(self.original)
        self.target = self.folder / (name or self.original.name)
        self.path = self.original

    def _remember(self) -> None:
        """Record the copy's original for :func:`original_of` (a copy rewritten in place keeps the one it had)."""
        target, original = self.target.resolve(), self.original.resolve()
        if target != original:
            _ORIGINALS[target] = original

    def write(self, content: str | bytes) -> Path:
        """Write the copy (text as UTF-8) and read it from now on; returns its path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._remember()
        if isinstance(content, bytes):
            self.target.write_bytes(content)
        else:
            self.target.write_text(content, encoding="utf-8")
        self.path = self.target
        return self.target

    def open(self) -> TextIO:
        """The copy opened for writing UTF-8 text, line ends as written (for :mod:`csv`); read from now on."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._remember()
        self.path = self.target
        return self.target.open("w", encoding="utf-8", newline="")


#: The separators a CSV file's header is tried with when none is declared.
CSV_DELIMITERS = ",;\t|"


def csv_dialect(path: Path, declared: str | None = None) -> tuple[str, bool]:
    """The separator and byte-order mark of a CSV file, as every reader of kgc takes them.

    Args:
        path: the CSV file (UTF-8). declared: the separator the mapping declares (CSVW
            ``csvw:delimiter``, Metadata Vocabulary for Tabular Data section 5.9), taken as it is.
    Returns:
        ``(separator, starts with a UTF-8 byte-order mark)``. Without a declaration the separator
        is the one :class:`csv.Sniffer` finds among ``, ; TAB |`` in the first 4,096 characters
        (a file of two lines or more), else TAB for ``.tsv`` and ``,`` otherwise.
    Raises:
        OSError, UnicodeDecodeError: the file cannot be read as UTF-8.
    """
    with path.open("rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    if declared:
        return declared, bom
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(encoding="utf-8-sig", newline="") as fh:
        sample = fh.read(4096)
    if sample.count("\n") > 1:
        try:
            delimiter = csv.Sniffer().sniff(sample, delimiters=CSV_DELIMITERS).delimiter
        except csv.Error:
            pass
    return delimiter, bom


def csv_copy(copy: EngineCopy, delimiter: str, bom: bool, header: list[str] | None = None,
             repeats: int = 0) -> Finding:
    """Write a comma-separated, BOM-less UTF-8 copy of a CSV file (Morph-KGC reads only that), named
    ``.csv`` (``p.tsv`` -> ``p.tsv.csv``: the engine reads a ``.tsv`` file as tab-separated).

    Args:
        copy: the source's engine copy. delimiter, bom: the input's separator and whether it
            starts with a byte-order mark. header: the header to write instead of the file's
            (its names trimmed of white space, :func:`pipeline.sources.tabular.trimmed_header`),
            same length; ``None`` keeps the file's. repeats: how many lines below the header
            repeat it (:func:`pipeline.sources.checks.repeated_header_lines`); the copy leaves out
            every row equal to the header.
    Returns:
        An ``info`` finding naming what differed and the copy.
    """
    if copy.target.suffix.lower() != ".csv":  # the engine takes a file's separator from its suffix (.tsv: tab)
        copy.target = copy.target.with_name(f"{copy.target.name}.csv")  # p.tsv -> p.tsv.csv: no other input's name
    with copy.original.open(encoding="utf-8-sig", newline="") as fh, copy.open() as out:
        rows, writer = csv.reader(fh, delimiter=delimiter), csv.writer(out)
        first = next(rows, None)
        renamed: list[str] = []
        raw = first
        if first is not None and repeats:
            rows = (r for r in rows if r != raw)
        if first is not None:
            if header is not None and len(header) == len(first):
                renamed = [f"{a!r} as {b!r}" for a, b in zip(first, header) if a != b]
                first = header
            writer.writerow(first)
        writer.writerows(rows)
    what = [w for w, on in ((f"{delimiter!r} as separator", delimiter != ","), ("a byte-order mark", bom),
                            ("header names with white space at their ends (read "
                             + ", ".join(renamed) + ")", bool(renamed)),
                            (f"{repeats} repeat(s) of its header line", bool(repeats))) if on]
    return Finding("source", str(copy.original), f"CSV uses {' and '.join(what)}; the engine reads "
                   f"a comma-separated UTF-8 copy: {copy.path}", expected="comma-separated UTF-8", severity="info")


def _strip_nulls(obj: Any) -> tuple[Any, int]:
    if isinstance(obj, dict):
        kept, n = {}, 0
        for k, v in obj.items():
            if v is None:
                n += 1
                continue
            kept[k], m = _strip_nulls(v)
            n += m
        return kept, n
    if isinstance(obj, list):
        items, n = [], 0
        for v in obj:
            if v is None:
                n += 1
                continue
            item, m = _strip_nulls(v)
            items.append(item)
            n += m
        return items, n
    return obj, 0


def json_copy(copy: EngineCopy, data: Any) -> Finding | None:
    """Write a copy of a JSON document without ``null`` members and items when it has any (a missing
    member and a null one carry the same information for RML: no value), else without its
    byte-order mark when it has one.

    Args:
        copy: the source's engine copy. data: the input's parsed content.
    Returns:
        A ``warning`` naming the number of nulls removed, an ``info`` for the byte-order mark,
        or ``None`` when the engine reads the input itself.
    """
    cleaned, removed = _strip_nulls(data)
    if removed:
        target = copy.write(json_numbers.dumps(cleaned, ensure_ascii=False, indent=1))
        return Finding("json-repair", str(copy.original), f"{removed} null value(s) removed in a copy for the engine: "
                       f"Morph-KGC 2.10 drops every value of a JSON object that has a null member; the engine reads "
                       f"{target}", column="null", value=str(removed), expected="no null members", severity="warning")
    with copy.original.open("rb") as fh:
        if fh.read(3) != b"\xef\xbb\xbf":
            return None
    target = copy.write(copy.original.read_bytes()[3:])
    return Finding("source", str(copy.original), f"JSON starts with a byte-order mark; the engine reads a copy "
                   f"without it: {target}", expected="UTF-8 without a byte-order mark", severity="info")


#: RML-IO compressions (local names of ``rml:gzip`` ...) -> how they unpack.
COMPRESSIONS = {"gzip": "gzip", "zip": "zip", "tarxz": "tar", "targz": "tar", "tarbz2": "tar", "xz": "xz",
                "bzip2": "bz2", "none": None}


#: Suffixes of JSON Lines files (https://jsonlines.org/; NDJSON): one JSON value a line.
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")


def is_json_lines(path: Path) -> bool:
    """Whether ``path`` is named as a JSON Lines file (:data:`JSON_LINES_SUFFIXES`)."""
    return Path(path).suffix.lower() in JSON_LINES_SUFFIXES


def parse_json_lines(text: str) -> list:
    """The values of a JSON Lines text, one a line, in order (blank lines skipped).

    Raises:
        json.JSONDecodeError: a line is not one JSON value; its position is in the whole text, so
            the message gives the file's line and column.
    """
    records, offset, decoder = [], 0, json_numbers.decoder()
    for line in text.splitlines(keepends=True):
        if line.strip():
            start = offset + (len(line) - len(line.lstrip()))
            value, end = decoder.raw_decode(text, start)
            if text[end:offset + len(line)].strip():
                raise json.JSONDecodeError("Extra data on the line (JSON Lines: one JSON value a line)", text, end)
            records.append(value)
        offset += len(line)
    return records


def json_lines_copy(original: Path, folder: Path | None) -> tuple[Path, Finding, list[int]]:
    """A JSON copy of a JSON Lines file: the array of its lines' values (:func:`parse_json_lines`),
    which the engine and the profilers read with the iterator ``$[*]``.

    Args:
        original: the JSON Lines file (UTF-8). folder: where the copy goes (``None``: a temporary
            folder, :func:`scratch_folder`).
    Returns:
        ``(copy, info finding naming it, the 1-based line of the file each value of the array comes
        from)``; the copy is ``<stem>.<hash>.json``.
    Raises:
        json.JSONDecodeError: a line is not one JSON value (the file's line and column).
        OSError, UnicodeDecodeError: the file cannot be read as UTF-8.
    """
    text = Path(original).read_text(encoding="utf-8-sig")
    records = parse_json_lines(text)
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]  # as parse_json_lines skips them
    digest = hashlib.sha1(str(Path(original).resolve()).encode("utf-8")).hexdigest()[:8]
    copy = EngineCopy(Path(original), folder, f"{Path(original).stem}.{digest}.json")
    target = copy.write(json_numbers.dumps(records, ensure_ascii=False))
    return target, Finding("source", str(original), f"JSON Lines: {len(records)} record(s), one a line; the engine "
                           f"reads them as a JSON array: {target}", expected="JSON", severity="info"), lines


#: Leading bytes of the compressed formats -> their RML-IO compression (a tar inside: by the name).
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bzip2"), (b"PK\x03\x04", "zip"))
_TARRED = {"gzip": "targz", "xz": "tarxz", "bzip2": "tarbz2"}


def compression_of(path: Path) -> str | None:
    """The RML-IO compression (a key of :data:`COMPRESSIONS`) of the file ``path`` by its leading
    bytes (gzip, xz, bzip2, zip; ``targz``/``tarxz``/``tarbz2`` when its name ends ``.tar.*``/``.tgz``),
    ``None`` for a plain or unreadable file."""
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return None
    kind = next((k for magic, k in _MAGIC if head.startswith(magic)), None)
    if kind in _TARRED and re.search(r"\.(tar\.\w+|tgz)$", Path(path).name, flags=re.IGNORECASE):
        return _TARRED[kind]
    return kind


def _unpack(path: Path, kind: str | None) -> tuple[bytes, str]:
    """The bytes of the one file inside ``path`` and its name (the archive's member, or the file
    name without the compression suffix)."""
    stem = re.sub(r"(\.tar)?\.(gz|gzip|zip|xz|bz2|tgz)$", "", path.name, flags=re.IGNORECASE)
    if kind is None:
        return path.read_bytes(), path.name
    if kind == "zip":
        with zipfile.ZipFile(path) as z:
            files = [n for n in z.namelist() if not n.endswith("/")]
            if "[Content_Types].xml" in files or "mimetype" in files:  # ECMA-376 / ODF package: a document
                raise InputError("a spreadsheet or office document (a zip package of several parts), not a "
                                 "compressed data file; save the sheet as CSV UTF-8 and list the .csv file", path=path)
            if len(files) != 1:
                raise InputError(f"zip archive holds {len(files)} files, a logical source must be one", path=path)
            return z.read(files[0]), Path(files[0]).name
    if kind == "tar":
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            if len(members) != 1:
                raise InputError(f"tar archive holds {len(members)} files, a logical source must be one", path=path)
            return tar.extractfile(members[0]).read(), Path(members[0].name).name
    opener = {"gzip": gzip.decompress, "xz": lzma.decompress, "bz2": bz2.decompress}[kind]
    return opener(path.read_bytes()), stem


def decoded_copy(original: Path, compression: str | None, encoding: str | None, folder: Path | None) -> tuple[Path, Finding]:
    """A plain UTF-8 copy of a compressed and/or encoded source (RML-IO ``rml:compression``,
    ``rml:encoding``), which the engine reads: it reads uncompressed UTF-8 files only.

    Args:
        original: the source file. compression: local name of the RML-IO compression
            (``gzip``, ``zip``, ``tarxz``, ``targz``; ``None``/``none``: not compressed).
        encoding: a Python codec name (``utf-16``; ``None``: UTF-8). folder: where the copy goes
            (``None``: a temporary folder, :func:`scratch_folder`).
    Returns:
        ``(copy, info finding naming it)``; the copy is named after the file inside
        (``Friends.json.gz`` -> ``Friends.<hash>.json``).
    Raises:
        InputError: the file is not in that compression or encoding, or an archive holds more
            than one file (message names the file).
    """
    kind = COMPRESSIONS.get((compression or "none").lower(), "unknown")
    if kind == "unknown":
        raise InputError(f"compression {compression!r} is not one kgc reads ({', '.join(sorted(COMPRESSIONS))})",
                         path=original)
    try:
        data, name = _unpack(original, kind)
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError) as exc:
        raise InputError(f"not a {compression} file: {exc}", path=original) from exc
    wide = (encoding or "").lower().replace("_", "-").startswith(("utf-16", "utf-32"))
    if wide and data and b"\x00" not in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16/32 text has a NUL byte in every character below U+0100 (every ASCII digit, comma and
        # line break); bytes without one are an 8-bit file that decoding would turn into CJK mojibake
        try:
            data.decode("utf-8")
            actual = "the bytes read as UTF-8"
        except UnicodeDecodeError:
            actual = "the bytes are an 8-bit encoding (Latin-1?)"
        raise InputError(f"not {encoding} text as the mapping declares (rml:encoding): no byte-order mark and no NUL "
                         f"byte; {actual} (expected: {encoding} text, or the file's own encoding declared)",
                         path=original)
    try:
        text = data.decode(encoding or "utf-8-sig")
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"not {encoding or 'UTF-8'} text: {exc}", path=original) from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    digest = hashlib.sha1(str(original.resolve()).encode("utf-8")).hexdigest()[:8]
    stem, dot, suffix = name.partition(".")
    copy = EngineCopy(original, folder, f"{stem}.{digest}{dot}{suffix}")
    target = copy.write(text)
    what = " and ".join(w for w in (f"{compression}-compressed" if kind else "", f"{encoding}-encoded" if encoding else "")
                        if w)
    return target, Finding("source", str(original), f"the source is {what}; the engine reads a decoded UTF-8 copy: "
                           f"{target}", expected="uncompressed UTF-8", severity="info")


def xml_utf8_copy(copy: EngineCopy, encoding: str) -> Finding:
    """A UTF-8 copy of an XML file in another declared encoding, its declaration saying UTF-8.

    Args:
        copy: the source's engine copy. encoding: the encoding the input declares.
    Returns:
        An ``info`` finding naming the copy.
    Raises:
        UnicodeDecodeError, LookupError: the bytes are not in the declared encoding, or the
            encoding is unknown.
    """
    text = copy.path.read_bytes().decode(encoding)
    target = copy.write(re.sub(r"""(<\?xml[^>]*?encoding\s*=\s*["'])[^"']+""", r"\g<1>UTF-8", text, count=1))
    return Finding("source", str(copy.original), f"XML declared in {encoding}; the engine reads a UTF-8 copy: {target}",
                   expected="UTF-8 (Morph-KGC 2.10 reads XML as UTF-8 whatever the declaration says)",
                   severity="info")


def declare_prefixes(copy: EngineCopy) -> list[Finding]:
    """Declare the undeclared namespace prefixes of an XML file on its root, in the copy.

    Args:
        copy: the source's engine copy (read from its current file; written when a prefix is missing).
    Returns:
        One ``warning`` per declared prefix: one of :data:`KNOWN_XML_NAMESPACES` gets its namespace,
        an unknown prefix ``urn:undeclared:<prefix>`` so the document parses. Both are repairs kgc
        makes (the run goes on with them), so neither is an error.
    """
    path = copy.path
    text = path.read_text(encoding="utf-8")
    missing = undeclared_prefixes(text)
    if not missing:
        return []
    findings = []
    decls: dict[str, str] = {}
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
                                    column="namespace", value=p, expected=f"a declaration xmlns:{p}=\"...\" on the "
                                    "root element", severity="warning"))
        decls[p] = ns
    repaired = declare_on_root(text, decls)
    if repaired is not None:
        copy.write(repaired)
    return findings


def bind_default_namespaces(copy: EngineCopy, root: etree._Element) -> tuple[dict[str, str], list[Finding]]:
    """Bind the default namespaces of a parsed XML document to prefixes (see
    :func:`~pipeline.sources.namespaces.default_namespace_prefixes`) and write the copy declaring
    the prefixes the document lacks, so the engine resolves prefixed iterators and references.

    Returns:
        ``({namespace URI: prefix}, findings)``: an ``info`` per prefix declared in the copy.
    """
    defaults = default_namespace_prefixes(root)
    new = {p: uri for uri, p in defaults.items() if p not in (root.nsmap or {}) or root.nsmap[p] != uri}
    if not new:
        return defaults, []
    text = declare_on_root(copy.path.read_text(encoding="utf-8"), new)
    if text is None:
        return defaults, []
    target = copy.write(text)
    return defaults, [Finding("xml-repair", str(copy.original), f"default namespace <{uri}> bound to the prefix '{p}:' "
                              f"for iterators and references (XPath 1.0 has no default element namespace); the "
                              f"engine reads a copy declaring it: {target}", column="namespace", value=uri,
                              expected="namespaced paths", candidate=f"{p}:", severity="info")
                      for p, uri in new.items()]


def one_prefix_per_namespace(copy: EngineCopy, tree: etree._ElementTree, prefixes: dict[str, str],
                             namespaces: dict[str, str], rebound: list) -> list[Finding]:
    """Write the copy with every element and attribute named by its namespace's one prefix, all declared
    on the root, when the document binds a prefix to several namespaces.

    Morph-KGC 2.10 collects a document's declarations into one map, the last binding of a prefix
    winning, and evaluates every iterator and reference with it: ``d:title`` then selects the elements
    of the namespace ``d`` was declared for last, and those of the first are lost. The copy holds the
    same elements (same namespace URIs and local names, Namespaces in XML 1.0 section 6), written with
    the prefixes of :func:`~pipeline.sources.namespaces.element_prefixes`, so the engine's map and the
    references agree. A document whose every prefix names one namespace is left as it is.

    Args:
        copy: the source's engine copy. tree: the document as parsed from ``copy.path``.
        prefixes: namespace URI -> its prefix. namespaces: prefix -> URI, every prefix a reference may
            use (declared on the copy's root too). rebound: the prefixes bound to several URIs, as
            :func:`~pipeline.sources.namespaces.element_prefixes` returns them.
    Returns:
        One ``warning`` per rebound prefix, naming the URIs, their lines and the prefix each is read with.
    """
    if not rebound:
        return []
    root = tree.getroot()
    # the prefix of each URI first: lxml writes a name with the first prefix of its map bound to the URI
    nsmap = {p: uri for uri, p in prefixes.items()}
    nsmap.update((p, uri) for p, uri in namespaces.items() if p not in nsmap)
    default = next((uri for p, uri in (root.nsmap or {}).items() if p is None), None)
    if default is not None:
        nsmap[None] = default

    def rebuild(src: etree._Element, parent: etree._Element | None) -> etree._Element:
        if parent is None:
            el = etree.Element(src.tag, dict(src.attrib), nsmap=nsmap)
        elif isinstance(src.tag, str):
            el = etree.SubElement(parent, src.tag, dict(src.attrib))
        else:  # a comment or a processing instruction: kept, as text the engine skips
            el = etree.Comment(src.text) if isinstance(src, etree._Comment) else etree.PI(src.target, src.text)
            parent.append(el)
        el.text, el.tail = src.text, src.tail
        for child in src if isinstance(src.tag, str) else ():
            rebuild(child, el)
        return el

    new = rebuild(root, None)
    new.tail = None
    target = copy.write(etree.tostring(new, xml_declaration=True, encoding="UTF-8"))
    out = []
    for p, seen in rebound:
        said = ", ".join(f"<{uri}> (line {line}, read as '{prefixes[uri]}:')" for uri, line in seen)
        out.append(Finding("xml-repair", str(copy.original), f"the prefix '{p}:' is bound to {len(seen)} namespaces: "
                           f"{said}; an element's name is its namespace and local name (Namespaces in XML 1.0, "
                           f"section 6), so references name each namespace by its own prefix; the engine reads a "
                           f"copy declaring one prefix per namespace: {target}", column="namespace", value=p,
                           expected="one namespace per prefix", severity="warning"))
    return out


#: A path step that keeps the node it reaches but none of its members (the route to a record).
_NODE = None


def _prune(obj: Any, paths: list[tuple]) -> Any:
    """``obj`` cut to the members on one of ``paths``, without ``null`` members or items.

    Args:
        obj: a parsed JSON value (not modified).
        paths: steps from ``obj``: a key (``str``; ``"*"``: every key), a list index (``int``:
            that item only) or :data:`_NODE` (keep the node, none of its members). A key step
            reaching a list applies to every item (RML references cross arrays); an empty path
            keeps the whole value as it is.
    Returns:
        A new value (``obj`` itself when a path keeps it whole, or when it is a scalar).
    """
    if any(not p for p in paths):
        return obj
    if isinstance(obj, list):
        through = [p for p in paths if not isinstance(p[0], int)]
        by_index: dict[int, list[tuple]] = {}
        for p in paths:
            if isinstance(p[0], int):
                by_index.setdefault(p[0], []).append(p[1:])
        return [_prune(x, through + by_index.get(i, [])) for i, x in enumerate(obj) if x is not None]
    if not isinstance(obj, dict):
        return obj
    by_key: dict[str, list[tuple]] = {}
    for p in paths:
        if isinstance(p[0], str):
            by_key.setdefault(p[0], []).append(p[1:])
    every = by_key.get("*", [])
    out = {}
    for k, v in obj.items():
        sub = by_key.get(k, []) + every if k != "*" else by_key.get(k, [])
        if sub and v is not None:
            out[k] = _prune(v, sub)
    return out


_REF_STEP = re.compile(r"""\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]|\[[^\]]*\]|\.?([^.\[\]]+)""")
_FILTER_KEY = re.compile(r"""@\.([^.\s\[\]()=!<>&|]+)|@\[\s*['"]([^'"]+)['"]\s*\]""")


def _ref_steps(ref: str) -> tuple[str, ...]:
    """The keys a JSONPath reference reads from its record (``items[*].name`` -> ``items``, ``name``;
    a step into an array reads every item). ``()`` (keep the record whole) for the record itself
    (``$``, ``@``) and for paths whose keys cannot be listed (filters, ``..``)."""
    text = re.sub(r"^[$@]", "", ref.strip())
    if "[?" in text or ".." in text:
        return ()
    steps = []
    for m in _REF_STEP.finditer(text):
        key = next((g for g in m.groups() if g is not None), None)
        if key is not None:  # an index, slice or wildcard in brackets: every item is read
            steps.append(key)
    return tuple(steps)


def _record_paths(data: Any, iterator: str) -> list[tuple] | None:
    """The location of each record the engine's JSONPath library (jsonpath-python, which
    Morph-KGC 2.10 evaluates iterators with) selects: keys and list indices from the root;
    ``None`` when a location cannot be followed back in ``data``."""
    if iterator.strip() == "$":
        return [()]
    out = []
    for text in JSONPath(iterator).parse(data, result_type="PATH"):
        node, steps = data, []
        for step in text.split(";")[1:]:
            if isinstance(node, list) and step.isdigit() and int(step) < len(node):
                steps.append(int(step))
                node = node[int(step)]
            elif isinstance(node, dict) and step in node:
                steps.append(step)
                node = node[step]
            else:  # a key holding ';' is ambiguous in the library's location text
                return None
        out.append(tuple(steps))
    return out


def _at(data: Any, location: tuple) -> Any:
    for step in location:
        data = data[step]
    return data


def _rebuilt(node: Any, changes: list[tuple[tuple, Any]], depth: int = 0) -> Any:
    """``node`` with the value at each location of ``changes`` (``(location, value)``, locations
    from the root, their first ``depth`` steps leading to ``node``) replaced; the lists and objects
    on the way are copied, ``node`` itself is not modified."""
    for location, value in changes:
        if len(location) == depth:
            return value
    by_step: dict[Any, list] = {}
    for location, value in changes:
        by_step.setdefault(location[depth], []).append((location, value))
    out = list(node) if isinstance(node, list) else dict(node)
    for step, below in by_step.items():
        out[step] = _rebuilt(node[step], below, depth + 1)
    return out


def _pruned_for(data: Any, iterator: str, refs: set[str]) -> Any:
    """A copy of ``data`` whose records under ``iterator`` keep only the keys ``refs`` read, plus
    those the iterator's own filters test (``[?(@.type == "a")]``), without nulls; everything
    above the records is kept, so every filter of the iterator selects the same records.

    Returns:
        The pruned document, or ``data`` itself when the records cannot be located or the pruned
        document would not give the engine the same records (the engine then reads the input).
    """
    try:
        located = _record_paths(data, iterator)
    except Exception:  # noqa: BLE001 - an iterator the library cannot evaluate: the engine reports it
        return data
    if not located:
        return data
    reads = {_ref_steps(r) for r in refs}
    reads |= {(a or b,) for a, b in _FILTER_KEY.findall(iterator)}
    reads.add((_NODE,))
    records = set(located)
    groups: dict[tuple, list[tuple]] = {}  # outermost record -> paths from it (records may nest: `..`)
    for loc in located:
        top = next(loc[:k] for k in range(len(loc) + 1) if loc[:k] in records)
        groups.setdefault(top, []).extend(loc[len(top):] + r for r in reads)
    out = _rebuilt(data, [(top, _prune(_at(data, top), paths)) for top, paths in groups.items()])
    try:
        same = _record_paths(out, iterator) == located
    except Exception:  # noqa: BLE001
        same = False
    return out if same else data


#: predicates whose objects are no term maps of the TriplesMap (other TriplesMaps, sources, terms)
_NOT_TERM_MAPS = frozenset({"parentTriplesMap", "logicalSource", "predicate", "class", "datatype", "constant",
                            "termType", "type", "language", "graph", "function", "parameter"})


class _Reads:
    """What the TriplesMaps over one JSON file with one iterator read: the references, and the
    logical sources (node, source predicate) that name the file with that iterator."""

    def __init__(self) -> None:
        self.refs: set[str] = set()
        self.sources: set[tuple] = set()


def _mapping_references(rml) -> dict[str, dict[str, _Reads]]:
    """JSON source path -> iterator (``$`` when none) -> what the TriplesMaps on it read.

    Each iterator of a file is kept apart: the records of ``$.orders[*]`` and of
    ``$.orders[*].items[*]`` are different objects, and a reference is read from its own
    TriplesMap's records (the parent references of a join from the parent's).
    """
    out: dict[str, dict[str, _Reads]] = {}
    for ns in ("http://w3id.org/rml/", "http://semweb.mmlab.be/ns/rml#"):
        src_p, it_p, ls_p = URIRef(ns + "source"), URIRef(ns + "iterator"), URIRef(ns + "logicalSource")

        def reads_of(ls) -> _Reads | None:
            src = rml.value(ls, src_p)
            if src is None or not isinstance(src, Literal) or Path(str(src)).suffix.lower() not in FORMATS["json"]:
                return None
            it = rml.value(ls, it_p)
            reads = out.setdefault(str(src), {}).setdefault(str(it) if it is not None else "$", _Reads())
            reads.sources.add((ls, src_p))
            return reads

        for tm, ls in rml.subject_objects(ls_p):
            reads = reads_of(ls)
            if reads is None:
                continue
            todo, seen = [tm], set()
            while todo:  # every term map below the TriplesMap, not into parent TriplesMaps
                node = todo.pop()
                if node in seen:
                    continue
                seen.add(node)
                for p, o in rml.predicate_objects(node):
                    name = str(p).rsplit("/", 1)[-1].rsplit("#", 1)[-1]
                    if name in ("reference", "child"):
                        reads.refs.add(str(o))
                    elif name == "template":
                        reads.refs.update(re.findall(r"(?<!\\)\{((?:\\.|[^{}])+)\}", str(o)))
                    elif name not in _NOT_TERM_MAPS and not isinstance(o, Literal):
                        todo.append(o)  # term maps may be named (an IRI RefObjectMap), not only blank nodes
        for om, parent in rml.subject_objects(URIRef(ns + "parentTriplesMap")):
            ls = rml.value(parent, ls_p)
            reads = reads_of(ls) if ls is not None else None
            if reads is not None:
                for jc in rml.objects(om, URIRef(ns + "joinCondition")):
                    pref = rml.value(jc, URIRef(ns + "parent"))
                    if pref is not None:
                        reads.refs.add(str(pref))
    return out


def json_engine_copies(rml, base: Path, folder: Path) -> list[Finding]:
    """Point the JSON logical sources of an RML graph at engine copies that Morph-KGC reads whole (in place).

    Morph-KGC 2.10 normalises the records of a JSON source into a table over every key below
    the referenced top-level keys and drops any record with an empty cell, so a record loses all
    its values when it has a ``null`` member or lacks a key another record has. The copy keeps,
    per record, only the keys the mapping's references read, without nulls; a record that lacks a
    referenced key still loses that TriplesMap's triples (no value: no triple, as in RML).

    Each iterator over a file gets its own copy, cut to the references of the TriplesMaps with
    that iterator (``<stem>.engine.json`` for a file read with one iterator,
    ``<stem>.<hash of the iterator>.engine.json`` for several), so that no iterator's records
    lose a key its own references read, whatever the order the mapping lists them in.

    Args:
        rml: an rdflib graph of an RML mapping (``rml:`` or legacy RML vocabulary).
        base: folder relative source paths are resolved against first (then the working folder).
        folder: folder for the copies (see :func:`copies_folder`).
    Returns:
        One finding per copy that differs from its input; remote or missing sources are left alone.
    """
    findings: list[Finding] = []
    for src, iterators in sorted(_mapping_references(rml).items()):
        path = next((p for p in (base / src, Path(src)) if p.is_file()), None)
        if path is None or path.name.endswith(DERIVED_SUFFIX):
            continue  # a derived source is written for the engine already
        lines = is_json_lines(path)  # the engine reads JSON only: the lines' values as an array
        try:
            raw = path.read_bytes()
            data = (parse_json_lines if lines else json_numbers.loads)(raw.decode("utf-8-sig"))
        except Exception:  # unreadable JSON: the load-time check reports it (checks.check_logical_sources)
            continue
        bom = raw.startswith(b"\xef\xbb\xbf")  # the engine's json.load refuses a byte-order mark
        for iterator, reads in sorted(iterators.items()):
            pruned = _pruned_for(data, iterator, reads.refs) if reads.refs else data
            if not bom and not lines and (pruned is data or pruned == data):
                continue
            digest = "" if len(iterators) == 1 else "." + hashlib.sha1(iterator.encode("utf-8")).hexdigest()[:8]
            copy = EngineCopy(path, folder, name=f"{path.stem}{digest}.engine.json")
            target = copy.write(json_numbers.dumps(pruned, ensure_ascii=False, indent=1)).resolve()
            for ls, pred in reads.sources:
                rml.set((ls, pred, Literal(str(target))))
            findings.append(Finding(
                "json-repair", str(path), f"the engine reads {target}"
                + (f" for the iterator {iterator}" if len(iterators) > 1 else "")
                + ": only the keys the mapping references, without nulls (Morph-KGC 2.10 drops every value of a "
                "record that has a null or missing member)"
                + (", as a JSON array of its lines' values (JSON Lines)" if lines else "")
                + (", without the byte-order mark (which the engine's JSON reader refuses)" if bom else ""),
                column="source", value=src, expected="records the engine reads whole", severity="info"))
    return findings
