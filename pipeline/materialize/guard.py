"""Output guards of the materialize stage, applied per engine rule as the engine produces it.

Morph-KGC builds each mapping rule's statements as pandas columns of N-Triples term text
(subject, predicate, object, graph). :meth:`Guard.frame` takes one rule's columns at a time:
``pandas.factorize`` finds each column's *distinct* terms, one regular-expression scan over them
finds the few that need a check (:meth:`Guard.term`), rows with a failing term are dropped and
counted per reason and predicate, and the kept rows go as canonical N-Triples / N-Quads lines to
:class:`pipeline.materialize.output.Runs`, which sorts them and removes duplicates. Peak memory is therefore the
engine's own plus one rule's columns, not the whole KG.

The checks (the output is that of parsing and checking every statement of the whole KG with
pyoxigraph, ``tests/test_materialize_stream.py``):

* IRIs must be absolute and valid for pyoxigraph (RFC 3987) and pass SV2's ``check_iri``;
  IRIs under :data:`~pipeline.materialize.rml.vocabulary.BNODE_NS` become blank nodes (label: a hash of the IRI),
  under :data:`~pipeline.materialize.rml.vocabulary.REF_NS` the referenced value (absolute, or base + value).
* Literals must be well-typed for their XSD datatype (SV2's ``check_literal``); a value with
  white space around it is written without it when that makes it well-typed (a warning);
  ``xsd:integer`` values the engine left as written are checked like any other.
* Language tags must be BCP 47 (SV2's ``check_langtag``); they are written in lower case.
* A term the N-Triples grammar rejects drops its statement ("not a valid N-Triples statement",
  or "relative or illegal IRI" when the parser's message is about an IRI).

Canonical text is pyoxigraph 0.3's N-Triples serialization (``\\``, ``"``, LF and CR escaped,
``xsd:string`` implicit, language tags in lower case), so the written KG reads back to the
same terms. A term outside the fast grammar below is parsed by pyoxigraph itself.

Which terms need a check at all is decided per column (:func:`screen`): most terms an engine
writes are ASCII IRIs without anything to check or string literals with nothing to escape;
one regular-expression match over a column's distinct terms joined by line breaks consumes
those in C, and only the few others go through the checks. :data:`FAST_IRI_TOKEN` also decides
which IRI templates need no check at all (:func:`pipeline.materialize.engine.trusted_template`).
"""
from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

import numpy as np
import pyoxigraph

from pipeline.materialize.data_errors import DataError, stopping
from pipeline.materialize.output import Runs, row_count
from pipeline.materialize.rml.vocabulary import BNODE_NS, REF_NS
from pipeline.validation.terms import check_iri, check_langtag, check_literal

__all__ = ["ENGINE_INTEGER", "Guard", "Verdict", "split_statement", "shown", "NO_BASE", "EMPTY_LANGUAGE", "BAD_PERCENT",
           "FAST_IRI_TOKEN", "screen", "is_constant", "statement_texts", "column_rows"]

#: Stand-in datatype for ``xsd:integer`` in engine copies written by earlier kgc versions; read as ``xsd:integer``.
ENGINE_INTEGER = "https://w3id.org/kgc-pipeline/engine#integer"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_XSD_INTEGER, _XSD_STRING = _XSD + "integer", _XSD + "string"
ILL_IRI, NOT_NT = "relative or illegal IRI", "not a valid N-Triples statement"
#: A literal written with ``@`` and no tag: a language map whose value was empty (BCP 47 has no empty tag).
EMPTY_LANGUAGE = "empty language tag (the language map gave an empty value)"
_EMPTY_TAG = re.compile(r'"(?:[^"\\]|\\.)*"@')
#: A reference-valued IRI whose value is no absolute IRI while the mapping has no base IRI.
NO_BASE = f"{ILL_IRI} (the value is no absolute IRI and there is no base IRI to put before it: give --base-iri)"
#: a value that starts with an IRI scheme (RFC 3987 / 3986 section 3.1): the base IRI is no part of it
_HAS_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_REF_TERM = re.compile("<" + re.escape(REF_NS) + r"([^/<>\s]*)/([^<>\s]*)>")


