"""Read an RDF file in the syntax its extension names (gold graphs, ``kgc score --kg``).

A gold KG may come from any tool, so it may be N-Triples, Turtle, N-Quads,
RDF/XML or JSON-LD. The syntax is taken from the file extension (like
rdflib's ``guess_format``, but with a closed list so that an unknown
extension is a clear input error instead of a parser guessing). Quads
(``.nq``, ``.trig``) are read as the union of their graphs: scoring compares
triples.
"""
from __future__ import annotations

import codecs
import io
import json
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pyoxigraph
from rdflib import Dataset, Graph, plugin
from rdflib.parser import InputSource, Parser
from rdflib.plugins.parsers.notation3 import RDFSink, SinkParser, TurtleParser
from rdflib.plugins.parsers.nquads import NQuadsParser
from rdflib.plugins.parsers.ntriples import NTGraphSink, NTParser, W3CNTriplesParser

from pipeline.errors import InputError

__all__ = ["RDF_FORMATS", "line_chunks", "rdf_format", "load_graph", "parse_error", "syntax_hint", "ntriples_copy", "SYNTAX_NAMES",
           "locate_parse_error", "TURTLE", "parse_turtle", "NTRIPLES", "NQUADS", "RemoteContextError", "remote_contexts",
           "refuse_remote_contexts"]

#: file extension -> rdflib parser name
RDF_FORMATS: dict[str, str] = {
    ".nt": "nt", ".ttl": "turtle", ".n3": "n3", ".nq": "nquads", ".trig": "trig",
    ".rdf": "xml", ".owl": "xml", ".xml": "xml", ".jsonld": "json-ld", ".json": "json-ld",
}
_QUADS = {"nquads", "trig"}
_LINEAR = {"nt": "kgc-nt", "nquads": "kgc-nquads"}  # rdflib's line-based syntaxes as kgc reads them (NTRIPLES, NQUADS)


class _BaseWithoutFragment(SinkParser):
    """rdflib's Turtle/N3 reader holding its base IRI without the fragment.

    rdflib's ``join`` appends a reference's fragment to the whole base, so ``<#Crop>`` under
    ``@base <http://example.com/ns#>`` becomes ``http://example.com/ns##Crop`` (an illegal IRI). RFC 3986
    section 5.2.2 never keeps the base's fragment (``T.fragment = R.fragment``; path, query and
    authority ignore it), so resolving against the base without it gives the same IRIs the RFC does:
    ``http://example.com/ns#Crop``, and ``<>`` is ``http://example.com/ns``.
    """

    @property
    def _baseURI(self) -> str | None:  # noqa: N802 - rdflib's attribute name
        return self.__dict__.get("_kgc_base")

    @_baseURI.setter
    def _baseURI(self, value: str | None) -> None:  # noqa: N802
        self.__dict__["_kgc_base"] = value.split("#", 1)[0] if value else value


class Rfc3986TurtleParser(TurtleParser):
    """rdflib's Turtle parser (plugin :data:`TURTLE`) resolving relative IRIs as RFC 3986 does."""

    def parse(self, source: InputSource, graph: Graph, encoding: str | None = "utf-8",  # type: ignore[override]
              turtle: bool = True) -> None:
        """Parse ``source`` into ``graph`` (rdflib's ``TurtleParser.parse`` with the base kept without fragment).

        Raises:
            rdflib.plugins.parsers.notation3.BadSyntax: not Turtle (its ``lines`` count lines before the error).
            rdflib.exceptions.ParserError: an encoding other than UTF-8 was given.
        """
        if encoding not in (None, "utf-8"):
            return super().parse(source, graph, encoding, turtle)  # rdflib's error for it
        parser = _BaseWithoutFragment(RDFSink(graph), turtle=turtle,
                                      baseURI=graph.absolutize(source.getPublicId() or source.getSystemId() or ""))
        parser.loadStream(source.getCharacterStream() or source.getByteStream())
        for prefix, namespace in parser._bindings.items():
            graph.bind(prefix, namespace)


