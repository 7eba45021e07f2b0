"""Offline mapper on BLINKG cases (read in place from ../shared; skipped when absent)."""
from __future__ import annotations


import pytest

from pipeline import embeddings
from pipeline.bench.blinkg import DEFAULT_BLINKG_DIR, blinkg_cases
from pipeline.mappers import get_mapper, load_inputs, map_case
from pipeline.run.runner import RunConfig, run_case

ROOT = DEFAULT_BLINKG_DIR
pytestmark = pytest.mark.skipif(not (ROOT / "scenarios").is_dir(), reason="BLINKG benchmark folder not present")


def _case(scenario: str, name: str):
    cases, _ = blinkg_cases(ROOT)
    return next(c for c in cases if c.scenario == scenario and c.name == name)


def _rows(name: str, **kw):
    result = map_case(get_mapper("offline"), _case("scenario1", name), use_embeddings=False, **kw)
    return result, [r for r in result.table]


def _find(rows, **cells):
    return [r for r in rows if all(getattr(r, k) == v for k, v in cells.items())]


def test_1e_join_student_sport():
    _, rows = _rows("1E")
    join = _find(rows, source_file="student.csv", data_reference="Sport")
    assert len(join) == 1
    r = join[0]
    assert (r.ontology_property, r.entity_class, r.related_entity_class) == ("ex:practises", "ex:Person", "ex:Sport")
    assert r.join_condition == "student.Sport==sport.ID"
    assert r.subject_template == "http://example.org/person/{ID}"
    assert any("inclusion dependency" in e for e in r.evidence) and 0 < r.confidence <= 1
    assert _find(rows, source_file="sport.csv", data_reference="Name", ontology_property="ex:sportname",
                 subject_template="http://example.org/sport/{ID}")


def test_1h_language_tags_from_file_names():
    _, rows = _rows("1H")
    names = {r.source_file: r for r in _find(rows, data_reference="Name", ontology_property="ex:cityname")}
    assert names["city_en.csv"].language_tag == "en"
    assert names["city_es.csv"].language_tag == "es"
    assert names["city_es.csv"].datatype == "rdf:langString"
    assert _find(rows, data_reference="ID", ontology_property="ex:cityid", datatype="xsd:integer",
                 subject_template="http://example.org/city/{ID}")


def test_1d_composite_key_double_amount_and_concat():
    result, rows = _rows("1D")
    amount = _find(rows, data_reference="amount")
    assert len(amount) == 1 and amount[0].ontology_property == "ex:owes" and amount[0].datatype == "xsd:double"
    assert {r.subject_template for r in rows} == {"http://example.org/person/{fname}_{lname}"}
    assert _find(rows, data_reference="lname", ontology_property="ex:lastname")
    assert _find(rows, data_reference="concat(fname,lname)", ontology_property="ex:fullname")
    assert result.provenance["sources"][0]["key"] == ["fname", "lname"]
    assert result.provenance["similarity"] == "lexical"


def test_1f_link_file_join():
    _, rows = _rows("1F")
    link = _find(rows, source_file="student_sport.csv")
    assert len(link) == 1 and link[0].ontology_property == "ex:practises"
    assert link[0].join_condition == ("student_sport.ID_Student==student.ID and "
                                      "student_sport.ID_Sport==sport.ID")


def test_1c_second_entity_from_linked_class_and_same_record_relation():
    _, rows = _rows("1C")
    person = _find(rows, data_reference="Student")
    assert len(person) == 1
    assert (person[0].ontology_property, person[0].entity_class, person[0].subject_template) == (
        "ex:fullname", "ex:Person", "http://example.org/person/{Student}")
    assert any("ex:practises links ex:Person" in e for e in person[0].evidence)
    sport = _find(rows, data_reference="Sport")
    assert len(sport) == 1 and sport[0].subject_template == "http://example.org/sport/{Sport}"
    rel = _find(rows, ontology_property="ex:practises")
    assert len(rel) == 1
    r = rel[0]
    assert (r.data_reference, r.source_file, r.entity_class, r.related_entity_class) == (
        None, "student_sport.csv", "ex:Person", "ex:Sport")
    assert r.subject_template == "http://example.org/person/{Student}"
    assert r.join_condition == "Student==Student, Sport==Sport"


