"""Competency questions (CQs): load SPARQL files, answer them on both KGs, score PQ1-PQ6.

A CQ file is a SPARQL ``SELECT`` or ``ASK`` query whose first lines are
comments: ``# CQ: <natural-language statement>`` (required) and optionally
``# CASES: 1, 2`` (the cases the CQ applies to; absent = every case of its
folder). Answers are sets of rows; a row is the tuple of its values in
projection order, literals compared by value (:func:`.align.term_key`); an
``ASK`` answer is the single row ``(True,)`` or ``(False,)``. Gold answers
come from the gold KG; predicted entities are renamed to their gold names
first when an alignment is given.

Per CQ *i* with predicted answers ``A_p`` and gold answers ``A_g`` (the
KG-quality benchmark's definitions): correctness ``c_i = |A_p ∩ A_g| / |A_p|``,
completeness ``m_i = |A_p ∩ A_g| / |A_g|``, ``f_i`` their F1; a query that fails
on the predicted KG scores 0; ``A_p = ∅ ≠ A_g`` scores c = m = 0. A CQ whose gold
answer is empty (``A_g = ∅``) is *not scorable*: listed in ``per_cq`` with status
``not_scorable`` and the KG's answer, left out of PQ1-PQ6 (``details["not_scorable"]``): an empty
gold answer cannot tell a right "nothing" from a gold KG that lacks the answer (gold-table
rows that did not compile), so it would score 1 for an empty answer and 0 for a right one.
A CQ that cannot be run is *not run*: named (file, line, why) and left out of PQ1-PQ6, which then
say they are partial: a query that does not parse, or uses a prefix it does not declare (an error
in SPARQL 1.1 Query, section 4.1.1, though rdflib resolves its own bindings), is *malformed*; one
that calls a remote endpoint (``SERVICE``, SPARQL 1.1 Federated Query) or names other graphs
(``FROM``, ``FROM NAMED``: rdflib loads them from the web) is *refused*, since kgc runs offline and
answers on the KG; one that raises when run on the gold KG has *failed* (:func:`cannot_run`).
Without a gold KG nothing is scored: :func:`answer_cqs` still runs every CQ on the KG and lists
its answer (its size: rows, or the ``ASK`` result) with status ``not_scored``, so the questions
tell the user what the KG answers; a CQ that cannot run is *not run* as above.
A file without a ``# CQ:`` line states no question: it is still answered
(its query may be fine) but ``statement`` is ``None`` and :func:`score_cqs`
reports it (``cq-no-statement``), never as an empty statement.

* **PQ1** correctness, **PQ2** completeness, **PQ3** F1: ``value`` = macro mean
  over CQs; ``details["micro"]`` = ``Σ|A_p∩A_g| / Σ|A_p|``, ``/ Σ|A_g|`` and their F1.
* **PQ4** exact CQ satisfaction: share of CQs with ``A_p == A_g``.
* **PQ5** hierarchy-aware F1 for CQs whose answers hold ontology terms: rows are
  paired one-to-one by maximum weight, a row pair weighing the product over
  columns of ``hscore`` for ontology terms and exact match otherwise
  (:mod:`.hierarchy`); mean over those CQs, ``None`` when there are none.
* **PQ6** answerability: share of the CQs the gold KG answers that the predicted KG answers too.
  A KG *answers* a CQ when its answer carries information from the KG (:func:`answers`): an
  answer that differs from the one an empty graph gives (the empty graph's answer being no row,
  ``ASK`` ``false``, ``COUNT`` ``0``), or the empty graph's answer from a KG that holds what the
  question is about: it uses every vocabulary term (predicate, class of an ``rdf:type`` pattern;
  RDF, RDFS, OWL and XSD terms aside) of the query's required patterns (``OPTIONAL`` and
  ``MINUS`` parts and ``FILTER`` expressions aside). So an empty KG answers nothing, while
  ``false`` from a KG that has orders answers "Is there an order over 1000?". The PQ papers
  (Wiśniewski et al., 2019) define a CQ as answerable when the KG yields an answer to its
  SPARQL form; "yields an answer" is made operational here.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD
from rdflib.paths import Path as PropertyPath
from pyparsing import ParseResults
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

from pipeline.findings import Finding
from pipeline.validation.result import Result
from pipeline.scoring.graph.align import Alignment, term_key
from pipeline.scoring.graph.hierarchy import Hierarchy, max_weight_matching

__all__ = ["CompetencyQuestion", "load_competency_questions", "syntax_error", "cannot_run", "answer", "answers",
           "question_terms", "score_cqs", "answer_cqs", "answer_size", "cq_counts", "cq_sentence", "pq_note", "NOT_RUN_KINDS"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CompetencyQuestion:
    """One CQ: ``id`` (file stem), ``statement`` (``None``: the file has no ``# CQ:`` line), SPARQL ``query``,
    ``path``, ``cases`` (``None`` = all)."""

    id: str
    statement: str | None
    query: str
    path: Path | None = None
    cases: tuple[str, ...] | None = None


def _parse(path: Path) -> CompetencyQuestion:
    text = path.read_text(encoding="utf-8")
    statement: str | None = None
    cases = None
    for line in text.splitlines():
        m = re.match(r"^\s*#\s*CQ:\s*(.*\S)\s*$", line)
        if m and statement is None:
            statement = m.group(1).strip()
        m = re.match(r"^\s*#\s*CASES:\s*(.+)$", line)
        if m:
            cases = tuple(c.strip() for c in re.split(r"[,\s]+", m.group(1)) if c.strip())
    return CompetencyQuestion(path.stem, statement, text, path, cases)


#: The CQ files whose missing ``# CQ:`` line this process has warned of.
_WARNED: set[Path] = set()


def load_competency_questions(paths: Iterable[str | Path], case: str | None = None) -> list[CompetencyQuestion]:
    """Read ``.rq`` files and folders of them (recursively, sorted by path).

    Args:
        paths: files or folders.
        case: keep only CQs whose ``# CASES:`` line names this case (or that have none).
    Returns:
        The CQs; a missing path is skipped with a log warning (never raises on data).
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.rglob("*.rq"))
        elif p.is_file():
            files.append(p)
        else:
            log.warning("competency question path not found: %s", p)
    cqs = [_parse(f) for f in files]
    for c in cqs:
        if c.statement is None and c.path not in _WARNED:
            # a run reads its CQs at its check and at its score stage: the warning is for the file, once
            _WARNED.add(c.path)
            log.warning("%s: no '# CQ: <statement>' line; the query is answered without a stated question", c.path)
    return [c for c in cqs if case is None or c.cases is None or case in c.cases]


