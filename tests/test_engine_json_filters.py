"""Morph-KGC 2.10's JSONPath library reads a filter ``[?(@.m == 'v')]`` as the key ``"m "`` compared with
the name ``v`` and selects nothing, silently; the engine copy writes each filter in the form it reads
(``pipeline.materialize.rml.json_sources.engine_filter``). The end-to-end case is the golden case
``tests/cases/json-iterator-filter-blanks``."""
from __future__ import annotations

import pytest
from jsonpath import JSONPath

from pipeline.materialize.rml.json_sources import engine_filter

ITEMS = {"items": [{"type": "a", "n": 5, "name": "New York"}, {"type": "b", "n": 7, "name": "Ghent"}]}


@pytest.mark.parametrize("written, engine, names", [
    ("$.items[?(@.type == 'a')]", '$.items[?(@.type=="a")]', ["New York"]),
    ("$.items[?(@.n > 5)]", "$.items[?(@.n>5)]", ["Ghent"]),
    ('$.items[?(@.name == "New York")]', '$.items[?(@.name=="New York")]', ["New York"]),
    ("$.items[?(@.type != 'a' and @.n >= 7)]", '$.items[?(@.type!="a" and @.n>=7)]', ["Ghent"]),
])
def test_engine_reads_the_rewritten_filter_as_written(written, engine, names):
    assert engine_filter(written) == engine
    assert JSONPath(written).parse(ITEMS) == []  # what the engine selected from the text as written
    assert [r["name"] for r in JSONPath(engine).parse(ITEMS)] == names


@pytest.mark.parametrize("iterator", ["$.items[*]", '$.items[?(@.type=="a")]', "$.items[?(@.q=='it\"s')]"])
def test_an_iterator_the_engine_reads_is_left_as_written(iterator):
    assert engine_filter(iterator) == iterator
