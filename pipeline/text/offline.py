"""The offline extractor: ontology-guided triple extraction without a network or a key.

Built from the ontology, the training split and the packaged sentence embeddings:

1. candidate mentions of the sentence (:func:`.mentions.find_mentions`: capitalised names,
   numbers, dates, quoted values, names known from the training triples, spelled with or
   without accents);
2. every ordered pair (subject candidate, object candidate) gets sparse features: the words
   between and around the two mentions, their shapes and words, whether the subject is the
   sentence's first name, whether either lies in a sentence-initial adverbial phrase
   (:func:`.mentions.fronted_phrases`: "Born in Canada, Aaron Boogaard ..."), the relations the
   object's known name had in training, the classes of both names learned from the training triples (:mod:`.entity_types`), and the relations
   of the k nearest training sentences (cosine of all-MiniLM-L6-v2 embeddings);
3. a logistic-regression model says whether the pair holds a relation at all, a linear SVM
   which relation; the choice is restricted to the ontology's relations whose domain/range
   accept the mentions (a number for a ``number`` range, a date for a ``Date`` range, a name
   for a class range);
4. a third logistic regression says how likely each name is the subject of some triple (its
   position, neighbouring words, shape); pairs competing for one object are ranked by the pair
   probability times this one;
4b. with ``stack`` (default), three rounds of bagged gradient-boosted models re-score each pair from
   its place among the sentence's scored pairs (:mod:`.stacking`: its rank among the subjects of
   its object, whether its subject is the topic or itself a likely object, how many likely
   objects the sentence has ...), learned from cross-fitted scores of the training sentences;
   a pair is scored with its ``relation_candidates`` best relations, each with the share of its
   name's words around the pair ("The *manager* of A.F.C. Blackpool is Stuart Parker": the SVM's
   ``club`` against ``manager``), and the stacker weighs them; it also sees what the run's
   other sentences give the same names (``corpus``, :mod:`.corpus`: the same triple, the pair,
   the reversed pair, each name as a subject elsewhere - a corpus states its facts more than once);
4c. the kept pairs are those of the sentence's highest expected F1 (``decoder: f1``,
   :func:`.decode.f1_decode`) or those whose probability reaches ``threshold`` (:mod:`.decode`);
5. overlapping object candidates keep their best pair; a name coordinated with a chosen object
   (``X and Y``, ``X, Y``) gets the same subject and relation; values are normalized
   (:mod:`.normalize`) and ``subType``/``objType`` come from the relation's domain and range;
6. a name is written with a DBpedia disambiguation (:mod:`.names`: ``Auron (comicsCharacter)``,
   ``Auburn, Texas``) when that kind of variant, fired on a training sentence's entity, was the
   training triple's name more often than the plain one (a rate learned in :meth:`fit`, shrunk
   towards that of its shape: :func:`.features.variant_rates`); a
   known suffix found elsewhere in the sentence (``DISANY``) only for the sentence's topic (the
   subject span of the most chosen pairs); one subject span keeps one name;
   a name some sentence of the run writes out with its disambiguation (``Stuart Parker
   (footballer)``) is written so in every sentence (:func:`.canonical.written_disambiguations`);
7. fact memory (``fact_memory``): a pair whose two names form a triple of the training split gets
   that triple's relation and is ranked before every other pair.

Deterministic: one ``seed`` setting (default 0) fixes every draw of the fit (folds, order, samples,
solvers' ``random_state``); mentions and pairs in text order.
Training data: the training sentences of the ontologies given to :meth:`OfflineExtractor.fit`;
the leave-one-ontology-out protocol fits without the scored ontology (see :mod:`.harness`).
"""
from __future__ import annotations

import inspect
import logging
import math
import re
import time
from collections.abc import Callable

import numpy as np
from scipy import sparse

from pipeline import embeddings
from pipeline.errors import InputError
from pipeline.gcpause import cycles_uncollected
from pipeline.text import sparse_rows
from pipeline.text.canonical import canonical_spellings, completed_names, written_disambiguations
from pipeline.text.corpus import training_groups
from pipeline.text.data import Relation, Sentence, TextOntology, fold_of, resolve_relations
from pipeline.text.decode import f1_decode, stated, threshold_decode, write_triples
from pipeline.text.entity_types import TypeGuesser
from pipeline.text.label_model import LabelModel, contexts
from pipeline.text.features import (NAME_SHAPES, alias_keys, compatible, count_variants, known_relations,
                                    label_stems, of_argument, plain_mentions, sentence_pairs, stems, subject_features,
                                    variant_rates, words)
from pipeline.text.mentions import Lexicon, Mention, find_mentions, fold_accents, tokens
from pipeline.text.normalize import LiteralForms, key, normalize_value, year_keys
from pipeline.text.pair_score import PairScore
from pipeline.text.stacking import cross_fitted_scores, fit_stackers, fixed_features, restack, stack_labels
from pipeline.text.tagger import MODELS, SequenceTagger, add_tag_features, combine
from pipeline.text.vectors import sentence_vectors
from pipeline.text.windows import MAX_CHARS, text_windows

__all__ = ["OfflineExtractor", "compatible", "setting_names"]

log = logging.getLogger(__name__)

STACK_MIN_SENTENCES = 200  # fewer training sentences: no stacker (see OfflineExtractor.fit)


#: Candidate pairs vectorized at a time in a fit (:meth:`OfflineExtractor.fit`): bounds the transform's
#: working memory, not the result.
VECTORIZE_ROWS = 65_536


def _csr32(m):
    """liblinear accepts 32-bit sparse indices only (DictVectorizer may give 64-bit ones)."""
    m = m.tocsr()
    m.indices = m.indices.astype(np.int32)
    m.indptr = m.indptr.astype(np.int32)
    return m


#: Zero-width and other invisible format characters a text may carry (copied from web pages).
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")

