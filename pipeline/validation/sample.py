"""A bounded, stratified subject sample of a large N-Triples KG, for the reasoners and SHACL.

OWL 2 reasoning and SHACL validation cost far more per triple than materialization (owlrl
~0.6 ms a triple of its input), so above :data:`FULL_LIMIT` triples CS2 and SHACL run on a
*sample* and say so (``details["coverage"]``) instead of being skipped.

Sample (deterministic; drawn from the triples as SV2's one pass of pyoxigraph reads them,
:class:`SubjectSample`, never from a full rdflib graph):

1. subjects are chosen by a stable hash (32-bit BLAKE2b of the term's N-Triples form below
   ``rate * 2**32``, with ``rate = target_triples / n_triples``), plus the first
   ``min_per_stratum`` subjects of every class (``rdf:type`` object) and of every predicate,
   so every class and every predicate is represented however rare (the strata);
2. the sample holds every triple of a chosen subject (its whole description, so SHACL property
   shapes and OWL property axioms see all of its values) and the ``rdf:type`` triples of every
   IRI those triples point to (so ``rdfs:range``, ``sh:class`` and disjointness see the types of
   the objects).

Step 2 is done in the same pass when the file lists each subject's triples together (as
``kgc materialize`` and most writers do: a subject's statements are one run of lines); when a
subject comes back after another one, the triples of the chosen subjects are read in a second
pass (:func:`subject_sample`), so the sample is the same either way.

Soundness: OWL 2 is monotonic, so a clash found in schema + sample is a clash of the whole KG;
a SHACL violation on a sampled focus node is a violation in the KG for shapes on outgoing paths
(all the node's triples are in the sample). The converse does not hold: "no clash in the
sample" covers the sampled subjects only, which ``coverage`` reports (subjects, triples,
classes, predicates: sampled / total).
"""
from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path
from typing import Any

import pyoxigraph
from rdflib import Graph

from pipeline.materialize.output import count_lines
from pipeline.rdffile import NTRIPLES, line_chunks

__all__ = ["FULL_LIMIT", "SAMPLE_TRIPLES", "MIN_PER_STRATUM", "count_triples", "SubjectSample", "subject_sample"]

#: Up to this many triples CS2 and SHACL run on the whole KG.
FULL_LIMIT = 20_000
#: Triples the hash rule aims at above :data:`FULL_LIMIT` (before the strata and object types).
SAMPLE_TRIPLES = 2_000
#: Subjects kept per class and per predicate whatever their hash.
MIN_PER_STRATUM = 3
_RDF_TYPE = pyoxigraph.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
_NT = "application/n-triples"
_CHUNK = 32 << 20
_OXI_LINE = re.compile(r"on line (\d+)")


def count_triples(path: str | Path) -> int:
    """Number of lines of ``path`` (one statement a line in a written KG; :func:`pipeline.materialize.output.count_lines`)."""
    return count_lines(path)


