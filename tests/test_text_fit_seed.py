"""The offline extractor's ``seed``: one seed, one fit in any process; another seed, another fit
(folds, training order, the stacker's draws); ``bench --fits`` summarises the scores of several."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeline.text import bench, offline, stacking
from pipeline.text.data import Sentence, fold_of
from pipeline.text.manifest import load_case

CASE = Path(__file__).parent / "cases" / "text" / "case.yaml"


def test_seed_zero_keeps_the_sentence_folds_and_another_seed_cuts_other_halves():
    case = load_case(CASE)
    groups = [s.subject_group for s in case.train]
    assert [fold_of(g) for g in groups] == [fold_of(g, 0) for g in groups] == [s.fold for s in case.train] \
        == [0, 1, 0, 1, 0, 1, 1, 0]
    # SHA-1 of "<seed>:<group>": fixed values, no Python hash
    assert [fold_of(g, 1) for g in groups] == [0, 1, 0, 1, 1, 0, 0, 1]
    assert fold_of("Alan_Bean", 2) == fold_of("Alan_Bean", 2) and Sentence("x", "t").fold == fold_of("x")


def test_the_stacker_draws_of_seed_zero_are_those_of_the_stream_alone():
    assert np.array_equal(stacking._rng(3, 0).integers(0, 100, 20), np.random.default_rng(3).integers(0, 100, 20))
    assert not np.array_equal(stacking._rng(3, 1).integers(0, 100, 20), stacking._rng(3, 0).integers(0, 100, 20))
    assert np.array_equal(stacking._rng(3, 1).integers(0, 100, 20), stacking._rng(3, 1).integers(0, 100, 20))


def _fit(seed: int, monkeypatch, seen: dict):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)  # the 8 sentences get a stacker
    case = load_case(CASE)

    def spy(sentences, labels, folds, rounds=3, groups=None, seed=0):
        seen.setdefault("folds", []).append(list(folds))
        return stacking.fit_stackers(sentences, labels, folds, rounds, groups, seed)
    monkeypatch.setattr(offline, "fit_stackers", spy)
    ex = offline.OfflineExtractor(seed=seed).fit({"tiny_university": (case.ontology, case.train)})
    return ex, ex.extract([s.text for s in case.sentences], case.ontology), case


def test_one_seed_gives_one_fit_and_another_seed_another(monkeypatch):
    seen: dict = {}
    a, out_a, case = _fit(1, monkeypatch, seen)
    b, out_b, _ = _fit(1, monkeypatch, seen)
    assert out_a == out_b
    # the stackers' bagged models: the same trees, the same probabilities for the same rows
    width = getattr(a.stackers[0], "models", [a.stackers[0]])[0].n_features_in_
    probe = np.random.default_rng(7).random((50, width))
    for sa, sb in zip(a.stackers, b.stackers, strict=True):
        assert np.array_equal(sa.predict_proba(probe), sb.predict_proba(probe))
    zero, _, _ = _fit(0, monkeypatch, seen)
    # seed 1's folds (SHA-1 of "1:<group>", training order permuted) against seed 0's (as given)
    order = np.random.default_rng(1).permutation(len(case.train))
    assert a.train_folds == [fold_of(case.train[i].subject_group, 1) for i in order]
    assert zero.train_folds == [s.fold for s in case.train] == seen["folds"][2]
    assert seen["folds"][0] == seen["folds"][1] == a.train_folds != zero.train_folds
    assert [s for _, s in a.train_sents] == [case.train[i] for i in order]
    assert not all(np.array_equal(sa.predict_proba(probe), sz.predict_proba(probe))
                   for sa, sz in zip(a.stackers, zero.stackers))


def test_a_seed_out_of_range_is_refused_before_any_data_is_read():
    with pytest.raises(offline.InputError, match=r"offline setting seed: expected a whole number in \[0, 1000000\]"):
        bench.parse_settings(["seed=-1"])
    assert bench.parse_settings(["seed=4"]) == {"seed": 4}
    assert bench.main(["--fits", "0"]) == 2


def _run(seed: int, f1s: dict[str, tuple[float, float]]) -> dict:
    def scores(t, k):
        return {"triple": {"f1": t}, "t2kb": {"f1": k}}
    rows = {n: {"ours": scores(*v), "ours one-document": scores(v[0] - 0.01, v[1] - 0.01)} for n, v in f1s.items()}
    m = [sum(v[i] for v in f1s.values()) / len(f1s) for i in (0, 1)]
    return {"seed": seed, "rows": rows,
            "macro": {"ours": scores(*m), "ours one-document": scores(m[0] - 0.01, m[1] - 0.01)}}


def test_fit_spread_gives_mean_sample_sd_and_range_per_ontology_and_macro():
    runs = [_run(0, {"a": (0.30, 0.40), "b": (0.50, 0.50)}), _run(1, {"a": (0.34, 0.40), "b": (0.50, 0.60)}),
            _run(2, {"a": (0.32, 0.40), "b": (0.50, 0.55)})]
    s = bench.fit_spread(runs)
    assert s["seeds"] == [0, 1, 2]
    a = s["rows"]["a"]["triple F1"]
    assert a["mean"] == pytest.approx(0.32) and a["sd"] == pytest.approx(0.02) and (a["min"], a["max"]) == (0.30, 0.34)
    assert s["rows"]["b"]["T2KB F1"]["sd"] == pytest.approx(0.05) and s["rows"]["a"]["T2KB F1"]["sd"] == 0.0
    assert s["rows"]["macro"]["triple F1"]["values"] == pytest.approx([0.40, 0.42, 0.41])
    assert s["rows"]["a"]["triple F1 one-doc"]["mean"] == pytest.approx(0.31)
    table = bench.format_spread(s)
    assert "| a | 0.3200 ± 0.0200 [0.3000, 0.3400] |" in table and "| **macro** |" in table
    with pytest.raises(ValueError):
        bench.fit_spread([runs[0], _run(3, {"a": (0.3, 0.3)})])
