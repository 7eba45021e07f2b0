"""A repeating part of a record (a JSON array of objects, an XML element repeating in a record) is one entity
per occurrence when two or more of its members name properties of a class related to the record's
(pipeline.mappers.offline.occurrences); a value that may repeat is no record key (pipeline.compile.parts.holds_array)."""
from __future__ import annotations

import json
from pathlib import Path

from rdflib import RDF, Graph, URIRef

from pipeline.cli import main
from pipeline.compile.parts import holds_array
from pipeline.manifest import Source
from pipeline.sources.load import load_source

from helpers import map_files

ONTO = """@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Software a owl:Class . ex:SoftwareVersion a owl:Class ; rdfs:subClassOf ex:Software .
ex:hasVersion a owl:ObjectProperty ; rdfs:domain ex:Software ; rdfs:range ex:SoftwareVersion .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:string .
ex:tag a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:string .
ex:dateCreated a owl:DatatypeProperty ; rdfs:domain ex:Software ; rdfs:range xsd:dateTime .
"""


def _map(tmp_path: Path, records: list, onto: str = ONTO) -> dict[str, dict]:
    return map_files(tmp_path, {"onto.ttl": onto, "repos.json": json.dumps(records)},
                     "name: r\nsources: [repos.json]\nontologies: [onto.ttl]\n")


def _repos(**extra) -> list:
    return [{"id": f"R{i}", "name": f"repo {i}", "dateCreated": f"2020-0{i}-01T00:00:00Z",
             "releases": [{"tag": f"{i}.{j}", "name": f"release {i}.{j}", "dateCreated": f"2021-0{j}-02T00:00:00Z"}
                          for j in range(1, i + 1)], **extra} for i in (1, 2, 3)]


def test_the_members_of_an_array_of_objects_are_one_entity_per_occurrence(tmp_path):
    rows = _map(tmp_path, _repos())
    for ref in ("releases.tag", "releases.name", "releases.dateCreated"):
        assert rows[ref]["entity_class"] == "ex:SoftwareVersion", ref
        assert rows[ref]["subject_template"].endswith("_{releases.#}"), ref
    assert rows["name"]["entity_class"] == "ex:Software"
    rel = rows["ex:hasVersion"]
    assert (rel["entity_class"], rel["related_entity_class"]) == ("ex:Software",
                                                                  "ex:SoftwareVersion")
    assert "record evidence" in rel["evidence"][0]  # the only relation between the two: forced


def test_one_member_of_a_part_stays_a_value_of_the_record(tmp_path):
    # each release object holds only a tag: a multi-valued property of the repository, nothing to pair
    records = [{"id": f"R{i}", "name": f"repo {i}", "releases": [{"tag": f"{i}.{j}"} for j in range(2)]}
               for i in range(3)]
    rows = _map(tmp_path, records)
    assert rows["releases.tag"]["entity_class"] == "ex:Software"
    assert "ex:hasVersion" not in rows


def test_a_part_no_related_class_fits_stays_on_the_record(tmp_path):
    # no object property relates the record's class to a class the members fit: nothing else to give them
    flat = ONTO.replace("ex:hasVersion a owl:ObjectProperty ; rdfs:domain ex:Software ; rdfs:range ex:SoftwareVersion .",
                        "")
    rows = _map(tmp_path, _repos(), flat)
    assert not any(r["entity_class"] == "ex:SoftwareVersion" for r in rows.values())


def test_a_value_that_may_repeat_is_no_record_key(tmp_path):
    # 'ids' is an array in every record (of one value here): a record holding two would be two subjects
    records = [{"ids": [f"X{i}"], "code": f"C{i}", "name": f"repo {i}"} for i in range(3)]
    rows = _map(tmp_path, records)
    assert rows["name"]["subject_template"].endswith("/{code}")
    data = load_source(Source(path=tmp_path / "repos.json", format="json"))
    assert holds_array(data, data.iterator, "ids") and not holds_array(data, data.iterator, "code")