def syntax_error(cq: CompetencyQuestion) -> Finding | None:
    """The SPARQL parser's error on ``cq`` as a finding naming the file, the question and the
    parser's line and column (lines of the ``.rq`` file, comments included), else ``None``.

    A query that does not parse cannot be answered on either KG: :func:`score_cqs` reports it
    as not run (``cq-syntax``) and scores the other CQs.
    """
    try:
        prepareQuery(cq.query)
    except Exception as exc:  # noqa: BLE001 - pyparsing's ParseException, or rdflib's errors on prefixes
        line, col = getattr(exc, "lineno", None), getattr(exc, "col", None)
        # pyparsing appends "(at char N), (line:L, col:C)": the position is given apart
        why = " ".join(re.sub(r"\s*\(at char \d+\),\s*\(line:\d+, col:\d+\)", "", str(exc)).split())
        at = f" at line {line}, column {col}" if line else ""
        question = f" ({cq.statement})" if cq.statement else ""
        return Finding(severity="error", message=f"CQ {cq.id}{question}: SPARQL syntax error{at}: {why}; not run",
                       location=str(cq.path) if cq.path else cq.id, line=line, column=col, code="cq-syntax")
    return None


#: How a CQ that is not run is said, by its finding's code (:func:`cannot_run`, :func:`score_cqs`).
NOT_RUN_KINDS = {"cq-syntax": "malformed", "cq-prefix": "malformed", "cq-remote": "refused",
                 "cq-gold-failed": "failed"}


