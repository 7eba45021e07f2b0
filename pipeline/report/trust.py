"""Whether to trust a case's KG, and why: one verdict per case from its run, checks and scores.

The verdict has a ``level`` (the colour a reader sees first) and a ``headline``; ``reasons``
say why, one line each:

=================  ===============================================================  =======
level              when                                                             colour
=================  ===============================================================  =======
``failed``         the run stopped before a KG was validated                        red
``invalid``        a KG check fails (SV2, CS2, SHACL violation)                     red
``not validated``  no check fails, but one that applies did not run or finish       amber
``lossy``          the KG is valid, but it lacks data its input holds: values       amber
                   dropped (guards, join keys without parent, functions giving no
                   value), rows of the case's table left out (the user's, or one a mapper
                   wrote that the compiler cannot read), records that differ merged
                   into one subject, or a large share
                   of the source columns or records not mapped
                   (:mod:`pipeline.validation.loss`)
``valid``          every check ran and passes                                       green
=================  ===============================================================  =======

The reasons add what validity does not say: accuracy against the gold KG (marked when the
gold is partial: gold-table rows that did not compile), competency questions answered exactly
and those not scorable, SHACL warnings (open-world), imports the reasoners ran without, and,
without any gold, that accuracy is not measured. Only run facts are read (plain dicts from
``run.json`` and ``graph_validation.json``); nothing is recomputed.
"""
from __future__ import annotations

from typing import Any, Mapping

from pipeline.scoring.graph import ALIGNED_NAMES
from pipeline.scoring.graph.cq import cq_sentence
from pipeline.validation.loss import CoverageLoss, coverage_loss
from pipeline.validation.verdict import NOT_RUN, check_reason, check_word, kg_verdict

__all__ = ["LEVELS", "combined_cs2", "check_rows", "case_verdict"]

#: Verdict levels, worst first, with the CSS class the HTML page colours them by.
LEVELS = {"failed": "bad", "invalid": "bad", "not validated": "warn", "lossy": "warn", "valid": "good"}


def combined_cs2(validation: Mapping[str, Any]) -> dict[str, Any] | None:
    """CS2 over both reasoners and CS2-axioms: ``False`` when one finds a clash, ``not run`` (status of the one
    that did not finish) when either did not run, ``True`` when every one that applies passes;
    ``None`` without any CS2 result."""
    parts = [validation[k] for k in ("CS2-axioms", "CS2-owlrl", "CS2-hermit") if isinstance(validation.get(k), Mapping)]
    if not parts:
        return None
    if any(p.get("value") is False for p in parts):
        return {"value": False, "status": "ok"}
    stopped = next((p for p in parts if p.get("value") is None and p.get("status") in NOT_RUN), None)
    if stopped is not None:
        return {"value": None, "status": stopped.get("status"), "details": {"reason": check_reason(stopped)}}
    ran = [p for p in parts if p.get("status") != "not_applicable"]
    if ran and all(p.get("value") is True for p in ran):
        return {"value": True, "status": "ok"}
    return {"value": None, "status": "not_applicable"}


def _count(r: Mapping[str, Any], severity: str) -> int:
    return sum(f.get("severity") == severity for f in r.get("findings") or [])


