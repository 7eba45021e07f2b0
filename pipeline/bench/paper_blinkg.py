"""The BLINKG scripts' own scoring rules, to check a rescoring like for like against the published figures.

The published automatic figures of BLINKG come from its evaluation scripts (``citiususc/blinkg``,
``src/blinkg/evaluate.py`` ``match_tables`` and ``calculate_prf``, driven by
``evaluation/scripts/evaluate.py`` and ``merge_results.py``). Our scorer
(:mod:`pipeline.scoring.mapping`) differs on purpose; this module re-implements theirs so that the
bench can tell "our reading of their tables" apart from "our rules":

* **Tables** are read as ``parse_md_table`` does: the first line is the header, the second is
  skipped, cells are split on ``|``, backticks dropped; a task is a column *header*, scored only
  when the predicted and the gold table have a column of that exact name.
* **Rows** are matched per table: first every ontology-property value that occurs once in the
  prediction is paired with the first free gold row whose property is similar above 0.9; then each
  remaining predicted row, in order, takes the most similar free gold row on the concatenated
  data-reference, property and class cells, or - when every gold row is taken - the most similar
  one again. Every predicted row is paired; gold rows left without a partner are not counted.
* **Cells** of a pair: empty cells (``''``, ``-``, ``N/A``, ``None``, dashes) are skipped; a cell
  is right when ``max(levenshtein, cosine, cosine of the ontology labels) >= 0.8`` after
  expanding and stripping the prefixes ``ex foaf rdfs xsd owl`` both cells share. A right cell is
  a true positive, a wrong one a false negative only; with every predicted row paired there are no
  false positives, so precision is 1 wherever a task has a true positive.
* **Runs** of one model on one case are summed (TP and FN over the runs), one F1 per case and
  model; the scenario figure is the mean over cases.

Known differences that remain: their embeddings are all-mpnet-base-v2, ours the packaged
all-MiniLM-L6-v2 (no download at run time); their sort of equal costs is numpy's unstable
quicksort, ours stable.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from rdflib import RDFS, Graph, URIRef
from rapidfuzz.distance import Levenshtein

from pipeline import embeddings
from pipeline.bench.paper_scores import LLM_FOLDERS, model_name

__all__ = ["EMPTY", "PREFIXES", "BlinkgTable", "read_blinkg_table", "BlinkgScorer", "score_model_case",
           "TASK_NAMES", "scenario_means", "rescore_with_blinkg_rules"]

#: BLINKG's ``empty_values``.
EMPTY = frozenset({"", "-", " ", "N/A", "None", "—", "–"})
#: BLINKG's ``prefix_map``.
PREFIXES = {"ex": "http://example.org/", "foaf": "http://xmlns.com/foaf/0.1/",
            "rdfs": "http://www.w3.org/2000/01/rdf-schema#", "xsd": "http://www.w3.org/2001/XMLSchema#",
            "owl": "http://www.w3.org/2002/07/owl#"}
#: Their column headers -> our task names (for putting their figures next to ours).
TASK_NAMES = {"CSV Column": "Data Reference", "XML Path": "Data Reference", "Data Reference": "Data Reference",
              "Ontology Property": "Ontology Property", "Entity Class": "Entity Class",
              "Related Entity Class": "Related Entity Class", "Subject Generation": "Subject Generation",
              "Join": "Join Condition", "Join Condition": "Join Condition", "Datatype": "Datatype",
              "Language Annotations": "Language Annotation", "Language Tag": "Language Annotation",
              "Function Name": "Function Name", "Function Output": "Function Output"}
_KEYS = {"column": re.compile(r"\bXML\s*_?\s*Path\b|\bPath\b|\bcsv\s*_?\s*column\b|\bcolumn\b", re.I),
         "ontology_prop": re.compile(r"\bontology\s*_?\s*property\b|\bprop(er)?\b", re.I),
         "entity_class": re.compile(r"\bentity\s*_?\s*class\b|\bclass\b", re.I)}


@dataclass
class BlinkgTable:
    """A Markdown table as BLINKG's ``parse_md_table`` reads it: headers and rows of stripped cells."""

    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)

    def cell(self, i: int, header: str) -> str:
        j = self.headers.index(header)
        return self.rows[i][j] if j < len(self.rows[i]) else ""


def read_blinkg_table(text: str) -> BlinkgTable:
    """Read a table as ``parse_md_table`` does (first line header, second line skipped, rows of
    dashes dropped, backticks removed); short rows are padded with empty cells."""
    lines = [ln.strip() for ln in text.strip().split("\n") if ln.strip()]
    if not lines:
        return BlinkgTable([])
    split = [ln.strip("|").split("|") for ln in [lines[0], *lines[2:]]]
    headers = [h.strip() for h in split[0]]
    rows = []
    for cells in split[1:]:
        cells = [c.replace("`", "").strip() for c in cells][: len(headers)]
        if all(re.fullmatch(r"-+", c) for c in cells):
            continue
        rows.append(cells + [""] * (len(headers) - len(cells)))
    return BlinkgTable(headers, rows)


