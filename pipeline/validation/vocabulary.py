"""Terms of the KG the ontology does not declare, in a namespace the ontology declares terms in.

A KG written by a hand-made mapping (``[a, lib:Bok]``, ``[lib:titel, $(title)]``) can use a class or
property that looks like the ontology's but is none of its terms. No reasoner and no shape sees it:
OWL semantics give an unknown IRI no axioms (an open world), and SHACL shapes derived from the
ontology target its declared terms only, so every other check passes. This check is the one that
sees it: the usage of undefined classes and properties (Zaveri et al., "Quality assessment for
Linked Data: A Survey", Semantic Web 7(1), 2016, metric IN3; Hogan et al., "Weaving the Pedantic
Web", LDOW 2010, section 4).

Which namespaces are checked: a predicate, or a class (object of ``rdf:type``), whose namespace (the
IRI up to its last ``#`` or ``/``) is one the ontology declares classes or properties in. Terms
of other namespaces are other vocabularies the KG may use freely and are not reported.

* In the ontology's own namespace (that of its ``owl:Ontology`` IRI, or any namespace that is not
  a well-known vocabulary's) an undeclared term is an ``error``: the check fails, and with it the
  KG's verdict (exit 1 of ``kgc validate``).
* In a well-known vocabulary the ontology redeclares part of (FOAF, schema.org, Dublin Core ...:
  :data:`pipeline.ontology.WELL_KNOWN_PREFIXES`) it is a ``warning``: the term may be one of that
  vocabulary's the ontology did not copy.

Each finding names the term, how many triples use it, the line of its first use (IRIs written in
full, ``<...>``) and the closest declared term by local name. Terms of RDF, RDFS, OWL and XSD are
never reported.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyoxigraph
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.findings import Finding
from pipeline.ontology import WELL_KNOWN_PREFIXES, Ontology
from pipeline.validation.result import Result

__all__ = ["VocabularyCheck", "namespace_of", "first_uses", "NAME", "MAX_REPORTED", "CANDIDATE_SCORE", "W3C"]

#: The check's name in results, reports and the verdict.
NAME = "vocabulary"
#: Undeclared terms reported one by one; the rest are counted in one more finding.
MAX_REPORTED = 20
#: Closest-name score (normalised Levenshtein ratio) from which a declared term is offered.
CANDIDATE_SCORE = 0.5
#: RDF's, RDFS's, OWL's and XSD's namespaces: their terms are never reported.
W3C = tuple(str(ns) for ns in (RDF, RDFS, OWL, XSD))
_RDF_TYPE = str(RDF.type)


def namespace_of(iri: str) -> str:
    """The namespace of ``iri``: up to and including its last ``#``, else its last ``/`` (``""``: none)."""
    cut = iri.rfind("#")
    if cut < 0:
        cut = iri.rfind("/")
    return iri[:cut + 1] if cut >= 0 else ""


