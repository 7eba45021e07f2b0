"""Which XML sources the offline mapper reads as one document (:func:`is_document`), and the reasons
it gives for a column it leaves out (:mod:`pipeline.mappers.offline.unmapped`)."""
from __future__ import annotations

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.xmldoc import is_document
from pipeline.sources.load import load_source

from helpers import case_folder

_ONT = """@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Event a owl:Class ; rdfs:label "event"@en .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Event ; rdfs:range xsd:string ; rdfs:label "name"@en .
ex:venue a owl:DatatypeProperty ; rdfs:domain ex:Event ; rdfs:range xsd:string ; rdfs:label "venue"@en .
"""


def _info(folder, manifest: str) -> SourceInfo:
    src = load_manifest(folder / manifest).sources[0]
    data = load_source(src, folder)
    refs = [r for r in data.references if any(v.strip() for v in data.values(r))]
    return SourceInfo(data, src.path.name, src.stem, refs)


def test_a_file_of_several_records_is_no_document_whatever_its_optional_children():
    folder = case_folder("xml-optional-child-collapses-mapper")
    for manifest in ("c.yaml", "c2.yaml", "c3.yaml"):  # with the note, without it, values as child elements
        info = _info(folder, manifest)
        assert len(info.data.records) == 2 and not is_document(info), manifest


def test_a_deep_child_inside_a_repeated_element_of_a_one_record_file_makes_no_document():
    info = _info(case_folder("xml-optional-child-collapses-mapper"), "m1.yaml")
    assert len(info.data.records) == 1 and "m:loans/m:loan/m:note" in info.refs and not is_document(info)


def test_a_file_that_is_one_nested_record_is_a_document():
    info = _info(case_folder("xml-document-key-constant"), "case.yaml")
    assert len(info.data.records) == 1 and is_document(info)


def _map(tmp_path, xml: str):
    (tmp_path / "o.ttl").write_text(_ONT, encoding="utf-8")
    (tmp_path / "e.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: e\nscenario: t\nbase_iri: http://example.org/\n"
                                        "sources: [e.xml]\nontologies: [o.ttl]\n", encoding="utf-8")
    result = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    return list(result.table), [f["message"] for f in result.provenance["findings"]]


def test_a_documents_attribute_left_out_is_said_to_be_read_as_a_qualifier(tmp_path):
    rows, messages = _map(tmp_path, '<n:Notice xmlns:n="urn:n"><n:ID>N1</n:ID><n:Event><n:Info><n:Name>Fair'
                                    '</n:Name></n:Info><n:Place venue="Tate"/></n:Event></n:Notice>')
    assert [(r.data_reference, r.ontology_property) for r in rows] == [("/n:Notice/n:Event/n:Info/n:Name", "ex:name")]
    venue = [m for m in messages if "'n:Event/n:Place/@venue'" in m]
    assert len(venue) == 1
    assert ("ex:venue (similarity 0.83; not assigned: the file is read as one document, whose attributes qualify "
            "their element") in venue[0]
    assert not any("better-scoring" in m for m in messages)


def test_a_free_property_is_not_said_to_be_taken_by_a_better_column(tmp_path):
    """The last reason of a candidate no rule took: no other column took the property nor matched it
    better, so the reason says that, not that another one won."""
    from rdflib import URIRef
    from pipeline.mappers.offline.names import NameMatcher
    from pipeline.mappers.offline.unmapped import _candidates
    from pipeline.ontology import load_ontology
    from pipeline.table import MappingRow

    (tmp_path / "o.ttl").write_text(_ONT, encoding="utf-8")
    (tmp_path / "e.csv").write_text("id,name,venue\n1,Fair,Tate\n2,Expo,Prado\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: e\nscenario: t\nsources: [e.csv]\nontologies: [o.ttl]\n",
                                        encoding="utf-8")
    info = _info(tmp_path, "case.yaml")
    ont = load_ontology([tmp_path / "o.ttl"])
    info.cls = URIRef("http://example.org/o#Event")
    rows = [MappingRow(data_reference="name", source_file="e.csv", ontology_property="ex:name",
                       entity_class="ex:Event", subject_template="http://example.org/event/{id}")]
    ex = "http://example.org/o#"
    found = _candidates(info, "venue", ont, NameMatcher(ont, False), [URIRef(ex + "name"), URIRef(ex + "venue")], rows)
    assert found[0] == ("ex:venue (similarity 1.00; not assigned, though no other column took it: no entity the "
                        "mapper made for the records takes it)")
    assert found[1:] == ["ex:name (similarity 0.44 below 0.45)"]
