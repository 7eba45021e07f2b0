"""What is wrong in a hand-written gold KG: terms the case's ontology does not declare.

A gold graph (BLINKG's ``expected-graph.nt``) is scored against as the truth, so a slip in it
(``<http://example.org/#name>`` where the ontology and the gold table say ``ex:cityname``)
silently turns every graph-layer score of a correct KG into 0. The developers' guide asks that
gold files be parsed robustly and what is wrong in them reported; this module lists, for one
gold graph, every predicate and every class (object of ``rdf:type``) that none of the case's
ontologies declares, each with the closest declared term by name, as ``stage="gold"`` warnings.

Terms of the W3C vocabularies RDF, RDFS, OWL and XSD are never reported (an ontology does not
redeclare them). A term of another vocabulary the ontology merely uses without declaring it is
reported too: the scorer cannot tell such a use from a slip, and the engineer can.
"""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline.findings import Finding
from pipeline.ontology import Ontology
from pipeline.validation.vocabulary import CANDIDATE_SCORE, MAX_REPORTED, W3C, first_uses

__all__ = ["gold_vocabulary_findings", "MAX_REPORTED"]


def gold_vocabulary_findings(graph: Graph, ontology: Ontology, path: str | Path) -> list[Finding]:
    """Predicates and classes of the gold ``graph`` that ``ontology`` does not declare.

    Args:
        graph: the gold KG as parsed. ontology: the case's ontologies, loaded.
        path: the gold graph's file (for the finding's file and line; only IRIs written in full,
            ``<...>``, get a line).
    Returns:
        one ``warning`` finding (``stage="gold"``) per undeclared term, ``column`` saying whether it
        is used as a predicate or a class, ``value`` the IRI, ``candidate`` the closest declared
        term by local name (when its similarity is >= 0.5), ``expected`` how many triples use it;
        at most :data:`MAX_REPORTED` of them plus one finding counting the rest. Empty when every
        term is declared.
    """
    known_props = ontology.properties
    known_classes = ontology.classes | ontology.concepts
    uses: dict[tuple[str, URIRef], int] = {}
    for _, p, o in graph:
        if p == RDF.type:
            if isinstance(o, URIRef) and o not in known_classes and not str(o).startswith(W3C):
                uses[("class", o)] = uses.get(("class", o), 0) + 1
        elif p not in known_props and not str(p).startswith(W3C):
            uses[("predicate", p)] = uses.get(("predicate", p), 0) + 1
    if not uses:
        return []
    path = Path(path)
    ordered = sorted(uses.items(), key=lambda kv: (-kv[1], kv[0][0], str(kv[0][1])))
    shown = ordered[:MAX_REPORTED]
    lines = {t: line for t, (line, _) in first_uses(path, {str(term) for (_, term), _ in shown}).items()}
    out = []
    for (role, term), n in shown:
        pool = known_props if role == "predicate" else known_classes
        cand, _ = ontology.closest(str(term), pool, min_score=CANDIDATE_SCORE)
        out.append(Finding(
            "gold", str(path),
            f"the gold graph uses {role} {ontology.compact(term)}, which the ontology does not declare "
            f"({n} triple(s)); graph-layer scores against this gold count a KG that follows the ontology "
            "as wrong there",
            line=lines.get(str(term)), column=role, value=str(term),
            expected=f"a {role} declared by the case's ontology", candidate=ontology.compact(cand) if cand else None,
            severity="warning"))
    if len(ordered) > MAX_REPORTED:
        rest = ordered[MAX_REPORTED:]
        out.append(Finding("gold", str(path),
                           f"{len(rest)} more undeclared term(s) in the gold graph "
                           f"({sum(n for _, n in rest)} triple(s)), not listed one by one",
                           expected="terms declared by the case's ontology", severity="warning"))
    return out