_UCS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ((0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF),
                                                    *((0x10000 * k, 0x10000 * k + 0xFFFD) for k in range(1, 15))))
_IRI_CHAR = rf"(?:[A-Za-z0-9\-._~:/?\[\]@!$&'()*+,;={_UCS}]|%[0-9A-F]{{2}})"
# an IRI in which check_iri cannot find an error (no bad '%', one '#' at most, no port; ucschar allowed)
_PLAIN_IRI = re.compile(rf"^[a-z][a-z0-9+.\-]*:(?!//[^/?#]*:){_IRI_CHAR}*(#{_IRI_CHAR}*)?$")
# N-Triples 1.1 grammar of the term tokens (IRIREF without UCHAR, STRING_LITERAL_QUOTE, LANGTAG)
_IRIREF = r'<([^\x00-\x20<>"{}|^`\\]*)>'
_IRI_TOKEN = re.compile(_IRIREF)
_LITERAL = re.compile(r'"((?:[^"\\\n\r]|\\[tbnrf"\'\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)"'
                      rf'(?:\^\^{_IRIREF}|@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*))?')
_PN = f"A-Za-z0-9_{_UCS}"
_BNODE = re.compile(rf"_:[{_PN}](?:[{_PN}\-.\u00B7]*[{_PN}\-\u00B7])?")
_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))')
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_IRIREF_NC = r'<[^\x00-\x20<>"{}|^`\\]*>'
_STATEMENT = re.compile(rf'^\s*({_IRIREF_NC}|_:\S+)\s+({_IRIREF_NC})\s+({_IRIREF_NC}|_:\S+|"(?:[^"\\\n\r]|\\.)*"'
                        rf'(?:\^\^{_IRIREF_NC}|@[^\s"<>]+)?)(?:\s+({_IRIREF_NC}|_:\S+))?\s*\.?\s*$')
# where a term is parsed by pyoxigraph when the fast grammar above does not take it
_PROBE = {0: "{} <urn:kgc:p> <urn:kgc:o> .", 1: "<urn:kgc:s> {} <urn:kgc:o> .", 2: "<urn:kgc:s> <urn:kgc:p> {} .",
          3: "<urn:kgc:s> <urn:kgc:p> <urn:kgc:o> {} ."}


# a whole column of distinct terms is screened by one scan over its lines: the terms these match
# need a check; every other term is an ASCII IRI that the guard's plain-IRI pattern accepts, without
# brackets or a private namespace, or a string literal with nothing to escape: canonical as it is. (Plain
# character classes: '%' is allowed in the scan and a '%' without two upper-case hex digits is
# found by a second scan, which is several times faster than one pattern with both.)
_IRI_ASCII = r"[A-Za-z0-9\-._~:/?@!$&'()*+,;=%]"
FAST_IRI_TOKEN = (rf"<(?!{re.escape(BNODE_NS)}|{re.escape(REF_NS)})[a-z][a-z0-9+.\-]*:(?!//[^/?#\n]*:)"
                  rf"{_IRI_ASCII}*(?:#{_IRI_ASCII}*)?>")
_NEEDS_CHECK = {False: re.compile(rf"^(?!{FAST_IRI_TOKEN}$).*$", re.MULTILINE),
                True: re.compile(rf'^(?!(?:{FAST_IRI_TOKEN}|"[^"\\\n\r]*")$).*$', re.MULTILINE)}
# the same screen run the other way: one possessive match consumes a block of lines that need no
# check (no backtracking state per line), about twice as fast as the scan above on IRI columns
_CANONICAL_LINES = {False: re.compile(rf"(?:{FAST_IRI_TOKEN}\n)*+"),
                    True: re.compile(rf'(?:(?:{FAST_IRI_TOKEN}|"[^"\\\n\r]*")\n)*+')}
#: flagged lines after which the rest of a column is screened by _NEEDS_CHECK (a line each is cheaper there)
_MANY_FLAGGED = 64
BAD_PERCENT = re.compile(r"%(?![0-9A-F]{2})")


