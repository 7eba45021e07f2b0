"""LLM calls through litellm: settings from the environment, retries, a disk cache, costs.

One :class:`LLMSettings` (frozen) per run, read by :meth:`LLMSettings.from_env`:

==================  =========================================================
``LLM_MODEL``        litellm model name (``openai/gpt-4o``, ``ollama/llama3``); required
``LLM_API_BASE``     base URL of an OpenAI-compatible server (optional)
``LLM_API_KEY``      key; else litellm reads the provider's own variable
                     (``OPENAI_API_KEY`` ...). Never written to files or logs.
``LLM_TEMPERATURE``  default 0.3 (BLINKG's setting)
``LLM_TIMEOUT``      seconds per request, default 120
``LLM_MAX_RETRIES``  retries after the first attempt, default 3 (the openai
                     client's own retries: exponential backoff, ``Retry-After``)
``LLM_MAX_TOKENS``   completion token limit (default: sized from the case)
``KGC_CACHE_DIR``    the pipeline's cache root (:mod:`pipeline.cache`; answers in its
                     ``llm`` namespace), default ``~/.cache/kgc``; ``0``: no cache
``LLM_CONTEXT_WINDOW`` the model's input window in tokens; prompts are split only
                     when they exceed it. Default: litellm's figure for the model;
                     for a model litellm does not know, one prompt is sent unsplit
==================  =========================================================

Retries are not ours: ``max_retries`` goes to the openai client inside litellm,
which retries connection errors, 408/409/429 and 5xx with exponential backoff
and honours the server's ``Retry-After`` / ``retry-after-ms`` headers.
An answer cut at the token limit (``finish_reason=length``) or one the caller's
``accept`` test rejects (no table in it) is returned but never cached.

The cache follows lm-evaluation-harness ``CachingLM``: the key is the SHA-256
of the canonical JSON of ``(model, messages, params, run index)``; a hit makes
no request and returns the stored text, usage, cost and original latency
(entries are JSON text in the ``llm`` namespace of :mod:`pipeline.cache`).
litellm is imported lazily (about 4 s) with ``LITELLM_LOCAL_MODEL_COST_MAP=True``
so that importing it does not reach the network.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pipeline import cache
from pipeline.errors import InputError, PipelineError

__all__ = ["LLMError", "LLMSettings", "CallRecord", "request_key", "complete", "describe_error",
           "context_window", "max_output_tokens", "count_tokens", "FATAL_KINDS"]

log = logging.getLogger(__name__)

#: error kinds after which no further request of the case can succeed (configuration problems)
FATAL_KINDS = frozenset({"connection", "auth", "not_found", "context_window"})


class LLMError(PipelineError):
    """A request failed after every retry, or litellm is not usable.

    Attributes:
        provenance: what the mapper recorded before the failure (settings, calls), so a
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
    """Settings of the LLM mapper (one per run).

    Attributes:
        model: litellm model name.
        api_base: OpenAI-compatible base URL, or ``None`` for the provider default.
        temperature: sampling temperature (BLINKG: 0.3).
        timeout: seconds per request.
        max_retries: retries after the first failed attempt (done by the openai client).
        max_tokens: completion token limit (``None``: sized from the case by the mapper,
            see :func:`pipeline.mappers.llm.mapper.expected_completion_tokens`).
        cache_dir: root of the pipeline's cache, whose ``llm`` namespace keeps the answers
            (:mod:`pipeline.cache`; ``None``: no cache).
        context_window: the model's input window in tokens (``None``: litellm's figure,
            or unknown - then the prompt is never split).
        structured: ask for JSON following the table schema (else a Markdown table).
        shots: 0, 1 or 3 worked examples in the prompt.
        runs: number of independent runs per case.
    """

    model: str = "openai/gpt-4o-mini"
    api_base: str | None = None
    temperature: float = 0.3
    timeout: float = 120.0
    max_retries: int = 3
    max_tokens: int | None = None
    cache_dir: Path | None = None
    context_window: int | None = None
    structured: bool = True
    shots: int = 0
    runs: int = 1

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> "LLMSettings":
        """Read settings from ``env`` (default ``os.environ``); keyword overrides win.

        Raises:
            LLMError: a numeric variable does not parse (the message names it and its value).
            InputError: ``LLM_MODEL`` is not set and no ``model`` override is given (no model is
                chosen for the user: a default would bill an account the user did not pick).
        """
        env = dict(os.environ if env is None else env)
        if not (env.get("LLM_MODEL") or "").strip() and not overrides.get("model"):
            raise InputError("LLM_MODEL is not set: the LLM mapper (and text extractor) needs a litellm model "
                             "name, e.g. LLM_MODEL=openai/gpt-4o (key in LLM_API_KEY or OPENAI_API_KEY), or "
                             "LLM_MODEL=openai/<name> with LLM_API_BASE=http://127.0.0.1:8000/v1 for a local "
                             "OpenAI-compatible server", key="LLM_MODEL")

        def num(name: str, cast, default):
            raw = env.get(name)
            if raw in (None, ""):
                return default
            try:
                return cast(raw)
            except ValueError:
                raise LLMError(f"{name}={raw!r} is not a valid {cast.__name__}") from None

        settings = cls(
            model=(env.get("LLM_MODEL") or "").strip() or overrides.get("model"),
            api_base=env.get("LLM_API_BASE") or None,
            temperature=num("LLM_TEMPERATURE", float, cls.temperature),
            timeout=num("LLM_TIMEOUT", float, cls.timeout),
            max_retries=num("LLM_MAX_RETRIES", int, cls.max_retries),
            max_tokens=num("LLM_MAX_TOKENS", int, None),
            context_window=num("LLM_CONTEXT_WINDOW", int, None),
            cache_dir=cache.root(env),
            shots=num("LLM_SHOTS", int, cls.shots),
            runs=num("LLM_RUNS", int, cls.runs),
        )
        return replace(settings, **overrides)

    def public(self) -> dict[str, Any]:
        """Settings for provenance files (no key is ever part of the settings)."""
        d = asdict(self)
        d["cache_dir"] = str(self.cache_dir) if self.cache_dir else None
        return d


