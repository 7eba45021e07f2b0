"""Real vocabularies load as a person would expect: the syntax of the content, local imports, universal
domains, RDFS's own properties, schema.org's domainIncludes/rangeIncludes, one graph like rdflib's."""
from __future__ import annotations

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.errors import OntologyError
from pipeline.ontology import load_ontology, sniff_syntax

EX = "http://example.org/o#"
HEAD = ("@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n")


def test_an_owl_file_holding_turtle_is_read_as_turtle_with_a_note(tmp_path):
    f = tmp_path / "onto.owl"  # .owl is RDF/XML by its extension
    f.write_text(HEAD + "ex:Person a owl:Class .\n", encoding="utf-8")
    onto = load_ontology([f])
    assert URIRef(EX + "Person") in onto.classes
    assert onto.notes == [f"{f}: the file holds Turtle, not the RDF/XML its extension '.owl' names; read as Turtle"]


def test_syntax_is_sniffed_from_the_first_characters():
    assert sniff_syntax("# a comment\n@prefix ex: <http://e/> .") == "turtle"
    assert sniff_syntax("PREFIX ex: <http://e/>") == "turtle"
    assert sniff_syntax("<http://e/a> <http://e/b> <http://e/c> .") == "turtle"
    assert sniff_syntax('<?xml version="1.0"?>\n<!-- x -->\n<rdf:RDF xmlns:rdf="...">') == "xml"
    assert sniff_syntax('<?xml version="1.0"?>\n<Ontology xmlns="http://www.w3.org/2002/07/owl#">') is None  # OWL/XML
    assert sniff_syntax("Prefix(:=<http://e/>)\nOntology(") is None  # functional syntax
    assert sniff_syntax('{"@context": {}}') == "json-ld"