class VocabularyCheck:
    """Counts, triple by triple, the predicates and classes of a KG that the ontology does not declare.

    Fed by the strict N-Triples pass (:func:`pipeline.validation.syntax.check_ntriples`'s ``on_triple``)
    so that every triple is seen whatever the size of the KG; :meth:`result` gives the check's result.

    Args:
        ontology: the case's ontologies, loaded.
    """

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self.properties = {str(p) for p in ontology.properties}
        self.classes = {str(c) for c in ontology.classes | ontology.concepts}
        declared = {namespace_of(t) for t in self.properties | self.classes} - {""}
        declared = {ns for ns in declared if not ns.startswith(W3C)}
        own = {str(o).rstrip("#/") + sep for o in ontology.graph.subjects(RDF.type, OWL.Ontology) for sep in "#/"}
        known = set(WELL_KNOWN_PREFIXES.values())
        #: namespace -> severity of an undeclared term in it
        self.watched = {ns: "error" if ns in own or ns not in known else "warning" for ns in declared}
        self.uses: dict[tuple[str, str], int] = {}
        self.n_triples = 0

    def add(self, s: Any, p: Any, o: Any) -> None:
        """One triple (pyoxigraph terms, as the N-Triples pass reads them)."""
        self.n_triples += 1
        pv = p.value
        if pv == _RDF_TYPE:
            if isinstance(o, pyoxigraph.NamedNode) and o.value not in self.classes \
                    and namespace_of(o.value) in self.watched:
                key = ("class", o.value)
                self.uses[key] = self.uses.get(key, 0) + 1
        elif pv not in self.properties and namespace_of(pv) in self.watched:
            key = ("property", pv)
            self.uses[key] = self.uses.get(key, 0) + 1

    def _shown(self, iri: str) -> str:
        """``prefix:local`` where a prefix covers ``iri``, else ``<iri>``."""
        short = self.ontology.compact(iri)
        return f"<{iri}>" if short == iri else short

    def result(self, path: str | Path | None = None) -> Result:
        """``Result(name="vocabulary")``: ``value`` ``False`` when a term of the ontology's own namespace is
        undeclared (an ``error`` finding), ``True`` otherwise (well-known vocabularies' terms are warnings);
        ``not_applicable`` when the ontology declares no term outside RDF, RDFS, OWL and XSD.

        Args:
            path: the KG file the triples came from, to give each reported term the line of its first
                use (by text: IRIs written in full); ``None``: no lines.
        """
        t0 = time.perf_counter()
        if not self.watched:
            return Result.not_applicable(NAME, "the ontology declares no class or property of its own")
        ordered = sorted(self.uses.items(), key=lambda kv: (self.watched[namespace_of(kv[0][1])] != "error",
                                                             -kv[1], kv[0][0], kv[0][1]))
        shown = ordered[:MAX_REPORTED]
        lines = first_uses(Path(path), {t for (_, t), _ in shown}) if path else {}
        findings = []
        for (role, term), n in shown:
            pool = self.ontology.properties if role == "property" else self.ontology.classes | self.ontology.concepts
            cand, _ = self.ontology.closest(term, pool, min_score=CANDIDATE_SCORE)
            severity = self.watched[namespace_of(term)]
            own = "in its own namespace" if severity == "error" else "which declares other terms of that vocabulary"
            line, column = lines.get(term, (None, None))
            findings.append(Finding(
                severity=severity, code="undeclared-term", line=line, column=column, term=f"<{term}>",
                location=str(path) if path else "",
                message=f"{role} {self._shown(term)} is not declared by the ontology, {own} ({n} triple(s))"
                        + (f"; closest declared: {self._shown(str(cand))}" if cand else "")))
        if len(ordered) > MAX_REPORTED:
            rest = ordered[MAX_REPORTED:]
            worst = "error" if any(self.watched[namespace_of(t)] == "error" for (_, t), _ in rest) else "warning"
            findings.append(Finding(severity=worst, code="undeclared-term", location=str(path) if path else "",
                                    message=f"{len(rest)} more undeclared term(s) ({sum(n for _, n in rest)} "
                                            "triple(s)), not listed one by one"))
        errors = sum(n for (_, t), n in ordered if self.watched[namespace_of(t)] == "error")
        return Result(NAME, not any(f.severity == "error" for f in findings), findings=findings,
                      details={"namespaces": dict(sorted(self.watched.items())), "n_triples": self.n_triples,
                               "undeclared_terms": len(ordered), "triples_with_undeclared_terms_own": errors,
                               "coverage": {"mode": "full"}},
                      elapsed_s=time.perf_counter() - t0)


def first_uses(path: Path, terms: set[str]) -> dict[str, tuple[int, int]]:
    """1-based line and column (in characters) of the first occurrence of each ``<iri>`` of ``terms``
    in an N-Triples or Turtle file (by text: IRIs written in full)."""
    todo, out = {f"<{t}>": t for t in terms}, {}
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                for written in [w for w in todo if w in line]:
                    out[todo.pop(written)] = (n, line.index(written) + 1)
                if not todo:
                    break
    except OSError:
        pass
    return out
