"""``kgc validate`` (SV2, CS2, SHACL on a KG file) and ``kgc score`` (a table and/or a KG against the gold)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from pipeline.commands import case_files, output_file, say_ontology_notes
from pipeline.cli import option_as_typed
from pipeline.errors import InputError
from pipeline.compile.audit import AuditResult, audit_table
from pipeline.manifest import Case, load_manifest, refuse_swapped_manifest
from pipeline.ontology import Ontology, load_ontology
from pipeline.rdffile import load_graph, rdf_format
from pipeline.run.evaluate import (CHECK_TIMEOUT_S, gold_kg, graph_scores, graph_validation, mapping_scores,
                                   validation_passed)
from pipeline.sources.load import require_readable, load_sources
from pipeline.table import MappingTable, read_table
from pipeline.scoring.graph.cq import NOT_RUN_KINDS, pq_note
from pipeline.scoring.mapping.gold_columns import absent_gold_columns, ignored_gold_columns
from pipeline.validation.shacl import check_shapes
from pipeline.validation.verdict import check_reason, check_word, kg_verdict

__all__ = ["PARSERS", "add_validate_parser", "add_score_parser"]

#: Checks whose findings name a node of the KG and are located in its file (SHACL's focus nodes, the
#: triples HermiT's inconsistency was traced to).
_NODE_RESULTS = ("SHACL", "CS2-hermit", "CS2-owlrl")


def _case_context(manifest: str, work: Path, with_sources: bool = True):
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    say_ontology_notes(ontology)
    for f in case.shapes:  # as `run` does: unparsable shapes, or a term SHACL does not define, are bad input
        for finding in check_shapes(f, ontology, case.shapes):
            print(finding, file=sys.stderr)
    if not with_sources:  # validating a KG reads no source
        return case, ontology, []
    sources = load_sources(case.sources, work / "inputs")  # work: a temporary folder
    require_readable(sources)  # as `run` does: an unreadable source is bad input, not a score of nothing
    return case, ontology, sources


def _cmd_validate(args: argparse.Namespace) -> int:
    refuse_swapped_manifest(args.manifest, [args.kg], "kgc validate MANIFEST KG")
    if args.out:
        output_file(args.out, option_as_typed(args, "-o", "--output", "--out"), [args.kg, args.manifest, *(args.shapes or ())])
    if args.timeout <= 0:
        raise InputError(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    case, ontology, _ = _case_context(args.manifest, Path("."), with_sources=False)
    if args.out:
        output_file(args.out, option_as_typed(args, "-o", "--output", "--out"), case_files(case))
    # pySHACL's -s: shapes beside the manifest's (a file the manifest lists too, or given twice, counts once)
    given = {Path(f).resolve() for f in case.shapes}
    typed = {}  # each file once, named as typed
    for f in args.shapes or ():
        if Path(f).resolve() not in given:
            typed.setdefault(Path(f).resolve(), f)
    for f in typed.values():  # checked before any work
        for finding in check_shapes(f, ontology, [*case.shapes, *typed.values()]):
            print(finding, file=sys.stderr)
    if typed:
        case = dataclasses.replace(case, shapes=(*case.shapes, *typed))
    if Path(args.kg).is_dir():
        raise InputError("is a folder; expected a KG file", path=args.kg)
    if not Path(args.kg).is_file():
        raise InputError("KG file not found", path=Path(args.kg).absolute())
    # SV2 reads the file first; an unparsable KG leaves the reasoners and SHACL not run (never a pass)

    if rdf_format(args.kg) is None:  # before the checks: an extension no parser is chosen by
        raise InputError(f"unknown RDF syntax for extension {Path(args.kg).suffix or '(none)'!r}; expected .nt, "
                         ".ttl, .nq, .trig, .rdf/.owl/.xml, .jsonld/.json or .n3", path=args.kg)
    if args.out:
        Path(args.out).resolve().parent.mkdir(parents=True, exist_ok=True)
    # the N-Triples copy of another syntax is the checker's: SV2 locates its findings in the user's file
    with tempfile.TemporaryDirectory(prefix="kgc-validate-") as tmp:
        result = graph_validation(Path(args.kg), None, ontology, case, full_limit=sys.maxsize if args.full else None,
                                  work=Path(tmp), timeout_s=args.timeout)
    if (result["SV2"].get("details") or {}).get("note"):
        print(f"note: {result['SV2']['details']['note']}")
    if result["SV2"].get("value") is True and (result["SV2"].get("details") or {}).get("n_triples") == 0:
        # valid, but rarely what was meant (a file that does not parse has no triple either: SV2 says so)
        print(f"warning: {args.kg} holds no triple: every check passes vacuously", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(_check_line(name, r))
        for line in _finding_lines(name, r, args.kg):
            print(f"  {line}")
    print(kg_verdict(result).sentence())
    if args.out:
        print(f"diagnostics written to {args.out}")
    return 0 if validation_passed(result) else 1


def _check_line(name: str, r: dict) -> str:
    """``SV2: fails (2 errors, 1 warning)``, ``SHACL: not run (timeout: ...)``: the outcome as a word, never
    "ok" beside a failing value; the coverage when the check saw a sample."""
    word = check_word(r)
    if word == "not run":
        status = "" if r.get("status") == "not_run" else f" ({r.get('status')})"
        return f"{name}: not run{status}: {check_reason(r)}"
    if word == "n/a":
        return f"{name}: n/a ({check_reason(r)})"
    counts = {s: sum(f.get("severity") == s for f in r.get("findings") or []) for s in ("fatal", "error", "warning")}
    details = r.get("details") or {}
    if name.startswith("SV2") and "N_err" in details:  # exact counts (the finding list may be capped)
        counts = {"fatal": details.get("N_fatal", 0), "error": details.get("N_err", 0), "warning": details.get("N_warn", 0)}
    if name == "SHACL" and "by_severity" in details:
        counts = {"fatal": 0, "error": details["by_severity"].get("Violation", 0),
                  "warning": details["by_severity"].get("Warning", 0)}
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    idle = details.get("shapes_without_focus") or []
    if name == "SHACL" and idle:  # a shape whose targets the KG lacks "passed" without checking anything
        parts.append(f"{len(idle)} shape{'s' if len(idle) != 1 else ''} matched no node and checked nothing: "
                     + ", ".join(idle[:3]) + (" ..." if len(idle) > 3 else ""))
    if details.get("caveat"):  # part of the data was not looked at (HermiT's ignored datatypes): said
        parts.append(details["caveat"])
    cov = details.get("coverage") or {}
    if cov.get("mode") not in (None, "full"):
        parts.append(f"{cov['mode']}" + (f": {cov['triples'][0]:,} of {cov['triples'][1]:,} triples"
                                         if "triples" in cov else ""))
    if word == "passes" and details.get("caveat"):  # "passes, xsd:date values not reasoned over (...)"
        parts.remove(details["caveat"])
        return f"{name}: passes, {details['caveat']}" + (f" ({', '.join(parts)})" if parts else "")
    return f"{name}: {word}" + (f" ({', '.join(parts)})" if parts else "")


def _finding_lines(name: str, r: dict, kg: str) -> list[str]:
    """Every error of a check, one per line, as ``riot --validate`` prints them (``file:line:col: error:
    message``; SV2's warnings too); a check's other warnings grouped by message with their count."""
    details = r.get("details") or {}
    out, grouped = [], {}
    said = check_reason(r) if check_word(r) == "not run" else None  # already on the check's own line
    for f in r.get("findings") or []:
        sev = f.get("severity")
        if said is not None and " ".join(str(f.get("message")).split()) == said:
            continue
        if sev in ("fatal", "error") or (sev == "warning" and name.startswith("SV2")):
            if f.get("code") == "unparsable":  # the parser's error on the file as given (not the copy)
                where = f"{kg}:{f['line']}: " if f.get("line") else f"{kg}: "
            elif f.get("line") and name in _NODE_RESULTS:  # located in the KG file; the focus node leads the message
                where = f"{kg}:{f['line']}:{f.get('column') or 1}: "
            elif f.get("line"):
                where = f"{kg}:{f['line']}:{f.get('column') or 1}: "
            else:
                where = f"{f['location']}: " if f.get("location") else ""
            message = " ".join(str(f.get("message")).split())
            if name in _NODE_RESULTS and f.get("line") and f.get("location"):
                loc = str(f["location"])  # an IRI, or a literal or blank focus node in its N-Triples form
                message = f"{loc if loc.startswith((chr(34), '_:')) else '<' + loc + '>'} {message}"
            term = f": {f['term']}" if f.get("term") and sev != "fatal" and f["term"] not in message \
                else ""  # the offending term or value (a fatal line's term is its raw text)
            out.append(f"{where}{sev}: {message}{term}")
        elif sev == "warning":
            grouped.setdefault(f.get("message"), []).append(f.get("location") or "")
    for message, where in grouped.items():
        example = f"; e.g. {where[0]}" if where and where[0] and len(where) > 1 else (f" ({where[0]})" if where[0] else "")
        out.append(f"warning{f' x{len(where)}' if len(where) > 1 else ''}: {message}{example}")
    n_kept, n_all = len(r.get("findings") or []), r.get("n_findings", 0)
    if n_all > n_kept:
        out.append(f"... {n_all - n_kept} more finding(s) not kept in the results")
    return out


def _gold_audit(gold: MappingTable, ontology: Ontology, case: Case, sources: list) -> AuditResult:
    """The table audit of a gold table, its findings labelled as the gold's (``stage="gold"``,
    "gold table: ..."), as a run reports them: a gold row with an error is scored as written, but
    the score is against a partial gold."""
    audit = audit_table(gold, ontology, case, sources)
    audit.findings = [*ignored_gold_columns(gold)[1],
                      *(dataclasses.replace(f, stage="gold", message="gold table: " + f.message)
                        for f in audit.findings if f.severity in ("error", "warning"))]
    return audit


def _cmd_score(args: argparse.Namespace) -> int:
    refuse_swapped_manifest(args.manifest, [args.kg, args.table], "kgc score MANIFEST [--table TABLE] [--kg KG]")
    with tempfile.TemporaryDirectory(prefix="kgc-score-") as tmp:  # the sources' engine copies
        return _score(args, Path(tmp))


def _score(args: argparse.Namespace, copies: Path) -> int:
    out = Path(args.out)
    if not args.table and not args.kg:
        raise InputError("nothing to score: give --table (a mapping table) and/or --kg (a KG)")
    for given, name in ((args.table, "--table"), (args.kg, "--kg")):  # before the gold is looked at
        if given and not Path(given).is_file():
            raise InputError(f"{name}: file not found", path=given)
    case = load_manifest(args.manifest)
    if case.gold_table is None and case.gold_graph is None:  # before anything is read or written
        raise InputError("the manifest names no gold table or gold graph to score against", path=case.manifest,
                         key="gold")
    if out.is_file():
        raise InputError(f"{option_as_typed(args, '-o', '--out')} is a file; expected a folder for the scores", path=out)
    _, ontology, sources = _case_context(args.manifest, copies)
    # every input is read before the output folder is made: bad input writes nothing
    table = read_table(args.table) if args.table else None
    # the gold table is scored against (--table) or compiled into the gold KG (--kg without a gold graph)
    gold_table = read_table(case.gold_table) if case.gold_table is not None and (args.table or case.gold_graph is None) \
        else None
    kg = load_graph(args.kg, "--kg") if args.kg else None
    if args.kg and case.gold_graph is not None:
        load_graph(case.gold_graph, "gold graph")
    out.mkdir(parents=True, exist_ok=True)
    said: set[str] = set()  # the gold table's findings, once when both levels are scored
    if table is not None:
        if gold_table is None:
            print("mapping level: n/a (no gold table)")
        else:
            audit = _gold_audit(gold_table, ontology, case, sources)
            for f in audit.findings:
                said.add(str(f))
                print(f, file=sys.stderr)
            own = audit_table(table, ontology, case, sources)  # the scored table, as kgc compile audits it
            for f in own.findings:  # its errors: the rows compile would leave out (warnings: in the JSON)
                if f.severity == "error":
                    print(f, file=sys.stderr)
            summary, report = mapping_scores(table, gold_table, ontology, case, sources, out)
            for f in report.gold_findings:  # an absent column is known once the table is: said now
                if f.code == "gold-column-absent" and str(f) not in said:
                    said.add(str(f))
                    audit.findings.append(f)
                    print(f, file=sys.stderr)
            lacks = [f"{len(audit.dropped)} of {len(gold_table)} gold-table row(s) have errors"] if audit.dropped else []
            absent = absent_gold_columns(gold_table)
            unread = [t for t in summary.get("partial_gold") or {} if t not in absent]  # a misnamed header
            if unread:
                lacks.append(f"a gold-table column was not read, so {', '.join(unread)} "
                             f"{'is' if len(unread) == 1 else 'are'} not scored")
            missing = [t for t in summary.get("partial_gold") or {} if t in absent]  # values judged by nothing
            if missing:
                lacks.append(f"the gold table has no {', '.join(absent[t] for t in missing)} "
                             f"column{'s' if len(missing) > 1 else ''}, so {', '.join(missing)} "
                             f"{'is' if len(missing) == 1 else 'are'} not scored")
            partial = f" against a partial gold ({'; '.join(lacks)}, see above)" if lacks else ""
            scores_file = out / "mapping.mapping-scores.json"
            data = json.loads(scores_file.read_text(encoding="utf-8"))
            if audit.findings:  # the gold's own defects go with the scores, as a run's audit.md lists them
                data["gold_audit"] = {"rows_dropped": len(audit.dropped), "dropped_lines": [r.line for r in audit.dropped],
                                      "findings": [f.to_dict() for f in audit.findings]}
            # the scored table's own errors: cells are scored by similarity (a column name in another
            # case counts as right), so a table that would not compile is said next to its score
            data["table_audit"] = {"rows": len(table), "rows_dropped": len(own.dropped),
                                   "dropped_lines": [r.line for r in own.dropped],
                                   "findings": [f.to_dict() for f in own.findings if f.severity in ("error", "warning")]}
            scores_file.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
            f1 = summary["f1"]
            broken = (f"; {len(own.dropped)} of {len(table)} row(s) of the scored table have errors and would not "
                      "compile, see above") if own.dropped else ""
            print(f"mapping level: mean task F1 = {'n/a' if f1 is None else f'{f1:.3f}'}{partial}{broken} "
                  f"(details: {out / 'mapping.mapping-scores.json'})")
    if kg is not None:
        gold = gold_kg(case, ontology, sources, out)
        for f in gold.findings:
            if str(f) not in said:
                print(f, file=sys.stderr)
        if gold.rows_dropped:
            print(f"graph level: against a partial gold ({gold.rows_dropped} gold-table row(s) did not compile, "
                  "see above)")
        scores = graph_scores(kg, gold.graph, ontology, case, None,
                              gold_templates=gold.templates)
        (out / "graph_scores.json").write_text(json.dumps(scores, indent=2, default=str) + "\n", encoding="utf-8")
        for name, r in scores.items():
            value = r.get("value")
            if value is None:  # say why, as the report does, instead of Python's "None"
                why = next((f.get("message") for f in r.get("findings") or []), None) or \
                    (r.get("details") or {}).get("reason") or r.get("status") or "not computed"
                print(f"{name}: n/a ({why})")
            else:
                note = pq_note(r.get("details") or {})  # CQs that did not run or have no gold answer: said
                note = f" ({note})" if note else ""
                print(f"{name}: {value:.3f}{note}" if isinstance(value, float) else f"{name}: {value}{note}")
        for f in scores.get("PQ3", {}).get("findings") or []:
            if f.get("code") in NOT_RUN_KINDS:  # a CQ not run: named with its file and line
                where = ":".join(str(x) for x in (f["location"], f.get("line"), f.get("column")) if x)
                print(f"error: {where}: {f['message']}", file=sys.stderr)
    return 0


def add_validate_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc validate`` on the CLI's subparsers."""
    v = sub.add_parser("validate", parents=[common], help="validate a KG: strict syntax (SV2), OWL 2 RL consistency (CS2), SHACL",
                       description="Check a KG file strictly (IRIs, literal lexical forms, language tags, with "
                                   "line and column), run the owlrl OWL 2 RL closure over KG + ontology, and "
                                   "validate SHACL shapes derived from the ontology plus shapes/<scenario>.ttl and "
                                   "the manifest's shapes (HermiT too where Java is available). Above 20,000 "
                                   "triples CS2 and SHACL run on a stratified subject sample and report their "
                                   "coverage (--full: the whole KG), CS2-axioms checks functional properties, "
                                   "disjoint classes, datatype ranges and maximum cardinalities on every triple, "
                                   "and a verdict whose checks pass says 'valid on a sample' (exit 0). The reasoners and SHACL see the part of the "
                                   "ontology the KG's terms reach, each for at most --timeout seconds. Every error is "
                                   "printed with its file, line and column, as riot --validate does, then the KG's "
                                   "verdict. Exit 1 when any check fails or does not run. "
                                   "Example: kgc validate case.yaml kg.nt --out validation.json")
    v.add_argument("manifest", help="the case manifest (.yaml): ontology, SKOS and shapes")
    v.add_argument("kg", help="the KG to check: N-Triples, or Turtle, N-Quads, TriG, RDF/XML, JSON-LD, N3 by "
                              "extension (checked on a temporary N-Triples copy; positions are given in this file)")
    v.add_argument("-o", "--output", "--out", dest="out", default=None, metavar="FILE",
                   help="JSON file for the results with every finding and its position (default: none written)")
    v.add_argument("-s", "--shapes", action="append", metavar="FILE",
                   help="SHACL shapes to validate against besides the case's (as pySHACL's -s; repeatable)")
    v.add_argument("--full", action="store_true",
                   help="CS2 and SHACL on the whole KG whatever its size (owlrl: ~1.6 ms a triple)")
    v.add_argument("--timeout", type=float, default=CHECK_TIMEOUT_S, metavar="SECONDS",
                   help="wall-clock limit of each of owlrl, HermiT and SHACL; one that does not finish is "
                        "reported not run, with the reason, and the exit code is 1 (default: %(default)g)")
    v.set_defaults(func=_cmd_validate)


def add_score_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc score`` on the CLI's subparsers."""
    s = sub.add_parser("score", parents=[common], help="score a table and/or a KG against the case's gold",
                       description="Mapping level: BLINKG task precision/recall/F1 of --table against the gold "
                                   "table. Graph level: SA2-SA4, conciseness/completeness and competency questions "
                                   "of --kg against the gold graph (or the gold table's KG). "
                                   "Example: kgc score case.yaml --table table.md --kg kg.nt --out scores/")
    s.add_argument("manifest", help="the case manifest (.yaml) naming the gold table and/or gold graph")
    s.add_argument("--table", help="mapping table to score")
    s.add_argument("--kg", help="KG to score (.nt .ttl .nq .trig .rdf .jsonld, syntax by extension)")
    s.add_argument("-o", "--out", default="scores",
                   help="folder for mapping.mapping-scores.json, graph_scores.json and the gold KG "
                        "(default: %(default)s)")
    s.set_defaults(func=_cmd_score)


#: The subcommands this module registers (see :data:`pipeline.cli.COMMANDS`).
PARSERS = {"validate": add_validate_parser, "score": add_score_parser}
