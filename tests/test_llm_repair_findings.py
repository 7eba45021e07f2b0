"""Validate-and-repair says what it did with every row of an LLM's answer: each repair (info), each
dropped row (error: cells, values, why, closest valid), and an answer whose every row is dropped
stops `kgc map` (exit 1, one line) instead of writing "0 rows". A local OpenAI-compatible server
on 127.0.0.1 answers (test_mapper_llm._Server), the real mapper, audit and compiler run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mapper_llm import _Server

from pipeline.cli import main

ONTO = """@prefix : <http://example.org/lib#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Book a owl:Class .
:title a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range rdf:langString .
:isbn a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:string .
:pages a owl:DatatypeProperty ; rdfs:domain :Book ; rdfs:range xsd:integer .
"""
#: a misconfigured model: a near miss (lib:isbnn), a data reference no column has, a property '42'
POOR = "| Data Reference | Ontology Property |\n|---|---|\n| isbn | lib:isbnn |\n| zzz | lib:title |\n| pages | 42 |\n"
#: a usable answer with one row lacking its class and template, its property misspelt
NEAR = ("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation |\n|---|---|---|---|---|\n"
        "| pages | books.csv | lib:pages | lib:Book | http://example.org/book/{isbn} |\n"
        "| isbn | books.csv | lib:isbnn |  |  |\n")


@pytest.fixture
def case(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "books.csv").write_text("isbn,title,pages\n978-0-14-044913-6,Crime and Punishment,671\n",
                                        encoding="utf-8")
    (tmp_path / "lib.ttl").write_text(ONTO, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [{path: books.csv}]\nontologies: [lib.ttl]\n"
                                        'prefixes: {lib: "http://example.org/lib#"}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for k, v in {"LLM_MODEL": "openai/m", "LLM_API_KEY": "x", "LLM_MAX_RETRIES": "0", "KGC_CACHE_DIR": "0",
                 "PIPELINE_NO_EMBEDDINGS": "1"}.items():
        monkeypatch.setenv(k, v)
    return tmp_path


def test_an_answer_whose_every_row_is_dropped_stops_map_with_a_finding_per_row(case, monkeypatch, capsys):
    with _Server([POOR]) as srv:
        monkeypatch.setenv("LLM_API_BASE", srv.base)
        assert main(["map", "case.yaml", "t.md", "--mapper", "llm", "-q"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert "info: t.raw.md:3 [ontology_property]: ontology_property 'lib:isbnn' repaired to 'lib:isbn' " \
           "(similarity 0.89): property 'lib:isbnn' is not in the ontology" in lines
    assert "info: t.raw.md:3 [entity_class]: empty entity_class set to 'lib:Book': row has no entity class; " \
           "the domain of lib:isbn" in lines
    dropped = [line for line in lines if "dropped: validate-and-repair could not repair it" in line]
    assert dropped == [
        "error: t.raw.md:3 [subject_template]: row 'isbn' -> 'lib:isbn' dropped: validate-and-repair could not "
        "repair it: [subject_template] row has no subject template",
        "error: t.raw.md:4 [data_reference]: row 'zzz' -> 'lib:title' dropped: validate-and-repair could not repair "
        "it: [data_reference] data reference 'zzz' is no column/path of books.csv; [subject_template] row has no "
        "subject template",
        "error: t.raw.md:5 [ontology_property]: row 'pages' -> '42' dropped: validate-and-repair could not repair it: "
        "[ontology_property] property '42': not an IRI; [entity_class] row has no entity class; [subject_template] "
        "row has no subject template"]
    assert lines[-1] == ("error: t.md: the mapper answered 3 row(s) and validate-and-repair dropped every one (the "
                         "reasons above; the answer as parsed in t.raw.md): no mapping row")
    assert "rows written" not in out
    raw = (case / "t.raw.md").read_text(encoding="utf-8").splitlines()
    assert [r.split("|")[1].strip() for r in raw[2:]] == ["isbn", "zzz", "pages"]  # the lines the findings cite


def test_run_names_the_dropped_rows_as_the_cause(case, monkeypatch):
    with _Server([POOR]) as srv:
        monkeypatch.setenv("LLM_API_BASE", srv.base)
        assert main(["run", "case.yaml", "--mapper", "llm", "--out", "out", "-q"]) == 1
    folder = case / "out" / "custom" / "case"
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert run["status"] == "failed"
    assert "First causes: error: " in run["error"] and "table.raw.md:3 [subject_template]: row 'isbn' -> 'lib:isbn' " \
        "dropped" in run["error"]
    assert "the table has no rows" not in run["error"]
    audit = (folder / "audit.md").read_text(encoding="utf-8")
    assert audit.count("| error | repair | table.raw.md:") == 3


def test_a_near_miss_row_is_completed_from_the_domain_and_the_table_and_kept(case, monkeypatch, capsys):
    with _Server([NEAR]) as srv:
        monkeypatch.setenv("LLM_API_BASE", srv.base)
        assert main(["map", "case.yaml", "t.md", "--mapper", "llm", "-q"]) == 0
    out, err = capsys.readouterr()
    assert "2 rows written to t.md" in out
    assert "info: t.raw.md:4 [subject_template]: empty subject_template set to 'http://example.org/book/{isbn}': " \
           "row has no subject template; the template of the table's other lib:Book rows" in err.splitlines()
    assert "dropped" not in err
    table = (case / "t.md").read_text(encoding="utf-8")
    assert "| isbn | books.csv | lib:isbn | lib:Book |  | http://example.org/book/{isbn} |" in table


#: a relation row naming a column books.csv lacks, with no join condition: nothing in the data says which
#: publisher a book has, and no near column to repair it to
RELATION = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | Subject Generation |"
            "\n|---|---|---|---|---|---|\n"
            "| pages | books.csv | lib:pages | lib:Book |  | http://example.org/book/{isbn} |\n"
            "| publisher_name | books.csv | lib:publisher | lib:Book | lib:Publisher | http://example.org/book/{isbn} |\n")


def test_a_relation_row_reading_no_column_is_dropped_not_kept(case, monkeypatch, capsys):
    # the relation row's Data Reference is a cell like any other: without a join condition to say what links
    # the two entities, a reference the file lacks is a broken cell, and repair drops the row rather than
    # minting one publisher per book from the book's own key
    with (case / "lib.ttl").open("a", encoding="utf-8") as f:
        f.write(":Publisher a owl:Class .\n:publisher a owl:ObjectProperty ; rdfs:domain :Book ; rdfs:range :Publisher .\n")
    with _Server([RELATION]) as srv:
        monkeypatch.setenv("LLM_API_BASE", srv.base)
        assert main(["map", "case.yaml", "t.md", "--mapper", "llm", "-q"]) == 0
    out, err = capsys.readouterr()
    assert "1 rows written to t.md" in out
    assert [line for line in err.splitlines() if "dropped" in line] == [
        "error: t.raw.md:4 [data_reference]: row 'publisher_name' -> 'lib:publisher' dropped: validate-and-repair "
        "could not repair it: [data_reference] data reference 'publisher_name' is no column/path of books.csv"]
    assert "lib:publisher" not in (case / "t.md").read_text(encoding="utf-8")
