"""Loading ontologies: syntax errors in one line naming the file and line, an ontology that declares
nothing, classes implied by rdfs:domain."""
from __future__ import annotations

import pytest
from rdflib import URIRef

from pipeline.compile import compile_table
from pipeline.errors import OntologyError
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source

from helpers import FUNCTIONAL, case_manifest, cells, map_lexically


def test_ontology_in_functional_syntax_is_one_line_with_hint(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(FUNCTIONAL, encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == (f"{f}:1: cannot parse ontology as Turtle: expected qname after @prefix; the file is in "
                              "OWL functional syntax, which is not read: save it as Turtle or RDF/XML")
    assert err.value.line == 1


def test_ontology_unknown_extension_reports_the_turtle_error(tmp_path):
    f = tmp_path / "onto.owx"
    f.write_text(FUNCTIONAL, encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value).startswith(f"{f}:1: cannot parse ontology (extension '.owx' unknown, read as Turtle): "
                                     "expected qname after @prefix; the file is in OWL functional syntax")
    assert "\n" not in str(err.value) and "BufferedReader" not in str(err.value)


def test_turtle_syntax_error_names_its_line(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e\n ex:f ex:g .\n", encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == f"{f}:4: cannot parse ontology as Turtle: expected '.' or '}}' or ']' at end of statement"


def test_an_ontology_without_classes_or_properties_fails_at_load(tmp_path):
    f = tmp_path / "empty.ttl"
    f.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == (f"{f}: no class or property is declared (1 triples read): expected an ontology with "
                              "owl:Class/rdfs:Class and property declarations")


def test_rdfs_domain_class_is_a_class_for_mapper_and_audit(tmp_path):
    case = case_manifest("rdfs-domain-class")
    ont = load_ontology(case.ontologies, case.prefixes)
    media = URIRef("http://example.org/media#MediaResource")
    assert media in ont.classes and media in ont.implied_classes()
    result, rows = map_lexically("rdfs-domain-class")
    # one column alone opens the MediaResource, so the mapper marks the row for review (doubts.py);
    # a person who accepts it gets it compiled under the class its property's rdfs:domain names
    marked = [r for r in result.table.rows if r.review]
    assert [(r.data_reference, r.entity_class) for r in marked] == [("mime_type", "ex:MediaResource")]
    for r in marked:
        r.review = None
    compiled = compile_table(result.table, ont, case, [load_source(s, tmp_path) for s in case.sources])
    assert not compiled.audit.dropped
    assert ("mime_type", "ex:MediaResource") in cells(compiled.audit.kept, "data_reference", "entity_class")


def test_undescribed_superclass_and_closest_class_in_the_namespace_written(tmp_path):
    """A class only named as another's superclass, never described, is listed (it stays a class: RDFS); one
    implied by a domain, or described, is not. Of two equally close local names, the one in the namespace written
    is proposed."""
    onto = tmp_path / "o.ttl"
    onto.write_text("@prefix ex: <http://e.org/> . @prefix other: <http://a.org/> .\n"
                    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                    "ex:Person rdfs:subClassOf other:Person, other:Agent, ex:Thing . ex:Thing rdfs:label \"thing\" .\n"
                    "ex:knows rdfs:domain other:Agent .\n", encoding="utf-8")
    ont = load_ontology([onto])
    assert URIRef("http://a.org/Person") in ont.classes
    assert ont.undescribed_superclasses == frozenset({URIRef("http://a.org/Person")})
    ont.prefixes["ex"] = "http://e.org/"
    assert ont.closest("ex:Persn", sorted(ont.classes))[0] == URIRef("http://e.org/Person")
    assert ont.closest("http://a.org/Persn", sorted(ont.classes))[0] == URIRef("http://a.org/Person")


def test_datatype_ranges_with_no_common_value_are_noted_once_at_load(tmp_path):
    from rdflib import URIRef

    from pipeline.ontology import disjoint_ranges

    ttl = """@prefix v: <http://example.org/v#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    v:C a owl:Class .
    v:opened rdfs:domain v:C ; rdfs:range xsd:date, xsd:dateTime .
    v:firstOpened rdfs:subPropertyOf v:opened .
    v:count rdfs:range xsd:integer, xsd:nonNegativeInteger .
    v:label rdfs:range xsd:string, rdfs:Literal .
    v:text rdfs:range xsd:string, rdf:langString .
    v:own rdfs:range v:Code, xsd:string ."""
    (tmp_path / "o.ttl").write_text(ttl.replace("@prefix v:", "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix v:"),
                                    encoding="utf-8")
    onto = load_ontology([tmp_path / "o.ttl"])
    v, xsd = "http://example.org/v#", "http://www.w3.org/2001/XMLSchema#"
    g = onto.graph
    assert disjoint_ranges(g, URIRef(v + "opened")) == (URIRef(xsd + "date"), URIRef(xsd + "dateTime"))
    assert disjoint_ranges(g, URIRef(v + "firstOpened")) == (URIRef(xsd + "date"), URIRef(xsd + "dateTime"))
    assert disjoint_ranges(g, URIRef(v + "text")) == (URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"),
                                                      URIRef(xsd + "string"))
    for ok in ("count", "label", "own"):  # one value space, rdfs:Literal, a datatype not judged
        assert disjoint_ranges(g, URIRef(v + ok)) is None
    notes = [n.split(": ", 1)[1] for n in onto.notes]
    assert notes == [
        "the ranges of v:opened, xsd:date and xsd:dateTime, have no common value (every rdfs:range holds, and their "
        "value spaces are disjoint): no literal can be a value of it, and the shapes derived from the ranges reject "
        "every value; a choice of datatypes is one range, an owl:unionOf",
        "the ranges of v:text, rdf:langString and xsd:string, have no common value (every rdfs:range holds, and "
        "their value spaces are disjoint): no literal can be a value of it, and the shapes derived from the ranges "
        "reject every value; a choice of datatypes is one range, an owl:unionOf"]
    assert all(n.startswith(str(tmp_path / "o.ttl") + ": ") for n in onto.notes)
