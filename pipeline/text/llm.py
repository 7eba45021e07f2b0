"""The LLM extractor: any litellm model, JSON Schema response format, nearest training examples.

Prompt (one request per sentence): the ontology's concepts and its relations with domain and
range, the normalization rules of :mod:`.normalize`, the ``k`` nearest training sentences
(packaged MiniLM embeddings, TF-IDF without them) with their triples in the output format, then
the sentence. The answer must follow :data:`.schema.RESPONSE_SCHEMA` (sent as
``response_format``); it is parsed and validated by :func:`.schema.parse_output`.

Requests go through :func:`pipeline.llm.complete` (streamed; cache, retries, timeout on silence,
cost) with :class:`~pipeline.llm.LLMSettings` read from the ``LLM_*`` variables. ``max_tokens`` is
sized from the worked examples (:func:`answer_tokens`) unless ``LLM_MAX_TOKENS`` is set, and capped
so that prompt and answer fit the model's context window when it is known. Each result keeps the
answer text and its finish reason; a truncated or invalid answer is a warning, and when no sentence
gave a valid answer the extractor reports it as :attr:`LLMExtractor.fatal`, which the harness raises
once the outputs are written (``kgc text`` exits 1).
"""
from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import numpy as np

from pipeline import embeddings
from pipeline.llm import FATAL_KINDS, LLMSettings, complete, context_window, token_counter
from pipeline.text.data import Sentence, TextOntology
from pipeline.text.normalize import normalize_value
from pipeline.text.schema import RESPONSE_SCHEMA, parse_output
from pipeline.text.vectors import sentence_vectors

__all__ = ["LLMExtractor", "build_messages", "answer_tokens", "TOKENS_PER_TRIPLE"]

log = logging.getLogger(__name__)

#: Answer tokens per expected triple: one ``{"sub", "rel", "obj", "subType", "objType"}`` object with
#: entity names of a few words takes 35-50 tokens; 60 leaves room for longer names.
TOKENS_PER_TRIPLE = 60
#: Tokens kept free between prompt plus answer and the window.
_SAFETY = 64

_SYSTEM = ("You extract knowledge-graph triples from a sentence, following an ontology. Use only the "
           "ontology's relations, with the subject's class as subType (the relation's domain or a "
           "subclass) and the object's class or datatype as objType (the relation's range). Write "
           "entity names as in the sentence without quotes; numbers without thousands separators; "
           "dates as ISO 8601 (YYYY-MM-DD, or YYYY). Extract only what the sentence states. Answer "
           "with JSON: {\"triples\": [{\"sub\", \"rel\", \"obj\", \"subType\", \"objType\"}]}.")


def _example_triples(s: Sentence, onto: TextOntology) -> list[dict[str, str]]:
    out = []
    for t in s.triples:
        r = onto.relations.get(t["rel"])
        if r is None:
            continue
        out.append({"sub": normalize_value(t["sub"], ""), "rel": r.name, "obj": normalize_value(t["obj"], r.range),
                    "subType": r.domain, "objType": r.range})
    return out


def build_messages(sentence: str, onto: TextOntology, examples: list[Sentence]) -> list[dict[str, str]]:
    """Chat messages for one sentence: system rules, ontology, worked examples, the sentence."""
    rels = "\n".join(f"- {r.name}({r.domain}, {r.range})" for r in onto.relations.values())
    user = [f"Ontology concepts: {', '.join(onto.concepts)}", f"Relations (name(domain, range)):\n{rels}"]
    for ex in examples:
        user.append(f"Sentence: {ex.text}\nAnswer: {json.dumps({'triples': _example_triples(ex, onto)})}")
    user.append(f"Sentence: {sentence}\nAnswer:")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": "\n\n".join(user)}]


def answer_tokens(examples: list[Sentence]) -> int:
    """``max_tokens`` for one sentence: room for twice the triples of its largest worked example (at
    least 4), :data:`TOKENS_PER_TRIPLE` each, plus 64 for the envelope."""
    most = max((len(ex.triples) for ex in examples), default=0)
    return TOKENS_PER_TRIPLE * max(4, 2 * most) + 64


