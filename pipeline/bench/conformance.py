"""Conformance: the RML community's test suites through ``kgc materialize`` and Morph-KGC alone.

Usage::

    python -m pipeline.bench.conformance [--cases DIR] [--suites DIR] [--out out/conformance]
                                         [--suite rml-core] [--only RMLTC0001]

Eight suites of the W3C Knowledge Graph Construction Community Group, read from two folders
outside the project (never committed; see each folder's PROVENANCE.md):

* ``--cases`` (``$RML_TEST_CASES``, default ``../shared/benchmarks/rml-test-cases``):
  ``rml-legacy``, ``rml-core`` and ``rml-fnml``; each case folder has ``mapping.ttl``, inputs and
  ``output.nq``; a case without ``output.nq`` must raise an error (in ``rml-legacy``, whose
  repository marks such cases with an empty ``output.nq``, an empty file too).
* ``--suites`` (``$RML_SUITES``, default ``../rml-suites`` beside the project): the
  ``test-cases`` folders of kg-construct/rml-io (two suites: sources ``RMLSTC*`` and logical
  targets ``RMLTTC*``), rml-cc, rml-lv and rml-star as ``<DIR>/rml-io`` etc. Their
  ``metadata.csv`` says per case the mapping, the expected output files (the first is the
  default target, the others logical targets written by the mapping) and whether an error is
  expected.

A missing suite is reported as *not run*, with how to get it. Each case is copied (mapping and
inputs, not the expected outputs) into ``<out>/<suite>/<case>/work`` and both runners start
there, so logical targets with a relative path land in that folder. Outcomes per case and runner:

* ``passed``: every expected file is isomorphic to what the runner wrote, as RDF datasets
  (blank nodes, named graphs and RDF-star quoted triples included, :func:`same_rdf`); the default
  output is ``kgc materialize``'s output file, a logical target's is the file at its path;
* ``error-raised``: the case expects an error and the runner refused it (ours: exit 2 with a
  message; Morph-KGC alone: any exception);
* ``failed``: anything else, with the reason (missing/extra statements, the error, a crash).

Morph-KGC 2.10 alone writes one output (it has no logical targets), compared with the default
output; a case that expects target files fails for it.

Writes ``<out>/<suite>/<case>.json`` per case and ``<out>/summary.json``; prints the table
suite x (passed / failed / expected-error-raised) for us and for Morph-KGC alone.
"""
from __future__ import annotations

import argparse
import bz2
import configparser
import contextlib
import csv
import gzip
import io
import json
import logging
import lzma
import os
import re
import shutil
import sys
import tarfile
import time
import traceback
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyoxigraph
from rdflib import XSD, BNode, Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic

from pipeline import cli
from pipeline.materialize.data_errors import POLICIES
from pipeline.materialize.rdfjson import parse_rdfjson

__all__ = ["SUITES", "Case", "CaseResult", "discover", "run_case", "run_suites", "same_dataset", "same_rdf",
           "read_dataset", "read_rdf", "table", "main"]

#: The suites in table order: (name, folder option, folder under it, case-name pattern, how to get it).
SUITES = ("rml-legacy", "rml-core", "rml-fnml", "rml-io-sources", "rml-io-targets", "rml-cc", "rml-lv", "rml-star")
_FROM = {"rml-legacy": ("cases", "rml-legacy", None), "rml-core": ("cases", "rml-core", None),
         "rml-fnml": ("cases", "rml-fnml", None), "rml-io-sources": ("suites", "rml-io", "RMLSTC"),
         "rml-io-targets": ("suites", "rml-io", "RMLTTC"), "rml-cc": ("suites", "rml-cc", None),
         "rml-lv": ("suites", "rml-lv", None), "rml-star": ("suites", "rml-star", None)}
_REPO = {"rml-io": "kg-construct/rml-io", "rml-cc": "kg-construct/rml-cc", "rml-lv": "kg-construct/rml-lv",
         "rml-star": "kg-construct/rml-star"}
#: Base IRI a suite's cases are run with when the mapping declares none. rml-core and rml-fnml
#: state it per case (README "Default Base IRI"); the rml-cc cases resolve their relative
#: templates ("e/{$.id}") against http://example.com/base/ in every expected output.
_SUITE_BASE = {"rml-cc": "http://example.com/base/"}
_Q = Namespace("urn:kgc:conformance:quad#")
_T = Namespace("urn:kgc:conformance:triple#")