# a part inside another part: the sections of each chapter of a book, the components of each line of an order
NESTED_ONTO = """@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Work a owl:Class . ex:Book a owl:Class ; rdfs:subClassOf ex:Work . ex:Chapter a owl:Class ; rdfs:subClassOf ex:Work .
ex:Section a owl:Class ; rdfs:subClassOf ex:Work .
ex:hasChapter a owl:ObjectProperty ; rdfs:domain ex:Book ; rdfs:range ex:Chapter .
ex:hasSection a owl:ObjectProperty ; rdfs:domain ex:Chapter ; rdfs:range ex:Section .
ex:isbn a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:string .
ex:title a owl:DatatypeProperty ; rdfs:domain ex:Work ; rdfs:range xsd:string .
ex:pages a owl:DatatypeProperty ; rdfs:domain ex:Work ; rdfs:range xsd:integer .
"""
#: (book, chapter, section) numbers: book i has i chapters, chapter j has j sections
_SECTIONS = [(i, j, k) for i in (1, 2, 3) for j in range(1, i + 1) for k in range(1, j + 1)]


def _books_json() -> str:
    return json.dumps([{"isbn": f"I{i}", "title": f"book {i}", "pages": 100 * i,
                        "chapters": [{"title": f"ch {i}.{j}", "pages": 10 * j,
                                      "sections": [{"title": f"sec {i}.{j}.{k}", "pages": k} for k in range(1, j + 1)]}
                                     for j in range(1, i + 1)]} for i in (1, 2, 3)])


def _books_xml() -> str:
    out = ["<books>"]
    for i in (1, 2, 3):
        out.append(f"<book><isbn>I{i}</isbn><title>book {i}</title><pages>{100 * i}</pages>")
        for j in range(1, i + 1):
            out.append(f"<chapter><title>ch {i}.{j}</title><pages>{10 * j}</pages>")
            out += [f"<section><title>sec {i}.{j}.{k}</title><pages>{k}</pages></section>" for k in range(1, j + 1)]
            out.append("</chapter>")
        out.append("</book>")
    return "\n".join(out + ["</books>"])


