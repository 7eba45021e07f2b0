"""One chat completion through litellm: streamed, cached, retried only before the answer starts.

The answer is streamed (OpenAI-compatible ``stream=True``, which litellm supports for every
provider), so that a slow model - a small local one at 2 tokens/s - may take as long as it needs:
``LLM_TIMEOUT`` bounds the silence (no byte for that long: while the server reads the prompt, or
between two tokens), not the whole answer. Each request reports its attempt, the tokens received
and the tokens per second to :mod:`pipeline.llm.progress`.

**Retries** are ours (the openai client gets ``max_retries=0``), so that each attempt is shown: a
request that got no answer at all - connection refused, HTTP 429 or 5xx - is sent again after an
exponential backoff (0.5 s doubling, at most 8 s; the openai client's schedule) or the server's
``Retry-After`` / ``retry-after-ms`` (at most 60 s), up to ``LLM_MAX_RETRIES`` times. A request
whose answer had started, or that timed out (the server was silent for ``LLM_TIMEOUT`` seconds,
so it is busy or stuck), is never sent again: the text received so far is kept with its finish
reason (``timeout``, ``error``), and a Ctrl-C keeps it too (``interrupted``, raised as
:class:`LLMInterrupted`).

**Cache** (after lm-evaluation-harness ``CachingLM``): the key is the SHA-256 of the canonical JSON
of ``(model, messages, params, run index)``; a hit makes no request and returns the stored text,
usage, cost and original latency (JSON text in the ``llm`` namespace of :mod:`pipeline.cache`). An
answer that did not finish normally (``finish_reason`` other than ``stop``) or that the caller's
``accept`` test rejects (no table in it) is returned but never cached.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from pipeline import cache
from pipeline.llm.context import litellm_module
from pipeline.llm.errors import describe_error, not_openai_message, stream_break_message
from pipeline.llm.progress import reporter
from pipeline.llm.settings import LLMSettings

__all__ = ["CallRecord", "LLMInterrupted", "request_key", "complete", "RETRYABLE_KINDS"]

log = logging.getLogger(__name__)

#: error kinds (:func:`pipeline.llm.errors.describe_error`) sent again when no answer had started
RETRYABLE_KINDS = frozenset({"connection", "rate_limit"})
_BACKOFF_START, _BACKOFF_MAX, _RETRY_AFTER_MAX = 0.5, 8.0, 60.0


@dataclass
class CallRecord:
    """One completion: text plus the figures reported per call.

    Attributes:
        text: the completion text, possibly partial (``''`` when no token arrived).
        key: cache key (SHA-256 hex of the request).
        cached: ``True`` when served from the cache (no request made).
        latency_s: wall-clock seconds of the original request (cache hits keep it).
        first_token_s: seconds until the first token (the server reading the prompt), ``None``
            when none arrived.
        prompt_tokens / completion_tokens: usage as reported by the server (else litellm's count).
        cost_usd: litellm's price for the usage, ``None`` when the model has no price.
        attempts: requests made for this call (0 on a cache hit).
        finish_reason: ``stop``, ``length`` (cut at ``max_tokens``), or ours: ``timeout`` (the
            server went silent after the answer had started), ``error`` (the stream broke),
            ``interrupted`` (Ctrl-C); ``None`` when no answer started.
        max_tokens: the completion limit sent (``None``: the server's default).
        error: the last error when the call failed or stopped early, in words a user can act on.
        error_kind: ``timeout``, ``connection``, ``auth``, ``not_found``, ``unsupported_param``, ``rate_limit``,
            ``bad_request``, ``context_window``, ``not_openai`` (the server's reply was no chat
            completion: ``extra["server_sent"]`` holds its status, content type and first characters)
            or ``other`` (``None`` without error).
        accepted: ``False`` when the answer did not finish normally or was rejected by the caller's
            test (then it was not cached).
    """

    text: str
    key: str
    cached: bool = False
    latency_s: float = 0.0
    first_token_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    attempts: int = 0
    finish_reason: str | None = None
    max_tokens: int | None = None
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


class LLMInterrupted(KeyboardInterrupt):
    """Ctrl-C while a request ran: a :class:`KeyboardInterrupt` that keeps what was received.

    Attributes:
        record: the request's :class:`CallRecord` (``finish_reason="interrupted"``, the partial text).
        transcripts / provenance: what the caller exchanged and recorded before (filled in by callers
            that keep transcripts, so that whoever catches the interrupt can write them).
    """

    def __init__(self, record: CallRecord) -> None:
        super().__init__(f"interrupted after {record.completion_tokens or 0} answer tokens")
        self.record = record
        self.transcripts: list[dict[str, Any]] = []
        self.provenance: dict[str, Any] = {}


def request_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of ``{model, messages, params}``."""
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _cached_entry(store: cache.Namespace, key: str) -> dict[str, Any] | None:
    """The stored answer for ``key``, or ``None`` (an entry that is not a JSON object with a
    ``text`` counts as a miss)."""
    raw = store.get(key)
    try:
        entry = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("text"), str) else None


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms`` or ``Retry-After``), else ``None``."""
    headers: Any = getattr(exc, "litellm_response_headers", None) or \
        getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        if headers.get("retry-after"):
            return float(headers["retry-after"])
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def _backoff(attempt: int) -> float:
    """The openai client's schedule: 0.5 s doubling per attempt, at most 8 s, minus up to 25% jitter."""
    return min(_BACKOFF_START * 2 ** (attempt - 1), _BACKOFF_MAX) * (1 - 0.25 * random.random())