def _expand(text: str) -> str:
    for prefix, base in PREFIXES.items():
        if text.startswith(f"{prefix}:"):
            return base + text.split(":", 1)[1]
    return text


def _strip_shared(v1: str, v2: str) -> tuple[str, str]:
    for prefix, base in PREFIXES.items():
        if v1.startswith(f"{prefix}:") and v2.startswith(f"{prefix}:"):
            v1, v2 = v1.split(":", 1)[1], v2.split(":", 1)[1]
        if v1.startswith(base) and v2.startswith(base):
            v1, v2 = v1[len(base):], v2[len(base):]
    return v1, v2


def _clean(v1: str, v2: str) -> tuple[str, str]:
    return _strip_shared(_expand(v1), _expand(v2))


class BlinkgScorer:
    """The similarity of BLINKG's scripts over one case's ontology (see the module docstring).

    Args:
        ontology_files: the case's ontology files (their labels and comments verbalise terms).
        threshold: the correctness threshold (BLINKG: 0.8).
    """

    def __init__(self, ontology_files: Iterable[str | Path], threshold: float = 0.8) -> None:
        self.graph = Graph()
        for f in ontology_files:
            self.graph.parse(str(f), format="turtle")
        self.threshold = threshold
        self.use_embeddings = embeddings.available()

    def _cos(self, a: str, b: str) -> float:
        if a == b:
            return 1.0
        if not self.use_embeddings:
            return 0.0
        v = embeddings.embed([a, b])
        return float(v[0] @ v[1])

    def _lexicalise(self, iri: str) -> str:
        if not iri.startswith(("http://", "https://")) or "{" in iri or "}" in iri:
            return iri
        node = URIRef(iri)
        if (node, None, None) not in self.graph:
            return iri
        labels = [str(x) for x in self.graph.objects(node, RDFS.label)]
        comments = [str(x) for x in self.graph.objects(node, RDFS.comment)]
        parts = [p for p in (" / ".join(labels), " / ".join(comments)) if p]
        return " – ".join(parts) if parts else f"No se encontró ni rdfs:label ni rdfs:comment para {iri}."

    def levenshtein(self, v1: str, v2: str) -> float:
        a, b = _clean(v1, v2)
        return float(Levenshtein.normalized_similarity(a, b)) if (a or b) else 1.0

    def bert(self, v1: str, v2: str) -> float:
        return self._cos(*_clean(v1, v2))

    def bert_lex(self, v1: str, v2: str) -> float:
        e1, e2 = _expand(v1), _expand(v2)
        l1, l2 = self._lexicalise(e1), self._lexicalise(e2)
        if l1 == e1 and l2 == e2:
            return self._cos(*_strip_shared(e1, e2))
        return self._cos(l1, l2)

    def cell(self, v1: str, v2: str) -> float:
        """``max(levenshtein, bert, bert_lex)`` of two cells (``calculate_prf``)."""
        return max(self.levenshtein(v1, v2), self.bert(v1, v2), self.bert_lex(v1, v2))

    def match(self, pred: BlinkgTable, gold: BlinkgTable) -> list[tuple[int, int]]:
        """``match_tables``: ``[(gold row, predicted row)]``, every predicted row paired."""
        keys_p = {k: next((h for h in pred.headers if p.search(h)), None) for k, p in _KEYS.items()}
        keys_g = {k: next((h for h in gold.headers if p.search(h)), None) for k, p in _KEYS.items()}
        keys = [k for k in _KEYS if keys_p[k] and keys_g[k]]
        used_p: set[int] = set()
        used_g: set[int] = set()
        pairs: list[tuple[int, int]] = []
        if "ontology_prop" in keys:
            hp, hg = keys_p["ontology_prop"], keys_g["ontology_prop"]
            values = [pred.cell(i, hp) for i in range(len(pred.rows))]
            counts: dict[str, int] = {}
            for v in values:
                counts[v] = counts.get(v, 0) + 1
            for val in sorted((v for v in counts if counts[v] == 1), key=values.index):
                for j in range(len(gold.rows)):
                    g = gold.cell(j, hg)
                    sim = max(float(Levenshtein.normalized_similarity(val, g)), self.bert(val, g))
                    if sim > 0.9 and j not in used_g:
                        i = values.index(val)
                        pairs.append((j, i))
                        used_p.add(i)
                        used_g.add(j)
                        break
        cost = np.ones((len(pred.rows), len(gold.rows)))
        for i in range(len(pred.rows)):
            for j in range(len(gold.rows)):
                if i in used_p or j in used_g:
                    continue
                a, b = [], []
                for k in keys:
                    v1, v2 = pred.cell(i, keys_p[k]), gold.cell(j, keys_g[k])
                    if v1 and v2 and v1 not in EMPTY and v2 not in EMPTY:
                        a.append(v1)
                        b.append(v2)
                s1, s2 = ", ".join(a), ", ".join(b)
                sim = 1.0 if s1 == s2 else max(float(Levenshtein.normalized_similarity(s1, s2)), self.bert(s1, s2))
                cost[i, j] = 1.0 - sim
        for i in range(len(pred.rows)):
            if i in used_p or not gold.rows:
                continue
            order = np.argsort(cost[i], kind="stable")
            j = next((int(x) for x in order if int(x) not in used_g), int(order[0]))
            used_p.add(i)
            used_g.add(j)
            pairs.append((j, i))
        return pairs

    def counts(self, pred: BlinkgTable, gold: BlinkgTable) -> dict[str, list[int]]:
        """``calculate_prf``: header -> ``[TP, FP, FN]`` of one predicted table."""
        pairs = self.match(pred, gold)
        out: dict[str, list[int]] = {}
        paired = {i for _, i in pairs}
        for col in sorted(set(pred.headers) | set(gold.headers)):
            if col == "index" or col not in pred.headers or col not in gold.headers:
                continue
            tp = fp = fn = 0
            for j, i in pairs:
                v1, v2 = pred.cell(i, col), gold.cell(j, col)
                if v1 in EMPTY or v2 in EMPTY:
                    continue
                if self.cell(v1, v2) >= self.threshold:
                    tp += 1
                else:
                    fn += 1
            for i in range(len(pred.rows)):  # unpaired predicted rows: none with this matching
                v1 = pred.cell(i, col)
                if i in paired or v1 in EMPTY:
                    continue
                if max((self.cell(v1, gold.cell(j, col)) for j in range(len(gold.rows))
                        if gold.cell(j, col) not in EMPTY), default=0.0) >= self.threshold:
                    fp += 1
            out[col] = [tp, fp, fn]
        return out


