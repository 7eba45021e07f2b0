"""Whole-column engine corrections (pipeline/materialize/engine.py) give the per-value functions' text."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.materialize.engine import iri_safe, nt_escape
from pipeline.materialize.engine import iri_safe_values, iri_template, nt_escape_values

VALUES = ["stop-1", "Zoë Krüger", "a/b?c#d", "日本", "50%", "x\ny", "", "k~._-9"]


def test_iri_safe_values_leaves_a_clean_column_as_it_is_and_encodes_the_others_row_for_row():
    clean = np.array(["S1", "stop-2_k3", "a.b~c", ""], dtype=object)
    assert iri_safe_values(clean) is clean
    dirty = np.array(VALUES, dtype=object)
    assert iri_safe_values(dirty).tolist() == [iri_safe(v) for v in VALUES]
    assert iri_safe_values(dirty).tolist()[1:3] == ["Zoë%20Krüger", "a%2Fb%3Fc%23d"]


def test_a_value_with_a_line_break_is_not_taken_for_two_clean_values():
    col = np.array(["a\nb", "c"], dtype=object)
    assert iri_safe_values(col).tolist() == ["a%0Ab", "c"]
    assert nt_escape_values(col).tolist() == ["a\\nb", "c"]


def test_nt_escape_values_matches_nt_escape():
    values = ['plain', 'say "hi"', "back\\slash", "cr\rlf", "tab\t", ""]
    assert nt_escape_values(np.array(values, dtype=object)).tolist() == [nt_escape(v) for v in values]
    clean = np.array(["plain", "x y"], dtype=object)
    assert nt_escape_values(clean) is clean


@pytest.mark.parametrize("template", ["http://ex.org/stop/{id}", "http://ex.org/{id}/{name}#{id}",
                                      "http://ex.org/\\{x\\}/{name}", "http://ex.org/const", "{id}"])
def test_iri_template_gives_the_engines_column_with_iri_safe_values(template):
    from morph_kgc import materializer
    from morph_kgc.args_parser import load_config_from_argument
    from morph_kgc.constants import RML_IRI, RML_TEMPLATE

    from pipeline.materialize.engine import engine_config

    config = load_config_from_argument(engine_config("unused.ttl"))
    frame = pd.DataFrame({"id": VALUES, "name": list(reversed(VALUES)), "parent_id": VALUES})
    original = materializer.encode_value
    materializer.encode_value = iri_safe
    try:
        expected = materializer._materialize_template(frame.copy(), template, RML_TEMPLATE, config, "subject",
                                                      termtype=RML_IRI)
    finally:
        materializer.encode_value = original
    got = iri_template(frame.copy(), template, "subject")
    assert got["subject"].tolist() == expected["subject"].tolist()
    if "{" in template.replace("\\{", ""):
        assert got["reference_results"].tolist() == expected["reference_results"].tolist()
    parent = iri_template(frame.copy(), "http://ex.org/p/{id}", "object", columns_alias="parent_")
    assert parent["object"].tolist() == ["<http://ex.org/p/" + iri_safe(v) + ">" for v in VALUES]


TEXTS = ['plain', 'say "hi"', "back\\slash", "two\nlines", "cr\r", "", "Zoë"]


@pytest.mark.parametrize("template, kind", [("name", "reference"), ("{name} ({id})", "template"),
                                            ("\\{{name}\\}", "template")])
def test_literal_template_gives_the_engines_escaped_column(template, kind):
    from morph_kgc import materializer
    from morph_kgc.args_parser import load_config_from_argument
    from morph_kgc.constants import RML_LITERAL, RML_REFERENCE, RML_TEMPLATE

    from pipeline.materialize.engine import engine_config
    from pipeline.materialize.engine import literal_template

    config = load_config_from_argument(engine_config("unused.ttl"))
    frame = pd.DataFrame({"name": TEXTS, "id": [str(i) for i in range(len(TEXTS))]})
    expression = RML_REFERENCE if kind == "reference" else RML_TEMPLATE
    expected = materializer._materialize_template(frame.copy(), template, expression, config, "object",
                                                  termtype=RML_LITERAL)
    got = literal_template(frame.copy(), "{name}" if kind == "reference" else template, "object")
    assert got["object"].tolist() == expected["object"].tolist()
    assert got["object"].tolist()[1] in ('"say \\"hi\\""', '"{say \\"hi\\"}"', '"say \\"hi\\" (1)"')
    assert literal_template(pd.DataFrame({"name": ["a", None]}), "{name}", "object") is None


def test_preprocessing_without_the_per_cell_str_keeps_the_engines_rows():
    from morph_kgc import materializer
    from morph_kgc.args_parser import load_config_from_argument

    from pipeline.materialize.engine import engine_config, engine_run
    from pipeline.materialize.engine import all_text

    config = load_config_from_argument(engine_config("unused.ttl"))
    rule = {"source_type": "CSV"}
    text = pd.DataFrame({"a": ["1", "1", "", "x"], "b": ["p", "p", "q", "r"]})
    mixed = pd.DataFrame({"a": ["1", 2, 2.5, "x"], "b": ["p", "q", "q", "r"]})
    assert all_text(text) and not all_text(mixed)
    expected = [materializer._preprocess_data(f.copy(), rule, ["a", "b"], config) for f in (text, mixed)]
    with engine_run():
        got = [materializer._preprocess_data(f.copy(), rule, ["a", "b"], config) for f in (text, mixed)]
    for e, g in zip(expected, got):
        assert g.to_dict("list") == e.to_dict("list") and list(g.index) == list(e.index)
    assert got[0].to_dict("list") == {"a": ["1", "x"], "b": ["p", "r"]}  # the empty value and the duplicate gone


def test_a_csv_source_is_parsed_once_and_each_rule_gets_the_engines_frame(tmp_path, monkeypatch):
    from morph_kgc.data_source import data_file

    from pipeline.materialize.readers import CsvReads

    csv = tmp_path / "s.csv"
    csv.write_text('id,name,note\n1,"Zoë, K.",\n2,,x\n2,,x\n', encoding="utf-8")
    tsv = tmp_path / "s.tsv"
    tsv.write_text("id\tname\n1\ta b\n", encoding="utf-8")
    calls = []

    def engine(rule, refs, kind):
        calls.append(tuple(refs))
        return data_file._read_csv(rule, refs, kind)

    reads = CsvReads(engine)
    parsed = []
    real = pd.read_table
    monkeypatch.setattr(pd, "read_table", lambda *a, **k: (parsed.append(a[0]), real(*a, **k))[1])
    for path, kind, refs in [(csv, "CSV", ["name", "id"]), (csv, "CSV", ["note"]), (tsv, "TSV", ["name"]),
                             (csv, "CSV", ["id", "name", "note"])]:
        rule = {"logical_source_value": str(path)}
        got, expected = reads(rule, refs, kind), data_file._read_csv(rule, refs, kind)
        assert got.to_dict("list") == expected.to_dict("list") and list(got.columns) == list(expected.columns)
        assert list(got.index) == list(expected.index)
    assert calls == [] and parsed.count(str(csv)) == 1 + 3  # one parse for the cache, three for the comparisons
    with pytest.raises(ValueError):  # a reference the header lacks: the engine's reader decides (it fails)
        reads({"logical_source_value": str(csv)}, ["nope"], "CSV")
    assert calls == [("nope",)]
    small = CsvReads(engine)
    small.budget = 10  # beyond the budget every rule reads the file itself, as in the engine
    assert small({"logical_source_value": str(csv)}, ["id"], "CSV")["id"].tolist() == ["1", "2", "2"]
    assert calls[-1] == ("id",) and small.kept == 0


def test_iri_safe_encoding_keeps_ucschar_and_encodes_delimiters():
    assert iri_safe("Zoë Krüger") == "Zoë%20Krüger"
    assert iri_safe("a/b?c#d") == "a%2Fb%3Fc%23d"
    assert iri_safe("~A_17.1-2¢") == "~A_17.1-2¢"
    assert iri_safe("100%") == "100%25"