@dataclass
class Case:
    """One test case: where it is and what it expects.

    Attributes:
        suite, name: the suite and the case identifier.
        folder: the folder with ``mapping`` and the inputs.
        expected: ``[(file name the runner writes, expected file)]``; the first is the default
            output (name ``None``), the others logical targets; empty when an error is expected.
        expects_error: the case must be refused.
        mapping: the mapping file name in ``folder``.
        base: base IRI given to ``kgc materialize`` (``--base-iri``), or ``None``.
    """

    suite: str
    name: str
    folder: Path
    expected: list[tuple[str | None, Path]]
    expects_error: bool
    mapping: str = "mapping.ttl"
    base: str | None = None


@dataclass
class CaseResult:
    """Outcome of one case for both runners (``passed``, ``failed`` or ``error-raised``)."""

    suite: str
    case: str
    expects_error: bool
    ours: str = "failed"
    ours_reason: str = ""
    morph: str = "failed"
    morph_reason: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


# --------------------------------------------------------------------------- reading RDF

def _term(t, memo: dict, g: Graph):
    """A pyoxigraph term as an rdflib term; a quoted triple becomes a blank node with ``t:s``,
    ``t:p``, ``t:o`` (one node per distinct quoted triple, so that graph isomorphism of the
    encodings is isomorphism of the RDF-star graphs)."""
    if isinstance(t, pyoxigraph.NamedNode):
        return URIRef(t.value)
    if isinstance(t, pyoxigraph.BlankNode):
        return memo.setdefault(("b", t.value), BNode())
    if isinstance(t, pyoxigraph.Literal):
        if t.language:  # RDF 1.1: the value space of language tags is lower case
            return Literal(t.value, lang=t.language.lower())
        # RDF 1.1: a simple literal is an xsd:string
        return Literal(t.value, datatype=URIRef(t.datatype.value) if t.datatype else XSD.string)
    if isinstance(t, pyoxigraph.Triple):
        key = ("t", str(t))
        if key not in memo:
            node = memo[key] = BNode()
            g.add((node, _T.s, _term(t.subject, memo, g)))
            g.add((node, _T.p, _term(t.predicate, memo, g)))
            g.add((node, _T.o, _term(t.object, memo, g)))
        return memo[key]
    raise TypeError(f"unexpected term {t!r}")


def _encode(quads) -> Graph:
    """Quads -> one graph encoding the dataset: default-graph triples as they are, each
    named-graph quad as a blank node with ``q:s``, ``q:p``, ``q:o``, ``q:g`` (blank nodes shared
    across graphs, as in the dataset)."""
    g, memo = Graph(), {}
    for s, p, o, name in quads:
        s, p, o = (_term(x, memo, g) for x in (s, p, o))
        if isinstance(o, Literal) and o.datatype is None and not o.language:
            o = Literal(str(o), datatype=XSD.string)
        if name is None:
            g.add((s, p, o))
        else:
            q = BNode()
            for pred, term in ((_Q.s, s), (_Q.p, p), (_Q.o, o), (_Q.g, name)):
                g.add((q, pred, term))
    return g


def read_dataset(text: str) -> Graph:
    """N-Quads text (RDF-star quoted triples allowed) -> one graph encoding the dataset (see
    :func:`_encode`). Literals are compared in their RDF 1.1 value terms: a simple literal is an
    ``xsd:string``, language tags are lower case.

    Raises:
        SyntaxError: the text is no N-Quads (pyoxigraph's message).
    """
    quads, memo, scratch = [], {}, Graph()
    for q in pyoxigraph.parse(io.BytesIO(text.encode("utf-8")), "application/n-quads"):
        name = None if isinstance(q.graph_name, pyoxigraph.DefaultGraph) else _term(q.graph_name, memo, scratch)
        quads.append((q.subject, q.predicate, q.object, name))
    g = _encode(quads)
    for t in scratch:
        g.add(t)
    return g


