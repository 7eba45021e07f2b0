"""CS2-axioms: the OWL axioms that need no reasoner, checked on every triple of a large KG.

Case ``validate-sample-hides-inconsistency``: a KG above the sample limit with one functional-property
violation was "KG valid" (exit 0) because CS2 and SHACL ran on a 2% subject sample.
"""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import pyoxigraph
from rdflib import Graph

from pipeline.cli import main
from pipeline.validation.axioms import AxiomCheck, data_value
from pipeline.validation.verdict import kg_verdict

CASE = Path(__file__).parent / "cases" / "validate-sample-hides-inconsistency"
E = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"

ONTO = """
@prefix ex: <http://example.org/ontology#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Person a owl:Class . ex:Student a owl:Class ; rdfs:subClassOf ex:Person .
ex:City a owl:Class ; owl:disjointWith ex:Person .
ex:birthDate a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:range xsd:date .
ex:age a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:range xsd:integer .
ex:spouse a owl:ObjectProperty, owl:FunctionalProperty .
ex:passport a owl:ObjectProperty, owl:InverseFunctionalProperty .
ex:nickname a owl:DatatypeProperty ; rdfs:range rdfs:Literal .
ex:Person rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:email ; owl:maxCardinality 2 ] .
"""


def _check(nt: str):
    check = AxiomCheck(Graph().parse(data=ONTO, format="turtle"))
    for t in pyoxigraph.parse(io.BytesIO(nt.encode()), "application/n-triples"):
        check.add(t.subject, t.predicate, t.object)
    return check.result()


def _t(s, p, o):
    return f"<{E}{s}> <{E}ontology#{p}> {o} .\n" if p != "a" else \
        f"<{E}{s}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{E}ontology#{o}> .\n"


def test_each_axiom_kind_found_with_its_node():
    nt = "".join([
        _t("p1", "birthDate", f'"1967-01-18"^^<{XSD}date>'), _t("p1", "birthDate", f'"1999-12-31"^^<{XSD}date>'),
        _t("p2", "age", f'"7"^^<{XSD}integer>'), _t("p2", "age", f'"7.0"^^<{XSD}decimal>'),  # one value: no clash
        _t("p3", "a", "Student"), _t("p3", "a", "City"),  # Student under Person, disjoint with City
        _t("p4", "birthDate", '"yesterday"'),  # an xsd:string value for a range xsd:date
        _t("p5", "nickname", '"Bob"@en'),  # rdfs:Literal holds every value
        _t("p6", "email", '"a@x"'), _t("p6", "email", '"b@x"'), _t("p6", "email", '"c@x"'), _t("p6", "a", "Student"),
        _t("p7", "email", '"a@x"'), _t("p7", "email", '"b@x"'), _t("p7", "email", '"c@x"'),  # not a Person: no limit
        _t("p8", "spouse", f"<{E}a>"), _t("p8", "spouse", f"<{E}b>"),  # IRIs: owl:sameAs, a warning
        _t("p9", "passport", f"<{E}x>"), _t("p10", "passport", f"<{E}x>"),
    ])
    r = _check(nt)
    assert r.value is False
    got = sorted((f.severity, f.code, f.location) for f in r.findings)
    assert got == [("error", "cardinality", f"<{E}p6>"), ("error", "datatype-range", f"<{E}p4>"),
                   ("error", "disjoint-classes", f"<{E}p3>"), ("error", "functional-property", f"<{E}p1>"),
                   ("warning", "functional-property-iri", f"<{E}p8>"),
                   ("warning", "inverse-functional-property", f"<{E}p10>")]
    assert r.details["violations"] == {"functional-property": 1, "disjoint-classes": 1, "datatype-range": 1,
                                       "functional-property-iri": 1, "inverse-functional-property": 1,
                                       "cardinality": 1}
    msg = {f.code: f.message for f in r.findings}
    assert msg["functional-property"] == (
        f'two distinct values of the functional property <{E}ontology#birthDate>: "1967-01-18"^^<{XSD}date> and '
        f'"1999-12-31"^^<{XSD}date> (at most one allowed)')
    assert msg["disjoint-classes"] == (f"an instance of <{E}ontology#City> and of <{E}ontology#Person>, which are "
                                       "declared disjoint")
    assert msg["cardinality"] == (f"an instance of <{E}ontology#Person> with 3 distinct literal values of "
                                  f"<{E}ontology#email>, at most 2 allowed")


def test_types_after_values_and_no_false_clash():
    # the class comes last in the file; same value written twice; equal reals in two datatypes
    nt = "".join([_t("p1", "email", '"a@x"'), _t("p1", "email", '"a@x"'), _t("p1", "a", "Person"),
                  _t("p2", "age", f'"1"^^<{XSD}integer>'), _t("p2", "age", f'"1.00"^^<{XSD}decimal>'),
                  _t("p3", "a", "City"), _t("p3", "a", "City")])
    r = _check(nt)
    assert (r.value, r.findings) == (True, [])
    assert data_value("1", XSD + "integer") == data_value("1.0", XSD + "decimal")
    assert data_value("1", XSD + "integer") != data_value("1", XSD + "double")


