"""A date column of mixed forms (ISO dates beside 5 Jan 2024, 13/03/2024) under an xsd:date range: the offline
mapper's range fit (pipeline.mappers.offline.fit.value_fit) and its toDate() proposal
(pipeline.mappers.offline.functions.propose_functions)."""
from __future__ import annotations

from pathlib import Path

from rdflib import URIRef

from pipeline.manifest import load_manifest
from pipeline.mappers.offline.fit import value_fit
from pipeline.mappers.offline.functions import propose_functions
from pipeline.ontology import load_ontology
from pipeline.sources.columns import Values
from pipeline.sources.load import load_source
from pipeline.table import MappingRow

ONTO = """@prefix ex: <http://example.org/ev#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Event a owl:Class . ex:startDate a owl:DatatypeProperty ; rdfs:domain ex:Event ; rdfs:range xsd:date .
"""
ISO = ["2024-01-05", "2024-01-12", "2024-01-19", "2024-02-02", "2024-02-29", "2024-03-08"]
NO_DATES = ["spring 2024", "Q3 2024", "after Easter"]


def _proposed(tmp_path: Path, values: list[str]) -> MappingRow:
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "events.csv").write_text(
        "id,start_date\n" + "".join(f"e{i},{v}\n" for i, v in enumerate(values)), encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [{path: events.csv}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    case = load_manifest(tmp_path / "case.yaml")
    ont = load_ontology(case.ontologies, {"ex": "http://example.org/ev#"})
    row = MappingRow(data_reference="start_date", source_file="events.csv", ontology_property="ex:startDate",
                     entity_class="ex:Event", subject_template="http://example.org/event/{id}", datatype="xsd:date")
    propose_functions([row], {"events.csv": load_source(case.sources[0])}, ont)
    return row


def test_one_date_in_another_form_among_iso_dates_gets_todate(tmp_path: Path) -> None:
    # 7 of 10 values are dates (below the 80% once asked): toDate() writes the ISO ones unchanged and reads
    # 5 Jan 2024, which the guard would drop as an ill-typed literal; the three others are lost either way
    row = _proposed(tmp_path, [*ISO, "5 Jan 2024", *NO_DATES])
    assert row.function_name == "toDate()"
    assert row.evidence[-1] == "70% of the values parse as dates, 60% are already xsd:date"


def test_a_column_all_in_the_range_form_or_no_dates_gets_no_function(tmp_path: Path) -> None:
    assert _proposed(tmp_path, [*ISO, *NO_DATES]).function_name is None  # toDate() would read no other value
    (tmp_path / "iso").mkdir()
    assert _proposed(tmp_path / "iso", ISO).function_name is None


def test_a_majority_of_dates_in_any_form_fits_the_date_range(tmp_path: Path) -> None:
    (tmp_path / "onto.ttl").write_text(ONTO, encoding="utf-8")
    ont = load_ontology([tmp_path / "onto.ttl"])
    start = URIRef("http://example.org/ev#startDate")
    mixed = ["2024-01-05", "2024-01-12", "5 Jan 2024", "05.01.2024", "01/05/2024", "13/03/2024"]
    assert value_fit(ont, start, Values([*mixed, *NO_DATES])) == 0.9      # 6 of 9 read by toDate()
    assert value_fit(ont, start, Values([*mixed[:4], *NO_DATES, "tbd"])) == 0.3  # 4 of 8: no majority
    assert value_fit(ont, start, Values(ISO)) == 1.0