def _decompress(path: Path) -> bytes:
    """The bytes of ``path``, decompressed by its suffix (``.gz``, ``.bz2``, ``.xz``, ``.zip``,
    ``.tar.gz``, ``.tar.xz``: the single member of the archive)."""
    name = path.name.lower()
    if name.endswith((".tar.gz", ".tgz", ".tar.xz", ".tar")):
        with tarfile.open(path) as tar:
            member = next(m for m in tar.getmembers() if m.isfile())
            return tar.extractfile(member).read()
    if name.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            return z.read(z.namelist()[0])
    data = path.read_bytes()
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith(".xz"):
        return lzma.decompress(data)
    if name.endswith(".bz2"):
        return bz2.decompress(data)
    return data


def _text(data: bytes) -> str:
    """Decode by byte-order mark (UTF-16 LE/BE, UTF-8 with or without BOM)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


_FORMATS = {".nq": "nquads", ".nt": "nquads", ".ttl": "turtle", ".n3": "n3", ".jsonld": "json-ld",
            ".rdfxml": "xml", ".rdf": "xml", ".owl": "xml", ".trig": "trig", ".rdfjson": "rdfjson"}


def read_rdf(path: Path) -> Graph:
    """An RDF file of any of the suites' serializations (by suffix, after compression suffixes),
    compressed or not, UTF-8 or UTF-16, as the dataset encoding of :func:`read_dataset`.

    Raises:
        SyntaxError, ValueError: the file does not parse in its format.
    """
    text = _text(_decompress(path))
    stem = re.sub(r"(\.tar)?\.(gz|xz|zip|bz2)$", "", path.name.lower())
    fmt = _FORMATS.get(Path(stem).suffix, "nquads")
    if fmt == "nquads":
        return read_dataset(text)
    if fmt == "rdfjson":
        triples = parse_rdfjson(text)
    elif fmt == "trig":
        ds = pyoxigraph.parse(io.BytesIO(text.encode("utf-8")), "application/trig")
        return read_dataset("".join(f"{q} .\n" for q in ds))
    else:
        g = Graph().parse(data=text, format=fmt)
        triples = list(g)
    lines = []
    for s, p, o in triples:
        lines.append(f"{s.n3()} {p.n3()} {o.n3()} .\n")
    return read_dataset("".join(lines))


def same_rdf(actual: Graph, expected: Graph) -> tuple[bool, str]:
    """Compare two dataset encodings; returns (isomorphic, reason when not)."""
    if isomorphic(actual, expected):
        return True, ""
    ground = lambda g: {t for t in g if not any(isinstance(x, BNode) for x in t)}  # noqa: E731
    missing, extra = sorted(ground(expected) - ground(actual)), sorted(ground(actual) - ground(expected))
    show = lambda ts: "; ".join(" ".join(x.n3() for x in t) for t in ts[:2])  # noqa: E731
    return False, (f"not isomorphic: {len(actual)} vs {len(expected)} expected statements; ground missing "
                   f"{len(missing)} ({show(missing)}), extra {len(extra)} ({show(extra)})")


def same_dataset(actual: str, expected: str) -> tuple[bool, str]:
    """Compare two N-Quads texts as RDF datasets; returns (isomorphic, reason when not)."""
    return same_rdf(read_dataset(actual), read_dataset(expected))


# --------------------------------------------------------------------------- the suites

def _base_from_readme(case: Path) -> str | None:
    """The case README's "Default Base IRI" (rml-core, rml-fnml), else ``None``."""
    readme = case / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    m = re.search(r"\*\*Default Base IRI\*\*:\s*(\S+)", text)
    return m.group(1) if m else None


def _legacy_cases(suite: str, root: Path) -> list[Case]:
    out = []
    for folder in sorted(p for p in root.iterdir() if (p / "mapping.ttl").is_file()):
        expected = folder / "output.nq"
        text = expected.read_text(encoding="utf-8") if expected.is_file() else None
        error = text is None or (text == "" and suite == "rml-legacy")
        out.append(Case(suite, folder.name, folder, [] if error else [(None, expected)], error,
                        base=_base_from_readme(folder)))
    return out


