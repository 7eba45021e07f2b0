"""The offline mapper's record class: the class that the rdfs:domain of the records' attribute columns
entails, when the class their file name suggests has no column of its own."""
from __future__ import annotations

from helpers import kgc_run, map_lexically, table_rows


def test_the_domain_of_an_attribute_column_is_the_record_class(tmp_path):
    result, rows = map_lexically("class-entailed-by-attributes")
    assert [(r.data_reference, r.ontology_property, r.entity_class, r.subject_template) for r in rows] == [
        ("album_name", "mu:name", "mu:Record", "http://example.org/data/record/{album_id}"),
        ("album_release_date", "mu:releaseDate", "mu:Record", "http://example.org/data/record/{album_id}"),
    ]
    evidence = result.provenance["sources"][0]["class_evidence"]
    assert "'album_release_date' names mu:releaseDate" in evidence and "mu:ReleaseType" in evidence
    out = kgc_run(tmp_path, "class-entailed-by-attributes")
    assert table_rows(out / "table.md")[1][:4] == ("album_release_date", "albums.csv", "mu:releaseDate", "mu:Record")
    D, M, T = "http://example.org/data/record/", "http://example.org/music#", \
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    kg = set((out / "kg.nt").read_text(encoding="utf-8").splitlines())
    expected = set()
    for key, name, date in (("2oCs0DGTsRO98Gh5ZSl2Cx", "Memories (Remix)", "2019-06-14"),
                            ("63rPSO264uRjW1X5E6cWv6", "Blue Hour", "2019-12-13"),
                            ("1z2GmlMzw5ugHWvAyvDDBy", "Night Drive", "2011")):
        expected |= {f"<{D}{key}> <{T}> <{M}Record> .", f'<{D}{key}> <{M}name> "{name}" .',
                     f'<{D}{key}> <{M}releaseDate> "{date}" .'}
    assert kg == expected


def test_a_text_column_of_another_class_does_not_retype_the_records(tmp_path):
    # a city name is a text that may name another entity: the records stay what their name says
    case = tmp_path / "case"
    case.mkdir()
    (case / "people.csv").write_text("person_id,full_name,city_name\nP1,Ada Byron,London\nP2,Alan Turing,Wilmslow\n",
                                     encoding="utf-8")
    (case / "o.ttl").write_text(
        "@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:Person a owl:Class ; rdfs:label \"Person\" . ex:City a owl:Class ; rdfs:label \"City\" .\n"
        "ex:fullName a owl:DatatypeProperty ; rdfs:label \"name\" ; rdfs:range xsd:string .\n"
        "ex:cityName a owl:DatatypeProperty ; rdfs:label \"city name\" ; rdfs:domain ex:City ; rdfs:range xsd:string .\n",
        encoding="utf-8")
    (case / "case.yaml").write_text("name: people\nbase_iri: http://example.org/data/\nsources: [{path: people.csv}]\n"
                                    "ontologies: [o.ttl]\n", encoding="utf-8")
    from pipeline.manifest import load_manifest
    from pipeline.mappers import get_mapper, map_case
    rows = list(map_case(get_mapper("offline"), load_manifest(case / "case.yaml"), use_embeddings=False).table)
    assert ("full_name", "ex:Person") in {(r.data_reference, r.entity_class) for r in rows}
