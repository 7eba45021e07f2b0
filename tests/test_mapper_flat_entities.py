"""A flat record (CSV columns) that opened a second entity by one column's name (``addressLocality``
-> a ``PostalAddress``) gives that entity the leftover columns that name its free properties at the
ordinary threshold, as the members of a nested object do: ``postalCode``, whose property has two
domains and so names no class alone, is that address's postal code."""
from __future__ import annotations

from pathlib import Path

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.confidence import basis_of

ONTOLOGY = """@prefix ex: <http://example.org/ev#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Event a owl:Class . ex:PostalAddress a owl:Class . ex:GeoShape a owl:Class .
ex:title a owl:DatatypeProperty ; rdfs:label "title" ; rdfs:domain ex:Event ; rdfs:range xsd:string .
ex:addressLocality a owl:DatatypeProperty ; rdfs:label "address locality" ; rdfs:domain ex:PostalAddress ;
    rdfs:range xsd:string .
ex:postalCode a owl:DatatypeProperty ; rdfs:label "postal code" ; rdfs:domain ex:PostalAddress, ex:GeoShape ;
    rdfs:range xsd:string .
ex:address a owl:ObjectProperty ; rdfs:label "address" ; rdfs:domain ex:Event ; rdfs:range ex:PostalAddress .
"""


def _map(tmp_path: Path, ontology: str, events_csv: str):
    """The offline mapper (lexically) on ``events.csv`` with ``ontology``: the table's rows."""
    (tmp_path / "o.ttl").write_text(ontology, encoding="utf-8")
    (tmp_path / "events.csv").write_text(events_csv, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: ev\nbase_iri: http://example.org/\nsources: [events.csv]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    return map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table


def test_a_leftover_column_of_a_flat_record_joins_the_second_entity_it_names(tmp_path: Path):
    rows = _map(tmp_path, ONTOLOGY, "event_id,title,addressLocality,postalCode\nE1,Jazz night,Madrid,28045\n"
                                    "E2,Film club,Salamanca,37700\nE3,Poetry slam,Madrid,28012\n")
    address = "http://example.org/postalAddress/{postalCode}"
    assert [(r.data_reference, r.ontology_property, r.entity_class, r.subject_template, basis_of(r)[0], r.review)
            for r in rows] == [
        ("title", "ex:title", "ex:Event", "http://example.org/event/{event_id}", "exact name", None),
        ("addressLocality", "ex:addressLocality", "ex:PostalAddress", address, "exact name", None),
        # keyed by its own identifier-named column, not by the locality two addresses share
        ("postalCode", "ex:postalCode", "ex:PostalAddress", address, "subject key", None),
        (None, "ex:address", "ex:Event", "http://example.org/event/{event_id}", "record", None),
    ]


def test_a_postal_code_shared_by_two_streets_keys_no_address(tmp_path: Path):
    """Three events of the city agenda (city-cultural-agenda-es, datos.csv) in Lorca, postal code 30800, at
    three streets: the identifier-named ``postalCode`` does not determine the street (nested.identifies), so
    it names no address; each event's address is keyed by the event (one entity per record), not merged
    into one address holding three streets."""
    ontology = ONTOLOGY.replace('ex:postalCode a', 'ex:streetAddress a owl:DatatypeProperty ; '
                                'rdfs:label "street address" ; rdfs:domain ex:PostalAddress ; rdfs:range xsd:string .\n'
                                'ex:postalCode a')
    rows = _map(tmp_path, ontology,
                "event_id,title,addressLocality,streetAddress,postalCode\n"
                "3423,Paquete especial Semana Santa,Lorca,CASTILLO FORTALEZA DEL SOL. S. X - XX,30800\n"
                "3403,EXPOSICIÓN CARTELES DE SEMANA SANTA LORCA,Lorca,C/ Lope Gisbert,30800\n"
                "3317,Visita teatralizada: EL SECRETO DEL IRLANDÉS,Lorca,\"Plaza de España, 7\",30800\n"
                "11578054,Antonio Lizana (Latina),Madrid,AVENIDA LAS AGUILAS 2,28044\n")
    assert sorted({(r.entity_class, r.subject_template) for r in rows}) == [
        ("ex:Event", "http://example.org/event/{event_id}"),
        ("ex:PostalAddress", "http://example.org/postalAddress/{event_id}")]
    assert sorted(r.data_reference for r in rows if r.entity_class == "ex:PostalAddress") == [
        "addressLocality", "postalCode", "streetAddress"]