class SubjectSample:
    """Draws the sample of the module docstring from triples given in file order.

    Feed every triple of the file to :meth:`add` (pyoxigraph terms; SV2 does, through
    :func:`pipeline.validation.syntax.check_ntriples`'s ``on_triple``), then call :meth:`result`.

    Args:
        n_triples: triples (or lines) of the whole file, for the hash rate.
        target_triples: triples the hash rule aims at. min_per_stratum: subjects kept per class
            and per predicate.
    """

    def __init__(self, n_triples: int, target_triples: int = SAMPLE_TRIPLES,
                 min_per_stratum: int = MIN_PER_STRATUM) -> None:
        self.rate = min(1.0, target_triples / max(n_triples, 1))
        self._threshold = int(self.rate * 2**32)
        self.min_per_stratum = min_per_stratum
        self.chosen: set[Any] = set()
        self.seen: set[Any] = set()
        self.per_class: dict[Any, int] = {}
        self.per_pred: dict[Any, int] = {}
        self.types: dict[Any, list[Any]] = {}  # subject -> its classes, for the objects' types
        self.kept: list[tuple[Any, Any, Any]] = []  # triples of chosen subjects
        self.grouped = True  # every subject's triples in one run so far
        self._run: list[tuple[Any, Any, Any]] = []
        self._last: Any = pyoxigraph.BlankNode()  # no subject of the file (a fresh blank node)

    def add(self, s: Any, p: Any, o: Any) -> None:
        """One triple (pyoxigraph terms), in file order."""
        if s != self._last:
            self._close_run()
            self._last = s
            if s in self.seen:
                self.grouped = False  # this subject's triples are not all together
            else:
                self.seen.add(s)
                if int.from_bytes(hashlib.blake2b(str(s).encode("utf-8"), digest_size=4).digest(), "big") \
                        < self._threshold:
                    self.chosen.add(s)
        self._run.append((s, p, o))
        if p == _RDF_TYPE:
            self.types.setdefault(s, []).append(o)
            if self.per_class.get(o, 0) < self.min_per_stratum:
                self.per_class[o] = self.per_class.get(o, 0) + 1
                self.chosen.add(s)
        elif self.per_pred.get(p, 0) < self.min_per_stratum:
            self.per_pred[p] = self.per_pred.get(p, 0) + 1
            self.chosen.add(s)

    def _close_run(self) -> None:
        if self._run and self._run[0][0] in self.chosen:
            self.kept.extend(self._run)
        self._run = []

    def result(self, n_triples: int, path: str | Path | None = None) -> tuple[Graph, dict[str, Any]]:
        """The sample and its coverage, once every triple was given.

        Args:
            n_triples: triples of the file (for the coverage).
            path: the file, read a second time for the chosen subjects' triples when the file
                did not list each subject's triples together (``None``: it did).
        Returns:
            ``(graph, coverage)`` as :func:`subject_sample`.
        """
        self._close_run()
        kept = self.kept
        if not self.grouped:
            if path is None:
                raise ValueError("a subject's triples are not together in the file: its path is needed")
            kept = [t for t in _triples(path) if t[0] in self.chosen]
        lines = [f"{s} {p} {o} ." for s, p, o in kept]
        classes_in = {o for _, p, o in kept if p == _RDF_TYPE}
        preds_in = {p for _, p, _ in kept if p != _RDF_TYPE}
        n_own = len(lines)
        objects = {o for _, _, o in kept if isinstance(o, pyoxigraph.NamedNode)} - self.chosen
        for o in sorted(objects, key=str):
            lines.extend(f"{o} {_RDF_TYPE} {c} ." for c in self.types.get(o, ()))
        graph = Graph(bind_namespaces="none")
        graph.parse(data="\n".join(lines) + "\n", format=NTRIPLES)
        coverage = {"mode": "sample",
                    "method": (f"subjects by a BLAKE2b hash (rate {self.rate:.4f}) plus the first "
                               f"{self.min_per_stratum} subjects of each class and predicate; all their triples "
                               f"and the rdf:type triples of the IRIs they point to"),
                    "subjects": [len(self.chosen), len(self.seen)], "triples": [n_own, n_triples],
                    "object_type_triples": len(lines) - n_own,
                    "classes": [len(classes_in), len(self.per_class)],
                    "predicates": [len(preds_in), len(self.per_pred)]}
        return graph, coverage


def _triples(path: str | Path):
    """The triples pyoxigraph reads from an N-Triples file, chunk by chunk (lines it rejects skipped,
    as SV2's bulk path does: the line checker reports them)."""
    for data in line_chunks(path, _CHUNK):
        lines = None
        while data:
            try:
                yield from pyoxigraph.parse(io.BytesIO(data), _NT)
                break
            except SyntaxError as exc:  # skip the rejected line, read on after it
                lines = lines if lines is not None else data.split(b"\n")
                at = _error_line(exc)
                if at is None:
                    break
                lines = lines[at:]
                data = b"\n".join(lines)


def _error_line(exc: SyntaxError) -> int | None:
    """The 1-based line pyoxigraph's error names (``None``: none)."""
    m = _OXI_LINE.search(str(exc))
    return int(m.group(1)) if m else None


def subject_sample(path: str | Path, *, target_triples: int = SAMPLE_TRIPLES,
                   min_per_stratum: int = MIN_PER_STRATUM,
                   n_triples: int | None = None) -> tuple[Graph, dict[str, Any]]:
    """The stratified subject sample of an N-Triples file (see the module docstring), read on its own.

    :func:`pipeline.run.evaluate.graph_validation` draws the same sample during SV2's pass instead
    (:class:`SubjectSample`).

    Args:
        path: a KG written one statement a line.
        target_triples: triples the hash rule aims at (the strata and object types add some).
        min_per_stratum: subjects kept per class and per predicate whatever their hash.
        n_triples: triples in the file, when known (else its lines are counted).
    Returns:
        ``(graph, coverage)``: the sample as an rdflib graph, and ``coverage`` =
        ``{"mode": "sample", "method", "subjects": [sampled, total], "triples": [sampled, total],
        "object_type_triples", "classes": [represented, total], "predicates": [represented, total]}``.
    """
    total = n_triples if n_triples is not None else count_triples(path)
    sample = SubjectSample(total, target_triples, min_per_stratum)
    for s, p, o in _triples(path):
        sample.add(s, p, o)
    return sample.result(total, path)