def test_1g_composite_foreign_key_join_and_no_repeated_persons():
    result, rows = _rows("1G")
    rel = _find(rows, ontology_property="ex:lives")
    assert len(rel) == 1
    r = rel[0]
    assert (r.source_file, r.entity_class, r.related_entity_class) == ("persons.csv", "ex:Person", "ex:City")
    assert r.subject_template == "http://example.org/person/{fname}_{lname}"
    assert r.join_condition == "persons.fname==lives.fname and persons.lname==lives.lname"
    assert any("composite foreign key" in e for e in r.evidence)
    assert not _find(rows, source_file="lives.csv", entity_class="ex:Person")  # persons.csv describes them
    city = _find(rows, source_file="lives.csv", data_reference="city")
    assert len(city) == 1
    assert (city[0].ontology_property, city[0].entity_class, city[0].datatype) == (
        "ex:cityname", "ex:City", "rdf:langString")
    assert city[0].subject_template == "http://example.org/city/{city}"
    assert not _find(rows, ontology_property="ex:cityid")


def test_composite_keys_need_every_tuple_included(tmp_path):
    from pipeline.manifest import Source
    from pipeline.mappers.offline.analysis import SourceInfo
    from pipeline.mappers.offline.keys import analyse_keys, find_composite_keys
    from pipeline.sources.load import load_source

    def info(name, text):
        (tmp_path / name).write_text(text)
        data = load_source(Source(path=tmp_path / name, format="csv"), tmp_path)
        return SourceInfo(data, name, name[:-4], list(data.references))

    persons = info("persons.csv", "fname,lname,amount\nBob,Smith,30\nSue,Jones,20\n")
    lives = info("lives.csv", "fname,lname,city\nBob,Smith,London\nSue,Jones,Madrid\n")
    stray = info("stray.csv", "fname,lname,city\nBob,Jones,Paris\n")  # each value known, the pair is not
    infos = [persons, lives, stray]
    analyse_keys(infos)
    find_composite_keys(infos)
    assert [(c.target, c.refs) for c in lives.cfks] == [("persons.csv", ("fname", "lname"))]
    assert all(c.target != "persons.csv" for c in stray.cfks)


def test_composite_reference_into_a_candidate_key_rekeys_its_target(tmp_path):
    from pipeline.manifest import Source
    from pipeline.mappers.offline.analysis import SourceInfo
    from pipeline.mappers.offline.keys import analyse_keys, find_composite_keys
    from pipeline.sources.load import load_source

    def info(name, text):
        (tmp_path / name).write_text(text)
        data = load_source(Source(path=tmp_path / name, format="csv"), tmp_path)
        return SourceInfo(data, name, name[:-4], list(data.references))

    lines = info("order_lines.csv", "order_id,line_no,product\nO1,1,Pen\nO1,2,Ink\nO2,1,Pen\n")
    ships = info("shipments.csv", "shipment_id,order_id,line_no\nS1,O1,2\nS2,O2,1\n")
    stray = info("returns.csv", "return_id,order_id,line_no\nR1,O2,2\n")  # each value known, the pair is not
    infos = [lines, ships, stray]
    analyse_keys(infos)
    assert lines.key == ("order_id", "product")  # a minimal key of the text columns: chance
    find_composite_keys(infos)
    assert [(c.target, c.refs) for c in ships.cfks] == [("order_lines.csv", ("order_id", "line_no"))]
    assert lines.key == ("order_id", "line_no") and "shipments.csv refers to them" in lines.key_evidence
    assert stray.cfks == []


def test_mapper_is_deterministic_and_never_writes_inputs(tmp_path):
    before = sorted(p.name for p in (ROOT / "scenarios" / "scenario3" / "1").iterdir())
    case = _case("scenario3", "1")
    a = get_mapper("offline").map(load_inputs(case, tmp_path), use_embeddings=False)
    b = get_mapper("offline").map(load_inputs(case, tmp_path), use_embeddings=False)
    assert [r.cells() for r in a.table] == [r.cells() for r in b.table]
    assert sorted(p.name for p in (ROOT / "scenarios" / "scenario3" / "1").iterdir()) == before


