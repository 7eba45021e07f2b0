"""A column whose values are all among a unique text column of another source that its name names
(``playlist_genre`` in ``genres.csv``'s ``genre_name``) is a foreign key by that alternate key: the
relation row joins on it, and the KG links each playlist to the genre entity keyed by its id."""
from __future__ import annotations

from pathlib import Path

from pipeline.cli import main
from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case

ONTOLOGY = """@prefix ex: <http://example.org/m#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Playlist a owl:Class . ex:Genre a owl:Class .
ex:name a owl:DatatypeProperty ; rdfs:label "name" ; rdfs:range xsd:string .
ex:genre a owl:ObjectProperty ; rdfs:label "genre" ; rdfs:domain ex:Playlist ; rdfs:range ex:Genre .
ex:subgenre a owl:ObjectProperty ; rdfs:label "subgenre" ; rdfs:domain ex:Playlist ; rdfs:range ex:Genre .
"""


def _case(tmp_path: Path, genres: str) -> Path:
    (tmp_path / "o.ttl").write_text(ONTOLOGY, encoding="utf-8")
    (tmp_path / "genres.csv").write_text(genres, encoding="utf-8")
    (tmp_path / "playlists.csv").write_text(
        "playlist_id,playlist_name,playlist_genre,playlist_subgenre\n"
        "p1,Pop Remix,pop,dance pop\np2,Rock Classics,rock,hard rock\np3,Dance Pop,pop,dance pop\n",
        encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: pl\nbase_iri: http://example.org/\n"
                                        "sources: [genres.csv, playlists.csv]\nontologies: [o.ttl]\n", encoding="utf-8")
    return tmp_path / "case.yaml"


def test_a_column_included_in_a_unique_name_column_of_the_source_it_names_is_joined_on_it(tmp_path):
    case = _case(tmp_path, "genre_id,genre_name\n0,pop\n1,rock\n2,dance pop\n3,hard rock\n")
    rows = list(map_case(get_mapper("offline"), load_manifest(case), use_embeddings=False).table)
    rel = sorted((r.data_reference, r.ontology_property, r.entity_class, r.related_entity_class, r.join_condition)
                 for r in rows if r.related_entity_class)
    assert rel == [
        ("playlist_genre", "ex:genre", "ex:Playlist", "ex:Genre", "playlists.playlist_genre==genres.genre_name"),
        # 'subgenre' names 'genres' by its head word
        ("playlist_subgenre", "ex:subgenre", "ex:Playlist", "ex:Genre",
         "playlists.playlist_subgenre==genres.genre_name"),
    ]
    assert main(["-q", "run", str(case), "--out", str(tmp_path / "out"), "--no-evaluate"]) in (0, 1)
    kg = next((tmp_path / "out").rglob("kg.nt")).read_text(encoding="utf-8")
    assert "<http://example.org/playlist/p2> <http://example.org/m#subgenre> <http://example.org/genre/3> ." in kg
    assert "<http://example.org/playlist/p1> <http://example.org/m#genre> <http://example.org/genre/0> ." in kg


def test_a_column_included_in_a_column_that_is_not_unique_is_no_foreign_key(tmp_path):
    # 'pop' names two genres: the value identifies neither
    case = _case(tmp_path, "genre_id,genre_name\n0,pop\n1,rock\n2,dance pop\n3,hard rock\n4,pop\n")
    rows = list(map_case(get_mapper("offline"), load_manifest(case), use_embeddings=False).table)
    assert not [r for r in rows if r.related_entity_class]
