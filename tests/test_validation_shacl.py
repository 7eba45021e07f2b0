"""SHACL shapes derived from an ontology, hand-written scenario shapes, pyshacl validation."""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import RDF, SH

from pipeline.ontology import load_ontology
from pipeline.validation.shacl import SHAPES, derive_shapes, entailed_subclass_triples, start_shacl, validate_shacl

from helpers import case_folder

ROOT = Path(__file__).resolve().parents[1]
ONTO = """@prefix : <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Person a owl:Class . :Student a owl:Class ; rdfs:subClassOf :Person ,
    [ a owl:Restriction ; owl:onProperty :id ; owl:cardinality 1 ] .
:Sport a owl:Class .
:id a owl:DatatypeProperty ; rdfs:domain :Person ; rdfs:range xsd:integer .
:practises a owl:ObjectProperty ; rdfs:domain :Person ; rdfs:range :Sport .
"""
KG = """@prefix : <http://ex.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:s1 a :Student ; :id 1 ; :practises :tennis .
:tennis a :Sport .
:s2 a :Student ; :id "two" , 3 .
:s3 a :Student ; :practises "chess" .
"""


def test_derived_shapes_names():
    sg = derive_shapes(Graph().parse(data=ONTO, format="turtle"))
    names = {str(s)[len(str(SHAPES)):] for s in sg.subjects(RDF.type, SH.NodeShape)}
    assert names == {"domain-id", "domain-practises", "range-id-integer", "kind-id", "range-practises-Sport",
                     "kind-practises", "card-min-Student-id", "card-max-Student-id"}


def test_validate_counts_by_shape_and_severity():
    r = validate_shacl(Graph().parse(data=KG, format="turtle"), Graph().parse(data=ONTO, format="turtle"))
    assert r.status == "ok" and r.value is False
    assert r.details["by_severity"] == {"Violation": 3, "Warning": 2, "Info": 0}
    assert r.details["by_shape"] == {
        "urn:kgc:shapes:card-max-Student-id-p": {"Violation": 1},       # s2 has two ids
        "urn:kgc:shapes:card-min-Student-id-p": {"Warning": 1},         # s3 has none
        "urn:kgc:shapes:kind-practises-p": {"Violation": 1},            # "chess" is a literal
        "urn:kgc:shapes:range-id-integer-p": {"Violation": 1},          # "two" is no integer
        "urn:kgc:shapes:range-practises-Sport-p": {"Warning": 1},       # "chess" is no Sport
    }


def test_scenario3_hand_written_shapes_catch_a_bad_country_code():
    kg = Graph().parse(data="""@prefix epo: <http://data.europa.eu/a4g/ontology#> .
    @prefix locn: <http://www.w3.org/ns/locn#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    <http://ex.org/a> a locn:Address ; epo:hasCountryCode <http://publications.europa.eu/resource/authority/country/ES> .
    <http://ex.org/b> a locn:Address ; epo:hasCountryCode <http://publications.europa.eu/resource/authority/country/ESP> .
    <http://ex.org/t> a epo:SubmissionStatisticalInformation ; epo:hasReceivedTenders "-1"^^xsd:integer .
    """, format="turtle")
    r = validate_shacl(kg, None, [ROOT / "shapes" / "scenario3.ttl"], derive=False)
    bad = sorted(((f.location, f.term) for f in r.findings if f.severity == "error"), key=str)
    assert bad == [("http://ex.org/a", "<http://publications.europa.eu/resource/authority/country/ES>"),
                   ("http://ex.org/t", '"-1"^^<http://www.w3.org/2001/XMLSchema#integer>'),
                   ("http://ex.org/t", None)]             # no concernsSubmissionsForLot (minCount 1)


def test_bad_shapes_file_is_a_failed_result(tmp_path):
    f = tmp_path / "bad.ttl"
    f.write_text("this is not turtle", encoding="utf-8")
    r = validate_shacl(Graph(), None, [f], derive=False)
    assert r.status == "failed" and r.value is None


