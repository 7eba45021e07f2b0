"""Mapping-level checks SV1, CS1, CN4, CM1 on small cases with known answers."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.ontology import Ontology, load_ontology
from pipeline.scoring.mapping import check_cm1, check_cn4, check_cs1, check_sv1
from pipeline.table import MappingRow, MappingTable

TTL = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
ex:Person a owl:Class ; rdfs:label "person" .
ex:Student a owl:Class ; rdfs:subClassOf ex:Person ; rdfs:label "student" .
ex:Sport a owl:Class ; owl:disjointWith ex:Person ; rdfs:label "sport" .
ex:Agent a owl:Class ; rdfs:label "agent" .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:string .
ex:age a owl:DatatypeProperty ; rdfs:domain ex:Person ; rdfs:range xsd:integer .
ex:sportname a owl:DatatypeProperty ; rdfs:domain ex:Sport ; rdfs:range xsd:string .
ex:practises a owl:ObjectProperty ; rdfs:domain ex:Person ; rdfs:range ex:Sport .
ex:memberOf a owl:ObjectProperty ; rdfs:domain ex:Agent .
"""


@pytest.fixture(scope="module")
def onto(tmp_path_factory: pytest.TempPathFactory) -> Ontology:
    path: Path = tmp_path_factory.mktemp("onto") / "ontology.ttl"
    path.write_text(TTL, encoding="utf-8")
    return load_ontology([path])


def row(prop: str | None, cls: str | None, *, ref: str | None = None, related: str | None = None,
        dt: str | None = None, tmpl: str | None = None, src: str | None = None, join: str | None = None,
        line: int = 0) -> MappingRow:
    return MappingRow(data_reference=ref, source_file=src, ontology_property=prop, entity_class=cls,
                      related_entity_class=related, datatype=dt, subject_template=tmpl, join_condition=join,
                      line=line)


def test_sv1_raw_and_similarity_based(onto: Ontology) -> None:
    table = MappingTable(rows=[
        row("ex:name", "ex:Person", ref="name", src="people.csv", dt="xsd:string", line=1),
        row("ex:sportnme", "ex:Persn", ref="salary", src="people.csv", dt="xsd:text", line=2),
        row("ex:age", "ex:Vehicle", ref="concat(name,age)", src="people.csv", dt="xsd:integer", line=3),
        row("ex:practises", "ex:Person", related="ex:Sport", dt="Object Property", line=4),
    ])
    res = check_sv1(table, onto, available_references={"people.csv": {"name", "age"}})
    c = res.criteria
    assert (c["property"]["applicable"], c["property"]["valid_raw"], c["property"]["valid_similar"]) == (4, 3, 4)
    assert (c["class"]["applicable"], c["class"]["valid_raw"], c["class"]["valid_similar"]) == (5, 3, 4)
    assert (c["datatype"]["applicable"], c["datatype"]["valid_raw"], c["datatype"]["valid_similar"]) == (3, 2, 2)
    dr = c["data_reference"]
    assert (dr["applicable"], dr["valid_raw"], dr["valid_similar"]) == (4, 3, 3)
    assert res.rate_raw == pytest.approx((3 / 4 + 3 / 5 + 2 / 3 + 3 / 4) / 4, abs=1e-12)
    assert res.rate_similar == pytest.approx((1 + 4 / 5 + 2 / 3 + 3 / 4) / 4, abs=1e-12)
    candidates = {f.value: f.candidate for f in res.findings}
    assert candidates["ex:sportnme"] == "ex:sportname" and candidates["ex:Persn"] == "ex:Person"
    assert {f.value for f in res.findings} == {"ex:sportnme", "ex:Persn", "xsd:text", "salary", "ex:Vehicle"}


def test_sv1_without_source_profile_skips_references(onto: Ontology) -> None:
    res = check_sv1(MappingTable(rows=[row("ex:name", "ex:Person", ref="nope")]), onto)
    assert res.criteria["data_reference"]["applicable"] == 0
    assert res.criteria["data_reference"]["rate_raw"] is None
    assert res.rate_raw == 1.0


def _cs1_table() -> MappingTable:
    person = "http://example.org/person/{id}"
    return MappingTable(rows=[
        row("ex:name", "ex:Student", dt="xsd:string", tmpl=person, line=1),              # all compatible
        row("ex:name", "ex:Sport", dt="xsd:string", tmpl="http://example.org/sport/{id}", line=2),  # disjoint domain
        row("ex:age", "ex:Person", dt="xsd:int", tmpl=person, line=3),                   # int derives from integer
        row("ex:practises", "ex:Person", related="ex:Person", tmpl=person, line=4),      # range disjoint
        row("ex:memberOf", "ex:Person", related="ex:Sport", tmpl=person, line=5),        # out of domain: unknown
        row("ex:sportname", "ex:Sport", dt="xsd:string", tmpl=person, line=6),           # person/{id} also a Sport
    ])


