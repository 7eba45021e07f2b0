"""SV2 strict RDF syntax check of an N-Triples file, in the manner of Jena RIOT strict.

Two levels, so that a million triples take seconds: pyoxigraph's N-Triples parser
(Rust; W3C RDF 1.1 N-Triples grammar, RFC 3987 IRIs, BCP 47 language tags) reads the
file in chunks, and every *distinct* term is checked once with :mod:`.terms` (IRIs
against RFC 3987 incl. discouraged forms, literals against their XSD datatype's lexical
space, language tags against BCP 47). A line pyoxigraph rejects, or that holds a term
with an issue, is then read by a small N-Triples tokenizer (section 7 grammar) that
gives each diagnostic its line and column.

Severities:
    * ``fatal`` - the line is not an N-Triples statement (unterminated IRI or
      string, a literal as subject, a missing ``.``, a bad escape ...). RIOT
      stops at the first such error; this checker reports it and continues
      with the next line, so one run lists them all.
    * ``error`` - a statement that parses but holds an illegal term.
    * ``warning`` - legal but discouraged forms (see :func:`.terms.check_iri`).

In ``strict`` mode (the default, as RIOT's ``--strict`` with its strict error
handler) an ill-typed literal is an error; with ``strict=False`` it is a
warning, as in RIOT's default mode. ``strict_valid`` = no error and no fatal.

Positions: 1-based line, 1-based column of the first character of the
offending term (the ``<`` of an IRI, the opening ``"`` of a literal, the
``@`` of a language tag) counted in Unicode characters.
"""
from __future__ import annotations

import io
import logging
import re
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import pyoxigraph

from pipeline.findings import Finding
from pipeline.rdffile import line_chunks
from pipeline.validation.java import JVM_FLAGS, java, java_failure, riot_classpath
from pipeline.validation.result import Result
from pipeline.validation.terms import check_iri, check_literal

__all__ = ["check_ntriples", "riot_available", "riot_check"]

log = logging.getLogger(__name__)

_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_BNODE = re.compile(r"_:[A-Za-z0-9_\u00B7-\uFFFF][A-Za-z0-9_\-.\u00B7-\uFFFF]*")
_LANG = re.compile(r"@[A-Za-z0-9_\-]+")
_EXPECTED = {"subject": "an IRI or blank node", "predicate": "an IRI", "object": "an IRI, blank node or literal"}


class _Fatal(Exception):
    def __init__(self, col: int, message: str, code: str = "syntax") -> None:
        super().__init__(message)
        self.col, self.message, self.code = col, message, code


def _unescape(text: str, col: int, allow_echar: bool) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt in ("u", "U"):
            n = 4 if nxt == "u" else 8
            hexs = text[i + 2:i + 2 + n]
            if len(hexs) != n or not re.fullmatch(r"[0-9A-Fa-f]+", hexs):
                raise _Fatal(col, f"bad \\{nxt} escape", "bad-escape")
            out.append(chr(int(hexs, 16)))
            i += 2 + n
        elif allow_echar and nxt in _ECHAR:
            out.append(_ECHAR[nxt])
            i += 2
        else:
            raise _Fatal(col, f"illegal escape \\{nxt}", "bad-escape")
    return "".join(out)