def test_langstring_ranges_including_the_xsd_langstring_slip():
    # `xsd:langString` is not an XSD 1.1 datatype: read as rdf:langString (BLINKG 1G's ontology says it);
    # `xsd:text` is no datatype at all: no shape rather than one that rejects every value.
    onto = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    :name a owl:DatatypeProperty ; rdfs:range xsd:langString .
    :motto a owl:DatatypeProperty ; rdfs:range rdf:langString .
    :note a owl:DatatypeProperty ; rdfs:range xsd:text .
    """, format="turtle")
    kg = Graph().parse(data="""@prefix : <http://ex.org/> .
    :a :name "London"@en , "plain" ; :motto "Fluctuat nec mergitur"@la , "no tag" ; :note "x" .
    """, format="turtle")
    r = validate_shacl(kg, onto)
    # both IRIs named langString are in the ontology, so the shape names carry the hash of rdf:langString
    assert r.details["by_shape"] == {"urn:kgc:shapes:range-name-langString.88ddf1c6-p": {"Violation": 1},
                                     "urn:kgc:shapes:range-motto-langString.88ddf1c6-p": {"Violation": 1}}
    assert sorted(f.term for f in r.findings) == ['"no tag"', '"plain"']


def test_shacl_shape_iri_collision() -> None:
    folder = case_folder("shacl-shape-iri-collision")
    onto = load_ontology([folder / "ontology.ttl"])
    shapes = derive_shapes(onto)
    paths = {}
    for ps, path in shapes.subject_objects(URIRef("http://www.w3.org/ns/shacl#path")):
        paths.setdefault(ps, set()).add(path)
    assert all(len(v) == 1 for v in paths.values())  # one sh:path per property shape
    kinds = sorted(str(s) for s in paths if "kind-address" in str(s))
    assert len(kinds) == 2 and kinds[0] != kinds[1]
    res = validate_shacl(Graph().parse(folder / "kg.nt", format="nt"), onto)
    assert res.status == "ok" and res.value is True
    assert res.details["by_shape"] == {"urn:kgc:shapes:range-address.2611b625-Address-p": {"Warning": 1}}
    assert res.details["n_shapes"] == 5


def test_individuals_of_a_tangled_class_lattice_validate_in_linear_time():
    # Six classes each a subclass of the five others, and one named individual of the first: the
    # deep copy pyshacl's ont_graph mix-in makes of an individual follows every subClassOf path to
    # depth 10 (5**10 copies, minutes); the union of KG and ontology checks it at once.
    classes = [f"http://ex.org/C{i}" for i in range(6)]
    onto = Graph()
    owl = "http://www.w3.org/2002/07/owl#"
    for c in classes:
        onto.add((URIRef(c), RDF.type, URIRef(owl + "Class")))
        for d in classes:
            if d != c:
                onto.add((URIRef(c), URIRef("http://www.w3.org/2000/01/rdf-schema#subClassOf"), URIRef(d)))
    ind = URIRef("http://ex.org/ind")
    onto.add((ind, RDF.type, URIRef(owl + "NamedIndividual")))
    onto.add((ind, RDF.type, URIRef(classes[0])))
    shapes = Graph().parse(format="turtle", data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix : <http://ex.org/> .
        :S a sh:NodeShape ; sh:targetSubjectsOf :p ; sh:property [ sh:path :p ; sh:class :C3 ] .
        :T a sh:NodeShape ; sh:targetSubjectsOf :q ; sh:property [ sh:path :q ; sh:class :C3 ] .""")
    kg = Graph().parse(format="nt", data="<http://ex.org/x> <http://ex.org/p> <http://ex.org/ind> .\n"
                                         "<http://ex.org/y> <http://ex.org/q> <http://ex.org/other> .\n")
    finish = start_shacl(kg, onto, [shapes], timeout_s=30)
    result = finish()
    assert result.status == "ok", result.details
    # the individual is a C3 through the lattice; the untyped value of :q is not
    assert result.details["by_severity"] == {"Violation": 1, "Warning": 0, "Info": 0}
    assert [f.location for f in result.findings] == ["http://ex.org/y"]


SHAPES_HEAD = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://ex.org/> .
@prefix s: <http://ex.org/shapes#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""