def _nodes(node: Any) -> Iterable[Any]:
    """Every node of rdflib's SPARQL parse tree (CompValues, parse results and their leaves)."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, CompValue):
            stack.extend(dict.values(x))  # the raw values: CompValue.get resolves variables
        elif isinstance(x, (list, tuple, ParseResults)):
            stack.extend(x)


def _line_of(text: str, pattern: str) -> int | None:
    """The 1-based line of the first match of ``pattern`` (case-insensitive) outside a comment line."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith("#") and re.search(pattern, line, re.IGNORECASE):
            return n
    return None


def cannot_run(cq: CompetencyQuestion) -> Finding | None:
    """Why ``cq`` is not run on either KG, before it is run, as an ``error`` finding naming the file, the
    question and the line; ``None`` when it can run.

    In order: a SPARQL syntax error (:func:`syntax_error`, code ``cq-syntax``); a prefixed name whose
    prefix the query does not declare (``cq-prefix``: SPARQL 1.1 Query, section 4.1.1, makes it an
    error; rdflib would read it with its own bindings, ``schema:`` as ``https://schema.org/``, which
    another store rejects); a ``SERVICE`` call or a ``FROM``/``FROM NAMED`` clause (``cq-remote``:
    SPARQL 1.1 Federated Query makes ``SERVICE`` a request to a remote endpoint, and rdflib loads the
    graphs a dataset clause names from the web; a CQ is answered on the KG, offline).
    """
    bad = syntax_error(cq)
    if bad is not None:
        return bad
    where = str(cq.path) if cq.path else cq.id
    question = f" ({cq.statement})" if cq.statement else ""
    tree = parseQuery(cq.query)
    declared = {dict.get(x, "prefix") or "" for x in _nodes(tree) if isinstance(x, CompValue) and x.name == "PrefixDecl"}
    undeclared = sorted({dict.get(x, "prefix") or "" for x in _nodes(tree) if isinstance(x, CompValue) and x.name == "pname"}
                        - declared)
    if undeclared:
        line = _line_of(cq.query, rf"(?<![\w<]){re.escape(undeclared[0])}:")
        return Finding(severity="error", message=f"CQ {cq.id}{question}: prefix '{undeclared[0]}:' is used but not "
                       "declared (a PREFIX line is required: SPARQL 1.1 Query, section 4.1.1); not run",
                       location=where, line=line, code="cq-prefix")
    for x in _nodes(tree):
        if isinstance(x, CompValue) and x.name == "ServiceGraphPattern":
            return Finding(severity="error", message=f"CQ {cq.id}{question}: SERVICE <{dict.get(x, 'term')}> calls a remote "
                           "SPARQL endpoint (SPARQL 1.1 Federated Query); kgc runs offline and answers a competency "
                           "question on the KG only; not run", location=where,
                           line=_line_of(cq.query, r"\bSERVICE\b"), code="cq-remote")
        if isinstance(x, CompValue) and x.name == "DatasetClause":
            named = dict.get(x, "default") or dict.get(x, "named")
            return Finding(severity="error", message=f"CQ {cq.id}{question}: FROM <{named}> names a graph rdflib would "
                           "load from the web (SPARQL 1.1 Query, section 13.2); kgc answers a competency question on "
                           "the KG only (no FROM clause); not run", location=where,
                           line=_line_of(cq.query, r"\bFROM\b"), code="cq-remote")
    return None


def answer(g: Graph, cq: CompetencyQuestion) -> set[tuple]:
    """Run one CQ on ``g``; the answer as a set of rows of :func:`.align.term_key` values.

    Raises:
        Exception: whatever rdflib raises for a bad query (:func:`score_cqs` catches it).
    """
    res = g.query(cq.query)
    if res.type == "ASK":
        return {(bool(res.askAnswer),)}
    return {tuple(term_key(v) if v is not None else None for v in row) for row in res}


#: Namespaces whose terms say nothing about what a question is about (every KG may use them).
_BUILTIN = tuple(str(ns) for ns in (RDF, RDFS, OWL, XSD))


def _path_terms(path: Any) -> Iterable[URIRef]:
    if isinstance(path, URIRef):
        yield path
    elif isinstance(path, PropertyPath):
        for v in vars(path).values():
            for x in (v if isinstance(v, (list, tuple)) else [v]):
                yield from _path_terms(x)


