"""The audit of a mapping table at compile: a broken cell is a finding naming the table's line and
column; an error leaves its row out (exit 1), a warning keeps it."""
from __future__ import annotations

import shutil

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import CASES, books_case, case_manifest, materialize_compiled, people_case


_PEOPLE_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                "ex:Person a owl:Class . ex:City a owl:Class .\n"
                "ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n"
                "ex:cityName a owl:DatatypeProperty ; rdfs:domain ex:City .\n")


def _people(tmp_path, sources: str, source_file: str) -> None:
    (tmp_path / "onto.ttl").write_text(_PEOPLE_ONTO, encoding="utf-8")
    (tmp_path / "people.csv").write_text("pid,name\n1,Ann\n2,Bob\n", encoding="utf-8")
    (tmp_path / "cities.csv").write_text("code,name\nMAD,Madrid\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: w\nsources: [{sources}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        f"| name | {source_file} | ex:name | ex:Person | http://example.org/person/{{pid}} |\n"
        "| name | cities.csv | ex:cityName | ex:City | http://example.org/city/{code} |\n", encoding="utf-8")


def test_compile_exits_1_and_counts_the_rows_it_left_out(tmp_path, capsys):
    # a bad cell leaves its row out of the RML: exit 1, and the summary line counts the rows left out
    books_case(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n"
                         "| price | books.csv | ex:price | ex:Book | http://example.org/b/{id} | xsd:decmal |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"
    assert err == (f"error: {tmp_path / 't.md'}:4 [datatype]: datatype cell 'xsd:decmal' is no datatype "
                   "(closest valid: xsd:decimal)\n")
    # `kgc run` replaying the same table loses the same row: exit 1 too
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "o")]) == 1
    assert "rows=1/2 errors=1 " in capsys.readouterr().out
    books_case(tmp_path, "| title | books.csv | ex:title | ex:Book | http://example.org/b/{id} | xsd:string |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().out == f"1 TriplesMaps (1 of 1 rows) written to {tmp_path / 'm.ttl'}\n"


def test_unknown_source_file_among_several_sources_is_an_error_and_the_row_is_left_out(tmp_path, capsys):
    # among several sources, reading the first one holding 'name' would be a guess: the row is left out
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"error: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the row "
        "is left out (known source files: people.csv, cities.csv)"]
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"


def test_unknown_source_file_with_one_source_or_a_near_miss_stays_a_warning(tmp_path, capsys):
    _people(tmp_path, "people.csv, cities.csv", "missing.csv")
    (tmp_path / "case.yaml").write_text("name: w\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("\n".join((tmp_path / "t.md").read_text(encoding="utf-8").splitlines()[:3]) + "\n",
                                   encoding="utf-8")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'missing.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]
    _people(tmp_path, "people.csv, cities.csv", "peeple.csv")  # a near miss names the file it is read from
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'peeple.csv' is not a source of the case; the "
        "row is read from people.csv (closest valid: people.csv)"]


def test_compile_warns_on_an_unknown_source_file_and_a_literal_object_property(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:City a owl:Class .\n"
        "ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n"
        "ex:livesIn a owl:ObjectProperty ; rdfs:domain ex:Person ; rdfs:range ex:City .\n", encoding="utf-8")
    (tmp_path / "people.csv").write_text("pid,name,city\n1,Ann,MAD\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: w\nsources: [people.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        "| name | peeple.csv | ex:name | ex:Person | http://example.org/person/{pid} |\n"
        "| city | people.csv | ex:livesIn | ex:Person | http://example.org/person/{pid} |\n", encoding="utf-8")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {tmp_path / 't.md'}:3 [source_file]: source file 'peeple.csv' is not a source of the case; the row is read from "
        "people.csv (closest valid: people.csv)",
        f"warning: {tmp_path / 't.md'}:4 [related_entity_class]: 'ex:livesIn' is an owl:ObjectProperty but the row has no related "
        "entity class (nor IRI datatype): its objects are written as literals",
    ]


