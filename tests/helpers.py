"""Helpers shared by several test files: the case folders of ``tests/cases``, small hand-made cases,
and readers of what ``kgc`` wrote. Imported as ``helpers`` (pytest puts ``tests/`` on the path)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from rdflib import Graph

from pipeline.cli import main
from pipeline.compile import compile_table
from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

#: The case folders (inputs, a README.md each; some hold an expect.yaml that tests/test_cases.py runs).
CASES = Path(__file__).resolve().parent / "cases"

#: An ontology in OWL functional syntax, which is not read.
FUNCTIONAL = "Prefix(:=<http://example.org/onto#>)\nOntology(<http://example.org/onto>\nDeclaration(Class(:Person))\n)\n"


def text2kgbench_ontology(part: Path, name: str, case: Path, scored: bool = False) -> None:
    """Lay out the text case ``case`` (ontology.json, train.jsonl; test.jsonl and gold.jsonl when
    ``scored``) as ontology ``name`` of a Text2KGBench part ``part`` (ontologies/, train/, test/,
    ground_truth/, the benchmark's file names)."""
    for sub in ("ontologies", "train", "test", "ground_truth"):
        (part / sub).mkdir(parents=True, exist_ok=True)
    shutil.copy(case / "ontology.json", part / "ontologies" / f"{name}_ontology.json")
    shutil.copy(case / "train.jsonl", part / "train" / f"ont_{name}_train.jsonl")
    if scored:
        shutil.copy(case / "test.jsonl", part / "test" / f"ont_{name}_test.jsonl")
        shutil.copy(case / "gold.jsonl", part / "ground_truth" / f"ont_{name}_ground_truth.jsonl")


def case_folder(name: str) -> Path:
    """The folder ``tests/cases/<name>``; fails when it is missing."""
    folder = CASES / name
    assert folder.is_dir(), f"case folder {folder} not found"
    return folder


def case_manifest(name: str, manifest: str = "case.yaml"):
    """The manifest ``tests/cases/<name>/<manifest>``, loaded."""
    return load_manifest(case_folder(name) / manifest)


def map_lexically(name: str, manifest: str = "case.yaml"):
    """The offline mapper on a case folder, lexically (no embedding model, to stay fast).

    Returns:
        (the MapResult, its rows as a list).
    """
    result = map_case(get_mapper("offline"), case_manifest(name, manifest), use_embeddings=False)
    return result, list(result.table)


def cells(rows, *cols) -> set[tuple]:
    """The set of ``cols`` cell tuples of mapping rows."""
    return {tuple(getattr(r, c) for c in cols) for r in rows}


def table_rows(path: Path) -> list[tuple[str, ...]]:
    """Rows of a written table as (reference, source file, property, class, subject template, join)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines()[2:]:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows.append((c[0], c[1], c[2], c[3], c[5], c[6]))
    return rows


def kgc_run(tmp_path: Path, case: str) -> Path:
    """``kgc run`` the case (copied, so nothing is written beside the inputs); the case's output folder."""
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    assert main(["-q", "run", str(work / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    return tmp_path / "out" / "tests" / case


def kgc_map(tmp_path: Path, case: str) -> list[tuple[str, ...]]:
    """``kgc map`` the case (copied, so nothing is written beside the inputs); rows as
    (reference, property, class, subject template, language tag)."""
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    rows = []
    for line in (tmp_path / "t.md").read_text(encoding="utf-8").splitlines()[2:]:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows.append((c[0], c[2], c[3], c[5], c[8]))
    return rows


_BOOK_ONTO = ("@prefix : <http://lib.example.org/onto#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
              "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
              ':Book a owl:Class ; rdfs:label "Book"@en ; rdfs:comment "A published book, identified by its ISBN."@en .\n'
              ':isbn a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:string ; rdfs:label "ISBN"@en .\n'
              ':title a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:string ; rdfs:label "title"@en .\n'
              ':publicationYear a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:gYear ; '
              'rdfs:label "publication year"@en .\n'
              ':price a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:decimal ; rdfs:label "price"@en .\n')


def map_books(tmp_path, name: str, text: str):
    """The offline mapper (lexically) on one source file ``name`` holding ``text``, under a small book ontology.

    Returns:
        (rows as (reference, property, subject template, datatype) set, findings as (column, message) list).
    """
    (tmp_path / "onto.ttl").write_text(_BOOK_ONTO, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: b\nscenario: s\nbase_iri: http://lib.example.org/\nsources: [{name}]\n"
                                        "ontologies: [onto.ttl]\nprefixes: {lib: \"http://lib.example.org/onto#\"}\n",
                                        encoding="utf-8")
    res = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    rows = {(r.data_reference, r.ontology_property, r.subject_template, r.datatype) for r in res.table.rows}
    return rows, [(f["column"], f["message"]) for f in res.provenance["findings"]]


_BOOKS_ONTO = ("@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
               "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
               "ex:Book a owl:Class . ex:title a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:string .\n"
               "ex:price a owl:DatatypeProperty ; rdfs:domain ex:Book ; rdfs:range xsd:decimal .\n")
_BOOKS_HEAD = ("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Datatype |\n"
               "|---|---|---|---|---|---|\n")


def books_case(tmp_path, rows: str) -> None:
    """A books case in ``tmp_path``: onto.ttl, books.csv (one price is no decimal), case.yaml, and t.md
    holding the table rows ``rows`` under the table head."""
    (tmp_path / "onto.ttl").write_text(_BOOKS_ONTO, encoding="utf-8")
    (tmp_path / "books.csv").write_text("id,title,price\n1,Dune,12.50\n2,Emma,abc\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: b\nscenario: s\nsources: [books.csv]\nontologies: [onto.ttl]\n",
                                        encoding="utf-8")
    (tmp_path / "t.md").write_text(_BOOKS_HEAD + rows, encoding="utf-8")


def people_case(tmp_path, extra: str = "", csv: str = "pid,name\n1,Ann\n", name: str = "c", gold: bool = True) -> None:
    """A people case in ``tmp_path``: onto.ttl, p.csv (``csv``), a one-row table t.md that is also the
    gold table (unless not ``gold``), and case.yaml (case ``name``; ``extra`` appended to it)."""
    (tmp_path / "onto.ttl").write_text(
        "@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "ex:Person a owl:Class . ex:name a owl:DatatypeProperty ; rdfs:domain ex:Person .\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text(csv, encoding="utf-8")
    (tmp_path / "t.md").write_text("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |"
                                   "\n|---|---|---|---|---|\n| name | p.csv | ex:name | ex:Person | "
                                   "http://example.org/p/{pid} |\n", encoding="utf-8")
    (tmp_path / "case.yaml").write_text(f"name: {name}\nsources: [p.csv]\nontologies: [onto.ttl]\n"
                                        + ("gold: {table: t.md}\n" if gold else "") + extra, encoding="utf-8")


#: A shop ontology whose labels the column names of SHOP_PRODUCTS and SHOP_MAKERS do not spell.
SHOP_ONTOLOGY = """@prefix ex: <http://example.org/ont#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Product a owl:Class ; rdfs:label "product"@en ; owl:hasKey ( ex:productCode ) .
ex:Maker a owl:Class ; rdfs:label "maker"@en ; owl:hasKey ( ex:makerCode ) .
ex:productCode a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:string ;
    rdfs:label "product code"@en .
ex:tradeName a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range rdf:langString ;
    rdfs:label "trade name"@en .
ex:releaseDate a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:date ;
    rdfs:label "release date"@en .
ex:packSize a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:integer ;
    rdfs:label "pack size"@en .
ex:packPrice a owl:DatatypeProperty ; rdfs:domain ex:Product ; rdfs:range xsd:decimal ;
    rdfs:label "pack price"@en .
ex:makerCode a owl:DatatypeProperty ; rdfs:domain ex:Maker ; rdfs:range xsd:string ;
    rdfs:label "maker code"@en .
ex:companyName a owl:DatatypeProperty ; rdfs:domain ex:Maker ; rdfs:range xsd:string ;
    rdfs:label "company name"@en .
ex:madeBy a owl:ObjectProperty ; rdfs:domain ex:Product ; rdfs:range ex:Maker ; rdfs:label "made by"@en .
"""

SHOP_PRODUCTS = """prod_ref,brand,lang,rel_dt,qty,pvp,maker_ref
P01,Der Wind,de,02-11-2009,113,78.49,M1
P02,El viento,es,18-04-2002,615,69.73,M2
P03,The wind,en,12-07-2018,848,183.65,M1
"""
SHOP_MAKERS = "mkr_ref,co_nm,motto\nM1,Costa Works,Quality first\nM2,Brandt Group,Made to last\n"


def write_shop_case(tmp_path: Path) -> Path:
    """The shop case (ontology.ttl, products.csv, makers.csv) in ``tmp_path``; its case.yaml."""
    (tmp_path / "ontology.ttl").write_text(SHOP_ONTOLOGY)
    (tmp_path / "products.csv").write_text(SHOP_PRODUCTS)
    (tmp_path / "makers.csv").write_text(SHOP_MAKERS)
    (tmp_path / "case.yaml").write_text(
        "name: shop\nbase_iri: http://example.org/\nsources:\n- path: products.csv\n  format: csv\n"
        "- path: makers.csv\n  format: csv\nontologies:\n- ontology.ttl\n")
    return tmp_path / "case.yaml"


def compile_case(name: str, tmp_path: Path, table: str = "table.md"):
    """Compile the table of case folder ``name`` with the real compiler.

    Returns:
        (the CompileResult, the loaded sources).
    """
    case = load_manifest(CASES / name / "case.yaml")
    ontology = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    return compile_table(read_table(CASES / name / table), ontology, case, sources), sources


def materialize_compiled(compiled, sources, tmp_path: Path) -> Graph:
    """The KG Morph-KGC makes from a compiled table's RML (normalised as ``kgc materialize`` does)."""
    engine = tmp_path / "mapping.morph-kgc.ttl"
    normalize_rml(compiled.rml, copies=tmp_path / "copies").graph.serialize(engine, format="turtle")
    result = materialize(engine)
    return Graph().parse(data="\n".join(result.triples), format="nt")


def findings_in(compiled, column: str) -> list:
    """The findings of a compile result on table column ``column``."""
    return [f for f in compiled.findings if f.column == column]


def materialize_mapping(folder: Path, mapping: str, files: dict[str, str], monkeypatch, capsys) -> tuple[int, str, str]:
    """``kgc materialize mapping.ttl out/kg.nq`` in ``folder`` holding ``files`` (name -> text) and
    the mapping (Turtle text): ``(exit code, stderr, the N-Quads written or "")``."""
    for name, text in {**files, "mapping.ttl": mapping}.items():
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    out = folder / "out" / "kg.nq"
    rc = main(["materialize", "mapping.ttl", str(out), "--format", "nq"])
    return rc, capsys.readouterr().err, out.read_text(encoding="utf-8") if out.is_file() else ""


def map_files(tmp_path: Path, files: dict[str, str], manifest: str) -> dict[str, dict]:
    """Write ``files`` and ``case.yaml`` (``manifest``) into ``tmp_path``, ``kgc map`` it to JSON and
    return its rows by data reference (relation and class-only rows by property)."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "case.yaml").write_text(manifest, encoding="utf-8")
    assert main(["-q", "map", str(tmp_path / "case.yaml"), str(tmp_path / "t.json")]) == 0
    rows = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["rows"]
    return {r["data_reference"] or r["ontology_property"]: r for r in rows}
