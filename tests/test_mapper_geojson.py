"""GeoJSON in the offline mapper (pipeline.mappers.offline.geojson) and the JSON suffixes of the manifest."""
from __future__ import annotations

import json

from pipeline.manifest import load_manifest
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.geojson import geojson_type_members, point_positions
from pipeline.sources.load import load_source


def _info(tmp_path, features: list, name: str = "f.geojson") -> SourceInfo:
    (tmp_path / name).write_text(json.dumps({"type": "FeatureCollection", "features": features}), encoding="utf-8")
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(f"sources: [{{path: {name}}}]\nontologies: [o.ttl]\n", encoding="utf-8")
    src = load_manifest(tmp_path / "c.yaml").sources[0]
    data = load_source(src, tmp_path)
    refs = [r for r in data.references if any(v.strip() for v in data.values(r))]
    return SourceInfo(data, src.path.name, src.stem, refs)


def _point(i, coords, kind="Point"):
    return {"type": "Feature", "id": f"S{i}", "geometry": {"type": kind, "coordinates": coords},
            "properties": {"name": f"n{i}"}}


def test_geojson_and_jsonld_suffixes_are_json(tmp_path):
    for name in ("a.geojson", "b.jsonld", "c.GeoJSON"):
        (tmp_path / name).write_text("[]", encoding="utf-8")
        (tmp_path / "c.yaml").write_text(f"sources: [{{path: {name}}}]\nontologies: [o.ttl]\n", encoding="utf-8")
        (tmp_path / "o.ttl").write_text("", encoding="utf-8")
        assert load_manifest(tmp_path / "c.yaml").sources[0].format == "json"


def test_a_point_position_is_read_element_by_element(tmp_path):
    info = _info(tmp_path, [_point(1, [4.89, 52.37]), _point(2, [4.94, 52.33])])
    assert point_positions(info) == {"geometry.coordinates": 2}
    assert sorted(geojson_type_members(info)) == ["geometry.type", "type"]
    assert info.data.values("geometry.coordinates[1]") == ["52.37", "52.33"]


def test_altitude_counts_and_positions_of_mixed_length_do_not(tmp_path):
    assert point_positions(_info(tmp_path, [_point(1, [4.89, 52.37, 3.0]), _point(2, [4.9, 52.3, 1])])) == {
        "geometry.coordinates": 3}
    assert point_positions(_info(tmp_path, [_point(1, [4.89, 52.37, 3.0]), _point(2, [4.9, 52.3])])) == {}


def test_other_geometries_are_no_position(tmp_path):
    # a LineString's coordinates are an array of positions (no values); a MultiPoint's too
    assert point_positions(_info(tmp_path, [_point(1, [[4.8, 52.3], [4.9, 52.4]], "LineString")])) == {}
    # "coordinates" beside a type that is no Point (a record's own array of two numbers)
    info = _info(tmp_path, [{"id": 1, "type": "room", "coordinates": [3, 4]}, {"id": 2, "type": "room", "coordinates": [5, 6]}],
                 "rooms.json")
    assert point_positions(info) == {}
    assert geojson_type_members(info) == []  # "room" is no GeoJSON type: the member may be data


def test_each_element_goes_to_the_property_its_place_names_or_is_a_warning(tmp_path):
    from rdflib import URIRef

    from pipeline.mappers.offline.geojson import assign_positions
    from pipeline.mappers.offline.names import NameMatcher
    from pipeline.ontology import load_ontology

    info = _info(tmp_path, [_point(1, [4.89, 52.37]), _point(2, [4.94, 52.33])])
    (tmp_path / "o.ttl").write_text(
        "@prefix geo: <http://www.w3.org/2003/01/geo/wgs84_pos#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "geo:SpatialThing a owl:Class . geo:lat a owl:DatatypeProperty ; rdfs:label \"latitude\" ; rdfs:domain geo:SpatialThing ;"
        " rdfs:range xsd:decimal .\n", encoding="utf-8")
    ont = load_ontology([tmp_path / "o.ttl"])
    geo = "http://www.w3.org/2003/01/geo/wgs84_pos#"
    info.cls = URIRef(geo + "SpatialThing")
    lat = URIRef(geo + "lat")
    notes = assign_positions(info, ont, NameMatcher(ont, use_embeddings=False), [lat], point_positions(info))
    assert [(a.reference, a.prop) for a in info.assignments] == [("geometry.coordinates[1]", lat)]
    assert [n.message for n in notes] == [
        "'geometry.coordinates[0]' of f.geojson (the longitude of each Point, RFC 7946 section 3.1.1) is not mapped: "
        "no free property of geo:SpatialThing is named as a longitude"]
