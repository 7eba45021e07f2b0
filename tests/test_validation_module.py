"""The module of an ontology a KG's terms reach: its rules on a small ontology, the imports none of the
files holds, and validation whose cost follows the KG, not the ontology (case
ontology-1m-triples-run-unbounded, with the ontology scaled down so that the test stays fast)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rdflib import Graph, URIRef

from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.run.evaluate import graph_validation
from pipeline.validation.module import kg_signature, ontology_module, unresolved_imports

CASE = Path(__file__).parent / "cases" / "ontology-1m-triples-run-unbounded"
EX = "http://example.org/"
ONTO = """@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.org/onto> a owl:Ontology ; owl:imports <http://example.org/other>, <http://www.w3.org/2006/time> .
:Person a owl:Class ; rdfs:subClassOf :Agent ; rdfs:label "person" ; rdfs:seeAlso :Unrelated .
:Agent a owl:Class ; rdfs:subClassOf [ a owl:Restriction ; owl:onProperty :id ; owl:maxCardinality 1 ] .
:Student a owl:Class ; rdfs:subClassOf :Person .
:Robot a owl:Class ; owl:disjointWith :Person .
:Company a owl:Class ; owl:disjointWith :Agent .
:Adult owl:equivalentClass [ owl:intersectionOf ( :Person :Grown ) ] .
[] a owl:AllDisjointClasses ; owl:members ( :Person :Place :Event ) .
[] a owl:AllDisjointClasses ; owl:members ( :Robot :Place ) .
:name a owl:DatatypeProperty ; rdfs:domain :Person ; rdfs:range xsd:string .
:id a owl:DatatypeProperty .
:unused a owl:DatatypeProperty ; rdfs:domain :Person .
:ann :name "example person" .
:bob a :Person .
<http://example.org/other#Thing> a owl:Class .
"""


def _onto() -> Graph:
    return Graph().parse(data=ONTO, format="turtle")


def test_module_keeps_what_the_kg_terms_reach_and_nothing_else():
    kg = Graph().parse(data=f'<{EX}ann> <{EX}name> "Ann" .\n<{EX}ann> a <{EX}Person> .\n<{EX}x> a <{EX}Place> .',
                       format="turtle")
    m = ontology_module(_onto(), kg_signature(kg))
    subjects = {str(s) for s in m.graph.subjects() if isinstance(s, URIRef)}
    # upwards from the used terms (Person -> Agent and its restriction on id), the used property, the KG's
    # individual as the ontology describes it, the definition that mentions Person (read both ways)
    assert subjects == {EX + t for t in ("Person", "Agent", "name", "id", "ann", "Adult")}
    # not reached: a subclass (Student), a term disjoint with a used one only (Robot, Company), an unused property
    # even with a used domain, an annotation's object (Unrelated), an individual the KG never names (bob)
    assert not subjects & {EX + t for t in ("Student", "Robot", "Company", "unused", "Unrelated", "bob")}
    # the disjointness of Person, Place and Event is kept (two members used); Robot and Place is not
    members = {str(o) for o in m.graph.objects(None, URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#first"))}
    assert {EX + "Place", EX + "Event", EX + "Person"} <= members and EX + "Robot" not in members
    assert not list(m.graph.triples((None, URIRef("http://www.w3.org/2002/07/owl#imports"), None)))
    assert (m.n_ontology_triples, len(m.graph)) == (47, 28)


def test_unresolved_imports_are_those_no_file_holds():
    # <http://example.org/other> is held: a term lives in its namespace (<http://example.org/other#Thing>)
    assert unresolved_imports(_onto()) == ["http://www.w3.org/2006/time"]
    assert unresolved_imports(Graph()) == []


def _scaled_case(tmp_path: Path, n_properties: int) -> Path:
    """The case's folder with its ontology written by make_onto.py's template for ``n_properties`` properties."""
    folder = tmp_path / f"case-{n_properties}"
    shutil.copytree(CASE, folder)
    script = folder / "make_onto.py"
    script.write_text(script.read_text(encoding="utf-8").replace("range(249999)", f"range({n_properties})"),
                      encoding="utf-8")
    subprocess.run([sys.executable, script.name], cwd=folder, check=True)
    return folder


def test_validation_of_a_kg_costs_what_it_uses_of_a_large_ontology(tmp_path):
    """ontology-1m-triples-run-unbounded: 2 triples against an ontology of 250,000 properties were validated
    against all of it (shapes for every property, owlrl over every axiom) and killed. The reasoners and
    SHACL now get the same 4 axioms whatever the ontology's size."""
    sizes = {}
    for n in (100, 5000):
        folder = _scaled_case(tmp_path, n)
        case = load_manifest(folder / "case.yaml")
        onto = load_ontology(case.ontologies)
        kg = folder / "kg.nt"
        kg.write_text(f'<{EX}p/1> <http://example.org/h#name> "Ann" .\n', encoding="utf-8")
        result = graph_validation(kg, None, onto, case)
        assert {k: (v["value"], v["status"]) for k, v in result.items() if k != "CS2-hermit"} == {
            "SV2": (True, "ok"), "CS2-owlrl": (True, "ok"), "SHACL": (True, "ok"), "vocabulary": (True, "ok")}
        sizes[n] = (result["SHACL"]["details"]["ontology_module"]["module_triples"],
                    result["SHACL"]["details"]["n_shapes"], result["CS2-owlrl"]["details"]["n_schema_triples"],
                    result["SHACL"]["details"]["ontology_module"]["ontology_triples"])
    # h:Person a owl:Class; h:name a owl:DatatypeProperty, its domain and range: 4 triples, 3 shapes
    assert sizes == {100: (4, 3, 4, 4 + 4 * 100), 5000: (4, 3, 4, 4 + 4 * 5000)}

