"""The YARRRML reader on the specification's syntax: what it accepts gives the KG the document says,
what kgc does not run is refused naming the mapping, the key and the line (exit 2), never dropped.

Case yarrrml-condition-ignored (../shared/cases, inputs in tests/cases/yarrrml-condition-ignored/):
a `condition` on a predicate-object, the `[p, o, lang~lang]` short form and `language: $(lang)`.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.cli import main
from pipeline.compile.rml import RML
from pipeline.compile.yarrrml import load_yarrrml, to_yarrrml
from pipeline.errors import InputError

CASES = Path(__file__).resolve().parent / "cases"
EX = "http://example.com/"


def _kg(path: Path) -> set[tuple[str, str, str]]:
    return {(str(s), str(p), o.n3()) for s, p, o in Graph().parse(path, format="nt")}


@pytest.fixture()
def case(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "case"
    shutil.copytree(CASES / "yarrrml-condition-ignored", folder)
    monkeypatch.chdir(folder)
    return folder


def test_condition_on_a_predicate_object_keeps_only_the_rows_where_it_holds(case):
    # the case's command, as its README gives it
    assert main(["compile", "case.yaml", "y142.yml", "m.ttl", "-q"]) == 0
    assert main(["materialize", "m.ttl", "out.nt", "-q"]) == 0
    kg = _kg(case / "out.nt")
    # flag=yes: r/1 gets its text; r/2 (flag=no) none; r/3 (flag=yes) has an empty text: no literal
    assert {t for t in kg if t[1] == EX + "desc"} == {(EX + "r/1", EX + "desc", '"hallo"@nl')}
    assert {t[0] for t in kg if t[1] == str(RDF.type)} == {EX + "r/1", EX + "r/2", EX + "r/3"}
    # the condition is in the RML, as IDLab's trueCondition (yarrrml-parser's translation)
    rml = Graph().parse(case / "m.ttl")
    assert URIRef("https://w3id.org/imec/idlab/function#trueCondition") in set(rml.objects(None, RML.function))


def test_short_language_form_and_language_from_a_column(case):
    (case / "y2.yarrrml").write_text("""prefixes: {ex: "http://example.com/"}
mappings:
  rec:
    source: [d.csv~csv]
    s: ex:r/$(id)
    po:
      - [a, ex:Rec]
      - [ex:desc, $(text), nl~lang]
      - p: ex:label
        o: {value: $(text), language: $(lang)}
      - [schema:name, $(text)]