def _metadata_cases(suite: str, root: Path, prefix: str | None) -> list[Case]:
    """Cases listed in a kg-construct suite's ``metadata.csv`` (case folder ``<ID>``, or
    ``valid/<ID>`` / ``invalid/<ID>`` in rml-star)."""
    out = []
    with open(root / "metadata.csv", encoding="utf-8", newline="") as fh:
        rows = sorted(csv.DictReader(fh), key=lambda r: r["ID"])
    for row in rows:
        name = row["ID"].strip()
        if prefix and not name.startswith(prefix):
            continue
        folder = next((f for f in (root / name, root / "valid" / name, root / "invalid" / name)
                       if (f / (row.get("mapping") or "mapping.ttl")).is_file()), None)
        if folder is None:
            continue
        error = row.get("error", "").strip().lower() == "true"
        outputs = [row.get(f"output{i}", "").strip() for i in (1, 2, 3)]
        expected = [] if error else [(None if i == 0 else o, folder / o) for i, o in enumerate(outputs) if o]
        out.append(Case(suite, name, folder, expected, error, row.get("mapping") or "mapping.ttl",
                        _SUITE_BASE.get(suite)))
    return out


def discover(suite: str, cases_dir: Path, suites_dir: Path) -> list[Case] | str:
    """The cases of ``suite``, or why it cannot run (a sentence saying how to get it)."""
    option, sub, prefix = _FROM[suite]
    root = (cases_dir if option == "cases" else suites_dir) / sub
    if option == "cases":
        if not root.is_dir():
            return f"not found at {root} (set RML_TEST_CASES or --cases)"
        return _legacy_cases(suite, root)
    if not (root / "metadata.csv").is_file():
        return (f"not found at {root}: copy the test-cases folder of https://github.com/{_REPO[sub]} there "
                f"(git clone, then cp -r {sub.split('/')[-1]}/test-cases {root}), or set RML_SUITES / --suites")
    return _metadata_cases(suite, root, prefix)


# --------------------------------------------------------------------------- running

@contextlib.contextmanager
def _in(folder: Path):
    old = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _work_copy(case: Case, work: Path) -> None:
    """Copy the case's mapping and inputs (not its expected outputs, not the README) to ``work``."""
    if work.exists():
        shutil.rmtree(work)
    skip = {p.name for _, p in case.expected} | {"README.md", "output.nq", "default.nq", "output.nt"}
    skip |= {p.name for p in case.folder.iterdir() if re.fullmatch(r"(dump\d+|default|output)\..*", p.name)}
    work.mkdir(parents=True)
    for p in case.folder.iterdir():
        if p.name in skip:
            continue
        (shutil.copytree if p.is_dir() else shutil.copy2)(p, work / p.name)


def _ours(case: Case, out: Path, on_data_error: str = "drop") -> tuple[int | None, str, Path]:
    """Run ``kgc materialize`` in-process in the work copy (``--on-data-error on_data_error``);
    returns (exit code or None on a crash, stderr, the default output file)."""
    work = out / "work"
    _work_copy(case, work)
    target = out / "kg.nq"
    target.unlink(missing_ok=True)
    err, std = io.StringIO(), io.StringIO()
    base = ["--base-iri", case.base] if case.base else []
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std), _in(work):
        try:
            rc = cli.main(["materialize", case.mapping, str(target), "--format", "nq", "-q", *base,
                           "--on-data-error", on_data_error])
        except BaseException as exc:  # noqa: BLE001 - a crash is an outcome to report
            return None, err.getvalue() + traceback.format_exc() + f"{type(exc).__name__}: {exc}", target
    return rc, err.getvalue(), target


def _morph(case: Case, out: Path) -> tuple[str | None, str]:
    """Morph-KGC 2.10 alone, as its README shows it, in a work copy; returns (N-Quads text or None, error)."""
    import morph_kgc

    work = out / "work-morph"
    _work_copy(case, work)
    config = configparser.ConfigParser()
    config["CONFIGURATION"] = {"output_format": "N-QUADS", "logging_level": "ERROR", "number_of_processes": "1"}
    config["DataSource1"] = {"mappings": case.mapping}
    buf = io.StringIO()
    config.write(buf)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()), _in(work):
        try:
            lines = morph_kgc.materialize_set(buf.getvalue())
        except BaseException as exc:  # noqa: BLE001 - the engine raises anything; that is the outcome
            return None, f"{type(exc).__name__}: {exc}"[:500]
    return "".join(f"{line.rstrip()} .\n" for line in lines), ""


