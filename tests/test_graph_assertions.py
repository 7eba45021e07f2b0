"""SA2/SA3/SA4 and the conciseness/completeness measures on small KGs with hand-computed values."""
from __future__ import annotations

import pytest
from rdflib import Graph, URIRef

from pipeline.scoring.graph import score_graph
from pipeline.scoring.graph.align import align_entities, keys_from_templates
from pipeline.scoring.graph.assertions import sa2, sa3, sa4
from pipeline.scoring.graph.hierarchy import Hierarchy
from pipeline.scoring.graph.quality import conciseness_completeness

EX = "http://ex.org/"
ONTO = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Lot rdfs:subClassOf :Obj . :Proc rdfs:subClassOf :Obj . :name rdfs:subPropertyOf :label .
:has rdfs:domain :Proc ; rdfs:range :Lot .""", format="turtle")
GOLD = Graph().parse(data="""@prefix : <http://ex.org/> .
:p1 a :Proc ; :has :l1 ; :name "P1" .
:l1 a :Lot ; :name "L1" .
:l2 a :Lot ; :name "L2" .""", format="turtle")
PRED = Graph().parse(data="""@prefix : <http://ex.org/> .
:p1 a :Obj ; :has :l1 ; :label "P1" .
:l1 a :Lot ; :name "L1" , "l1" .
:x a :Proc ; :name "zz" .""", format="turtle")


def test_hscore():
    h = Hierarchy(ONTO)
    assert h.hscore(URIRef(EX + "Obj"), URIRef(EX + "Lot")) == 0.5      # superclass: |Anc(Obj)|/|Anc(Lot)| = 1/2
    assert h.hscore(URIRef(EX + "Lot"), URIRef(EX + "Obj")) == 0.0      # more specific: no credit
    assert h.hscore(URIRef(EX + "Proc"), URIRef(EX + "Lot")) == 0.0     # sibling


def test_sa2_exact_and_hierarchy_aware():
    r = sa2(PRED, GOLD, ONTO)
    # types: pred {p1 Obj, l1 Lot, x Proc}, gold {p1 Proc, l1 Lot, l2 Lot}: exact TP 1, hier TP 1 + 1/2
    assert r["SA2-type-exact"].details["tp"] == 1.0
    assert r["SA2-type-exact"].value == pytest.approx(1 / 3)
    assert r["SA2-type-hier"].value == pytest.approx(0.5)
    # props: 5 predicted, 4 gold; exact TP 2 (p1 has l1, l1 name L1); hier adds label~name for "P1": 1/2
    pe, ph = r["SA2-prop-exact"].details, r["SA2-prop-hier"].details
    assert (pe["precision"], pe["recall"]) == (pytest.approx(2 / 5), pytest.approx(2 / 4))
    assert r["SA2-prop-exact"].value == pytest.approx(2 * 0.4 * 0.5 / 0.9)
    assert (ph["tp"], ph["precision"], ph["recall"]) == (2.5, 0.5, 0.625)


def test_sa3_rdfs_entailment():
    r = sa3(PRED, GOLD, ONTO)
    # 5 of 8 predicted assertions entailed by gold+O; 4 of 7 gold ones entailed by pred+O
    # (p1 a Proc follows from the domain of :has)
    assert (r.details["tp_pred"], r.details["n_pred"], r.details["tp_gold"], r.details["n_gold"]) == (5, 8, 4, 7)
    p, rec = 5 / 8, 4 / 7
    assert r.value == pytest.approx(2 * p * rec / (p + rec))


def test_sa3_inconsistent_prediction_scores_zero():
    r = sa3(PRED, GOLD, ONTO, consistent=False)
    assert (r.value, r.details["precision"], r.details["recall"]) == (0.0, 0.0, 0.0)


def test_sa3_owl_rl_regime_agrees_on_this_case():
    assert sa3(PRED, GOLD, ONTO, regime="owl-rl").value == pytest.approx(sa3(PRED, GOLD, ONTO).value)


def test_sa4_neighbourhood_accuracy():
    r = sa4(PRED, GOLD)
    # p1: N_gold {type Proc, has l1, name P1}, N_pred {type Obj, has l1, label P1}: F1 = 2*1/6
    # l1: N_gold {type Lot, name L1, ^has p1}, N_pred + {name l1}: F1 = 2*3/7; l2 and x: 0
    assert r.details["per_entity"] == {EX + "l2": 0.0, EX + "x": 0.0, EX + "p1": pytest.approx(1 / 3),
                                       EX + "l1": pytest.approx(6 / 7)}
    assert r.value == pytest.approx((1 / 3 + 6 / 7) / 4)


def test_conciseness_and_completeness():
    r = conciseness_completeness(PRED, GOLD, ONTO)
    assert (r["CN1"].value, r["CN1"].details["n_used"], r["CN1"].details["n_redundant"]) == (pytest.approx(4 / 6), 6, 2)
    assert (r["CN2"].value, r["CN2"].details["n_duplicates"]) == (1.0, 0)
    assert (r["CN3"].value, [f.location for f in r["CN3"].findings]) == (pytest.approx(2 / 3), [EX + "l1"])
    assert (r["CN5"].value, r["CN5"].details["n_redundant"]) == (pytest.approx(4 / 5), 1)   # "L1" ~ "l1"
    assert (r["CM2"].value, r["CM2"].details["n_missing"]) == (pytest.approx(2 / 3), 1)     # "L2" missing
    assert r["CM3"].details["per_class"][EX + "Lot"] == {"n_gold": 2, "n_found": 1, "ratio": 0.5}


def test_gold_free_measures_name_their_findings_and_time():
    pred = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    :b a :Book ; :pages "20" , "20.0"^^xsd:double , " 20 " , 21 ; :title "A" .
    :a a :Book ; :title "X" , " x" . :c a :Book ; :title "Y" . :d a :Book ; :title "Y" . :e a :Book ; :title "Y" .
    <http://ex.org/k/1> :title "K" . <http://ex.org/k/01> :title "K2" .""", format="turtle")
    r = conciseness_completeness(pred, None, ONTO, None, {URIRef(EX + "k/1"): ("1",), URIRef(EX + "k/01"): ("1",)})
    assert [(f.location, f.message) for f in r["CN5"].findings] == [
        (EX + "a", f"1 redundant value(s) of {EX}title"), (EX + "b", f"2 redundant value(s) of {EX}pages")]
    assert (r["CN5"].details, r["CN5"].value) == ({"n_values": 12, "n_redundant": 3}, 0.75)
    # c, d, e: one description; k/1 and k/01: one source key; a and b keep their own
    assert [f.message for f in r["CN2"].findings] == [
        f"3 entities describe one object: {EX}c, {EX}d, {EX}e", f"2 entities describe one object: {EX}k/01, {EX}k/1"]
    assert r["CN2"].details == {"n_entities": 7, "n_groups": 4, "n_duplicates": 3}
    assert r["CN1"].status == "not_applicable" and r["CN1"].elapsed_s < 0.001  # nothing to compare: KG not read
    assert r["CN2"].elapsed_s > 0 and r["CN5"].elapsed_s > 0