def _pattern_terms(node: Any, out: set[tuple[str, URIRef]]) -> None:
    if isinstance(node, (list, tuple)):
        for x in node:
            _pattern_terms(x, out)
        return
    if not isinstance(node, CompValue):
        return
    if node.name == "BGP":
        for _, p, o in node.get("triples") or ():
            if p == RDF.type and isinstance(o, URIRef):
                out.add(("class", o))
            for t in _path_terms(p):
                out.add(("property", t))
    for key, value in node.items():
        if key == "expr" or (key == "p2" and node.name in ("LeftJoin", "Minus")):
            continue  # FILTER expressions, OPTIONAL and MINUS parts: not required by the question
        _pattern_terms(value, out)


def question_terms(cq: CompetencyQuestion) -> set[tuple[str, URIRef]]:
    """The vocabulary terms a CQ is about: ``("property", IRI)`` for each predicate (in property
    paths too) and ``("class", IRI)`` for each class of an ``rdf:type`` pattern, in the query's
    required patterns; RDF, RDFS, OWL and XSD terms left out.

    Raises:
        Exception: whatever rdflib raises for a query that does not parse.
    """
    out: set[tuple[str, URIRef]] = set()
    _pattern_terms(prepareQuery(cq.query).algebra, out)
    return {(kind, t) for kind, t in out if not str(t).startswith(_BUILTIN)}


def answers(g: Graph, cq: CompetencyQuestion, rows: set[tuple] | None) -> bool:
    """Whether ``rows`` (``g``'s answer to ``cq``, None when the query failed) is an answer from ``g``
    for PQ6 (module docstring): not the empty graph's answer, or the empty graph's answer from a
    KG that uses every term :func:`question_terms` gives.
    """
    if not rows:
        return False
    if rows != answer(Graph(), cq):
        return True
    terms = question_terms(cq)
    return bool(terms) and all((None, t, None) in g if kind == "property" else (None, RDF.type, t) in g
                               for kind, t in terms)


#: Answer rows kept per CQ for reports (``expected`` / ``actual`` in ``per_cq``).
ANSWER_SAMPLE = 5


def _show(rows: set | None) -> list[str] | None:
    """Up to :data:`ANSWER_SAMPLE` answer rows as text (sorted), for a reader to compare."""
    if rows is None:
        return None

    def cell(v: Any) -> str:
        if isinstance(v, tuple) and v and v[0] == "lit":  # quoted as N-Triples writes a string (STRING_LITERAL_QUOTE)
            text = str(v[3]).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
            return f'"{text}"' + (f"@{v[2]}" if v[2] else "")
        return "(none)" if v is None else str(v)

    return sorted(", ".join(cell(v) for v in r) for r in rows)[:ANSWER_SAMPLE]


def _row_weight(h: Hierarchy, a: tuple, b: tuple) -> float:
    w = 1.0
    for x, y in zip(a, b):
        if x == y:
            continue
        if isinstance(x, URIRef) and isinstance(y, URIRef):
            w *= h.hscore(x, y)
        else:
            return 0.0
        if w == 0:
            return 0.0
    return w


def _literal_signature(row: tuple) -> tuple:
    # rows can pair (weight > 0) only when they agree on every position that is not an IRI
    return tuple(None if isinstance(v, URIRef) else ("v", v) for v in row)


def _h_precision_recall(h: Hierarchy, ap: set, ag: set) -> tuple[float, float]:
    """Hierarchy-aware precision and recall of answer rows ``ap`` against ``ag``.

    Identical answers score 1 without a matching (every weight is at most 1). Otherwise the
    rows both answers hold pair with each other (weight 1, as SA2's hierarchy-aware credit
    does), and the rest are paired by a maximum-weight matching on bounded candidates: rows
    that agree on their literal positions (:func:`.hierarchy.max_weight_matching` blocks).
    """
    if ap == ag:
        return 1.0, 1.0
    common = ap & ag
    tot = len(common) + max_weight_matching(sorted(ap - common, key=str), sorted(ag - common, key=str),
                                            lambda a, b: _row_weight(h, a, b), block=_literal_signature)[0]
    return tot / len(ap), tot / len(ag)