@dataclass
class CallRecord:
    """One completion: text plus the figures reported per call.

    Attributes:
        text: the completion text ('' when the call failed).
        key: cache key (SHA-256 hex of the request).
        cached: ``True`` when served from the cache (no request made).
        latency_s: wall-clock seconds of the original request (cache hits keep it).
        prompt_tokens / completion_tokens: usage as reported by the server.
        cost_usd: litellm's price for the usage, ``None`` when the model has no price.
        attempts: requests made for this call (0 on a cache hit).
        finish_reason: ``"stop"``, ``"length"`` (truncated) ...
        error: the last error when every attempt failed, in words a user can act on.
        error_kind: ``"timeout"``, ``"connection"``, ``"auth"``, ``"not_found"``, ``"rate_limit"``,
            ``"bad_request"``, ``"context_window"`` or ``"other"`` (``None`` without error).
        accepted: ``False`` when the answer was truncated or rejected by the caller's test
            (then it was not cached).
    """

    text: str
    key: str
    cached: bool = False
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    attempts: int = 0
    finish_reason: str | None = None
    error: str | None = None
    error_kind: str | None = None
    accepted: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record without the text (the text hash is stored instead)."""
        d = asdict(self)
        d["response_sha256"] = hashlib.sha256(self.text.encode("utf-8")).hexdigest()
        del d["text"]
        return d


def request_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of ``{model, messages, params}``."""
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:
        raise LLMError(f"litellm is not installed: {exc}") from exc
    litellm.telemetry = False
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on stdout
    return litellm


def _model_info(settings: LLMSettings) -> dict[str, Any]:
    try:
        return dict(_litellm().get_model_info(settings.model) or {})
    except Exception:  # litellm raises a bare Exception for unmapped models
        return {}


def context_window(settings: LLMSettings) -> int | None:
    """The model's input window in tokens: the override, else litellm's ``max_input_tokens``,
    else ``None`` (unknown: callers send the prompt whole rather than guess a small window)."""
    if settings.context_window:
        return settings.context_window
    info = _model_info(settings)
    value = info.get("max_input_tokens") or info.get("max_tokens")
    return int(value) if value else None


def max_output_tokens(settings: LLMSettings) -> int | None:
    """The model's completion limit from litellm's model map (``None``: unknown)."""
    value = _model_info(settings).get("max_output_tokens")
    return int(value) if value else None


def count_tokens(settings: LLMSettings, messages: list[dict[str, str]]) -> int:
    """Prompt tokens by litellm's tokenizer for the model; ``chars / 4`` when it fails."""
    try:
        return int(_litellm().token_counter(model=settings.model, messages=messages))
    except Exception:  # tokenizer unavailable for this model
        return sum(len(m.get("content", "")) for m in messages) // 4 + 4 * len(messages)


def describe_error(exc: BaseException, settings: LLMSettings) -> tuple[str, str]:
    """``(kind, message)`` for a failed request, in words that say what to do.

    Kinds: see :attr:`CallRecord.error_kind`. litellm maps provider errors onto
    openai's classes; a timeout is tested before a connection error because
    ``openai.APITimeoutError`` is a kind of ``APIConnectionError``.
    """
    name = type(exc).__name__
    where = settings.api_base or f"the provider of {settings.model}"
    detail = str(exc).split("\n")[0][:200]
    if "Timeout" in name:
        return "timeout", (f"{where} did not answer within LLM_TIMEOUT={settings.timeout:g} s after "
                           f"{settings.max_retries + 1} attempt(s): the server or model is slow; raise LLM_TIMEOUT")
    if "ContextWindow" in name:
        return "context_window", (f"the prompt exceeds the model's input window ({detail}); set LLM_CONTEXT_WINDOW "
                                  "to the model's window so that the prompt is split")
    if "Authentication" in name or "PermissionDenied" in name:
        return "auth", (f"{where} refused the request ({name}): set LLM_API_KEY or the provider's key variable")
    if "NotFound" in name:
        return "not_found", f"{where} does not know model {settings.model!r} ({detail}); check LLM_MODEL"
    if "APIConnection" in name or "ServiceUnavailable" in name or "InternalServer" in name:
        return "connection", f"cannot reach the LLM server at {where} ({name}); is it running? check LLM_API_BASE"
    if "RateLimit" in name:
        return "rate_limit", f"{where} kept refusing with rate limits after {settings.max_retries} retries ({detail})"
    if "LLM Provider NOT provided" in str(exc):  # litellm's BadRequest before any request is sent
        return "not_found", (f"litellm cannot tell the provider of model {settings.model!r}: prefix it with one "
                             "(openai/<model> for an OpenAI-compatible server at LLM_API_BASE, ollama/<model>, "
                             "anthropic/<model> ...; https://docs.litellm.ai/docs/providers); check LLM_MODEL")
    if "BadRequest" in name:
        return "bad_request", f"{where} rejected the request (BadRequest: {detail})"
    return "other", f"{name}: {detail}"