#: the rdflib parser name of :class:`Rfc3986TurtleParser`, for ``Graph.parse(..., format=TURTLE)``
TURTLE = "kgc-turtle"
plugin.register(TURTLE, Parser, __name__, "Rfc3986TurtleParser")


_EOL = re.compile(r"\r\n|\r|\n")  # N-Triples 1.1 EOL: [#xD#xA]+ (CR LF, CR or LF; an empty line is no statement)
_CHUNK = 1 << 20  # characters read at a time


class _LinearLines:
    """``readline`` of rdflib's N-Triples and N-Quads parsers in time linear in the line's length.

    rdflib's own reads 2048 characters at a time and matches its line pattern from the start of
    the buffer again after each read, so a line of n characters costs n^2/2048 character steps:
    one 2 MB literal took 30 s, 20 MB more than ten minutes, outside every check's time limit.
    This one searches only the characters not yet searched; lines end where rdflib's end (CR LF,
    CR or LF; N-Triples escapes every line break inside a term), and a last line without its end
    is read, as rdflib reads it.
    """

    def readline(self) -> str | None:  # rdflib's contract: the line without its end, None at the end
        parts: list[str] = []
        tail = self.buffer or ""
        while True:
            m = _EOL.search(tail)
            if m and not (m.group() == "\r" and m.end() == len(tail)):  # a CR ending the text may start a CR LF
                self.buffer = tail[m.end():]
                return "".join(parts) + tail[:m.start()]
            more = self.file.read(_CHUNK)
            if not more:
                self.buffer = ""
                line = "".join(parts) + (tail[:m.start()] if m else tail)
                return line if m or (line and not line.isspace()) else None
            if m:  # the CR and what follows it are searched again together
                tail += more
            else:
                parts.append(tail)
                tail = more


class LinearNTriplesParser(_LinearLines, W3CNTriplesParser):
    """rdflib's N-Triples parser with :class:`_LinearLines`' line reader (same triples, same errors)."""


class LinearNQuadsParser(_LinearLines, NQuadsParser):
    """rdflib's N-Quads parser with :class:`_LinearLines`' line reader (same quads, same errors)."""


class LinearNTParser(NTParser):
    """rdflib's ``nt`` plugin (plugin :data:`NTRIPLES`) parsing with :class:`LinearNTriplesParser`."""

    @classmethod
    def parse(cls, source: InputSource, sink: Graph, **kwargs: Any) -> None:
        """Parse ``source`` into ``sink``; ``kwargs`` (``bnode_context``, ``skolemize``) as rdflib's.

        Raises:
            rdflib.exceptions.ParserError: a line that is no N-Triples statement ("Invalid line: ...").
        """
        f = source.getCharacterStream()
        if not f:
            b = source.getByteStream()
            f = b if isinstance(b, io.TextIOBase) else codecs.getreader("utf-8")(b)
        LinearNTriplesParser(NTGraphSink(sink)).parse(f, **kwargs)
        f.close()


#: rdflib parser names of :class:`LinearNTParser` and :class:`LinearNQuadsParser`, for
#: ``Graph.parse(..., format=NTRIPLES)``: every N-Triples/N-Quads text kgc reads with rdflib goes through them
NTRIPLES = "kgc-nt"
NQUADS = "kgc-nquads"
plugin.register(NTRIPLES, Parser, __name__, "LinearNTParser")
plugin.register(NQUADS, Parser, __name__, "LinearNQuadsParser")


def parse_turtle(source: str | Path | None = None, *, data: str | None = None,
                 public_id: str | None = None) -> Graph:
    """A Turtle document read with relative IRIs resolved as RFC 3986 says (:class:`Rfc3986TurtleParser`):
    every mapping, shape and gold graph kgc reads in Turtle goes through here.

    Args:
        source: the file (or ``data``: its text). public_id: the document's IRI, the base before any
            ``@base`` (default: the file's location).
    Returns:
        A new :class:`rdflib.Graph`.
    Raises:
        OSError: the file cannot be read. rdflib.plugins.parsers.notation3.BadSyntax: not Turtle
            (:func:`parse_error` gives its line and reason).
    """
    return Graph().parse(source=None if source is None else str(source), data=data, format=TURTLE,
                         publicID=public_id)


