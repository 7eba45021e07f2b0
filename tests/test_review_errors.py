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