def test_a_finding_on_a_named_source_names_that_source_not_the_shared_file(tmp_path, capsys):
    work = tmp_path / "case"
    shutil.copytree(CASES / "xml-named-sources", work)
    table = tmp_path / "t.md"
    table.write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype |\n"
        "|---|---|---|---|---|---|\n"
        "| @code | courses.xml | uni:courseCode | uni:Course | http://example.org/data/course/{@code} | xsd:string |\n"
        "| uni:nam | teachers.xml | uni:teacherName | uni:Teacher | http://example.org/data/teacher/{uni:name} | "
        "xsd:string |\n", encoding="utf-8")
    assert main(["-q", "compile", str(work / "case.yaml"), str(table), str(tmp_path / "m.ttl")]) == 1
    err = capsys.readouterr().err
    assert f"error: {table}:4 [data_reference]: data reference 'uni:nam' is no column/path of teachers.xml\n" in err
    assert ":3 [data_reference]" not in err  # courses.xml is the source of that name, which has @code


def test_literals_outside_the_range_and_concepts_without_value_map_are_compile_warnings(tmp_path, capsys):
    case = CASES / "table-literal-range"
    assert main(["compile", str(case / "case.yaml"), str(case / "table.md"), str(tmp_path / "m.ttl")]) == 0
    t = case / "table.md"
    shacl = "SHACL's sh:datatype is an exact match, so the shapes derived from the range reject every value"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {t}:4 [datatype]: the row writes xsd:string literals but the range of 'lib:title' is "
        f"rdf:langString: {shacl}",
        f"info: {t}:5 [language_tag]: language tag read per record from 'lang'",
        f"warning: {t}:6 [datatype]: the row writes rdf:langString literals but the range of 'lib:subtitle' is "
        f"xsd:string: {shacl} (closest valid: xsd:string)",
        f"warning: {t}:7 [datatype]: the row writes xsd:int literals but the range of 'lib:pageCount' is "
        f"xsd:nonNegativeInteger: {shacl} (closest valid: xsd:nonNegativeInteger)",
        f"warning: {t}:9 [datatype]: datatype 'xsd:integer' is narrower than the range xsd:decimal of 'lib:price': "
        "OWL accepts it, but SHACL's sh:datatype is an exact match, so the shapes derived from the range reject "
        "every value (SHACL fails) (closest valid: xsd:decimal)",
        f"warning: {t}:11 [function_output]: 'lib:genre' relates to skos:Concept but the row has no value map "
        "(Function Output 'code -> concept IRI', one pair per code) nor IRI datatype: the values of 'genre' are "
        "written as literals, not concepts",
    ]