def _usage(chunks: list, messages: list[dict[str, str]], litellm) -> tuple[Any, float | None]:
    """The streamed answer rebuilt as one response (usage included) and its cost, when litellm can."""
    try:
        full = litellm.stream_chunk_builder(chunks, messages=messages)
    except Exception as exc:  # a broken or partial stream litellm cannot rebuild
        log.debug("stream not rebuilt: %s", exc)
        return None, None
    try:
        cost = float(litellm.completion_cost(completion_response=full))
    except Exception:  # no price known for this model
        cost = None
    return full, cost


def _whole_reply(stream: Any) -> dict[str, Any] | None:
    """The server's whole reply when it answered a streamed request with no event stream, else ``None``.

    An OpenAI-compatible server answers ``stream=True`` with ``text/event-stream`` (server-sent
    events). The openai client parses any other body as events too and finds none, and litellm then
    makes up an empty answer with ``finish_reason="stop"``: an HTML page or JSON of another API would
    pass for "the model said nothing". So the reply's content type is read before the stream, and
    another one means the body is read here, whole, to say what came back (or to take a complete
    chat completion from a server that ignored ``stream``).

    Returns:
        ``{"status": int, "content_type": str, "body": bytes, "body_start": str}`` (``body_start``:
        at most the first 200 characters, whitespace collapsed), or ``None`` for an event stream or a
        provider whose reply litellm does not expose as an HTTP response (only the openai client's
        ``Stream`` is read: other providers have their own stream formats).
    """
    inner = getattr(stream, "completion_stream", None)
    if type(inner).__name__ != "Stream" or not type(inner).__module__.startswith("openai"):
        return None
    raw = getattr(inner, "response", None)
    headers = getattr(raw, "headers", None)
    if headers is None:
        return None
    content_type = headers.get("content-type", "")
    if "event-stream" in content_type.lower():
        return None
    try:
        body = raw.read()
    except Exception as exc:  # noqa: BLE001 - a broken connection: said as what was (not) received
        body = f"(the body could not be read: {type(exc).__name__})".encode()
    finally:
        raw.close()
    start = " ".join(body[:400].decode("utf-8", errors="replace").split())[:200]
    return {"status": getattr(raw, "status_code", None), "content_type": content_type or "(none)", "body": body,
            "body_start": start}