""", encoding="utf-8")
    assert main(["compile", "y2.yarrrml", "-o", "m2.ttl", "-q"]) == 0  # no manifest needed for YARRRML
    assert main(["materialize", "m2.ttl", "out2.nt", "-q"]) == 0
    kg = _kg(case / "out2.nt")
    assert {(s, o) for s, p, o in kg if p == EX + "label"} == {(EX + "r/1", '"hallo"@nl'), (EX + "r/2", '"hello"@en')}
    assert {(s, o) for s, p, o in kg if p == EX + "desc"} == {(EX + "r/1", '"hallo"@nl'), (EX + "r/2", '"hello"@nl')}
    # schema: is one of YARRRML's predefined prefixes (the RDFa 1.1 initial context)
    assert (EX + "r/1", "http://schema.org/name", '"hallo"') in kg


def _refused(folder: Path, text: str, capsys) -> str:
    (folder / "bad.yarrrml").write_text(text, encoding="utf-8")
    assert main(["compile", str(folder / "bad.yarrrml"), "-o", str(folder / "bad.ttl"), "-q"]) == 2
    assert not (folder / "bad.ttl").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    return err[0]


HEAD = 'prefixes: {ex: "http://example.com/"}\nmappings:\n  rec:\n    sources: [[d.csv~csv]]\n    s: ex:r/$(id)\n'


@pytest.mark.parametrize("body, line, message", [
    ("    po:\n      - [ex:p, $(text)]\n    objects: [x]\n", 8,
     "mapping 'rec': unknown key 'objects' (known: authors, changeDetection, conditions, graphs, predicateobjects, "
     "sources, subjects, targets)"),
    ("    po:\n      - [foo:p, $(text)]\n", 7,
     "mapping 'rec', predicateobjects[1], predicate: prefix 'foo' of 'foo:p' is not declared"),
    ("    po:\n      - p: ex:p\n        o: {mapping: rec, condition: {function: equal, parameters: "
     "[[str1, 'x-$(id)'], [str2, $(id)]]}}\n", 8,
     "join condition 1: parameter 'str1': a join compares references ($(column)); found 'x-$(id)'"),
    ("    po:\n      - p: ex:p\n        o: {value: $(text), targets: [t1]}\n", 8,
     "logical targets (where triples are written) are not supported"),
    ("    po:\n      - p: ex:p\n        o: {value: $(text), language: en, datatype: xsd:string}\n", 8,
     "both a datatype and a language tag"),
    ("    po:\n      - [ex:p, $(text]\n", None, "is never closed by ')'"),
])
def test_what_kgc_does_not_run_is_refused_by_mapping_key_and_line(case, capsys, body, line, message):
    err = _refused(case, HEAD + body, capsys)
    where = f"bad.yarrrml:{line}: " if line else "bad.yarrrml"
    assert where in err and message in err, err


def test_a_function_the_engine_lacks_is_refused_at_compile_not_at_materialize(case, capsys):
    err = _refused(case, HEAD + "    po:\n      - [ex:p, {function: ex:nothing, parameters: [[ex:v, $(text)]]}]\n",
                   capsys)
    assert "function <http://example.com/nothing> is not known to the engine" in err


def test_several_subjects_and_sources_make_a_triples_map_each_and_joins_reach_all(tmp_path):
    (tmp_path / "a.csv").write_text("id,friend\n1,3\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,friend\n3,1\n", encoding="utf-8")
    (tmp_path / "m.yml").write_text("""prefixes: {ex: "http://example.com/"}
sources:
  first: [a.csv~csv]
mappings:
  p:
    sources: [first, [b.csv~csv]]
    s: [ex:p/$(id), ex:q/$(id)]
    po:
      - p: ex:knows
        o:
          mapping: p
          condition: {function: equal, parameters: [[str1, $(friend), s], [str2, $(id), o]]}