def _big_kg(folder: Path, people: int, extra: bool) -> Path:
    with (folder / "kg.nt").open("w") as f:
        for i in range(people):
            s = f"<{E}person/p{i}>"
            f.write(f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{E}ontology#Person> .\n")
            f.write(f'{s} <{E}ontology#name> "Person {i}" .\n')
            f.write(f'{s} <{E}ontology#birthDate> "19{50 + i % 50}-01-{1 + i % 28:02d}"^^<{XSD}date> .\n')
        if extra:  # a duplicated record: a second birth date, at the end of the file
            f.write(f'<{E}person/p17> <{E}ontology#birthDate> "1999-12-31"^^<{XSD}date> .\n')
    return folder / "kg.nt"


def test_validate_large_kg_finds_the_one_violation(tmp_path, monkeypatch, capsys):
    shutil.copytree(CASE, tmp_path / "c")
    monkeypatch.chdir(tmp_path / "c")
    _big_kg(tmp_path / "c", 7_000, extra=True)  # 21,001 triples: above the 20,000 of the whole-KG checks
    assert main(["validate", "case.yaml", "kg.nt"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "CS2-axioms: fails (1 error)"
    assert out[2] == (f"  <{E}person/p17>: error: two distinct values of the functional property "
                      f'<{E}ontology#birthDate>: "1967-01-18"^^<{XSD}date> and "1999-12-31"^^<{XSD}date> '
                      "(at most one allowed)")
    assert out[-1].startswith("KG invalid: fails CS2-axioms")  # the sample may hold p17 too (10% here)


def test_validate_large_valid_kg_says_sample(tmp_path, monkeypatch, capsys):
    shutil.copytree(CASE, tmp_path / "c")
    monkeypatch.chdir(tmp_path / "c")
    _big_kg(tmp_path / "c", 7_000, extra=False)
    assert main(["validate", "case.yaml", "kg.nt"]) == 0  # documented: valid on a sample exits 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "CS2-axioms: passes"
    last = out[-1]
    assert last.startswith("KG valid on a sample: passes SV2, CS2-axioms, vocabulary on every triple; passes CS2-owlrl, ")
    assert last.endswith(" of 21,000 triples only")
    assert "SHACL on a sample of " in last


def test_verdict_sentence_sample_and_full():
    full = {"SV2": {"value": True, "status": "ok", "coverage": {"mode": "full"}},
            "SHACL": {"value": True, "status": "ok", "coverage": {"mode": "full", "triples": [5, 5]}}}
    assert kg_verdict(full).sentence() == "KG valid: passes SV2, SHACL"
    sampled = {**full, "SHACL": {"value": True, "status": "ok",
                                 "details": {"coverage": {"mode": "sample", "triples": [1923, 90001]}}}}
    v = kg_verdict(sampled)
    assert (v.state, v.label) == ("valid", "valid on a sample")
    assert v.sentence() == "KG valid on a sample: passes SV2 on every triple; passes SHACL on a sample of 1,923 of " \
                           "90,001 triples only"


def test_a_super_propertys_datatype_range_holds_for_its_sub_properties_values():
    # rdfs7 then rdfs3: d:x ex:legalName 42 entails d:x ex:name 42, outside xsd:string
    onto = """@prefix ex: <http://example.org/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    ex:name rdfs:range xsd:string . ex:fullName rdfs:subPropertyOf ex:name .
    ex:legalName rdfs:subPropertyOf ex:fullName . ex:alias owl:equivalentProperty ex:name .
    ex:code rdfs:range [ a rdfs:Datatype ; owl:onDatatype xsd:integer ;
                         owl:withRestrictions ( [ xsd:minInclusive 1 ] ) ] . ex:subCode rdfs:subPropertyOf ex:code ."""
    check = AxiomCheck(Graph().parse(data=onto, format="turtle"))
    nt = "".join([_t("x", "legalName", f'"42"^^<{XSD}integer>'), _t("y", "alias", f'"7"^^<{XSD}integer>'),
                  _t("z", "fullName", '"Ann"'), _t("w", "subCode", f'"0"^^<{XSD}integer>')])
    for t in pyoxigraph.parse(io.BytesIO(nt.encode()), "application/n-triples"):
        check.add(t.subject, t.predicate, t.object)
    r = check.result()
    got = sorted((f.code, f.location, f.message) for f in r.findings)
    assert [(c, loc) for c, loc, _ in got] == [("datatype-facet", f"<{E}w>"), ("datatype-range", f"<{E}x>"),
                                               ("datatype-range", f"<{E}y>")]
    assert got[1][2] == (f'the value "42"^^<{XSD}integer> of <{E}ontology#legalName> is outside its range <{XSD}string> '
                         f"(the range of <{E}ontology#name>, a super-property) (value spaces of <{XSD}integer> and "
                         f"<{XSD}string> are disjoint)")