def _compare(actual: Path, expected: Path) -> tuple[bool, str]:
    if not actual.is_file():
        return False, f"{actual.name} not written"
    try:
        a = read_rdf(actual)
    except Exception as exc:  # noqa: BLE001 - an unparsable output is a failure with its reason
        return False, f"{actual.name} does not parse: {type(exc).__name__}: {str(exc)[:300]}"
    try:
        e = read_rdf(expected)
    except Exception as exc:  # noqa: BLE001 - a gold file the suite got wrong: say so
        return False, f"the expected {expected.name} does not parse: {type(exc).__name__}: {str(exc)[:300]}"
    ok, reason = same_rdf(a, e)
    if not ok and isomorphic(_lexical(a), _lexical(e)):
        reason = "differs only in literal datatypes; " + reason
    return ok, "" if ok else f"{expected.name}: {reason}"


def _lexical(g: Graph) -> Graph:
    """The graph with every literal replaced by its lexical form (for the failure diagnosis only)."""
    out = Graph()
    for s, p, o in g:
        out.add((s, p, Literal(str(o)) if isinstance(o, Literal) else o))
    return out


def run_case(case: Case | Path, out: Path, on_data_error: str = "drop") -> CaseResult:
    """Run one case through both runners (work copies and outputs under ``out``).

    Args:
        case: a :class:`Case`, or the folder of an rml-legacy/core/fnml case.
        out: folder for this case's work copies and outputs.
        on_data_error: ``kgc materialize --on-data-error``: ``drop`` (default) or ``stop`` (the
            strict processor the suites' expected-error cases on data errors mean).
    """
    if isinstance(case, Path):
        case = next(c for c in _legacy_cases(case.parent.name, case.parent) if c.name == case.name)
    out.mkdir(parents=True, exist_ok=True)
    r = CaseResult(case.suite, case.name, case.expects_error)
    t0 = time.perf_counter()
    rc, err, default = _ours(case, out, on_data_error)
    r.seconds["ours"] = round(time.perf_counter() - t0, 3)
    if rc is None:
        r.ours, r.ours_reason = "failed", "crash (traceback): " + err.strip().splitlines()[-1][:400]
    elif "Traceback" in err:
        r.ours, r.ours_reason = "failed", "traceback printed: " + err[:400]
    elif case.expects_error:
        n = default.read_text(encoding="utf-8").count("\n") if default.is_file() else 0
        r.ours, r.ours_reason = ("error-raised", _last(err)) if rc == 2 else \
            ("failed", f"no error raised (exit {rc}, {n} statements)")
    elif rc == 2:
        r.ours_reason = "refused: " + _last(err)
    else:
        reasons = []
        for name, expected in case.expected:
            ok, reason = _compare(default if name is None else out / "work" / name, expected)
            if not ok:
                reasons.append(reason)
        r.ours, r.ours_reason = ("passed", "") if not reasons else \
            ("failed", "; ".join(reasons) + (f"; stderr: {_last(err)}" if err else ""))
    t0 = time.perf_counter()
    text, error = _morph(case, out)
    r.seconds["morph"] = round(time.perf_counter() - t0, 3)
    if case.expects_error:
        r.morph, r.morph_reason = ("error-raised", error) if text is None else \
            ("failed", f"no error raised ({text.count(chr(10))} statements)")
    elif text is None:
        r.morph_reason = error
    elif len(case.expected) > 1:
        r.morph_reason = "no logical targets written (Morph-KGC 2.10 writes one output)"
    else:
        (out / "morph-kgc.nq").write_text(text, encoding="utf-8")
        ok, reason = _compare(out / "morph-kgc.nq", case.expected[0][1])
        r.morph, r.morph_reason = ("passed", "") if ok else ("failed", reason)
    return r


def _last(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("error")] or err.strip().splitlines() or [""]
    return lines[-1][:400]


def run_suites(cases_dir: Path, suites_dir: Path, out: Path, suites: tuple[str, ...] = SUITES,
               only: str | None = None, progress: bool = True,
               on_data_error: str = "drop") -> tuple[list[CaseResult], dict[str, str]]:
    """Run every case of ``suites`` (``kgc materialize --on-data-error on_data_error``); writes one
    JSON per case under ``out``.

    Returns:
        ``(results, not run)``: the case results, and per suite that could not run why.
    """
    results, missing = [], {}
    for suite in suites:
        cases = discover(suite, cases_dir, suites_dir)
        if isinstance(cases, str):
            missing[suite] = cases
            if progress:
                print(f"{suite}: not run: {cases}", file=sys.stderr)
            continue
        for case in cases:
            if only and only not in case.name:
                continue
            r = run_case(case, out / suite / case.name, on_data_error)
            (out / suite / f"{case.name}.json").write_text(json.dumps(asdict(r), indent=2) + "\n", encoding="utf-8")
            results.append(r)
            if progress:
                print(f"{suite}/{case.name}: ours {r.ours}, morph-kgc {r.morph}", file=sys.stderr)
    return results, missing


