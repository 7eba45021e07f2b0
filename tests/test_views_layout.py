"""Logical views per group of term maps (pipeline/compile/views.py): each TriplesMap's view holds only
the fields its term maps read, repeated members read by different term maps are never combined in
one iteration (a record whose parts would multiply past the view limit materializes), and parts
read together nest as RML-LV nested iterable fields. The golden folder
tests/cases/view-repeated-parts-per-triplesmap holds the exact triples."""
from __future__ import annotations

import shutil
from pathlib import Path

from rdflib import Graph, Namespace
from rdflib.namespace import RDF

from pipeline.cli import main
from pipeline.materialize.views.view import MAX_ITERATIONS, template_references

RML = Namespace("http://w3id.org/rml/")
EX = Namespace("http://example.org/")
CASES = Path(__file__).resolve().parent / "cases"


def _keys(g: Graph, view) -> set[str]:
    """The expression-field keys of a view (absolute names, ``a.b.c``)."""
    out: set[str] = set()

    def walk(node, prefix: str) -> None:
        for f in g.objects(node, RML.field):
            name = prefix + str(g.value(f, RML.fieldName))
            if (f, RDF.type, RML.IterableField) in g:
                walk(f, name + ".")
            else:
                out.add(name)
    walk(view, "")
    return out


def _read(g: Graph, tm) -> set[str]:
    """The keys a TriplesMap's term maps read (positions left out: an index is no field)."""
    maps = [g.value(tm, RML.subjectMap)] + [om for pom in g.objects(tm, RML.predicateObjectMap)
                                            for om in g.objects(pom, RML.objectMap)]
    refs: set[str] = set()
    for m in maps:
        refs.update(str(r) for r in g.objects(m, RML.reference))
        for t in g.objects(m, RML.template):
            refs.update(template_references(str(t)))
    return {r for r in refs if not r.endswith("#")}


def test_each_view_holds_only_the_fields_its_triples_map_reads(tmp_path):
    work = tmp_path / "case"
    shutil.copytree(CASES / "view-repeated-parts-per-triplesmap", work)
    out = tmp_path / "m.ttl"
    assert main(["-q", "compile", str(work / "case.yaml"), str(work / "table.md"), str(out)]) == 0
    g = Graph().parse(out)
    tms = list(g.subjects(RDF.type, RML.TriplesMap))
    assert len(tms) == 8
    for tm in tms:
        view = g.value(tm, RML.logicalSource)
        assert (view, RDF.type, RML.LogicalView) in g
        assert _keys(g, view) == _read(g, tm), str(tm)
    # the pattern's own TriplesMap (typed) reads its key and name only, no repeated member
    typed = next(tm for tm in tms if (g.value(tm, RML.subjectMap), RML["class"], EX.Pattern) in g)
    assert _keys(g, g.value(typed, RML.logicalSource)) == {"pattern.id", "pattern.name"}


def _write_case(tmp_path: Path, per_part: int) -> None:
    def items(tag: str, pattern: int) -> str:
        return "".join(f"<{tag}>{tag}{pattern}-{i}</{tag}>" for i in range(per_part))
    patterns = "".join(f'<pattern id="P{p}" name="n{p}">{items("a", p)}{items("b", p)}{items("c", p)}</pattern>'
                       for p in range(2))
    (tmp_path / "catalog.xml").write_text(f"<catalog><patterns>{patterns}</patterns></catalog>", encoding="utf-8")
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Pattern a owl:Class .\n" + "".join(f"ex:{p} a owl:DatatypeProperty ; rdfs:domain ex:Pattern .\n"
                                             for p in ("name", "a", "b", "c")), encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [{path: catalog.xml, iterator: /catalog}]\nontologies: [onto.ttl]\n",
                                        encoding="utf-8")
    subject = "http://example.org/pattern/{patterns/pattern/@id}"
    rows = [("patterns/pattern/@name", "ex:name")] + [(f"patterns/pattern/{t}", f"ex:{t}") for t in "abc"]
    (tmp_path / "t.md").write_text(
        "| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        + "".join(f"| {ref} | catalog.xml | {prop} | ex:Pattern | {subject} |\n" for ref, prop in rows), encoding="utf-8")


def test_repeated_parts_read_by_different_term_maps_are_not_multiplied(tmp_path):
    per_part = 50  # one view over all three parts would give 50**3 iterations per pattern
    assert per_part ** 3 > MAX_ITERATIONS
    _write_case(tmp_path, per_part)
    assert main(["-q", "compile", str(tmp_path / "case.yaml"), str(tmp_path / "t.md"), str(tmp_path / "m.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "m.ttl"), str(tmp_path / "kg.nt")]) == 0
    kg = Graph().parse(tmp_path / "kg.nt")
    for p in range(2):
        s = EX[f"pattern/P{p}"]
        assert {str(o) for o in kg.objects(s, EX.b)} == {f"b{p}-{i}" for i in range(per_part)}
    # per pattern: its type, its name and 3 x 50 members
    assert len(kg) == 2 * (2 + 3 * per_part)


def test_yarrrml_of_a_nested_xml_view_reads_back_to_the_same_graph(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    work = tmp_path / "case"
    shutil.copytree(CASES / "compile-position-beside-other-part", work)
    table = work / "table.md"
    table.write_text("".join(table.read_text(encoding="utf-8").splitlines(keepends=True)[:4]), encoding="utf-8")
    rml, yml = tmp_path / "m.ttl", tmp_path / "m.yml"
    assert main(["-q", "compile", str(work / "case.yaml"), str(table), str(rml), "--yarrrml", str(yml)]) == 0
    text = yml.read_text(encoding="utf-8")
    # the skill's element is iterated, its pattern's key read upwards, its position among its siblings
    assert "iterator: /catalog/p/s" in text and "$(../@id)_$(count\\(preceding-sibling::s\\))" in text
    assert main(["-q", "compile", str(work / "case.yaml"), str(yml), str(tmp_path / "back.ttl")]) == 0
    assert main(["-q", "materialize", str(tmp_path / "back.ttl"), str(tmp_path / "back.nt")]) == 0
    assert set(Graph().parse(tmp_path / "back.nt")) == set(Graph().parse(work / "expected.nt"))