def test_a_shape_referenced_but_defined_nowhere_is_bad_input(tmp_path):
    import pytest
    from pipeline.errors import InputError
    from pipeline.validation.shacl import check_shapes
    f = tmp_path / "shapes.ttl"
    f.write_text(SHAPES_HEAD + "s:P a sh:NodeShape ; sh:targetClass ex:Person ;\n"
                 "  sh:property [ sh:path ex:id ; sh:node s:IdShapee ] ;\n"
                 "  sh:or ( s:IdShape s:Other ) .\n"
                 "s:IdShape a sh:NodeShape ; sh:datatype xsd:integer .\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        check_shapes(f)
    assert err.value.line == 4 and str(err.value).startswith(  # the first by line; the other counted
        f"{f}:4: SHACL shapes: sh:node s:IdShapee: no shape of that name (no triple about it in the shapes given), "
        "so it would check nothing and every value would conform (closest: s:IdShape) (1 more such shape(s) in the file)")
    other = tmp_path / "other.ttl"  # defined in another shapes file validated with it: fine
    other.write_text(SHAPES_HEAD + "s:IdShapee sh:minInclusive 0 . s:Other sh:maxInclusive 9 .\n", encoding="utf-8")
    assert check_shapes(f, None, [f, other]) == []


def test_a_datatype_that_is_no_datatype_is_a_warning_with_the_closest(tmp_path):
    from pipeline.validation.shacl import check_shapes
    onto = tmp_path / "o.ttl"
    onto.write_text(ONTO + ":Code a rdfs:Datatype .\n", encoding="utf-8")
    f = tmp_path / "shapes.ttl"
    f.write_text(SHAPES_HEAD + "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
                 "s:P a sh:NodeShape ; sh:targetClass ex:Person ;\n"
                 "  sh:property [ sh:path ex:id ; sh:datatype ex:integer ] ,\n"
                 "    [ sh:path ex:id ; sh:datatype ex:Code ] , [ sh:path ex:id ; sh:datatype xsd:langString ] ,\n"
                 "    [ sh:path ex:id ; sh:datatype rdf:langString ] , [ sh:path ex:id ; sh:datatype xsd:int ] .\n",
                 encoding="utf-8")
    found = [(x.line, x.message) for x in check_shapes(f, load_ontology([onto]))]
    assert found == [
        (5, "sh:datatype ex:integer: not an XSD or RDF datatype, nor an rdfs:Datatype of the ontology, so no literal "
            "has it and every value fails this constraint (closest: xsd:integer)"),
        (6, "sh:datatype xsd:langString: not an XSD or RDF datatype, nor an rdfs:Datatype of the ontology, so no "
            "literal has it and every value fails this constraint (closest: rdf:langString)")]


def test_sub_properties_get_the_domain_and_range_shapes_of_their_super_properties():
    # RDF 1.1 Semantics rdfs7 with rdfs2/rdfs3: a super-property's domain and range hold for sub-property triples
    onto = """@prefix : <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    :Person a owl:Class . :name a owl:DatatypeProperty ; rdfs:domain :Person ; rdfs:range xsd:string .
    :fullName a owl:DatatypeProperty ; rdfs:subPropertyOf :name .
    :legalName rdfs:subPropertyOf :fullName ; rdfs:range xsd:string ."""
    sg = derive_shapes(Graph().parse(data=onto, format="turtle"))
    names = {str(s)[len(str(SHAPES)):] for s in sg.subjects(RDF.type, SH.NodeShape)}
    assert names == {"domain-name", "range-name-string", "kind-name", "domain-fullName-name", "range-fullName-string",
                     "kind-fullName", "domain-legalName-name", "range-legalName-string"}
    assert str(sg.value(SHAPES["range-fullName-string"], SH.message)) == (
        "values of http://ex.org/fullName must have datatype http://www.w3.org/2001/XMLSchema#string "
        "(the range of http://ex.org/name, a super-property)")
    assert str(sg.value(SHAPES["range-legalName-string"], SH.message)) == (  # its own axiom, said once
        "values of http://ex.org/legalName must have datatype http://www.w3.org/2001/XMLSchema#string")
    kg = Graph().parse(data='@prefix : <http://ex.org/> . :x a :Person ; :legalName 42 . :y :fullName "Ann" .',
                       format="turtle")
    r = validate_shacl(kg, Graph().parse(data=onto, format="turtle"))
    assert r.value is False
    assert r.details["by_shape"] == {"urn:kgc:shapes:range-legalName-string-p": {"Violation": 1},
                                     "urn:kgc:shapes:domain-fullName-name": {"Warning": 1}}


EQUIV = """@prefix : <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Employee owl:equivalentClass [ owl:intersectionOf ( :Person :Agent ) ] .
:Staff owl:equivalentClass :Employee .
:Party owl:equivalentClass [ owl:unionOf ( :Person :Organisation ) ] .
:Team a owl:Class . :member rdfs:range :Person .
"""


def test_entailed_subclass_triples_of_equivalences_and_expressions():
    ex = "http://ex.org/"
    got = {(str(s)[len(ex):], str(o)[len(ex):]) for s, _, o in entailed_subclass_triples(
        Graph().parse(data=EQUIV, format="turtle"))}
    assert got == {("Employee", "Person"), ("Employee", "Agent"), ("Staff", "Employee"), ("Employee", "Staff"),
                   ("Person", "Party"), ("Organisation", "Party")}


def test_sh_class_sees_entailed_types():
    """SHACL 1.0 2.1.3.1: sh:class follows rdfs:subClassOf; an equivalence to an intersection entails it."""
    shapes = Graph().parse(data="""@prefix : <http://ex.org/> . @prefix sh: <http://www.w3.org/ns/shacl#> .
        :S a sh:NodeShape ; sh:targetClass :Team ; sh:property [ sh:path :member ; sh:class :Person ] .""",
                           format="turtle")
    kg = Graph().parse(data="""@prefix : <http://ex.org/> .
        :t a :Team ; :member :e , :s , :a . :e a :Employee . :s a :Staff . :a a :Agent .""", format="turtle")
    r = validate_shacl(kg, Graph().parse(data=EQUIV, format="turtle"), [shapes], derive=False)
    assert r.value is False and r.details["by_severity"] == {"Violation": 1, "Warning": 0, "Info": 0}
    assert [f.term for f in r.findings] == ["<http://ex.org/a>"]
