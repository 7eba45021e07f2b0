"""CS2 OWL consistency with owlrl and HermiT on scenario 3's ontology."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, XSD

from pipeline.cli import main
from pipeline.validation.consistency import hermit_available, hermit_consistency, owlrl_consistency, relevant_instance_data

ROOT = Path(__file__).resolve().parents[1]
ONTO = ROOT / ".." / "shared" / "benchmarks" / "blinkg" / "scenarios" / "scenario3" / "1" / "ontology.ttl"
EPO = "http://data.europa.eu/a4g/ontology#"
R = "http://data.europa.eu/a4g/resource/epo/"

pytestmark = pytest.mark.skipif(not ONTO.exists(), reason="BLINKG scenario 3 ontology not present")


@pytest.fixture(scope="module")
def onto() -> Graph:
    return Graph().parse(ONTO)


def _gold_like() -> Graph:
    """A KG shaped like scenario 3's gold KG (one procedure, its lot, outcome, statistics, notice)."""
    return Graph().parse(data=f"""
@prefix epo: <{EPO}> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<{R}procedure/codice_1> a epo:Procedure ; epo:hasProcurementScopeDividedIntoLot <{R}lot/codice_1> ;
    epo:hasProcedureType <http://publications.europa.eu/resource/authority/procurement-procedure-type/open> .
<{R}lotAwardOutcome/codice_1> a epo:LotAwardOutcome ; epo:hasAwardDecisionDate "2020-12-01"^^xsd:date ;
    epo:describesLot <{R}lot/codice_1> .
<{R}submissionStatisticalInformation/codice_1> a epo:SubmissionStatisticalInformation ;
    epo:hasReceivedTenders "3"^^xsd:integer ; epo:concernsSubmissionsForLot <{R}lot/codice_1> .
<{R}resultNotice/codice_1> a epo:ResultNotice ; epo:hasDispatchDate "2020-11-02"^^xsd:date ;
    epo:refersToProcedure <{R}procedure/codice_1> ; epo:refersToRole <{R}buyer/codice_1> .
""", format="turtle")


def _lot_and_procedure() -> Graph:
    g = Graph()
    x = URIRef(R + "procedure/codice_1")
    g.add((x, RDF.type, URIRef(EPO + "Lot")))
    g.add((x, RDF.type, URIRef(EPO + "Procedure")))
    return g


def test_owlrl_finds_disjoint_lot_and_procedure(onto):
    r = owlrl_consistency(_lot_and_procedure(), onto)
    assert r.status == "ok" and r.value is False
    assert [f.code for f in r.findings] == ["disjoint-classes"]
    assert r.findings[0].location == R + "procedure/codice_1"
    assert r.details["n_inconsistencies"] == 1 and r.details["run_success"] is True


def test_owlrl_gold_like_kg_is_consistent(onto):
    r = owlrl_consistency(_gold_like(), onto)
    assert (r.status, r.value, r.findings) == ("ok", True, [])


def test_owlrl_literal_cardinality_clash(onto):
    g = _gold_like()
    g.add((URIRef(R + "lotAwardOutcome/codice_1"), URIRef(EPO + "hasAwardDecisionDate"),
           Literal("2020-12-02", datatype=XSD.date)))
    r = owlrl_consistency(g, onto)
    assert r.value is False and [f.code for f in r.findings] == ["cardinality"]


def test_relevant_instance_data_drops_undescribed_triples(onto):
    g = _gold_like()
    g.add((URIRef(R + "procedure/codice_1"), URIRef("http://www.w3.org/2000/01/rdf-schema#label"), Literal("x")))
    kept = relevant_instance_data(g, onto)
    # 4 rdf:type triples + 6 triples whose property has an axiom (restrictions on
    # hasProcurementScopeDividedIntoLot, hasAwardDecisionDate, refersToRole, hasDispatchDate;
    # domains of describesLot, concernsSubmissionsForLot). Dropped: the label, hasReceivedTenders,
    # hasProcedureType and refersToProcedure (no axiom in this ontology).
    assert len(kept) == 10
    assert {p.split("#")[-1] for p in kept.predicates()} == {
        "type", "hasProcurementScopeDividedIntoLot", "hasAwardDecisionDate", "refersToRole", "hasDispatchDate",
        "describesLot", "concernsSubmissionsForLot"}


def test_owlrl_timeout_is_not_inconsistency(onto, monkeypatch):
    import time

    import owlrl

    class Hanging:
        def __init__(self, *a, **k):
            pass

        def expand(self, graph):
            time.sleep(60)

    monkeypatch.setattr(owlrl, "DeductiveClosure", Hanging)  # the forked child inherits the patch
    r = owlrl_consistency(_lot_and_procedure(), onto, timeout_s=0.5)
    assert (r.status, r.value, r.details["run_success"]) == ("timeout", None, False)
    assert [f.code for f in r.findings] == ["reasoner-timeout"]


