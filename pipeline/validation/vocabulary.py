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
never reported. A declared term the ontology marks ``owl:deprecated true`` (OWL 2 Structural
Specification 5.5: it should no longer be used) is a ``warning``, with how many triples use it.

The same namespace under the other scheme (``http://schema.org/`` for an ontology in
``https://schema.org/``, which schema.org publishes since 2020; YARRRML's predefined ``schema:`` is
``http://``) is watched too, with the severity of the namespace it mirrors: IRIs differing in their
scheme are different terms (RDF 1.1 Concepts, section 3.2: IRIs are equal only character for
character), so no axiom or derived shape of the ontology applies to them, and the finding names the
declared term of the same name (``http://schema.org/name`` is not declared; the ontology declares
``https://schema.org/name``, the same name under https). A KG of which no triple uses a class or
property the ontology declares is a warning too: the reasoners and the derived shapes had nothing
to check, so their passes say nothing about it: ``details.unchecked`` says so, and the KG's verdict
is *not validated* (:func:`pipeline.validation.verdict.kg_verdict`).
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
        known |= {_other_scheme(ns) for ns in known} - {None}  # schema.org is itself under either scheme
        #: namespace -> severity of an undeclared term in it
        self.watched = {ns: "error" if ns in own or ns not in known else "warning" for ns in declared}
        #: a namespace under the other scheme (http/https) -> the declared namespace it mirrors
        self.mirrors = {twin: ns for ns in declared if (twin := _other_scheme(ns)) and twin not in declared}
        for twin, ns in self.mirrors.items():
            self.watched[twin] = self.watched[ns]
        self.uses: dict[tuple[str, str], int] = {}
        #: terms the ontology marks owl:deprecated true (OWL 2 Structural Specification 5.5) -> triples using them
        self.deprecated = {str(t) for t in ontology.deprecated}
        self.deprecated_uses: dict[str, int] = {}
        self.n_triples = 0
        self.n_declared = 0  # triples whose predicate, or whose class for rdf:type, the ontology declares

    def add(self, s: Any, p: Any, o: Any) -> None:
        """One triple (pyoxigraph terms, as the N-Triples pass reads them)."""
        self.n_triples += 1
        pv = p.value
        if pv == _RDF_TYPE:
            if isinstance(o, pyoxigraph.NamedNode) and o.value in self.classes:
                self.n_declared += 1
                self._deprecated_use(o.value)
            elif isinstance(o, pyoxigraph.NamedNode) and namespace_of(o.value) in self.watched:
                key = ("class", o.value)
                self.uses[key] = self.uses.get(key, 0) + 1
        elif pv in self.properties:
            self.n_declared += 1
            self._deprecated_use(pv)
        elif namespace_of(pv) in self.watched:
            key = ("property", pv)
            self.uses[key] = self.uses.get(key, 0) + 1

    def _deprecated_use(self, iri: str) -> None:
        """Count one triple using a declared term, when the ontology deprecates it."""
        if iri in self.deprecated:
            self.deprecated_uses[iri] = self.deprecated_uses.get(iri, 0) + 1

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
            severity = self.watched[namespace_of(term)]
            line, column = lines.get(term, (None, None))
            mirrored = self.mirrors.get(namespace_of(term))
            if mirrored is not None:  # the ontology's namespace under the other scheme
                same = mirrored + term[len(namespace_of(term)):]
                known = same in (self.properties if role == "property" else self.classes)
                scheme, other = term.split(":", 1)[0], mirrored.split(":", 1)[0]
                message = (f"{role} <{term}> is not declared by the ontology, which declares "
                           + (f"{self._shown(same)}: the same name under {other}, not {scheme}"
                              if known else f"terms of <{mirrored}>: the same namespace under {other}, not {scheme}")
                           + f" ({n} triple(s)); IRIs differing in their scheme are different terms, so no axiom "
                             "or shape of the ontology applies to it")
            else:
                cand, _ = self.ontology.closest(term, pool, min_score=CANDIDATE_SCORE)
                own = "in its own namespace" if severity == "error" else "which declares other terms of that vocabulary"
                message = (f"{role} {self._shown(term)} is not declared by the ontology, {own} ({n} triple(s))"
                           + (f"; closest declared: {self._shown(str(cand))}" if cand else ""))
            findings.append(Finding(severity=severity, code="undeclared-term", line=line, column=column,
                                    term=f"<{term}>", location=str(path) if path else "", message=message))
        if len(ordered) > MAX_REPORTED:
            rest = ordered[MAX_REPORTED:]
            worst = "error" if any(self.watched[namespace_of(t)] == "error" for (_, t), _ in rest) else "warning"
            findings.append(Finding(severity=worst, code="undeclared-term", location=str(path) if path else "",
                                    message=f"{len(rest)} more undeclared term(s) ({sum(n for _, n in rest)} "
                                            "triple(s)), not listed one by one"))
        findings += [Finding(severity="warning", code="deprecated-term", term=f"<{term}>", location=str(path) if path else "",
                             message=f"{self._shown(term)} is marked owl:deprecated true in the ontology ({n} triple(s)): "
                                     "it should no longer be used")
                     for term, n in sorted(self.deprecated_uses.items())]
        vacuous = bool(self.n_triples) and not self.n_declared  # every check of the ontology passed vacuously
        if vacuous:
            findings.append(Finding(severity="warning", code="no-ontology-term", location=str(path) if path else "",
                                    message=f"none of the KG's {self.n_triples} triple(s) uses a class or property "
                                            "the ontology declares: the reasoners and the shapes derived from the "
                                            "ontology had nothing to check"))
        errors = sum(n for (_, t), n in ordered if self.watched[namespace_of(t)] == "error")
        return Result(NAME, not any(f.severity == "error" for f in findings), findings=findings,
                      details={"namespaces": {ns: sev for ns, sev in sorted(self.watched.items())
                                              if ns not in self.mirrors},
                               "other_scheme": dict(sorted(self.mirrors.items())), "n_triples": self.n_triples,
                               "n_triples_with_declared_terms": self.n_declared,
                               "undeclared_terms": len(ordered), "deprecated_terms": len(self.deprecated_uses), "triples_with_undeclared_terms_own": errors,
                               "coverage": {"mode": "full"},
                               # the KG's verdict is then "not validated": the ontology's checks passed vacuously
                               **({"unchecked": "no triple uses a class or property the ontology declares, so the "
                                                "reasoners and the derived shapes had nothing to check"}
                                  if vacuous else {})},
                      elapsed_s=time.perf_counter() - t0)


def _other_scheme(ns: str) -> str | None:
    """``ns`` with ``http`` and ``https`` swapped; ``None`` for another scheme."""
    for a, b in (("http://", "https://"), ("https://", "http://")):
        if ns.startswith(a):
            return b + ns[len(a):]
    return None


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
