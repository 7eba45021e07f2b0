"""Conformance: the W3C KG-Construct RML test cases through ``kgc materialize`` and Morph-KGC alone.

Usage::

    python -m pipeline.bench.conformance [--cases DIR] [--out out/conformance] [--suite rml-core] [--only RMLTC0001]

``DIR`` (default ``$RML_TEST_CASES`` or ``../shared/benchmarks/rml-test-cases``) holds the suites
``rml-legacy``, ``rml-core`` and ``rml-fnml`` (see its PROVENANCE.md). Each case folder has
``mapping.ttl``, inputs and ``output.nq``; a case without ``output.nq`` must raise an error (in
``rml-legacy``, whose repository marks such cases with an empty ``output.nq``, an empty file too).
Both runners start in the case folder. Outcomes per case and runner:

* ``passed``: the output is isomorphic to ``output.nq`` as an RDF dataset (blank nodes and
  named graphs included, :func:`same_dataset`);
* ``error-raised``: the case has no ``output.nq`` and the runner refused it (ours: exit 2 with
  a message; Morph-KGC alone: any exception);
* ``failed``: anything else, with the reason (missing/extra statements, the error, a crash).

Writes ``<out>/<suite>/<case>.json`` per case and ``<out>/summary.json``; prints the table
suite x (passed / failed / expected-error-raised) for us and for Morph-KGC alone.
"""
from __future__ import annotations

import argparse
import configparser
import contextlib
import io
import json
import logging
import os
import re
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rdflib import XSD, BNode, Dataset, Graph, Literal, Namespace
from rdflib.compare import isomorphic

from pipeline import cli

__all__ = ["SUITES", "CaseResult", "run_case", "run_suites", "same_dataset", "read_dataset", "main"]

SUITES = ("rml-legacy", "rml-core", "rml-fnml")
_Q = Namespace("urn:kgc:conformance:quad#")


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


def read_dataset(text: str) -> Graph:
    """N-Quads text -> one graph encoding the dataset: default-graph triples as they are, each
    named-graph quad as a blank node with ``q:s``, ``q:p``, ``q:o``, ``q:g`` (so that graph
    isomorphism of the encodings is dataset isomorphism, blank nodes shared across graphs).
    Literals are compared in their RDF 1.1 value terms: a simple literal is an ``xsd:string``,
    language tags are lower case."""
    ds = Dataset()
    ds.parse(data=text, format="nquads")
    g = Graph()
    for s, p, o, ctx in ds.quads((None, None, None, None)):
        if isinstance(o, Literal) and o.language:  # RDF 1.1: the value space of language tags is lower case
            o = Literal(str(o), lang=o.language.lower())
        elif isinstance(o, Literal) and o.datatype is None:  # RDF 1.1: a simple literal is an xsd:string
            o = Literal(str(o), datatype=XSD.string)
        name = getattr(ctx, "identifier", ctx)
        if name is None or str(name) == "urn:x-rdflib:default":
            g.add((s, p, o))
        else:
            q = BNode()
            for pred, term in ((_Q.s, s), (_Q.p, p), (_Q.o, o), (_Q.g, name)):
                g.add((q, pred, term))
    return g


def same_dataset(actual: str, expected: str) -> tuple[bool, str]:
    """Compare two N-Quads texts as RDF datasets; returns (isomorphic, reason when not)."""
    a, e = read_dataset(actual), read_dataset(expected)
    if isomorphic(a, e):
        return True, ""
    ground = lambda g: {t for t in g if not any(isinstance(x, BNode) for x in t)}  # noqa: E731
    missing, extra = sorted(ground(e) - ground(a)), sorted(ground(a) - ground(e))
    show = lambda ts: "; ".join(" ".join(x.n3() for x in t) for t in ts[:2])  # noqa: E731
    return False, (f"not isomorphic: {len(a)} vs {len(e)} expected statements; ground missing "
                   f"{len(missing)} ({show(missing)}), extra {len(extra)} ({show(extra)})")