class RemoteContextError(InputError):
    """A JSON-LD document whose ``@context`` (or a context's ``@import``) is a remote document: kgc runs
    offline and never fetches it, so the document cannot be read. Not evidence that the file is not
    JSON-LD: a check of it is *not run*, never failed.

    Attributes:
        urls: the remote context IRIs, in document order, each once.
    """

    def __init__(self, message: str, *, path: object = None, urls: list[str] | None = None) -> None:
        super().__init__(message, path=path)
        self.urls = list(urls or [])


def remote_contexts(path: str | Path) -> list[str]:
    """The remote documents a JSON-LD file's contexts refer to: every string value (alone or in an array)
    of an ``@context`` member anywhere in the document (the root, a node, a scoped context of a term
    definition) and of an ``@import`` (JSON-LD 1.1, sections 3.1 and 4.1.10), resolved against the file's
    location, whose scheme is not ``file``. rdflib's JSON-LD parser dereferences each of them (JSON-LD
    1.1 API, 9.4 LoadDocumentCallback) over the network; a context file beside the document is local.

    Args:
        path: a JSON-LD file.
    Returns:
        The absolute IRIs, in document order, each once; ``[]`` when there is none or the file is not
        JSON (the parser then says why it cannot read it).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    base = path.resolve().as_uri()
    found: dict[str, None] = {}
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            for key, value in node.items():
                if key in ("@context", "@import"):
                    for ref in value if isinstance(value, list) else [value]:
                        if isinstance(ref, str) and urlsplit(urljoin(base, ref)).scheme != "file":
                            found.setdefault(urljoin(base, ref))
            stack.extend(reversed(list(node.values())))
    return list(found)


def refuse_remote_contexts(path: str | Path, what: str = "RDF file") -> None:
    """Raise :class:`RemoteContextError` when the JSON-LD file ``path`` names a remote context
    (:func:`remote_contexts`): called before rdflib reads any JSON-LD, so that nothing is downloaded.

    Raises:
        RemoteContextError: naming the file, the first remote context and how to give it locally.
    """
    urls = remote_contexts(path)
    if urls:
        more = f" (and {len(urls) - 1} more)" if len(urls) > 1 else ""
        raise RemoteContextError(
            f"{what}: its @context {urls[0]}{more} is a remote document, which kgc does not fetch (it runs "
            f"offline); save the context as a local file and name that file in @context", path=path, urls=urls)


def rdf_format(path: str | Path) -> str | None:
    """rdflib parser name for ``path``'s extension (case-insensitive), ``None`` when unknown."""
    return RDF_FORMATS.get(Path(path).suffix.lower())


def load_graph(path: str | Path, what: str = "RDF file") -> Graph:
    """Parse an RDF file by its extension.

    Args:
        path: the file (``.nt .ttl .n3 .nq .trig .rdf .owl .xml .jsonld .json``).
        what: how error messages name the file (``"gold graph"``).
    Returns:
        A :class:`rdflib.Graph` with every triple (for quad syntaxes, of every graph).
    Raises:
        InputError: unknown extension (lists the known ones), missing file, or a syntax
            error (the parser's message, with the format it was read as).
        RemoteContextError: a JSON-LD file whose context is a remote document (never fetched).
    """
    path = Path(path)
    fmt = rdf_format(path)
    if fmt is None:
        raise InputError(f"{what}: unknown RDF syntax for extension {path.suffix or '(none)'!r}; "
                         f"expected one of {' '.join(sorted(RDF_FORMATS))}", path=path)
    if not path.is_file():
        raise InputError(f"{what}: file not found", path=path)
    if fmt == "json-ld":
        refuse_remote_contexts(path, what)
    try:
        if fmt in _QUADS:
            ds = Dataset()
            ds.parse(path, format=_LINEAR.get(fmt, fmt))
            g = Graph()
            for s, p, o, _ in ds.quads((None, None, None, None)):
                g.add((s, p, o))
            return g
        return Graph().parse(path, format=TURTLE if fmt == "turtle" else _LINEAR.get(fmt, fmt))
    except Exception as exc:  # rdflib raises parser-specific types
        line, why = locate_parse_error(path, fmt, exc)
        raise InputError(f"{what}: not valid {SYNTAX_NAMES[fmt]}: {why}", path=path, line=line) from exc


