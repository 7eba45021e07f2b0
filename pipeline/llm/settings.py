"""Settings of the LLM client, read from the ``LLM_*`` environment variables (one per run).

==================  =========================================================
``LLM_MODEL``        litellm model name (``openai/gpt-4o``, ``ollama/llama3``); required
``LLM_API_BASE``     base URL of an OpenAI-compatible server (optional)
``LLM_API_KEY``      key; else litellm reads the provider's own variable
                     (``OPENAI_API_KEY`` ...). Never written to files or logs.
``LLM_TEMPERATURE``  default 0.3 (BLINKG's setting)
``LLM_TIMEOUT``      the longest silence in seconds: no byte of the answer for that long (while
                     the server reads the prompt, or between two tokens) ends the request;
                     default 600. An answer may take as long as it needs while tokens arrive.
``LLM_MAX_RETRIES``  retries of a request that got no answer at all (connection refused, 429,
                     5xx, no response headers), default 3; a request whose answer had started
                     is never sent again
``LLM_MAX_TOKENS``   completion token limit (default: sized from the case and the window)
``LLM_CONTEXT_WINDOW`` the model's context window in tokens, prompt and answer together.
                     Default: what the server reports (llama.cpp, vLLM, LM Studio), else
                     litellm's figure for the model; unknown: one prompt, answer unbounded
``KGC_CACHE_DIR``    the pipeline's cache root (:mod:`pipeline.cache`; answers in its
                     ``llm`` namespace), default ``~/.cache/kgc``; ``0``: no cache
==================  =========================================================
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pipeline import cache
from pipeline.errors import InputError, PipelineError

__all__ = ["LLMError", "LLMSettings"]


class LLMError(PipelineError):
    """A request failed after every retry, or litellm is not usable, or the case cannot be sent.

    Attributes:
        provenance: what the caller recorded before the failure (settings, calls), so a
            failed map stage still writes it; ``{}`` when nothing was recorded.
        transcripts: the prompts and answers exchanged before the failure.
    """

    def __init__(self, message: str, *, provenance: dict[str, Any] | None = None,
                 transcripts: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.provenance = provenance or {}
        self.transcripts = transcripts or []


@dataclass(frozen=True)
class LLMSettings:
    """Settings of the LLM client (one per run).

    Attributes:
        model: litellm model name.
        api_base: OpenAI-compatible base URL, or ``None`` for the provider default.
        temperature: sampling temperature (BLINKG: 0.3).
        timeout: seconds of silence allowed (no byte of the answer), including the wait for the
            first token while the server reads the prompt. Not a limit on the whole answer.
        max_retries: retries of a request that got no answer at all (done by the openai client,
            which honours ``Retry-After``); a started answer is never retried.
        max_tokens: completion token limit (``None``: sized by the caller from the case and the window).
        cache_dir: root of the pipeline's cache, whose ``llm`` namespace keeps the answers
            (:mod:`pipeline.cache`; ``None``: no cache).
        context_window: the model's context window in tokens, prompt plus answer (``None``: what the
            server reports, else litellm's figure, else unknown).
        structured: ask for JSON following the caller's schema (else a Markdown table).
        shots: 0, 1 or 3 worked examples in the prompt.
        runs: number of independent runs per case.
        ontology: which part of the ontology the mapper sends: ``auto`` (the whole ontology when it
            is small and fits, else the terms retrieved for the data), ``all`` or ``retrieved``.
    """

    model: str = "openai/gpt-4o-mini"
    api_base: str | None = None
    temperature: float = 0.3
    timeout: float = 600.0
    max_retries: int = 3
    max_tokens: int | None = None
    cache_dir: Path | None = None
    context_window: int | None = None
    structured: bool = True
    shots: int = 0
    runs: int = 1
    ontology: str = "auto"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> "LLMSettings":
        """Read settings from ``env`` (default ``os.environ``); keyword overrides win.

        Raises:
            LLMError: a numeric variable does not parse, or ``LLM_ONTOLOGY`` is not one of
                ``auto``, ``all``, ``retrieved`` (the message names the variable and its value).
            InputError: ``LLM_MODEL`` is not set and no ``model`` override is given (no model is
                chosen for the user: a default would bill an account the user did not pick).
        """
        env = dict(os.environ if env is None else env)
        if not (env.get("LLM_MODEL") or "").strip() and not overrides.get("model"):
            raise InputError("LLM_MODEL is not set: the LLM mapper (and text extractor) needs a litellm model "
                             "name, e.g. LLM_MODEL=openai/gpt-4o (key in LLM_API_KEY or OPENAI_API_KEY), or "
                             "LLM_MODEL=openai/<name> with LLM_API_BASE=http://127.0.0.1:8000/v1 for a local "
                             "OpenAI-compatible server", key="LLM_MODEL")

        def num(name: str, cast, default, least: float | None = None):
            raw = env.get(name)
            if raw in (None, ""):
                return default
            try:
                value = cast(raw)
            except ValueError:
                raise LLMError(f"{name}={raw!r} is not a valid {cast.__name__}") from None
            if least is not None and value < least:
                raise LLMError(f"{name}={raw!r} must be at least {least:g}")
            return value

        ontology = (env.get("LLM_ONTOLOGY") or cls.ontology).strip()
        if ontology not in ("auto", "all", "retrieved"):
            raise LLMError(f"LLM_ONTOLOGY={ontology!r} is not one of auto, all, retrieved")
        settings = cls(
            model=(env.get("LLM_MODEL") or "").strip() or overrides.get("model"),
            api_base=env.get("LLM_API_BASE") or None,
            temperature=num("LLM_TEMPERATURE", float, cls.temperature),
            timeout=num("LLM_TIMEOUT", float, cls.timeout, least=0.001),
            max_retries=num("LLM_MAX_RETRIES", int, cls.max_retries, least=0),
            max_tokens=num("LLM_MAX_TOKENS", int, None, least=1),
            context_window=num("LLM_CONTEXT_WINDOW", int, None, least=256),
            cache_dir=cache.root(env),
            shots=num("LLM_SHOTS", int, cls.shots),
            runs=num("LLM_RUNS", int, cls.runs, least=1),
            ontology=ontology,
        )
        return replace(settings, **overrides)

    def public(self) -> dict[str, Any]:
        """Settings for provenance files (no key is ever part of the settings)."""
        d = asdict(self)
        d["cache_dir"] = str(self.cache_dir) if self.cache_dir else None
        return d