def _is_term(h: Hierarchy, v: Any) -> bool:
    return isinstance(v, URIRef) and ((v, None, None) in h.graph or (None, None, v) in h.graph)


def _prf_cq(ap: set | None, ag: set, inter: float) -> tuple[float, float, float]:
    if ap is None:
        return 0.0, 0.0, 0.0
    if not ap and not ag:
        return 1.0, 1.0, 1.0
    if not ap:
        return 0.0, 0.0, 0.0
    if not ag:
        return 0.0, 1.0, 0.0
    c, m = inter / len(ap), inter / len(ag)
    return c, m, (0.0 if c + m == 0 else 2 * c * m / (c + m))


def score_cqs(pred: Graph, gold: Graph, cqs: Iterable[CompetencyQuestion], ontology: Any = None,
              alignment: Alignment | None = None) -> dict[str, Result]:
    """PQ1-PQ6 of a predicted KG on a set of CQs (definitions in the module docstring).

    Args:
        pred, gold: KGs; ontology: schema (+ SKOS) graph for PQ5's hierarchy.
        cqs: the competency questions; alignment: optional entity alignment.
    Returns:
        ``{"PQ1": ..., "PQ6": ...}``; each not applicable when no CQ could be
        answered on the gold KG. ``PQ3.details["per_cq"]`` lists, per CQ, id,
        statement, status, sizes of ``A_p``/``A_g``/intersection, c, m, f, and up to
        :data:`ANSWER_SAMPLE` rows of each answer as text (``expected``, ``actual``).
    """
    t0 = time.perf_counter()
    cqs = list(cqs)
    tpred: Graph | None = None if alignment is not None else pred   # renamed when a CQ is first answered
    h = Hierarchy(ontology)
    per: list[dict[str, Any]] = []
    not_run: list[dict[str, Any]] = []  # CQs that do not parse: listed, never scored
    unscorable: list[dict[str, Any]] = []  # CQs whose gold answer is empty: listed, never scored
    findings: list[Finding] = []
    for cq in cqs:
        where = str(cq.path) if cq.path else cq.id
        findings += _no_statement(cq, where)
        bad = cannot_run(cq)
        if bad is None:
            try:
                ag = answer(gold, cq)
            except Exception as exc:  # noqa: BLE001 - a bad CQ is reported, not raised
                why = " ".join(str(exc).split())[:300]
                bad = Finding(severity="error", message=f"CQ {cq.id}{f' ({cq.statement})' if cq.statement else ''}: "
                              f"the query fails when run on the gold KG: {type(exc).__name__}"
                              f"{': ' + why if why else ''}; not run", location=where, code="cq-gold-failed")
        if bad is not None:
            findings.append(bad)
            not_run.append(_not_run_row(cq, bad))
            continue
        if tpred is None:
            tpred = alignment.translate(pred)
        try:
            ap: set | None = answer(tpred, cq)
        except Exception as exc:  # noqa: BLE001
            findings.append(Finding(severity="warning", message=f"CQ fails on the predicted KG: {exc}", location=where,
                                    code="cq-failed"))
            ap = None
        if not ag:  # nothing to compare with: neither a hit nor a miss (a partial gold often lacks the answer)
            unscorable.append({"id": cq.id, "statement": cq.statement, "status": "not_scorable", "f1": None,
                               "correctness": None, "completeness": None, "satisfied": None,
                               "n_pred": len(ap) if ap is not None else None, "n_gold": 0, "n_common": None,
                               "expected": [], "actual": _show(ap),
                               "reason": "the gold KG gives no answer: not scorable"})
            findings.append(Finding(severity="info", message=f"CQ {cq.id} ({cq.statement}): the gold KG gives no "
                                    "answer, so the KG's answer cannot be scored; left out of PQ1-PQ6",
                                    location=where, code="cq-not-scorable"))
            continue
        inter = len(ap & ag) if ap is not None else 0
        c, m, f = _prf_cq(ap, ag, inter)
        row: dict[str, Any] = {"id": cq.id, "statement": cq.statement, "status": "failed" if ap is None else "ok",
                               "n_pred": len(ap) if ap is not None else None, "n_gold": len(ag),
                               "n_common": inter, "correctness": c, "completeness": m, "f1": f,
                               "satisfied": ap is not None and ap == ag,
                               "gold_answers": answers(gold, cq, ag), "answered": answers(tpred, cq, ap),
                               "expected": _show(ag), "actual": _show(ap)}
        if any(_is_term(h, v) for r in (ag | (ap or set())) for v in r):
            if ap is None or bool(ap) != bool(ag):
                row["h_f1"] = 0.0
            elif not ap:
                row["h_f1"] = 1.0
            else:
                hp, hr = _h_precision_recall(h, ap, ag)
                row["h_f1"] = 0.0 if hp + hr == 0 else 2 * hp * hr / (hp + hr)
        if not row["satisfied"]:
            findings.append(Finding(severity="info", message=f"CQ {cq.id} not satisfied ({cq.statement}): f1={f:.3f}",
                                    location=where, code="cq-unsatisfied"))
        per.append(row)
    elapsed = time.perf_counter() - t0
    partial = {"n_cqs_total": len(cqs), "not_run": [r["id"] for r in not_run],
               "not_run_where": [[r["why"], _where(r)] for r in not_run],
               "reason": f"{len(not_run)} of {len(cqs)} CQ(s) not run: " + _not_run_words(
                   [(r["why"], f"{r['file']}:{r['line']}" if r["line"] else r["file"]) for r in not_run])
               } if not_run else {}
    if not per:
        why = "no competency question could be answered on the gold KG" if cqs else \
            "the case has no competency questions: the manifest key competency_questions names none"
        if unscorable:
            why = f"the gold KG gives no answer to any of the {len(unscorable)} competency question(s): not scorable"
        first = next((f for f in findings if f.severity == "error"), None)
        if first is not None:  # the reason a CQ failed (a query syntax error ...) must reach the user
            why += f"; first: {first.location}: {' '.join(first.message.split())[:300]}"
        names = ("PQ1", "PQ2", "PQ3", "PQ4", "PQ5", "PQ6")
        if not_run:  # the CQs apply but none could run: not run, never "not applicable"
            return {n: Result(n, None, status="not_run", findings=list(findings),
                              details={**partial, "reason": why, **({"per_cq": not_run} if n == "PQ3" else {})})
                    for n in names}
        out = {n: Result.not_applicable(n, why) for n in names}
        for r in out.values():
            r.findings.extend(findings)
        if unscorable:
            out["PQ3"].details = {"per_cq": unscorable, "not_scorable": [r["id"] for r in unscorable]}
        return out
    n = len(per)
    s_common = sum(r["n_common"] for r in per)
    s_pred = sum(r["n_pred"] or 0 for r in per)
    s_gold = sum(r["n_gold"] for r in per)
    mp = s_common / s_pred if s_pred else None
    mr = s_common / s_gold if s_gold else None
    mf = None if mp is None or mr is None else (0.0 if mp + mr == 0 else 2 * mp * mr / (mp + mr))
    # a CQ that did not parse is left out of every mean and named: the PQ scores cover n CQs of n_cqs_total
    base = {"n_cqs": n, "n_failed": sum(r["status"] == "failed" for r in per), **partial,
            **({"not_scorable": [r["id"] for r in unscorable]} if unscorable else {})}
    out = {
        "PQ1": Result("PQ1", sum(r["correctness"] for r in per) / n, details={**base, "micro": mp}),
        "PQ2": Result("PQ2", sum(r["completeness"] for r in per) / n, details={**base, "micro": mr}),
        "PQ3": Result("PQ3", sum(r["f1"] for r in per) / n, findings=findings,
                      details={**base, "micro": mf, "per_cq": per + unscorable + not_run}),
        "PQ4": Result("PQ4", sum(r["satisfied"] for r in per) / n,
                      details={**base, "n_satisfied": sum(r["satisfied"] for r in per)}),
    }
    hier = [r["h_f1"] for r in per if "h_f1" in r]
    out["PQ5"] = (Result("PQ5", sum(hier) / len(hier), details={**base, "n_applicable": len(hier)}) if hier
                  else Result.not_applicable("PQ5", "no CQ answer holds an ontology term"))
    answerable = [r for r in per if r["gold_answers"]]
    ok = [r for r in answerable if r["answered"]]
    out["PQ6"] = (Result("PQ6", len(ok) / len(answerable), details={**base, "n_applicable": len(answerable),
                                                                     "n_answered": len(ok)}) if answerable
                  else Result.not_applicable("PQ6", "the gold KG answers no CQ (only empty-graph answers: "
                                                    "no row, ASK false, COUNT 0, about terms it does not use)"))
    for r in out.values():
        r.elapsed_s = elapsed
    log.info("PQ: %d CQs, macro F1 %.3f, %d satisfied", n, out["PQ3"].value, out["PQ4"].details["n_satisfied"])
    return out