def shown(statement: str) -> str:
    """A statement's text as a user reads it: each reference-valued IRI (kgc's private
    :data:`~pipeline.materialize.rml.vocabulary.REF_NS`, never written to a KG) as the value the data
    hold (``<david.chaves@kuleuven.be>``, its base IRI before it when there is one, not before a value
    that has a scheme of its own: ``<http://example.org/a b>`` is an absolute IRI with a space, never
    a relative one), and ``xsd:integer`` for the engine's stand-in."""
    if REF_NS in statement:
        def value(m: re.Match) -> str:
            own = unquote(m.group(2))
            return f"<{own}>" if _HAS_SCHEME.match(own) else f"<{unquote(m.group(1))}{own}>"
        statement = _REF_TERM.sub(value, statement)
    return statement.replace(ENGINE_INTEGER, _XSD_INTEGER)


def screen(text: str, literals: bool) -> set[str]:
    """The lines of ``text`` (terms joined by line breaks) that the screen flags: those that are
    not a plain ASCII IRI (nor, with ``literals``, a string literal with nothing to escape)."""
    text += "\n"
    canonical, flagged, pos, end = _CANONICAL_LINES[literals], set(), 0, len(text)
    while pos < end:
        pos = canonical.match(text, pos).end()
        if pos >= end:
            break
        if len(flagged) >= _MANY_FLAGGED:  # many terms to check: one scan finds the rest
            flagged.update(m.group(0) for m in _NEEDS_CHECK[literals].finditer(text, pos, end - 1))
            break
        stop = text.index("\n", pos)
        flagged.add(text[pos:stop])
        pos = stop + 1
    return flagged


def is_constant(col) -> bool:
    """Whether an array holds one term on every row (the first and last rows decide most cases at once)."""
    return col[0] == col[-1] and bool((col == col[0]).all())


def statement_texts(columns: list) -> list[str]:
    """``"s p o g"`` per row of four term arrays (or ``str``), without the space before an empty graph;
    joined in C and split again (row by row when a term holds a line break)."""
    n = row_count(columns)
    s, p, o, g = columns
    pieces = np.empty(6 * n, dtype=object)
    pieces[0::6], pieces[1::6], pieces[2::6], pieces[3::6], pieces[4::6] = s, " ", p, " ", o
    pieces[5::6] = (" " + g if g else "") if isinstance(g, str) else np.where(g == "", "", " " + g)
    pieces = pieces.tolist()
    pieces[5::6] = [t + "\n" for t in pieces[5::6]]
    text = "".join(pieces)
    if text.count("\n") == n:
        return text.split("\n")[:-1]
    return [f"{a} {b} {c} {d}".rstrip(" ") for a, b, c, d in zip(*(np.broadcast_to(np.asarray(t, dtype=object), (n,))
                                                                   .tolist() for t in columns))]


def column_rows(col, mask):
    """The rows a boolean ``mask`` selects of a column given as an array or as one ``str`` (every row)."""
    return np.full(int(np.count_nonzero(mask)), col, dtype=object) if isinstance(col, str) else col[mask]


def _errors(issues: list[tuple[str, str, str]]) -> bool:
    return any(severity in ("error", "fatal") for severity, _, _ in issues)


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)) if m.group(3) is None else _ECHAR[m.group(3)],
                       body)


def _quote(lex: str) -> str:
    # pyoxigraph 0.3's N-Triples serializer escapes exactly these four characters
    if "\\" in lex or '"' in lex or "\n" in lex or "\r" in lex:
        lex = lex.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{lex}"'


def split_statement(line: str) -> tuple[str, str, str, str] | None:
    """The four term tokens of an engine statement ``"<s> <p> <o> [<g>] [.]"`` (graph ``""`` when
    absent), or ``None`` when the line does not have that shape."""
    m = _STATEMENT.match(line)
    if m is None:
        return None
    return m.group(1), m.group(2), m.group(3), m.group(4) or ""


