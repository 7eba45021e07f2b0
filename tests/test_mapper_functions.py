"""Transformation functions the offline mapper proposes: date normalisation and the case rule of a range pattern."""
from __future__ import annotations

from pipeline.manifest import Case, Source
from pipeline.mappers import get_mapper, map_case

ONTOLOGY = """@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Event a owl:Class ; rdfs:label "event" .
ex:date a owl:DatatypeProperty ; rdfs:label "date" ; rdfs:domain ex:Event ; rdfs:range xsd:date .
ex:title a owl:DatatypeProperty ; rdfs:label "title" ; rdfs:domain ex:Event ;
    rdfs:range [ a rdfs:Datatype ; owl:onDatatype xsd:string ;
                 owl:withRestrictions ( [ xsd:pattern "^([A-Z][a-z]*)(\\\\s[A-Z][a-z]*)*$" ] ) ] .
"""


def test_offline_mapper_proposes_todate_and_capitalize(tmp_path):
    (tmp_path / "events.csv").write_text("event_id,date,title\ne1,28/12/2020,summer fair\ne2,03/01/2021,book day\n",
                                         encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    case = Case("ev", (Source(tmp_path / "events.csv", "csv", None, "events.csv"),), (tmp_path / "onto.ttl",))
    rows = {r.ontology_property: r for r in map_case(get_mapper("offline"), case, use_embeddings=False).table}
    assert (rows["ex:date"].function_name, rows["ex:date"].datatype) == ("toDate()", "xsd:date")
    assert rows["ex:title"].function_name == "capitalize"
    assert "0% of the values as they are, 100% capitalised" in rows["ex:title"].evidence[-1]


def test_iso_dates_get_no_function(tmp_path):
    (tmp_path / "events.csv").write_text("event_id,date,title\ne1,2020-12-28,Fair\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(ONTOLOGY, encoding="utf-8")
    case = Case("ev", (Source(tmp_path / "events.csv", "csv", None, "events.csv"),), (tmp_path / "onto.ttl",))
    rows = {r.ontology_property: r for r in map_case(get_mapper("offline"), case, use_embeddings=False).table}
    assert rows["ex:date"].function_name is None and rows["ex:title"].function_name is None


def test_yes_no_column_becomes_a_normalised_boolean_in_the_kg(tmp_path):
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import XSD

    from pipeline.run.runner import RunConfig, run_case

    onto = ONTOLOGY + "ex:active a owl:DatatypeProperty ; rdfs:label \"active\" ; rdfs:domain ex:Event ; " \
                      "rdfs:range xsd:boolean .\n"
    (tmp_path / "events.csv").write_text("event_id,active\ne1,Yes\ne2,no\n", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(onto, encoding="utf-8")
    case = Case("ev", (Source(tmp_path / "events.csv", "csv", None, "events.csv"),), (tmp_path / "onto.ttl",))
    run = run_case(case, RunConfig(out_dir=tmp_path / "out", mapper="offline", evaluate=False,
                                   mapper_options={"use_embeddings": False}))
    assert run.status == "ok", run.error
    kg = Graph().parse(run.folder / "kg.nt")
    assert sorted(kg.objects(None, URIRef("http://example.org/active"))) == [
        Literal("false", datatype=XSD.boolean), Literal("true", datatype=XSD.boolean)]