def table(results: list[CaseResult], missing: dict[str, str] | None = None) -> str:
    """Markdown table suite x (passed / failed / expected-error-raised) for us and Morph-KGC alone;
    a suite that did not run is a row saying so."""
    lines = ["| suite | cases | ours: passed / failed / error raised | ours: share | "
             "Morph-KGC alone: passed / failed / error raised |", "|---|---:|---|---:|---|"]
    for suite in sorted({r.suite for r in results} | set(missing or {}),
                        key=lambda s: SUITES.index(s) if s in SUITES else 99):
        if missing and suite in missing:
            lines.append(f"| {suite} | - | not run | - | not run |")
            continue
        rs = [r for r in results if r.suite == suite]
        n_err = sum(r.expects_error for r in rs)

        def cell(attr: str) -> str:
            c = [getattr(r, attr) for r in rs]
            return f"{c.count('passed')} / {c.count('failed')} / {c.count('error-raised')} of {n_err}"
        ok = sum(r.ours != "failed" for r in rs)
        lines.append(f"| {suite} | {len(rs)} | {cell('ours')} | {100 * ok / max(len(rs), 1):.0f}% | {cell('morph')} |")
    return "\n".join(lines)


def _project_parent() -> Path:
    return Path(__file__).resolve().parents[2].parent


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 1 when a case Morph-KGC alone passes fails with us, else 0."""
    cases_default = os.environ.get("RML_TEST_CASES") or _project_parent() / "shared" / "benchmarks" / "rml-test-cases"
    suites_default = os.environ.get("RML_SUITES") or _project_parent() / "rml-suites"
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default=str(cases_default),
                   help="folder with rml-legacy, rml-core, rml-fnml (default: %(default)s)")
    p.add_argument("--suites", default=str(suites_default),
                   help="folder with rml-io, rml-cc, rml-lv, rml-star (default: %(default)s)")
    p.add_argument("--out", default="out/conformance")
    p.add_argument("--suite", action="append", choices=SUITES, help="suite(s) to run (default: all)")
    p.add_argument("--only", help="run only the cases whose name contains this text")
    p.add_argument("--on-data-error", choices=POLICIES, default="drop",
                   help="kgc materialize's policy on data errors (R2RML section 11): 'drop' (its default: drop, "
                        "report, exit 1) or 'stop' (exit 2 at the first one, as the suites' expected-error cases "
                        "on data errors mean a processor to do); report both (default: %(default)s)")
    args = p.parse_args(argv)
    out = Path(args.out).absolute()
    out.mkdir(parents=True, exist_ok=True)

    logging.disable(logging.WARNING)  # the engine logs each failure; the JSON has the reasons
    try:
        results, missing = run_suites(Path(args.cases).absolute(), Path(args.suites).absolute(), out,
                                      tuple(args.suite or SUITES), args.only, on_data_error=args.on_data_error)
    finally:
        logging.disable(logging.NOTSET)
    print(f"kgc materialize --on-data-error {args.on_data_error}")
    print(table(results, missing))
    for suite, why in missing.items():
        print(f"  {suite}: not run: {why}")
    regressions = [r for r in results if r.morph != "failed" and r.ours == "failed"]
    gains = [r for r in results if r.morph == "failed" and r.ours != "failed"]
    not_passed = [r for r in results if r.ours == "failed"]
    print(f"\nours only: {len(gains)}; Morph-KGC alone only: {len(regressions)}")
    for r in regressions:
        print(f"  REGRESSION {r.suite}/{r.case}: {r.ours_reason}")
    print(f"\ncases we do not pass ({len(not_passed)}):")
    for r in not_passed:
        print(f"  {r.suite}/{r.case}: {r.ours_reason[:200]}")
    (out / "summary.json").write_text(json.dumps({"on_data_error": args.on_data_error,
                                                  "table": table(results, missing), "not_run": missing,
                                                  "cases": [asdict(r) for r in results]},
                                                 indent=2) + "\n", encoding="utf-8")
    print(f"\nper-case results: {out}/<suite>/<case>.json")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