def _f1(tp: int, fp: int, fn: int) -> float:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def score_model_case(scorer: BlinkgScorer, runs: list[BlinkgTable], gold: BlinkgTable) -> dict[str, dict[str, float]]:
    """One model on one case: header -> ``{"tp", "fp", "fn", "f1"}`` summed over the runs (``eval_max_pr_aggregated``)."""
    total: dict[str, list[int]] = {}
    for run in runs:
        for col, (tp, fp, fn) in scorer.counts(run, gold).items():
            acc = total.setdefault(col, [0, 0, 0])
            acc[0] += tp
            acc[1] += fp
            acc[2] += fn
    return {col: {"tp": c[0], "fp": c[1], "fn": c[2], "f1": _f1(*c)} for col, c in total.items()}


def scenario_means(per_case: list[dict[str, dict[str, float]]]) -> dict[str, float]:
    """Mean F1 over cases per task (``merge_prf_to_f``), tasks named as ours (:data:`TASK_NAMES`)."""
    by_task: dict[str, list[float]] = {}
    for case in per_case:
        for col, v in case.items():
            by_task.setdefault(TASK_NAMES.get(col, col), []).append(v["f1"])
    return {task: statistics.fmean(vals) for task, vals in by_task.items()}


def rescore_with_blinkg_rules(eval_dir: Path, cases: dict[str, Any], scenario: str,
                              progress: Callable[[str], None] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Score the LLM tables of BLINKG's ``evaluation/`` folder with BLINKG's own rules.

    Args:
        eval_dir: the ``evaluation/`` folder (``<scenario>_clean/<case>/<model>/*.md`` ...).
        cases: case name -> :class:`pipeline.manifest.Case` of the benchmark (its ontology files; its
            gold table when the evaluation folder has no ``expected_table.md`` of its own).
        scenario: ``scenario1`` ...
        progress: called with one line per case and model.
    Returns:
        ``{setting: {model: {task: mean F1 over cases}}}`` (settings ``post-processed`` for
        ``_clean``, ``raw`` for ``_no_clean``; models named as in :func:`.paper_scores.model_name`).
    """
    out: dict[str, dict[str, dict[str, float]]] = {}
    for suffix, setting in LLM_FOLDERS.items():
        folder = eval_dir / f"{scenario}{suffix}"
        if not folder.is_dir():
            continue
        per_model: dict[str, list[dict[str, dict[str, float]]]] = {}
        for case_dir in sorted(p for p in folder.iterdir() if p.is_dir() and p.name in cases):
            case = cases[case_dir.name]
            own = case_dir / "expected_table.md"
            gold = read_blinkg_table((own if own.is_file() else Path(case.gold_table)).read_text(encoding="utf-8"))
            scorer = BlinkgScorer(case.ontologies)
            for model_dir in sorted(p for p in case_dir.iterdir() if p.is_dir()):
                runs = [read_blinkg_table(f.read_text(encoding="utf-8")) for f in sorted(model_dir.glob("*.md"))
                        if f.name != "expected_table.md"]
                if not runs:
                    continue
                per_model.setdefault(model_name(model_dir.name), []).append(score_model_case(scorer, runs, gold))
                if progress is not None:
                    progress(f"{scenario}/{case_dir.name}: {model_name(model_dir.name)} ({setting}) with BLINKG's "
                             f"rules, {len(runs)} table(s), gold {'of the evaluation folder' if own.is_file() else 'of the benchmark'}")
        if per_model:
            out[setting] = {m: scenario_means(v) for m, v in per_model.items()}
    return out