@dataclass
class Verdict:
    """What the guard made of one distinct term: ``text`` (canonical, ``None`` when dropped) and ``reason``."""

    text: str | None
    reason: str | None = None


@dataclass
class Guard:
    """Per-term checks and the findings of one run (counts per reason and predicate).

    Attributes:
        dropped: ``{(reason, predicate IRI): [count, [up to 3 example statements]]}``.
        repaired: literals written without the white space around them (distinct terms).
        join_misses: child join keys no parent matched, per join rule, as
            :data:`pipeline.materialize.engine.JOIN_MISSES` holds them (said once the run is over:
            :func:`pipeline.materialize.materializer.join_drops`).
        nested: JSON references whose value was an array or object, as
            :data:`pipeline.materialize.readers.NESTED_VALUES` holds them.
    """

    dropped: dict[tuple[str, str], list] = field(default_factory=dict)
    repaired: set[str] = field(default_factory=set)
    join_misses: dict[tuple, list] = field(default_factory=dict)
    nested: dict[tuple[str, str], list] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)
    _datatypes: dict[str, bool] = field(default_factory=dict)

    def _screen(self, uniques, position: int) -> tuple[list, dict[int, str], bool]:
        """Check a column's distinct terms: one regular-expression scan over all of them finds those
        that need :meth:`term`; the others are canonical as they are.

        Returns:
            ``(texts, reasons, changed)``: canonical text per distinct term (``None``: dropped),
            the reason per dropped index, and whether any kept term was rewritten.
        """
        import pandas as pd

        terms = uniques.tolist()
        text = "\n".join(terms)
        if text.count("\n") != len(terms) - 1:  # a term with a raw line break: check each
            indices = range(len(terms))
        else:
            flagged = screen(text, position == 2)
            for m in BAD_PERCENT.finditer(text):  # the line around each such '%'
                end = text.find("\n", m.start())
                flagged.add(text[text.rfind("\n", 0, m.start()) + 1:end if end >= 0 else len(text)])
            flagged = list(flagged)
            indices = pd.Index(terms).get_indexer(flagged) if flagged else []
        texts, reasons, changed = list(terms), {}, False
        for i in indices:
            t = terms[i]
            v = self.term(t, position) if (position < 3 or t) else Verdict("")
            texts[i] = v.text
            if v.text is None:
                reasons[i] = v.reason
            elif v.text != t:
                changed = True
        return texts, reasons, changed

    def term(self, token: str, position: int) -> Verdict:
        """Check one term token (engine text) at ``position`` (0 subject, 1 predicate, 2 object, 3 graph)."""
        head = token[:1]
        if head == "<":
            m = _IRI_TOKEN.fullmatch(token)
            if m is not None:
                return self.iri(m.group(1))
        elif head == "_" and position != 1:
            if _BNODE.fullmatch(token):
                return Verdict("_:b" + hashlib.sha1(token.encode("utf-8")).hexdigest()[:24])
        elif head == '"' and position == 2:
            m = _LITERAL.fullmatch(token)
            if m is not None:
                return self.literal(_unescape(m.group(1)), m.group(2), m.group(3))
        return self._parsed(token, position)

    def _parsed(self, token: str, position: int) -> Verdict:
        """A token outside the fast grammar: what pyoxigraph's parser makes of it."""
        try:
            quad = next(iter(pyoxigraph.parse(io.BytesIO(_PROBE[position].format(token).encode("utf-8")),
                                              "application/n-quads")))
        except (SyntaxError, ValueError, StopIteration) as exc:
            if position == 2 and _EMPTY_TAG.fullmatch(token):
                return Verdict(None, EMPTY_LANGUAGE)
            return Verdict(None, ILL_IRI if "IRI" in str(exc) else NOT_NT)
        parsed = (quad.subject, quad.predicate, quad.object, quad.graph_name)[position]
        if isinstance(parsed, pyoxigraph.NamedNode):
            return self.iri(parsed.value)
        if isinstance(parsed, pyoxigraph.Literal):
            return self.literal(parsed.value, parsed.datatype.value if parsed.language is None else None,
                                parsed.language)
        if isinstance(parsed, pyoxigraph.Triple):  # RDF-star: a quoted triple, each of its terms checked
            return self.quoted(parsed)
        return Verdict(None, NOT_NT)  # a blank node label the fast grammar refused

    def quoted(self, triple: "pyoxigraph.Triple") -> Verdict:
        """An RDF-star quoted triple (``<< s p o >>``, RML-star ``rml:quotedTriplesMap``): kept when
        each of its terms passes the check of its position, written with the canonical terms."""
        parts = []
        for position, t in enumerate((triple.subject, triple.predicate, triple.object)):
            if isinstance(t, pyoxigraph.Triple):
                v = self.quoted(t)
            elif isinstance(t, pyoxigraph.NamedNode):
                v = self.iri(t.value)
            elif isinstance(t, pyoxigraph.BlankNode) and position != 1:
                v = Verdict("_:b" + hashlib.sha1(f"_:{t.value}".encode("utf-8")).hexdigest()[:24])
            elif isinstance(t, pyoxigraph.Literal) and position == 2:
                v = self.literal(t.value, t.datatype.value if t.language is None else None, t.language)
            else:
                v = Verdict(None, NOT_NT)
            if v.text is None:
                return v
            parts.append(v.text)
        return Verdict(f"<< {parts[0]} {parts[1]} {parts[2]} >>")

    def iri(self, iri: str) -> Verdict:
        """An IRI: kept, rewritten (blank node, referenced value) or dropped."""
        try:
            pyoxigraph.NamedNode(iri)  # the parser's own IRI check (absolute, RFC 3987)
        except ValueError:
            return Verdict(None, ILL_IRI)
        if iri.startswith(BNODE_NS):
            return Verdict("_:b" + hashlib.sha1(iri.encode("utf-8")).hexdigest()[:24])
        if iri.startswith(REF_NS):
            return self.reference_iri(iri)
        if _PLAIN_IRI.match(iri) or not _errors(check_iri(iri)):
            return Verdict(f"<{iri}>")
        return Verdict(None, ILL_IRI)

    @staticmethod
    def reference_iri(iri: str) -> Verdict:
        """A reference-valued IRI (:data:`~pipeline.materialize.rml.vocabulary.REF_NS`): the value when it is an absolute
        IRI, else the base IRI + the value (R2RML section 11.2: concatenation, no resolution)."""
        base, _, value = iri[len(REF_NS):].partition("/")
        value = unquote(value)
        if _errors(check_iri(value)):
            value = unquote(base) + value
        if _errors(check_iri(value)):
            return Verdict(None, ILL_IRI if base else NO_BASE)
        return Verdict(f"<{value}>")

    def literal(self, lex: str, datatype: str | None, lang: str | None) -> Verdict:
        """A literal from its lexical form and datatype IRI or language tag."""
        if lang is not None:
            lang = lang.lower()
            return Verdict(None, "language tag that names no BCP 47 language") \
                if _errors(check_langtag(lang)) \
                else Verdict(f"{_quote(lex)}@{lang}")
        dt = _XSD_STRING if datatype is None else datatype
        if dt != _XSD_STRING and dt != ENGINE_INTEGER and not self._datatype_ok(dt):
            return Verdict(None, ILL_IRI)
        dt = _XSD_INTEGER if dt == ENGINE_INTEGER else dt
        if dt == _XSD_STRING:
            return Verdict(_quote(lex))
        stripped = lex.strip()
        if lex != stripped and _well_typed(stripped, dt):
            # XSD collapses white space around non-string values; RDF lexical forms may not carry it
            self.repaired.add(f"{_quote(lex)}^^<{dt}>")
            lex = stripped
        if not _well_typed(lex, dt):
            return Verdict(None, f"ill-typed literal for <{dt}>" if dt != _XSD_INTEGER
                           else "xsd:integer value that is no integer")
        return Verdict(f"{_quote(lex)}^^<{dt}>")

    def _datatype_ok(self, dt: str) -> bool:
        ok = self._datatypes.get(dt)
        if ok is None:
            try:
                pyoxigraph.NamedNode(dt)
                ok = True
            except ValueError:
                ok = False
            self._datatypes[dt] = ok
        return ok

    def drop(self, reason: str, predicate: str, statement: str) -> None:
        """Count one dropped statement (a statement dropped twice in a group counts once)."""
        if statement in self._seen:
            return
        self._seen.add(statement)
        entry = self.dropped.setdefault((reason, predicate), [0, []])
        entry[0] += 1
        if len(entry[1]) < 3:
            entry[1].append(shown(statement)[:200])

    def _drops(self, columns: list, triple, bad, why, causes: list[str]) -> None:
        """Count the dropped rows of one rule per (reason, predicate), each distinct statement once."""
        import pandas as pd

        if triple is not None:
            text = np.asarray(triple, dtype=object)[bad].tolist()
        else:
            # the engine's statement text (Morph-KGC 2.10: "s p o g", graph "" by default) as above
            text = statement_texts([c if isinstance(c, str) else c[bad] for c in columns])
        if " \n" in "\n".join(text) + "\n":  # the engine's text ends with a space in the default graph
            text = [t.rstrip(" ") for t in text]
        reasons = why[bad]
        preds, pred_names = pd.factorize(column_rows(columns[1], bad), use_na_sentinel=False)
        _, first, inverse = np.unique(reasons.astype(np.int64) * (len(pred_names) + 1) + preds, return_index=True,
                                      return_inverse=True)
        rows, inverse = np.array(text, dtype=object), inverse.reshape(-1)
        groups: dict[tuple, list[str]] = {}
        for g in np.argsort(first, kind="stable"):  # in the order of their first row, as the engine gave them
            pred = pred_names[preds[first[g]]]
            if isinstance(pred, str):  # (a missing predicate was never counted)
                groups[(int(reasons[first[g]]), pred)] = rows[inverse == g].tolist()
        for (code, pred), statements in groups.items():
            new = set(statements) - self._seen
            if not new:
                continue
            self._seen |= new
            p = pred[1:-1] if pred.startswith("<") and pred.endswith(">") else ""
            entry = self.dropped.setdefault((causes[code - 1], p), [0, []])
            entry[0] += len(new)
            for st in statements:
                if len(entry[1]) >= 3:
                    break
                if st in new:
                    new.discard(st)
                    entry[1].append(shown(st)[:200])

    def stop_error(self, columns: list, row: int) -> DataError:
        """The :class:`~pipeline.materialize.data_errors.DataError` of row ``row`` of ``columns``
        (as :meth:`frame` takes them): the first position whose term fails, the reason, the value."""
        terms = []
        for col in columns:
            if isinstance(col, str):
                terms.append(col)
            elif isinstance(col, tuple):
                code = col[0][row]
                terms.append(None if code < 0 else col[1][code])
            else:
                terms.append(col[row])
        predicate = terms[1][1:-1] if isinstance(terms[1], str) and terms[1].startswith("<") else None
        for position, token in enumerate(terms):
            if position == 3 and not token:
                continue  # the default graph
            verdict = Verdict(None, "no value") if not isinstance(token, str) else self.term(token, position)
            if verdict.text is None:
                value, expected = _value_of(token, verdict.reason)
                return DataError(reason=verdict.reason, term=shown(str(token))[:300], value=value, predicate=predicate,
                                 position=("subject", "predicate", "object", "graph")[position], expected=expected)
        return DataError(reason=NOT_NT, term=shown(" ".join(map(str, terms)))[:300], predicate=predicate)

    def merge(self, other: "Guard") -> None:
        """Add ``other``'s counts to this guard's (examples: the first three of both)."""
        for key, (count, examples) in other.dropped.items():
            entry = self.dropped.setdefault(key, [0, []])
            entry[0] += count
            entry[1].extend(examples[:3 - len(entry[1])])
        self.repaired |= other.repaired
        self.take_join_misses(other.join_misses)
        self.take_nested(other.nested)

    def take_nested(self, nested: dict) -> None:
        """Add the array- or object-valued references ``nested`` (:data:`pipeline.materialize.readers.NESTED_VALUES`'s
        shape; a count per record: the larger kept) and empty it."""
        for key, entry in nested.items():
            mine = self.nested.setdefault(key, list(entry))
            mine[0] = max(mine[0], entry[0])
        if nested is not self.nested:
            nested.clear()

    def take_join_misses(self, misses: dict) -> None:
        """Add the join misses ``misses`` (:data:`pipeline.materialize.engine.JOIN_MISSES`'s shape) and empty it."""
        for key, (arrays, examples) in misses.items():
            entry = self.join_misses.setdefault(key, [[], []])
            entry[0].extend(arrays)
            entry[1].extend(e for e in examples if len(entry[1]) < 3 and e not in entry[1])
        if misses is not self.join_misses:
            misses.clear()

    def end_group(self) -> None:
        """Forget the dropped statements of a mapping group: Morph-KGC's mapping partitions
        produce disjoint statements, so a later group cannot repeat them."""
        self._seen.clear()

    def frame(self, columns: list, runs: Runs, triple=None, trusted: tuple = (False,) * 4,
              text_only: bool = False) -> None:
        """Guard one engine rule and send its kept statements to ``runs``.

        Args:
            columns: subject, predicate, object, graph term texts (equal-length arrays or Series;
                graph ``""`` for the default graph). A column may be given as one ``str``: that
                term on every row (a constant term map; at least one column is not), or as a pair
                ``(codes, terms)``: per row the index of its term in ``terms``, an array of
                distinct terms (what :mod:`pipeline.materialize.columnar` builds: no term is
                hashed again).
            runs: where kept lines go.
            triple: the engine's own statement text per row (``"s p o g"``, ``"s p o "`` in the
                default graph), reused when no kept term was rewritten (saves building the lines).
            trusted: per position, whether the column holds IRIs the engine built from a template
                that :func:`pipeline.materialize.engine.trusted_template` accepts: valid and canonical by construction, so not
                checked (a column with a missing value is checked all the same).
            text_only: every array holds ``str`` only (the guard worker reads them so): a trusted
                column is not searched for a missing value.
        """
        import pandas as pd

        columns = [c if isinstance(c, (str, tuple)) else np.asarray(c, dtype=object) for c in columns]
        n = next(len(c[0]) if isinstance(c, tuple) else len(c) for c in columns if not isinstance(c, str))
        if n == 0:
            return
        changed = triple is None
        why = np.zeros(n, dtype=np.int16)  # per row: 1 + index in `causes` of its first failing term
        causes: list[str] = []
        canon: list = []  # per position: (codes, texts), (None, array) when trusted, (None, str) when constant
        for position, col in enumerate(columns):
            if isinstance(col, tuple) and len(col[1]) == 1:  # coded, one term: a constant
                col = col[1][0]
            if isinstance(col, str) or (not isinstance(col, tuple) and is_constant(col)):
                # a constant term map: one term, no hashing of every row
                term = col if isinstance(col, str) else col[0]
                texts, reasons, rewritten = self._screen(np.array([term], dtype=object), position)
                changed |= rewritten
                if reasons:
                    why[why == 0] = 1 + _index(causes, reasons[0])
                canon.append((None, texts[0]))
                continue
            if isinstance(col, tuple):
                codes, uniques = col
                if trusted[position] and _all_text(uniques):
                    canon.append((codes, uniques.tolist()))
                    continue
            else:
                if trusted[position] and (text_only or not pd.isna(col).any()):
                    canon.append((None, col))
                    continue
                codes, uniques = pd.factorize(col)
            texts, reasons, rewritten = self._screen(uniques, position)
            changed |= rewritten
            failed = np.zeros(len(texts) + 1, dtype=np.int16)
            failed[-1] = 1 + _index(causes, NOT_NT)  # code -1: a missing value (not from the engine's text)
            for i, reason in reasons.items():
                failed[i] = 1 + _index(causes, reason)
            if reasons or (codes < 0).any():
                rows = failed[codes]
                why = np.where(why == 0, rows, why)
            canon.append((codes, texts))
        bad = why > 0
        if bad.any():
            if stopping():  # --on-data-error stop: the first failing term ends the run
                raise self.stop_error(columns, int(np.argmax(bad)))
            # the dropped rows only: their statements are counted and quoted as examples
            sub = [c if isinstance(c, str) else _texts(c, bad) for c in columns]
            self._drops(sub, None if triple is None else np.asarray(triple, dtype=object)[bad],
                        np.ones(int(np.count_nonzero(bad)), dtype=bool), why[bad], causes)
            if bad.all():
                return
        keep = ~bad if bad.any() else slice(None)
        kept = n - int(np.count_nonzero(bad))
        graph = columns[3]
        if isinstance(graph, str):
            named = np.full(kept, graph != "")
        elif isinstance(graph, tuple):
            named = (np.asarray(graph[1], dtype=object) != "")[graph[0][keep]]
        else:
            named = graph[keep] != ""
        if not changed:
            lines = np.asarray(triple, dtype=object)[keep]
            if named.any():
                runs.add(lines[named], named=True, suffix=" .")
                lines = lines[~named]
            if len(lines):
                runs.add(lines, named=False, suffix=".")
            return
        s, p, o, g = (texts if codes is None and isinstance(texts, str) else texts[keep] if codes is None
                      else np.array(texts + [None], dtype=object)[codes[keep]] for codes, texts in canon)
        if isinstance(s, str) and isinstance(p, str) and isinstance(o, str):  # so that the lines are an array
            s = np.full(kept, s, dtype=object)
        if runs.stream:  # lines joined in C, slice by slice, instead of a new string per row and part
            for kind, rows in ((True, named), (False, ~named)):
                if rows.any():
                    parts = (s, p, o, g) if rows.all() else [t if isinstance(t, str) else t[rows] for t in (s, p, o, g)]
                    runs.add_terms(*parts, named=kind)
            return
        body = s + " " + p + " " + o
        if named.any():
            runs.add(body[named] + " " + (g if isinstance(g, str) else g[named]) + " .", named=True)
            body = body[~named]
        if len(body):
            runs.add(body + " .", named=False)