@pytest.mark.slow
def test_scenario3_offline_end_to_end(tmp_path):
    run = run_case(_case("scenario3", "1"), RunConfig(out_dir=tmp_path, mapper="offline",
                                                      mapper_options={"use_embeddings": False}))
    assert run.status == "ok", run.summary()
    assert run.counts["rows_compiled"] > 0
    assert run.counts["triples"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not embeddings.available(), reason="the packaged MiniLM is not installed")
def test_scenario3_case1_scores_of_the_main_job(tmp_path):
    # `make scenario3` (offline mapper with its defaults): the figures docs/benchmarks/blinkg.md and the
    # report print for case 1, mapping-level task F1 and graph-level SA2 property F1 (partial gold)
    run = run_case(_case("scenario3", "1"), RunConfig(out_dir=tmp_path, mapper="offline"))
    assert run.status == "ok", run.summary()
    assert round(run.extra["mapping_scores"]["f1"], 3) == 0.932
    assert round(run.extra["graph_scores"]["SA2-prop-exact"], 3) == 0.706
    assert run.counts["triples"] == 18


# -- scenario 3: document-like XML (CODICE notices -> eProcurement Ontology) ------------------------

_S3_KEY = "codice_$(replace(/entry/id,'https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/',''))"
_S3_BASE = "http://data.europa.eu/a4g/resource/epo/"
_S3_LOT = "_$(/entry/cac-place-ext:ContractFolderStatus/cac:TenderResult/cac:AwardedTenderedProject/cbc:ProcurementProjectLotID)"


def _s3_rows(name: str):
    result = map_case(get_mapper("offline"), _case("scenario3", name), use_embeddings=False)
    return [r for r in result.table]


@pytest.mark.parametrize("name", ["1", "2"])
def test_3_award_date_on_lot_award_outcome(name):
    rows = _s3_rows(name)
    award = _find(rows, ontology_property="epo:hasAwardDecisionDate")
    assert len(award) == 1
    r = award[0]
    assert r.data_reference == "/entry/cac-place-ext:ContractFolderStatus/cac:TenderResult/cbc:AwardDate"
    assert (r.entity_class, r.datatype) == ("epo:LotAwardOutcome", "xsd:date")
    per_lot = "" if name == "1" else _S3_LOT  # case 2 has two TenderResults: one outcome per lot
    assert r.subject_template == _S3_BASE + "lotAwardOutcome/" + _S3_KEY + per_lot
    assert any("OWL restriction" in e for e in r.evidence)


def test_3_repeated_tender_results_get_lot_level_keys():
    rows = _s3_rows("2")
    for prop, slug in (("epo:hasAwardDecisionDate", "lotAwardOutcome"), ("epo:describesLot", "lotAwardOutcome"),
                       ("epo:hasReceivedTenders", "submissionStatisticalInformation"),
                       ("epo:concernsSubmissionsForLot", "submissionStatisticalInformation")):
        found = _find(rows, ontology_property=prop)
        assert len(found) == 1 and found[0].subject_template == _S3_BASE + slug + "/" + _S3_KEY + _S3_LOT, prop
    assert any("occurs up to 2 times per record" in e for e in _find(rows, ontology_property="epo:describesLot")[0].evidence)
    # one notice and one procedure per record, even where a notice date is read inside a TenderResult
    for prop in ("epo:refersToRole", "epo:hasProcedureType", "epo:hasProcurementScopeDividedIntoLot"):
        assert [r.subject_template.endswith(_S3_KEY) for r in _find(rows, ontology_property=prop)] == [True], prop
    # per-lot relations come before the record-level one, so the compiler mints Lot IRIs per lot
    order = [r.ontology_property for r in rows if r.related_entity_class == "epo:Lot"]
    assert order.index("epo:hasProcurementScopeDividedIntoLot") == len(order) - 1