#: Decoders of a sentence's scored pairs (:mod:`.decode`).
DECODERS = ("f1", "threshold")

#: range of each numeric setting: (lowest, highest, whole number, None allowed)
_SETTING_RANGES = {"k": (1, None, True, False), "min_df": (1, None, True, False),
                   "threshold": (0.0, 1.0, False, True), "label_weight": (0.0, None, False, False),
                   "subject_weight": (0.0, None, False, False), "zero_shot": (None, None, False, True),
                   "missing": (0.0, None, False, False), "relation_candidates": (1, None, True, False),
                   "seed": (0, 1_000_000, True, False)}


def _check_types(numbers: dict[str, object], flags: dict[str, object]) -> None:
    """Settings from a manifest or ``--set`` are checked before they reach a comparison or a
    slice: ``numbers`` against :data:`_SETTING_RANGES` (``k`` and ``min_df`` whole numbers >= 1,
    ``threshold`` a probability in [0, 1] or null, weights and ``missing`` >= 0,
    ``relation_candidates`` a whole number >= 1, ``seed`` a whole number in [0, 1000000], ``zero_shot`` any
    number on the SVM's scale or null), ``flags`` true/false.

    Raises:
        InputError: the first setting of the wrong type or out of range, with its name, value
            and what was expected.
    """
    for name, v in numbers.items():
        lo, hi, whole, nullable = _SETTING_RANGES[name]
        if v is None and nullable:
            continue
        expected = ("a whole number" if whole else "a number") + (f" >= {lo}" if lo is not None and hi is None else "") + \
            (f" in [{lo}, {hi}]" if hi is not None else "") + (" or null" if nullable else "")
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and \
            (not whole or float(v).is_integer()) and (lo is None or v >= lo) and (hi is None or v <= hi)
        if not ok:
            raise InputError(f"offline setting {name}: expected {expected}, got {v!r}", key=name)
    for name, v in flags.items():
        if not isinstance(v, bool):
            raise InputError(f"offline setting {name}: expected true or false, got {v!r}", key=name)


def setting_names() -> list[str]:
    """The extractor's settings a manifest (``offline:``) or ``--set`` may give: the parameters of
    :class:`OfflineExtractor`, sorted (read from its signature, so a new setting is accepted
    everywhere the day it exists)."""
    return sorted(inspect.signature(OfflineExtractor).parameters)


