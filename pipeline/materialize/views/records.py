"""Logical iterations of a source and the values of references in them (RML-Core, RML-IO).

A *reference formulation* says how a document is cut into iterations (the logical iterator) and
how a reference is evaluated in one iteration; the result of a reference is an ordered list of
:class:`Value` (RML-Core "expression evaluation result": a reference may yield several values,
none, or a nested document that a logical view iterates further). Four formulations:

* ``JSONPath`` (RFC 9535 as jsonpath-ng reads it): iterator and references are JSONPath
  expressions; ``null`` is no value; numbers and booleans carry their natural RDF datatype
  (RML-Core section "natural mapping": integer -> ``xsd:integer``, other number -> ``xsd:double``,
  boolean -> ``xsd:boolean``).
* ``XPath`` (XPath 1.0 as lxml evaluates it, so parent steps ``..``, ``text()``, functions and
  namespaces declared with ``rml:namespace`` work): an element's value is its string value.
  Unprefixed names in a document with a default namespace name its elements, as the engine
  (XPath 3, the default element namespace) reads them (:func:`default_element_prefix`).
* ``CSV`` (RFC 4180): one iteration per record, a reference names a header column; a record
  with another number of fields than the header is invalid input.
* SPARQL results (``formats:SPARQL_Results_CSV/TSV/JSON/XML``): the iterator is a SELECT
  query over an RDF file; one iteration per solution, a reference names a variable. The CSV and
  TSV results formats carry no datatypes (values are plain strings); JSON and XML results keep
  the literal's datatype as natural datatype.

``nulls`` are the strings that stand for no value (RML-IO ``rml:null``).
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonpath_ng.ext import parse as jsonpath
from lxml import etree
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.util import guess_format

from pipeline.errors import InputError
from pipeline.rdffile import refuse_remote_contexts
from pipeline.sources import json_numbers
from pipeline.sources.namespaces import bind_default_prefix
from pipeline.sources.xml_parser import parse_file, xml_parser

__all__ = ["Value", "Source", "Iteration", "FORMULATIONS", "iterate", "read_document", "natural_value",
           "default_element_prefix", "xpath_failure", "XPATH_VERSION"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
#: Reference formulations by local name (RML-Core, legacy ``ql:``, kg-construct ``formats:``).
FORMULATIONS = {"JSONPath": "JSONPath", "XPath": "XPath", "XPathReferenceFormulation": "XPath", "CSV": "CSV",
                "SPARQL_Results_CSV": "SPARQL-text", "SPARQL_Results_TSV": "SPARQL-text",
                "SPARQL_Results_JSON": "SPARQL", "SPARQL_Results_XML": "SPARQL"}


@dataclass(frozen=True)
class Value:
    """One element of an expression evaluation result.

    Attributes:
        lexical: its text (a JSON number as written by Python, an element's string value).
        datatype: its natural RDF datatype IRI (``None``: ``xsd:string``).
        raw: what a nested iteration reads (a JSON object or array, an XML element, the text).
    """

    lexical: str
    datatype: str | None = None
    raw: Any = None

    @property
    def nested(self) -> bool:
        """The value is a JSON object or array (no lexical form of its own)."""
        return isinstance(self.raw, (dict, list))


def natural_value(v: Any) -> Value:
    """A JSON scalar, object or array as a :class:`Value` with its natural datatype."""
    if isinstance(v, bool):
        return Value("true" if v else "false", _XSD + "boolean", v)
    if isinstance(v, int):
        return Value(str(v), _XSD + "integer", v)
    if isinstance(v, json_numbers.JsonNumber):  # digits a float cannot hold, as written
        return Value(str(v), _XSD + "double", v)
    if isinstance(v, float):
        return Value(repr(v) if v != int(v) or abs(v) >= 1e16 else f"{v:.1f}", _XSD + "double", v)
    if isinstance(v, (dict, list)):
        return Value(json_numbers.dumps(v, ensure_ascii=False), None, v)
    return Value(str(v), None, v)


@dataclass
class Source:
    """A logical source as this module reads it.

    Attributes:
        path: the file (already decoded: UTF-8, uncompressed; see
            :func:`pipeline.sources.engine_copy.decoded_copy`).
        formulation: ``JSONPath``, ``XPath``, ``CSV``, ``SPARQL`` (typed results) or ``SPARQL-text``.
        iterator: the logical iterator (a JSONPath/XPath expression, or the SPARQL query);
            ``None``: the whole document (JSONPath ``$``), every record (CSV).
        namespaces: XPath prefixes (``rml:namespace``).
        nulls: strings that stand for no value (``rml:null``).
        name: how messages name the source.
    """

    path: Path
    formulation: str
    iterator: str | None = None
    namespaces: dict[str, str] = field(default_factory=dict)
    nulls: frozenset[str] = frozenset()
    name: str = ""

    def label(self) -> str:
        return self.name or self.path.name


class Iteration:
    """One logical iteration: evaluates references (:meth:`values`).

    Attributes:
        line: the 1-based line of the source file the record starts on (a CSV record, an XML element),
            ``None`` where the parsed document keeps no line (JSON, a view's row, a SPARQL solution).
    """

    formulation = ""
    line: int | None = None

    def values(self, reference: str) -> list[Value]:  # pragma: no cover - abstract
        raise NotImplementedError

    def document(self) -> Any:
        """What a nested iterator of the same formulation reads (the JSON node, the element, the record)."""
        raise NotImplementedError


#: member names as the engine reads a reference (split on '.'): any text but path syntax
_MEMBERS = re.compile(r"^\$?\.?[^.\[\]*?@()$'\"\\]+(?:\.[^.\[\]*?@()$'\"\\]+)*$")


def member_path(reference: str) -> str | None:
    """A reference of member names that jsonpath-ng's lexer refuses but the engine reads as a path of
    keys (``event title``, ``título``, ``extras.Frecuencia de actualización``: RFC 9535 2.5.1.1 allows
    non-ASCII names; Morph-KGC reads the names between the dots) written with name selectors
    (``$['event title']``), which jsonpath-ng reads; ``None`` for anything else."""
    if not _MEMBERS.match(reference):
        return None
    names = re.sub(r"^\$\.?", "", reference).split(".")
    return "$" + "".join("['" + n + "']" for n in names)


class _JSON(Iteration):
    formulation = "JSONPath"
    _cache: dict[str, Any] = {}

    def __init__(self, node: Any, nulls: frozenset[str]) -> None:
        self.node, self.nulls = node, nulls

    def values(self, reference: str) -> list[Value]:
        expr = self._cache.get(reference)
        if expr is None:
            try:
                expr = self._cache[reference] = jsonpath(reference)
            except Exception as exc:  # jsonpath-ng raises its own lexer/parser errors
                quoted = member_path(reference)
                if quoted is None:
                    raise InputError(f"JSONPath reference {reference!r} does not parse: {exc}") from exc
                expr = self._cache[reference] = jsonpath(quoted)
        out = []
        for m in expr.find(self.node):
            if m.value is None:
                continue
            v = natural_value(m.value)
            if not v.nested and v.lexical in self.nulls:
                continue
            out.append(v)
        return out

    def document(self) -> Any:
        return self.node


#: What an XPath that lxml (libxml2: XPath 1.0) cannot evaluate is told: the version read here.
XPATH_VERSION = ("kgc evaluates this XPath with XPath 1.0 (lxml); XPath 2 and 3 functions and expressions "
                 "(string-join, matches, replace, tokenize, if/for/let, ||) are not available: use XPath 1.0 "
                 "(concat, substring-before, translate, normalize-space) or an FnO function on a plain reference")


def xpath_failure(what: str, expression: str, exc: Exception) -> str:
    """The message for ``expression`` (an XPath ``what``: reference, iterator) lxml cannot evaluate:
    lxml's reason and, for an unknown function or an expression beyond XPath 1.0, the version read."""
    reason = str(exc) or type(exc).__name__
    beyond = isinstance(exc, etree.XPathSyntaxError) or "Unregistered function" in reason \
        or "Invalid expression" in reason
    return f"XPath {what} {expression!r} cannot be evaluated: {reason}" + (f" ({XPATH_VERSION})" if beyond else "")


def default_element_prefix(root: Any, namespaces: dict[str, str]) -> str | None:
    """The prefix that stands for the default namespace of ``root`` in the XPath of a mapping, or
    ``None`` when the root element has none.

    XPath 1.0 has no default element namespace (section 2.3: an unprefixed name test matches only
    elements in no namespace); the engine (Morph-KGC 2.10, elementpath's XPath 3 with the
    document's default namespace as default element namespace) reads ``/catalog/item`` in a
    document with ``xmlns="urn:x"`` as the namespaced elements, and so must every XPath evaluated
    here, else a derived source has no records while the engine's have. The document's (or the
    mapping's) own prefix for that namespace is reused, else ``d``, ``d2`` ...
    """
    uri = (getattr(root, "nsmap", None) or {}).get(None)
    if not uri:
        return None
    own = next((p for p, u in namespaces.items() if u == uri), None)
    if own:
        return own
    n = 1
    while (name := "d" if n == 1 else f"d{n}") in namespaces:
        n += 1
    namespaces[name] = uri
    return name


@lru_cache(maxsize=4096)
def _bound(expression: str, prefix: str | None) -> str:
    return expression if prefix is None else bind_default_prefix(expression, prefix)


class _XML(Iteration):
    formulation = "XPath"

    def __init__(self, element: Any, namespaces: dict[str, str], nulls: frozenset[str],
                 default: str | None = None) -> None:
        self.element, self.namespaces, self.nulls, self.default = element, namespaces, nulls, default
        self.line = element.sourceline  # lxml's: the line of the element's start tag (None when built in memory)

    def values(self, reference: str) -> list[Value]:
        try:
            found = self.element.xpath(_bound(reference, self.default), namespaces=self.namespaces)
        except etree.XPathError as exc:
            raise InputError(xpath_failure("reference", reference, exc)) from exc
        items = found if isinstance(found, list) else [found]
        out = []
        for item in items:
            if isinstance(item, etree._Element):
                text = "".join(item.itertext())
                raw = item
            elif isinstance(item, bool):
                text, raw = ("true" if item else "false"), item
            elif isinstance(item, json_numbers.JsonNumber):
                text, raw = str(item), item
            elif isinstance(item, float):
                text, raw = (str(int(item)) if item == int(item) else repr(item)), item
            else:
                text, raw = str(item), str(item)
            if text in self.nulls:
                continue
            out.append(Value(text, None, raw))
        return out

    def document(self) -> Any:
        return self.element


class _Row(Iteration):
    formulation = "CSV"

    def __init__(self, row: dict[str, str], nulls: frozenset[str], where: str, line: int | None = None) -> None:
        self.row, self.nulls, self.where, self.line = row, nulls, where, line

    def values(self, reference: str) -> list[Value]:
        if reference not in self.row:
            raise InputError(f"reference {reference!r} names no column of {self.where} "
                             f"(columns: {', '.join(self.row)})")
        v = self.row[reference]
        return [] if v is None or v in self.nulls else [Value(v, None, v)]

    def document(self) -> Any:
        return self.row


class _Solution(Iteration):
    formulation = "SPARQL"

    def __init__(self, row: dict[str, Value], variables: list[str], where: str) -> None:
        self.row, self.variables, self.where = row, variables, where

    def values(self, reference: str) -> list[Value]:
        name = reference.lstrip("?$")
        if name not in self.variables:
            raise InputError(f"reference {reference!r} names no variable of the query of {self.where} "
                             f"(variables: {', '.join(self.variables)})")
        v = self.row.get(name)
        return [] if v is None else [v]

    def document(self) -> Any:
        return self.row


def read_document(source: Source) -> Any:
    """Parse the source file for its formulation (JSON value, lxml tree, CSV text, RDF graph).

    Raises:
        InputError: the file is not in the formulation's format (message names the file).
    """
    path = source.path
    try:
        if source.formulation == "JSONPath":
            return json_numbers.loads(path.read_text(encoding="utf-8"))
        if source.formulation == "XPath":
            return parse_file(path)
        if source.formulation == "CSV":
            return path.read_text(encoding="utf-8")
        if source.formulation.startswith("SPARQL"):
            fmt = guess_format(str(path)) or "turtle"
            if fmt == "json-ld":  # rdflib would download a remote @context: refused, nothing is fetched
                refuse_remote_contexts(path, "logical source")
            return Graph().parse(str(path), format=fmt)
    except InputError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the logical source: {exc}", path=path) from exc
    except Exception as exc:  # parsers raise their own types: JSONDecodeError, XMLSyntaxError, rdflib's
        raise InputError(f"not a {source.formulation} source: {type(exc).__name__}: {exc}", path=path) from exc
    raise InputError(f"reference formulation {source.formulation!r} is not one kgc reads "
                     f"(JSONPath, XPath, CSV, SPARQL results)", path=path)


def csv_rows(text: str, where: str, strict: bool = True) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, record)`` of CSV text (RFC 4180, header first; blank lines skipped; a name the header
    repeats holds its first cell, as the engine, pandas, reads it); ``line``: the 1-based line the record
    starts on (a quoted field may span lines).

    Raises:
        InputError: with ``strict``, a record whose field count differs from the header's
            (RFC 4180 section 2: each line should contain the same number of fields).
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return
    end = reader.line_num  # the line the previous row ended on
    for fields in reader:
        start, end = end + 1, reader.line_num
        if not fields:
            continue
        if len(fields) != len(header):
            if strict:
                raise InputError(f"record {reader.line_num} has {len(fields)} field(s), the header has "
                                 f"{len(header)} ({', '.join(header)}): not a valid CSV file (RFC 4180)",
                                 path=where, line=reader.line_num)
            fields = (fields + [None] * len(header))[:len(header)]
        record: dict[str, str] = {}
        for name, value in zip(header, fields):  # a repeated name: its first cell, as the engine reads it
            record.setdefault(name, value)
        yield start, record


def iterate(formulation: str, document: Any, iterator: str | None, *, namespaces: dict[str, str] | None = None,
            nulls: frozenset[str] = frozenset(), where: str = "source") -> list[Iteration]:
    """The logical iterations of a document (a source file's, or a value a logical view iterates).

    Args:
        formulation: ``JSONPath``, ``XPath``, ``CSV`` or ``SPARQL``.
        document: a parsed JSON value; an lxml tree or element; CSV text; an rdflib graph (SPARQL).
            Text given to ``JSONPath``/``XPath`` is parsed first (a field holding a nested document).
        iterator: JSONPath/XPath expression, SPARQL query, or ``None`` (JSON: the document
            itself; CSV: each record).
        namespaces: XPath prefixes. nulls: strings that stand for no value. where: how errors
            name the document.
    Returns:
        The iterations in document order.
    Raises:
        InputError: the iterator does not parse or cannot be evaluated, the document is invalid.
    """
    ns = namespaces or {}
    if formulation == "JSONPath":
        if isinstance(document, str):
            try:
                document = json_numbers.loads(document)
            except ValueError as exc:
                raise InputError(f"{where}: not JSON: {exc}") from exc
        try:
            expr = jsonpath(iterator or "$")
        except Exception as exc:  # jsonpath-ng raises its own lexer/parser errors
            raise InputError(f"{where}: JSONPath iterator {iterator!r} does not parse: {exc}") from exc
        nodes = []
        for m in expr.find(document):
            # an iterator that selects an array iterates its items ($.people selects the list)
            if isinstance(m.value, list) and not (iterator or "$").rstrip().endswith(("]", "*")):
                nodes.extend(m.value)
            else:
                nodes.append(m.value)
        return [_JSON(n, nulls) for n in nodes if n is not None]
    if formulation == "XPath":
        if isinstance(document, str):
            try:
                document = etree.fromstring(document.encode("utf-8"), xml_parser())
            except etree.XMLSyntaxError as exc:
                raise InputError(f"{where}: not XML: {exc}") from exc
        root = document.getroot() if hasattr(document, "getroot") else document
        # the document's own prefixes, then those the mapping declares (rml:namespace)
        ns = {**{p: u for p, u in (root.nsmap or {}).items() if p}, **ns}
        default = default_element_prefix(root, ns)  # unprefixed names: the default namespace, as the engine reads
        try:
            found = document.xpath(_bound(iterator or "/*", default), namespaces=ns)
        except etree.XPathError as exc:
            raise InputError(f"{where}: {xpath_failure('iterator', iterator or '/*', exc)}") from exc
        return [_XML(e, ns, nulls, default) for e in (found if isinstance(found, list) else [])
                if isinstance(e, etree._Element)]
    if formulation == "CSV":
        if not isinstance(document, str):
            raise InputError(f"{where}: a CSV iteration needs text, got {type(document).__name__}")
        return [_Row(row, nulls, where, line) for line, row in csv_rows(document, where)]
    if formulation.startswith("SPARQL"):
        return _solutions(document, iterator or "", where, typed=formulation == "SPARQL")
    raise InputError(f"{where}: reference formulation {formulation!r} is not one kgc reads "
                     "(JSONPath, XPath, CSV, SPARQL results)")


def _solutions(graph: Any, query: str, where: str, typed: bool) -> list[Iteration]:
    """The solutions of a SELECT query; ``typed``: literals keep their datatype as natural datatype
    (SPARQL results in JSON or XML), else every value is a plain string (CSV, TSV results)."""
    try:
        result = graph.query(query)
    except Exception as exc:  # rdflib's SPARQL parser raises pyparsing errors
        raise InputError(f"{where}: the SPARQL query does not run: {type(exc).__name__}: {exc}") from exc
    variables = [str(v) for v in (result.vars or [])]
    out: list[Iteration] = []
    for row in result:
        values: dict[str, Value] = {}
        for var, term in zip(variables, row):
            if term is None:
                continue
            if isinstance(term, Literal):
                dt = str(term.datatype) if typed and term.datatype is not None else None
                dt = None if dt == _XSD + "string" else dt
                values[var] = Value(str(term), dt, term)
            elif isinstance(term, (URIRef, BNode)):
                values[var] = Value(str(term), None, term)
        out.append(_Solution(values, variables, where))
    return out
