"""Column names that match nothing (words of another language against an English vocabulary) invent no entity:
the record's class is then chosen by how the kinds of its values fit each class's ranges
(pipeline.mappers.offline.classes.choose_class), and a leftover text column opens an entity of a linked class only
when its name fits that entity better than any free text property of the record's own class
(pipeline.mappers.offline.properties._linked_entities). The offline mapper runs with its packaged embeddings."""
from __future__ import annotations

from pathlib import Path

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.confidence import basis_of

CASES = Path(__file__).resolve().parent / "cases"
TEAMS = """@prefix ex: <http://example.org/club#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Team a owl:Class ; rdfs:label "team" . ex:Person a owl:Class ; rdfs:label "person" .
ex:teamName a owl:DatatypeProperty ; rdfs:label "team name" ; rdfs:domain ex:Team ; rdfs:range xsd:string .
ex:founded a owl:DatatypeProperty ; rdfs:label "founded" ; rdfs:domain ex:Team ; rdfs:range xsd:gYear .
ex:fullName a owl:DatatypeProperty ; rdfs:label "full name" ; rdfs:domain ex:Person ; rdfs:range xsd:string .
ex:captain a owl:ObjectProperty ; rdfs:label "captain" ; rdfs:domain ex:Team ; rdfs:range ex:Person .
"""
MOTTO = 'ex:motto a owl:DatatypeProperty ; rdfs:label "motto" ; rdfs:domain ex:Team ; rdfs:range xsd:string .\n'
TEAMS_CSV = "team_name,Spielführer\nLions,Anna Berger\nTigers,Jonas Klein\nBears,Lea Wolf\n"


def _rows(tmp_path: Path, ontology: str, name: str, text: str) -> list[tuple]:
    (tmp_path / "o.ttl").write_text(ontology, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: x\nbase_iri: http://example.org/\nsources: [{name}]\n"
                                        "ontologies: [o.ttl]\n", encoding="utf-8")
    table = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=True).table
    return [(r.data_reference, r.ontology_property, r.entity_class, r.related_entity_class, basis_of(r)[0],
             r.review is not None) for r in table.rows]


def test_a_leftover_column_opens_a_linked_entity_when_its_name_fits_it_better_than_the_records_own_room(
        tmp_path: Path):
    # ex:Team's text property is taken by team_name: the captain's name can only be the linked ex:Person's
    # (BLINKG 1C: Student beside Sport)
    person = [("team_name", "ex:teamName", "ex:Team", None, "subject key", False),
              ("Spielführer", "ex:fullName", "ex:Person", None, "linked", False),
              (None, "ex:captain", "ex:Team", "ex:Person", "record", False)]
    assert _rows(tmp_path, TEAMS, "teams.csv", TEAMS_CSV) == person
    # a free text property of the team's own (ex:motto, 0.09) fits the name less than ex:Person does (0.31)
    (tmp_path / "motto").mkdir()
    assert _rows(tmp_path / "motto", TEAMS + MOTTO, "teams.csv", TEAMS_CSV) == person
    # Zweckbestimmung, a budget line's purpose, fits ex:BudgetLine's free ex:section (0.29) better than ex:Ministry,
    # ex:ofMinistry or ex:ministryName (0.22 at most): no ministry per purpose (was: one, asserted)
    case = CASES / "mapper-foreign-language-columns-invent-entities"
    (tmp_path / "budget").mkdir()
    rows = _rows(tmp_path / "budget", (case / "onto.ttl").read_text(encoding="utf-8"), "haushalt.csv",
                 (case / "haushalt.csv").read_text(encoding="utf-8"))
    assert {r[2] for r in rows} == {"ex:BudgetLine"}
    assert ("Zweckbestimmung", "ex:section", "ex:BudgetLine", None, "values", True) in rows


def test_the_class_of_records_whose_names_match_nothing_is_the_one_their_value_kinds_fit(tmp_path: Path):
    case = CASES / "mapper-foreign-language-columns-invent-entities"
    rows = _rows(tmp_path, (case / "gemeinden-onto.ttl").read_text(encoding="utf-8"), "gemeinden.csv",
                 (case / "gemeinden.csv").read_text(encoding="utf-8"))
    # (was: ex:BudgetLine by the file name's noise, gemeinden ~ ex:BudgetLine 0.33, with the population as its
    # ex:function and Gemeinde opening a linked ex:Municipality); the weak forced pairing of Gemeinde is for review
    assert rows == [("Gemeindeschlüssel", "ex:inseeCode", "ex:Municipality", None, "subject key", False),
                    ("Fläche km²", "ex:area", "ex:Municipality", None, "values", False),
                    ("Gemeinde", "ex:municipalityName", "ex:Municipality", None, "values", True)]