@contextlib.contextmanager
def _in(folder: Path):
    old = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _default_base(case: Path) -> list[str]:
    """``--base-iri`` from the case README's "Default Base IRI" (rml-core, rml-fnml), else nothing."""
    readme = case / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    m = re.search(r"\*\*Default Base IRI\*\*:\s*(\S+)", text)
    return ["--base-iri", m.group(1)] if m else []


def _ours(case: Path, out: Path) -> tuple[int | None, str, str]:
    """Run ``kgc materialize`` in-process; returns (exit code or None on a crash, stderr, N-Quads)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / "kg.nq"
    target.unlink(missing_ok=True)
    err, std = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std), _in(case):
        try:
            rc = cli.main(["materialize", "mapping.ttl", str(target), "--format", "nq", "-q", *_default_base(case)])
        except BaseException as exc:  # noqa: BLE001 - a crash is an outcome to report
            return None, err.getvalue() + traceback.format_exc() + f"{type(exc).__name__}: {exc}", ""
    text = target.read_text(encoding="utf-8") if target.is_file() else ""
    return rc, err.getvalue(), text


def _morph(case: Path) -> tuple[str | None, str]:
    """Morph-KGC 2.10 alone, as its README shows it; returns (N-Quads text or None, error)."""
    import morph_kgc

    config = configparser.ConfigParser()
    config["CONFIGURATION"] = {"output_format": "N-QUADS", "logging_level": "ERROR", "number_of_processes": "1"}
    config["DataSource1"] = {"mappings": "mapping.ttl"}
    buf = io.StringIO()
    config.write(buf)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()), _in(case):
        try:
            lines = morph_kgc.materialize_set(buf.getvalue())
        except BaseException as exc:  # noqa: BLE001 - the engine raises anything; that is the outcome
            return None, f"{type(exc).__name__}: {exc}"[:500]
    return "".join(f"{line.rstrip()} .\n" for line in lines), ""


def run_case(case: Path, out: Path) -> CaseResult:
    """Run one case folder through both runners (outputs under ``out``)."""
    expected_file = case / "output.nq"
    expected = expected_file.read_text(encoding="utf-8") if expected_file.is_file() else None
    if expected == "" and case.parent.name == "rml-legacy":
        expected = None  # kg-construct/rml-test-cases marks a case that must fail with an empty output.nq
    r = CaseResult(case.parent.name, case.name, expected is None)
    t0 = time.perf_counter()
    rc, err, text = _ours(case, out)
    r.seconds["ours"] = round(time.perf_counter() - t0, 3)
    if rc is None:
        r.ours, r.ours_reason = "failed", "crash (traceback): " + err.strip().splitlines()[-1][:400]
    elif "Traceback" in err:
        r.ours, r.ours_reason = "failed", "traceback printed: " + err[:400]
    elif expected is None:
        r.ours, r.ours_reason = ("error-raised", _last(err)) if rc == 2 else \
            ("failed", f"no error raised (exit {rc}, {text.count(chr(10))} statements)")
    elif rc == 2:
        r.ours_reason = "refused: " + _last(err)
    else:
        ok, reason = _compare(text, expected)
        r.ours, r.ours_reason = ("passed", "") if ok else ("failed", reason + (f"; stderr: {_last(err)}" if err else ""))
    t0 = time.perf_counter()
    text, error = _morph(case)
    r.seconds["morph"] = round(time.perf_counter() - t0, 3)
    if expected is None:
        r.morph, r.morph_reason = ("error-raised", error) if text is None else \
            ("failed", f"no error raised ({text.count(chr(10))} statements)")
    elif text is None:
        r.morph_reason = error
    else:
        ok, reason = _compare(text, expected)
        r.morph, r.morph_reason = ("passed", "") if ok else ("failed", reason)
    return r


def _last(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("error")] or err.strip().splitlines() or [""]
    return lines[-1][:400]


def _compare(actual: str, expected: str) -> tuple[bool, str]:
    try:
        return same_dataset(actual, expected)
    except Exception as exc:  # noqa: BLE001 - an unparsable output is a failure with its reason
        return False, f"output does not parse as N-Quads: {type(exc).__name__}: {str(exc)[:300]}"


def run_suites(root: Path, out: Path, suites: tuple[str, ...] = SUITES, only: str | None = None,
               progress: bool = True) -> list[CaseResult]:
    """Run every case of ``suites`` under ``root``; writes one JSON per case under ``out``."""
    results = []
    for suite in suites:
        cases = sorted(p for p in (root / suite).iterdir() if (p / "mapping.ttl").is_file())
        for case in cases:
            if only and only not in case.name:
                continue
            r = run_case(case, out / suite / case.name)
            (out / suite).mkdir(parents=True, exist_ok=True)
            (out / suite / f"{case.name}.json").write_text(json.dumps(asdict(r), indent=2) + "\n", encoding="utf-8")
            results.append(r)
            if progress:
                print(f"{suite}/{case.name}: ours {r.ours}, morph-kgc {r.morph}", file=sys.stderr)
    return results


def table(results: list[CaseResult]) -> str:
    """Markdown table suite x (passed / failed / expected-error-raised) for us and Morph-KGC alone."""
    lines = ["| suite | cases | ours: passed / failed / error raised | Morph-KGC alone: passed / failed / error raised |",
             "|---|---:|---|---|"]
    for suite in sorted({r.suite for r in results}, key=lambda s: SUITES.index(s) if s in SUITES else 9):
        rs = [r for r in results if r.suite == suite]
        n_err = sum(r.expects_error for r in rs)

        def cell(attr: str) -> str:
            c = [getattr(r, attr) for r in rs]
            return f"{c.count('passed')} / {c.count('failed')} / {c.count('error-raised')} of {n_err}"
        lines.append(f"| {suite} | {len(rs)} | {cell('ours')} | {cell('morph')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 1 when a case Morph-KGC alone passes fails with us, else 0."""
    default = os.environ.get("RML_TEST_CASES") or Path(__file__).resolve().parents[2].parent / "shared" / \
        "benchmarks" / "rml-test-cases"
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default=str(default), help="folder with the suites (default: %(default)s)")
    p.add_argument("--out", default="out/conformance")
    p.add_argument("--suite", action="append", choices=SUITES, help="suite(s) to run (default: all)")
    p.add_argument("--only", help="run only the cases whose name contains this text")
    args = p.parse_args(argv)
    root, out = Path(args.cases), Path(args.out).absolute()
    if not all((root / s).is_dir() for s in args.suite or SUITES):
        print(f"error: RML test cases not found under {root} (set RML_TEST_CASES)", file=sys.stderr)
        return 2

    logging.disable(logging.WARNING)  # the engine logs each failure; the JSON has the reasons
    results = run_suites(root, out, tuple(args.suite or SUITES), args.only)
    print(table(results))
    regressions = [r for r in results if r.morph != "failed" and r.ours == "failed"]
    gains = [r for r in results if r.morph == "failed" and r.ours != "failed"]
    not_passed = [r for r in results if r.ours == "failed"]
    print(f"\nours only: {len(gains)}; Morph-KGC alone only: {len(regressions)}")
    for r in regressions:
        print(f"  REGRESSION {r.suite}/{r.case}: {r.ours_reason}")
    print(f"\ncases we do not pass ({len(not_passed)}):")
    for r in not_passed:
        print(f"  {r.suite}/{r.case}: {r.ours_reason[:200]}")
    (out / "summary.json").write_text(json.dumps({"table": table(results), "cases": [asdict(r) for r in results]},
                                                 indent=2) + "\n", encoding="utf-8")
    print(f"\nper-case results: {out}/<suite>/<case>.json")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
