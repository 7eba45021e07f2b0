"""The offline mapper on an XML file that holds records of several kinds (a register exported as one
file): each kind is mapped as a logical source of its own and read per occurrence."""
from __future__ import annotations

from pipeline.manifest import Source
from pipeline.mappers.offline.containers import record_kinds
from pipeline.sources.load import load_source

from helpers import kgc_run, table_rows


def test_each_kind_of_record_of_a_container_file_is_its_own_source(tmp_path):
    out = kgc_run(tmp_path, "xml-container-kinds")
    D = "http://example.org/data/"
    assert table_rows(out / "table.md") == [
        ("Line/LineIdentification/@Value", "register.xml", "rail:lineIdentification", "rail:Line",
         D + "line/{Line/LineIdentification/@Value}", ""),
        ("Line/LineLength/@Value", "register.xml", "rail:length", "rail:Line", D + "line/{Line/LineIdentification/@Value}", ""),
        ("Station/StationCode/@Value", "register.xml", "rail:stationCode", "rail:Station",
         D + "station/{Station/StationCode/@Value}", ""),
        ("Station/StationName/@Value", "register.xml", "rail:stationName", "rail:Station",
         D + "station/{Station/StationCode/@Value}", ""),
        ("Line/LineStart/@Value", "register.xml", "rail:lineStart", "rail:Line", D + "line/{Line/LineIdentification/@Value}",
         "Line/LineStart/@Value==Station/StationCode/@Value"),
        ("Line/LineEnd/@Value", "register.xml", "rail:lineEnd", "rail:Line", D + "line/{Line/LineIdentification/@Value}",
         "Line/LineEnd/@Value==Station/StationCode/@Value"),
    ]
    R, T, DEC = "http://example.org/rail#", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", \
        "http://www.w3.org/2001/XMLSchema#decimal"
    kg = set((out / "kg.nt").read_text(encoding="utf-8").splitlines())
    expected = set()
    for code, name in (("ST01", "Amersfoort"), ("ST02", "Barneveld"), ("ST03", "Ede")):
        s = f"<{D}station/{code}>"
        expected |= {f"{s} <{T}> <{R}Station> .", f'{s} <{R}stationCode> "{code}" .', f'{s} <{R}stationName> "{name}" .'}
    for line, start, end, length in (("L-100", "ST01", "ST02", "12.5"), ("L-200", "ST02", "ST03", "8.25")):
        s = f"<{D}line/{line}>"
        expected |= {f"{s} <{T}> <{R}Line> .", f'{s} <{R}lineIdentification> "{line}" .',
                     f'{s} <{R}length> "{length}"^^<{DEC}> .', f"{s} <{R}lineStart> <{D}station/{start}> .",
                     f"{s} <{R}lineEnd> <{D}station/{end}> ."}
    assert kg == expected


def test_a_document_or_a_single_kind_is_no_container(tmp_path):
    notice = tmp_path / "notice.xml"  # values of its own at the root: one document with repeating parts
    notice.write_text("<Notice><ID>N-1</ID><Lot><Title>A</Title></Lot><Lot><Title>B</Title></Lot></Notice>",
                      encoding="utf-8")
    single = tmp_path / "single.xml"  # one structured part occurs once: a document part, not a collection
    single.write_text("<Notice><Terms><Rule>x</Rule></Terms><Lot><Title>A</Title></Lot><Lot><Title>B</Title></Lot>"
                      "</Notice>", encoding="utf-8")
    given = tmp_path / "given.xml"  # an iterator the manifest gives is kept
    given.write_text("<R><A><x>1</x></A><A><x>2</x></A><B><y>1</y></B><B><y>2</y></B></R>", encoding="utf-8")
    kinds = tmp_path / "kinds.xml"
    kinds.write_text('<R><Stamp Code="NL"/><A><x>1</x></A><B><y>1</y></B><A><x>2</x></A><B><y>2</y></B></R>',
                     encoding="utf-8")
    assert record_kinds(load_source(Source(notice, "xml"), tmp_path / "c")) == []
    assert record_kinds(load_source(Source(single, "xml"), tmp_path / "c")) == []
    assert record_kinds(load_source(Source(given, "xml", iterator="/R"), tmp_path / "c")) == []
    assert record_kinds(load_source(Source(kinds, "xml"), tmp_path / "c")) == ["A", "B"]


def test_rows_of_a_kind_are_written_on_the_file_under_the_kind_element():
    from pipeline.mappers.offline.containers import Kind, rewrite
    from pipeline.table import MappingRow
    kinds = {"Line.xml": Kind("register.xml", "Line", "Line.xml"), "Station.xml": Kind("register.xml", "Station", "Station.xml")}
    row = MappingRow(data_reference="concat(LineIdentification/@Value,' ',LineStart/@Value)", source_file="Line.xml",
                     subject_template="http://example.org/data/line/{LineIdentification/@Value}",
                     join_condition="Line.LineStart/@Value==Station.StationCode/@Value, @id==@id")
    other = MappingRow(data_reference="stop_id", source_file="stops.csv", join_condition="stops.a==routes.b")
    rewrite([row, other], kinds)
    assert (row.source_file, row.data_reference, row.subject_template, row.join_condition) == (
        "register.xml", "concat(Line/LineIdentification/@Value,' ',Line/LineStart/@Value)",
        "http://example.org/data/line/{Line/LineIdentification/@Value}",
        "Line/LineStart/@Value==Station/StationCode/@Value, Line/@id==Line/@id")
    assert (other.source_file, other.data_reference, other.join_condition) == ("stops.csv", "stop_id", "stops.a==routes.b")
