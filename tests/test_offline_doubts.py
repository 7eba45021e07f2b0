"""Evidence against a proposed row that the rule proposing it did not weigh (:mod:`pipeline.mappers.offline.doubts`):
a form the values lack, codes under a generic kind, a reference written as text, a column that names another thing,
the class's own word for the column, an entity one column opens.

Inputs are real: excerpts of the real-mappings corpus (``data/real-mappings``: the SNCB GTFS routes with the
GTFS, Dublin Core and FOAF vocabularies; CAPEC's reference dates with the SEPSES vocabularies; the ATT&CK ICS STIX
bundle); the matcher is
lexical (no model).
"""
from __future__ import annotations

from pathlib import Path

from rdflib import URIRef

from pipeline.manifest import Source, load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.analysis import ForeignKey, SourceInfo
from pipeline.mappers.offline.confidence import evidence_line
from pipeline.mappers.offline.doubts import (form_doubt, generic_kind, head_doubt, is_code_list, kind_doubt,
                                             mark_one_column_entities, one_column_entities, own_term_doubt,
                                             reference_columns, reference_doubt)
from pipeline.mappers.offline.features import features_line
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import MappingRow

REAL = Path(__file__).resolve().parent.parent / "data" / "real-mappings"
SNCB = REAL / "sncb-gtfs-rail"
CAPEC = REAL / "capec-attack-patterns-sepses"
ATTACK = REAL / "attack-ics-sepses"