def _not_run_row(cq: CompetencyQuestion, bad: Finding) -> dict[str, Any]:
    """The ``per_cq`` row of a CQ that is not run (``bad``: why, a :func:`cannot_run` finding or one
    from the gold KG)."""
    return {"id": cq.id, "statement": cq.statement or cq.id, "status": "not_run", "f1": None,
            "n_pred": None, "n_gold": 0, "n_common": None, "satisfied": False,
            "expected": [f"(not run: {bad.message.split(': ', 1)[1].removesuffix('; not run')})"],
            "actual": None, "why": NOT_RUN_KINDS[bad.code],
            "file": str(cq.path) if cq.path else cq.id, "line": bad.line, "column": bad.column}


def answer_size(rows: set[tuple] | None, ask: bool) -> str:
    """A KG's answer to a CQ in a few words: ``3 row(s)``, ``ASK: true``, ``query failed`` (``rows`` None)."""
    if rows is None:
        return "query failed"
    if ask:
        return f"ASK: {'true' if any(r[0] for r in rows) else 'false'}"
    return f"{len(rows)} row(s)"


def _no_statement(cq: CompetencyQuestion, where: str) -> list[Finding]:
    """A ``cq-no-statement`` warning when ``cq``'s file has no ``# CQ:`` line, else nothing."""
    if cq.statement is not None:
        return []
    return [Finding(severity="warning", message="no '# CQ: <statement>' line: the file states no competency "
                    "question (expected a comment '# CQ: ...' before the query)", location=where,
                    code="cq-no-statement")]


