"""The offline mapper on an XML file that holds records of several kinds (a register exported as one
file): each kind is mapped as a logical source of its own and read per occurrence."""
from __future__ import annotations

from pipeline.manifest import Source
from pipeline.mappers.offline.containers import record_kinds
from pipeline.sources.load import load_source

from helpers import CASES, kgc_run, table_rows


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


def test_kinds_listed_in_wrapper_elements_are_the_records(tmp_path):
    # a catalogue of several collections, each in a list element of its own (`<Lines>` holding only `<Line>`s):
    # the same register as xml-container-kinds, read kind by kind through the list elements
    from pipeline.cli import main
    import shutil
    case = tmp_path / "case"
    shutil.copytree(CASES / "xml-container-kinds", case)
    (case / "register.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Register Name="rail register" Version="2">\n<Lines>\n'
        '<Line><LineIdentification Value="L-100"/><LineStart Value="ST01"/><LineEnd Value="ST02"/>'
        '<LineLength Value="12.5"/></Line>\n'
        '<Line><LineIdentification Value="L-200"/><LineStart Value="ST02"/><LineEnd Value="ST03"/>'
        '<LineLength Value="8.25"/></Line>\n</Lines>\n<Stations>\n'
        '<Station><StationCode Value="ST01"/><StationName Value="Amersfoort"/></Station>\n'
        '<Station><StationCode Value="ST02"/><StationName Value="Barneveld"/></Station>\n'
        '<Station><StationCode Value="ST03"/><StationName Value="Ede"/></Station>\n</Stations>\n</Register>\n',
        encoding="utf-8")
    assert record_kinds(load_source(Source(case / "register.xml", "xml"), tmp_path / "c")) == [
        "Lines/Line", "Stations/Station"]
    assert main(["-q", "run", str(case / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    out = tmp_path / "out" / "tests" / "xml-container-kinds"
    D = "http://example.org/data/"
    assert table_rows(out / "table.md") == [
        ("Lines/Line/LineIdentification/@Value", "register.xml", "rail:lineIdentification", "rail:Line",
         D + "line/{Lines/Line/LineIdentification/@Value}", ""),
        ("Lines/Line/LineLength/@Value", "register.xml", "rail:length", "rail:Line",
         D + "line/{Lines/Line/LineIdentification/@Value}", ""),
        ("Stations/Station/StationCode/@Value", "register.xml", "rail:stationCode", "rail:Station",
         D + "station/{Stations/Station/StationCode/@Value}", ""),
        ("Stations/Station/StationName/@Value", "register.xml", "rail:stationName", "rail:Station",
         D + "station/{Stations/Station/StationCode/@Value}", ""),
        ("Lines/Line/LineStart/@Value", "register.xml", "rail:lineStart", "rail:Line",
         D + "line/{Lines/Line/LineIdentification/@Value}",
         "Lines/Line/LineStart/@Value==Stations/Station/StationCode/@Value"),
        ("Lines/Line/LineEnd/@Value", "register.xml", "rail:lineEnd", "rail:Line",
         D + "line/{Lines/Line/LineIdentification/@Value}",
         "Lines/Line/LineEnd/@Value==Stations/Station/StationCode/@Value"),
    ]
    R, T = "http://example.org/rail#", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    kg = set((out / "kg.nt").read_text(encoding="utf-8").splitlines())
    assert f"<{D}line/L-100> <{R}lineEnd> <{D}station/ST02> ." in kg
    assert f"<{D}line/L-200> <{R}lineStart> <{D}station/ST02> ." in kg
    assert f'<{D}station/ST03> <{R}stationName> "Ede" .' in kg
    assert sum(1 for t in kg if f"<{T}> <{R}Station>" in t) == 3
    assert sum(1 for t in kg if f"<{T}> <{R}Line>" in t) == 2
    assert len(kg) == 19  # the flat register's triples, no more: the list elements and the root's attributes are no entity


def test_a_list_element_that_repeats_or_holds_values_is_no_wrapper(tmp_path):
    repeated = tmp_path / "repeated.xml"  # each record is its own list element: records of kind `A`, not lists
    repeated.write_text("<R><A><x><v>1</v></x><x><v>2</v></x></A><A><x><v>3</v></x><x><v>4</v></x></A>"
                        "<B><y>1</y></B><B><y>2</y></B></R>", encoding="utf-8")
    valued = tmp_path / "valued.xml"  # the element holds a value beside its items: a part of a document
    valued.write_text('<R><As n="2"><a><x>1</x></a><a><x>2</x></a></As><Bs><b><y>1</y></b><b><y>2</y></b></Bs></R>',
                      encoding="utf-8")
    mixed = tmp_path / "mixed.xml"  # items of two names: a part with children, no list
    mixed.write_text("<R><As><a><x>1</x></a><c><x>2</x></c></As><Bs><b><y>1</y></b><b><y>2</y></b></Bs></R>",
                     encoding="utf-8")
    assert record_kinds(load_source(Source(repeated, "xml"), tmp_path / "c")) == ["A", "B"]
    assert record_kinds(load_source(Source(valued, "xml"), tmp_path / "c")) == []
    assert record_kinds(load_source(Source(mixed, "xml"), tmp_path / "c")) == []
