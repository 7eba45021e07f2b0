"""``kgc validate`` (SV2, CS2, SHACL on a KG file) and ``kgc score`` (a table and/or a KG against the gold)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from pipeline.commands import output_file
from pipeline.errors import InputError
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.rdffile import load_graph, rdf_format
from pipeline.run.evaluate import gold_kg, graph_scores, graph_validation, mapping_scores, validation_passed
from pipeline.sources.load import load_source, require_readable
from pipeline.table import read_table

__all__ = ["PARSERS", "add_validate_parser", "add_score_parser"]

def _case_context(manifest: str, work: Path, with_sources: bool = True):
    case = load_manifest(manifest)
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    for f in case.shapes:  # as `run` does: unparsable shapes are bad input
        load_graph(f, "SHACL shapes")
    if not with_sources:  # validating a KG reads no source
        return case, ontology, []
    sources = [load_source(s, work / "inputs") for s in case.sources]  # work: a temporary folder
    require_readable(sources)  # as `run` does: an unreadable source is bad input, not a score of nothing
    return case, ontology, sources


def _cmd_validate(args: argparse.Namespace) -> int:
    if args.out:
        output_file(args.out, "--out")
    case, ontology, _ = _case_context(args.manifest, Path("."), with_sources=False)
    for f in args.shapes or ():  # pySHACL's -s: shapes beside the manifest's, checked before any work
        load_graph(f, "SHACL shapes")
    if args.shapes:
        case = dataclasses.replace(case, shapes=(*case.shapes, *(Path(f).resolve() for f in args.shapes)))
    if not Path(args.kg).is_file():
        raise InputError("KG file not found", path=Path(args.kg).absolute())
    # SV2 reads the file first; an unparsable KG leaves the reasoners and SHACL not run (never a pass)

    if rdf_format(args.kg) is None:  # before the checks: an extension no parser is chosen by
        raise InputError(f"unknown RDF syntax for extension {Path(args.kg).suffix or '(none)'!r}; expected .nt, "
                         ".ttl, .nq, .trig, .rdf/.owl/.xml, .jsonld/.json or .n3", path=args.kg)
    if args.out:  # the N-Triples copy SV2's line numbers refer to goes beside the results
        Path(args.out).resolve().parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kgc-validate-") as tmp:  # without -o: nothing in the user's folder
        result = graph_validation(Path(args.kg), None, ontology, case, full_limit=sys.maxsize if args.full else None,
                                  work=Path(args.out).resolve().parent if args.out else Path(tmp))
    if (result["SV2"].get("details") or {}).get("note"):
        print(f"note: {result['SV2']['details']['note']}")
    if (result["SV2"].get("details") or {}).get("n_triples") == 0:  # valid, but rarely what was meant
        print(f"warning: {args.kg} holds no triple: every check passes vacuously", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    for name, r in result.items():
        cov = (r.get("details") or {}).get("coverage") or {}
        scope = "" if cov.get("mode") in (None, "full") else \
            f", {cov['mode']}" + (f": {cov['triples'][0]:,} of {cov['triples'][1]:,} triples" if "triples" in cov else "")
        print(f"{name}: {r.get('value')} ({r.get('status')}{scope}, {len(r.get('findings', []))} finding(s))")
        first = next((f for f in r.get("findings") or [] if f.get("severity") in ("fatal", "error")), None)
        if r.get("value") is False and first:  # say what is wrong, not only that something is
            checked = (r.get("details") or {}).get("checked_copy") or args.kg  # lines of the copy a syntax maps to
            where = f"{checked}:{first['line']}:{first.get('column') or 1}: " if first.get("line") else ""
            if first.get("code") == "unparsable":  # the parser's error on the file as given (not the copy)
                where = f"{args.kg}:{first['line']}: " if first.get("line") else f"{args.kg}: "
            print(f"  first: {where}{first.get('message')}")
        elif r.get("status") == "not_run":
            print(f"  not run: {(r.get('details') or {}).get('reason', 'no reason recorded')}")
    if args.out:
        print(f"diagnostics written to {args.out}")
    return 0 if validation_passed(result) else 1


def _cmd_score(args: argparse.Namespace) -> int:
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
        raise InputError("--out is a file; expected a folder for the scores", path=out)
    _, ontology, sources = _case_context(args.manifest, copies)
    out.mkdir(parents=True, exist_ok=True)
    if args.table:
        if case.gold_table is None:
            print("mapping level: n/a (no gold table)")
        else:
            summary, _ = mapping_scores(read_table(args.table), read_table(case.gold_table), ontology, case, sources,
                                        out)
            f1 = summary["f1"]
            print(f"mapping level: mean task F1 = {'n/a' if f1 is None else f'{f1:.3f}'} "
                  f"(details: {out / 'mapping.mapping-scores.json'})")
    if args.kg:
        gold = gold_kg(case, ontology, sources, out)
        for f in gold.findings:
            print(f, file=sys.stderr)
        scores = graph_scores(load_graph(args.kg, "--kg"), gold.graph, ontology, case, None,
                              gold_templates=gold.templates)
        (out / "graph_scores.json").write_text(json.dumps(scores, indent=2, default=str) + "\n", encoding="utf-8")
        for name, r in scores.items():
            value = r.get("value")
            if value is None:  # say why, as the report does, instead of Python's "None"
                why = next((f.get("message") for f in r.get("findings") or []), None) or \
                    (r.get("details") or {}).get("reason") or r.get("status") or "not computed"
                print(f"{name}: n/a ({why})")
            else:
                part = (r.get("details") or {}).get("not_run")  # CQs that did not parse: the score covers the rest
                note = f" (partial, not run: {r['details']['reason']})" if part else ""
                print(f"{name}: {value:.3f}{note}" if isinstance(value, float) else f"{name}: {value}{note}")
        for f in scores.get("PQ3", {}).get("findings") or []:
            if f.get("code") == "cq-syntax":
                print(f"error: {f['location']}:{f['line'] or ''}:{f['column'] or ''}: {f['message']}".replace("::", ":"),
                      file=sys.stderr)
    return 0


def add_validate_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``kgc validate`` on the CLI's subparsers."""
    v = sub.add_parser("validate", parents=[common], help="validate a KG: strict syntax (SV2), OWL 2 RL consistency (CS2), SHACL",
                       description="Check a KG file strictly (IRIs, literal lexical forms, language tags, with "
                                   "line and column), run the owlrl OWL 2 RL closure over KG + ontology, and "
                                   "validate SHACL shapes derived from the ontology plus shapes/<scenario>.ttl and "
                                   "the manifest's shapes (HermiT too where Java is available). Above 20,000 "
                                   "triples CS2 and SHACL run on a stratified subject sample and report their "
                                   "coverage (--full: the whole KG). Exit 1 when any check fails or does not run. "
                                   "Example: kgc validate case.yaml kg.nt --out validation.json")
    v.add_argument("manifest", help="the case manifest (.yaml): ontology, SKOS and shapes")
    v.add_argument("kg", help="the KG to check: N-Triples, or Turtle, N-Quads, TriG, RDF/XML, JSON-LD, N3 by "
                              "extension (checked on an N-Triples copy beside --out)")
    v.add_argument("-o", "--output", "--out", dest="out", default=None, metavar="FILE",
                   help="JSON file for the results with every finding and its position (default: none written)")
    v.add_argument("-s", "--shapes", action="append", metavar="FILE",
                   help="SHACL shapes to validate against besides the case's (as pySHACL's -s; repeatable)")
    v.add_argument("--full", action="store_true",
                   help="CS2 and SHACL on the whole KG whatever its size (owlrl: ~1.6 ms a triple)")
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
