"""Bad input found by the newcomer review: each gives one clear line naming the file, and exit 2."""
from __future__ import annotations

import pytest

from pipeline.cli import main
from pipeline.errors import InputError, OntologyError
from pipeline.ontology import load_ontology
from pipeline.rdffile import load_graph

FUNCTIONAL = "Prefix(:=<http://example.org/onto#>)\nOntology(<http://example.org/onto>\nDeclaration(Class(:Person))\n)\n"


def test_ontology_in_functional_syntax_is_one_line_with_hint(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text(FUNCTIONAL, encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == (f"{f}:1: cannot parse ontology as turtle: expected qname after @prefix; the file is in "
                              "OWL functional syntax, which is not read: save it as Turtle or RDF/XML")
    assert err.value.line == 1


def test_ontology_unknown_extension_reports_the_turtle_error(tmp_path):
    f = tmp_path / "onto.owx"
    f.write_text(FUNCTIONAL, encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value).startswith(f"{f}:1: cannot parse ontology (extension '.owx' unknown, read as turtle): "
                                     "expected qname after @prefix; the file is in OWL functional syntax")
    assert "\n" not in str(err.value) and "BufferedReader" not in str(err.value)


def test_turtle_syntax_error_names_its_line(tmp_path):
    f = tmp_path / "onto.ttl"
    f.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e\n ex:f ex:g .\n", encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == f"{f}:4: cannot parse ontology as turtle: expected '.' or '}}' or ']' at end of statement"


def test_gold_graph_rdfxml_error_names_line(tmp_path):
    f = tmp_path / "gold.rdf"
    f.write_text('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<a>\n',
                 encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_graph(f, "gold graph")
    assert str(err.value) == f"{f}:4: gold graph: not valid xml: no element found (column 0)"


def test_materialize_turtle_syntax_error_is_one_line(tmp_path, capsys):
    rml = tmp_path / "m.ttl"
    rml.write_text("@prefix rml: <http://w3id.org/rml/> .\n<#TM> a rml:TriplesMap ;\n rml:logicalSource [\n",
                   encoding="utf-8")
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {rml}:")
    assert ": not an RML mapping in Turtle: " in err and "\n" not in err and "b'" not in err


def test_materialize_a_turtle_file_that_is_not_rml(tmp_path, capsys):
    kg = tmp_path / "kg.ttl"
    kg.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    assert main(["materialize", str(kg), str(tmp_path / "out.nt")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {kg}: no TriplesMap found (no rml:subjectMap / rr:subjectMap in the document)")
    assert not (tmp_path / "out.nt").exists()


def test_validate_prints_the_first_syntax_finding_and_why_the_rest_did_not_run(tmp_path, capsys):
    onto = tmp_path / "onto.ttl"
    onto.write_text("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                    "ex:Person a owl:Class .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text("id\n1\n", encoding="utf-8")
    case = tmp_path / "case.yaml"
    case.write_text("name: v\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    kg = tmp_path / "kg.nt"  # Turtle in a .nt file: read as N-Triples, as its extension says
    kg.write_text("@prefix ex: <http://example.org/> .\nex:a a ex:Person .\n", encoding="utf-8")
    assert main(["validate", str(case), str(kg), "--out", str(tmp_path / "v.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["SV2: fails (2 fatals)",
                       f"  {kg}:1:1: fatal: expected an IRI or blank node as subject, found '@'",
                       f"  {kg}:2:1: fatal: expected an IRI or blank node as subject, found 'e'"]
    assert "SHACL: not run: the KG does not parse (see SV2)" in out


@pytest.mark.parametrize("tag,ok", [("None", False), ("null", False), ("en", True), ("sr-Latn-RS", True),
                                    ("zh-Hant", True), ("x-none", True), ("nan", True)])
def test_language_tag_with_a_four_letter_primary_subtag_is_an_error(tag, ok):
    from pipeline.validation.terms import check_langtag
    assert (check_langtag(tag) == []) is ok


def test_sv2_flags_a_missing_value_written_as_language_tag(tmp_path):
    from pipeline.validation.syntax import check_ntriples
    f = tmp_path / "kg.nt"
    f.write_text('<http://ex.org/a> <http://ex.org/title> "The Starry Night"@None .\n'
                 '<http://ex.org/b> <http://ex.org/title> "Las Meninas"@es .\n', encoding="utf-8")
    r = check_ntriples(f)
    assert r.value is False
    assert [(x.code, x.line, x.term) for x in r.findings] == [
        ("bad-language-tag", 1, '"The Starry Night"@None')]
    assert r.findings[0].message == ("language tag @None: a 4-letter primary language subtag is reserved "
                                     "(RFC 5646 section 2.2.1); a missing value written as a tag?")


def test_materialize_never_writes_a_none_language_tag(tmp_path, capsys):
    """An XML language attribute the reference misses (``@lang`` for ``xml:lang``) gives "None" per record."""
    (tmp_path / "works.xml").write_text(
        '<works><work id="A1"><title xml:lang="en">Starry Night</title></work></works>\n', encoding="utf-8")
    rml = tmp_path / "m.ttl"
    rml.write_text(f"""@prefix rml: <http://w3id.org/rml/> .
<#TM> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "{tmp_path / 'works.xml'}" ; rml:referenceFormulation rml:XPath ;
                      rml:iterator "/works/work" ] ;
  rml:subjectMap [ rml:template "http://ex.org/work/{{@id}}" ] ;
  rml:predicateObjectMap [ rml:predicate <http://ex.org/title> ;
    rml:objectMap [ rml:reference "title" ; rml:languageMap [ rml:reference "title/@lang" ] ] ] .
""", encoding="utf-8")
    # the engine's missing value never becomes a "None" tag: no literal for the record, said on stderr
    assert main(["materialize", str(rml), str(tmp_path / "kg.nt")]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == ""
    err = capsys.readouterr().err
    assert "1 record(s) have no value for 'title/@lang' (empty or missing): no term made from them" in err
    assert "yields no triple" in err


def test_run_with_an_unparsable_ontology_records_the_failure_in_the_audit(tmp_path, capsys):
    import json
    (tmp_path / "onto.ttl").write_text(FUNCTIONAL, encoding="utf-8")
    (tmp_path / "p.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: o\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out")]) == 2
    folder = tmp_path / "out" / "custom" / "o"
    assert json.loads((folder / "audit.json").read_text()) == [{
        "stage": "load", "file": "onto.ttl", "line": 1, "column": None, "value": None, "expected": None,
        "candidate": None, "severity": "error",
        "message": "cannot parse ontology as turtle: expected qname after @prefix; the file is in OWL functional "
                   "syntax, which is not read: save it as Turtle or RDF/XML"}]
    run = json.loads((folder / "run.json").read_text())
    assert (run["status"], run["failed_stage"], run["error_kind"], run["findings"]["errors"]) == (
        "failed", "load", "input", 1)


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


def test_join_condition_with_a_stem_qualified_xpath_side_compiles(tmp_path):
    """The offline mapper writes ``artworks.d:artist/@ref==artists.artist_id`` for a default-namespace XML."""
    (tmp_path / "onto.ttl").write_text(
        "@prefix m: <http://example.org/museum#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "m:Artwork a owl:Class . m:Artist a owl:Class .\n"
        "m:createdBy a owl:ObjectProperty ; rdfs:domain m:Artwork ; rdfs:range m:Artist .\n"
        "m:artistName a owl:DatatypeProperty ; rdfs:domain m:Artist .\n", encoding="utf-8")
    (tmp_path / "artworks.xml").write_text(
        '<catalogue xmlns="http://example.org/catalogue/2024">\n'
        '  <artwork id="A1"><artist ref="P1"/></artwork>\n  <artwork id="A2"><artist ref="P2"/></artwork>\n'
        '</catalogue>\n', encoding="utf-8")
    (tmp_path / "artists.json").write_text(
        '{"artists": [{"artist_id": "P1", "artist_name": "Vincent van Gogh"},'
        ' {"artist_id": "P2", "artist_name": "Diego Velazquez"}]}\n', encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: museum\nsources: [artworks.xml, artists.json]\nontologies: [onto.ttl]\n"
                                        "gold: {table: t.md}\n", encoding="utf-8")
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | Subject Generation "
        "| Join Condition |\n|---|---|---|---|---|---|---|\n"
        "| artist_name | artists.json | m:artistName | m:Artist | | http://example.org/artist/{artist_id} | |\n"
        "| d:artist/@ref | artworks.xml | m:createdBy | m:Artwork | m:Artist | http://example.org/artwork/{@id} "
        "| artworks.d:artist/@ref==artists.artist_id |\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--out", str(out),
                 "--no-evaluate"]) == 0
    kg = (out / "custom" / "museum" / "kg.nt").read_text(encoding="utf-8").splitlines()
    assert sorted(line for line in kg if "createdBy" in line) == [
        "<http://example.org/artwork/A1> <http://example.org/museum#createdBy> <http://example.org/artist/P1> .",
        "<http://example.org/artwork/A2> <http://example.org/museum#createdBy> <http://example.org/artist/P2> .",
    ]


def test_score_prints_na_with_the_reason_not_none(tmp_path, capsys):
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    gold = '<http://example.org/p/1> <http://example.org/name> "Ann" .\n'
    (tmp_path / "gold.nt").write_text(gold, encoding="utf-8")
    (tmp_path / "kg.nt").write_text(gold, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: s\nsources: [p.csv]\nontologies: [onto.ttl]\ngold: {graph: gold.nt}\n",
                                        encoding="utf-8")
    assert main(["score", str(tmp_path / "case.yaml"), "--kg", str(tmp_path / "kg.nt"),
                 "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "SA2-prop-exact: 1.000" in out
    assert "PQ3: n/a (the case has no competency questions: the manifest key competency_questions names none)" in out
    assert not any(line.endswith(": None") for line in out)


def _people_case(tmp_path, extra: str = "") -> None:
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text("pid,name\n1,Ann\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |"
                                   "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                   "http://example.org/p/{pid} |\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: c\nsources: [p.csv]\nontologies: [onto.ttl]\ngold: {{table: t.md}}\n"
                                        f"{extra}", encoding="utf-8")


def test_unparsable_shapes_file_is_bad_input_for_run_and_validate(tmp_path, capsys):
    _people_case(tmp_path, "shapes: [shapes.ttl]\n")
    (tmp_path / "shapes.ttl").write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\nex:S a sh:NodeShape .\n",
                                         encoding="utf-8")
    (tmp_path / "kg.nt").write_text('<http://example.org/p/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--out", str(tmp_path / "o")]) == 2
    assert main(["validate", str(tmp_path / "case.yaml"), str(tmp_path / "kg.nt"),
                 "--out", str(tmp_path / "v.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f'error: {tmp_path / "shapes.ttl"}:2: SHACL shapes: not valid turtle: Prefix "ex:" not bound'


def test_a_competency_question_with_a_syntax_error_is_named_in_pq(tmp_path):
    import json
    _people_case(tmp_path, "competency_questions: [bad.rq]\n")
    (tmp_path / "bad.rq").write_text("# CQ: who has a name?\nSELECT ?x WHERE { ?x ?y \n", encoding="utf-8")
    (tmp_path / "gold.nt").write_text('<http://example.org/p/1> <http://example.org/name> "Ann" .\n', encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: c\nsources: [p.csv]\nontologies: [onto.ttl]\ngold: {graph: gold.nt}\n"
                                        "competency_questions: [bad.rq]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(tmp_path / "o")]) == 0
    scores = json.loads((tmp_path / "o" / "custom" / "c" / "graph_scores.json").read_text())
    assert (scores["PQ3"]["value"], scores["PQ3"]["status"]) == (None, "not_run")  # never "not applicable"
    assert scores["PQ3"]["details"]["reason"] == (
        f"no competency question could be answered on the gold KG; first: {tmp_path / 'bad.rq'}: "
        "CQ bad (who has a name?): SPARQL syntax error at line 2, column 19: Expected SelectQuery, found '?'; not run")
    assert [f["code"] for f in scores["PQ3"]["findings"]] == ["cq-syntax"]


def test_compile_prints_table_notes_and_yarrrml_errors_on_one_line(tmp_path, capsys):
    _people_case(tmp_path)
    (tmp_path / "t2.md").write_text("| Data Ref | Source File | Ontology Property | Entity Class | Subject Generation |"
                                    "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                    "http://example.org/p/{pid} |\n", encoding="utf-8")
    case = str(tmp_path / "case.yaml")
    assert main(["compile", case, str(tmp_path / "t2.md"), str(tmp_path / "m.ttl")]) == 1  # its one row is left out (no data reference)
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


@pytest.mark.parametrize("line,message", [
    ("base_iri: not an iri", "4: base_iri: 'not an iri' is not an absolute IRI (expected e.g. 'http://example.org/')"),
    ("prefixes: {ex: 'http://ex.org/a b#'}",
     "4: prefixes.ex: 'http://ex.org/a b#' is not an absolute IRI (expected e.g. 'http://example.org/')"),
])
def test_manifest_rejects_a_base_or_prefix_that_is_no_absolute_iri(tmp_path, line, message):
    from pipeline.errors import ManifestError
    from pipeline.manifest import load_manifest
    _people_case(tmp_path)
    f = tmp_path / "m.yaml"
    f.write_text(f"name: c\nsources: [p.csv]\nontologies: [onto.ttl]\n{line}\n", encoding="utf-8")
    with pytest.raises(ManifestError) as err:
        load_manifest(f)
    assert str(err.value) == f"{f}:{message}"


def test_report_says_why_a_kg_check_fails_and_links_the_validation(tmp_path):
    """A functional property with two values: CS2 says no; the report names the first error."""
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:domain ex:Person .\n",
        encoding="utf-8")
    (tmp_path / "p.csv").write_text("pid,name\n1,Ann\n1,Anna\n", encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |"
                                   "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                   "http://example.org/p/{pid} |\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: f\nsources: [p.csv]\nontologies: [onto.ttl]\n", encoding="utf-8")
    out = tmp_path / "o"
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--mapper", "replay", "--table", str(tmp_path / "t.md"),
                 "--out", str(out)]) == 1
    md = (out / "custom" / "report.md").read_text(encoding="utf-8")
    assert ("- CS2-owlrl fails: Cardinality: http://example.org/p/1 has 2 distinct literal values of "
            "http://example.org/name, at most 1 allowed (functional property) "
            "(1 error(s); all in graph_validation.json)") in md
    assert "[graph validation (JSON)](f/graph_validation.json)" in md
    assert "<li>CS2-owlrl fails: Cardinality" in (out / "custom" / "report.html").read_text(encoding="utf-8")


def test_run_rejects_zero_processes(tmp_path, capsys):
    _people_case(tmp_path)
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--processes", "0", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == "error: --processes must be at least 1, got 0\n"
    assert not (tmp_path / "o").exists()


def test_an_ontology_without_classes_or_properties_fails_at_load(tmp_path):
    f = tmp_path / "empty.ttl"
    f.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    with pytest.raises(OntologyError) as err:
        load_ontology([f])
    assert str(err.value) == (f"{f}: no class or property is declared (1 triples read): expected an ontology with "
                              "owl:Class/rdfs:Class and property declarations")
