"""Text inputs (pipeline/text/data.py): malformed sentence, gold, ontology and manifest files are
InputErrors naming the file, the line or entry and what was expected, never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import InputError, ManifestError
from pipeline.text.data import load_ontology, load_sentences
from pipeline.text.manifest import load_case

CASE = Path(__file__).parent / "cases" / "text"


def _lines(tmp_path, *rows) -> Path:
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize("bad, expected", [
    ({"id": "a", "sent": None}, "a string 'sent' are required"),
    ({"id": "a", "sent": "X.", "triples": [{"sub": "X", "obj": "Y"}]}, "a string 'rel'"),
    ({"id": "a", "sent": "X.", "triples": "abc"}, "'triples' must be a list"),
    ('{"id": "a", "sent": "Omega \\ud83d University"}', "surrogates not allowed"),
])
def test_a_malformed_sentence_line_names_the_file_and_line(tmp_path, bad, expected):
    p = _lines(tmp_path, {"id": "ok", "sent": "Fine."}, bad)
    with pytest.raises(InputError, match=expected) as err:
        load_sentences(p)
    assert (err.value.path, err.value.line) == (str(p), 2)


def test_numbers_in_triples_are_their_text(tmp_path):
    p = _lines(tmp_path, {"id": "a", "sent": "X has 1200 staff.", "triples": [{"sub": "X", "rel": "staff", "obj": 1200}]})
    assert load_sentences(p)[0].triples == [{"sub": "X", "rel": "staff", "obj": "1200"}]


@pytest.mark.parametrize("change, key", [
    (lambda d: d.update(relations=["city", "country"]), "relations[0]"),
    (lambda d: d.update(subclasses=[{"sub": "College"}]), "subclasses[0]"),
    (lambda d: d.update(concepts="University"), "concepts"),
])
def test_a_malformed_ontology_entry_is_named(tmp_path, change, key):
    doc = json.loads((CASE / "ontology.json").read_text(encoding="utf-8"))
    change(doc)
    p = tmp_path / "o.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_ontology(p)
    assert (err.value.path, err.value.key) == (str(p), key)


def _case(tmp_path, **edits) -> Path:
    for name in ("ontology.json", "test.jsonl", "gold.jsonl", "train.jsonl"):
        (tmp_path / name).write_text((CASE / name).read_text(encoding="utf-8"), encoding="utf-8")
    text = (CASE / "case.yaml").read_text(encoding="utf-8")
    for old, new in edits.items():
        text = text.replace(old, new)
    (tmp_path / "case.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "case.yaml"


def test_an_empty_sentences_file_and_a_bad_train_entry_are_input_errors(tmp_path):
    path = _case(tmp_path)
    (tmp_path / "test.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no sentences") as err:
        load_case(path)
    assert err.value.path == str(tmp_path / "test.jsonl")
    text = path.read_text(encoding="utf-8")
    assert "train: [train.jsonl]" in text
    path.write_text(text.replace("train: [train.jsonl]", "train: 5"), encoding="utf-8")
    with pytest.raises(ManifestError, match="'train' must be a file or a list of files"):
        load_case(path)


def test_a_relation_without_a_domain_is_reported_never_extracted(tmp_path, caplog):
    from pipeline.text.harness import run_case
    path = _case(tmp_path)
    doc = json.loads((tmp_path / "ontology.json").read_text(encoding="utf-8"))
    for r in doc["relations"]:
        if r["pid"] == "city":
            del r["domain"], r["range"]
    (tmp_path / "ontology.json").write_text(json.dumps(doc), encoding="utf-8")
    run_case(load_case(path), tmp_path / "out", validate=False)
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text(encoding="utf-8"))
    assert prov["relations_never_extracted"] == ["city"]
    assert "relations without a domain are never extracted: city" in caplog.text


def test_sentences_without_gold_are_counted_and_said(tmp_path, caplog):
    from pipeline.text.harness import run_case
    path = _case(tmp_path)
    with open(tmp_path / "test.jsonl", "a", encoding="utf-8") as f:
        f.write('\n{"id": "x9", "sent": "Zeta University is located in Nice."}\n')
    res = run_case(load_case(path), tmp_path / "out", validate=False)
    assert res["scores"]["n_sentences_without_gold"] == 1
    assert "1 sentences have no gold entry and are scored against no triples: x9" in caplog.text


def test_gold_entries_without_a_sentence_are_counted_and_said(tmp_path, caplog):
    from pipeline.text.harness import run_case
    path = _case(tmp_path)
    gold = (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(gold[0])
    (tmp_path / "gold.jsonl").write_text("\n".join(gold + [json.dumps({**first, "id": "p9"})]) + "\n", encoding="utf-8")
    res = run_case(load_case(path), tmp_path / "out", validate=False)
    assert res["scores"]["n_gold_without_sentence"] == 1 and res["scores"]["n_sentences_without_gold"] == 0
    assert "1 gold entries have no sentence of that id and are scored nowhere: p9" in caplog.text


def test_a_text_manifest_types_its_offline_settings(tmp_path):
    path = _case(tmp_path, **{"{threshold: 0.3}": "{zero_shot: null, threshold: 0.25}"})
    assert load_case(path).offline == {"zero_shot": None, "threshold": 0.25}
    for bad, msg in (("{zero_shot: high}", "zero_shot: expected a number or null, got 'high'"),
                     ("{stack: 'yes'}", "stack: expected true or false, got 'yes'"),
                     ("{k: true}", r"k: expected a whole number >= 1, got True"),
                     ("{k: 2.5}", r"k: expected a whole number >= 1, got 2.5"),
                     ("{k: 0}", r"k: expected a whole number >= 1, got 0"),
                     ("{threshold: -1}", r"threshold: expected a number in \[0.0, 1.0\] or null, got -1"),
                     ("{threshold: .nan}", r"threshold: expected a number in \[0.0, 1.0\] or null, got nan"),
                     ("{min_df: 2.5}", r"min_df: expected a whole number >= 1, got 2.5")):
        path = _case(tmp_path, **{"{threshold: 0.3}": bad})
        with pytest.raises(ManifestError, match=msg) as err:
            load_case(path)
        assert str(path) in str(err.value)


def test_a_repeated_sentence_id_is_kept_and_said(tmp_path, caplog):
    p = _lines(tmp_path, {"id": "a", "sent": "One."}, {"id": "b", "sent": "Two."}, {"id": "a", "sent": "Three."})
    assert [s.text for s in load_sentences(p)] == ["One.", "Two.", "Three."]
    assert f"{p}:3: sentence id 'a' repeats line 1" in caplog.text


def test_a_byte_order_mark_is_no_content(tmp_path):
    """Files saved by a Windows editor start with a BOM; JSON forbids it, so it is not part of the data."""
    from pipeline.text.data import load_ontology, load_sentences

    (tmp_path / "s.jsonl").write_text('{"id": "s1", "sent": "Ann lives in Gent."}\n', encoding="utf-8-sig")
    assert [(s.id, s.text) for s in load_sentences(tmp_path / "s.jsonl")] == [("s1", "Ann lives in Gent.")]
    (tmp_path / "o.json").write_text('{"concepts": [{"qid": "Q1", "label": "Person"}, {"qid": "Q2", "label": "City"}], '
                                     '"relations": [{"pid": "P1", "label": "lives in", "domain": "Q1", "range": "Q2"}]}',
                                     encoding="utf-8-sig")
    assert len(load_ontology(tmp_path / "o.json").relations) == 1
