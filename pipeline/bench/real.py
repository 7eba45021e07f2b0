"""Benchmark: the offline mapper on public cases that people mapped by hand (``make bench-real``).

Usage::

    python -m pipeline.bench.real [--corpus DIR ...] [--out DIR] [--case NAME] [--timeout S] [--calibrate]

The corpus is every folder with a ``case.yaml`` (a kgc manifest whose ``gold.graph`` is the KG the
hand-written mapping produces) under ``$REAL_MAPPINGS_DIR`` (default
``../shared/benchmarks/real-mappings`` from the project root) and the project's own
``data/real-mappings/``; ``--corpus`` replaces both.

Per case, ``kgc map`` runs in a process of its own (CPU seconds, user plus system, and peak
resident memory of that process, from ``getrusage`` of a wrapper whose only child it is: the
load and map stages together), then ``kgc run --mapper replay`` of that table builds the KG
without evaluation, and ``kgc validate`` checks that KG against the case's ontology (SV2, CS2,
SHACL; CPU seconds of that process and its children, as for the map stage, and its exit code). The KG is compared with the reference by
:func:`pipeline.scoring.graph.pairs.compare_graphs`, IRI-agnostic: classes, predicates and
(predicate, value) pairs, precision and recall, against the whole reference and against its
*reachable* part (statements whose terms the case's vocabularies declare); entities per class
against the reference; the sources that contributed (a record of theirs got a subject). The
table's rows marked ``review`` are counted apart: their share, and the precision of the rows not
marked, a row being right when at least half of the (predicate, value) pairs its property gives
on its class's entities are in the reference; a relation the reference states from the other end with
the inverse property the vocabularies declare (``owl:inverseOf``: ``isConsequenceOf`` for the row's
``hasConsequence``) counts as stated, each entailing the other (OWL 2 RL prp-inv1, prp-inv2). The
(predicate, value) pair scores compare the graphs as written, and once more (``entailed``, reachable part)
with what each side entails by the vocabularies' sub-property, equivalent- and inverse-property axioms
(:func:`pipeline.scoring.graph.pairs.entailed`). Rows are judged on a second KG built from the table
with every review mark cleared (a marked row is not in the first KG), so that every row, marked or
not, is judged the same way; rows sharing a property and a class are judged each on a KG without
the others (the copies of one row written for each file of a kind together).

A reference is one person's mapping: data its author left out gives a row nothing to be judged on. A
row that is not right and none of whose values the reference states under any property (a
relation: no entity of its object's class) is counted as one the reference cannot judge, and the
precision of the unmarked rows is given once more without them, as bpref leaves unjudged documents
out of a ranking's score (Buckley and Voorhees, "Retrieval evaluation with incomplete information",
SIGIR 2004). The strict figure, every judged row counted, stays the one the goal is read on.

``--calibrate`` fits the offline mapper's confidence calibration on the judged rows (isotonic
regression of "right" on the raw score, per basis of evidence:
:mod:`pipeline.mappers.offline.confidence`), prints the knots to ship, and reports, leave one case
out (each case judged with a calibration fitted on the other cases), the precision of the rows
left unmarked at each threshold; then the same for the confidence model (logistic regression of
"right" on each row's features, :mod:`pipeline.mappers.offline.features`), its weights to ship
and its leave-one-case-out precision, case mean and over all rows.

A benchmark, not a test: nothing is asserted; the goals are in docs/benchmarks/real.md.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF

from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.mappers.offline.confidence import basis_of, calibrated, model_confidence
from pipeline.mappers.offline.features import FEATURES, parse_features
from pipeline.ontology import Ontology, load_ontology
from pipeline.rdffile import load_graph
from pipeline.scoring.graph.pairs import compare_graphs, declared_terms, graph_pairs
from pipeline.table import MappingRow

__all__ = ["corpus_cases", "bench_case", "inverse_properties", "fit_calibration", "calibration_report", "fit_model", "model_report", "render",
           "main"]

_ROOT = Path(__file__).resolve().parents[2]
#: Where the shared corpus is read from when ``$REAL_MAPPINGS_DIR`` is not set.
DEFAULT_CORPUS = _ROOT.parent / "shared" / "benchmarks" / "real-mappings"
#: The project's own small cases (permissive licences, each with its PROVENANCE.md).
PROJECT_CORPUS = _ROOT / "data" / "real-mappings"

# Runs `argv` as its only child and prints the child's CPU seconds and peak RSS (KiB, Linux).
_WRAPPER = ("import json, resource, subprocess, sys; p = subprocess.run(sys.argv[1:]); "
            "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'rc': p.returncode, 'cpu_s': r.ru_utime + r.ru_stime, 'rss_kib': r.ru_maxrss}))")


def corpus_cases(roots: list[Path] | None = None) -> list[Path]:
    """The ``case.yaml`` files of the corpus, sorted by case folder name.

    Args:
        roots: corpus folders; ``None``: ``$REAL_MAPPINGS_DIR`` (or :data:`DEFAULT_CORPUS`) and
            :data:`PROJECT_CORPUS`, those that exist.
    Raises:
        InputError: a given root is not a folder, or no case is found.
    """
    if roots is None:
        roots = [Path(os.environ.get("REAL_MAPPINGS_DIR") or DEFAULT_CORPUS), PROJECT_CORPUS]
        roots = [r for r in roots if r.is_dir()]
    else:
        for r in roots:
            if not r.is_dir():
                raise InputError("corpus folder not found", path=r)
    cases = sorted((p for r in roots for p in r.glob("*/case.yaml")), key=lambda p: p.parent.name)
    if not cases:
        raise InputError(f"no case (*/case.yaml) found in {', '.join(map(str, roots)) or 'no corpus folder'} "
                         "(set REAL_MAPPINGS_DIR)")
    return cases


def _measured(argv: list[str], timeout: float) -> dict[str, Any]:
    try:
        out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "timeout": True}
    try:
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"rc": out.returncode, "error": out.stderr[-500:]}
    result["stderr"] = out.stderr[-2000:]
    return result


def _judge_rows(rows: list[dict[str, Any]], kg: Graph, ref_pairs: Counter, vocabulary: set[str],
                ontology: Ontology) -> list[dict[str, Any]]:
    """Per row: its basis and raw score (:func:`pipeline.mappers.offline.confidence.basis_of`), its
    confidence, whether it is marked, and whether it is right (``None``: its property gave no pair)."""
    types: dict[Any, set[str]] = {}
    for s, o in kg.subject_objects(RDF.type):
        types.setdefault(s, set()).add(str(o))
    by_prop: dict[str, list[tuple[Any, Any, Any]]] = {}
    for s, p, o in kg:
        by_prop.setdefault(str(p), []).append((s, p, o))
    inverse = inverse_properties(ontology)
    stated = reference_values(ref_pairs)
    verdicts: dict[tuple[str, str, bool], tuple[bool | None, bool]] = {}  # they depend on these alone, not on the row
    out = []
    for data in rows:
        row = MappingRow.from_dict(data)
        found = basis_of(row)
        # a class-only row writes rdf:type statements alone: its pairs are (rdf:type, its class)
        prop = str(RDF.type) if row.class_only else str(ontology.expand(row.ontology_property) or "")
        cls = str(ontology.expand(row.entity_class) or "")
        key = (prop, cls, bool(row.class_only))
        if key not in verdicts:
            verdicts[key] = _verdict(prop, cls, bool(row.class_only), types, by_prop, ref_pairs, vocabulary,
                                     inverse, stated)
        right, covered = verdicts[key]
        out.append({"line": row.line, "property": row.ontology_property, "class": row.entity_class,
                    "reference": row.data_reference, "basis": found[0] if found else None,
                    "raw": found[1] if found else None, "confidence": row.confidence,
                    "review": bool(row.review), "right": right, "covered": covered,
                    "features": parse_features(row.evidence)})
    return out


def reference_values(ref_pairs: Counter) -> set[str]:
    """What a reference states of its data, whatever the property: the values of its (predicate, value) pairs
    (:func:`graph_pairs`), and ``entity of <C>`` for each class ``C`` it types an entity with (a relation to an
    entity of ``C`` concerns entities the reference has)."""
    out = {v for _, v in ref_pairs}
    out |= {f"entity of {v}" for p, v in ref_pairs if p == str(RDF.type)}
    return out


def _covered(value: str, stated: set[str]) -> bool:
    """Whether the reference states the pair value ``value`` under some property (:func:`reference_values`); a
    relation's ``entity of C1 C2`` when the reference has entities of any of its classes."""
    if value in stated:
        return True
    if value.startswith("entity of "):
        classes = value[len("entity of "):].split()
        return not classes or any(f"entity of {c}" in stated for c in classes)
    return False