class OfflineExtractor:
    """Pair classifier over candidate mentions (see the module docstring).

    The defaults were chosen on the dev protocol (:mod:`.bench`: fitted on 80% of each
    ontology's training sentences, scored on the held-out 20%), never on the test split.

    Args:
        k: nearest training sentences whose relations become features.
        decoder: ``f1`` (the default unless ``threshold`` is given): per sentence, the pairs
            that maximise its expected F1 (:func:`.decode.f1_decode`: a threshold per sentence,
            about half the F1 its pairs can reach); ``threshold``: every pair whose probability
            reaches ``threshold`` (:func:`.decode.threshold_decode`; the default when
            ``threshold`` is given; a ``threshold`` with ``f1`` is an error).
        missing: the ``f1`` decoder's expected number of a sentence's gold triples that no
            candidate pair states (added to the candidates' expected number; default 1.0; an
            error with ``decoder: threshold``).
        threshold: the ``threshold`` decoder's minimum probability that a pair holds a relation
            (default 0.2, the pair probability's or the stacked one's).
        use_embeddings: use the packaged MiniLM embeddings for the nearest sentences (else
            TF-IDF cosine; :attr:`similarity` says which was used).
        label_weight: weight of the overlap between the pair's context words and the relation
            name's words (stemmed), added to the relation's score.
        subject_weight: exponent of the subject model's probability (is this name the subject of
            some triple?) in the ranking of the pairs that compete for an object (0: unused).
        type_filter: rule out a relation whose domain (range) the subject's (object's) classes
            learned from training never include (:class:`.entity_types.TypeGuesser`).
        fact_memory: a pair whose two names form a training triple gets that triple's relation,
            ranked above every other pair (the relations of known facts; WebNLG sentences share
            entities across splits).
        min_df: a feature must occur in this many training pairs to be kept (fewer for
            training sets under 2,000 sentences).
        model: ``pair`` (default: this pair classifier), ``tagger`` (the sequence tagger of
            :mod:`.tagger` alone), ``union`` (both; :func:`.tagger.merge` adds the tagger's
            triples whose object no pair triple took) or ``features`` (the tagger's tags become
            pair features, :func:`.tagger.add_tag_features`; cross-fitted on the training split;
            about four times the CPU time of ``pair``).
        stack: re-score each pair in its sentence's context (:mod:`.stacking`: a gradient-boosted
            model over the pair's rank among the subjects of its object, the topic, the other
            likely objects ..., trained on cross-fitted pair scores of the training sentences).
            Needs :data:`STACK_MIN_SENTENCES` training sentences (else off).
        literal_forms: relations whose training objects are numbers or dates although the declared
            range is a class (or dates in a number range, units the number rule keeps) take number
            or date mentions in the training objects' lexical form (:class:`.normalize.LiteralForms`).
            Such triples are what the gold states, but the adherence metric counts a literal object
            of a class range as non-adherent.
        canonical: write each name in its most specific spelling among the run's sentences
            (accents, dashes: :func:`.canonical.canonical_spellings`), and a name cut short as
            the longer name the run writes (:func:`.canonical.completed_names`).
        zero_shot: score, on the relation SVM's scale, of an ontology relation that no training
            triple has (the SVM has no class for it) when every word of its name (stemmed:
            ``doctoralAdvisor`` -> doctor, advis) is in the pair's context and the names' learned
            classes do not exclude its domain or range, and the object is not the argument of
            the relation's own noun (:func:`.features.of_argument`: "a division of Honda" makes Honda the
            subject); it is chosen when no trained relation scores higher (12% of the test
            triples have a relation their ontology's training split lacks). When no sentence of
            the scored ontology was trained on (:meth:`zero_shot_for`), such relations are
            scored by :class:`.label_model.LabelModel` instead (the ontology's words: labels,
            domain and range). ``None``: such relations are never chosen.
        relation_candidates: relations scored per pair when a stacker is fitted (a whole number
            >= 1, default 2; without a stacker one): the pair's allowed relations ranked by the
            SVM score plus the label-word bonus (a zero-shot relation at ``zero_shot``; trained
            relations win ties; relations ``type_filter`` rules out are not ranked), the best and
            the next ones each a row the stacker weighs against the others by the share of its
            name's words around the pair (:attr:`.pair_score.PairScore.label`: the SVM sees the
            context words, not whether they name the relation); a training fact's pair keeps one
            row; the decoders keep one relation per object.
        corpus: the sentences of one :meth:`extract` call are one corpus: the stacker sees what
            the other sentences give the same names (:mod:`.corpus`: a pair stated in several
            sentences, a name that is the subject elsewhere). ``False``: each sentence is scored
            alone (which pairs it keeps does not depend on the other sentences; how their names
            are written still does, with ``canonical`` - spellings and names cut short - and the
            written-out disambiguations).
        seed: which of equally good fits (default 0): the cross-fitting folds
            (:func:`.data.fold_of`), the order of each ontology's training sentences (0: as given;
            else a permutation drawn with this seed), the stacker's samples, bootstrap bags and
            binning subsample (:mod:`.stacking`) and the liblinear solvers' ``random_state``. One
            seed gives one fit, the same in every process; two seeds measure how far a refit
            alone moves a score (``bench --fits``). The sequence tagger (``model`` other than
            ``pair``) takes it as its torch seed; its own lexicon folds stay seed 0's.

    Raises:
        InputError: an unknown ``model`` or ``decoder``, a ``threshold`` with ``decoder: f1`` or a
            ``missing`` with ``decoder: threshold``, a
            setting of the wrong type or out of range (:func:`_check_types`); ``key`` names it.
    """

    name = "offline"

    def __init__(self, k: int = 5, threshold: float | None = None, use_embeddings: bool = True,
                 min_df: int = 5, label_weight: float = 0.5,
                 subject_weight: float = 1.0, type_filter: bool = False, fact_memory: bool = True,
                 model: str = "pair", stack: bool = True, literal_forms: bool = True,
                 canonical: bool = True, zero_shot: float | None = 0.5, decoder: str | None = None,
                 missing: float | None = None, relation_candidates: int = 2, corpus: bool = True,
                 seed: int = 0) -> None:
        if model not in MODELS:
            raise InputError(f"offline model {model!r} unknown; expected one of {', '.join(MODELS)}", key="model")
        # a threshold asked for is a threshold applied: it chooses the threshold decoder
        if decoder is None:
            decoder = "threshold" if threshold is not None else "f1"
        if not isinstance(decoder, str) or decoder not in DECODERS:
            raise InputError(f"offline decoder {decoder!r} unknown; expected one of {', '.join(DECODERS)}",
                             key="decoder")
        if decoder == "f1" and threshold is not None:
            raise InputError(f"offline threshold {threshold!r} applies to the threshold decoder only; "
                             "leave it out with decoder f1, or set decoder: threshold", key="threshold")
        if decoder == "threshold" and missing is not None:
            raise InputError(f"offline missing {missing!r} applies to the f1 decoder only; "
                             "leave it out with decoder threshold", key="missing")
        missing = 1.0 if missing is None else missing
        _check_types({"k": k, "threshold": threshold, "min_df": min_df, "label_weight": label_weight,
                      "subject_weight": subject_weight, "zero_shot": zero_shot, "missing": missing,
                      "relation_candidates": relation_candidates, "seed": seed},
                     {"use_embeddings": use_embeddings, "type_filter": type_filter, "fact_memory": fact_memory,
                      "stack": stack, "literal_forms": literal_forms, "canonical": canonical, "corpus": corpus})
        self.model, self.tagger = model, None
        self.label_weight = label_weight
        # liblinear regularisation (inverse strength): strong, the features are many and sparse
        self.c_binary, self.c_relation = 0.1, 0.05
        self.subject_weight = subject_weight
        self.type_filter = type_filter
        self.fact_memory = fact_memory
        self.stack, self.stackers = stack, []
        self.literal_forms = literal_forms
        self.canonical = canonical
        self.corpus = corpus
        self.zero_shot = zero_shot
        self.decoder, self.missing = decoder, missing
        self.relation_candidates = int(relation_candidates)
        self.seed = int(seed)
        # the cross-fitting fold (0/1) of each training sentence, set by fit()
        self.train_folds: list[int] = []
        self.subject = None
        self._label_examples: list = []
        self._label_model: LabelModel | None = None
        # the last extract()'s first-level scores (see _first_level); emptied by fit()
        self._first: tuple | None = None
        # None: the dev protocol's choice, 0.2 (set after fit: a pickled extractor keeps the one it had)
        self.given_threshold = threshold
        self.k, self.threshold, self.use_embeddings, self.min_df = int(k), threshold, use_embeddings, int(min_df)
        self._tfidf = None
        self.lexicon: Lexicon | None = None
        self.known_rels: dict[str, set[str]] = {}
        self.train_sents: list[tuple[str, Sentence]] = []
        self.train_vecs: np.ndarray | None = None
        self.similarity = "none"

    # -- nearest training sentences --------------------------------------------------------
    def _vectors(self, texts: list[str], fit: bool = False) -> np.ndarray:
        """L2-normalised sentence vectors: MiniLM embeddings (:func:`.vectors.sentence_vectors`),
        else TF-IDF over the training sentences."""
        if self.use_embeddings and embeddings.available():
            self.similarity = embeddings.MODEL_NAME
            return sentence_vectors(texts)
        from sklearn.feature_extraction.text import TfidfVectorizer
        self.similarity = "tf-idf"
        if fit or self._tfidf is None:
            self._tfidf = TfidfVectorizer(sublinear_tf=True).fit(texts)
        return self._tfidf.transform(texts).toarray().astype(np.float32)

    def _neighbour_rels(self, vecs: np.ndarray, onto_names: list[str], exclude: bool = False) -> list[set[str]]:
        """Relations of the ``k`` nearest training sentences (same ontology when it has training data;
        ``exclude``: the rows of ``vecs`` are the training sentences themselves, each takes its
        neighbours from the other cross-fitting fold only - WebNLG states one fact set in several
        sentences, and a paraphrase of the same facts as neighbour would give a training pair the
        gold relations a new sentence's neighbours never give)."""
        out = []
        owners = np.array([o for o, _ in self.train_sents])
        folds = np.array(self.train_folds)
        sims_all = vecs @ self.train_vecs.T
        for i in range(len(vecs)):
            mask = owners == onto_names[i]
            if not mask.any():
                mask = np.ones(len(owners), bool)
            sims = np.where(mask, sims_all[i], -9.0)
            if exclude:
                sims = np.where(folds != folds[i], sims, -9.0)
            best = np.argsort(-sims, kind="stable")[: self.k]
            out.append({t["rel"] for j in best for t in self.train_sents[j][1].triples})
        return out

    # -- training --------------------------------------------------------------------------
    @cycles_uncollected()  # millions of mentions, feature dicts and scored pairs, no cycles
    def fit(self, training: dict[str, tuple[TextOntology, list[Sentence]]],
            progress: Callable[[str], None] | None = None) -> "OfflineExtractor":
        """Learn from ``{ontology name: (ontology, training sentences with triples)}``; ``progress``, when
        given, is called with a line as each step of the fit starts (a fit on thousands of sentences
        takes minutes).

        A training triple's relation may be written as the ontology's label, with underscores or
        by its id (:func:`.data.resolve_relations`); one the ontology lacks is left out (said at debug level).

        Raises:
            InputError: the training triples (after that) name fewer than two relations: the
                relation classifier needs two (none: no training data at all).
        """
        from sklearn.linear_model import LogisticRegression
        from sklearn.svm import LinearSVC

        t0 = time.perf_counter()
        self._first = None
        # a case's own training file is resolved, with its warning, when its manifest is read: what is
        # left out here is the benchmark's training data of other ontologies (said at debug level)
        training = {n: (o, resolve_relations(o, ss, n, own=False)) for n, (o, ss) in training.items()}
        if self.seed:
            # another seed, another order: liblinear's passes, the bootstrap bags (drawn by
            # sentence index) and ties read the sentences in order
            rng = np.random.default_rng(self.seed)
            training = {n: (o, [ss[i] for i in rng.permutation(len(ss))]) for n, (o, ss) in sorted(training.items())}
        names = sorted({t["rel"] for _, ss in training.values() for s in ss for t in s.triples})
        if len(names) < 2:
            raise InputError(f"the training sentences ({', '.join(sorted(training)) or 'none'}) have triples of "
                             f"{'no relation' if not names else 'one relation only, ' + repr(names[0])} of their "
                             "ontology: the offline extractor learns to choose between relations, it needs triples "
                             "of at least two", key="train")
        if self.model != "pair" and not (self.use_embeddings and embeddings.available()):
            raise InputError(f"offline model {self.model!r} needs the packaged MiniLM (embeddings off)", key="model")
        if self.model in ("tagger", "union"):  # the sequence tagger: alone, or merged with the pairs
            self.tagger = SequenceTagger(seed=self.seed).fit(training)
        self.train_sents = [(name, s) for name, (_, sents) in sorted(training.items()) for s in sents]
        step = progress or (lambda line: None)
        step(f"names, types and sentence vectors of {len(self.train_sents):,} training sentences")
        # literal relations whose declared range misleads (off: an empty LiteralForms changes nothing)
        self.literals = LiteralForms.learn(training) if self.literal_forms else LiteralForms()
        # cross-fitting: a training sentence sees the names and relations known from the other
        # fold only, as a test sentence sees those of the training split (its entities are new)
        # (folds by subject: WebNLG verbalises the same facts in several sentences)
        folds = self.train_folds = [fold_of(s.subject_group, self.seed) for _, s in self.train_sents]
        self.lexicon, fold_lex = Lexicon.cross_fitted([s for _, s in self.train_sents], folds)
        fold_known = [known_relations([s for (_, s), f in zip(self.train_sents, folds) if f != k]) for k in (0, 1)]
        fold_types = [TypeGuesser().fit([(training[n][0], s) for (n, s), f in zip(self.train_sents, folds) if f != k])
                      for k in (0, 1)]
        self.types = TypeGuesser().fit([(training[n][0], s) for n, s in self.train_sents])
        self.known_rels = known_relations([s for _, s in self.train_sents])
        self.facts: dict[tuple[str, str], set[str]] = {}
        # per ontology: relation -> the range its training objects are read by (literal forms included)
        ranges_of = {name: {r.name: self.literals.effective_range(r.name, r.range) for r in onto.relations.values()}
                     for name, (onto, _) in training.items()}
        for name, s in self.train_sents:
            ranges = ranges_of[name]
            for t in s.triples:
                k = (fold_accents(key(t["sub"])), fold_accents(key(normalize_value(t["obj"], ranges.get(t["rel"])))))
                self.facts.setdefault(k, set()).add(t["rel"])
        open_of = {name: {r.name for r in onto.relations.values() if r.open_range} for name, (onto, _) in training.items()}
        texts = [s.text for _, s in self.train_sents]
        self.train_vecs = self._vectors(texts, fit=True)
        nbs = self._neighbour_rels(self.train_vecs, [o for o, _ in self.train_sents], exclude=True)
        X, y_bin, pos_x, pos_y, S, y_s = [], [], [], [], [], []
        # the zero-shot label model's examples: the training pairs that hold a relation
        label_examples: list = []
        rels_of = {name: self.relations(onto) for name, (onto, _) in training.items()}
        meta, y_rel = [], []  # per training sentence: its pairs and their rows (cross-fitted stacking)
        variant_counts: dict[str, list[int]] = {}
        train_tags = [None] * len(self.train_sents)
        if self.model == "features":  # the tagger's view of each training sentence, cross-fitted
            self.tagger = SequenceTagger(seed=self.seed)
            train_tags = self.tagger.fit_crossed(training, folds)
        step(f"candidate pairs of {len(self.train_sents):,} training sentences")
        for (name, s), nb, fold, tagged in zip(self.train_sents, nbs, folds, train_tags):
            ranges = ranges_of[name]
            all_ms = find_mentions(s.text, fold_lex[fold])
            ms = plain_mentions(all_ms)
            # accents folded on both sides: "Estadio ..." in the sentence is "Estádio_..." in the triple
            found = {fold_accents(key(m.value)) for m in ms}
            names = {key(normalize_value(x, "")) for t in s.triples for x in (t["sub"], t["obj"])}
            aliases = {k for t in s.triples for x in (t["sub"], t["obj"]) for k in alias_keys(x, "")}
            subs = [key(normalize_value(t["sub"], "")) for t in s.triples]
            count_variants(all_ms, names, aliases, max(subs, key=subs.count) if subs else None,
                            variant_counts)

            def keys(name: str, rng: str | None) -> set[str]:
                # a mention of a name's surface form is a positive too ("Arion" for Arion_(comicsCharacter)):
                # the disambiguation is not in the sentence, the relation is; unless a candidate has it
                exact = fold_accents(key(normalize_value(name, rng)))
                return {exact} if exact in found else {fold_accents(k) for k in alias_keys(name, rng)}
            gold = {}
            for t in s.triples:
                rng = ranges.get(t["rel"])
                obj_keys = keys(t["obj"], rng)
                if t["rel"] in open_of[name]:
                    # no declared range: a date the sentence gives by its year ("a 2010 film" for
                    # Wikidata's "01 January 2010", or "00 June 1962" of month precision)
                    obj_keys |= year_keys(t["obj"])
                for sk in keys(t["sub"], ""):
                    for ok in obj_keys:
                        gold.setdefault((sk, ok), t["rel"])
            subj_keys = {k for t in s.triples for k in keys(t["sub"], "")}
            toks = tokens(s.text)
            s_rows = {}
            for m in ms:
                if m.shape in NAME_SHAPES:
                    s_rows[(m.start, m.end, m.value)] = len(S)
                    S.append(subject_features(s.text, toks, ms, m, fold_known[fold], fold_types[fold]))
                    y_s.append(1 if fold_accents(key(m.value)) in subj_keys else 0)
            pairs = sentence_pairs(s.text, nb, fold_lex[fold], fold_known[fold], fold_types[fold], all_ms)
            if tagged is not None:
                add_tag_features(s.text, tagged, pairs, self.tagger.relations)
            meta.append((name, s.text, fold, pairs, len(X), s_rows))
            for a, b, f in pairs:
                rel = gold.get((fold_accents(key(a.value)), fold_accents(key(b.value))))
                X.append(f)
                y_bin.append(1 if rel else 0)
                y_rel.append(rel)
                if rel:
                    pos_x.append(f)
                    pos_y.append(rel)
                    label_examples.append((s.text, a, b, rel, rels_of[name]))
        step(f"first-level models on {len(X):,} candidate pairs")
        # fitted, then the pairs transformed a block at a time (the same matrix as fit_transform): the
        # transform holds an index and a value per nonzero of its input, a GB for a zero-shot fit's pairs
        self.vec = sparse_rows.fitted(X)
        Xm = _csr32(sparse.vstack([sparse_rows.transform(self.vec, X[i:i + VECTORIZE_ROWS])
                                   for i in range(0, len(X), VECTORIZE_ROWS)] or [self.vec.transform(X)], format="csr"))
        # features seen in fewer than min_df pairs name one entity, not a pattern: dropped
        # (a small training set has no frequent features: the bar scales with its size)
        support = np.asarray((Xm != 0).sum(axis=0)).ravel() >= min(self.min_df, 1 + len(texts) // 500)
        self.vec.restrict(support)
        Xm = _csr32(Xm[:, support])
        self.binary = LogisticRegression(solver="liblinear", C=self.c_binary, random_state=self.seed).fit(Xm, y_bin)
        if len(set(pos_y)) < 2:
            raise InputError("the training triples are found in their sentences for "
                             f"{'no relation' if not pos_y else 'one relation only, ' + repr(pos_y[0])}: the offline "
                             "extractor learns to choose between relations and needs sentences that state "
                             "triples of at least two (their subject and object written in the sentence)", key="train")
        self.relation = LinearSVC(C=self.c_relation, random_state=self.seed).fit(
            _csr32(sparse_rows.transform(self.vec, pos_x)), pos_y)
        # the feature dicts, one per candidate pair (a few kB each: most of the fit's memory), are in Xm
        # now; the stacker reads a sentence's pairs for their mentions only
        n_pairs = len(X)
        del X, pos_x
        for m in meta:
            m[3][:] = [(a, b, None) for a, b, _ in m[3]]
        self.classes = [str(c) for c in self.relation.classes_]
        self.svec = sparse_rows.fitted(S)
        Sm = _csr32(sparse_rows.transform(self.svec, S))
        keep = np.asarray((Sm != 0).sum(axis=0)).ravel() >= min(self.min_df, 1 + len(texts) // 500)
        self.svec.restrict(keep)
        self.subject = LogisticRegression(solver="liblinear", C=self.c_binary, random_state=self.seed).fit(
            _csr32(Sm[:, keep]), y_s) if len(set(y_s)) > 1 else None
        self.stackers = []
        # the stacker learns from out-of-fold scores: a few dozen training sentences give it
        # too few positive pairs per fold to learn anything but noise
        if self.stack and len(texts) >= STACK_MIN_SENTENCES:
            step(f"the stacker: out-of-fold scores of {n_pairs:,} candidate pairs (first-level models fitted "
                 "again on each half of the training sentences)")
            scored = cross_fitted_scores(self, training, meta, Xm, np.array(y_bin), y_rel, _csr32(Sm[:, keep]),
                                         np.array(y_s))
            labels = stack_labels(scored, [y_rel[m[4]:m[4] + len(m[3])] for m in meta])
            step(f"the stacker: its rounds on {sum(len(s) for s in scored):,} scored rows")
            self.stackers = fit_stackers(scored, labels, [m[2] for m in meta],
                                         groups=training_groups([m[0] for m in meta], [m[1] for m in meta]),
                                         seed=self.seed)
        self.threshold = self.given_threshold if self.given_threshold is not None else 0.2
        self._label_examples, self._label_model = label_examples, None
        # a disambiguation is written out when the training names used it at most spans it fired on
        self.variant_rate = variant_rates(variant_counts)
        log.info("offline extractor: %d training sentences, %d pairs (%d positive), %d relations, %.1f s",
                 len(texts), n_pairs, len(pos_y), len(self.classes), time.perf_counter() - t0)
        return self

    # -- extraction ------------------------------------------------------------------------
    @property
    def label_model(self) -> LabelModel:
        """The zero-shot relation scorer (:class:`.label_model.LabelModel`), fitted on the training
        pairs on first use (only a zero-shot extraction needs it)."""
        if self._label_model is None:
            t0 = time.perf_counter()
            self._label_model = LabelModel().fit(self._label_examples)
            log.info("zero-shot label model: %d training pairs, %.1f s", len(self._label_examples),
                     time.perf_counter() - t0)
        return self._label_model

    def zero_shot_for(self, ontology: TextOntology) -> bool:
        """No training sentence of ``ontology`` (by its id): its relations are chosen by their
        words (:class:`.label_model.LabelModel`), unless ``zero_shot`` is off."""
        own = {ontology.name, ontology.name.removeprefix("ont_")}
        return self.zero_shot is not None and not own & {o for o, _ in self.train_sents}

    def _type_conflict(self, rel, a: Mention, b: Mention, ontology: TextOntology) -> bool:
        """The subject's learned classes exclude the relation's domain, or the object's its range."""
        return self.types.excludes(a.value, rel.domain, ontology) or (
            not rel.is_datatype and self.types.excludes(b.value, rel.range, ontology))

    def pair_scores(self, sent: str, nb: set[str], tagged, rels: dict, ontology: TextOntology,
                    mentions: list[Mention] | None = None, ctx=None) -> list[PairScore]:
        """Every candidate pair of ``sent`` scored (:class:`.pair_score.PairScore`): the pair model's
        probability, the subject model's, the best relation allowed by the range (the relation
        SVM's score plus the label-word bonus) - with a fitted stacker also the next best, up to
        ``relation_candidates`` rows per pair (one for a training fact's pair) - and a training
        fact's relation (``fact_memory``).
        ``mentions``: the sentence's :func:`.mentions.find_mentions` when the caller has them;
        ``ctx``: the sentence's :func:`.label_model.contexts` entry in the zero-shot setting (the
        relations are then ranked by :class:`.label_model.LabelModel`)."""
        all_ms = find_mentions(sent, self.lexicon) if mentions is None else mentions
        pairs = sentence_pairs(sent, nb, self.lexicon, self.known_rels, self.types, all_ms)
        if tagged is not None:
            add_tag_features(sent, tagged, pairs, self.tagger.relations)
        if not pairs:
            return []
        Xm = _csr32(sparse_rows.transform(self.vec, [f for _, _, f in pairs]))
        p = self.binary.predict_proba(Xm)[:, 1]
        ps = np.ones(len(pairs))
        if self.subject is not None and self.subject_weight:
            # without the variant names, as the subject model saw its training sentences
            ms, toks = plain_mentions(all_ms), tokens(sent)
            names = {}
            for a, _, _ in pairs:
                names.setdefault((a.start, a.end, a.value), a)
            # one call for the sentence's subjects: each row's probability is that row's alone
            fa = sparse_rows.transform(self.svec, [subject_features(sent, toks, ms, a, self.known_rels, self.types)
                                                     for a in names.values()])
            subj = dict(zip(names, self.subject.predict_proba(_csr32(fa))[:, 1].tolist()))
            ps = np.array([subj[(a.start, a.end, a.value)] for a, _, _ in pairs]) ** self.subject_weight
        scores = self.relation.decision_function(Xm)
        # the alternatives are for the stacker to weigh: without one, a pair keeps its best relation
        return self._assemble(sent, pairs, p, ps, scores, self.classes, rels, ontology, self.fact_memory,
                              self.relation_candidates if self.stackers else 1, ctx)

    def _assemble(self, sent: str, pairs: list, p: np.ndarray, ps: np.ndarray, scores: np.ndarray,
                  classes: list[str], rels: dict, ontology: TextOntology, facts: bool,
                  alternatives: int = 1, ctx=None) -> list[PairScore]:
        """:class:`.pair_score.PairScore` of each pair from the models' outputs (``p``, ``ps``: one
        probability per pair; ``scores``: relation SVM decision values, pairs x ``classes``);
        with ``alternatives`` > 1, also a pair's next-best relations (``alt`` 1, 2 ...; none for a
        training fact's pair), for the stacker to weigh against the best. With ``ctx`` (the
        zero-shot setting) the allowed relations are ranked by the label model's probability
        ``q`` (score ``2q - 1``) instead of the relation SVM."""
        if scores.ndim == 1:
            scores = np.stack([-scores, scores], axis=1)
        out = []
        toks = tokens(sent)
        unseen = sorted(set(rels) - set(classes))
        # Python floats: the same IEEE values, read per element without numpy's scalar boxing
        scores_l, p_l, ps_l = scores.tolist(), p.tolist(), ps.tolist()
        # per object shape, the (column, relation) of the classes it may be the object of
        by_shape: dict[str, list[tuple[int, str, Relation]]] = {}
        # each relation's name stems and their number (at least 1), read for every pair
        label_of = {r: (label_stems(r), max(len(label_stems(r)), 1)) for r in rels}
        weight = self.label_weight
        for i, (a, b, _) in enumerate(pairs):
            # both names of a training triple: a training sentence stated that relation of theirs
            fact = sorted(r for r in self.facts.get((fold_accents(key(a.value)), fold_accents(key(b.value))), ())
                          if r in rels and compatible(rels[r].range, b.shape)) if facts else []
            ctx_words = stems(words(toks, min(a.end, b.end), max(a.start, b.start)) +
                              words(toks, 0, b.start)[-3:] + words(toks, b.end, len(sent))[:2])
            bonus = {r: weight * len(ctx_words & lab) / n for r, (lab, n) in label_of.items()}
            ranked, raw, raw_s = [], None, -1e9  # (score, relation) of every relation allowed
            allowed_cls = by_shape.get(b.shape)
            if allowed_cls is None:
                allowed_cls = by_shape[b.shape] = [(j, r, rels[r]) for j, r in enumerate(classes)
                                                   if r in rels and compatible(rels[r].range, b.shape)]
            row = scores_l[i]
            for j, r, rel in allowed_cls:
                if row[j] > raw_s:
                    raw, raw_s = r, row[j]
                if not (self.type_filter and self._type_conflict(rel, a, b, ontology)):
                    ranked.append((row[j] + bonus[r], r))
            # ... also before the first name: "the manager of X is Y", "the rector of X is Y"
            wide = ctx_words | stems(words(toks, 0, min(a.start, b.start))[-3:])
            if ctx is not None:
                # zero-shot: no sentence of this ontology was trained on; a relation another
                # ontology shares by name keeps its SVM score, the others are chosen by their words
                allowed = [r for r, rel in rels.items() if compatible(rel.range, b.shape)
                           and not (self.type_filter and self._type_conflict(rel, a, b, ontology))]
                q = self.label_model.scores(ctx, a, b, allowed, rels)
                ranked += [(2.0 * q[r] - 1.0, r) for r in allowed if r in unseen]
                if raw is None and ranked:
                    raw = max(ranked)[1]
            elif self.zero_shot is not None and unseen:
                # an ontology relation no training triple has: its name is the only evidence
                for r in unseen:
                    rel = rels[r]
                    if wide >= label_stems(r) and label_stems(r) and compatible(rel.range, b.shape) \
                            and not self._type_conflict(rel, a, b, ontology) \
                            and (rel.is_datatype or not of_argument(toks, b, r)):
                        ranked.append((float(self.zero_shot), r))
            # best first (stable: trained relations win ties over zero-shot ones)
            ranked.sort(key=lambda x: -x[0])
            share = {r: len(wide & label_of[r][0]) / label_of[r][1] for _, r in ranked}
            cue = self.label_weight * 0.2 * max(bonus.values(), default=0)
            for n, (sc, r) in enumerate(ranked[:alternatives] if not fact else ranked[:1]):
                other = max((v for k, v in share.items() if k != r), default=0.0)
                out.append(PairScore(a, b, p_l[i], ps_l[i], r, sc, raw, fact[0] if fact else None, cue,
                                     sent, i, n, share[r], other))
            if not ranked:
                out.append(PairScore(a, b, p_l[i], ps_l[i], None, -1e9, raw, fact[0] if fact else None,
                                     cue, sent, i, 0))
        return out

    def public_settings(self) -> dict[str, object]:
        """Every setting the extractor runs with, for ``provenance.json``: the constructor's
        (``threshold`` as in effect after :meth:`fit`; ``threshold`` null with the ``f1`` decoder,
        ``missing`` null with the ``threshold`` one, ``relation_candidates`` and ``corpus`` null
        without a stacker) and what :meth:`fit` decided, ``stacked`` (a stacker was fitted: ``stack`` and at
        least :data:`STACK_MIN_SENTENCES` training sentences)."""
        # the setting the other decoder would use is not in effect: null
        return {"k": self.k, "threshold": self.threshold if self.decoder == "threshold" else None,
                "use_embeddings": self.use_embeddings,
                "min_df": self.min_df, "label_weight": self.label_weight, "subject_weight": self.subject_weight,
                "type_filter": self.type_filter, "fact_memory": self.fact_memory, "model": self.model,
                "stack": self.stack, "stacked": bool(self.stackers), "literal_forms": self.literal_forms,
                "canonical": self.canonical, "zero_shot": self.zero_shot, "decoder": self.decoder,
                "missing": self.missing if self.decoder == "f1" else None,
                "relation_candidates": self.relation_candidates if self.stackers else None,
                "corpus": self.corpus if self.stackers else None}

    def relations(self, ontology: TextOntology) -> dict[str, Relation]:
        """The relations a triple may take, by name, each with its effective range (literal forms): a
        relation without a domain cannot give subType, so it is never chosen; one without a range
        takes any mention, typed by its value (:func:`.normalize.value_type`)."""
        return {n: self.literals.relation(r) for n, r in ontology.relations.items() if r.domain}

    def decode(self, scored: list[PairScore], rels: dict[str, Relation] | None = None,
               ontology: TextOntology | None = None) -> list[tuple[float, Mention, Mention, str]]:
        """The pairs kept for one sentence, best first (:func:`.decode.f1_decode` or
        :func:`.decode.threshold_decode`, by :attr:`decoder`), of those it states
        (:func:`.decode.stated`: no denied pair; one direction per pair and relation, the
        one the names' learned classes admit, :meth:`type_support`, with ``rels`` and ``ontology``
        given; ``rels``' symmetric relations keep both)."""
        power = 0.0 if self.stackers else 1.0
        symmetric = frozenset(n for n, r in (rels or {}).items() if r.symmetric)
        support = None
        if rels is not None and ontology is not None:
            support = lambda c, r: self.type_support(rels[r], c.a, c.b, ontology)  # noqa: E731
        flags = stated(scored, symmetric, support, power)
        if self.decoder == "f1":
            return f1_decode(scored, self.missing, power, flags)
        return threshold_decode(scored, self.threshold, power, flags)

    def type_support(self, rel: Relation, a: Mention, b: Mention, ontology: TextOntology) -> int:
        """How far the learned classes of the names (:class:`.entity_types.TypeGuesser`) admit
        ``rel`` for subject ``a`` and object ``b``: +1 for each name with a known class that is the
        domain (range) or a subclass of it, -1 for each whose known classes exclude it, 0 for an
        unknown name or a datatype object (-2 .. 2)."""
        n = 0
        for name, cls in ((a.value, rel.domain), (b.value, "" if rel.is_datatype else rel.range)):
            known = self.types.classes(name) if cls else {}
            if known:
                n += -1 if self.types.excludes(name, cls, ontology) else 1
        return n

    def _first_level(self, sentences: list[str], ontology: TextOntology, rels: dict
                     ) -> tuple[list[list[Mention]], list[list[PairScore]], list | None]:
        """Each sentence's mentions and scored pairs before stacking (:meth:`pair_scores`), and with
        a fitted stacker their :func:`.stacking.fixed_features` (what no stacking round changes). They do
        not depend on :attr:`corpus` (only the stacking rounds do), so the last call's are kept
        and reused when the same sentences of the same ontology are extracted again with the same
        settings: a benchmark extracts each test split twice, with the corpus evidence and each
        sentence alone. The :class:`.pair_score.PairScore` and :class:`.mentions.Mention` records are
        frozen, so sharing them between calls changes no result."""
        settings = {k: v for k, v in self.public_settings().items() if k != "corpus"}
        # the ontology by its name and relations too: an id is reused once its object is freed
        key = (id(ontology), ontology.name, repr(sorted((n, r.domain, r.range) for n, r in rels.items())),
               tuple(sentences), repr(sorted(settings.items())))
        if self._first is not None and self._first[0] == key:
            return self._first[1], self._first[2], self._first[3]
        tags = self.tagger.tag(sentences, ontology, self.lexicon) if self.model == "features" else None
        nbs = self._neighbour_rels(self._vectors(sentences), [ontology.name.removeprefix("ont_")] * len(sentences))
        mentions = [find_mentions(sent, self.lexicon) for sent in sentences]
        ctxs = contexts(sentences) if self.zero_shot_for(ontology) and rels else {}
        scored = [self.pair_scores(sent, nb, tags[n] if tags is not None else None, rels, ontology, mentions[n],
                                   ctxs.get(sent))
                  for n, (sent, nb) in enumerate(zip(sentences, nbs))]
        fixed = [fixed_features(s) for s in scored] if self.stackers else None
        self._first = (key, mentions, scored, fixed)
        return mentions, scored, fixed

    @cycles_uncollected()  # millions of mentions, feature dicts and scored pairs, no cycles
    def extract(self, sentences: list[str], ontology: TextOntology) -> list[list[dict[str, str]]]:
        """Triples ``{sub, rel, obj, subType, objType}`` for each sentence (normalized values). A
        text longer than :data:`.windows.MAX_CHARS` is extracted window by window
        (:func:`.windows.text_windows`) and gets the union of its windows' triples. Invisible
        format characters (zero-width space and joiners, word joiner, BOM) are removed first: they
        split a name into two tokens (``Can\\u200bada``) and would end up in its IRI."""
        sentences = [_INVISIBLE.sub("", s) for s in sentences]
        if any(len(s) > MAX_CHARS for s in sentences):
            windows = [text_windows(s) for s in sentences]
            flat = self.extract([w for ws in windows for w in ws], ontology)
            out, i = [], 0
            for ws in windows:
                seen, merged = set(), []
                for t in (t for part in flat[i:i + len(ws)] for t in part):
                    if (t["sub"], t["rel"], t["obj"]) not in seen:
                        seen.add((t["sub"], t["rel"], t["obj"]))
                        merged.append(t)
                out.append(merged)
                i += len(ws)
            return out
        if self.tagger is not None and self.model in ("tagger", "union"):
            return combine(self, sentences, ontology)
        results = []
        rels = self.relations(ontology)
        mentions, scored, fixed = self._first_level(sentences, ontology, rels)
        # one corpus (the other sentences' evidence), or each sentence its own
        groups = None if self.corpus else [str(n) for n in range(len(sentences))]
        for stacker in self.stackers:
            scored = restack(scored, stacker, groups, fixed)
        for sent, scored, all_ms in zip(sentences, scored, mentions):
            chosen = self.decode(scored, rels, ontology)
            results.append(self.literals.restore(write_triples(sent, chosen, [c.b for c in scored], rels, all_ms,
                                                                   self.variant_rate), ontology, sent))
        results = written_disambiguations(results, mentions, self.variant_rate)
        return canonical_spellings(completed_names(results, sentences)) if self.canonical else results
