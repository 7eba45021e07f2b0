"""Foreign keys the offline mapper finds on weaker evidence than a full inclusion into a source's first key,
and where it stops: dangling values, a unique column tied by an object property's range, a foreign key in a
minimal key of chance, a foreign key inside a repeating part. The golden cases
``mapper-foreign-key-dropped-for-one-dangling-value``, ``mapper-link-table-foreign-key-lost`` and
``mapper-nested-array-foreign-key-judged-on-parent-class`` show each rule firing; these show it holding back."""
from __future__ import annotations

import shutil

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case

from helpers import CASES


def _map(tmp_path, case: str, files: dict[str, str]):
    """The offline mapper (lexically) on a copy of the golden case ``case`` with ``files`` rewritten."""
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    for name, text in files.items():
        (work / name).write_text(text, encoding="utf-8")
    res = map_case(get_mapper("offline"), load_manifest(work / "case.yaml"), use_embeddings=False)
    return res.table.rows, [f["message"] for f in res.provenance["findings"]]


_DANGLING = "mapper-foreign-key-dropped-for-one-dangling-value"
_OBS_HEAD = "obs_id,{col},observed_at,temperature,unit\n"


def _obs(col: str, values: list[str]) -> str:
    return _OBS_HEAD.format(col=col) + "".join(f"{i},{v},2024-01-01T00:0{i}:00,3.5,C\n"
                                               for i, v in enumerate(values, 1))


def _made_by(rows):
    return [(r.data_reference, r.join_condition, r.review) for r in rows if (r.ontology_property or "").endswith("#madeBy")]


def test_a_dangling_foreign_key_is_marked_with_every_value_not_found(tmp_path):
    # 3 of 5 distinct values found: the row, with the two missing ones counted and shown
    rows, _ = _map(tmp_path, _DANGLING, {"obs.csv": _obs("station_id", ["ST001", "ST002", "ST003", "ST008", "ST009"])})
    assert _made_by(rows) == [("station_id", "obs.station_id==stations.station_id",
                               "2 of the 5 distinct values of obs.csv.station_id ('ST008', 'ST009') are not in "
                               "stations.csv.station_id: the records holding them get no link; confirm that "
                               "'station_id' refers to stations.csv")]


def test_half_the_values_found_is_no_foreign_key(tmp_path):
    # 2 of 4 distinct values: not most of them
    rows, findings = _map(tmp_path, _DANGLING, {"obs.csv": _obs("station_id", ["ST001", "ST002", "ST008", "ST009"])})
    assert _made_by(rows) == []
    assert not any("foreign key" in m for m in findings if "'station_id'" in m)


def test_a_dangling_value_of_another_shape_is_no_key_of_that_scheme(tmp_path):
    # 'unknown' is no station id like ST001: the column holds something else besides station ids
    rows, _ = _map(tmp_path, _DANGLING, {"obs.csv": _obs("station_id", ["ST001", "ST002", "ST001", "unknown", "ST002"])})
    assert _made_by(rows) == []


def test_a_column_not_naming_the_source_needs_every_value_found(tmp_path):
    # 'sensor' names neither stations.csv nor its key: 2 of 3 station ids found is no evidence it refers to them
    rows, _ = _map(tmp_path, _DANGLING, {"obs.csv": _obs("sensor", ["ST001", "ST002", "ST001", "ST009", "ST002"])})
    assert [r for r in rows if r.join_condition] == []


_LINK = "mapper-link-table-foreign-key-lost"


def test_a_column_depending_on_the_whole_key_keeps_the_foreign_key_in_it(tmp_path):
    # UPM's homepage differs per record: name alone does not identify the organization, the key stays whole
    rows, _ = _map(tmp_path, _LINK, {"organizations.csv": "name,homepage,member\nUPM,https://www.upm.es/,ocorcho\n"
                                                          "UPM,https://www.fi.upm.es/,dachafra\n"
                                                          "KULeuven,https://kuleuven.be,dachafra\n"
                                                          "KULeuven,https://kuleuven.be,ocorcho\n"})
    assert {r.subject_template for r in rows if r.source_file == "organizations.csv"} == {
        "http://example.org/organization/{name}_{member}"}


def test_a_foreign_key_with_no_other_column_stays_in_the_key(tmp_path):
    # nothing depends on name alone: two organizations may share a name, the records stay apart
    rows, _ = _map(tmp_path, _LINK, {"organizations.csv": "name,member\nUPM,ocorcho\nUPM,dachafra\nKULeuven,dachafra\n"})
    assert {r.subject_template for r in rows if r.source_file == "organizations.csv"} == {
        "http://example.org/organization/{name}_{member}"}


def test_a_column_naming_no_relation_is_no_foreign_key_into_a_unique_column(tmp_path):
    # 'contact' names no object property whose range is foaf:Person: nick is not its target
    rows, findings = _map(tmp_path, _LINK, {"organizations.csv": "name,homepage,contact\nUPM,https://www.upm.es/,ocorcho\n"
                                                                "UPM,https://www.upm.es/,dachafra\n"
                                                                "KULeuven,https://kuleuven.be,dachafra\n"})
    assert [r for r in rows if r.join_condition] == []


_NESTED = "mapper-nested-array-foreign-key-judged-on-parent-class"


def test_a_foreign_key_in_a_single_nested_object_stays_on_the_record(tmp_path):
    # one product per order, not an array: no order line, so the relation (if any) is the order's; the ontology
    # relates no Order to a Product, and the reason says which class was judged
    orders = ('{"orders": [{"orderId": "A-1", "status": "shipped", "item": {"sku": "SKU-1"}},'
              ' {"orderId": "A-2", "status": "pending", "item": {"sku": "SKU-2"}}]}')
    rows, findings = _map(tmp_path, _NESTED, {"orders.json": orders})
    assert [r for r in rows if (r.ontology_property or "").endswith("#product")] == []
    assert any("foreign key to products.csv.sku, but no object property links http://example.org/shop#Order and "
               "http://example.org/shop#Product" in m for m in findings)


def test_a_key_numbering_its_records_takes_no_dangling_reference(tmp_path):
    # stations keyed 1..3: most small numbers of any column fall inside, so 9 missing says nothing
    rows, _ = _map(tmp_path, _DANGLING, {"stations.csv": "station_id,station_name,city\n1,Station 1,Gent\n"
                                                         "2,Station 2,Gent\n3,Station 3,Brugge\n",
                                         "obs.csv": _obs("station_id", ["1", "2", "1", "9", "2"])})
    assert _made_by(rows) == []