def _verdict(prop: str, cls: str, class_only: bool, types: dict[Any, set[str]],
             by_prop: dict[str, list[tuple[Any, Any, Any]]], ref_pairs: Counter, vocabulary: set[str],
             inverse: dict[str, set[str]], stated: set[str] = frozenset()) -> tuple[bool | None, bool]:
    """Whether the statements of property ``prop`` (IRI; ``rdf:type`` for a class-only row) on the entities of
    class ``cls`` (every subject when empty) are right: at least half of their (predicate, value) pairs
    (:func:`graph_pairs`) are in ``ref_pairs`` or stated by the reference with an inverse property
    (:func:`_inverse_hits`); ``None`` when they give no pair. ``types`` (node -> class IRIs) and ``by_prop``
    (property IRI -> statements) index the KG the row is judged on.

    Returns:
        ``(right, covered)``: ``covered`` is whether the reference states any of the row's values under any
        property (``stated``: :func:`reference_values`), i.e. whether the person who wrote the reference
        mapped the data the row reads at all; a row that is not right and not covered is one the reference
        cannot judge (its author left that data out)."""
    sub = Graph()
    for s, p, o in by_prop.get(prop, []):
        if not cls or cls in types.get(s, ()):
            sub.add((s, p, o))
    for s in set(sub.subjects()) | {o for o in sub.objects() if o in types}:  # types, for "entity of" values
        for t in types.get(s, ()):
            sub.add((s, RDF.type, URIRef(t)))
    pairs = Counter({k: v for k, v in graph_pairs(sub, vocabulary).items()
                     if k[0] == prop and (not class_only or k[1] == cls)})
    right = None
    if pairs:
        hits = sum((pairs & ref_pairs).values())
        if inverse.get(prop) and hits < sum(pairs.values()):
            hits += _inverse_hits(sub, prop, inverse[prop], types, ref_pairs - (pairs & ref_pairs),
                                  sum(pairs.values()) - hits)
        right = hits >= 0.5 * sum(pairs.values())
    covered = any(_covered(v, stated) for _, v in pairs)
    return right, covered