def locate_parse_error(path: str | Path, fmt: str | None, exc: BaseException) -> tuple[int | None, str]:
    """The line and reason of a syntax error in an RDF file, for every syntax: the one path by which
    ontologies, gold graphs, shapes and KGs say where a file is broken.

    rdflib's N-Triples/N-Quads parsers report no line (and quote only the tail of the line); pyoxigraph's
    strict parsers do, so the file is read again by pyoxigraph for the line when rdflib gave none.

    Args:
        path: the file. fmt: the rdflib parser name it was read with (``None``: Turtle was tried).
        exc: what the parser raised.
    Returns:
        ``(line, reason)``: the 1-based line (``None`` when no parser tells), the reason on one line,
        with the column when known and a hint for OWL syntaxes rdflib cannot read.
    """
    line, why = parse_error(exc)
    if line is None and fmt in _OXIGRAPH:
        found = _oxigraph_error(Path(path), fmt)
        if found is not None:
            line, why = found
    return line, f"{why}{syntax_hint(path)}"


def _oxigraph_error(path: Path, fmt: str) -> tuple[int | None, str] | None:
    """``(line, reason)`` of pyoxigraph's parser on ``path``, ``None`` when it reads the file."""
    try:
        for _ in pyoxigraph.parse(str(path), _OXIGRAPH[fmt]):
            pass
    except SyntaxError as exc:
        return _oxigraph_reason(path, " ".join(str(exc).split()))
    except (OSError, ValueError):
        return None
    return None


def _oxigraph_reason(path: Path, text: str) -> tuple[int | None, str]:
    """pyoxigraph's ``... on line L at position P`` as ``(L, reason (column P))``; a line break met inside
    a string literal is said as an unterminated literal."""
    m = re.search(r" on line (\d+) at position (\d+)$", text)
    if not m:
        return None, text[:300]
    line, pos = int(m.group(1)), int(m.group(2))
    why = f"{text[:m.start()]} (column {pos})"
    if text.startswith("unexpected character '\\n'") or text.startswith("unexpected character '\n'"):
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for number, content in enumerate(fh, 1):
                    if number == line:
                        break
                else:
                    content = ""
        except OSError:
            content = ""
        quotes = [q.start() for q in re.finditer(r'(?<!\\)"', content[:pos])]
        if len(quotes) % 2:
            why = (f"unterminated string literal opened at column {quotes[-1] + 1} (expected: its closing \" on the "
                   "same line; a line break inside a literal is written \\n)")
    return line, why[:300]


def parse_error(exc: BaseException) -> tuple[int | None, str]:
    """One-line summary of an rdflib parser error.

    rdflib's Turtle/N3 ``BadSyntax`` prints several lines with a bytes dump of the
    input; users need the line and the reason.

    Args:
        exc: the exception a ``Graph.parse`` raised.
    Returns:
        ``(line, reason)``: the 1-based line when the parser reports one (Turtle's
        ``BadSyntax.lines`` counts newlines before the error, RDF/XML's SAX error
        its line), else ``None``; the reason on one line, at most 300 characters.
    """
    inner = exc.__cause__ or exc.__context__
    if inner is not None and "Could not guess RDF format" in str(exc):  # unknown suffix: Turtle was tried
        return parse_error(inner)
    if hasattr(exc, "_why") and isinstance(getattr(exc, "lines", None), int):  # notation3.BadSyntax
        return exc.lines + 1, f"{exc._why}"[:300]
    if hasattr(exc, "getLineNumber") and hasattr(exc, "getMessage"):  # xml.sax.SAXParseException
        return exc.getLineNumber(), f"{exc.getMessage()} (column {exc.getColumnNumber()})"
    text = " ".join(str(exc).split())
    return None, f"{type(exc).__name__}: {text}"[:300]