class LLMExtractor:
    """Extract with an LLM through litellm (see the module docstring).

    Args:
        training: training sentences with triples (examples are taken from them).
        k: number of worked examples per prompt.
        settings: :class:`~pipeline.llm.LLMSettings`; default from ``LLM_*`` variables.
        use_embeddings: nearest examples by MiniLM embeddings (else TF-IDF).
    """

    name = "llm"

    def __init__(self, training: list[Sentence], k: int = 3, settings: LLMSettings | None = None,
                 use_embeddings: bool = True) -> None:
        self.settings = settings or LLMSettings.from_env()
        self.training, self.k = training, k
        self.use_embeddings = use_embeddings
        self.records: list[dict[str, Any]] = []
        #: the first error no later request can avoid (server unreachable, key refused, unknown model)
        self.fatal: str | None = None

    def _neighbours(self, sentences: list[str]) -> list[list[Sentence]]:
        if not self.training or self.k <= 0:
            return [[] for _ in sentences]
        texts = [s.text for s in self.training]
        if self.use_embeddings and embeddings.available():
            tv, sv = sentence_vectors(texts), sentence_vectors(sentences)
        else:
            from sklearn.feature_extraction.text import TfidfVectorizer
            tf = TfidfVectorizer(sublinear_tf=True).fit(texts)
            tv, sv = tf.transform(texts).toarray(), tf.transform(sentences).toarray()
        sims = sv @ tv.T
        return [[self.training[j] for j in np.argsort(-row, kind="stable")[: self.k]] for row in sims]

    def extract(self, sentences: list[str], ontology: TextOntology) -> list[dict[str, Any]]:
        """One result per sentence: ``{"triples", "valid", "errors", "latency_s", "cost_usd",
        "prompt_tokens", "completion_tokens", "prompt_hash", "cached", "error", "answer",
        "finish_reason", "max_tokens"}``.

        After an error no later request can avoid (``FATAL_KINDS`` of the LLM client: server
        unreachable, key refused, unknown model, window exceeded) the other sentences are not sent:
        their result carries ``error`` "not sent: ..." and :attr:`fatal` holds the message, which
        the harness raises as :class:`~pipeline.llm.LLMError` once the outputs so far are written
        (as the LLM mapper does). When every sentence was answered but none validly, :attr:`fatal`
        says so too (how many answers were cut at ``max_tokens`` or invalid)."""
        out: list[dict[str, Any]] = []
        window = context_window(self.settings).tokens
        count = token_counter(self.settings) if window else None
        cut = invalid = 0
        for i, (sent, examples) in enumerate(zip(sentences, self._neighbours(sentences))):
            messages = build_messages(sent, ontology, examples)
            prompt_hash = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
            if self.fatal is not None:
                out.append({"triples": [], "valid": False, "errors": [f"not sent: {self.fatal}"], "latency_s": 0.0,
                            "cost_usd": 0.0, "prompt_tokens": None, "completion_tokens": None,
                            "prompt_hash": prompt_hash, "cached": False, "error": f"not sent: {self.fatal}",
                            "answer": None, "finish_reason": None, "max_tokens": None})
                continue
            limit = self.settings.max_tokens or answer_tokens(examples)
            if window and count is not None:
                limit = max(1, min(limit, window - count(messages) - _SAFETY))
            rec = complete(self.settings, messages, max_tokens=limit, label=f"sentence {i + 1}/{len(sentences)}",
                           response_format={"type": "json_schema", "json_schema": {
                               "name": "triples", "schema": RESPONSE_SCHEMA, "strict": True}})
            triples, errors = parse_output(rec.text) if rec.text or not rec.error else ([], [rec.error])
            if rec.finish_reason == "length" and errors:  # cut inside the JSON (a complete one that ends at
                cut += 1                                   # the limit is an answer: grammar-constrained servers)
                errors = [f"the answer was cut at max_tokens={limit} (finish_reason=length); raise LLM_MAX_TOKENS",
                          *errors]
            elif rec.finish_reason in ("timeout", "error") and rec.error:
                errors = [rec.error, *errors]
            if errors and rec.error_kind not in FATAL_KINDS:
                invalid += 1
                log.warning("sentence %d of %d: %s", i + 1, len(sentences), "; ".join(errors[:2]))
            out.append({"triples": triples, "valid": not errors, "errors": errors,
                        "latency_s": float(rec.latency_s or 0.0), "cost_usd": float(rec.cost_usd or 0.0),
                        "prompt_tokens": rec.prompt_tokens, "completion_tokens": rec.completion_tokens,
                        "prompt_hash": prompt_hash, "cached": bool(rec.cached), "error": rec.error,
                        "answer": rec.text, "finish_reason": rec.finish_reason, "max_tokens": limit})
            if rec.error_kind in FATAL_KINDS:
                self.fatal = rec.error or "request failed"
        if self.fatal is None and out and not any(r["valid"] for r in out):
            self.fatal = (f"no sentence gave a valid answer ({invalid} of {len(out)} invalid"
                          + (f", {cut} cut at max_tokens: raise LLM_MAX_TOKENS" if cut else "") + ")")
        elif invalid:
            log.warning("%d of %d answers invalid%s (kept in outputs.jsonl with their text and finish reason)",
                        invalid, len(out), f", {cut} cut at max_tokens" if cut else "")
        return out