def inverse_properties(ontology: Ontology) -> dict[str, set[str]]:
    """Property IRI -> the properties the vocabularies declare its inverse (``owl:inverseOf``, read both ways:
    OWL 2 RDF-Based Semantics, the inverse of an inverse is the property itself)."""
    out: dict[str, set[str]] = {}
    for p, q in ontology.graph.subject_objects(OWL.inverseOf):
        if isinstance(p, URIRef) and isinstance(q, URIRef):
            out.setdefault(str(p), set()).add(str(q))
            out.setdefault(str(q), set()).add(str(p))
    return out


def _inverse_hits(sub: Graph, prop: str, inverses: set[str], types: dict[Any, set[str]], ref_left: Counter,
                  most: int) -> int:
    """How many of a row's statements ``s prop o`` (in ``sub``) the reference states the other way round, ``o q s``
    with ``q`` an inverse of ``prop``: by OWL 2 (``owl:inverseOf``, RL rules prp-inv1/prp-inv2) each entails the
    other, so a row that relates a pattern to its consequences with ``hasConsequence`` states what a reference
    writing ``isConsequenceOf`` does. Read as pairs of the reference (:func:`graph_pairs`: an object that is an
    entity gives ``entity of`` its classes), counted against ``ref_left`` (the reference's pairs the row's own
    reading did not match) and at most ``most``."""
    left, hits = Counter(ref_left), 0
    for s, _, o in sorted(sub.triples((None, URIRef(prop), None))):
        if isinstance(o, Literal):
            continue
        value = "entity of " + " ".join(sorted(types.get(s, ())))
        q = next((q for q in sorted(inverses) if left[(q, value)] > 0), None)
        if q is not None:  # each statement matches one of the reference's at most
            left[(q, value)] -= 1
            hits += 1
    return min(hits, most)