def _all_text(values) -> bool:
    """Whether every value of an object array is a ``str`` (one join in C)."""
    try:
        "".join(values.tolist())
    except TypeError:
        return False
    return True


def _texts(col, rows):
    """The term texts of the selected ``rows`` of a column given as :meth:`Guard.frame` takes it."""
    if isinstance(col, tuple):
        return np.asarray(col[1], dtype=object)[col[0][rows]]
    return col[rows]


def _value_of(token, reason: str | None) -> tuple[str | None, str]:
    """The data value a failing term token was made from (as far as it can be told) and what was
    expected of it."""
    if not isinstance(token, str):
        return None, "a value"
    m = _IRI_TOKEN.fullmatch(token)
    if m is not None:
        iri = m.group(1)
        if iri.startswith(REF_NS):  # a reference-valued IRI: base/value
            base, _, value = iri[len(REF_NS):].partition("/")
            return unquote(value), ("an absolute IRI (RFC 3987), alone or after the base IRI" if base else
                                    "an absolute IRI (RFC 3987)")
        return unquote(iri), "an absolute IRI (RFC 3987)"
    m = _LITERAL.fullmatch(token)
    if m is not None:
        lex = _unescape(m.group(1))
        if m.group(3) is not None:
            return m.group(3), "a BCP 47 language tag"
        datatype = _XSD_INTEGER if m.group(2) == ENGINE_INTEGER else m.group(2)
        return lex, f"a lexical form of <{datatype}>" if datatype else "a valid literal"
    return token, "a valid N-Triples term" if reason != ILL_IRI else "an absolute IRI (RFC 3987)"


def _index(items: list[str], item: str) -> int:
    if item not in items:
        items.append(item)
    return items.index(item)


def _well_typed(lex: str, datatype: str) -> bool:
    # the very checks SV2 applies to the written file, so a guarded KG passes SV2
    return not _errors(check_literal(lex, datatype))