def complete(settings: LLMSettings, messages: list[dict[str, str]], *, run: int = 0,
             response_format: dict[str, Any] | None = None, api_key: str | None = None,
             accept: Callable[[str], bool] | None = None) -> CallRecord:
    """One chat completion with cache, the client's retries and a timeout.

    Args:
        settings: model, temperature, timeout, retries, cache folder.
        messages: ``[{"role": ..., "content": ...}]``.
        run: run index, part of the cache key so that ``n`` runs are ``n`` samples.
        response_format: OpenAI ``response_format`` (JSON Schema) or ``None``.
        api_key: key to use; default ``LLM_API_KEY`` from the environment, else
            the provider's variable as litellm reads it. Never logged or cached.
        accept: test of the answer text; an answer it rejects (e.g. no table in it) is
            returned with ``accepted=False`` and not cached. A cached entry it rejects is
            a miss (asked again).
    Returns:
        A :class:`CallRecord`; on failure ``error`` (what to do) and ``error_kind`` are set and ``text`` is ''.
    """
    params = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "run": run,
              "response_format": response_format, "api_base": settings.api_base}
    key = request_key(settings.model, messages, params)
    store = cache.namespace("llm", settings.cache_dir)
    hit = _cached_entry(store, key)
    if hit is not None and hit.get("finish_reason") != "length" and (accept is None or accept(hit["text"])):
        log.info("cache hit %s (model %s, run %d)", key[:12], settings.model, run)
        return CallRecord(text=hit["text"], key=key, cached=True, latency_s=hit.get("latency_s", 0.0),
                          prompt_tokens=hit.get("prompt_tokens"), completion_tokens=hit.get("completion_tokens"),
                          cost_usd=hit.get("cost_usd"), attempts=0, finish_reason=hit.get("finish_reason"))
    litellm = _litellm()
    # max_retries goes to the openai client (backoff, Retry-After); no num_retries: litellm's own
    # retry wrapper would retry on top of it
    kwargs: dict[str, Any] = {"model": settings.model, "messages": messages, "temperature": settings.temperature,
                              "timeout": settings.timeout, "max_retries": settings.max_retries}
    if settings.max_tokens:
        kwargs["max_tokens"] = settings.max_tokens
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    key_value = api_key or os.environ.get("LLM_API_KEY")
    if key_value:
        kwargs["api_key"] = key_value
    elif settings.api_base:
        kwargs["api_key"] = "sk-no-key"  # local OpenAI-compatible servers ignore it
    if response_format:
        kwargs["response_format"] = response_format
    start = time.perf_counter()
    try:
        resp = litellm.completion(**kwargs)
    except Exception as exc:  # litellm maps provider errors onto many classes
        latency = time.perf_counter() - start
        kind, message = describe_error(exc, settings)
        log.debug("LLM request failed after %.2f s: %s: %s", latency, type(exc).__name__, exc)
        return CallRecord(text="", key=key, attempts=1, error=message, error_kind=kind, latency_s=round(latency, 4))
    latency = time.perf_counter() - start
    choice = resp.choices[0]
    text = choice.message.content or ""
    usage = getattr(resp, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=resp))
    except Exception:  # no price known for this model
        cost = None
    record = CallRecord(text=text, key=key, latency_s=round(latency, 4),
                        prompt_tokens=getattr(usage, "prompt_tokens", None),
                        completion_tokens=getattr(usage, "completion_tokens", None),
                        cost_usd=cost, attempts=1, finish_reason=choice.finish_reason)
    record.accepted = record.finish_reason != "length" and (accept is None or accept(text))
    log.info("LLM %s run %d: %s prompt + %s completion tokens, %.2f s, cost %s", settings.model, run,
             record.prompt_tokens, record.completion_tokens, latency, cost)
    if record.accepted:
        entry = record.to_dict()
        entry["text"] = text
        store.set(key, json.dumps(entry, ensure_ascii=False))
    return record


def _cached_entry(store: cache.Namespace, key: str) -> dict[str, Any] | None:
    """The stored answer for ``key``, or ``None`` (an entry that is not a JSON object with a
    ``text`` counts as a miss)."""
    raw = store.get(key)
    try:
        entry = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("text"), str) else None