def _routes_case(tmp_path: Path, lines: int = 21) -> Path:
    """The first ``lines`` lines of SNCB's routes.csv with the case's GTFS, Dublin Core and FOAF files."""
    text = (SNCB / "data" / "routes.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "routes.csv").write_text("".join(text[:lines]), encoding="utf-8")
    for name in ("gtfs.ttl", "dcterms.ttl", "foaf.ttl"):
        (tmp_path / name).write_text((SNCB / "ontology" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: routes\nbase_iri: http://irail.be/\nsources: [routes.csv]\n"
                                        "ontologies: [gtfs.ttl, dcterms.ttl, foaf.ttl]\n", encoding="utf-8")
    return tmp_path / "case.yaml"


def _map(manifest: Path, monkeypatch) -> dict[tuple, str | None]:
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    rows = map_case(get_mapper("offline"), load_manifest(manifest), use_embeddings=False).table
    return {(r.data_reference, r.ontology_property, r.entity_class, r.related_entity_class): r.review for r in rows}


def test_codes_under_a_generic_kind_and_an_entity_one_column_opens_are_marked(tmp_path: Path, monkeypatch):
    got = _map(_routes_case(tmp_path), monkeypatch)
    # route_type (700, 2, 100: three codes over 20 routes) matches dct:type, "Type", of no domain, through "type"
    assert got[("route_type", "dct:type", "gtfs:Route", None)] == (
        "codes under a generic kind: dct:type is named only as a kind or code and no domain ties it to gtfs:Route, "
        "and 'route_type' holds a code list (3 distinct of 20 values): check whether and how the codes belong in "
        "the graph; the class's own word for the column: gtfs:routeType, declared for gtfs:Route, is named 'route "
        "type', the column's words qualified by the class's name, where dct:type is not declared for it: check "
        "which property is meant")
    # without agency.csv, agency_id opens a gtfs:Agency that only it describes (by a FOAF chat id, of all
    # properties); its relation to the route is only as good as that entity
    assert got[("agency_id", "foaf:aimChatID", "gtfs:Agency", None)] == (
        "an entity one column opens: 'agency_id' alone describes the gtfs:Agency of its record (identifier "
        "evidence), which may as well be an attribute of the record's own entity: check the class and the property")
    assert got[(None, "gtfs:agency", "gtfs:Route", "gtfs:Agency")].endswith(
        "; relation to an entity one column opens: every gtfs:Agency of routes.csv is described by one column "
        "alone, and the relation is only as good as that entity: check both")
    # the route's own names, named by gtfs properties, stand
    assert got[("route_short_name", "gtfs:shortName", "gtfs:Route", None)] is None
    assert got[("route_long_name", "gtfs:longName", "gtfs:Route", None)] is None


def test_a_kind_column_whose_values_mostly_differ_is_not_a_code_list(tmp_path: Path, monkeypatch):
    # the first route alone: one value is no list
    got = _map(_routes_case(tmp_path, lines=2), monkeypatch)
    # (the class's own routeType still doubts dct:type: test_a_property_of_no_domain_where_the_class_has_...)
    assert "codes under a generic kind" not in got[("route_type", "dct:type", "gtfs:Route", None)]
    assert is_code_list(["700", "700", "2", "700"]) and not is_code_list(["700", "700", "2"])
    assert not is_code_list(["700"])


def test_a_generic_kind_is_a_property_named_by_kind_words_alone():
    onto = load_ontology([SNCB / "ontology" / "gtfs.ttl", SNCB / "ontology" / "dcterms.ttl"])
    assert generic_kind(onto, URIRef("http://purl.org/dc/terms/type"))  # local name "type", label "Type"
    assert not generic_kind(onto, URIRef("http://vocab.gtfs.org/terms#code"))  # labelled "Stop Code": whose code
    assert not generic_kind(onto, URIRef("http://vocab.gtfs.org/terms#routeType"))


def _row(ref: str, prop: str, cls: str, basis: str, own: float, template: str = "http://x.org/{id}",
         related: str | None = None) -> MappingRow:
    return MappingRow(data_reference=ref, source_file="f.csv", ontology_property=prop, entity_class=cls,
                      related_entity_class=related, subject_template=template,
                      evidence=[evidence_line(basis, 0.7), features_line({"exact": 0.0, "margin": 0.1, "own": own})])


def test_a_kind_of_the_class_own_is_left_alone():
    onto = load_ontology([SNCB / "ontology" / "dcterms.ttl"])
    codes = ["0", "1", "0", "0"]
    assert kind_doubt(_row("location_type", "dct:type", "gtfs:Stop", "name", 0.0), codes, onto) is not None
    assert kind_doubt(_row("location_type", "dct:type", "gtfs:Stop", "name", 1.0), codes, onto) is None


def test_a_property_named_for_web_addresses_doubts_dates():
    onto = load_ontology([CAPEC / "ontology" / "sepses-integrated.ttl"])
    row = _row("capec:URL_Date", "cve:referenceUrl", "cve:Reference", "name", 1.0)
    row.ontology_property = "http://w3id.org/sepses/vocab/ref/cve#referenceUrl"
    # the dates CAPEC's external references give under URL_Date
    assert form_doubt(row, ["2022-09-22", "2022-09-22", "2023-01-18"], onto) == (
        "values contradict the property's name: http://w3id.org/sepses/vocab/ref/cve#referenceUrl is named for a "
        "web address and most values of 'capec:URL_Date' ('2022-09-22' ...) are none: check the property")
    assert form_doubt(row, ["https://capec.mitre.org/", "https://cwe.mitre.org/data/definitions/79.html"], onto) is None
    # a property named for no form doubts nothing
    row.ontology_property = "http://w3id.org/sepses/vocab/ref/cve#referenceSource"
    assert form_doubt(row, ["2022-09-22"], onto) is None


def test_one_column_entities_and_their_relations(tmp_path: Path):
    onto = load_ontology([SNCB / "ontology" / "gtfs.ttl"])
    (tmp_path / "f.csv").write_text("id,name,track,street,city\n1,A,T1,Main St,Gent\n", encoding="utf-8")
    data = load_source(Source(path=tmp_path / "f.csv", format="csv"), tmp_path)
    info = SourceInfo(data, "f.csv", "f", list(data.references), cls=URIRef("http://vocab.gtfs.org/terms#Stop"))
    rows = [_row("name", "gtfs:name", "gtfs:Stop", "exact name", 1.0),
            _row("track", "gtfs:code", "gtfs:Agency", "name", 1.0, "http://x.org/agency/{track}"),
            _row("street", "gtfs:street", "gtfs:Station", "name", 1.0, "http://x.org/station/{id}"),
            _row("city", "gtfs:city", "gtfs:Station", "name", 1.0, "http://x.org/station/{id}"),
            _row("", "gtfs:agency", "gtfs:Stop", "record", 1.0, related="gtfs:Agency"),
            _row("", "gtfs:parentStation", "gtfs:Stop", "record", 1.0, related="gtfs:Station")]
    # the stop is the source's own entity, one row or many; the station has two columns; the agency one
    single, classes = one_column_entities(rows, [info], onto)
    assert [r.data_reference for r in single] == ["track"] and classes == {("f.csv", "gtfs:Agency")}
    mark_one_column_entities(rows, [info], onto)
    assert [bool(r.review) for r in rows] == [False, True, False, False, True, False]
    # the vocabulary speaks for the entity when the column is its property's name word for word (whatever the
    # basis), or the name of an entity an object property of the record's class links: neither row is marked
    for one in (_row("code", "gtfs:code", "gtfs:Agency", "subject key", 1.0, "http://x.org/agency/{code}"),
                _row("track", "gtfs:code", "gtfs:Agency", "linked", 1.0, "http://x.org/agency/{track}")):
        rows = [one, _row("", "gtfs:agency", "gtfs:Stop", "record", 1.0, related="gtfs:Agency")]
        mark_one_column_entities(rows, [info], onto)
        assert [bool(r.review) for r in rows] == [False, False]


def test_a_word_for_word_member_of_an_object_describing_another_entity_is_marked(tmp_path: Path):
    """The members of one object describe one thing: a member named word for word by another class's property
    (``links.name`` ~ ``gtfs:name`` of an agency) beside two members describing a station is marked with its
    relation; an identifier member (``links.agency_id``), a linked entity's name, a flat column and a member
    beside one other member only are left alone."""
    onto = load_ontology([SNCB / "ontology" / "gtfs.ttl"])
    (tmp_path / "f.csv").write_text("id,name\n1,A\n", encoding="utf-8")
    data = load_source(Source(path=tmp_path / "f.csv", format="csv"), tmp_path)
    info = SourceInfo(data, "f.csv", "f", list(data.references), cls=URIRef("http://vocab.gtfs.org/terms#Stop"))
    station = "http://x.org/station/{id}_{links.#}"

    def rows_with(one: MappingRow, members: tuple[str, ...] = ("links.street", "links.city")) -> list[MappingRow]:
        return [one, *(_row(m, f"gtfs:{m.split('.')[-1]}", "gtfs:Station", "name", 1.0, station) for m in members),
                _row("", "gtfs:agency", "gtfs:Stop", "record", 1.0, related="gtfs:Agency")]

    rows = rows_with(_row("links.name", "gtfs:name", "gtfs:Agency", "exact name", 1.0, "http://x.org/agency/{id}"))
    mark_one_column_entities(rows, [info], onto)
    assert [bool(r.review) for r in rows] == [True, False, False, True]
    assert "the other members of its object describe the gtfs:Station" in rows[0].review
    for one, members in ((_row("links.agency_id", "gtfs:code", "gtfs:Agency", "exact name", 1.0,
                               "http://x.org/agency/{links.agency_id}"), ("links.street", "links.city")),
                         (_row("links.name", "gtfs:name", "gtfs:Agency", "linked", 1.0, "http://x.org/agency/{id}"),
                          ("links.street", "links.city")),
                         (_row("name", "gtfs:name", "gtfs:Agency", "exact name", 1.0, "http://x.org/agency/{id}"),
                          ("street", "city")),
                         (_row("links.name", "gtfs:name", "gtfs:Agency", "exact name", 1.0, "http://x.org/agency/{id}"),
                          ("links.street",))):
        rows = rows_with(one, members)
        mark_one_column_entities(rows, [info], onto)
        assert not any(r.review for r in rows), one.data_reference


def test_a_foreign_key_written_as_a_literal_is_marked(monkeypatch):
    got = _map(ATTACK / "case.yaml", monkeypatch)
    technique = "http://w3id.org/sepses/vocab/ref/attack#Technique"
    # a STIX relationship's source_ref holds the id of an object of another kind of the bundle (each kind is a
    # source of its own, kinds.py): dct:source would assert it as text
    assert got[("source_ref", "dct:source", "owl:Thing", None)] == (
        "a reference written as text: the values of 'source_ref' are identifiers ('id') of records of other kinds "
        "of ics-attack-subset.json, so the member links to them, and dct:source would assert the identifiers as "
        "literals: check whether a relation to those records is meant")
    # the records' own key, and values that name no record, stand
    assert got[("id", "dct:identifier", technique, None)] is None
    assert got[("created", "dct:created", technique, None)] is None


def test_reference_columns_and_the_rows_they_doubt(tmp_path: Path):
    (tmp_path / "f.csv").write_text("id,name,parent,owner\nc1,A,,o1\nc2,B,c1,o2\nc3,C,c1,o1\n", encoding="utf-8")
    data = load_source(Source(path=tmp_path / "f.csv", format="csv"), tmp_path)
    info = SourceInfo(data, "f.csv", "f", list(data.references), key=("id",),
                      cls=URIRef("http://vocab.gtfs.org/terms#Stop"),
                      fks={"owner": ForeignKey("owner", "o.csv", "oid", 1.0)})
    # a foreign key into another source; parent names other records of its own (c1), name and id none
    refs = reference_columns(info)
    assert refs == {"owner": "o.csv.oid", "parent": "f.csv.id"}
    assert reference_doubt(_row("parent", "gtfs:code", "gtfs:Stop", "name", 1.0), refs) == (
        "a reference written as text: the values of 'parent' are keys of the records of f.csv.id, so the column links "
        "to them, and gtfs:code would assert the identifiers as literals: check whether a relation to those records "
        "is meant")
    assert reference_doubt(_row("name", "gtfs:name", "gtfs:Stop", "exact name", 1.0), refs) is None
    # the entity the values name, keyed by them, described by its identifier; a relation row
    assert reference_doubt(_row("owner", "gtfs:code", "gtfs:Agency", "subject key", 1.0,
                                "http://x.org/agency/{owner}"), refs) is None
    assert reference_doubt(_row("owner", "gtfs:agency", "gtfs:Stop", "key", 1.0, related="gtfs:Agency"), refs) is None


def test_a_column_matched_through_what_qualifies_its_head_is_marked():
    onto = load_ontology([CAPEC / "ontology" / "sepses-capec.ttl", SNCB / "ontology" / "dcterms.ttl"])
    ref = "capec:External_References/capec:External_Reference/capec:"
    publisher = "http://w3id.org/sepses/vocab/ref/capec#referencePublisher"
    # CAPEC's publication months ("--11") matched to "reference publisher" through "publication" (stem "publi")
    assert head_doubt(_row(ref + "Publication_Month", publisher, "capec:Reference", "name", 1.0), onto) == (
        "the column names another thing: 'Publication_Month' is a month (the last word of its name), matched to "
        f"{publisher} through what qualifies it (publication): check the property")
    # "relationship type" is a type, not a relation (stem "relat"); the same with a subject key's basis
    assert head_doubt(_row("relationship_type", "dct:relation", "capec:Reference", "subject key", 0.0), onto) == (
        "the column names another thing: 'relationship_type' is a type (the last word of its name), matched to "
        "dct:relation through what qualifies it (relationship): check the property")
    # a head the property names; an exact name; a one-word column; a designating head; a head no word of which the
    # property holds, and no qualifier either
    for row in (_row(ref + "Publisher", publisher, "capec:Reference", "name", 1.0),
                _row("relationship_type", "dct:relation", "capec:Reference", "exact name", 0.0),
                _row("relationship", "dct:relation", "capec:Reference", "name", 0.0),
                _row("relation_id", "dct:relation", "capec:Reference", "name", 0.0),
                _row("entry_note", "dct:relation", "capec:Reference", "name", 0.0)):
        assert head_doubt(row, onto) is None
    # a head that is a synonym of the property's: "reference heading" is the reference's title, not a heading of one
    assert head_doubt(_row(ref + "Reference_Heading", "http://w3id.org/sepses/vocab/ref/capec#referenceTitle",
                           "capec:Reference", "name", 1.0), onto) is None
    # a language code after the head says the text's language: "publisher en" is a publisher's name in English
    assert head_doubt(_row(ref + "Publisher_en", publisher, "capec:Reference", "name", 1.0), onto) is None
    assert head_doubt(_row(ref + "Publication_Month_en", publisher, "capec:Reference", "name", 1.0), onto) is not None
    # a currency code or a unit after the head says the value's unit: "publisher eur" is read as "publisher", and
    # "publication month kg" still as a month
    assert head_doubt(_row(ref + "Publisher_EUR", publisher, "capec:Reference", "name", 1.0), onto) is None
    assert head_doubt(_row(ref + "Publisher_km", publisher, "capec:Reference", "name", 1.0), onto) is None
    assert head_doubt(_row(ref + "Publication_Month_kg", publisher, "capec:Reference", "name", 1.0), onto) is not None
    assert head_doubt(_row(ref + "Publication_Month", publisher, "capec:Reference", "name", 1.0), onto) is not None
    # a Spanish name puts its head first: "fecha_relacion" is a date of a relation, read no further
    assert head_doubt(_row("fecha_relacion", "dct:relation", "capec:Reference", "name", 0.0), onto) is None


def test_a_property_of_no_domain_where_the_class_has_its_own_qualified_word_is_marked():
    onto = load_ontology([CAPEC / "ontology" / "sepses-capec.ttl", SNCB / "ontology" / "dcterms.ttl",
                          SNCB / "ontology" / "gtfs.ttl"])
    ref = "capec:External_References/capec:External_Reference/capec:"
    # dct:title has no domain; capec:referenceTitle, domain capec:Reference, is "title" qualified by the class's name
    assert own_term_doubt(_row(ref + "Title", "dct:title", "capec:Reference", "exact name", 0.0), onto) == (
        "the class's own word for the column: capec:referenceTitle, declared for capec:Reference, is named "
        "'reference title', the column's words qualified by the class's name, where dct:title is not declared for "
        "it: check which property is meant")
    assert own_term_doubt(_row("route_type", "dct:type", "gtfs:Route", "exact name", 0.0), onto) == (
        "the class's own word for the column: gtfs:routeType, declared for gtfs:Route, is named 'route type', the "
        "column's words qualified by the class's name, where dct:type is not declared for it: check which property "
        "is meant")
    # a property the vocabulary declares for the class is left alone; so is a column no own property qualifies
    assert own_term_doubt(_row(ref + "Title", "dct:title", "capec:Reference", "exact name", 1.0), onto) is None
    assert own_term_doubt(_row(ref + "Summary", "dct:title", "capec:Reference", "name", 0.0), onto) is None
