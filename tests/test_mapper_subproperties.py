"""The offline mapper reads what a vocabulary says about its own properties: a column named by a property and by
its sub-property takes the sub-property (rdfs7: it entails the other), and a property labelled in several languages
names an identifier scheme only when each of its names does."""
from __future__ import annotations

import json

from rdflib import URIRef

from pipeline.mappers.offline.identity import names_another_scheme
from pipeline.mappers.offline.names import NameMatcher
from pipeline.ontology import load_ontology

from helpers import map_files

PREFIXES = ("@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            "@prefix schema: <http://schema.org/> . @prefix dct: <http://purl.org/dc/terms/> .\n")

# the shape of the Software Description Ontology: its own properties are sub-properties of schema.org's, which
# the file declares without domain, range or label
SOFTWARE = PREFIXES + """
ex:Software a owl:Class ; rdfs:label "software" .
schema:description a owl:DatatypeProperty .
schema:name a owl:DatatypeProperty .
schema:dateCreated a owl:DatatypeProperty .
ex:description a owl:DatatypeProperty ; rdfs:subPropertyOf schema:description ; rdfs:domain ex:Software ;
    rdfs:range xsd:string ; rdfs:label "description" ;
    rdfs:comment "A description of the software: what it does, for whom, and how it is used in practice." .
ex:dateCreated a owl:DatatypeProperty ; rdfs:subPropertyOf schema:dateCreated ; rdfs:domain ex:Software ;
    rdfs:range xsd:dateTime ; rdfs:label "date created" ;
    rdfs:comment "Date when the software was first released by its authors to the public." .
ex:shortName a owl:DatatypeProperty ; rdfs:subPropertyOf schema:name ; rdfs:domain ex:Software ;
    rdfs:range xsd:string ; rdfs:label "short name" .
"""


_map = map_files


def test_a_column_named_by_a_property_and_its_sub_property_takes_the_sub_property(tmp_path):
    records = [{"id": f"s{i}", "name": n, "description": d, "dateCreated": t} for i, (n, d, t) in enumerate((
        ("morph-kgc", "Scalable knowledge graph construction with RML mappings", "2020-11-11T11:54:10"),
        ("rdflib", "A Python library for working with RDF graphs and SPARQL", "2009-05-02T10:00:00"),
        ("somef", "Extracts metadata of software from its README files", "2019-03-20T09:30:00")))]
    rows = _map(tmp_path, {"onto.ttl": SOFTWARE, "software.json": json.dumps(records)},
                "name: s\nsources: [software.json]\nontologies: [onto.ttl]\n")
    assert {r: (rows[r]["ontology_property"], rows[r]["entity_class"], rows[r]["datatype"])
            for r in ("description", "dateCreated")} == {
        "description": ("ex:description", "ex:Software", "xsd:string"),
        "dateCreated": ("ex:dateCreated", "ex:Software", "xsd:dateTime")}
    assert any("a sub-property of schema:description" in e and "rdfs7" in e for e in rows["description"]["evidence"])
    # the super-property, which the row states too, is no other property naming the column better: not marked
    assert [e for e in rows["description"]["evidence"] if e.startswith("features:")] == [
        "features: exact 1, margin 0.421, own 1"]
    assert rows["description"]["review"] is None
    # 'name' is no word-for-word name of ex:shortName ("short name"): the column keeps schema:name
    assert rows["name"]["ontology_property"] == "schema:name"


def test_a_label_in_another_language_names_no_identifier_scheme(tmp_path):
    (tmp_path / "onto.ttl").write_text(PREFIXES + """
ex:Event a owl:Class ; rdfs:label "event" .
dct:identifier a owl:DatatypeProperty ; rdfs:label "Identifier"@en, "identificador"@es .
ex:orcid a owl:DatatypeProperty ; rdfs:label "ORCID identifier"@en, "identificador ORCID"@es .
ex:uuid a owl:DatatypeProperty ; rdfs:label "universally unique identifier" .
""", encoding="utf-8")
    ontology = load_ontology([tmp_path / "onto.ttl"])
    matcher = NameMatcher(ontology, use_embeddings=False)
    event = URIRef("http://example.org/o#Event")
    identifier, orcid = URIRef("http://purl.org/dc/terms/identifier"), URIRef("http://example.org/o#orcid")
    # dct:identifier's local name and English label are the generic word: the Spanish label translates it
    assert names_another_scheme(matcher, "identifier", identifier, event) is False
    # every name of ex:orcid names the ORCID scheme, which the data set's own key does not
    assert names_another_scheme(matcher, "identifier", orcid, event) is True
    assert names_another_scheme(matcher, "orcid_id", orcid, event) is False
    # a local name that abbreviates the label is no name of its own: the label names the UUID scheme
    assert names_another_scheme(matcher, "album_id", URIRef("http://example.org/o#uuid"), event) is True