def answer_cqs(pred: Graph, cqs: Iterable[CompetencyQuestion]) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Every CQ run on ``pred`` without a gold KG to score it against (module docstring).

    Args:
        pred: the KG; cqs: the competency questions.
    Returns:
        ``(per_cq, findings)``: per CQ a row as :func:`score_cqs` lists them, with status
        ``not_scored`` (``n_pred``, ``actual``: up to :data:`ANSWER_SAMPLE` rows as text, ``answer``:
        :func:`answer_size`; ``actual`` None when the query raised on the KG) or ``not_run`` (why,
        file, line); findings: a ``cq-syntax``/``cq-prefix``/``cq-remote`` error per CQ not run, a
        ``cq-failed`` warning per query that raised, a ``cq-no-statement`` warning per file without
        a ``# CQ:`` line.
    """
    per: list[dict[str, Any]] = []
    findings: list[Finding] = []
    for cq in cqs:
        where = str(cq.path) if cq.path else cq.id
        findings += _no_statement(cq, where)
        bad = cannot_run(cq)
        if bad is not None:
            findings.append(bad)
            per.append(_not_run_row(cq, bad))
            continue
        try:
            rows: set | None = answer(pred, cq)
        except Exception as exc:  # noqa: BLE001 - a query that raises is reported, not raised
            findings.append(Finding(severity="warning", message=f"CQ fails on the KG: {exc}", location=where,
                                    code="cq-failed"))
            rows = None
        ask = prepareQuery(cq.query).algebra.name == "AskQuery"
        per.append({"id": cq.id, "statement": cq.statement, "status": "not_scored", "f1": None,
                    "correctness": None, "completeness": None, "satisfied": None,
                    "n_pred": len(rows) if rows is not None and not ask else None, "n_gold": 0, "n_common": None,
                    "expected": [], "actual": _show(rows), "answer": answer_size(rows, ask),
                    "reason": "no gold KG: not scored"})
    return per, findings


def _where(row: dict[str, Any]) -> str:
    """A not-run CQ's place: ``q3.rq:4`` (file name and line), or its id."""
    if not row.get("file"):
        return str(row["id"])
    return Path(str(row["file"])).name + (f":{row['line']}" if row.get("line") else "")