def _chat_answer(sent: dict[str, Any]) -> tuple[str, str | None, dict[str, Any]] | None:
    """``(text, finish_reason, usage)`` of a whole reply that is an OpenAI chat completion (a JSON
    object whose ``choices[0].message.content`` is a string), else ``None``."""
    try:
        doc = json.loads(sent["body"])
        choice = doc["choices"][0]
        text = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if not isinstance(text, str):
        return None
    usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
    return text, choice.get("finish_reason") if isinstance(choice, dict) else None, usage


def complete(settings: LLMSettings, messages: list[dict[str, str]], *, run: int = 0,
             response_format: dict[str, Any] | None = None, api_key: str | None = None,
             accept: Callable[[str], bool] | None = None, max_tokens: int | None = None,
             label: str = "") -> CallRecord:
    """One streamed chat completion with cache, retries before the answer starts, and a silence timeout.

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
        max_tokens: completion limit of this request (default ``settings.max_tokens``; ``None``:
            the server's default).
        label: what the progress display calls the request (``"people run 0 part 1/2"``).
    Returns:
        A :class:`CallRecord`; on failure ``error`` (what to do) and ``error_kind`` are set; an
        answer that stopped early keeps its text with ``finish_reason`` ``timeout`` or ``error``.
    Raises:
        LLMInterrupted: Ctrl-C during the request (its ``record`` holds the text received).
        LLMError: litellm is not installed.
    """
    limit = max_tokens if max_tokens is not None else settings.max_tokens
    params = {"temperature": settings.temperature, "max_tokens": limit, "run": run,
              "response_format": response_format, "api_base": settings.api_base}
    key = request_key(settings.model, messages, params)
    store = cache.namespace("llm", settings.cache_dir)
    hit = _cached_entry(store, key)
    if hit is not None and hit.get("finish_reason") in (None, "stop") and (accept is None or accept(hit["text"])):
        log.info("cache hit %s (model %s, run %d)", key[:12], settings.model, run)
        return CallRecord(text=hit["text"], key=key, cached=True, latency_s=hit.get("latency_s", 0.0),
                          first_token_s=hit.get("first_token_s"), prompt_tokens=hit.get("prompt_tokens"),
                          completion_tokens=hit.get("completion_tokens"), cost_usd=hit.get("cost_usd"), attempts=0,
                          finish_reason=hit.get("finish_reason"), max_tokens=limit)
    litellm = litellm_module()
    kwargs: dict[str, Any] = {"model": settings.model, "messages": messages, "temperature": settings.temperature,
                              "timeout": settings.timeout, "max_retries": 0, "stream": True,
                              "stream_options": {"include_usage": True}}
    if limit:
        kwargs["max_tokens"] = limit
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    key_value = api_key or os.environ.get("LLM_API_KEY")
    if key_value:
        kwargs["api_key"] = key_value
    elif settings.api_base:
        kwargs["api_key"] = "sk-no-key"  # local OpenAI-compatible servers ignore it
    if response_format:
        kwargs["response_format"] = response_format
    attempts = settings.max_retries + 1
    rep = reporter()
    for attempt in range(1, attempts + 1):
        rep.start(label or settings.model, attempt, attempts, limit)
        start = time.perf_counter()
        chunks: list = []
        pieces: list[str] = []
        tokens, finish, first = 0, None, None
        record = CallRecord(text="", key=key, attempts=attempt, max_tokens=limit)
        reply_usage: dict[str, Any] = {}
        try:
            stream = litellm.completion(**kwargs)
            sent = _whole_reply(stream)
            answer = _chat_answer(sent) if sent is not None else None
            if sent is not None and answer is None:  # HTML, foreign JSON: no answer, whatever litellm makes of it
                record.error_kind, record.error = "not_openai", not_openai_message(sent, settings)
                record.latency_s, record.accepted = round(time.perf_counter() - start, 4), False
                record.extra["server_sent"] = {k: sent[k] for k in ("status", "content_type", "body_start")}
                rep.end(0, record.latency_s, "not_openai")
                return record
            if answer is not None:  # a server that ignored stream=True and sent one chat completion
                pieces, finish, reply_usage = [answer[0]] if answer[0] else [], answer[1], answer[2]
                tokens, first = len(pieces), (time.perf_counter() - start if pieces else None)
            for chunk in (stream if sent is None else ()):
                chunks.append(chunk)
                choice = chunk.choices[0] if getattr(chunk, "choices", None) else None
                content = getattr(getattr(choice, "delta", None), "content", None) if choice is not None else None
                if content:
                    if first is None:
                        first = time.perf_counter() - start
                    pieces.append(content)
                    tokens += 1
                if choice is not None and choice.finish_reason:
                    finish = choice.finish_reason
                rep.update(tokens, time.perf_counter() - start)
        except KeyboardInterrupt:
            record.text, record.finish_reason = "".join(pieces), "interrupted"
            record.completion_tokens, record.first_token_s = tokens, first
            record.latency_s, record.accepted = round(time.perf_counter() - start, 4), False
            record.error, record.error_kind = "interrupted (Ctrl-C)", "interrupted"
            rep.end(tokens, record.latency_s, "interrupted")
            raise LLMInterrupted(record) from None
        except Exception as exc:  # litellm maps provider errors onto many classes
            latency = time.perf_counter() - start
            kind, message = describe_error(exc, settings)
            log.debug("LLM request failed after %.2f s (%d tokens): %s: %s", latency, tokens, type(exc).__name__, exc)
            rep.end(tokens, latency, kind)
            if pieces:  # the answer had started: keep it, never send the request again
                record.text, record.first_token_s, record.completion_tokens = "".join(pieces), first, tokens
                record.finish_reason = "timeout" if kind == "timeout" else "error"
                record.error_kind, record.latency_s, record.accepted = kind, round(latency, 4), False
                # the partial text is returned in the record; where it is kept, the caller says
                record.error = (f"the server went silent for LLM_TIMEOUT={settings.timeout:g} s after {tokens} answer "
                                f"tokens; not asked again; raise LLM_TIMEOUT"
                                if kind == "timeout" else stream_break_message(exc, settings, tokens))
                return record
            if kind in RETRYABLE_KINDS and attempt < attempts:
                asked = _retry_after(exc)
                wait = min(_backoff(attempt) if asked is None else asked, _RETRY_AFTER_MAX)
                rep.note(f"{message}; attempt {attempt + 1} of {attempts} in {wait:.1f} s")
                time.sleep(wait)
                continue
            record.error, record.error_kind, record.latency_s, record.accepted = message, kind, round(latency, 4), False
            return record
        latency = time.perf_counter() - start
        full, cost = _usage(chunks, messages, litellm)
        usage = getattr(full, "usage", None)
        record.text = "".join(pieces)
        record.latency_s, record.first_token_s, record.cost_usd = round(latency, 4), first, cost
        record.prompt_tokens = getattr(usage, "prompt_tokens", None) or reply_usage.get("prompt_tokens")
        record.completion_tokens = getattr(usage, "completion_tokens", None) or reply_usage.get("completion_tokens") \
            or tokens
        record.finish_reason = finish or "stop"
        record.accepted = record.finish_reason == "stop" and (accept is None or accept(record.text))
        rep.end(record.completion_tokens or 0, latency, record.finish_reason)
        log.info("LLM %s run %d: %s prompt + %s completion tokens, %.2f s, cost %s", settings.model, run,
                 record.prompt_tokens, record.completion_tokens, latency, cost)
        if record.accepted:
            entry = record.to_dict()
            entry["text"] = record.text
            store.set(key, json.dumps(entry, ensure_ascii=False))
        return record
    raise AssertionError("unreachable: every attempt returns")  # pragma: no cover
