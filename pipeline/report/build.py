"""The scenario report as data: per-case entries read from the run folders, scenario means, legend, and
the side-by-side table as text (:func:`console_table`; :mod:`.render` writes it as Markdown and HTML).

Input is plain dicts, so this module depends on no scorer::

    cases = [
        {"scenario": "scenario3", "case": "1",
         "mapping": {"f1": 0.81, "precision": 0.8, "task_prf": {...}, ...} or None,  # mapping level
         "mapping_raw": {...} or None,       # an LLM's table before validate-and-repair
         "graph": {"SA2-prop-exact": 0.74, "SV2": True, "SA3": {"value": 0.9, ...}, ...},
         # optional, filled by :func:`case_entry` from the case folder:
         "status": "ok" | "failed", "failed_stage", "error", "link", "artifacts", "counts",
         "gold_diff", "cqs", "coverage", "warnings", "runs", "verdict", ...},
        ...
    ]

:func:`case_entry` adds what a reader needs to decide whether to trust the KG: ``verdict``
(:func:`.trust.case_verdict`: one level, a headline and its reasons), ``checks`` (one row per KG
check), ``kg_summary`` (:func:`.kg_summary.kg_summary`), ``review`` (:func:`.review.rows_to_check`),
``finding_groups`` and ``gold_groups`` (:func:`.findings.group_findings`: the case's own findings,
errors first, and those about its gold, apart), ``check_groups`` (the KG checks' findings: SHACL
results per shape with their focus nodes, CS2 clashes, SV2 errors), ``gold`` (what the gold is; ``rows_dropped`` marks a
partial gold), ``scores`` (every entry of ``graph_scores.json``) and ``cq_summary``.

A score may be a number, a bool, ``None`` or a dict with a ``"value"`` key (a
``Result.to_dict()``); ``None`` or a missing score prints as ``n/a``. ``CS2`` is the two reasoners
together (:func:`.trust.combined_cs2`). A graph score
``ALIGNED_NAMES[<key>]`` (the same score after
aligning IRI schemes) gets a column beside ``<key>``. The
headline pair plotted and compared is ``mapping[mapping_key]`` (default
``f1``) vs ``graph[graph_key]`` (default ``SA2-prop-exact``). A scenario mean
names the cases it is taken over and the cases left out (failed, or n/a).
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pipeline.report.findings import SEVERITY_ORDER, group_findings, split_findings
from pipeline.report.kg_summary import kg_summary
from pipeline.report.review import rows_to_check
from pipeline.scoring.graph import ALIGNED_NAMES
from pipeline.scoring.graph.cq import cq_counts, pq_note
from pipeline.report.trust import case_verdict, check_rows, combined_cs2
from pipeline.validation.loss import coverage_loss

__all__ = ["DEFAULT_COLUMNS", "LEGEND", "TASKS", "value_of", "fmt", "case_entry", "case_folders", "build_report",
           "table_rows", "console_table"]

#: Graph-level columns shown by default: (label, key in the case's ``graph`` dict).
DEFAULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("SV2", "SV2"), ("CS2", "CS2"), ("SHACL", "SHACL"), ("SA2 type", "SA2-type-exact"),
    ("SA2 prop", "SA2-prop-exact"), ("SA2 prop h", "SA2-prop-hier"), ("SA3", "SA3"), ("SA4", "SA4"),
    ("CM2", "CM2"), ("CM3", "CM3"), ("CN3", "CN3"), ("CN5", "CN5"), ("PQ3", "PQ3"), ("PQ4", "PQ4"),
)

#: BLINKG's mapping tasks, in the order of its tables.
TASKS = ("Data Reference", "Source File", "Ontology Property", "Entity Class", "Related Entity Class",
         "Subject Generation", "Join Condition", "Datatype", "Language Tag", "Function Name", "Function Output")

#: One sentence per metric, with its source: (label, meaning, source).
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("map F1", "Mean over BLINKG's mapping tasks of the F1 of the table's cells against the gold table, "
               "post-processed setting (cells normalised before comparison); over several runs the macro mean.",
     "BLINKG (Chaves-Fraga et al.), task P/R/F1"),
    ("before / after repair", "The same mean task F1 for an LLM's table as it answered (before) and after "
                              "validate-and-repair against the ontology and the data (after).", "this pipeline"),
    ("raw / post-processed", "BLINKG's two settings of the task scores: cells compared as written (raw; a "
                             "cell naming an ontology term is compared by the term's label too, so a prefixed name "
                             "and its full IRI agree) or after normalisation of prefixes, IRI case, templates and "
                             "spacing (post-processed).", "BLINKG"),
    ("graph F1", "F1 of the KG's property assertions against the gold KG, entities matched by IRI or by the "
                 "source key of their subject templates (SA2 prop); see its 'aligned' column when the gold KG mints "
                 "other IRIs.", "KG-quality benchmark, SA2"),
    ("... aligned", "The same measure with entities matched by content (class, keys and values), whatever IRIs "
                    "either KG mints: the figure to read when the gold KG uses another IRI scheme.",
     "this pipeline (pipeline.scoring.graph.resolution)"),
    ("SV2", "The KG parses as strict N-Triples: valid IRIs, lexical forms of their datatypes, language tags.",
     "KG-quality benchmark, SV2 (syntactic validity)"),
    ("vocabulary", "The KG uses no class or property of the ontology's own namespace that the ontology does not "
                   "declare (a misspelt term no reasoner or shape sees); a term of a well-known vocabulary the "
                   "ontology declares in part is a warning. Part of the KG's verdict.",
     "Zaveri et al. 2016, IN3 (usage of undefined classes and properties)"),
    ("KG", "The KG's verdict: valid (every check ran and passes), invalid (a check fails), not validated "
           "(a check that applies did not run or finish: never a pass), lossy (valid, but values were dropped, "
           "rows of the user's table left out, records that differ merged into one subject, or half or more of the "
           "mapped records without a subject; "
           "unmapped columns are listed, not judged).",
     "this report"),
    ("CS2", "The KG plus the part of the ontology its terms reach is consistent: OWL 2 RL rules (owlrl) and, "
            "where Java is available, OWL 2 DL (HermiT); 'no' when either finds a clash, 'not run' when either "
            "did not finish.", "KG-quality benchmark, CS2 (consistency)"),
    ("SHACL", "The KG conforms to the shapes derived from the ontology and the scenario's own shapes "
              "(violations on nodes of the KG; warnings are open-world expectations).", "W3C SHACL, pyshacl"),
    ("SA2 type", "F1 of rdf:type assertions against the gold KG, exact classes, entities matched by IRI or "
                 "source key.",
     "KG-quality benchmark, SA2 (semantic accuracy)"),
    ("SA2 prop", "F1 of property assertions against the gold KG, exact properties, objects compared by value.",
     "KG-quality benchmark, SA2"),
    ("SA2 prop h", "As SA2 prop, but a near property in the hierarchy earns partial credit (hscore).",
     "KG-quality benchmark, SA2 hierarchy-aware"),
    ("SA3", "Entailment-aware F1: an assertion counts when the other KG plus the ontology entails it.",
     "KG-quality benchmark, SA3"),
    ("SA4", "Mean F1 of each entity's one-hop neighbourhood against its gold counterpart (unmatched: 0).",
     "KG-quality benchmark, SA4"),
    ("CM2", "Share of the gold KG's literal values found anywhere in the KG (source-information completeness).",
     "KG-quality benchmark, CM2 (completeness)"),
    ("CM3", "Share of gold entities that have a counterpart in the KG (population completeness).",
     "KG-quality benchmark, CM3"),
    ("CN3", "1 minus the share of entities whose identifier stands for several real-world objects.",
     "KG-quality benchmark, CN3 (conciseness)"),
    ("CN5", "1 minus the share of property values that repeat another value of the same subject and property.",
     "KG-quality benchmark, CN5"),
    ("PQ3", "Mean F1 over the competency questions of the KG's answers against the gold KG's answers; a "
            "question whose gold answer is empty is not scorable and left out.",
     "KG-quality benchmark, PQ3 (competency questions)"),
    ("PQ4", "Share of competency questions whose answer equals the gold KG's answer exactly.",
     "KG-quality benchmark, PQ4"),
    ("SV1 / CS1 / CM1 / CN4", "Mapping-level checks: table cells valid against ontology and data (SV1), "
                              "consistent with domains and ranges (CS1), gold rows covered (CM1), "
                              "no TriplesMap that only repeats another's triples (CN4).",
     "KG-quality benchmark, mapping layer"),
    ("partial", "A competency-question score (PQ) over part of the questions: some did not run (malformed: "
                "a SPARQL syntax error or an undeclared prefix; refused: a SERVICE or FROM clause, which would "
                "reach the network; failed: the query raised an error on the gold KG; the case's section names "
                "the file and line). In a mean row, 'partial n/m': n of "
                "the m cases it averages are partial, so the mean is over part of the questions too.",
     "this report"),
    ("k/n yes", "A mean row's cell for a yes/no check (SV2, CS2, SHACL ...): k of the n cases where the check "
                "ran passed it; ', m not run' counts the cases where it did not run.", "this report"),
    ("†", "A score against a partial gold. Graph scores: rows of the gold table did not compile, or a column "
          "of it was not read or is absent, so the gold KG lacks what they say and correct triples of the KG "
          "count as extra. Map F1: a column of the gold table was not read (its header is no mapping-table "
          "column), or is absent while the table gives it values, so the task it feeds is not scored and "
          "the mean is over the other tasks.", "this report"),
    ("n/a", "Not applicable or not computed (no gold, or the case failed before it).", "this report"),
    ("not run", "A check that applies did not run or finish (timeout, a tool that could not start): never a "
                "pass; the reason is in the case's section.", "this report"),
)


#: Graph scores that compare the KG with its gold (a partial gold marks them); CN5 reads the KG alone.
GOLD_BASED = ("SA", "CM", "PQ", "CN1", "CN2", "CN3")


def value_of(x: Any) -> float | bool | None:
    """The headline value of a score: numbers and bools as they are, ``{"value": v}`` -> v, else ``None``."""
    if isinstance(x, Mapping):
        x = x.get("value")
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return None if isinstance(x, float) and math.isnan(x) else float(x)
    return None


#: Marks a check that should have run and did not (never shown as a value or averaged).
NOT_RUN = "not run"


def _not_run(x: Any) -> bool:
    return x == NOT_RUN or (isinstance(x, Mapping) and x.get("value") is None
                            and x.get("status") in ("not_run", "timeout", "failed"))


def _cell(x: Any) -> Any:
    return NOT_RUN if _not_run(x) else value_of(x)


def fmt(x: Any, digits: int = 3) -> str:
    """A score as text: ``n/a`` for missing, ``not run`` for a check that should have run and did not
    (status ``not_run``/``timeout``/``failed``), ``yes``/``no`` for bools, fixed decimals for numbers."""
    if _not_run(x):
        return "not run"
    v = value_of(x)
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:.{digits}f}"


def _mean(values: Iterable[Any]) -> float | None:
    nums = [float(v) for v in map(value_of, values) if v is not None]
    return sum(nums) / len(nums) if nums else None


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


#: Suffixes of the folders a run sets aside (pipeline.run.runner): no case of their own.
ASIDE = (".previous", ".interrupted", ".failed")


def case_folders(scenario_dir: str | Path, ran: Sequence[str | Path] = ()) -> list[tuple[Path, bool]]:
    """Every case whose artifacts are in a scenario's output folder, for its report: the folders of
    this run (``ran``, in their order), then the other case folders there (``<case>/run.json``; not
    the ``.previous``/``.interrupted``/``.failed`` folders a run sets aside), sorted by name.

    Args:
        scenario_dir: ``<out>/<scenario>``. ran: the run folders of this run's cases of the scenario.
    Returns:
        ``[(folder, from an earlier run)]``; a case of this run is listed once, from this run.
    """
    out = [(Path(f), False) for f in ran]
    seen = {_case_name(f) for f, _ in out}
    root = Path(scenario_dir)
    others = sorted(p for p in root.iterdir() if p.is_dir() and (p / "run.json").is_file()
                    and not p.name.endswith(ASIDE)) if root.is_dir() else []
    return out + [(p, True) for p in others if p.name not in seen]


def _case_name(folder: Path) -> str:
    name = Path(folder).name
    return next((name[:-len(s)] for s in ASIDE if name.endswith(s)), name)


def case_entry(folder: str | Path, report_dir: str | Path, top: int = 10, earlier_run: bool = False) -> dict[str, Any]:
    """One case of the report, read from its run folder (``run.json`` and the files it names).

    Args:
        folder: ``<out>/<scenario>/<case>``. report_dir: where the report is written (links are relative to it).
        top: finding groups kept (rows marked for review first, then errors; the gold's own findings apart).
        earlier_run: the folder is from an earlier ``kgc run`` than the report's (:func:`case_folders`):
            the entry says so (``earlier_run``) with the time its ``run.json`` was written (``run_date``).
    Returns:
        A case dict (module docstring); missing files leave their keys empty.
    """
    folder = Path(folder)
    run = _read(folder / "run.json") or {}
    link = Path(*Path(folder).resolve().relative_to(Path(report_dir).resolve()).parts).as_posix() \
        if Path(folder).resolve().is_relative_to(Path(report_dir).resolve()) else str(folder.resolve())
    arts = run.get("artifacts", {})
    files = {"table": arts.get("table.md"), "table before repair": arts.get("table.raw.md"), "RML": arts.get("rml"),
             "Morph-KGC config": arts.get("morph_kgc_ini"), "KG": arts.get("kg_turtle") or arts.get("kg"),
             "audit": "audit.md" if (folder / "audit.md").exists() else None,
             "LLM prompts and answers": arts.get("llm_transcripts"), "run.json": "run.json",
             "mapping scores (JSON)": "mapping.mapping-scores.json" if (folder / "mapping.mapping-scores.json").exists()
             else None, "graph scores (JSON)": arts.get("graph_scores"),
             "graph validation (JSON)": "graph_validation.json" if (folder / "graph_validation.json").exists()
             else None}
    for r in run.get("runs", []):
        files[f"run {r['run']}"] = r["folder"]
    own, gold_findings = split_findings(_read(folder / "audit.json") or [])
    # with several runs, the gold diff and the CQ answers shown are those of run 0
    detail = folder / run["runs"][0]["folder"] if run.get("runs") else folder
    scores = _read(detail / "graph_scores.json") or {}
    summaries = {k: v or {} for k, v in run.get("graph_validation", {}).items()}  # value and status: "not run" shows
    full = _read(folder / "graph_validation.json") or {}
    validation = {k: full.get(k) or v for k, v in summaries.items()} if full else summaries
    prov = run.get("provenance", {})
    per_run = prov.get("per_run") or [prov]
    cqs = ((scores.get("PQ3") or {}).get("details") or {}).get("per_cq", [])
    graph = {**run.get("graph_scores", {}), **summaries}
    cs2 = combined_cs2(validation)
    if cs2 is not None:
        graph["CS2"] = cs2
    gold: dict[str, Any] = {}
    if (run.get("gold_kg") or {}).get("from") == "gold table":
        gold = {"kind": "KG of the gold table", "rows_dropped": run["gold_kg"].get("rows_dropped") or 0,
                "columns_unread": run["gold_kg"].get("columns_unread") or [],
                "triples": run["gold_kg"].get("triples")}
    elif run.get("expected_graph"):  # the case names a gold graph
        gold = {"kind": "gold graph"}
    kg_file = arts.get("kg")
    entry = {
        "scenario": run.get("scenario", folder.parent.name), "case": run.get("case", folder.name),
        "status": run.get("status", "missing"), "failed_stage": run.get("failed_stage"), "error": run.get("error"),
        "mapping": run.get("mapping_scores"), "mapping_raw": run.get("mapping_scores_raw"),
        "graph": graph, "graph_range": run.get("graph_scores_range", {}),
        "link": link, "artifacts": {k: v for k, v in files.items() if v},
        "counts": run.get("counts", {}), "gold": gold, "self_comparison": run.get("self_comparison"),
        "checks": check_rows(validation),
        "scores": [{"name": k, "value": fmt(v), "status": v.get("status") if isinstance(v, Mapping) else None,
                    "note": _score_note(v), "gold_based": k.split("@")[0].startswith(GOLD_BASED)}
                   for k, v in scores.items()],
        "finding_groups": group_findings(own, top), "gold_groups": group_findings(gold_findings, top),
        "check_groups": _check_groups(full, top),
        "n_findings": {sev: sum(f.get("severity") == sev for f in own) for sev in SEVERITY_ORDER},
        "n_gold_findings": {sev: sum(f.get("severity") == sev for f in gold_findings) for sev in SEVERITY_ORDER},
        "gold_diff": _read(detail / "gold_diff.json") or {},
        "details_from": "run 0 of " + str(len(run["runs"])) if run.get("runs") else None,
        "cqs": cqs, "cq_summary": cq_counts(cqs),
        # scores over part of the CQs (some did not run): marked "partial" in every table that shows them
        "partial_scores": sorted(k for k, v in scores.items() if isinstance(v, Mapping)
                                 and (v.get("details") or {}).get("not_run") and v.get("value") is not None),
        "coverage": {src: _coverage_cells(v) for src, v in (run.get("coverage") or {}).items()},
        "loss": coverage_loss(run.get("counts"), run.get("coverage"), own).to_dict(),
        "runs": run.get("runs", []),
        "warnings": [w for p in per_run if isinstance(p, dict) for w in p.get("warnings", [])],
        "mapper": (run.get("config") or {}).get("mapper"), "model": prov.get("model") or
        next((p.get("model") for p in per_run if isinstance(p, dict) and p.get("model")), None),
        "kg_summary": kg_summary(folder / kg_file) if kg_file else None,
        "review": rows_to_check(folder / "table.json"),
    }
    entry["earlier_run"] = earlier_run
    entry["run_date"] = _written(folder / "run.json")
    entry["graph_f1"] = value_of(graph.get("SA2-prop-exact"))
    entry["verdict"] = case_verdict(entry, validation)
    return entry


def _written(path: Path) -> str | None:
    """When ``path`` was last written (UTC, to the minute), ``None`` when it is missing."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    except OSError:
        return None


def _check_groups(validation: Mapping[str, Any], top: int) -> list[dict[str, Any]]:
    """The KG checks' findings grouped by kind (:func:`.findings.group_findings`), one group for a kind
    several checks report (``stage``: the checks' names); a group of one finding lists the node it is
    about; a SHACL group that is its shape's only one counts every result of the shape
    (``details.by_shape``), not only the findings kept in ``graph_validation.json``; several groups of a
    shape (one per constraint) count their own findings."""
    where: dict[tuple, list[str]] = {}
    findings = []
    for name, r in validation.items():
        if not isinstance(r, Mapping):
            continue
        for f in r.get("findings") or []:
            if f.get("severity") == "info":
                continue
            names = where.setdefault((f.get("severity"), f.get("message")), [])
            if name not in names:
                names.append(name)
            if names[0] == name:  # the same finding of another check is named, not repeated
                findings.append({**f, "stage": ""})
    groups = group_findings(findings, top)
    by_shape = ((validation.get("SHACL") or {}).get("details") or {}).get("by_shape") or {}
    severity = {"error": "Violation", "warning": "Warning", "info": "Info"}
    node = {(f.get("severity"), f.get("message")): f.get("location") for f in reversed(findings)}
    shape_of = {id(g): str(g["message"])[1:].split("]", 1)[0] if str(g["message"] or "").startswith("[") else None
                for g in groups}
    for g in groups:
        g["stage"] = ", ".join(where.get((g["severity"], g["message"]), []))
        if not g["listed"] and node.get((g["severity"], g["message"])):  # the one node a finding is about
            g["listed"] = [node[(g["severity"], g["message"])]]
    for g in groups:
        shape = shape_of[id(g)]
        if g["stage"] != "SHACL" or shape not in by_shape:
            continue
        # a shape's constraints (sh:minCount, sh:maxInclusive ...) give one group each; the shape's total
        # counts also the results graph_validation.json does not keep, which only a shape's one group may take
        same = [h for h in groups if shape_of[id(h)] == shape and h["severity"] == g["severity"] and h["stage"] == "SHACL"]
        if len(same) == 1:
            g["count"] = max(g["count"], by_shape[shape].get(severity.get(g["severity"], ""), 0))
            g["more_listed"] = g["count"] - len(g["listed"]) if g["listed"] else 0
    return groups


def _score_note(r: Any) -> str:
    """Why a graph score has no value, or what it covers (a partial CQ set), in one line."""
    if not isinstance(r, Mapping):
        return ""
    d = r.get("details") or {}
    if r.get("value") is None:
        why = d.get("reason") or next((f.get("message") for f in r.get("findings") or []), None) or ""
        return " ".join(str(why).split())
    return pq_note(d)  # the CQ phrase every section gives ("" for other scores)


def _coverage_cells(v: Any) -> list[list[str]]:
    """A source's coverage as ``[label, text]`` pairs: counts as integers, lists as their length and first names."""
    if not isinstance(v, Mapping):
        return [["", str(v)]]
    out = []
    for k, x in v.items():
        if isinstance(x, bool):
            text = "yes" if x else "no"
        elif isinstance(x, int):
            text = f"{x:,}"
        elif isinstance(x, float):
            text = f"{x:.3f}"
        elif isinstance(x, (list, tuple)):
            shown = ", ".join(map(str, x[:8]))
            text = f"{len(x)}" + (f": {shown}" if x else "") + (f", ... {len(x) - 8} more" if len(x) > 8 else "")
        else:
            text = "n/a" if x is None else str(x)
        out.append([k.replace("_", " "), text])
    return out


def _over(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any]:
    """Mean of ``row[key]`` with the cases it is taken over and those left out (and why)."""
    used = [r for r in rows if r[key] is not None and not isinstance(r[key], bool)]
    left = [f"{r['case']} ({'failed at ' + str(r.get('failed_stage')) if r.get('status') == 'failed' else 'n/a'})"
            for r in rows if r not in used]
    return {"mean": _mean(r[key] for r in used), "over": [r["case"] for r in used], "left_out": left}


def build_report(cases: Sequence[Mapping[str, Any]], *, mapping_key: str = "f1", graph_key: str = "SA2-prop-exact",
                 columns: Sequence[tuple[str, str]] = DEFAULT_COLUMNS,
                 meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Normalise per-case scores into one JSON-ready report.

    Args:
        cases: per-case dicts (module docstring); missing keys are tolerated.
        mapping_key: the mapping-level headline (F1) key.
        graph_key: the graph-level headline (F1) key.
        columns: graph-level ``(label, key)`` columns for the tables.
        meta: run facts for the header (``mapper``, ``model``, ``settings``, ``date`` ...).
    Returns:
        ``{"meta", "mapping_key", "graph_key", "columns", "legend", "tasks", "cases": [{"scenario", "case",
        "status", "mapping_f1", "mapping_f1_raw", "graph_f1", "values": {label: value}, "mapping", "graph",
        ... the case dict's details}], "scenarios": {scenario: {"n_cases", "mapping_f1", "graph_f1",
        "values": {label: mean}, "over": {"mapping_f1"|"graph_f1": {"mean", "over", "left_out"}}}}}``;
        means skip ``None`` and say which cases they leave out.
    """
    columns = _with_aligned(columns, cases)
    rows = []
    for c in cases:
        mapping = c.get("mapping") or {}
        raw = c.get("mapping_raw") or {}
        graph = dict(c.get("graph") or {})
        if "CS2" not in graph and (cs2 := combined_cs2(graph)) is not None:
            graph["CS2"] = cs2
        checks = {k: v if isinstance(v, Mapping) else {"value": v, "status": "ok"}
                  for k, v in graph.items() if k in ("SV2", "vocabulary", "CS2-axioms", "CS2-owlrl", "CS2-hermit",
                                                    "SHACL")}
        verdict = c.get("verdict") or case_verdict({**c, "graph_f1": value_of(graph.get(graph_key))}, checks)
        rows.append({**{k: v for k, v in c.items() if k not in ("mapping", "mapping_raw", "graph")},
                     "scenario": str(c.get("scenario", "")), "case": str(c.get("case", "")),
                     "status": c.get("status", "ok"),
                     "mapping_f1": value_of(mapping.get(mapping_key)) if mapping else None,
                     "mapping_f1_raw": value_of(raw.get(mapping_key)) if raw else None,
                     "mapping_range": [mapping.get("f1_min"), mapping.get("f1_max")] if "f1_min" in mapping else None,
                     "graph_f1": value_of(graph.get(graph_key)),
                     "partial_gold": bool((c.get("gold") or {}).get("rows_dropped")
                                          or (c.get("gold") or {}).get("columns_unread")), "verdict": verdict,
                     # tasks the gold table meant to score but whose column was not read (map F1 marked †)
                     "partial_map_gold": sorted(mapping.get("partial_gold") or {}) if mapping else [],
                     "values": {label: _cell(graph.get(key)) for label, key in columns},
                     "partial": [label for label, key in columns if key in (c.get("partial_scores") or ())],
                     "task_prf": mapping.get("task_prf", {}), "task_prf_raw": raw.get("task_prf", {}),
                     "mapping": {k: value_of(v) for k, v in mapping.items() if value_of(v) is not None},
                     "graph": {k: _cell(v) for k, v in graph.items()}})
    scen: dict[str, Any] = {}
    for name in dict.fromkeys(r["scenario"] for r in rows):
        sel = [r for r in rows if r["scenario"] == name]
        over = {key: _over(sel, key) for key in ("mapping_f1", "mapping_f1_raw", "graph_f1")}
        scen[name] = {"n_cases": len(sel), "n_failed": sum(r["status"] == "failed" for r in sel),
                      "mapping_f1": over["mapping_f1"]["mean"], "graph_f1": over["graph_f1"]["mean"],
                      "mapping_f1_raw": over["mapping_f1_raw"]["mean"], "over": over,
                      "partial_map_gold": [r["case"] for r in sel if r["partial_map_gold"] and r["mapping_f1"] is not None],
                      "values": {label: _mean(r["values"][label] for r in sel
                                              if not isinstance(r["values"][label], bool))
                                 for label, _ in columns},
                      "partial": _partial_means(sel, columns),
                      "checks": _check_counts(sel, columns),
                      "tasks": {t: _mean((r["task_prf"].get("post-processed") or {}).get(t, {}).get("f1")
                                         for r in sel) for t in TASKS}}
    return {"meta": dict(meta or {}), "has_raw": any(r["mapping_f1_raw"] is not None for r in rows),
            "mapping_key": mapping_key, "graph_key": graph_key,
            "columns": [list(c) for c in columns], "legend": [list(x) for x in LEGEND], "tasks": list(TASKS),
            "cases": rows, "scenarios": scen}


def _check_counts(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """The yes/no columns of a scenario (a check such as SV2, CS2 or SHACL), which have no mean: label ->
    ``{"yes": cases that passed, "of": cases with a yes/no, "not_run": cases where the check did not run}``."""
    out: dict[str, dict[str, int]] = {}
    for label, _ in columns:
        cells = [r["values"].get(label) for r in rows]
        answered = [c for c in cells if isinstance(c, bool)]
        if answered:
            out[label] = {"yes": sum(answered), "of": len(answered), "not_run": sum(c == NOT_RUN for c in cells)}
    return out


def mean_cell(scenario: Mapping[str, Any], label: str) -> str:
    """A scenario mean row's cell: the mean with its partial mark, or for a yes/no check ``k/n yes``
    (``, m not run`` when the check did not run on m cases)."""
    check = (scenario.get("checks") or {}).get(label)
    if check:
        return f"{check['yes']}/{check['of']} yes" + (f", {check['not_run']} not run" if check["not_run"] else "")
    p = (scenario.get("partial") or {}).get(label)  # a mean over partial figures is partial: n of m cases
    return fmt(scenario["values"].get(label)) + (f" partial {len(p['cases'])}/{p['over']}" if p else "")


def _partial_means(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """The columns whose scenario mean averages a partial score (a PQ over part of the CQs): label ->
    ``{"cases": [the partial cases], "over": how many cases the mean is taken over}``. A mean over
    partial figures is partial, and is marked as they are."""
    out: dict[str, dict[str, Any]] = {}
    for label, _ in columns:
        over = [r for r in rows if not isinstance(r["values"].get(label), bool) and value_of(r["values"].get(label)) is not None]
        cases = [r["case"] for r in over if label in (r.get("partial") or ())]
        if cases:
            out[label] = {"cases": cases, "over": len(over)}
    return out


def _with_aligned(columns: Sequence[tuple[str, str]], cases: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``columns`` with ``(<label> aligned, ALIGNED_NAMES[key])`` after each column whose aligned score some
    case has (the names :mod:`pipeline.scoring.graph` writes)."""
    keys = {k for c in cases for k in (c.get("graph") or {})}
    out = []
    for label, key in columns:
        out.append((label, key))
        aligned = ALIGNED_NAMES.get(key)
        if aligned in keys and (f"{label} aligned", aligned) not in columns:
            out.append((f"{label} aligned", aligned))
    return out


def table_rows(report: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The side-by-side table of the report as text cells: ``(header, body)``, one body row per case and
    one ``mean`` row per scenario with more than one case (the console, Markdown and HTML tables)."""
    labels = [c[0] for c in report["columns"]]
    header = ["scenario", "case", "map F1", "graph F1"] + labels
    body = []
    for r in report["cases"]:
        partial = "†" if r.get("partial_gold") and r["graph_f1"] is not None else ""
        map_partial = "†" if r.get("partial_map_gold") and r["mapping_f1"] is not None else ""
        body.append([r["scenario"], r["case"], fmt(r["mapping_f1"]) + map_partial, fmt(r["graph_f1"]) + partial]
                    + [fmt(r["values"].get(label)) + (" partial" if label in (r.get("partial") or ()) else "")
                       for label in labels])
    for name, s in report["scenarios"].items():
        if s["n_cases"] > 1:
            body.append([name, "mean", fmt(s["mapping_f1"]) + ("†" if s.get("partial_map_gold") else ""),
                         fmt(s["graph_f1"])]
                        + [mean_cell(s, label) for label in labels])
    return header, body


def console_table(report: Mapping[str, Any]) -> str:
    """The side-by-side mapping-level vs graph-level table as aligned plain text.

    Args:
        report: the output of :func:`build_report`.
    Returns:
        Lines joined by ``\\n``: a header, a rule, one row per case and one ``mean`` row
        per scenario with more than one case.
    """
    header, body = table_rows(report)
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    line = lambda row: "  ".join(cell.rjust(w) if i > 1 else cell.ljust(w)  # noqa: E731
                                 for i, (cell, w) in enumerate(zip(row, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in body])