def _not_run_words(items: Iterable[tuple[str, str]]) -> str:
    """``(kind, where)`` pairs as ``malformed: q3.rq:4, q5.rq:2; refused: q4.rq:3`` (kinds in the order
    malformed, refused, failed)."""
    items = list(items)
    groups = [(k, [w for kind, w in items if kind == k]) for k in ("malformed", "refused", "failed")]
    return "; ".join(f"{k}: {', '.join(ws)}" for k, ws in groups if ws)


def cq_counts(per_cq: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What happened to every CQ of a case, from PQ3's ``details["per_cq"]``.

    Returns:
        ``{"total", "exact" (answered exactly: A_p == A_g), "scored" (in PQ1-PQ6), "not_scorable"
        (empty gold answer), "not_scored" (run on the KG, no gold KG to score against: :func:`answer_cqs`),
        "not_run": [where], "not_run_why": [kind]}``, ``where`` being ``q3.rq:4``
        (file name and line of the fault) or the CQ's id, ``kind`` ``malformed``, ``refused`` or
        ``failed`` (module docstring).
    """
    rows = list(per_cq)
    stopped = [q for q in rows if q.get("status") == "not_run"]
    return {"total": len(rows), "exact": sum(q.get("satisfied") is True for q in rows),
            "scored": sum(q.get("f1") is not None for q in rows),
            "not_scorable": sum(q.get("status") == "not_scorable" for q in rows),
            "not_scored": sum(q.get("status") == "not_scored" for q in rows),
            "not_run": [_where(q) for q in stopped], "not_run_why": [q.get("why", "malformed") for q in stopped]}


def cq_sentence(counts: dict[str, Any]) -> str:
    """The CQ result in one phrase, the same wherever it is shown: ``1 of 3 answered exactly, 1 not run
    (malformed: q3.rq:4), 1 without a gold answer`` (without a gold KG: ``2 of 3 run on the KG, not
    scored: no gold KG, 1 not run (...)``) (every CQ counted; a CQ that did not run is *not
    run*, never left out of the total; why: ``malformed``, ``refused`` or ``failed``)."""
    total = counts.get("total") or counts.get("scored", 0) + counts.get("not_scorable", 0)
    if counts.get("not_scored"):
        out = f"{counts['not_scored']} of {total} run on the KG, not scored: no gold KG"
    else:
        out = f"{counts.get('exact', 0)} of {total} answered exactly"
    if counts.get("not_run"):
        kinds = counts.get("not_run_why") or ["malformed"] * len(counts["not_run"])
        out += f", {len(counts['not_run'])} not run ({_not_run_words(zip(kinds, counts['not_run']))})"
    if counts.get("not_scorable"):
        out += f", {counts['not_scorable']} without a gold answer"
    return out


def pq_note(details: dict[str, Any]) -> str:
    """What a PQ score covers, from its ``details``: ``partial: over 1 of 3 CQs; 1 not run (malformed:
    q3.rq:4), 1 without a gold answer`` (``partial`` only when a CQ did not run: a CQ without a gold
    answer is left out by definition); ``""`` when every CQ was scored."""
    if not details.get("not_run") and not details.get("not_scorable"):
        return ""
    total = details.get("n_cqs_total") or details.get("n_cqs", 0) + len(details.get("not_scorable") or ())
    parts = []
    if details.get("not_run"):
        where = [tuple(x) for x in details.get("not_run_where") or []]
        if not where:  # details without kinds list files of syntax errors in their reason
            where = [("malformed", Path(x).name) for x in str(details.get("reason", "")).split(": ", 1)[-1].split(", ")
                     if x]
        parts.append(f"{len(details['not_run'])} not run ({_not_run_words(where)})")
    if details.get("not_scorable"):
        parts.append(f"{len(details['not_scorable'])} without a gold answer")
    return ("partial: " if details.get("not_run") else "") + f"over {details.get('n_cqs', 0)} of {total} CQs; " \
        + ", ".join(parts)