def _run(tmp_path: Path, files: dict[str, str], source: str) -> tuple[dict[str, dict], Graph]:
    """``kgc run`` (offline mapper, compiler, real Morph-KGC) on ``files``; the table's rows and the KG."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: n\nsources: [{source}]\nontologies: [onto.ttl]\n", encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    rows = json.loads((tmp_path / "out" / "custom" / "n" / "table.json").read_text(encoding="utf-8"))["rows"]
    return ({r["data_reference"] or r["ontology_property"]: r for r in rows},
            Graph().parse(tmp_path / "out" / "custom" / "n" / "kg.nt"))


def _objects(g: Graph, prop: str) -> set[tuple[str, str]]:
    """(subject's IRI tail, object) of ``prop``: the object's IRI tail or its literal text."""
    def tail(t) -> str:
        return str(t).rsplit("/", 1)[-1] if isinstance(t, URIRef) else str(t)
    return {(tail(s), tail(o)) for s, o in g.subject_objects(URIRef(f"http://example.org/o#{prop}"))}


def test_a_part_inside_a_part_is_one_entity_per_inner_occurrence_json(tmp_path):
    # the sections' title and pages fit ex:Work, a superclass of the book's class: read on the record
    # they would be more values of nothing (no class the record's relations reach): each is a Section of
    # its chapter, which ex:hasSection (domain ex:Chapter) relates to it
    rows, g = _run(tmp_path, {"onto.ttl": NESTED_ONTO, "books.json": _books_json()}, "books.json")
    for ref in ("chapters.sections.title", "chapters.sections.pages"):
        assert rows[ref]["entity_class"] == "ex:Section", ref
        assert rows[ref]["subject_template"].endswith("/{isbn}_{chapters.#}_{chapters.sections.#}"), ref
    assert (rows["ex:hasSection"]["entity_class"], rows["ex:hasSection"]["related_entity_class"]) == \
        ("ex:Chapter", "ex:Section")
    assert _objects(g, "hasSection") == {(f"I{i}_{j - 1}", f"I{i}_{j - 1}_{k - 1}") for i, j, k in _SECTIONS}
    titles = {(s, t) for s, t in _objects(g, "title") if t.startswith("sec")}
    assert titles == {(f"I{i}_{j - 1}_{k - 1}", f"sec {i}.{j}.{k}") for i, j, k in _SECTIONS}
    assert len(set(g.subjects(RDF.type, URIRef("http://example.org/o#Section")))) == len(_SECTIONS) == 10


def test_a_part_inside_a_part_is_one_entity_per_inner_occurrence_xml(tmp_path):
    rows, g = _run(tmp_path, {"onto.ttl": NESTED_ONTO, "books.xml": _books_xml()}, "books.xml")
    assert rows["chapter/section/title"]["subject_template"].endswith("/{isbn}_{chapter/#}_{chapter/section/#}")
    assert _objects(g, "hasSection") == {(f"I{i}_{j - 1}", f"I{i}_{j - 1}_{k - 1}") for i, j, k in _SECTIONS}
    pages = {(s, p) for s, p in _objects(g, "pages") if s.count("_") == 2}
    assert pages == {(f"I{i}_{j - 1}_{k - 1}", str(k)) for i, j, k in _SECTIONS}


ORDER_ONTO = """@prefix ex: <http://example.org/o#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Order a owl:Class . ex:OrderLine a owl:Class . ex:Component a owl:Class .
ex:hasLine a owl:ObjectProperty ; rdfs:domain ex:Order ; rdfs:range ex:OrderLine .
ex:hasComponent a owl:ObjectProperty ; rdfs:domain ex:OrderLine ; rdfs:range ex:Component .
ex:orderNumber a owl:DatatypeProperty ; rdfs:domain ex:Order ; rdfs:range xsd:string .
ex:quantity a owl:DatatypeProperty ; rdfs:domain ex:OrderLine ; rdfs:range xsd:integer .
ex:product a owl:DatatypeProperty ; rdfs:domain ex:OrderLine ; rdfs:range xsd:string .
ex:partName a owl:DatatypeProperty ; rdfs:domain ex:Component ; rdfs:range xsd:string .
ex:weight a owl:DatatypeProperty ; rdfs:domain ex:Component ; rdfs:range xsd:decimal .
"""
_ORDERS = {"O1": [("bike", ["wheel", "frame"]), ("lamp", ["bulb"])], "O2": [("bike", ["wheel"])],
           "O3": [("desk", ["top", "leg"]), ("chair", ["seat"])]}


def _components(g: Graph) -> set[tuple[str, str]]:
    """(product of a line, part name of a component the line has), through the KG's IRIs."""
    o = "http://example.org/o#"
    return {(str(g.value(line, URIRef(o + "product"))), str(g.value(comp, URIRef(o + "partName"))))
            for line, comp in g.subject_objects(URIRef(o + "hasComponent"))}


def test_an_inner_part_is_numbered_within_its_enclosing_occurrence(tmp_path):
    # the components' members name only ex:Component's properties: the nested-object rules open the
    # entity; keyed by the record and the inner position alone ({orderNumber}_{lines.components.#}), the
    # relation (read with each line, RML-LV numbering the components within it) linked the lamp to the
    # wheel; numbered within each line, every line links its own components
    data = [{"orderNumber": o, "lines": [{"product": p, "quantity": q + 1,
                                          "components": [{"partName": n, "weight": 1.5} for n in parts]}
                                         for q, (p, parts) in enumerate(lines)]} for o, lines in _ORDERS.items()]
    rows, g = _run(tmp_path, {"onto.ttl": ORDER_ONTO, "orders.json": json.dumps(data)}, "orders.json")
    assert rows["lines.components.partName"]["subject_template"].endswith(
        "/{orderNumber}_{lines.#}_{lines.components.#}")
    assert _components(g) == {("bike", "wheel"), ("bike", "frame"), ("lamp", "bulb"), ("desk", "top"),
                              ("desk", "leg"), ("chair", "seat")}
    assert len(list(g.subject_objects(URIRef("http://example.org/o#hasComponent")))) == 7


def test_an_element_inside_a_repeated_element_is_related_to_its_own_occurrence_xml(tmp_path):
    # XML's separator is '/': the component elements lie in the line elements, which the relation rows read
    xml = "<orders>" + "".join(
        f"<order><orderNumber>{o}</orderNumber>" + "".join(
            f"<line><product>{p}</product><quantity>{q + 1}</quantity>" + "".join(
                f"<component><partName>{n}</partName><weight>1.5</weight></component>" for n in parts) + "</line>"
            for q, (p, parts) in enumerate(lines)) + "</order>" for o, lines in _ORDERS.items()) + "</orders>"
    rows, g = _run(tmp_path, {"onto.ttl": ORDER_ONTO, "orders.xml": xml}, "orders.xml")
    assert (rows["ex:hasComponent"]["entity_class"], rows["ex:hasComponent"]["related_entity_class"]) == \
        ("ex:OrderLine", "ex:Component")
    assert _components(g) == {("bike", "wheel"), ("bike", "frame"), ("lamp", "bulb"), ("desk", "top"),
                              ("desk", "leg"), ("chair", "seat")}


ADVISORY = """@prefix ex: <http://example.org/o#> . @prefix dct: <http://purl.org/dc/terms/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:Advisory a owl:Class . ex:Sector a owl:Class .
ex:hasSector a owl:ObjectProperty ; rdfs:domain ex:Advisory ; rdfs:range ex:Sector .
ex:title a owl:DatatypeProperty ; rdfs:domain ex:Advisory ; rdfs:range xsd:string .
ex:sectorName a owl:DatatypeProperty ; rdfs:domain ex:Sector ; rdfs:range xsd:string .
dct:date a rdf:Property . dct:hasVersion a rdf:Property .
"""


def _advisories() -> list:
    return [{"id": f"A{i}", "title": f"advisory {i}",
             "revision_history": [{"date": f"2023-0{j}-1{i}", "version": f"{j}.{i}"} for j in range(1, i + 2)]}
            for i in (1, 2, 3)]


def test_members_of_domainless_properties_give_a_part_no_class(tmp_path):
    # dct:date and dct:hasVersion have no domain: usable on any class, they say nothing of which class the
    # revisions are, so the only relation's range (ex:Sector, a name the part does not fit) is not theirs
    rows = _map(tmp_path, _advisories(), ADVISORY)
    for ref, prop in (("revision_history.date", "dct:date"), ("revision_history.version", "dct:hasVersion")):
        assert (rows[ref]["entity_class"], rows[ref]["ontology_property"], rows[ref]["subject_template"]) == (
            "ex:Advisory", prop, "http://example.org/advisory/{id}"), ref
    assert not any(r["entity_class"] == "ex:Sector" for r in rows.values())
    assert "ex:hasSector" not in rows
    # the same members under properties whose domain is the range: one sector per occurrence
    own = ADVISORY.replace("dct:date a rdf:Property . dct:hasVersion a rdf:Property .",
                       "dct:date a owl:DatatypeProperty ; rdfs:domain ex:Sector . "
                       "dct:hasVersion a owl:DatatypeProperty ; rdfs:domain ex:Sector .")
    (tmp_path / "own").mkdir()
    rows = _map(tmp_path / "own", _advisories(), own)
    assert rows["revision_history.date"]["entity_class"] == "ex:Sector"
    assert rows["ex:hasSector"]["related_entity_class"] == "ex:Sector"