@pytest.mark.slow
@pytest.mark.skipif(not hermit_available(), reason="Java or owlready2's HermiT not available")
def test_hermit_inconsistent_and_consistent(onto):
    bad = hermit_consistency(_lot_and_procedure(), onto)
    assert (bad.status, bad.value, bad.details["run_success"]) == ("ok", False, True)
    good = hermit_consistency(_gold_like(), onto)
    assert (good.status, good.value, good.details["n_unsatisfiable_classes"]) == ("ok", True, 0)


@pytest.mark.slow
@pytest.mark.skipif(not hermit_available(), reason="Java or owlready2's HermiT not available")
def test_hermit_counts_unsatisfiable_classes():
    o = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    :A a owl:Class ; owl:disjointWith :B . :B a owl:Class . :C a owl:Class ; rdfs:subClassOf :A, :B .
    :D a owl:Class ; rdfs:subClassOf :C .""", format="turtle")
    r = hermit_consistency(Graph(), o)
    assert r.value is True
    assert r.details["unsatisfiable_classes"] == ["http://ex.org/C", "http://ex.org/D"]


def test_owlrl_speedups_give_the_same_closure(onto, monkeypatch):
    """The context-free store and the kept namespace terms change nothing in owlrl's closure."""
    import owlrl
    import owlrl.Closure
    import owlrl.OWLRL

    from pipeline.validation.consistency import _KeptTerms, _keep_owlrl_terms

    def closure(store: str) -> set:
        g = Graph(store=store)
        for t in onto:
            g.add(t)
        for t in _gold_like() + _lot_and_procedure():
            g.add(t)
        owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                               datatype_axioms=False).expand(g)
        return {t for t in g if not isinstance(t[0], BNode) and not isinstance(t[2], BNode)}

    plain = closure("Memory")
    for module in (owlrl.OWLRL, owlrl.Closure):  # restored after the test
        for name in ("OWL", "RDF", "RDFS"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, getattr(module, name))
    _keep_owlrl_terms()
    assert isinstance(owlrl.OWLRL.OWL, _KeptTerms) and owlrl.OWLRL.OWL.sameAs == URIRef(str(OWL) + "sameAs")
    assert owlrl.Closure.RDF["_2"] == URIRef(str(RDF) + "_2")
    fast = closure("SimpleMemory")
    assert len(plain) > len(onto) and fast == plain


_KEYED = ("@prefix : <http://e/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
          ":C a owl:Class ; owl:hasKey ( :k ) .\n"
          ":k a owl:DatatypeProperty , owl:FunctionalProperty . :n a owl:DatatypeProperty , owl:FunctionalProperty .\n")


def test_owlrl_cs2_applies_haskey_to_equal_keys_only():
    # owlrl 7.1.4's prp-key compares no key property when there is only one: every two instances
    # would be owl:sameAs and a valid KG would clash on its functional properties
    from rdflib import Graph

    from pipeline.validation.consistency import owlrl_consistency

    onto = Graph().parse(data=_KEYED, format="turtle")
    kg = Graph().parse(data='@prefix : <http://e/> . :a a :C ; :k "1" ; :n "x" . :b a :C ; :k "2" ; :n "y" .\n'
                            ':c a :C ; :k "3" .', format="turtle")
    r = owlrl_consistency(kg, onto)
    assert (r.value, r.findings) == (True, [])
    kg.parse(data='@prefix : <http://e/> . :c :k "1" ; :n "z" .', format="turtle")  # c shares key "1" with a
    r = owlrl_consistency(kg, onto)
    assert r.value is False
    assert sorted(f.message for f in r.findings) == [
        f"Cardinality: http://e/{s} has 2 distinct literal values of http://e/{p}, at most 1 allowed "
        "(functional property)" for s in "ac" for p in "kn"]


def test_validate_passes_a_kg_whose_classes_have_keys(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(_KEYED, encoding="utf-8")
    (tmp_path / "c.csv").write_text("k\n1\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: k\nsources: [c.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "kg.nt").write_text("".join(f'<http://e/{s}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> '
                                            f'<http://e/C> .\n<http://e/{s}> <http://e/k> "{i}" .\n'
                                            for i, s in enumerate("ab")), encoding="utf-8")
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"), "--out", str(tmp_path / "v.json")]) == 0
    assert "CS2-owlrl: passes" in capsys.readouterr().out.splitlines()


def test_owlrl_finding_is_about_the_individual_or_the_literal() -> None:
    """The location of an owlrl clash, located later in the KG file: the individual of a disjointness (a
    blank one too, not the last class named) and the literal of a lexical clash (not its datatype)."""
    from pipeline.validation.consistency import _subject_of

    assert _subject_of("Disjoint classes http://ex.org/City and http://ex.org/Person have a common individual "
                       "_:madrid2") == "_:madrid2"
    assert _subject_of("Lexical value of the literal 'X \"1\"' does not match its datatype "
                       "(http://www.w3.org/2001/XMLSchema#integer)") == \
        '"X \\"1\\""^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert _subject_of("Property http://ex.org/p is functional but http://ex.org/a has two values") == "http://ex.org/a"