class _Line:
    """Tokenizer for one line; positions are 0-based internally."""

    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def at_end(self) -> bool:
        self.ws()
        return self.i >= len(self.s) or self.s[self.i] == "#"

    def iri(self) -> tuple[str, int]:
        start = self.i
        end = self.s.find(">", start + 1)
        if end < 0:
            raise _Fatal(start, "unterminated IRI (no '>')", "unterminated-iri")
        self.i = end + 1
        return _unescape(self.s[start + 1:end], start, allow_echar=False), start

    def bnode(self) -> tuple[str, int]:
        start = self.i
        m = _BNODE.match(self.s, start)
        if not m:
            raise _Fatal(start, "bad blank node label", "bad-bnode")
        label = m.group(0).rstrip(".")
        self.i = start + len(label)
        return label, start

    def literal(self) -> tuple[str, str | None, str | None, int, int | None, int | None]:
        start, j = self.i, self.i + 1
        while j < len(self.s) and self.s[j] != '"':
            j += 2 if self.s[j] == "\\" else 1
        if j >= len(self.s):
            raise _Fatal(start, "unterminated string literal", "unterminated-literal")
        lex = _unescape(self.s[start + 1:j], start, allow_echar=True)
        self.i = j + 1
        lang = dt = None
        lang_col = dt_col = None
        if self.s.startswith("^^", self.i):
            self.i += 2
            if self.i >= len(self.s) or self.s[self.i] != "<":
                raise _Fatal(self.i, "expected a datatype IRI after '^^'", "syntax")
            dt, dt_col = self.iri()
        elif self.s.startswith("@", self.i):
            m = _LANG.match(self.s, self.i)
            if not m:
                raise _Fatal(self.i, "empty language tag", "bad-language-tag")
            lang, lang_col = m.group(0)[1:], self.i
            self.i = m.end()
        return lex, dt, lang, start, dt_col, lang_col


def _check_line(text: str, lineno: int, strict: bool, out: list[Finding]) -> bool:
    """Tokenize and check one line; append findings; return True when it holds a triple."""
    tk = _Line(text)
    if tk.at_end():
        return False

    def add(sev: str, code: str, msg: str, col: int, term: str) -> None:
        out.append(Finding(severity=sev, message=msg, location=f"line {lineno}, column {col + 1}", line=lineno,
                           column=col + 1, term=term, code=code))

    def check_iri_term(value: str, col: int, raw_end: int) -> None:
        for sev, code, msg in check_iri(value):
            add(sev, code, msg, col, text[col:raw_end])

    try:
        for role in ("subject", "predicate", "object"):
            tk.ws()
            ch = tk.s[tk.i:tk.i + 1]
            if ch == "<":
                value, col = tk.iri()
                check_iri_term(value, col, tk.i)
            elif ch == "_" and role != "predicate":
                tk.bnode()
            elif ch == '"' and role == "object":
                lex, dt, lang, col, dt_col, lang_col = tk.literal()
                raw = text[col:tk.i]
                if dt is not None and dt_col is not None:
                    check_iri_term(dt, dt_col, text.find(">", dt_col) + 1)
                for sev, code, msg in check_literal(lex, dt, lang):
                    if code == "ill-typed-literal" and not strict:
                        sev = "warning"
                    where = lang_col if code == "bad-language-tag" and lang_col is not None else col
                    add(sev, code, msg, where, raw)
            else:
                found = ch or "end of line"
                raise _Fatal(tk.i, f"expected {_EXPECTED[role]} as {role}, found {found!r}", "syntax")
        tk.ws()
        if tk.s[tk.i:tk.i + 1] != ".":
            raise _Fatal(tk.i, "expected '.' at the end of the triple", "syntax")
        tk.i += 1
        if not tk.at_end():
            raise _Fatal(tk.i, "unexpected text after '.'", "syntax")
    except _Fatal as exc:
        add("fatal", exc.code, exc.message, exc.col, text[exc.col:exc.col + 40])
        return False
    return True


_BLANK_OR_COMMENT = re.compile(r"^[ \t]*(?:#.*)?$")
_OXI_LINE = re.compile(r"on line (\d+)")
_CHUNK_BYTES = 32 << 20
_MAX_RESTARTS = 50  # parse errors in one chunk before its remaining lines go to the line checker
_MAX_NEEDLES = 5000  # distinct faulty terms located by one pattern; beyond, every line is rechecked