def test_not_applicable_without_gold():
    r = score_graph(PRED, None, ONTO)
    assert r["SA3"].status == "not_applicable" and r["SA3"].value is None
    assert r["CM2"].value is None and r["CN5"].value == pytest.approx(4 / 5)
    empty = sa2(PRED, Graph())
    assert all(x.value is None and x.status == "not_applicable" for x in empty.values())


def test_alignment_by_source_keys_prefers_matching_types():
    pred = Graph().parse(data="""@prefix : <http://ex.org/> .
    <http://ex.org/person/10> a :Person ; :name "Venus" . <http://ex.org/sport/10> a :Sport ; :name "Tennis" .""",
                         format="turtle")
    gold = Graph().parse(data="""@prefix : <http://ex.org/> .
    <http://ex.org/s/10> a :Sport ; :name "Tennis" . <http://ex.org/p/10> a :Person ; :name "Venus" .""",
                         format="turtle")
    pk = keys_from_templates(pred, [EX + "person/{ID}", EX + "sport/{ID}"])
    gk = keys_from_templates(gold, [EX + "p/{id}", EX + "s/{id}"])
    assert pk == {URIRef(EX + "person/10"): ("10",), URIRef(EX + "sport/10"): ("10",)}
    al = align_entities(pred, gold, pk, gk)
    assert al.pairs == {URIRef(EX + "person/10"): URIRef(EX + "p/10"), URIRef(EX + "sport/10"): URIRef(EX + "s/10")}
    assert (al.by_iri, al.by_key) == (0, 2)
    assert sa2(pred, gold, alignment=al)["SA2-prop-exact"].value == 1.0
    assert sa4(pred, gold, alignment=al).value == 1.0


def test_literals_compare_by_value():
    pred = Graph().parse(data='<http://ex.org/a> <http://ex.org/owes> "20"^^<http://www.w3.org/2001/XMLSchema#double> .',
                         format="nt")
    gold = Graph().parse(data='<http://ex.org/a> <http://ex.org/owes> "20.0E0"^^<http://www.w3.org/2001/XMLSchema#double> .',
                         format="nt")
    assert sa2(pred, gold)["SA2-prop-exact"].value == 1.0


def test_cn5_language_tag_is_part_of_the_value():
    """RDF 1.1 Concepts 3.3: "Animal"@en and "Animal"@fr are two values; "animal"@EN repeats "Animal"@en."""
    pred = Graph().parse(data="""@prefix : <http://ex.org/> .
    :a :label "Animal"@en , "Animal"@fr , "animal"@EN , "Animal" , " animal" , "Tier"@de .""", format="turtle")
    r = conciseness_completeness(pred, None, ONTO)["CN5"]
    assert (r.details, r.value) == ({"n_values": 6, "n_redundant": 2}, pytest.approx(4 / 6))
    assert [(f.location, f.message) for f in r.findings] == [(EX + "a", f"2 redundant value(s) of {EX}label")]