def test_an_xsd_langstring_range_is_judged_as_rdf_langstring(tmp_path, capsys):
    # the slip `xsd:langString` (BLINKG's ontologies make it) is read as rdf:langString by every
    # stage (ontology.is_langstring), the range check of the audit too
    import shutil
    work = tmp_path / "case"
    shutil.copytree(CASES / "table-literal-range", work)
    onto = work / "onto.ttl"
    onto.write_text(onto.read_text(encoding="utf-8").replace("rdfs:range rdf:langString", "rdfs:range xsd:langString"),
                    encoding="utf-8")
    assert main(["compile", str(work / "case.yaml"), str(work / "table.md"), str(tmp_path / "m.ttl")]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (f"warning: {work / 'table.md'}:4 [datatype]: the row writes xsd:string literals but the range "
                     "of 'lib:title' is rdf:langString: SHACL's sh:datatype is an exact match, so the shapes derived "
                     "from the range reject every value")


def test_compile_prints_table_notes_and_yarrrml_errors_on_one_line(tmp_path, capsys):
    people_case(tmp_path)
    (tmp_path / "t2.md").write_text("| Data Ref | Source File | Ontology Property | Entity Class | Subject Generation |"
                                    "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                    "http://example.org/p/{pid} |\n", encoding="utf-8")
    case = str(tmp_path / "case.yaml")
    assert main(["compile", case, str(tmp_path / "t2.md"), str(tmp_path / "m.ttl")]) == 2  # its one row is left out: nothing compiles
    assert capsys.readouterr().err.splitlines()[0] == (
        f"note: {tmp_path / 't2.md'}:1: header 'Data Ref' is no mapping-table column; its cells are ignored")
    (tmp_path / "bad.yml").write_text("mappings: [\n", encoding="utf-8")
    assert main(["compile", case, str(tmp_path / "bad.yml"), str(tmp_path / "m.ttl")]) == 2
    assert capsys.readouterr().err == (f"error: {tmp_path / 'bad.yml'}:2: not YAML: expected the node content, "
                                       "but found '<stream end>'\n")
    # a YARRRML output in a new folder is written like a table's
    assert main(["compile", case, str(tmp_path / "t.md"), str(tmp_path / "m.ttl"), "--yarrrml"]) == 0
    assert main(["compile", case, str(tmp_path / "m.yarrrml.yml"), str(tmp_path / "new" / "m2.ttl")]) == 0
    assert (tmp_path / "new" / "m2.ttl").is_file()


def test_xpath_predicate_on_an_attribute_is_refused_by_the_audit(scenarios, tmp_path):
    """BLINKG scenario 3 case 2's gold table (its misspelt property corrected, as a repair or an
    LLM would) reads cbc:ID[@schemeName="ID_LOTE"] in a subject template: Morph-KGC 2.10 would
    stop with TypeError; the audit refuses the row, naming it, and the rest materializes."""
    from pipeline.bench.blinkg import write_manifests

    write_manifests(scenarios.parent, tmp_path / "manifests", ("csv",))
    case = load_manifest(tmp_path / "manifests" / "scenario3" / "2.yaml")
    table = tmp_path / "t.md"
    table.write_text(case.gold_table.read_text(encoding="utf-8").replace("DevidedIntoLot", "DividedIntoLot"),
                     encoding="utf-8")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    refused = [f for f in compiled.findings if "the engine cannot evaluate it" in f.message]
    assert [(f.line, f.column, f.severity) for f in refused] == [(3, "subject_template", "error")]
    assert 'ID_LOTE' in refused[0].message and refused[0].candidate.endswith("cac:ProcurementProjectLot/cbc:ID")
    assert len(materialize_compiled(compiled, sources, tmp_path)) > 0


def test_xml_reference_issue_replays_the_engine_reading():
    from pipeline.materialize.limits import xml_reference_issue

    ns = {"cbc": "urn:x"}
    assert [xml_reference_issue(r, ns) is None for r in ("cbc:ID", "a/b/@id", "@id", "a/b[c='1']/d", "a/b[1]")] ==\
        [True] * 5
    assert [xml_reference_issue(r, ns) is None for r in ('cbc:ID[@schemeName="X"]', "*[local-name()='t']",
                                                        "cbc:ID/text()")] == [False] * 3


def test_local_name_reference_is_refused_with_the_bound_path(tmp_path):
    from pipeline.compile.audit import audit_table
    from pipeline.table import MappingRow, MappingTable
    case = case_manifest("xml-default-namespace-table")
    ont = load_ontology(case.ontologies, case.prefixes)
    row = MappingRow(data_reference="*[local-name()='title']", source_file="items.xml", ontology_property="ex:title",
                     entity_class="ex:Record", subject_template="http://example.org/item/{code}", datatype="xsd:string",
                     line=3)
    result = audit_table(MappingTable(rows=[row]), ont, case, [load_source(s, tmp_path) for s in case.sources])
    errors = [f for f in result.findings if f.severity == "error"]
    assert len(errors) == 1 and errors[0].candidate == "d:title" and "local-name()" in errors[0].message


_EVENTS_ONTO = ("@prefix s: <https://schema.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                "s:Event a owl:Class . s:Place a owl:Class . s:name a owl:DatatypeProperty .\n"
                "s:location a owl:ObjectProperty ; rdfs:domain s:Event ; rdfs:range s:Place .\n")
_EVENTS_HEAD = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
                "Subject Generation | Join Condition |\n|---|---|---|---|---|---|---|\n"
                "| name | events.csv | s:name | s:Event |  | http://example.org/event/{event_id} |  |\n")


def _events(tmp_path, relation_row: str) -> None:
    (tmp_path / "onto.ttl").write_text(_EVENTS_ONTO, encoding="utf-8")
    (tmp_path / "events.csv").write_text("event_id,name,place_id\nE1,Jazz Night,P1\n", encoding="utf-8")
    (tmp_path / "places.csv").write_text("id,label\nP1,Hall\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [events.csv, places.csv]\nontologies: [onto.ttl]\n"
                                        'prefixes: {s: "https://schema.org/"}\n', encoding="utf-8")
    (tmp_path / "t.md").write_text(_EVENTS_HEAD + relation_row, encoding="utf-8")


def test_a_relation_row_without_join_reading_no_column_is_left_out(tmp_path, capsys):
    # no join condition: the record itself is the link, so its Data Reference must name data of the record;
    # 'venue' names nothing, and minting one place per event from the event's key would invent entities
    _events(tmp_path, "| venue | events.csv | s:location | s:Event | s:Place | http://example.org/event/{event_id} |  |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"error: {tmp_path / 't.md'}:4 [data_reference]: data reference 'venue' is no "
                                "column/path of events.csv"]
    assert out == f"1 TriplesMaps (1 of 2 rows; 1 left out, see the errors above) written to {tmp_path / 'm.ttl'}\n"


def test_a_relation_row_with_a_join_keeps_a_data_reference_naming_no_column_as_a_hint(tmp_path, capsys):
    # the join condition says which columns link the two entities: the Data Reference (here the related
    # class's name, as BLINKG's link-file rows write it) adds nothing and is only warned about
    _events(tmp_path, "| Place | events.csv | s:location | s:Event | s:Place | http://example.org/event/{event_id} | "
                      "events.place_id==places.id |\n"
                      "| label | places.csv | s:name | s:Place |  | http://example.org/place/{id} |  |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"warning: {tmp_path / 't.md'}:4 [data_reference]: data reference 'Place' is no "
                                "column/path of events.csv (relation row: resolved by the compiler) (closest valid: "
                                "place_id)"]
    assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    assert "<http://example.org/event/E1> <https://schema.org/location> <http://example.org/place/P1> ." in \
        (tmp_path / "kg.nt").read_text(encoding="utf-8").splitlines()


def test_a_relation_row_whose_join_names_no_column_either_is_left_out(tmp_path, capsys):
    # an identity join on a column the file lacks says nothing of the data: the Data Reference is no hint then
    _events(tmp_path, "| venue | events.csv | s:location | s:Event | s:Place | http://example.org/event/{event_id} | "
                      "venue==venue |\n")
    assert main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 't.md'}:4 [data_reference]: data reference 'venue' is no column/path of events.csv"]


def test_an_unknown_function_name_is_a_bad_cell_with_the_closest_table_function(tmp_path, capsys):
    # a name the compiler does not apply would let the values through untransformed: the row is left out;
    # a value map names its function freely
    people_case(tmp_path, gold=False)
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Function Name "
        "| Function Output |\n|---|---|---|---|---|---|---|\n"
        "| name | p.csv | ex:name | ex:Person | http://example.org/p/{pid} | trimm |  |\n"
        "| name | p.csv | ex:name | ex:Person | http://example.org/p/{pid} | trim |  |\n"
        "| name | p.csv | ex:name | ex:Person | http://example.org/p/{pid} | nameCode | Ann -> http://example.org/a |\n",
        encoding="utf-8")
    main(["compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")])
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if "[function_name]" in line] == [
        f"error: {tmp_path / 't.md'}:3 [function_name]: function 'trimm' is unknown (closest valid: trim)"]