def _reference_judges(row: dict[str, Any]) -> bool:
    """Whether the reference can judge a judged row: it is right, or the reference states some of its values
    (``covered``; a judgement without that key counts as covered)."""
    return bool(row["right"]) or row.get("covered", True)


def _row_summary(judged: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows, rows marked, rows judged, precision of the unmarked and of the marked rows; and the precision of
    the unmarked rows the reference can judge (:func:`_reference_judges`), with how many it cannot."""
    unmarked = [r["right"] for r in judged if not r["review"] and r["right"] is not None]
    marked = [r["right"] for r in judged if r["review"] and r["right"] is not None]
    covered = [r["right"] for r in judged if not r["review"] and r["right"] is not None and _reference_judges(r)]
    return {"rows": len(judged), "review": sum(r["review"] for r in judged), "judged": len(unmarked) + len(marked),
            "unmarked_precision": sum(unmarked) / len(unmarked) if unmarked else None,
            "marked_precision": sum(marked) / len(marked) if marked else None,
            "unmarked_precision_covered": sum(covered) / len(covered) if covered else None,
            "unmarked_uncovered": len(unmarked) - len(covered)}


def _replay(manifest: Path, table: Path, folder: Path, timeout: float) -> tuple[subprocess.CompletedProcess, Path]:
    """``kgc run --mapper replay`` of ``table`` without evaluation into ``folder``; returns the process
    and the case folder."""
    run = subprocess.run([sys.executable, "-m", "pipeline.cli", "-q", "run", str(manifest), "--mapper", "replay",
                          "--table", str(table), "--out", str(folder), "--no-evaluate"],
                         capture_output=True, text=True, timeout=timeout)
    case = load_manifest(manifest)
    return run, folder / case.scenario / case.name


# Runs `kgc` with each argument list of the JSON list on stdin, one after the other in this one process.
_BATCH = ("import json, sys, traceback\nfrom pipeline.cli import main\nfor argv in json.load(sys.stdin):\n"
          "    try:\n        main(argv)\n    except (Exception, SystemExit):\n        traceback.print_exc()\n")


def _replays(manifest: Path, jobs: list[tuple[Path, Path]], timeout: float) -> list[Path]:
    """``kgc run --mapper replay`` of each ``(table, folder)`` as :func:`_replay` does, all in one process: the
    same command line of each through :func:`pipeline.cli.main`, so one interpreter start and one import of
    the pipeline serve every table (a table whose run fails leaves no KG, as in a process of its own).
    Returns the case folder of each job; ``timeout`` is per job (the process gets their sum).
    Raises subprocess.TimeoutExpired when the jobs together take longer."""
    if not jobs:
        return []
    argvs = [["-q", "run", str(manifest), "--mapper", "replay", "--table", str(table), "--out", str(folder),
              "--no-evaluate"] for table, folder in jobs]
    subprocess.run([sys.executable, "-c", _BATCH], input=json.dumps(argvs), capture_output=True, text=True,
                   timeout=timeout * len(jobs))
    case = load_manifest(manifest)
    return [folder / case.scenario / case.name for _, folder in jobs]


def _read_kg(path: Path) -> Graph:
    kg = Graph()
    if path.is_file():
        kg.parse(path, format="nt")
    return kg


def bench_case(manifest: Path, out: Path, timeout: float = 600.0) -> dict[str, Any]:
    """Map, materialize and score one corpus case; returns its figures (see the module docstring)."""
    case = load_manifest(manifest)
    folder = out / case.name
    folder.mkdir(parents=True, exist_ok=True)
    table = folder / "table.json"
    res: dict[str, Any] = {"case": case.name}
    mapped = _measured([sys.executable, "-m", "pipeline.cli", "-q", "map", str(manifest), str(table)], timeout)
    res["map"] = {k: v for k, v in mapped.items() if k != "stderr"}
    if mapped.get("rc") != 0:
        res["status"] = "map timed out" if mapped.get("timeout") else f"map exit {mapped.get('rc')}"
        res["detail"] = (mapped.get("stderr") or mapped.get("error") or "")[-300:]
        return res
    run, case_dir = _replay(manifest, table, folder / "run", timeout)
    kg_path = case_dir / "kg.nt"
    kg = _read_kg(kg_path)
    res["status"] = "ok" if run.returncode in (0, 1) and kg_path.is_file() else f"run exit {run.returncode}"
    if kg_path.is_file():  # issue 27 item 5: validating the KG against its ontology, timed like the map stage
        checked = _measured([sys.executable, "-m", "pipeline.cli", "-q", "validate", str(manifest), str(kg_path)],
                            timeout)
        res["validate"] = {k: v for k, v in checked.items() if k != "stderr"}
    run_json = case_dir / "run.json"
    coverage = json.loads(run_json.read_text(encoding="utf-8")).get("coverage", {}) if run_json.is_file() else {}
    res["sources"] = [len(case.sources), sum(1 for c in coverage.values() if c.get("records_with_subject"))]
    reference = load_graph(case.gold_graph, "reference KG")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    vocabulary = declared_terms([ontology.graph])
    res["all"] = compare_graphs(kg, reference, vocabulary).to_dict()
    res["reachable"] = compare_graphs(kg, reference, vocabulary, reachable=True).to_dict()
    res["entailed"] = compare_graphs(kg, reference, vocabulary, reachable=True, entailment=ontology.graph).to_dict()
    rows = json.loads(table.read_text(encoding="utf-8")).get("rows", []) if table.is_file() else []
    judge_kg = kg
    if any(r.get("review") for r in rows):  # every row judged: a KG with the marks cleared
        accepted = folder / "table.accepted.json"
        accepted.write_text(json.dumps({"rows": [{**r, "review": None} for r in rows]}, indent=1), encoding="utf-8")
        _, all_dir = _replay(manifest, accepted, folder / "run-accepted", timeout)
        judge_kg = _read_kg(all_dir / "kg.nt")
    ref_pairs = graph_pairs(reference, vocabulary)
    judged = _judge_rows(rows, judge_kg, ref_pairs, vocabulary, ontology)
    # rows sharing a property and class (two columns mapped to gtfs:route) write pairs that cannot be told
    # apart in one KG: each is judged on a KG without the others
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((r.get("ontology_property"), r.get("entity_class")), []).append(i)
    # one row written for each file of a kind (pipeline/mappers/offline/onekind.py) is one decision: its copies
    # (equal but for the Source File) are judged together, on a KG without the other rows of the group
    alone: list[tuple[list[int], Path, Path]] = []  # (rows judged together, their table, its run folder)
    for members in (m for m in groups.values() if len(m) > 1):
        copies: dict[str, list[int]] = {}
        for i in members:
            copies.setdefault(_decision(rows[i]), []).append(i)
        if len(copies) == 1:
            continue
        for same in copies.values():
            i = same[0]
            keep = [{**r, "review": None} for j, r in enumerate(rows) if j in same or j not in members]
            path = folder / f"table.row{i}.json"
            path.write_text(json.dumps({"rows": keep}, indent=1), encoding="utf-8")
            alone.append((same, path, folder / f"run-row{i}"))
    for (same, _, _), alone_dir in zip(alone, _replays(manifest, [(t, f) for _, t, f in alone], timeout)):
        kg_alone = _read_kg(alone_dir / "kg.nt")
        for k in same:
            judged[k]["right"] = _judge_rows([rows[k]], kg_alone, ref_pairs, vocabulary, ontology)[0]["right"]
    res["row_judgements"] = judged
    res["rows"] = _row_summary(judged)
    return res


def _decision(row: dict[str, Any]) -> str:
    """What a table row decides, whatever file it is written for: its cells but the Source File, its line
    and what the mapper said of it."""
    return json.dumps({k: v for k, v in row.items() if k not in ("source_file", "line", "evidence", "confidence",
                                                                  "review")}, sort_keys=True, default=str)


def _pav(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Isotonic (non-decreasing) regression by pool-adjacent-violators of ``(x, y)`` points (Barlow et
    al., Statistical Inference under Order Restrictions, 1972), each block's rate smoothed by Laplace's
    rule of succession, ``(right + 1) / (rows + 2)`` (a block of one right row says 0.67, not 1.0),
    pooled again where smoothing broke the order. Returns the knots ``(mean x, rate)`` of the blocks."""
    def pool(blocks: list[list[float]], rate) -> list[list[float]]:
        out: list[list[float]] = []  # [sum x, sum y, n]
        for b in blocks:
            out.append(list(b))
            while len(out) > 1 and rate(out[-2]) >= rate(out[-1]):
                last = out.pop()
                out[-1] = [out[-1][0] + last[0], out[-1][1] + last[1], out[-1][2] + last[2]]
        return out

    blocks = pool([[x, y, 1.0] for x, y in sorted(points)], lambda b: b[1] / b[2])
    blocks = pool(blocks, lambda b: (b[1] + 1) / (b[2] + 2))
    return [(round(sx / n, 3), round((sy + 1) / (n + 2), 3)) for sx, sy, n in blocks]


def fit_calibration(judged: list[dict[str, Any]]) -> dict[str, list[tuple[float, float]]]:
    """basis -> isotonic knots of "right" on the raw score over the judged rows of that basis."""
    by_basis: dict[str, list[tuple[float, float]]] = {}
    for r in judged:
        if r.get("basis") and r.get("raw") is not None and r.get("right") is not None:
            by_basis.setdefault(r["basis"], []).append((r["raw"], 1.0 if r["right"] else 0.0))
    return {b: _pav(pts) for b, pts in sorted(by_basis.items())}


#: Inverse L2 strength of the confidence model's logistic regression (scikit-learn's ``C``; 1.0, its
#: default: a few hundred rows and a handful of features in [0, 1] need no tuned penalty).
MODEL_C = 1.0


def fit_model(judged: list[dict[str, Any]]) -> dict[str, float]:
    """The confidence model (:data:`pipeline.mappers.offline.confidence.MODEL`): L2-penalised logistic
    regression (scikit-learn ``LogisticRegression``, lbfgs, ``C`` :data:`MODEL_C`) of "the row is right" on
    the features of the judged rows that have them; ``{"intercept": b, feature: weight ...}`` rounded to 3
    decimals. Raises ValueError when the rows are all right or all wrong (no model separates them)."""
    from sklearn.linear_model import LogisticRegression  # only the benchmark fits; the mapper reads MODEL

    rows = [r for r in judged if r.get("features") and r.get("right") is not None]
    x = [[r["features"][k] for k in FEATURES] for r in rows]
    y = [1 if r["right"] else 0 for r in rows]
    if len(set(y)) < 2:
        raise ValueError(f"{len(rows)} judged rows with features, all {'right' if y and y[0] else 'wrong'}: "
                         "no model can be fitted")
    fit = LogisticRegression(C=MODEL_C, max_iter=1000).fit(x, y)
    return {"intercept": round(float(fit.intercept_[0]), 3),
            **{k: round(float(w), 3) for k, w in zip(FEATURES, fit.coef_[0])}}


def _kept(rows: list[dict[str, Any]], model: dict[str, float], t: float) -> list[bool]:
    """``right`` of the rows a model with threshold ``t`` leaves unmarked (rows without features: kept)."""
    return [r["right"] for r in rows if not r.get("features") or model_confidence(r["features"], model) >= t]


def calibration_report(results: list[dict[str, Any]], thresholds: tuple[float, ...] = (
        0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)) -> tuple[dict[str, list[tuple[float, float]]], str]:
    """The calibration fitted on every case, and a Markdown table of the leave-one-case-out precision
    and share of rows kept (unmarked) at each threshold."""
    judged = {r["case"]: [j for j in r.get("row_judgements", []) if j.get("right") is not None] for r in results}
    full = fit_calibration([j for rows in judged.values() for j in rows])
    lines = ["| threshold | rows kept (LOCO) | precision of kept rows (LOCO) | rows kept (in-sample) "
             "| precision (in-sample) |", "|---|---|---|---|---|"]
    total = sum(len(v) for v in judged.values())
    for t in thresholds:
        loco, insample = [], []
        for case, rows in judged.items():
            table = fit_calibration([j for c, rs in judged.items() if c != case for j in rs])
            for j in rows:
                if j.get("basis") is None:
                    continue
                if calibrated(j["basis"], j["raw"], table) >= t:
                    loco.append(j["right"])
                if calibrated(j["basis"], j["raw"], full) >= t:
                    insample.append(j["right"])
        lines.append(f"| {t:.2f} | {len(loco)} of {total} | {_f(sum(loco) / len(loco) if loco else None)} | "
                     f"{len(insample)} of {total} | {_f(sum(insample) / len(insample) if insample else None)} |")
    return full, "\n".join(lines)


def model_report(results: list[dict[str, Any]], thresholds: tuple[float, ...] = (
        0.0, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)) -> tuple[dict[str, float], str]:
    """The confidence model fitted on every case (:func:`fit_model`), and a Markdown table, per threshold,
    of the rows kept (unmarked) and their precision: leave one case out (each case's rows judged by a
    model fitted on the other cases; case mean and all rows) and in sample (the model fitted on every
    case). Threshold 0: every row kept, the precision of the table as proposed."""
    judged = {r["case"]: [j for j in r.get("row_judgements", []) if j.get("right") is not None] for r in results}
    full = fit_model([j for rows in judged.values() for j in rows])
    loco_models = {case: fit_model([j for c, rs in judged.items() if c != case for j in rs]) for case in judged}
    lines = ["| threshold | rows kept (LOCO) | precision of kept rows, case mean; all rows (LOCO) | rows kept (in-sample) "
             "| precision (in-sample) |", "|---|---|---|---|---|"]
    total = sum(len(v) for v in judged.values())
    for t in thresholds:
        per_case = {case: _kept(rows, loco_models[case], t) for case, rows in judged.items()}
        loco = [k for kept in per_case.values() for k in kept]
        insample = [k for rows in judged.values() for k in _kept(rows, full, t)]
        mean = _mean([sum(k) / len(k) if k else None for k in per_case.values()])
        lines.append(f"| {t:.2f} | {len(loco)} of {total} | {_f(mean)}; {_f(sum(loco) / len(loco) if loco else None)} | "
                     f"{len(insample)} of {total} | {_f(sum(insample) / len(insample) if insample else None)} |")
    return full, "\n".join(lines)


def _f(v: Any) -> str:
    return "n/a" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)