def test_the_fast_loader_gives_the_graph_rdflib_gives(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(HEAD + 'ex:Person a owl:Class ; rdfs:label "Person"@en, "Persona"@es ; rdfs:comment "plain" .\n'
                 'ex:age a owl:DatatypeProperty ; rdfs:range xsd:integer ; ex:weight "1.5"^^xsd:decimal .\n'
                 'ex:Adult rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:age ; owl:someValuesFrom '
                 '[ owl:unionOf ( ex:Person ex:Thing ) ] ] .\n<rel> a owl:Class .\n', encoding="utf-8")
    onto = load_ontology([f])
    assert isomorphic(onto.graph, Graph().parse(f))
    assert (URIRef(EX + "Person"), RDFS.comment, Literal("plain")) in onto.graph
    assert onto.prefixes["ex"] == EX and onto.prefix_origin["ex"] == "declared"
    assert f.resolve().parent.joinpath("rel").as_uri() in {str(c) for c in onto.classes}  # base: the file


def test_imports_resolve_from_the_given_files_and_a_catalog_and_name_the_rest(tmp_path):
    (tmp_path / "a.ttl").write_text(HEAD + "<http://example.org/a> a owl:Ontology ; owl:imports <http://example.org/b> ,"
                                    " <http://example.org/c> , <http://example.org/d> .\nex:A a owl:Class .\n",
                                    encoding="utf-8")
    (tmp_path / "b.ttl").write_text(HEAD + "<http://example.org/b> a owl:Ontology .\nex:B a owl:Class .\n",
                                    encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "c.ttl").write_text(HEAD + "<http://example.org/c> a owl:Ontology .\nex:C a owl:Class .\n",
                                            encoding="utf-8")
    (tmp_path / "catalog-v001.xml").write_text(
        '<?xml version="1.0"?>\n<catalog prefer="public" xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n'
        '  <uri name="http://example.org/c" uri="lib/c.ttl"/>\n</catalog>\n', encoding="utf-8")
    onto = load_ontology([tmp_path / "a.ttl", tmp_path / "b.ttl"])
    assert {URIRef(EX + c) for c in "ABC"} <= onto.classes
    assert onto.files[-1] == str((tmp_path / "lib" / "c.ttl").resolve())
    assert onto.notes == [f"{tmp_path / 'a.ttl'}: owl:imports <http://example.org/d> is not resolved: no given file is "
                          f"that ontology and {tmp_path / 'catalog-v001.xml'} maps no such IRI, so its terms are not "
                          "loaded (nothing is fetched from the network); add its file to the manifest's ontologies to "
                          "use them"]


def _importer(folder):
    (folder / "a.ttl").write_text(HEAD + "<http://example.org/a> a owl:Ontology ; owl:imports <http://example.org/c> ."
                                  "\nex:A a owl:Class .\n", encoding="utf-8")
    (folder / "c.ttl").write_text(HEAD + "<http://example.org/c> a owl:Ontology .\nex:C a owl:Class .\n",
                                  encoding="utf-8")
    return folder / "a.ttl"


def test_a_catalog_that_is_not_well_formed_is_bad_input_naming_its_line(tmp_path):
    a = _importer(tmp_path)
    (tmp_path / "catalog-v001.xml").write_text(
        '<?xml version="1.0"?>\n<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n'
        '  <uri name="http://example.org/c" uri="c.ttl"/>\n  <uri name="http://example.org/t?a=1&b=2" uri="t.ttl"/>\n'
        '</catalog>\n', encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([a])
    assert err.value.path == str(tmp_path / "catalog-v001.xml") and err.value.line == 4
    assert "the XML catalog is not well-formed XML (EntityRef: expecting ';')" in str(err.value)


def test_a_broken_catalog_no_import_needs_is_not_read(tmp_path):
    (tmp_path / "catalog-v001.xml").write_text("<catalog", encoding="utf-8")
    f = tmp_path / "a.ttl"
    f.write_text(HEAD + "ex:A a owl:Class .\n", encoding="utf-8")
    assert load_ontology([f]).notes == []


def test_a_catalog_in_another_namespace_or_mapping_a_missing_file_is_named(tmp_path):
    a = _importer(tmp_path)
    cat = tmp_path / "catalog-v001.xml"
    cat.write_text('<catalog xmlns="urn:oasis:names:tc:entity:xmlns:tr9401:catalog">\n'
                   '  <uri name="http://example.org/c" uri="c.ttl"/>\n</catalog>\n', encoding="utf-8")
    note = load_ontology([a]).notes[0]
    assert (f"and {cat} holds no <uri> entry in the XML Catalogs namespace urn:oasis:names:tc:entity:xmlns:xml:catalog "
            "(its root <catalog> is in the namespace urn:oasis:names:tc:entity:xmlns:tr9401:catalog; OASIS XML "
            "Catalogs 1.1, section 6.1), so its terms are not loaded") in note
    cat.write_text('<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n'
                   '  <uri name="http://example.org/c" uri="lib/c.ttl"/>\n</catalog>\n', encoding="utf-8")
    note = load_ontology([a]).notes[0]
    assert f"and the catalog maps it to {tmp_path / 'lib' / 'c.ttl'}, which does not exist, so" in note
    cat.write_text('<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n'
                   '  <uri name="http://example.org/c" uri="c.ttl"/>\n</catalog>\n', encoding="utf-8")
    onto = load_ontology([a])
    assert onto.notes == [] and URIRef(EX + "C") in onto.classes


def test_universal_and_union_domains(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(HEAD + "ex:A a owl:Class . ex:B a owl:Class .\n"
                 "ex:name a owl:DatatypeProperty ; rdfs:domain owl:Thing .\n"
                 "ex:note a owl:DatatypeProperty ; rdfs:domain rdfs:Resource .\n"
                 "ex:both a owl:DatatypeProperty ; rdfs:domain [ owl:unionOf ( ex:A ex:B ) ] .\n", encoding="utf-8")
    onto = load_ontology([f])
    assert onto.domains(URIRef(EX + "name")) == set() and onto.domains(URIRef(EX + "note")) == set()
    assert onto.domains(URIRef(EX + "both")) == {URIRef(EX + "A"), URIRef(EX + "B")}
    assert OWL.Thing not in onto.classes and RDFS.Resource not in onto.classes


def test_a_union_holding_owl_thing_restricts_nothing(tmp_path):
    """The Software Description Ontology 1.9.0 (software-metadata-somef) declares ``sd:description`` with the
    domain ``owl:unionOf (owl:Thing sd:Software sd:SourceCode ...)``: a union holding owl:Thing is owl:Thing,
    so the property has no domain (usable on any class), where flattening the union kept its other members.
    A second domain statement still restricts (domains intersect: Thing and Software is Software); a range
    union holding owl:Thing is no range."""
    sd = "https://w3id.org/okn/o/sd#"
    f = tmp_path / "sd.ttl"
    f.write_text("@prefix : <https://w3id.org/okn/o/sd#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                 "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix rdf: "
                 "<http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
                 ":Software a owl:Class . :SourceCode a owl:Class . :Person a owl:Class .\n"
                 ":description rdf:type owl:DatatypeProperty ; rdfs:subPropertyOf <http://schema.org/description> ;\n"
                 "  rdfs:domain [ rdf:type owl:Class ; owl:unionOf ( owl:Thing :Person :Software :SourceCode ) ] .\n"
                 ":license rdf:type owl:DatatypeProperty ;\n"
                 "  rdfs:domain [ rdf:type owl:Class ; owl:unionOf ( :Software :SourceCode ) ] .\n"
                 ":note rdf:type owl:DatatypeProperty ; rdfs:domain :Software ;\n"
                 "  rdfs:domain [ owl:unionOf ( owl:Thing :Person ) ] .\n"
                 ":author rdf:type owl:ObjectProperty ; rdfs:range [ owl:unionOf ( :Person owl:Thing ) ] .\n",
                 encoding="utf-8")
    onto = load_ontology([f])
    assert onto.domains(URIRef(sd + "description")) == set()
    assert onto.domains(URIRef(sd + "license")) == {URIRef(sd + "Software"), URIRef(sd + "SourceCode")}
    assert onto.domains(URIRef(sd + "note")) == {URIRef(sd + "Software")}
    assert onto.ranges(URIRef(sd + "author")) == set()


def test_rdfs_label_is_a_property_of_every_vocabulary(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(HEAD + "ex:A a owl:Class .\n", encoding="utf-8")
    onto = load_ontology([f])
    assert onto.kind(RDFS.label) == "property" and onto.kind(RDFS.comment) == "property"
    assert onto.ranges(RDFS.label) == {RDFS.Literal} and onto.domains(RDFS.label) == set()
    assert RDFS.label not in onto.properties  # declared terms only; the audit asks kind()


def test_schema_org_domain_and_range_includes_with_datatypes(tmp_path):
    f = tmp_path / "schema.ttl"
    f.write_text("@prefix schema: <http://schema.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                 "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
                 "schema:Event a rdfs:Class . schema:Place a rdfs:Class . schema:DataType a rdfs:Class ; "
                 "rdfs:subClassOf rdfs:Class .\nschema:Date a schema:DataType, rdfs:Class .\n"
                 "schema:DateTime a schema:DataType, rdfs:Class .\n"
                 "schema:startDate a rdf:Property ; schema:domainIncludes schema:Event ; "
                 "schema:rangeIncludes schema:Date, schema:DateTime .\n"
                 "schema:location a rdf:Property ; schema:domainIncludes schema:Event ; "
                 "schema:rangeIncludes schema:Place, schema:Text .\n", encoding="utf-8")
    onto = load_ontology([f])
    assert onto.notes == []
    s = "http://schema.org/"
    assert onto.domains(URIRef(s + "startDate")) == {URIRef(s + "Event")}
    assert onto.ranges(URIRef(s + "startDate")) == {XSD.date, XSD.dateTime}
    assert onto.ranges(URIRef(s + "location")) == {URIRef(s + "Place"), XSD.string}
    assert URIRef(s + "Date") not in onto.classes and onto.is_datatype(URIRef(s + "Text"))


def test_schema_org_terms_of_the_other_scheme_are_read_in_the_given_one(tmp_path):
    (tmp_path / "schema.ttl").write_text("@prefix schema: <http://schema.org/> . "
                                         "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                                         "schema:Event a rdfs:Class .\n", encoding="utf-8")
    (tmp_path / "agenda.ttl").write_text(HEAD + "ex:Fiesta a owl:Class ; rdfs:subClassOf <https://schema.org/Event> .\n",
                                         encoding="utf-8")
    onto = load_ontology([tmp_path / "schema.ttl", tmp_path / "agenda.ttl"])
    assert URIRef("http://schema.org/Event") in onto.superclasses(URIRef(EX + "Fiesta"))
    assert onto.notes == [f"{tmp_path / 'agenda.ttl'}: schema.org terms written <https://schema.org/...> read as "
                          "<http://schema.org/...>, the scheme of the given schema.org vocabulary (schema.org treats "
                          "both as one term)"]


def test_equivalent_classes_and_properties_share_hierarchy_and_domains(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(HEAD + "ex:A a owl:Class ; owl:equivalentClass ex:B . ex:B rdfs:subClassOf ex:C .\n"
                 "ex:p rdfs:domain ex:C . ex:q owl:equivalentProperty ex:p .\n", encoding="utf-8")
    onto = load_ontology([f])
    assert onto.superclasses(URIRef(EX + "A")) == {URIRef(EX + c) for c in "ABC"}
    assert onto.domains(URIRef(EX + "q")) == {URIRef(EX + "C")}
    assert (URIRef(EX + "A"), RDF.type, OWL.Class) in onto.graph


def test_a_domainless_datatype_property_belongs_to_the_one_class_of_its_vocabulary(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(HEAD + "@prefix o: <http://example.org/other#> . @prefix f: <http://xmlns.com/foaf/0.1/> .\n"
                 "@prefix d: <http://purl.org/dc/terms/> .\n"
                 "<http://example.org/o> a owl:Ontology . <http://example.org/other> a owl:Ontology .\n"
                 "ex:Quake a owl:Class .\n"
                 "ex:magnitude a owl:DatatypeProperty ; rdfs:range xsd:float .\n"
                 "ex:ml rdfs:subPropertyOf ex:magnitude ; a owl:DatatypeProperty .\n"
                 "ex:everywhere a owl:DatatypeProperty ; rdfs:domain owl:Thing .\n"
                 "ex:thingy rdfs:subPropertyOf ex:everywhere ; a owl:DatatypeProperty .\n"
                 "ex:partOf a owl:ObjectProperty .\n"
                 "ex:note a owl:AnnotationProperty .\n"
                 "o:A a owl:Class . o:B a owl:Class . o:size a owl:DatatypeProperty .\n"
                 "o:Map rdfs:subClassOf f:Document . f:name a owl:DatatypeProperty .\n"
                 "d:Agent a owl:Class . d:identifier a owl:DatatypeProperty .\n", encoding="utf-8")
    onto = load_ontology([f])
    quake = URIRef(EX + "Quake")
    assert onto.vocabulary_class(URIRef(EX + "magnitude")) == quake
    assert onto.vocabulary_class(URIRef(EX + "ml")) == quake  # its super-property has no domain either
    assert onto.domains(URIRef(EX + "magnitude")) == set()  # a reading of the vocabulary, not a domain
    # a domain written (owl:Thing: "of anything"), also on a super-property; no datatype property
    for p in ("everywhere", "thingy", "partOf", "note"):
        assert onto.vocabulary_class(URIRef(EX + p)) is None, p
    assert onto.vocabulary_class(URIRef("http://example.org/other#size")) is None  # two classes
    # foaf:Document is only named as a superclass: FOAF has no described class here
    assert onto.vocabulary_class(URIRef("http://xmlns.com/foaf/0.1/name")) is None
    # one class, but no owl:Ontology of that namespace: a fragment of a vocabulary, whose classes are not all here
    assert onto.vocabulary_class(URIRef("http://purl.org/dc/terms/identifier")) is None


def test_undescribed_equivalents():
    """A class only declared and stated equivalent to a described class; two bare equivalents are neither."""
    from rdflib import Graph, URIRef
    from pipeline.ontology import Ontology
    onto = Ontology(Graph().parse(format="turtle", data="""
@prefix ex: <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Person a rdfs:Class ; rdfs:label "Person" ; owl:equivalentClass ex:Human .
ex:Human a rdfs:Class .
ex:A a rdfs:Class ; owl:equivalentClass ex:B . ex:B a rdfs:Class .
ex:C a rdfs:Class ; owl:equivalentClass ex:D . ex:D a rdfs:Class . ex:p rdfs:domain ex:D .
"""))
    ex = lambda n: URIRef("http://ex.org/" + n)  # noqa: E731
    assert onto.undescribed_equivalents == {ex("Human"), ex("C")}  # ex:D is described by a domain
    assert onto.equivalents(ex("Human")) == onto.equivalents(ex("Person")) == {ex("Human"), ex("Person")}
    assert onto.equivalents(ex("A")) == {ex("A"), ex("B")}
