"""A bounded, stratified subject sample of a large N-Triples KG, for the reasoners and SHACL.

OWL 2 reasoning and SHACL validation cost far more per triple than materialization
(owlrl ~1.6 ms a triple on two cores), so above :data:`FULL_LIMIT` triples CS2 and
SHACL run on a *sample* and say so (``details["coverage"]``) instead of being skipped.

Sample (deterministic, streamed from the file in two passes, never a full rdflib graph):

1. subjects are chosen by a stable hash (32-bit BLAKE2b of the term below ``rate * 2**32``, with
   ``rate = target_triples / n_triples``), plus the first ``min_per_stratum`` subjects of
   every class (``rdf:type`` object) and of every predicate, so rare classes and
   predicates are represented;
2. the sample holds every triple of a chosen subject (its whole description, so
   SHACL property shapes and OWL property axioms see all of its values) and the
   ``rdf:type`` triples of every IRI those triples point to (so ``rdfs:range``,
   ``sh:class`` and disjointness see the types of the objects).

Soundness: OWL 2 is monotonic, so a clash found in schema + sample is a clash of the
whole KG; a SHACL violation on a sampled focus node is a violation in the KG for shapes
on outgoing paths (all the node's triples are in the sample). The converse does not
hold: "no clash in the sample" covers the sampled subjects only, which ``coverage``
reports (subjects, triples, classes, predicates: sampled / total).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

from rdflib import Graph

from pipeline.materialize.output import count_lines
from pipeline.validation.syntax import STATEMENT

__all__ = ["FULL_LIMIT", "SAMPLE_TRIPLES", "count_triples", "subject_sample"]

#: Up to this many triples CS2 and SHACL run on the whole KG.
FULL_LIMIT = 20_000
#: Size the sample aims at above :data:`FULL_LIMIT` (triples, before object types are added).
SAMPLE_TRIPLES = 10_000
_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_CHUNK = 32 << 20


def _statements(path: Path, keep: Callable[[str], bool] | None = None):
    """Yield ``(subject, predicate, object)`` N-Triples terms of canonical statement lines (only
    of the lines ``keep`` accepts, when given)."""
    with open(path, encoding="utf-8-sig") as fh:  # SV2 accepts a byte-order mark
        while True:
            lines = fh.readlines(_CHUNK)
            if not lines:
                return
            yield from STATEMENT.findall("".join(lines if keep is None else filter(keep, lines)))


def count_triples(path: str | Path) -> int:
    """Number of lines of ``path`` (one statement a line in a written KG; :func:`pipeline.materialize.output.count_lines`)."""
    return count_lines(path)


def subject_sample(path: str | Path, *, target_triples: int = SAMPLE_TRIPLES, min_per_stratum: int = 3,
                   n_triples: int | None = None) -> tuple[Graph, dict[str, Any]]:
    """The stratified subject sample of an N-Triples file (see the module docstring).

    Args:
        path: a KG written one canonical statement a line (as ``kgc materialize`` writes it).
        target_triples: triples the hash rule aims at (the strata and object types add some).
        min_per_stratum: subjects kept per class and per predicate whatever their hash.
        n_triples: triples in the file, when known (else counted).
    Returns:
        ``(graph, coverage)``: the sample as an rdflib graph, and ``coverage`` =
        ``{"mode": "sample", "method", "subjects": [sampled, total], "triples": [sampled, total],
        "classes": [represented, total], "predicates": [represented, total]}``.
    """
    path = Path(path)
    total = n_triples if n_triples is not None else count_triples(path)
    threshold = int(min(1.0, target_triples / max(total, 1)) * 2**32)
    chosen: set[str] = set()
    seen: set[str] = set()
    per_class: dict[str, int] = {}
    per_pred: dict[str, int] = {}
    last = None
    for s, p, o in _statements(path):  # pass 1: choose subjects
        if s != last:
            last = s
            seen.add(s)
            if int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=4).digest(), "big") < threshold:
                chosen.add(s)
        if p == _RDF_TYPE:
            if per_class.get(o, 0) < min_per_stratum:
                per_class[o] = per_class.get(o, 0) + 1
                chosen.add(s)
        elif per_pred.get(p, 0) < min_per_stratum:
            per_pred[p] = per_pred.get(p, 0) + 1
            chosen.add(s)
    lines: list[str] = []
    types: dict[str, list[str]] = {}
    objects: set[str] = set()
    classes_in, preds_in = set(), set()
    # pass 2: their triples, and every type triple; the statement pattern runs only on the lines
    # that can be such (their first token a chosen subject's, or holding rdf:type): same matches
    firsts = {s.split(" ", 1)[0] for s in chosen}
    for s, p, o in _statements(path, lambda line: line[:line.find(" ")] in firsts or _RDF_TYPE in line):
        if p == _RDF_TYPE:
            types.setdefault(s, []).append(f"{s} {p} {o} .")
        if s in chosen:
            lines.append(f"{s} {p} {o} .")
            (classes_in if p == _RDF_TYPE else preds_in).add(o if p == _RDF_TYPE else p)
            if o[0] == "<":
                objects.add(o)
    n_own = len(lines)
    for o in objects - chosen:
        lines.extend(types.get(o, ()))
    graph = Graph(bind_namespaces="none")
    graph.parse(data="\n".join(lines) + "\n", format="nt")
    coverage = {"mode": "sample",
                "method": (f"subjects by a BLAKE2b hash (rate {min(1.0, target_triples / max(total, 1)):.4f}) plus "
                           f"the first {min_per_stratum} subjects of each class and predicate; all their triples "
                           f"and the rdf:type triples of the IRIs they point to"),
                "subjects": [len(chosen), len(seen)], "triples": [n_own, total],
                "object_type_triples": len(lines) - n_own,
                "classes": [len(classes_in), len(per_class)], "predicates": [len(preds_in), len(per_pred)]}
    return graph, coverage
