"""The naming annotation property of entities whose vocabulary has no name property for them, and the
class-only row of records no property fits (pipeline/mappers/offline/labels.py, unmapped.py)."""
from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import RDFS, SKOS

from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.labels import NamingProperty, naming_properties
from pipeline.mappers.offline.names import NameMatcher
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology

from helpers import map_lexically

DCT_TITLE = URIRef("http://purl.org/dc/terms/title")
PREFIXES = ("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
            "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n@prefix dct: <http://purl.org/dc/terms/> .\n"
            "@prefix ex: <http://example.org/o#> .\n")


def _ontology(tmp_path, body: str):
    path = tmp_path / "o.ttl"
    path.write_text(PREFIXES + body, encoding="utf-8")
    return load_ontology([path], {"ex": "http://example.org/o#"})


def test_annotation_uses_count_terms_not_headers(tmp_path):
    ont = _ontology(tmp_path, '<http://example.org/o> a owl:Ontology ; dct:title "O" ; rdfs:comment "c" .\n'
                              'skos:altLabel a owl:AnnotationProperty .\n'
                              'ex:A a owl:Class ; skos:prefLabel "A" ; rdfs:label "a" .\nex:B a owl:Class ; skos:prefLabel "B" .\n'
                              'ex:p a owl:DatatypeProperty ; ex:note "n" .\n')
    assert ont.annotation_uses == {SKOS.altLabel: 0, SKOS.prefLabel: 2, RDFS.label: 1, DCT_TITLE: 0, RDFS.comment: 0,
                                   URIRef("http://example.org/o#note"): 1}
    # used as an annotation, declared nowhere: a property of the vocabulary all the same (RDF Semantics rdf1)
    assert ont.kind(SKOS.prefLabel) == "property" and ont.kind(DCT_TITLE) == "property"
    assert ont.kind(URIRef("http://example.org/o#p")) == "datatype_property"
    ranked = naming_properties(ont, NameMatcher(ont, False))
    assert ranked == [NamingProperty(SKOS.prefLabel, False, 2), NamingProperty(RDFS.label, False, 1),
                      NamingProperty(SKOS.altLabel, True, 0), NamingProperty(DCT_TITLE, False, 0)]


def test_rdfs_label_when_the_vocabulary_names_nothing(tmp_path):
    ont = _ontology(tmp_path, "ex:A a owl:Class .\n")
    assert naming_properties(ont, NameMatcher(ont, False)) == [NamingProperty(RDFS.label, False, 0)]


def _map(tmp_path, terms: str, csv: str = "id,name\n1,Ann\n2,Bo\n3,Cy\n"):
    (tmp_path / "o.ttl").write_text(PREFIXES + terms, encoding="utf-8")
    (tmp_path / "widgets.csv").write_text(csv, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: w\nsources: [{path: widgets.csv}]\nontologies: [o.ttl]\n"
                                        "prefixes: {ex: 'http://example.org/o#'}\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    return [(r.data_reference, r.ontology_property, r.entity_class, r.subject_template, r.review)
            for r in result.table.rows]


def test_equal_naming_properties_mark_the_row_for_review(tmp_path):
    rows = _map(tmp_path, "skos:prefLabel a owl:AnnotationProperty .\ndct:title a owl:AnnotationProperty .\n"
                          "ex:Widget a owl:Class .\n")
    # equal by use and declaration: the first by IRI, marked
    assert rows == [("name", "dct:title", "ex:Widget", "http://example.org/widget/{id}",
                     "dct:title chosen among naming annotation properties the vocabularies give equal weight "
                     "(skos:prefLabel: declared owl:AnnotationProperty, on 0 of their terms each): confirm the property")]


def test_a_column_named_as_a_naming_property_takes_it(tmp_path):
    rows = _map(tmp_path, "skos:prefLabel a owl:AnnotationProperty .\ndct:title a owl:AnnotationProperty .\n"
                          "ex:Widget a owl:Class .\n", csv="id,title\n1,Ann\n2,Bo\n3,Cy\n")
    assert rows == [("title", "dct:title", "ex:Widget", "http://example.org/widget/{id}", None)]


def test_the_vocabularys_own_naming_property_wins(tmp_path):
    rows = _map(tmp_path, 'dct:title a owl:AnnotationProperty .\nex:Widget a owl:Class ; rdfs:label "widget" .\n')
    assert rows == [("name", "rdfs:label", "ex:Widget", "http://example.org/widget/{id}", None)]


def test_records_no_property_fits_get_a_class_only_row():
    result, rows = map_lexically("mapper-vocabulary-of-classes-only")
    got = [(r.data_reference, r.source_file, r.ontology_property, r.entity_class, r.subject_template, r.review)
           for r in rows]
    assert got == [("name", "alloys.csv", "skos:prefLabel", "mat:Alloy", "http://example.org/alloy/{id}", None),
                   (None, "elements.csv", None, "mat:ChemicalElement",
                    "http://example.org/chemicalElement/{atomic_number}", None)]
    assert rows[1].class_only and rows[1].evidence[0] == "confidence: entity evidence, raw 0.409"
    assert not [f for f in result.provenance["findings"] if "no entity for" in f["message"]]
