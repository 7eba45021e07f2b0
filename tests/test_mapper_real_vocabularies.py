"""The offline mapper on data and vocabularies nobody here wrote: universal domains, schema.org, JSON-LD types,
labels from RDFS, generic file names, subclasses the data does not name, equivalent properties, language
attributes of XML elements, confidence and review marks."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pipeline.cli import main
from pipeline.mappers.offline.confidence import basis_of, calibrate_rows, calibrated, evidence_line
from pipeline.table import MappingRow, read_table

from helpers import map_files

CASES = Path(__file__).resolve().parent / "cases"
PREFIXES = ("@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix schema: <http://schema.org/> .\n"
            "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n")


_map = map_files


def test_a_property_with_an_owl_thing_domain_names_the_column_of_any_class(tmp_path):
    rows = _map(tmp_path, {
        "onto.ttl": PREFIXES + "ex:Artist a owl:Class .\nfoaf:name a owl:DatatypeProperty ; rdfs:domain owl:Thing ; "
                               "rdfs:label \"name\" .\nfoaf:birthday a owl:DatatypeProperty ; rdfs:domain ex:Artist .\n",
        "artists.csv": "artist_id,artist_name\nA1,Nina Simone\nA2,Miles Davis\nA3,Bill Evans\n"},
        "name: a\nsources: [artists.csv]\nontologies: [onto.ttl]\n")
    assert (rows["artist_name"]["ontology_property"], rows["artist_name"]["entity_class"]) == ("foaf:name", "ex:Artist")
    assert "exact name evidence" in rows["artist_name"]["evidence"][0]  # 'name' once the entity's word is off


def test_a_json_ld_type_states_the_class_and_is_no_property_value(tmp_path):
    features = [{"properties": {"@type": "http://schema.org/ParkingFacility", "name": n, "capacity": c}}
                for n, c in (("Gent", 40), ("Leuven", 12), ("Brugge", 30))]
    rows = _map(tmp_path, {
        "onto.ttl": PREFIXES + "schema:Place a rdfs:Class . schema:ParkingFacility a rdfs:Class ; rdfs:subClassOf "
                               "schema:Place .\nschema:Event a rdfs:Class .\nschema:name a rdf:Property ; "
                               "schema:domainIncludes schema:Place, schema:Event ; schema:rangeIncludes schema:Text .\n"
                               "schema:Text a rdfs:Class .\n",
        "stations.json": json.dumps({"features": features})},
        "name: s\nsources: [stations.json]\nontologies: [onto.ttl]\n")
    assert rows["properties.name"]["entity_class"] == "schema:ParkingFacility"
    assert rows["properties.name"]["ontology_property"] == "schema:name"
    assert rows["properties.name"]["datatype"] == "xsd:string"  # schema:Text
    assert "properties.@type" not in rows


def test_a_vocabulary_without_name_properties_labels_its_entities_with_rdfs_label(tmp_path):
    rows = _map(tmp_path, {
        "onto.ttl": PREFIXES + "ex:Country a owl:Class ; rdfs:label \"country\" .\n"
                               "ex:population a owl:DatatypeProperty ; rdfs:domain ex:Country ; rdfs:range xsd:integer .\n",
        "countryInfo.csv": "ISO,CountryName,Population\nAD,Andorra,84000\nAE,United Arab Emirates,4975593\nBE,Belgium,11000000\n"},
        "name: c\nsources: [countryInfo.csv]\nontologies: [onto.ttl]\n")
    assert (rows["CountryName"]["ontology_property"], rows["CountryName"]["entity_class"]) == ("rdfs:label", "ex:Country")
    assert "label evidence" in rows["CountryName"]["evidence"][0]
    assert rows["Population"]["ontology_property"] == "ex:population"


def test_a_generic_file_name_leaves_the_class_to_the_columns_and_a_subclass_must_be_named(tmp_path):
    onto = PREFIXES + ("schema:Thing a rdfs:Class . schema:Event a rdfs:Class ; rdfs:subClassOf schema:Thing .\n"
                       "schema:BroadcastEvent a rdfs:Class ; rdfs:subClassOf schema:Event .\n"
                       "schema:Dataset a rdfs:Class ; rdfs:subClassOf schema:Thing .\n"
                       "schema:name a rdf:Property ; schema:domainIncludes schema:Thing .\n"
                       "schema:startDate a rdf:Property ; schema:domainIncludes schema:Event .\n"
                       "schema:endDate a rdf:Property ; schema:domainIncludes schema:Event .\n"
                       "schema:isLiveBroadcast a rdf:Property ; schema:domainIncludes schema:BroadcastEvent .\n"
                       "schema:distribution a rdf:Property ; schema:domainIncludes schema:Dataset .\n")
    rows = _map(tmp_path, {"onto.ttl": onto, "datos.csv": "name,startDate,endDate,fileFormat\n"
                           "Concierto,2022-08-12,2022-08-13,HTML\nTeatro,2022-08-11,2022-08-11,PDF\n"},
                "name: d\nsources: [datos.csv]\nontologies: [onto.ttl]\n")
    assert rows["startDate"]["entity_class"] == "schema:Event"  # not Dataset ('datos'), not BroadcastEvent
    assert rows["startDate"]["ontology_property"] == "schema:startDate"


def test_of_equivalent_properties_the_described_one_is_proposed(tmp_path):
    rows = _map(tmp_path, {
        "onto.ttl": PREFIXES + "ex:Page a owl:Class .\nex:url a owl:DatatypeProperty ; rdfs:domain ex:Page ; "
                               "rdfs:label \"url\" ; rdfs:comment \"Where the page is.\" ; "
                               "owl:equivalentProperty <http://ogp.me/ns#url> .\n<http://ogp.me/ns#url> a rdf:Property .\n",
        "pages.csv": "id,url\n1,http://a.example/\n2,http://b.example/\n"},
        "name: p\nsources: [pages.csv]\nontologies: [onto.ttl]\n")
    assert rows["url"]["ontology_property"] == "ex:url"


def test_each_text_is_tagged_by_its_own_language_attribute(tmp_path):
    work = tmp_path / "case"
    shutil.copytree(CASES / "xml-language-attributes", work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    table = read_table(tmp_path / "t.md")
    tags = {r.data_reference: r.language_tag for r in table.rows}
    assert tags["cbc:Title"] == "{cbc:Title/@languageID}"
    assert tags["cbc:Description"] == "{cbc:Description/@languageID}"
    assert {r.data_reference: r.ontology_property for r in table.rows}["cbc:Amount/@currencyID"] == "ex:currency"
    assert not table.marked  # every text is tagged: nothing is left for a person to decide
    assert main(["-q", "compile", str(work / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    kg = (tmp_path / "kg.nt").read_text(encoding="utf-8")
    assert ('<http://example.org/notice/N-1> <http://example.org/p#description> '
            '"Travaux d\'entretien des routes nationales"@fr .') in kg
    assert '<http://example.org/notice/N-1> <http://example.org/p#title> "Road maintenance works"@en .' in kg


def test_confidence_is_read_off_the_calibration_and_low_rows_are_marked(tmp_path):
    table = {"name": [(0.4, 0.0), (0.8, 0.6), (0.95, 0.9)]}
    assert calibrated("name", 0.3, table) == 0.0 and calibrated("name", 0.99, table) == 0.9
    assert abs(calibrated("name", 0.6, table) - 0.3) < 1e-9  # linear between knots
    assert calibrated("label", 0.7, table) == 0.7  # no knots: the raw score
    rows = [MappingRow(data_reference="a", confidence=0.2, evidence=["x", evidence_line("name", 0.99)]),
            MappingRow(data_reference="b", confidence=0.9, evidence=[evidence_line("name", 0.6)]),
            MappingRow(data_reference="c", confidence=None),
            MappingRow(data_reference="d", confidence=0.4, evidence=[evidence_line("values", 0.2)])]
    calibrate_rows(rows, threshold=0.5, table=table)
    assert [r.review is None for r in rows] == [True, False, True, True]  # d: no knots, its score no probability
    assert [r.confidence for r in rows] == [0.9, 0.3, None, 0.4]
    assert rows[1].review == "confidence 0.30 < 0.50 (name evidence): check the property, class and values"
    assert basis_of(rows[0]) == ("name", 0.99) and rows[0].evidence[0] == "x"


def test_a_row_combining_two_repeated_xml_elements_is_marked_and_one_repeated_part_is_not(tmp_path):
    from pipeline.manifest import Source
    from pipeline.mappers.offline.rows import mark_cross_products
    from pipeline.sources.load import load_source
    (tmp_path / "lines.xml").write_text(
        "<Country><Code>IT</Code><Point><Name>Roma</Name><Id>1</Id></Point><Point><Name>Pisa</Name><Id>2</Id></Point>"
        "</Country>", encoding="utf-8")
    (tmp_path / "lines.json").write_text(json.dumps([{"code": "IT", "points": [{"name": "Roma", "id": "1"},
                                                                               {"name": "Pisa", "id": "2"}]}]),
                                         encoding="utf-8")
    xml = load_source(Source(tmp_path / "lines.xml", "xml", "/Country", "lines.xml"), tmp_path / "copies")
    js = load_source(Source(tmp_path / "lines.json", "json", "$[*]", "lines.json"), tmp_path / "copies")
    rows = [MappingRow(data_reference="Point/Name", source_file="lines.xml", subject_template="p/{Point/Id}"),
            MappingRow(data_reference="Code", source_file="lines.xml", subject_template="p/{Point/Id}"),
            MappingRow(data_reference="points.name", source_file="lines.json", subject_template="p/{points.id}")]
    (tmp_path / "fees.xml").write_text(
        '<Country><Code>IT</Code><Fee currency="EUR">5</Fee><Fee currency="USD">6</Fee><Tag>a</Tag><Tag>b</Tag></Country>', encoding="utf-8")
    fees = load_source(Source(tmp_path / "fees.xml", "xml", "/Country", "fees.xml"), tmp_path / "copies")
    rows += [MappingRow(data_reference="concat(Fee,Fee/@currency)", source_file="fees.xml", subject_template="c/{Code}"),
             MappingRow(data_reference="concat(Fee,Tag)", source_file="fees.xml", subject_template="c/{Code}")]
    mark_cross_products(rows, {"lines.xml": xml, "lines.json": js, "fees.xml": fees})
    # members of one repeated element: the compiler reads them per occurrence of Point
    assert (rows[0].review, rows[1].review, rows[2].review) == (None, None, None)  # one part; one; a JSON array
    assert rows[3].review is None  # a fee and its own currency attribute: the compiler pairs them per element
    assert rows[4].review.startswith("Fee, Tag each repeat")  # two elements: no pairing