def test_3_single_tender_result_keeps_the_record_key():
    rows = _s3_rows("1")
    assert all(r.subject_template.endswith(_S3_KEY) for r in rows if r.subject_template.startswith(_S3_BASE))


def test_3_received_tenders_on_submission_statistics():
    r = _find(_s3_rows("1"), ontology_property="epo:hasReceivedTenders")
    assert len(r) == 1
    assert r[0].data_reference == "/entry/cac-place-ext:ContractFolderStatus/cac:TenderResult/cbc:ReceivedTenderQuantity"
    assert (r[0].entity_class, r[0].datatype) == ("epo:SubmissionStatisticalInformation", "xsd:integer")
    assert r[0].subject_template == _S3_BASE + "submissionStatisticalInformation/" + _S3_KEY


@pytest.mark.parametrize("prop,dom,rng", [
    ("epo:describesLot", "epo:LotAwardOutcome", "epo:Lot"),
    ("epo:concernsSubmissionsForLot", "epo:SubmissionStatisticalInformation", "epo:Lot"),
    ("epo:refersToRole", "epo:ResultNotice", "epo:Buyer"),
    ("epo:hasProcurementScopeDividedIntoLot", "epo:Procedure", "epo:Lot"),
    ("epo:usesTechnique", "epo:Procedure", "epo:FrameworkAgreementTechniqueUsage"),
])
def test_3_same_record_relations(prop, dom, rng):
    found = _find(_s3_rows("1"), ontology_property=prop)
    assert len(found) == 1
    r = found[0]
    assert (r.entity_class, r.related_entity_class, r.join_condition) == (dom, rng, "id==id")
    assert r.data_reference is None
    slug = dom.split(":")[1]
    assert r.subject_template == _S3_BASE + slug[0].lower() + slug[1:] + "/" + _S3_KEY


@pytest.mark.parametrize("name,rng,code", [("1", "epo:FrameworkAgreementTechniqueUsage", "= 3"),
                                            ("2", "epo:TechniqueUsage", "= 0")])
def test_3_contracting_system_code_decides_the_technique_subclass(name, rng, code):
    """Case 1's ContractingSystemCode 3 ("contract based on a framework agreement") names the
    subclass; case 2's 0 ("not applicable") names none: the class the property names stays."""
    found = _find(_s3_rows(name), ontology_property="epo:usesTechnique")
    assert [r.related_entity_class for r in found] == [rng]
    assert any("ContractingSystemCode " + code in e for e in found[0].evidence)


def test_3_procedure_type_value_map_from_scheme_and_crosswalk():
    found = _find(_s3_rows("1"), ontology_property="epo:hasProcedureType")
    assert len(found) == 1
    r = found[0]
    assert (r.entity_class, r.related_entity_class, r.function_name) == ("epo:Procedure", "skos:Concept",
                                                                         "procedureType()")
    pt = "http://publications.europa.eu/resource/authority/procurement-procedure-type/"
    assert f"open: <{pt}open>" in r.function_output and f"restricted: <{pt}restricted>" in r.function_output
    assert "buyer-legal-type" not in r.function_output
    assert any("SyndicationTenderingProcessCode" in e for e in r.evidence)


def test_3_no_literal_row_reads_a_coded_element():
    rows = _s3_rows("2")
    refs = [r.data_reference for r in rows if r.data_reference]
    assert refs and not any(ref.endswith(("Code", "IdentificationCode")) for ref in refs)
    assert all(ref.startswith("/entry/") for ref in refs)


def test_document_helpers():
    from pipeline.mappers.offline.xmldoc import key_expression, standard_name
    seg, _ = key_expression("/entry/id", ["https://a.org/x/1", "https://a.org/x/22"])
    assert seg == "$(replace(/entry/id,'https://a.org/x/',''))"
    assert key_expression("/r/id", ["7", "8"])[0] == "$(/r/id)"
    assert standard_name({"cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"}) == "ubl"
    assert standard_name({"ex": "http://example.org/"}) is None


def _gtfs(name: str):
    return [r for r in map_case(get_mapper("offline"), _case("scenario2", name), use_embeddings=False).table]


