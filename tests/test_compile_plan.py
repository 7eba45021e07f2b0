"""The plan of the RML: subjects from relative templates need a base IRI; joins (self-joins on
another column, on the key, through a link file, on an XPath side) link the right records."""
from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import RDF

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

from helpers import CASES, compile_case, materialize_compiled, write_shop_case


EX = "http://example.org/"
O = "http://example.org/o#"


def test_relative_template_without_base_is_an_error(tmp_path):
    from dataclasses import replace

    from pipeline.compile.plan import plan_mapping

    compiled, sources = compile_case("relative-template-with-base", tmp_path)
    case = replace(load_manifest(CASES / "relative-template-with-base" / "case.yaml"), base_iri="")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    plan = plan_mapping(compiled.audit, ontology, case, "table.md", sources)
    assert plan.triples_maps == [] and sorted(plan.dropped_lines) == [3, 4]
    assert all("no base IRI" in f.message and f.severity == "error" for f in plan.findings)


def test_self_join_links_different_records(tmp_path):
    compiled, sources = compile_case("self-join-reflexive-only", tmp_path)
    kg = materialize_compiled(compiled, sources, tmp_path)
    car = {i: URIRef(f"{EX}car/car{i}") for i in (1, 2, 3)}
    assert set(kg.subject_objects(URIRef(O + "sameColorAs"))) == {
        (car[1], car[1]), (car[1], car[2]), (car[2], car[1]), (car[2], car[2]), (car[3], car[3])}
    assert len(list(kg.subjects(RDF.type, URIRef(O + "Car")))) == 3
    # the parent is a twin on an equivalent spelling of the same file, so the engine really joins
    twin = next(tm for tm in compiled.plan.triples_maps if tm.id.endswith("_joinParent"))
    assert twin.source_path.endswith("/./cars.csv") and not twin.poms and not twin.classes


def test_join_on_a_key_column_of_the_same_source_stays_the_same_record(tmp_path):
    table = tmp_path / "t.md"
    table.write_text("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
                     "Subject Generation | Join Condition |\n|---|---|---|---|---|---|---|\n"
                     "| car | cars.csv | ex:sameColorAs | ex:Car | ex:Car | http://example.org/car/{car} | "
                     "cars.car==cars.car |\n", encoding="utf-8")
    case = load_manifest(CASES / "self-join-reflexive-only" / "case.yaml")
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(table), ontology, case, sources)
    [tm] = compiled.plan.triples_maps
    assert tm.poms[0].objects[0].parent is None and tm.poms[0].objects[0].term.value == "http://example.org/car/{car}"


def test_link_file_row_uses_the_triples_map_of_the_joined_source(tmp_path):
    """Two TriplesMaps of ex:Product (products.csv keyed by prod_ref, and a stray one in makers.csv
    keyed by motto): the link-file row joins products.prod_ref, so its subjects come from products."""
    from rdflib import Graph, URIRef

    from pipeline.compile import compile_table
    from pipeline.materialize.materializer import materialize
    from pipeline.materialize.rml.normalize import normalize_rml
    from pipeline.sources.load import load_source
    from pipeline.table import read_table

    case = load_manifest(write_shop_case(tmp_path))
    (tmp_path / "products_makers.csv").write_text("product,maker\nP01,M1\nP02,M2\nP03,M2\n")
    (tmp_path / "case.yaml").write_text((tmp_path / "case.yaml").read_text().replace(
        "ontologies:", "- path: products_makers.csv\n  format: csv\nontologies:"))
    case = load_manifest(tmp_path / "case.yaml")
    head = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
            "Subject Generation | Join Condition |\n|---|---|---|---|---|---|---|\n")
    (tmp_path / "t.md").write_text(head + (
        "| motto | makers.csv | ex:tradeName | ex:Product |  | http://example.org/product/{motto} |  |\n"
        "| prod_ref | products.csv | ex:productCode | ex:Product |  | http://example.org/product/{prod_ref} |  |\n"
        "| mkr_ref | makers.csv | ex:makerCode | ex:Maker |  | http://example.org/maker/{mkr_ref} |  |\n"
        "| maker | products_makers.csv | ex:madeBy | ex:Product | ex:Maker | http://example.org/product/{prod_ref} | "
        "products_makers.product==products.prod_ref and products_makers.maker==makers.mkr_ref |\n"))
    ontology = load_ontology(list(case.ontologies), case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    compiled = compile_table(read_table(tmp_path / "t.md"), ontology, case, sources)
    normalize_rml(compiled.rml, copies=tmp_path / "copies").graph.serialize(tmp_path / "m.ttl", format="turtle")
    kg = Graph().parse(data="\n".join(materialize(tmp_path / "m.ttl").triples), format="nt")
    ex = "http://example.org/"
    assert set(kg.subject_objects(URIRef("http://example.org/ont#madeBy"))) == {
        (URIRef(ex + "product/P01"), URIRef(ex + "maker/M1")), (URIRef(ex + "product/P02"), URIRef(ex + "maker/M2")),
        (URIRef(ex + "product/P03"), URIRef(ex + "maker/M2"))}


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
