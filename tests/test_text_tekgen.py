"""Text2KGBench's Wikidata-TekGen layout and a user's own ontology (pipeline/text/data.py,
manifest.py, harness.py, metrics.py): QID domains and ranges, relations written as labels, one
triple per training line, relations without a range, Text2KGBench's own metric, the zero-shot
setting and the bad inputs that stop at load with exit 2."""
from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import InputError
from pipeline.text.data import load_ontology, load_sentences
from pipeline.text.harness import published_baseline, rescore_baseline, run_case
from pipeline.text.manifest import load_case
from pipeline.text.metrics import Output, score_ontology, text2kgbench_prf

CASES = Path(__file__).parent / "cases"
FILM = CASES / "text-tekgen"
UNIVERSITY = CASES / "text"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst / "case.yaml"


def test_qids_become_concept_labels_and_relations_keep_their_labels(caplog):
    with caplog.at_level(logging.INFO, logger="pipeline.text.data"):  # a QID no concept has: said at info level
        onto = load_ontology(FILM / "ontology.json")
    assert onto.concepts == ["film", "human", "film genre", "country"]
    assert onto.relations["director"].domain == "film" and onto.relations["director"].range == "human"
    assert onto.relations["country of origin"].id == "P495"
    assert onto.concept_ids["human"] == "Q5"
    # a range nobody declared is open; a QID no concept has stays the class's name, said
    assert onto.relations["publication date"].open_range
    assert onto.relations["distributed by"].range == "Q1762059"
    assert "'distributed by': range 'Q1762059' is no concept of the ontology" in caplog.text
    assert list(onto.relations).count("director") == 1  # listed twice, identical: kept once, silently
    for spelling in ("country of origin", "country_of_origin", "Country Of Origin", "P495", " country of origin "):
        assert onto.resolve(spelling) == "country of origin"
    assert onto.resolve("box office") is None


def test_one_triple_per_line_is_grouped_by_sentence_and_resolved():
    sents = load_sentences(FILM / "train.jsonl")
    assert len(sents) == 8 and sents[0].id == "ont_tiny_film_train_1"
    assert [t["rel"] for t in sents[0].triples] == ["director", "country of origin", "publication date"]
    case = load_case(FILM / "case.yaml")
    silver = next(s for s in case.train if s.text.startswith("Silver Moon"))
    # "country_of_origin" and "Publication Date" as the ontology names them; "box office" left out
    assert [t["rel"] for t in silver.triples] == ["director", "country of origin", "publication date"]
    green = next(s for s in case.train if s.text.startswith("Green Field"))
    assert [t["rel"] for t in green.triples] == ["director"]


@pytest.mark.parametrize("lines, expected", [
    ([{"id": "a", "sent": "X.", "sub_label": "X", "rel_label": "director"}],
     "needs a string 'rel_label' and a string or number 'sub_label' and 'obj_label'"),
    ([{"id": "a", "sent": "X.", "sub_label": "X", "rel_label": "director", "obj_label": "Y"},
      {"id": "b", "sent": "Y.", "triples": []}], "line 1 has one triple per line; this line has a triples list"),
])
def test_a_bad_per_triple_line_names_file_and_line(tmp_path, lines, expected):
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    with pytest.raises(InputError, match=expected) as err:
        load_sentences(p)
    assert (err.value.path, err.value.line) == (str(p), len(lines))