def test_1h_the_shared_id_column_is_mapped_once():
    _, rows = _rows("1H")
    ids = _find(rows, data_reference="ID", ontology_property="ex:cityid")
    assert [r.source_file for r in ids] == ["city_en.csv"]
    assert any("city_es.csv 'ID' gives the same triples" in e for e in ids[0].evidence)


def test_d2_sequence_key_and_entity_named_by_an_identifier_column():
    rows = _gtfs("d2")
    point = "http://example.org/shapePoint/{shape_id}_{shape_pt_sequence}"
    assert _find(rows, data_reference="shape_pt_lat", entity_class="gtfs:ShapePoint", subject_template=point)
    # a user datatype (rdfs:Datatype, subClassOf xsd:float) is a datatype, not a class
    assert _find(rows, data_reference="shape_dist_traveled", ontology_property="gtfs:distanceTraveled",
                 datatype="gtfs:nonNegativeFloat")
    shape = _find(rows, data_reference="shape_id", ontology_property="gtfs:id", entity_class="gtfs:Shape",
                  subject_template="http://example.org/shape/{shape_id}")
    assert len(shape) == 1 and "gtfs:Shape" in shape[0].evidence[2]  # [0]: the basis of its confidence, [1]: its features
    rel = _find(rows, ontology_property="gtfs:shapePoint", entity_class="gtfs:Shape",
                related_entity_class="gtfs:ShapePoint")
    assert len(rel) == 1 and rel[0].join_condition == "shape_id==shape_id"  # the smaller of two nested keys


def test_d4_binary_codes_map_to_a_term_and_its_negation():
    rows = _gtfs("d4")
    monday = _find(rows, data_reference="monday", ontology_property="gtfs:monday",
                   related_entity_class="skos:Concept")
    assert len(monday) == 1
    assert monday[0].function_output == ("0 -> http://transport.linkeddata.es/kos/day/not-available <br> "
                                         "1 -> http://transport.linkeddata.es/kos/day/available")
    assert len(_find(rows, related_entity_class="skos:Concept", entity_class="gtfs:CalendarRule")) == 7
    assert _find(rows, data_reference="service_id", ontology_property="gtfs:id", entity_class="gtfs:Service")


def test_d3_integer_codes_follow_the_enumeration_in_the_scheme_description():
    rows = _gtfs("d3")
    loc = _find(rows, data_reference="location_type", ontology_property="gtfs:locationType")
    assert len(loc) == 1 and loc[0].function_output == (
        "0 -> http://transport.linkeddata.es/kos/location-type/stop <br> "
        "1 -> http://transport.linkeddata.es/kos/location-type/station <br> "
        "2 -> http://transport.linkeddata.es/kos/location-type/entrance-exit <br> "
        "3 -> http://transport.linkeddata.es/kos/location-type/generic-node <br> "
        "4 -> http://transport.linkeddata.es/kos/location-type/boarding-area")
    assert any("read as positions (from 0)" in e for e in loc[0].evidence)
    # the record key, not zone_id, is the stop's identifier
    assert [r.data_reference for r in _find(rows, ontology_property="gtfs:id")] == ["stop_id"]


def test_d6_weak_entity_key_keeps_its_owner_link_and_enumeration_tolerates_typos():
    rows = _gtfs("d6")
    # stop_id is unique in the sample but names a stop; a stop time is its trip plus its sequence number
    times = _find(rows, source_file="stop_times.csv", data_reference="arrival_time")
    assert times[0].subject_template == "http://example.org/stopTime/{trip_id}_{stop_sequence}"
    owner = _find(rows, source_file="stop_times.csv", ontology_property="gtfs:trip", related_entity_class="gtfs:Trip")
    assert len(owner) == 1 and owner[0].join_condition == "stop_times.trip_id==trips.trip_id"
    # "One direction or oppostite direction": the misspelt label is still found in the description
    direction = _find(rows, data_reference="direction_id", ontology_property="gtfs:direction")
    assert direction[0].function_output == (
        "0 -> http://transport.linkeddata.es/kos/direction/one-direction <br> "
        "1 -> http://transport.linkeddata.es/kos/direction/opposite-direction")