def test_cs1_disjointness_and_out_of_domain(onto: Ontology) -> None:
    res = check_cs1(_cs1_table(), onto)
    c = res.criteria
    assert {k: c["domain"][k] for k in ("assertions", "compatible", "incompatible", "unknown")} == \
        {"assertions": 6, "compatible": 4, "incompatible": 1, "unknown": 1}
    assert {k: c["range"][k] for k in ("assertions", "compatible", "incompatible", "unknown")} == \
        {"assertions": 6, "compatible": 5, "incompatible": 1, "unknown": 0}
    assert {k: c["subject_types"][k] for k in ("assertions", "compatible", "incompatible", "unknown")} == \
        {"assertions": 1, "compatible": 0, "incompatible": 1, "unknown": 0}
    assert res.rate_compatible == pytest.approx((4 / 6 + 5 / 6 + 0.0) / 3, abs=1e-12)
    assert (res.incompatible, res.unknown) == (3, 1)
    lines = {(f.line, f.column) for f in res.findings}
    assert lines == {(2, "entity_class"), (4, "related_entity_class"), (5, "entity_class"), (1, "subject_template")}


def test_cs1_strict_counts_unknown_as_incompatible(onto: Ontology) -> None:
    res = check_cs1(_cs1_table(), onto, strict=True)
    assert (res.incompatible, res.unknown) == (4, 0)
    assert res.criteria["domain"]["incompatible"] == 2


def test_cs1_object_property_with_literal_and_unknown_property(onto: Ontology) -> None:
    res = check_cs1(MappingTable(rows=[row("ex:practises", "ex:Person", dt="xsd:string"),
                                       row("ex:nothing", "ex:Person", dt="xsd:string")]), onto)
    assert res.criteria["range"]["incompatible"] == 1 and res.criteria["range"]["unknown"] == 1
    assert res.criteria["domain"]["compatible"] == 1 and res.criteria["domain"]["unknown"] == 1


def test_cn4_redundant_events() -> None:
    t1, t2, t3, t4 = (("s", "p", str(k)) for k in range(4))
    res = check_cn4([("e1", {t1, t2}), ("e2", {t2, t3}), ("e3", {t4}), ("e4", [t1])])
    assert (res.events, res.redundant_events, res.statements, res.shared_statements) == (4, 3, 4, 2)
    assert res.rate == 0.75
    assert res.overlaps == [{"events": ["e1", "e2"], "statements": 1}, {"events": ["e1", "e4"], "statements": 1}]
    empty = check_cn4([])
    assert (empty.events, empty.rate) == (0, None)


def test_cm1_missing_references_per_source() -> None:
    person, sport = "http://example.org/person/{ID}", "http://example.org/sport/{ID}"
    gold = MappingTable(rows=[
        row("ex:id", "ex:Person", ref="ID", src="student.csv", tmpl=person),
        row("ex:name", "ex:Person", ref="Name", src="student.csv", tmpl=person),
        row("ex:practises", "ex:Person", ref="Sport", src="student.csv", tmpl=person, join="student.Sport==sport.ID"),
        row("ex:sportid", "ex:Sport", ref="ID", src="sport.csv", tmpl=sport),
        row("ex:sportname", "ex:Sport", ref="Name", src="sport.csv", tmpl=sport),
    ])
    pred = MappingTable(rows=[
        row("ex:id", "ex:Person", ref="ID", src="student.csv", tmpl=person),
        row("ex:name", "ex:Person", ref="Name", src="student.csv", tmpl=person),
        row("ex:sportname", "ex:Sport", ref="Name", src="sport.csv", tmpl="http://example.org/sport/{Name}"),
    ])
    res = check_cm1(pred, gold)
    assert (res.required, res.covered) == (5, 3)
    assert res.micro == 3 / 5
    assert res.macro == pytest.approx((2 / 3 + 1 / 2) / 2, abs=1e-12)
    assert res.missing == ["sport: ID", "student: Sport"]
    assert res.per_source["student"]["missing"] == ["Sport"]
    assert check_cm1(gold, gold).micro == 1.0
    assert check_cm1(pred, MappingTable()).micro is None


def test_cm1_reads_join_sides_of_file_names_with_dots() -> None:
    """``books.v2.csv``'s join side ``books.v2.author_id`` is that file's column ``author_id``, not file ``books``'s
    column ``v2.author_id``: the gold's join columns are covered by a table using them."""
    book, author = "http://example.org/book/{isbn}", "http://example.org/author/{author_id}"
    gold = MappingTable(rows=[
        row("ex:writtenBy", "ex:Book", ref="author_id", src="books.v2.csv", tmpl=book,
            join="books.v2.author_id==auteurs.v1.author_id"),
        row("ex:name", "ex:Author", ref="name", src="auteurs.v1.csv", tmpl=author),
    ])
    res = check_cm1(gold, gold)
    assert (res.required, res.covered, sorted(res.per_source)) == (4, 4, ["auteurs.v1", "books.v2"])
    assert res.per_source["books.v2"]["required"] == 2  # author_id (data reference, join side) and isbn