def _validated(v: dict[str, Any] | None) -> str:
    """``kgc validate``'s CPU seconds and exit code (0 valid, 1 a check fails or did not run)."""
    if not v:
        return "not run"
    if v.get("timeout"):
        return "timed out"
    return f"{_f(v.get('cpu_s'))} ({v.get('rc')})"


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def render(results: list[dict[str, Any]]) -> str:
    """The Markdown tables of ``results`` (per case, then means over the cases)."""
    head = ("| case | status | map CPU s | map peak MiB | validate CPU s (exit) | sources | class P/R | predicate P/R "
            "| pair P/R (all) | pair P/R (reachable) | entities within 20% | rows (review) | unmarked row precision |")
    lines = [head, "|" + "|".join(["---"] * 13) + "|"]
    for r in results:
        a, rr, m, rows = r.get("all", {}), r.get("reachable", {}), r.get("map", {}), r.get("rows", {})
        src = r.get("sources")
        lines.append("| " + " | ".join([
            r["case"], r.get("status", "?"), _f(m.get("cpu_s")),
            _f(m["rss_kib"] / 1024) if m.get("rss_kib") else "n/a",
            _validated(r.get("validate")),
            f"{src[1]} of {src[0]}" if src else "n/a",
            f"{_f(rr.get('class_precision'))} / {_f(rr.get('class_recall'))}",
            f"{_f(rr.get('predicate_precision'))} / {_f(rr.get('predicate_recall'))}",
            f"{_f(a.get('pair_precision'))} / {_f(a.get('pair_recall'))}",
            f"{_f(rr.get('pair_precision'))} / {_f(rr.get('pair_recall'))}",
            _f(rr.get("entities_within")),
            f"{rows.get('rows', 0)} ({rows.get('review', 0)})" if rows else "n/a",
            _f(rows.get("unmarked_precision")),
        ]) + " |")

    def mean(key: str, part: str = "reachable") -> str:
        return _f(_mean([r.get(part, {}).get(key) for r in results]))

    judged = [j for r in results for j in r.get("row_judgements", []) if j.get("right") is not None]
    kept = [j["right"] for j in judged if not j["review"]]
    rows = [j for r in results for j in r.get("row_judgements", [])]
    lines += ["", "Means over the cases (reachable reference unless said):", "",
              "| class P / R | predicate P / R | pair P / R (all) | pair P / R (reachable) "
              "| pair P / R (reachable, entailed) | class P / R (reachable, entailed) | entities within 20% "
              "| unmarked row precision (case mean; all rows) | rows marked for review | every source contributes |",
              "|---|---|---|---|---|---|---|---|---|---|",
              f"| {mean('class_precision')} / {mean('class_recall')} | {mean('predicate_precision')} / "
              f"{mean('predicate_recall')} | {mean('pair_precision', 'all')} / {mean('pair_recall', 'all')} | "
              f"{mean('pair_precision')} / {mean('pair_recall')} | "
              f"{mean('pair_precision', 'entailed')} / {mean('pair_recall', 'entailed')} | "
              f"{mean('class_precision', 'entailed')} / {mean('class_recall', 'entailed')} | {mean('entities_within')} | "
              f"{_f(_mean([r.get('rows', {}).get('unmarked_precision') for r in results]))}; "
              f"{_f(sum(kept) / len(kept) if kept else None)} ({len(kept)} rows) | "
              f"{sum(j['review'] for j in rows)} of {len(rows)} | "
              f"{sum(1 for r in results if r.get('sources') and r['sources'][0] == r['sources'][1])} of "
              f"{len(results)} cases |"]
    pooled = _row_summary(rows)  # every case's rows together
    lines += ["", f"Unmarked rows the reference cannot judge (not right, and none of their values stated by the "
              f"reference under any property: data its author did not map): {pooled['unmarked_uncovered']} of "
              f"{len(kept)}. Precision of the other unmarked rows: "
              f"{_f(_mean([r.get('rows', {}).get('unmarked_precision_covered') for r in results]))} (case mean), "
              f"{_f(pooled['unmarked_precision_covered'])} ({len(kept) - pooled['unmarked_uncovered']} rows)."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0, or 2 when the corpus is not found."""
    ap = argparse.ArgumentParser(prog="bench-real", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", type=Path, help="a corpus folder (repeatable; default: "
                    "$REAL_MAPPINGS_DIR or ../shared/benchmarks/real-mappings, and data/real-mappings)")
    ap.add_argument("--out", type=Path, default=None, help="working folder (default: a temporary one)")
    ap.add_argument("--case", action="append", help="only this case (folder name; repeatable)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per stage and case (default: %(default)s)")
    ap.add_argument("--calibrate", action="store_true", help="also fit the offline mapper's confidence calibration "
                    "on the judged rows and report its leave-one-case-out precision")
    ap.add_argument("--from-json", type=Path, help="report (and calibrate) from a bench-real.json of an earlier run")
    args = ap.parse_args(argv)
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)  # ill-typed literals: SV2 reports them, not this
    try:
        cases = corpus_cases(args.corpus)
    except InputError as exc:
        print(f"bench-real: {exc}", file=sys.stderr)
        return 2
    if args.case:
        cases = [c for c in cases if c.parent.name in args.case]
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        out = args.out or Path(tmp)
        if args.from_json:
            results = json.loads(args.from_json.read_text(encoding="utf-8"))
        else:
            results = []
            for manifest in cases:
                print(f"{manifest.parent.name} ...", file=sys.stderr, flush=True)
                results.append(bench_case(manifest, out, args.timeout))
            out.mkdir(parents=True, exist_ok=True)
            (out / "bench-real.json").write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(render(results))
        if args.calibrate:
            knots, table = calibration_report(results)
            print("\nConfidence calibration (isotonic, per basis; rows judged on the KG with every mark cleared):\n")
            print(table)
            print("\nCALIBRATION = " + json.dumps({b: [list(k) for k in v] for b, v in knots.items()}))
            knots, table = model_report(results)
            print("\nConfidence model (logistic regression on the rows' features; rows judged on the KG with every "
                  "mark cleared):\n")
            print(table)
            print("\nMODEL = " + json.dumps(knots))
        if args.out and not args.from_json:
            print(f"\nper-case figures: {out / 'bench-real.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