def check_rows(validation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per KG check for the report: ``{"name", "word", "errors", "warnings", "coverage",
    "module", "note"}``; ``note`` is the reason of a check that did not run or does not apply, or its
    first error."""
    rows = []
    for name, r in validation.items():
        if not isinstance(r, Mapping):
            continue
        d = r.get("details") or {}
        errors, warnings = _count(r, "error") + _count(r, "fatal"), _count(r, "warning")
        if name.startswith("SV2") and "N_err" in d:
            errors, warnings = d.get("N_err", 0) + d.get("N_fatal", 0), d.get("N_warn", 0)
        if name == "SHACL" and "by_severity" in d:
            errors, warnings = d["by_severity"].get("Violation", 0), d["by_severity"].get("Warning", 0)
        word = check_word(r)
        cov = d.get("coverage") or {}
        coverage = cov.get("mode") or ""
        if cov.get("mode") == "sample" and cov.get("triples"):
            coverage = f"sample: {cov['triples'][0]:,} of {cov['triples'][1]:,} triples"
        module = d.get("ontology_module") or {}
        scope = (f"{module['module_triples']:,} of {module['ontology_triples']:,} ontology triples"
                 if module.get("ontology_triples") else "")
        first = next((f for f in r.get("findings") or [] if f.get("severity") in ("fatal", "error")), None)
        note = check_reason(r) if word == "not run" else \
            (" ".join(str(first.get("message")).split()) if word == "fails" and first else "")
        if word == "n/a" and (d.get("reason") or r.get("reason")):  # why it does not apply (HermiT without Java)
            note = " ".join(str(d.get("reason") or r.get("reason")).split())
        if d.get("caveat") or r.get("caveat"):  # part of the data the check did not look at
            note = (note + "; " if note else "") + str(d.get("caveat") or r.get("caveat"))
        if d.get("unresolved_imports"):
            note = (note + "; " if note else "") + f"reasoned without {len(d['unresolved_imports'])} imported " \
                f"ontolog{'y' if len(d['unresolved_imports']) == 1 else 'ies'} not given: " + \
                ", ".join(d["unresolved_imports"])
        rows.append({"name": name, "word": word, "errors": errors, "warnings": warnings, "coverage": coverage,
                     "module": scope, "note": note})
    return rows


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def case_verdict(entry: Mapping[str, Any], validation: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict of one case (module docstring).

    Args:
        entry: the case dict of :func:`pipeline.report.build.case_entry` (``status``, ``failed_stage``,
            ``error``, ``counts``, ``gold``, ``graph``, ``cqs``, ``mapper``; ``loss``: the
            :class:`~pipeline.validation.loss.CoverageLoss` of the run, else one from ``counts`` alone).
        validation: its ``graph_validation`` results (full results, or the summaries of ``run.json``).
    Returns:
        ``{"level", "css", "headline", "reasons": [str], "kg": <kg_verdict().to_dict()>}``.
    """
    v = kg_verdict(validation)
    counts = entry.get("counts") or {}
    gold = entry.get("gold") or {}
    graph = entry.get("graph") or {}
    reasons: list[str] = []
    loss = CoverageLoss.from_dict(entry["loss"]) if isinstance(entry.get("loss"), Mapping) else coverage_loss(counts)
    if entry.get("status") == "failed":
        level = "failed"
        headline = f"The run failed at {entry.get('failed_stage')}: no validated KG to trust."
        if entry.get("error"):
            reasons.append(f"error: {' '.join(str(entry['error']).split())}")
    elif v.state == "invalid":
        level = "invalid"
        headline = f"Do not use this KG as it is: it fails {', '.join(v.failing)}."
    elif v.state in ("not validated", "not checked"):
        level = "not validated"
        headline = "The KG is not validated: " + ("no check ran (--no-evaluate)." if v.state == "not checked" else
                                                   f"{', '.join(v.not_run)} did not run." if v.not_run else
                                                   f"{v.unchecked}.")
    else:
        # rows the compiler left out: the table asked for data the KG lacks, whoever wrote the table
        left = counts.get("rows_dropped") or 0
        level = "lossy" if loss.lossy or left else "valid"
        what = "; ".join(w for w in (loss.summary() if loss.lossy else "",
                                     f"{left} table row(s) left out" if left else "") if w)
        whole = [n for n in v.passed if n not in v.sampled]
        passes = (", ".join(v.passed) + " pass") if not v.sampled else \
            ((", ".join(whole) + " pass on every triple; " if whole else "") + v.sample_phrase() + " pass")
        if counts.get("rows_review"):  # rows the mapper was unsure of: valid, but without them
            passes += f"; {counts['rows_review']} table row(s) held for review are not in it"
        headline = f"The KG is {v.label} (" + passes + ")" + (
            f", but it lacks data its input holds: {what}." if level == "lossy" else ".")
    if level != "failed":
        notes: dict[str, list[str]] = {}  # one note (imports reasoned without) given once for every check it concerns
        for row in check_rows(validation):
            if row["word"] == "fails":
                reasons.append(f"{row['name']} fails: " + (f"{row['note']} " if row["note"] else "")
                               + f"({row['errors']} error(s); all in graph_validation.json)")
            elif row["word"] == "not run":
                notes.setdefault(f"did not run: {row['note']}", []).append(row["name"])
            elif row["note"]:
                notes.setdefault(row["note"], []).append(row["name"])
        reasons += [f"{', '.join(names)}: {note}" for note, names in notes.items()]
        shacl = validation.get("SHACL") if isinstance(validation.get("SHACL"), Mapping) else {}
        warn = ((shacl.get("details") or {}).get("by_severity") or {}).get("Warning")
        if warn:
            shapes = sorted(((n.get("Warning", 0), k) for k, n in ((shacl.get("details") or {}).get("by_shape")
                                                                     or {}).items() if n.get("Warning")), reverse=True)
            most = "; ".join(f"{n} from {k}" for n, k in shapes[:2])
            reasons.append(f"SHACL: {warn} warning(s) (types or values the ontology expects and the KG does not "
                           f"state; not errors under OWL's open world)" + (f", most: {most}" if most else ""))
        reasons += loss.reasons()
        if counts.get("rows_dropped"):
            reasons.append(f"{counts['rows_dropped']} of {counts.get('rows')} table row(s) left out by the audit "
                           "(see the audit)")
    f1 = entry.get("graph_f1")
    if gold.get("kind"):
        partial = gold.get("rows_dropped")
        accuracy = f"Against the {gold['kind']}: graph F1 (SA2 property) {_fmt(f1)}"
        aligned = graph.get(ALIGNED_NAMES["SA2-prop-exact"])
        aligned = aligned.get("value") if isinstance(aligned, Mapping) else aligned
        if isinstance(aligned, (int, float)) and not isinstance(aligned, bool):
            accuracy += f" ({_fmt(aligned)} after aligning IRI schemes)"
        cm2 = graph.get("CM2")
        cm2 = cm2.get("value") if isinstance(cm2, Mapping) else cm2
        if isinstance(cm2, (int, float)) and not isinstance(cm2, bool):  # literal values: whatever IRIs were minted
            accuracy += f"; {cm2:.0%} of the gold's literal values are in the KG (CM2)"
        if partial:
            accuracy += (f" - a partial gold: {partial} gold-table row(s) did not compile, so triples they would "
                         "give count as extra")
        if gold.get("columns_unread"):
            accuracy += (f" - a partial gold: a gold-table column was not read or is absent "
                         f"({', '.join(gold['columns_unread'])}), so what it says is missing from the gold KG")
        reasons.append(accuracy + ".")
        cq = entry.get("cq_summary") or {}
        if cq.get("total") or cq.get("scored") or cq.get("not_scorable"):
            reasons.append(f"Competency questions: {cq_sentence(cq)}.")
    elif level != "failed":
        reasons.append("No gold KG or gold table: accuracy is not measured. Judge the KG by the checks above, "
                       "the KG summary and the mapper's rows to check.")
        cq = entry.get("cq_summary") or {}
        if cq.get("total"):
            reasons.append(f"Competency questions: {cq_sentence(cq)} (their answers are listed below).")
    if graph.get("self_comparison"):
        reasons.append(str(graph["self_comparison"]))
    return {"level": level, "css": LEVELS[level], "headline": headline, "reasons": reasons, "kg": v.to_dict()}