def syntax_hint(path: str | Path) -> str:
    """A hint when a file is in an RDF syntax rdflib cannot read (OWL functional syntax,
    OWL/XML, Manchester syntax), sniffed from its first 2,000 characters; ``""`` otherwise."""
    try:
        head = Path(path).read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return ""
    stripped = head.lstrip()
    if stripped.startswith(("Prefix(", "Ontology(")):
        return "; the file is in OWL functional syntax, which is not read: save it as Turtle or RDF/XML"
    if "<Ontology" in head and "http://www.w3.org/2002/07/owl#" in head and "rdf:RDF" not in head:
        return "; the file is in OWL/XML, which is not read: save it as Turtle or RDF/XML"
    if stripped.startswith(("Prefix:", "Ontology:")):
        return "; the file is in Manchester syntax, which is not read: save it as Turtle or RDF/XML"
    return ""


#: rdflib parser name -> the syntax's name in messages
SYNTAX_NAMES = {"nt": "N-Triples", "turtle": "Turtle", "n3": "N3", "nquads": "N-Quads", "trig": "TriG",
                "xml": "RDF/XML", "json-ld": "JSON-LD"}
#: the syntaxes pyoxigraph 0.3 parses (strict: RFC 3987 IRIs, BCP 47 language tags), by their MIME type
_OXIGRAPH = {"nt": "application/n-triples", "turtle": "text/turtle", "nquads": "application/n-quads",
             "trig": "application/trig", "xml": "application/rdf+xml"}


def ntriples_copy(path: str | Path, target: str | Path) -> str:
    """Write the triples of an RDF file (any syntax of :data:`RDF_FORMATS`) as N-Triples.

    N-Triples, Turtle, N-Quads, TriG and RDF/XML are read by pyoxigraph, whose parsers check
    IRIs (RFC 3987) and language tags (BCP 47) as they read; N3 and JSON-LD by rdflib, which
    does not, so the strict N-Triples check of the copy (SV2) finds those. Quads are read as
    the union of their graphs (graph names dropped).

    Args:
        path: the RDF file.
        target: the N-Triples file to write (its folder must exist).
    Returns:
        The syntax's name (``"Turtle"`` ...).
    Raises:
        InputError: unknown extension, or a syntax error, with the parser's line (and the
            column in the message) when it reports one.
        RemoteContextError: a JSON-LD file whose context is a remote document (never fetched).
    """
    path = Path(path)
    fmt = rdf_format(path)
    if fmt is None:
        raise InputError(f"unknown RDF syntax for extension {path.suffix or '(none)'!r}; "
                         f"expected one of {' '.join(sorted(RDF_FORMATS))}", path=path)
    name = SYNTAX_NAMES[fmt]
    if fmt not in _OXIGRAPH:
        load_graph(path, "KG").serialize(target, format="nt", encoding="utf-8")
        return name
    try:
        statements = pyoxigraph.parse(str(path), _OXIGRAPH[fmt])
        with open(target, "wb") as out:
            for st in statements:  # a quad's graph name is dropped: the KG is the union of its graphs
                out.write(f"{st.subject} {st.predicate} {st.object} .\n".encode("utf-8"))
    except (SyntaxError, OSError) as exc:
        if isinstance(exc, OSError) and getattr(exc, "filename", None):
            raise  # the file itself cannot be read: the CLI names it
        line, why = _oxigraph_reason(path, " ".join(str(exc).split()))
        raise InputError(f"not valid {name}: {why}", path=path, line=line) from exc
    if fmt in _TURTLE_FAMILY and path.stat().st_size <= _RELABEL_MAX_BYTES:
        _document_labels(path, fmt, Path(target))
    return name