""", encoding="utf-8")
    doc = load_yarrrml(tmp_path / "m.yml")
    assert len(doc.triples_maps["p"]) == 4
    assert main(["compile", str(tmp_path / "m.yml"), "-o", str(tmp_path / "m.ttl"), "-q"]) == 0
    assert main(["materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt"), "-q"]) == 0
    kg = _kg(tmp_path / "kg.nt")
    # p/1 (a.csv) knows 3, found in b.csv by both its subjects; and p/3 knows 1, likewise
    assert {(s, o) for s, _, o in kg} == {(f"{EX}{a}/{x}", f"<{EX}{b}/{y}>") for a in "pq" for b in "pq"
                                          for x, y in (("1", "3"), ("3", "1"))}


def test_export_keeps_language_maps_base_and_escapes_references(tmp_path):
    g = Graph()
    tm, ls, sm, pom, om, lm = (URIRef("https://w3id.org/kgc-pipeline/mapping#t"), *(URIRef(f"urn:x:{i}") for i in range(5)))
    for t in [(tm, RDF.type, RML.TriplesMap), (tm, RML.logicalSource, ls), (ls, RML.source, Literal("/d/x.xml")),
              (ls, RML.referenceFormulation, RML.XPath), (ls, RML.iterator, Literal("/r/e")),
              (tm, RML.baseIRI, URIRef("http://base.org/")), (tm, RML.subjectMap, sm),
              (sm, RML.template, Literal("http://e.org/{replace(id,'a','b')}")), (sm, RML.termType, RML.IRI),
              (tm, RML.predicateObjectMap, pom), (pom, RML.predicate, URIRef(EX + "label")),
              (pom, RML.objectMap, om), (om, RML.reference, Literal("name")), (om, RML.languageMap, lm),
              (lm, RML.reference, Literal("@xml:lang"))]:
        g.add(t)
    text = to_yarrrml(g)
    doc = yaml.safe_load(text)
    assert doc["base"] == "http://base.org/"
    assert doc["mappings"]["t"]["s"]["value"] == r"http://e.org/$(replace\(id,'a','b'\))"
    assert doc["mappings"]["t"]["po"][0]["o"]["language"] == "$(@xml:lang)"
    (tmp_path / "m.yml").write_text(text, encoding="utf-8")
    back = load_yarrrml(tmp_path / "m.yml").graph
    assert {str(o) for o in back.objects(None, RML.template)} == {"http://e.org/{replace(id,'a','b')}"}
    assert {str(back.value(n, RML.reference)) for n in back.objects(None, RML.languageMap)} == {"@xml:lang"}
    assert set(back.objects(None, RML.baseIRI)) == {URIRef("http://base.org/")}


def test_yaml_scalars_are_read_as_written(tmp_path):
    (tmp_path / "m.yml").write_text("""mappings:
  p:
    sources: [[d.csv~csv]]
    s: http://e.org/$(id)
    po:
      - [http://e.org/flag, yes]
      - [http://e.org/n, 007]
""", encoding="utf-8")
    g = load_yarrrml(tmp_path / "m.yml").graph
    assert {str(o) for o in g.objects(None, RML.constant)} >= {"yes", "007"}


def test_not_yaml_names_the_line(tmp_path):
    (tmp_path / "m.yml").write_text("mappings:\n  p: [a, b\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"m.yml:3: not YAML"):
        load_yarrrml(tmp_path / "m.yml")


def test_round_trip_through_yarrrml_keeps_per_record_language_tags(tmp_path):
    """A table whose Language Tag names a column: the YARRRML export keeps the language map, and
    the KG compiled back from it equals the table's KG (tags per record included)."""
    case = CASES / "language-tag-from-column"
    rml, yml = tmp_path / "m.ttl", tmp_path / "m.yarrrml.yml"
    assert main(["compile", str(case / "case.yaml"), str(case / "table.md"), str(rml), "--yarrrml", "-q"]) == 0
    assert main(["materialize", str(rml), str(tmp_path / "a.nt"), "-q"]) == 0
    assert main(["compile", str(case / "case.yaml"), str(yml), str(tmp_path / "back.ttl"), "-q"]) == 0
    assert main(["materialize", str(tmp_path / "back.ttl"), str(tmp_path / "b.nt"), "-q"]) == 0
    a, b = _kg(tmp_path / "a.nt"), _kg(tmp_path / "b.nt")
    assert a == b and {o for _, _, o in a if "@" in o} == {'"colour"@en-gb', '"hola"@es'}
    assert yaml.safe_load(yml.read_text())["base"] == "http://example.org/"


def test_a_source_path_relative_to_the_working_directory_is_found(tmp_path, monkeypatch, capsys):
    """A tutorial's YARRRML in mappings/ naming data/p.csv, run from the project's root as Morph-KGC
    and RMLMapper run it: read from the working directory when the mapping's folder has no such file;
    from elsewhere the error names the path looked for."""
    (tmp_path / "mappings").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "p.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    (tmp_path / "mappings" / "m.yml").write_text(
        "prefixes:\n  ex: http://example.org/\nmappings:\n  person:\n    sources:\n      - [data/p.csv~csv]\n"
        "    s: http://example.org/person/$(id)\n    po:\n      - [ex:name, $(name)]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["materialize", "mappings/m.yml", "kg.nt", "-q"]) == 0
    assert (tmp_path / "kg.nt").read_text(encoding="utf-8") == \
        '<http://example.org/person/1> <http://example.org/name> "Ann" .\n'
    monkeypatch.chdir(tmp_path / "mappings")
    assert main(["materialize", "m.yml", str(tmp_path / "kg2.nt"), "-q"]) == 2
    assert f"logical source file '{tmp_path / 'mappings' / 'data' / 'p.csv'}' not found" in capsys.readouterr().err