def _term_issues(term: Any) -> list:
    """The :mod:`.terms` issues of one distinct pyoxigraph term (an IRI, or a literal with its datatype)."""
    if isinstance(term, pyoxigraph.NamedNode):
        return check_iri(term.value)
    if isinstance(term, pyoxigraph.Literal):
        lang = term.language
        dt = None if lang else term.datatype.value
        return (check_iri(dt) if dt is not None else []) + check_literal(term.value, dt, lang)
    return []  # a blank node: pyoxigraph checked its label


def _needle(term: Any) -> str | None:
    """Text every line holding ``term`` contains, unless it was written with an escape (such lines are
    rechecked whatever they hold, :func:`_recheck`): the IRI in brackets, a literal's quoted lexical
    form. ``None`` when the serialization itself escapes a character (then no text is certain)."""
    text = str(term) if isinstance(term, pyoxigraph.NamedNode) else str(pyoxigraph.Literal(term.value))
    return None if "\\" in text else text


class _Scan:
    """Counts and findings of one file; lines go either through the bulk path or the line checker."""

    def __init__(self, strict: bool, max_findings: int, on_triple: Callable[[Any, Any, Any], None] | None) -> None:
        self.strict, self.max_findings, self.on_triple = strict, max_findings, on_triple
        self.findings: list[Finding] = []
        self.counts = {"warning": 0, "error": 0, "fatal": 0}
        self.n_triples = 0
        self.by_line: set[int] = set()
        self.nodes: set[Any] = set()  # distinct subjects and predicates (pyoxigraph terms)
        self.objects: set[Any] = set()

    def line(self, text: str, lineno: int) -> None:
        """The exact line checker (:func:`_check_line`) for one line."""
        local: list[Finding] = []
        self.n_triples += _check_line(text, lineno, self.strict, local)
        self.by_line.add(lineno)
        for f in local:
            self.counts[f.severity] += 1
            if len(self.findings) < self.max_findings:
                self.findings.append(f)

    def _parse(self, data: bytes) -> int:
        """Parse ``data`` with pyoxigraph, collecting distinct terms (and passing each triple to
        ``on_triple``) until the end or the first error, which propagates; returns the triples read."""
        nodes, objects, observe = self.nodes, self.objects, self.on_triple
        n = 0
        try:
            if observe is None:
                for s, p, o in pyoxigraph.parse(io.BytesIO(data), "application/n-triples"):
                    nodes.add(s)
                    nodes.add(p)
                    objects.add(o)
                    n += 1
            else:
                for s, p, o in pyoxigraph.parse(io.BytesIO(data), "application/n-triples"):
                    nodes.add(s)
                    nodes.add(p)
                    objects.add(o)
                    n += 1
                    observe(s, p, o)
        except SyntaxError as exc:
            exc.n_read = n
            raise
        return n

    def chunk(self, data: bytes, first: int) -> None:
        """Parse ``data`` (whole lines, numbered from ``first``) with pyoxigraph; rejected lines go to
        :meth:`line`, the triples of the others are counted and their distinct terms collected for
        the bulk term checks. The lines are split only when pyoxigraph rejects one."""
        text = data.decode("utf-8")  # a file that is no UTF-8 is unreadable, not a syntax error
        lines: list[str] = []
        bad: list[int] = []
        start = 0  # the first line of ``data``
        while True:
            try:
                self.n_triples += self._parse(data)
                break
            except SyntaxError as exc:
                if not lines:
                    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
                    if "\r" in text:
                        lines = [ln.rstrip("\r") for ln in lines]
                    if first == 1:
                        lines[0] = lines[0].lstrip("\ufeff")
                m = _OXI_LINE.search(str(exc))
                if not m:  # no position: let the line checker judge the rest
                    bad.extend(range(start, len(lines)))
                    break
                at = start + int(m.group(1)) - 1
                # a statement pyoxigraph read on the rejected line itself ("<a> <b> <c> . <d> ...") is
                # the line checker's to count: the statements before it are those of the lines before
                before = sum(1 for ln in lines[start:at] if not _BLANK_OR_COMMENT.fullmatch(ln))
                self.n_triples += min(exc.n_read, before)
                bad.append(at)
                start = at + 1
                if start >= len(lines):
                    break
                if len(bad) >= _MAX_RESTARTS:
                    bad.extend(range(start, len(lines)))
                    break
                data = ("\n".join(lines[start:]) + "\n").encode("utf-8")
        for i in bad:
            self.line(lines[i], first + i)

    def faulty(self) -> set[Any]:
        """The distinct terms read by pyoxigraph that :mod:`.terms` finds an issue in."""
        return {t for t in self.nodes if _term_issues(t)} | {t for t in self.objects if _term_issues(t)}