def test_training_without_triples_or_with_one_relation_is_refused_at_load(tmp_path):
    path = _copy(FILM, tmp_path / "c")
    train = tmp_path / "c" / "train.jsonl"
    train.write_text('{"id": "a", "sent": "Red Harbor is a film."}\n', encoding="utf-8")
    with pytest.raises(InputError, match="a training file without triples") as err:
        load_case(path)
    assert err.value.path == str(train)
    lines = [json.loads(x) for x in (FILM / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    train.write_text("\n".join(json.dumps(x) for x in lines if x["rel_label"] == "director"), encoding="utf-8")
    with pytest.raises(InputError, match=r"name only one of the ontology's relations \('director'\)") as err:
        load_case(path)
    assert err.value.path == str(train) and err.value.key == "train"


def test_one_relation_found_in_the_sentences_is_bad_input_not_a_traceback(tmp_path, capsys):
    path = _copy(FILM, tmp_path / "c")
    train = tmp_path / "c" / "train.jsonl"
    # two relations named, but "Nowhere" is in no sentence: only director triples align
    lines = [json.loads(x) for x in (FILM / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    lines = [x for x in lines if x["rel_label"] == "director"] + [{**lines[1], "obj_label": "Nowhere"}]
    train.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    assert main(["text", str(path), "--out", str(tmp_path / "out"), "--no-validate"]) == 2
    assert "found in their sentences for one relation only, 'director'" in capsys.readouterr().err


def test_an_ontology_without_relations_is_said_and_gives_no_triples(tmp_path, caplog, capsys):
    path = _copy(FILM, tmp_path / "c")
    (tmp_path / "c" / "ontology.json").write_text('{"id": "ont_empty", "concepts": [], "relations": []}')
    assert main(["text", str(path), "--out", str(tmp_path / "out"), "--no-validate"]) == 0
    assert "ontology.json: the ontology has no relations: no triple can be extracted" in caplog.text
    assert "tiny_film: no relations (the ontology has none); 2 sentences, 0 KG triples" in capsys.readouterr().out


def test_open_ranges_and_learned_date_forms_give_the_tekgen_triples(tmp_path):
    res = run_case(load_case(FILM / "case.yaml"), tmp_path, validate=True)
    out = [json.loads(x)["triples"] for x in (tmp_path / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    # "a 2003 Japanese horror film": the training objects write a year alone as "01 January <year>"
    assert [(t["sub"], t["rel"], t["obj"], t["objType"]) for t in out[0]] == [
        ("Dark Water", "director", "Hideo Nakata", "human"),
        ("Dark Water", "publication date", "01 January 2003", "Date")]
    assert res["setting"] == "trained"
    assert {k: v["value"] for k, v in res["validation"].items()} == {"SV2": True, "CS2-owlrl": True, "SHACL": True}
    kg = (tmp_path / "kg.nt").read_text(encoding="utf-8")
    # Wikidata ids name the terms, as in the benchmark's OWL files; the open range's date is a literal
    assert "<http://example.org/tiny-film/Dark%20Water> <https://cenguix.github.io/Text2KGBench/ont_tiny_film/" \
           "relations#P577> \"2003-01-01\"^^<http://www.w3.org/2001/XMLSchema#date> ." in kg
    assert "<http://example.org/tiny-film/Hideo%20Nakata> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> " \
           "<https://cenguix.github.io/Text2KGBench/ont_tiny_film/concepts#Q5> ." in kg
    assert res["scores"]["t2kb"]["f1"] == pytest.approx((0.8 + 1.0) / 2)


def test_text2kgbench_metric_is_run_eval_py():
    gold = [{"sub": "Egypt", "rel": "head of state", "obj": "Abdel Fattah el-Sisi"},
            {"sub": "Egypt", "rel": "Member of", "obj": "Arab League"}]
    pred = [{"sub": "Egypt", "rel": "head_of_state", "obj": " Abdel Fattah el-Sisi"},  # kept, matches
            {"sub": "Egypt", "rel": "head_of_government", "obj": "Mostafa Madbouly"},  # not a gold relation: ignored
            {"sub": "Egypt", "rel": "member_of", "obj": "Arab League"},  # run_eval.py compares relations by case
            {"sub": "Egypt", "rel": "Member of", "obj": "African Union"}]  # kept, wrong
    assert text2kgbench_prf(gold, pred) == (0.5, 0.5, 0.5)
    assert text2kgbench_prf(gold, []) == (0.0, 0.0, 0.0)
    assert text2kgbench_prf([], pred) == (0.0, 0.0, 0.0)  # no gold relation: nothing kept
    onto = load_ontology(FILM / "ontology.json")
    s = score_ontology([Output("1", "x", [{"sub": "A", "rel": "director", "obj": "B"}],
                               [{"sub": "A", "rel": "director", "obj": "B"}, {"sub": "A", "rel": "genre", "obj": "C"}]),
                        Output("2", "y", [{"sub": "D", "rel": "genre", "obj": "E"}], [])], onto)
    assert s["t2kb"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    # ours counts the prediction of a relation the gold lacks against it
    assert s["triple"]["precision"] == pytest.approx(0.25)


def test_baselines_are_rescored_over_every_gold_sentence_last_response_counting(tmp_path):
    bench = tmp_path / "bench"
    (bench / "ground_truth").mkdir(parents=True)
    shutil.copy(FILM / "gold.jsonl", bench / "ground_truth" / "ont_1_film_ground_truth.jsonl")
    resp = bench / "baselines" / "Vicuna-13B" / "llm_responses"
    resp.mkdir(parents=True)
    (resp / "ont_1_film_llm_responses.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"id": "ont_tiny_film_test_1", "triples": [["Dark Water", "director", "Nobody"]]},
        {"id": "ont_tiny_film_test_1", "triples": [["Dark Water", "director", "Hideo Nakata"], ["x"]]}]))
    metrics = bench / "baselines" / "Vicuna-13B" / "eval_metrics"
    metrics.mkdir(parents=True)
    (metrics / "ont_llm_avg_stats_v2.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"onto": "1_film", "type": "all_test_cases", "avg_f1": "0.25"},
        {"onto": "1_film", "type": "selected_test_cases", "avg_f1": "0.90"},
        {"id": "global", "type": "global", "avg_f1": "0.25"}]))
    s = rescore_baseline(bench, "Vicuna-13B", "1_film", load_ontology(FILM / "ontology.json"))
    # sentence 1: the last response, P 1 R 1/3 -> F1 0.5; sentence 2: no response -> 0
    assert s["t2kb"]["f1"] == pytest.approx(0.25) and s["n_sentences"] == 2
    assert published_baseline(bench, "Vicuna-13B") == {"1_film": {"f1": 0.25}}


def _tiny_bench(root: Path) -> Path:
    """A Text2KGBench-like folder with one ontology (the tiny university case) to learn from."""
    for sub in ("ontologies", "train"):
        (root / sub).mkdir(parents=True)
    shutil.copy(UNIVERSITY / "ontology.json", root / "ontologies" / "1_tinyuni_ontology.json")
    shutil.copy(UNIVERSITY / "train.jsonl", root / "train" / "ont_1_tinyuni_train.jsonl")
    return root


def test_without_train_kgc_text_is_zero_shot_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TEXT2KGBENCH_DIR", str(_tiny_bench(tmp_path / "bench")))
    monkeypatch.setenv("TEXT2KGBENCH_TEKGEN_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))  # no fit stored by an earlier run
    path = _copy(FILM, tmp_path / "c")
    path.write_text(path.read_text(encoding="utf-8").replace("train: [train.jsonl]\n", ""), encoding="utf-8")
    assert main(["text", str(path), "--out", str(tmp_path / "out"), "--no-validate"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "tiny_film: zero-shot (zero-shot: no training sentence of this ontology, 1 training ontologies, " \
        "fitted on this run)" in out
    # the fit of minutes is announced before it starts, with what it learns from
    stages = [re.sub(r" \(\d+\.\d s, peak memory \d+(\.\d)? [MG]B\)$", "", line).split(" in ")[0]
              for line in captured.err.splitlines()
              if line.startswith("kgc text: ")]
    assert stages == ["kgc text: tiny_film: zero-shot: fitting the offline extractor on 8 training sentences of 1 "
                      "other ontologies (no training sentence of this one)",
                      "kgc text: tiny_film: fitting: names, types and sentence vectors of 8 training sentences",
                      "kgc text: tiny_film: fitting: candidate pairs of 8 training sentences",
                      "kgc text: tiny_film: fitting: first-level models on 76 candidate pairs",
                      "kgc text: tiny_film: zero-shot: the offline extractor for 8 training sentences of 1 other "
                      "ontology fitted",
                      "kgc text: tiny_film: extracting triples from 2 sentences"]
    prov = json.loads((tmp_path / "out" / "tiny_film" / "provenance.json").read_text(encoding="utf-8"))
    assert prov["setting"] == "zero-shot" and prov["training_ontologies"] == ["1_tinyuni"]
    # learned on eight university sentences, the film ontology's words choose its relations
    first = json.loads((tmp_path / "out" / "tiny_film" / "outputs.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert {(t["rel"], t["obj"]) for t in first["triples"] if t["sub"] == "Dark Water"} >= {
        ("director", "Hideo Nakata"), ("publication date", "2003")}


def test_a_colon_at_the_edge_of_a_capitalised_run_is_no_crash():
    from pipeline.text.mentions import Lexicon, find_mentions
    values = [m.value for m in find_mentions("Manfred: A dramatic poem is a closet drama written in 1816-1817 by "
                                             "Lord Byron.", Lexicon([]))]
    assert "Manfred" in values and "Lord Byron" in values
