"""Sentence-level stacking and the decoder of the offline extractor (issue 14)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.text.decode import f1_decode, threshold_decode
from pipeline.text.pair_score import PairScore
from pipeline.text.mentions import Mention
from pipeline.text.stacking import (FEATURES, Bagged, clause_role, context_features, fit_stacker, fit_stackers, restack,
                                    stack_labels)

SENT = "Alan Bean was born in Wheeler, Texas and worked for NASA."
ALAN = Mention(0, 9, "Alan Bean", "Alan Bean", "CAP")
WHEELER = Mention(22, 36, "Wheeler, Texas", "Wheeler, Texas", "CAPCOMMA")
NASA = Mention(52, 56, "NASA", "NASA", "CAP")


def _pair(a, b, p, ps, rel="birthPlace", score=0.5):
    return PairScore(a, b, p, ps, rel, score, rel, None, 0.0)


def _sentence() -> list[PairScore]:
    return [_pair(ALAN, WHEELER, 0.6, 0.9), _pair(ALAN, NASA, 0.3, 0.9, "employer", 0.2),
            _pair(WHEELER, NASA, 0.1, 0.2, "employer", 0.4), _pair(WHEELER, ALAN, 0.05, 0.2),
            _pair(NASA, WHEELER, 0.2, 0.1), _pair(NASA, ALAN, 0.02, 0.1)]


def test_context_features_place_a_pair_among_the_sentence_pairs():
    x = context_features(_sentence())
    f = {name: x[:, i].tolist() for i, name in enumerate(FEATURES)}
    assert x.shape == (6, len(FEATURES))
    # NASA's subjects: Alan Bean (0.3) before Wheeler (0.1); Wheeler's: Alan Bean (0.6) before NASA (0.2);
    # Alan Bean's: Wheeler (0.05) before NASA (0.02)
    assert f["subject_rank_for_object"] == [0, 0, 1, 0, 1, 1]
    assert f["best_for_object"] == [1, 1, 0, 1, 0, 0]
    assert f["margin_for_object"] == pytest.approx([0.4, 0.2, -0.2, 0.03, -0.4, -0.03])
    # topic = the subject with the highest sum of p * ps: Alan Bean (0.81 against 0.03 and 0.022)
    assert f["subject_is_topic"] == [1, 1, 0, 0, 0, 0]
    assert f["subject_topic_rank"] == [0, 0, 1, 1, 2, 2]
    # Wheeler is itself the object of a 0.6 pair: a linked name; Alan Bean the object of 0.05 at most
    assert f["subject_as_object_p"] == pytest.approx([0.05, 0.05, 0.6, 0.6, 0.3, 0.3])
    assert f["likely_objects"] == [2] * 6  # Wheeler (0.6) and NASA (0.3) reach 0.2; Alan Bean does not
    assert f["names"] == [3] * 6 and f["names_between"] == [0, 1, 0, 0, 0, 1]
    assert f["object_shape=CAP"] == [0, 1, 1, 1, 0, 1]
    # NASA has a better birthPlace pair (Wheeler, 0.2) than the one to Alan Bean (0.02)
    assert f["same_relation_better"] == [0, 0, 0, 0, 0, 1]


def test_a_pair_with_an_alternative_relation_counts_once_in_its_sentence():
    alt = dataclasses.replace(_pair(ALAN, WHEELER, 0.7, 0.9, "employer", 0.1), alt=1, label=1.0, label_other=0.5)
    plain, with_alt = context_features(_sentence()), context_features(_sentence() + [alt])
    f = {name: with_alt[:, i].tolist() for i, name in enumerate(FEATURES)}
    # the pair is its most probable row (the alternative, 0.7) in the context: Wheeler's best triple
    # has 0.7, which the pair's best-relation row (0.6) does not reach
    assert f["best_for_object"] == [0, 1, 0, 1, 0, 0, 1]
    assert f["p_over_best_for_object"][0] == pytest.approx(0.6 / 0.7) and f["subject_rank_for_object"][0] == 1
    assert f["margin_for_object"] == pytest.approx([-0.1, 0.2, -0.2, 0.03, -0.5, -0.03, 0.5])
    # rows of other objects are as without the alternative
    for name in ("margin_for_object", "subject_rank_for_object", "subject_is_topic", "names_between"):
        assert [f[name][i] for i in (1, 2, 3, 5)] == pytest.approx(plain[[1, 2, 3, 5], FEATURES.index(name)].tolist())
    assert f["alternative"] == [0] * 6 + [1] and f["relation_margin"] == pytest.approx([0] * 6 + [0.1 - 0.5])
    # the pair is Alan Bean's employer (0.7) in the context: NASA as his employer (0.3) has a better one
    assert f["same_relation_better"] == [0, 1, 0, 0, 0, 1, 0]
    assert f["names"] == [3] * 7 and f["object_p_sum"][0] == pytest.approx(0.7 + 0.2)
    assert (f["label_share"], f["label_share_other"]) == ([0] * 6 + [1.0], [0] * 6 + [0.5])


def test_in_the_first_round_a_pair_is_its_best_relation_row():
    # before stacking every row of a pair has the pair's probability: the alt-0 row stands for it
    alt = dataclasses.replace(_pair(ALAN, WHEELER, 0.6, 0.9, "employer", 0.1), alt=1)
    plain, with_alt = context_features(_sentence()), context_features(_sentence() + [alt])
    for name in ("best_for_object", "subject_rank_for_object", "margin_for_object", "same_relation_better",
                 "subject_is_topic", "object_p_sum", "relation_rank_for_object"):
        i = FEATURES.index(name)
        assert with_alt[:6, i].tolist() == pytest.approx(plain[:, i].tolist()), name
    f = {name: with_alt[6, i] for i, name in enumerate(FEATURES)}
    # the alternative: as probable as the pair's best row; its relation score 0.1 is below both of
    # Wheeler's pairs (0.5 each: Alan Bean's best relation and NASA's)
    assert (f["best_for_object"], f["subject_rank_for_object"], f["relation_rank_for_object"]) == (1, 0, 2)
    assert (f["alternative"], f["relation_margin"]) == (1, pytest.approx(-0.4))


def test_a_row_is_a_positive_when_its_pair_is_gold_with_its_relation():
    best = _pair(ALAN, WHEELER, 0.6, 0.9, "employer", 0.4)
    second = dataclasses.replace(best, rel="birthPlace", rel_score=0.1, alt=1)
    nasa = dataclasses.replace(_pair(ALAN, NASA, 0.3, 0.9, "employer", 0.2), pair=1)
    # Wheeler is Alan Bean's birthPlace (the second relation), NASA no gold pair
    assert stack_labels([[best, second, nasa]], [["birthPlace", None]]) == [[0, 1, 0]]
    assert stack_labels([[best, second, nasa]], [["employer", "employer"]]) == [[1, 0, 1]]


def test_the_decoders_keep_one_relation_per_pair():
    from pipeline.text.data import Relation
    from pipeline.text.decode import write_triples
    rels = {"birthPlace": Relation("birthPlace", "Person", "Place"), "employer": Relation("employer", "Person", "Organisation")}
    best = _pair(ALAN, WHEELER, 0.6, 0.9, "birthPlace", 0.4)
    rows = [best, dataclasses.replace(best, rel="employer", rel_score=0.1, alt=1, p=0.5),
            _pair(ALAN, NASA, 0.5, 0.9, "employer", 0.3)]
    for kept in (threshold_decode(rows, 0.2, 0.0), f1_decode(rows, 1.0, 0.0)):
        assert [(a.value, b.value, r) for _, a, b, r in kept] == [("Alan Bean", "Wheeler, Texas", "birthPlace"),
                                                                 ("Alan Bean", "NASA", "employer")]
        assert [(t["sub"], t["rel"], t["obj"]) for t in write_triples(SENT, kept, [c.b for c in rows], rels, [], {})] == [
            ("Alan Bean", "birthPlace", "Wheeler, Texas"), ("Alan Bean", "employer", "NASA")]


def _mention(sent: str, text: str) -> Mention:
    start = sent.index(text)
    return Mention(start, start + len(text), text, text, "CAP")


def test_clause_role_finds_the_antecedent_of_the_relative_clause_holding_the_object():
    sent = "The manager of A.F.C. Blackpool is Stuart Parker (footballer) who played for Bury FC. It has 5 members."
    club, parker, bury = (_mention(sent, t) for t in ("A.F.C. Blackpool", "Stuart Parker", "Bury FC"))
    five = Mention(sent.index("5"), sent.index("5") + 1, "5", "5", "NUM")
    names = [(m.start, m.end) for m in (club, parker, bury)]
    # "who" follows "Stuart Parker (footballer)": the clause's antecedent is Stuart Parker
    assert clause_role(sent, parker, bury, names) == "antecedent"
    assert clause_role(sent, club, bury, names) == "other_antecedent"
    assert clause_role(sent, bury, parker, names) is None  # the object comes before any pronoun
    assert clause_role(sent, club, parker, names) is None
    # a new sentence ends the clause; no sentence text, no clause
    assert clause_role(sent, club, five, names) is None
    assert clause_role("", parker, bury, names) is None
    other = "Alan Bean, who was born in Wheeler, Texas, flew for NASA, which NASA operated."
    alan, wheeler = _mention(other, "Alan Bean"), _mention(other, "Wheeler")
    assert clause_role(other, alan, wheeler, [(alan.start, alan.end)]) == "antecedent"
    assert clause_role(other, wheeler, _mention(other, "NASA"), [(wheeler.start, wheeler.end)]) == "subject_inside"
    capsule = "Alan Bean flew the capsule, which landed in Texas."
    alan, texas = _mention(capsule, "Alan Bean"), _mention(capsule, "Texas")
    assert clause_role(capsule, alan, texas, [(alan.start, alan.end), (texas.start, texas.end)]) == "no_antecedent"
    inside = Mention(other.rindex("NASA"), other.rindex("NASA") + 4, "NASA", "NASA", "CAP")
    assert clause_role(other, inside, Mention(len(other) - 1, len(other), ".", ".", "LOW"), []) == "subject_inside"


def test_threshold_decode_ranks_by_stacked_probability_without_subject_power():
    ranked = threshold_decode(_sentence(), 0.25, subject_power=0.0)
    assert [(c[1].value, c[2].value, c[3]) for c in ranked] == [
        ("Alan Bean", "Wheeler, Texas", "birthPlace"), ("Alan Bean", "NASA", "employer")]
    assert [round(c[0], 2) for c in ranked] == [0.65, 0.32]
    # nothing reaches the threshold: the most likely pair still comes out (its SVM-only relation)
    assert [(c[1].value, c[2].value) for c in threshold_decode(_sentence(), 0.9)] == [("Alan Bean", "Wheeler, Texas")]


def test_stackers_learn_a_context_rule_and_rescore_in_one_batch():
    # 40 copies of the sentence: the gold pairs are each object's best subject when it is the topic
    sentences = [_sentence() for _ in range(40)]
    labels = [[1, 1, 0, 0, 0, 0] for _ in range(40)]
    folds = [i % 2 for i in range(40)]
    model = fit_stacker(sentences, labels)
    out = restack([sentences[0], [], sentences[1]], model)
    assert out[1] == [] and len(out[0]) == 6
    assert [c.p > 0.5 for c in out[0]] == [True, True, False, False, False, False]
    assert [c.p for c in out[0]] == [c.p for c in out[2]]  # the same context, the same probability
    assert np.allclose([c.p for c in out[0]], model.predict_proba(context_features(sentences[0]))[:, 1])
    assert out[0][0].a == ALAN and out[0][0].rel == "birthPlace"  # only p changes
    assert len(fit_stackers(sentences, labels, folds, rounds=2)) == 2
    assert fit_stackers(sentences, [[0] * 6 for _ in range(40)], folds) == []  # one class: nothing to learn


def test_the_extractor_stacks_only_with_enough_training_sentences(monkeypatch):
    from pathlib import Path

    from pipeline.text import offline
    from pipeline.text.manifest import load_case
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    case = load_case(Path(__file__).parent / "cases" / "text" / "case.yaml")
    training = {"tiny_university": (case.ontology, case.train)}
    small = offline.OfflineExtractor().fit(training)
    assert small.stackers == [] and small.threshold == 0.2  # 8 sentences: the pair probability alone
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)
    seen = {}

    def spy(sentences, labels, folds, rounds=3, groups=None, seed=0):
        seen.update(n=len(sentences), pairs=sum(map(len, sentences)), pos=sum(map(sum, labels)), folds=folds,
                    alts=sum(c.alt for s in sentences for c in s), groups=set(groups), seed=seed)
        return fit_stackers(sentences, labels, folds, rounds, groups, seed)
    monkeypatch.setattr(offline, "fit_stackers", spy)
    offline.OfflineExtractor(relation_candidates=1).fit(training)
    # every training sentence gets out-of-fold scored pairs, labelled like the pair model's rows
    # the corpus of a sentence: its ontology's others; four of these eight (by CRC-32) are a corpus of their own
    assert seen["groups"] == {"tiny_university"} | {f"tiny_university#{i}" for i in (4, 5, 6, 7)}
    assert seen["n"] == len(case.train) and seen["folds"] == [s.fold for s in case.train] == [0, 1, 0, 1, 0, 1, 1, 0]
    assert seen["seed"] == 0
    assert (seen["pairs"], seen["pos"], seen["alts"]) == (76, 16, 0)  # both folds scored: all 76 candidate pairs, 16 of them gold
    stacked = offline.OfflineExtractor().fit(training)
    # and each pair's second-best relation: 16 of the 76 pairs have one, none of them a gold triple
    assert (seen["pairs"], seen["pos"], seen["alts"]) == (92, 16, 16)
    assert len(stacked.stackers) == 3 and stacked.threshold == 0.2  # one default, stacked or not (dev protocol)
    texts = [s.text for s in case.sentences]
    out = stacked.extract(texts, case.ontology)
    assert all(t["rel"] in case.ontology.relations for ts in out for t in ts)
    # the run's sentences are one corpus for the stacker; with corpus: false each one alone
    groups = []

    def restack_spy(sentences, stacker, g=None, fixed=None):
        groups.append(g)
        return offline_restack(sentences, stacker, g, fixed)
    offline_restack = offline.restack
    monkeypatch.setattr(offline, "restack", restack_spy)
    stacked.extract(texts, case.ontology)
    stacked.corpus = False
    alone = stacked.extract(texts, case.ontology)
    assert groups == [None] * 3 + [["0", "1"]] * 3  # three stacking rounds each
    assert alone == [stacked.extract([t], case.ontology)[0] for t in texts]


def test_a_text_manifest_sets_or_rejects_the_stacking_option(tmp_path):
    from pathlib import Path

    from pipeline.errors import ManifestError
    from pipeline.text.manifest import load_case
    case = Path(__file__).parent / "cases" / "text"
    text = (case / "case.yaml").read_text(encoding="utf-8")
    for name in ("ontology.json", "test.jsonl", "gold.jsonl", "train.jsonl"):
        (tmp_path / name).write_text((case / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "off.yaml").write_text(text.replace("{threshold: 0.3}", "{threshold: 0.3, stack: false}"))
    assert load_case(tmp_path / "off.yaml").offline == {"threshold": 0.3, "stack": False}
    # every extractor setting is a manifest key (read from the extractor's signature)
    (tmp_path / "all.yaml").write_text(text.replace("{threshold: 0.3}", "{literal_forms: false, canonical: false}"))
    assert load_case(tmp_path / "all.yaml").offline == {"literal_forms": False, "canonical": False}
    (tmp_path / "typo.yaml").write_text(text.replace("{threshold: 0.3}", "{stak: false}"))
    with pytest.raises(ManifestError, match="'offline': unknown setting 'stak'; expected one of .*'canonical'.*'stack'"):
        load_case(tmp_path / "typo.yaml")
    # a decoder is one of f1, threshold (an empty or false value is no decoder); a threshold
    # belongs to the threshold decoder
    for bad, message in (("decoder: ''", "decoder '' unknown"), ("decoder: false", "decoder False unknown"),
                         ("decoder: 0", "decoder 0 unknown"),
                         ("threshold: 0.3, decoder: f1", "threshold 0.3 applies to the threshold decoder only"),
                         ("decoder: threshold, missing: 3", "missing 3 applies to the f1 decoder only")):
        (tmp_path / "bad.yaml").write_text(text.replace("{threshold: 0.3}", "{" + bad + "}"))
        with pytest.raises(ManifestError, match=message):
            load_case(tmp_path / "bad.yaml")
    (tmp_path / "null.yaml").write_text(text.replace("{threshold: 0.3}", "{decoder: null}"))
    assert load_case(tmp_path / "null.yaml").offline == {"decoder": None}  # null: the default (f1)



def _objects(sent: str, *qs: float) -> list[PairScore]:
    """One pair per object span of ``sent`` (Alan Bean as subject), with stacked probabilities ``qs``."""
    objs = [_mention(sent, t) for t in ("Texas", "NASA", "Apollo 12")]
    return [_pair(ALAN, o, q, 1.0, "employer", 0.0) for o, q in zip(objs, qs)]


def test_f1_decode_keeps_the_pairs_of_the_best_expected_f1_per_sentence():
    sent = "Alan Bean of Texas worked for NASA on Apollo 12."
    # confident sentence (0.95, 0.9, 0.3): expected gold 2.15 + 1 missing; F1(k=2) = 3.7/5.15 = 0.718
    # beats F1(k=3) = 4.3/6.15 = 0.699: the 0.3 pair goes, which threshold 0.2 keeps
    kept = f1_decode(_objects(sent, 0.95, 0.9, 0.3), missing=1.0, subject_power=0.0)
    assert [c[2].value for c in kept] == ["Texas", "NASA"]
    assert len(threshold_decode(_objects(sent, 0.95, 0.9, 0.3), 0.2, 0.0)) == 3
    # weak sentence (0.3, 0.25, 0.15): expected gold 0.7 + 1; F1(3) = 1.4/4.7 = 0.2979 beats
    # F1(2) = 1.1/3.7 = 0.2973: the 0.15 pair is kept, which threshold 0.2 drops
    kept = f1_decode(_objects(sent, 0.3, 0.25, 0.15), missing=1.0, subject_power=0.0)
    assert [c[2].value for c in kept] == ["Texas", "NASA", "Apollo 12"]
    assert len(threshold_decode(_objects(sent, 0.3, 0.25, 0.15), 0.2, 0.0)) == 2
    # more gold triples outside the candidates make the doubtful pair worth keeping
    assert len(f1_decode(_objects(sent, 0.95, 0.9, 0.3), missing=3.0, subject_power=0.0)) == 3
    # one candidate per object span (its best-ranked pair), a training fact counts as certain,
    # and a sentence keeps at least its best pair
    texas = _mention(sent, "Texas")
    pairs = [_pair(ALAN, texas, 0.4, 1.0, "birthPlace", 0.0), _pair(_mention(sent, "NASA"), texas, 0.3, 1.0),
             dataclasses.replace(_pair(ALAN, _mention(sent, "NASA"), 0.01, 1.0, "employer", 0.0), fact="employer")]
    kept = f1_decode(pairs, missing=1.0, subject_power=0.0)
    assert [(c[1].value, c[2].value, c[3]) for c in kept] == [("Alan Bean", "NASA", "employer"),
                                                             ("Alan Bean", "Texas", "birthPlace")]
    assert f1_decode([], 1.0) == []
    # exactly k: equal probabilities keep the better ranked; not-a-number counts as 0
    assert [c[2].value for c in f1_decode(_objects(sent, 0.0, 0.0, 0.0), 1.0, 0.0)] == ["Texas"]
    kept = f1_decode(_objects(sent, float("nan"), 0.9, 0.1), missing=1.0, subject_power=0.0)
    assert [c[2].value for c in kept] == ["NASA"]
    # no relation allowed for any pair: the most likely pair with its SVM-only relation
    only_raw = [PairScore(ALAN, _mention(sent, "NASA"), 0.3, 1.0, None, 0.0, "employer", None, 0.0),
                PairScore(ALAN, texas, 0.1, 1.0, None, 0.0, "birthPlace", None, 0.0)]
    assert [(c[2].value, c[3]) for c in f1_decode(only_raw, 1.0, 0.0)] == [("NASA", "employer")]
    with pytest.raises(ValueError, match="missing must be a finite number >= 0, got -1"):
        f1_decode(_objects(sent, 0.5), missing=-1)


def test_bagged_stacker_averages_models_fitted_on_different_samples():
    # sentences that differ (their pair probabilities are scaled) and whose labels are noisy
    rng = np.random.default_rng(7)
    sentences, labels = [], []
    for i in range(60):
        scale = 0.5 + rng.random() / 2
        sentences.append([dataclasses.replace(c, p=c.p * scale) for c in _sentence()])
        labels.append([1, 1, 0, 0, 0, 0] if i % 5 else [1, 0, 0, 0, 1, 0])
    bagged = fit_stacker(sentences, labels, bags=3)
    single = fit_stacker(sentences, labels, bags=1)
    assert isinstance(bagged, Bagged) and len(bagged.models) == 3 and not isinstance(single, Bagged)
    x = np.vstack([context_features(s) for s in sentences])
    outputs = [m.predict_proba(x)[:, 1] for m in bagged.models]
    assert not np.allclose(outputs[0], outputs[1])  # bootstrap samples: different models
    assert np.allclose(bagged.predict_proba(x)[:, 1], np.mean(outputs, axis=0))
    # deterministic: the same data gives the same bags
    assert np.array_equal(fit_stacker(sentences, labels, bags=3).predict_proba(x), bagged.predict_proba(x))
    first = bagged.predict_proba(context_features(sentences[1]))[:, 1]
    assert [p > 0.5 for p in first] == [True, True, False, False, False, False]