def check_ntriples(path: str | Path, *, strict: bool = True, max_findings: int = 10_000,
                   on_triple: Callable[[Any, Any, Any], None] | None = None) -> Result:
    """SV2: check an N-Triples file strictly.

    One pass of pyoxigraph's (Rust) N-Triples parser checks the syntax and RFC 3987 IRIs
    and BCP 47 language tags, chunk by chunk; each distinct term is then checked once with
    :mod:`.terms` (XSD lexical forms, discouraged IRI forms), and only the lines that hold
    a term with an issue, or that pyoxigraph rejects, go through the line checker, so
    every finding keeps its line and column and the counts stay those of the line checker.

    Args:
        path: an N-Triples file (UTF-8).
        strict: ill-typed literals are errors (``True``) or warnings (``False``).
        max_findings: keep at most this many findings (counts stay exact).
        on_triple: called with ``(subject, predicate, object)`` (pyoxigraph terms) for every triple
            pyoxigraph reads, in file order, so that one pass of the parser serves another reader
            too (the subject sample, :class:`pipeline.validation.sample.SubjectSample`); not for the
            lines pyoxigraph rejects (the line checker's).
    Returns:
        ``Result(name="SV2", value=strict_valid)`` with ``details`` =
        ``{"N_warn", "N_err", "N_fatal", "n_lines", "n_triples", "strict_valid", "strict"}``
        and one :class:`Finding` per diagnostic (severity, line, column,
        message, offending term). An unreadable file gives ``status="failed"``.
    """
    t0 = time.perf_counter()
    scan = _Scan(strict, max_findings, on_triple)
    n_lines = 0
    try:
        for data in line_chunks(path, _CHUNK_BYTES):  # whole lines: a chunk ends where a line does
            scan.chunk(data, n_lines + 1)
            n_lines += data.count(b"\n") + (not data.endswith(b"\n"))
        faulty = scan.faulty()
        if faulty:
            _recheck(path, faulty, scan)
    except (OSError, UnicodeDecodeError) as exc:
        return Result("SV2", None, status="failed", elapsed_s=time.perf_counter() - t0,
                      findings=[Finding(severity="fatal", message=f"cannot read {path}: {exc}", location=str(path),
                                        code="unreadable")])
    counts = scan.counts
    scan.findings.sort(key=lambda f: f.line or 0)
    valid = counts["error"] == 0 and counts["fatal"] == 0
    details = {"N_warn": counts["warning"], "N_err": counts["error"], "N_fatal": counts["fatal"],
               "n_lines": n_lines, "n_triples": scan.n_triples, "strict_valid": valid, "strict": strict}
    log.info("SV2 %s: %d triples (%d lines by the line checker), %d warnings, %d errors, %d fatal in %.2f s", path,
             scan.n_triples, len(scan.by_line), counts["warning"], counts["error"], counts["fatal"],
             time.perf_counter() - t0)
    return Result("SV2", valid, findings=scan.findings, details=details, elapsed_s=time.perf_counter() - t0)