#: Syntaxes whose blank node labels :func:`_document_labels` restores (``_:x`` tokens of Turtle and TriG).
_TURTLE_FAMILY = {"turtle", "trig"}
_RELABEL_MAX_BYTES = 50_000_000  # the file is read into memory once more
# the tokens of Turtle/TriG inside which ``_:`` is no blank node: long and short strings, IRIs, comments
_TURTLE_SKIP = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\'|"(?:[^"\\\n]|\\.)*"'
                          r"|'(?:[^'\\\n]|\\.)*'|<[^>\s]*>|#[^\n]*")
_BNODE_LABEL = re.compile(r"_:((?:[\w]|[\u00b7\u0300-\u036f\u203f-\u2040-])(?:[\w.\u00b7\u0300-\u036f\u203f-\u2040-]*[\w\u00b7\u0300-\u036f\u203f-\u2040-])?)")


def _document_labels(path: Path, fmt: str, target: Path) -> None:
    """Rewrite the N-Triples copy of a Turtle/TriG file so that its blank nodes carry the labels the
    document gives them (``_:madrid2``), and the ones it leaves anonymous (``[]``, collections) the
    stable names ``_:anon1``, ``_:anon2``... in order of first appearance.

    pyoxigraph names every blank node afresh (random ids, different at every run); RDF 1.1
    Concepts 3.4 makes blank node identifiers local to a document, so the document's label is the
    only name a user can look up. The document is parsed once more with each label written as an
    IRI of a namespace made for the call (a label is a term like an IRI, so the triples are the same);
    the copy's triples are then those of this parse with the IRIs turned back into labels.
    """
    text = path.read_text(encoding="utf-8-sig")
    mark = f"urn:uuid:{uuid.uuid4()}:"
    out, pos, used = [], 0, set()
    for m in re.finditer(f"{_TURTLE_SKIP.pattern}|{_BNODE_LABEL.pattern}", text):
        if m.group(0).startswith("_:"):
            out.append(text[pos:m.start()] + f"<{mark}{m.group(1)}>")
            pos = m.end()
            used.add(m.group(1))
    if not used and "[" not in text and "(" not in text:
        return  # no blank node can occur
    out.append(text[pos:])
    try:
        statements = list(pyoxigraph.parse(io.BytesIO("".join(out).encode("utf-8")), _OXIGRAPH[fmt]))
    except (SyntaxError, ValueError):
        return  # the rewrite is not the document (a token this scan misread): keep pyoxigraph's names
    fresh: dict[str, str] = {}

    def term(t: Any) -> str:
        if isinstance(t, pyoxigraph.BlankNode):
            if t.value not in fresh:
                n = len(fresh) + 1
                while f"anon{n}" in used:
                    n += 1
                fresh[t.value] = f"anon{n}"
                used.add(fresh[t.value])
            return f"_:{fresh[t.value]}"
        if isinstance(t, pyoxigraph.NamedNode) and t.value.startswith(mark):
            return f"_:{t.value[len(mark):]}"
        return str(t)

    with open(target, "wb") as fh:
        for st in statements:
            fh.write(f"{term(st.subject)} {st.predicate} {term(st.object)} .\n".encode("utf-8"))


def line_chunks(path: str | Path, size: int = 32 << 20):
    """The bytes of a line-based file (N-Triples, N-Quads) in chunks of about ``size`` bytes, each
    ending where a line does (a chunk is extended to the end of the line it stops in), so that each
    chunk parses on its own.

    Yields:
        ``bytes``; the last one may lack the final newline when the file does.
    Raises:
        OSError: the file cannot be read.
    """
    with open(path, "rb") as fh:
        while data := fh.read(size):
            if not data.endswith(b"\n"):
                data += fh.readline()
            yield data
