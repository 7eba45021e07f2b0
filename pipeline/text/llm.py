"""The LLM extractor: any litellm model, JSON Schema response format, nearest training examples.

Prompt (one request per sentence): the ontology's concepts and its relations with domain and
range, the normalization rules of :mod:`.normalize`, the ``k`` nearest training sentences
(packaged MiniLM embeddings, TF-IDF without them) with their triples in the output format, then
the sentence. The answer must follow :data:`.schema.RESPONSE_SCHEMA` (sent as
``response_format``); it is parsed and validated by :func:`.schema.parse_output`.

Requests go through :func:`pipeline.llm.complete` (cache, retries, timeout, cost)
with :class:`~pipeline.llm.LLMSettings` read from the ``LLM_*`` variables.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from pipeline import embeddings
from pipeline.llm import FATAL_KINDS, LLMSettings, complete
from pipeline.text.data import Sentence, TextOntology
from pipeline.text.normalize import normalize_value
from pipeline.text.schema import RESPONSE_SCHEMA, parse_output
from pipeline.text.vectors import sentence_vectors

__all__ = ["LLMExtractor", "build_messages"]

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
        "prompt_tokens", "completion_tokens", "prompt_hash", "cached", "error"}``.

        After an error no later request can avoid (``FATAL_KINDS`` of the LLM client: server
        unreachable, key refused, unknown model, window exceeded) the other sentences are not sent:
        their result carries ``error`` "not sent: ..." and :attr:`fatal` holds the message, which
        the harness raises as :class:`~pipeline.llm.LLMError` once the outputs so
        far are written (as the LLM mapper does)."""
        out: list[dict[str, Any]] = []
        for sent, examples in zip(sentences, self._neighbours(sentences)):
            messages = build_messages(sent, ontology, examples)
            prompt_hash = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
            if self.fatal is not None:
                out.append({"triples": [], "valid": False, "errors": [f"not sent: {self.fatal}"], "latency_s": 0.0,
                            "cost_usd": 0.0, "prompt_tokens": None, "completion_tokens": None,
                            "prompt_hash": prompt_hash, "cached": False, "error": f"not sent: {self.fatal}"})
                continue
            rec = complete(self.settings, messages, response_format={
                "type": "json_schema", "json_schema": {"name": "triples", "schema": RESPONSE_SCHEMA, "strict": True}})
            triples, errors = parse_output(rec.text) if not rec.error else ([], [rec.error])
            out.append({"triples": triples, "valid": not errors, "errors": errors,
                        "latency_s": float(rec.latency_s or 0.0), "cost_usd": float(rec.cost_usd or 0.0),
                        "prompt_tokens": rec.prompt_tokens, "completion_tokens": rec.completion_tokens,
                        "prompt_hash": prompt_hash, "cached": bool(rec.cached), "error": rec.error})
            if rec.error_kind in FATAL_KINDS:
                self.fatal = rec.error or "request failed"
        return out