def _recheck(path: str | Path, faulty: set[Any], scan: _Scan) -> None:
    """Run the line checker on the lines (accepted by pyoxigraph) that hold a faulty term: those
    holding its text (:func:`_needle`), and every line with an escape (a term may be written there
    in another form); every line when a term has no certain text or there are too many terms."""
    texts = [_needle(t) for t in faulty]
    needle = re.compile("|".join(map(re.escape, sorted(set(texts), key=len, reverse=True))) + r"|\\") \
        if len(texts) <= _MAX_NEEDLES and None not in texts else None
    done = set(scan.by_line)  # lines pyoxigraph rejected were checked already
    n_triples = scan.n_triples
    with open(path, encoding="utf-8", newline="") as fh:
        for lineno, raw in enumerate(fh, start=1):
            text = raw.rstrip("\r\n")
            if lineno == 1:
                text = text.lstrip("\ufeff")
            if lineno in done or (needle is not None and not needle.search(text)):
                continue
            scan.line(text, lineno)
    scan.n_triples = n_triples  # these lines were counted as triples by the bulk path


def riot_available() -> bool:
    """True when Java and Jena's jars (Debian's ``libapache-jena-java``, or ``$JENA_HOME/lib``) are installed."""
    return java() is not None and riot_classpath() is not None


_RIOT_LINE = re.compile(r"(ERROR|WARN|FATAL)\s.*?\[line: (\d+), col: (\d+)\s*\]\s*(.*)")


def riot_check(path: str | Path, *, timeout_s: float = 120.0) -> Result:
    """Cross-check a file with real Jena RIOT (``riotcmd.riot --strict --validate``).

    The classpath is built from the jars named (:func:`pipeline.validation.java.riot_classpath`).

    Returns:
        ``Result(name="SV2-riot", value=strict_valid)`` with ``N_warn``/``N_err``/
        ``N_fatal`` parsed from RIOT's log lines; ``status="not_applicable"`` when
        Java or Jena is missing; ``not_run`` (with ``details["reason"]``) when the JVM cannot
        start RIOT; ``timeout``/``failed`` when RIOT does not finish.
    """
    cp = riot_classpath()
    exe = java()
    if cp is None or exe is None:
        return Result.not_applicable("SV2-riot", "Java or the Jena jars (libapache-jena-java) are not installed")
    t0 = time.perf_counter()
    cmd = [exe, *JVM_FLAGS, "-cp", cp, "riotcmd.riot", "--strict", "--validate", "--syntax=ntriples", str(path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        reason = f"RIOT did not finish within {timeout_s:g} s"
        return Result("SV2-riot", None, status="timeout", elapsed_s=time.perf_counter() - t0,
                      details={"reason": reason}, findings=[Finding(severity="error", message=reason, code="riot-timeout")])
    except OSError as exc:
        reason = f"the JVM could not start RIOT: {exc}"
        return Result("SV2-riot", None, status="not_run", elapsed_s=time.perf_counter() - t0, details={"reason": reason},
                      findings=[Finding(severity="error", message=reason, code="riot-not-run")])
    findings = []
    for m in _RIOT_LINE.finditer(proc.stdout + "\n" + proc.stderr):
        sev = {"ERROR": "error", "WARN": "warning", "FATAL": "fatal"}[m.group(1)]
        findings.append(Finding(severity=sev, message=m.group(4).strip(),
                                location=f"line {m.group(2)}, column {m.group(3)}", line=int(m.group(2)),
                                column=int(m.group(3)), code="riot"))
    if proc.returncode != 0 and not findings:
        status, reason = java_failure(proc.stdout + "\n" + proc.stderr, "RIOT")
        return Result("SV2-riot", None, status=status, elapsed_s=time.perf_counter() - t0, details={"reason": reason},
                      findings=[Finding(severity="error", message=reason, code=f"riot-{status.replace('_', '-')}")])
    n = {s: sum(f.severity == s for f in findings) for s in ("warning", "error", "fatal")}
    valid = n["error"] == 0 and n["fatal"] == 0 and proc.returncode == 0
    return Result("SV2-riot", valid, findings=findings, elapsed_s=time.perf_counter() - t0,
                  details={"N_warn": n["warning"], "N_err": n["error"], "N_fatal": n["fatal"],
                           "strict_valid": valid, "returncode": proc.returncode})
