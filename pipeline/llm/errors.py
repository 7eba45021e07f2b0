"""What a failed LLM request means, in words that say which setting to change.

litellm maps provider errors onto openai's exception classes, but a local server's refusal of a
prompt longer than its context window usually arrives as a plain HTTP 400 (``BadRequestError``)
whose text only the server's wording identifies. :func:`context_overflow` recognises the wording
of common servers and reads the token counts it gives:

==========  ===================================================================================
llama.cpp   ``request (3026 tokens) exceeds the available context size (2048 tokens), try
            increasing it`` (error type ``exceed_context_size_error``)
vLLM        ``This model's maximum context length is 4096 tokens. However, you requested 5000
            tokens ...``; ``... your request has 3500 input tokens``; ``The prompt (total length
            5000) is too long to fit into the model (context length 4096)``
Ollama      ``the input length exceeds the context length``; ``prompt too long; exceeded max
            context length by 12 tokens``
LM Studio   ``Trying to keep the first 5000 tokens when context the overflows. However, the model
            is loaded with context length of only 4096 tokens``
TGI         ```inputs` tokens + `max_new_tokens` must be <= 4096``
OpenAI      ``This model's maximum context length is 128000 tokens`` (litellm's
            ``ContextWindowExceededError``)
==========  ===================================================================================
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pipeline.llm.settings import LLMSettings

__all__ = ["FATAL_KINDS", "Overflow", "context_overflow", "describe_error", "not_openai_message",
           "refuses_structured_output", "stream_break_message", "SERVER_CONTEXT_SETTINGS"]

#: error kinds after which no further request of the case can succeed (configuration problems)
FATAL_KINDS = frozenset({"connection", "auth", "not_found", "context_window", "not_openai", "unsupported_param"})

#: the request parameters kgc sets, each with the setting that sets it (named when a model refuses one)
PARAMETER_SETTINGS = {"temperature": "LLM_TEMPERATURE", "max_tokens": "LLM_MAX_TOKENS",
                      "max_completion_tokens": "LLM_MAX_TOKENS"}

#: litellm's refusal of a temperature a model does not take: ``... don't support temperature=0.3. Only
#: temperature=1 is supported.`` (OpenAI's gpt-5 and o-series models)
_ONLY_VALUE = re.compile(r"\bOnly (temperature)=([0-9.]+) is supported", re.I)

#: where each common local server sets its context window (named in the advice)
SERVER_CONTEXT_SETTINGS = ("llama.cpp: --ctx-size; vLLM: --max-model-len; Ollama: num_ctx; "
                           "LM Studio: the model's context length")

_OVERFLOW = re.compile(
    r"exceeds? the available context size|exceed_context_size_error|maximum context length|"
    r"context length of only|too long to fit into the model|exceeds the context length|"
    r"exceeded max context length|context window|context_length_exceeded|is too long and exceeds limit|"
    r"tokens \+ `?max_new_tokens`? must be <=|greater than the context length|maximum model length", re.I)
_NUMBERS = (  # (pattern, group of the prompt's tokens or None, group of the window or None)
    (re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)", re.I), 1, 2),
    (re.compile(r"maximum context length is (\d+) tokens?\D+?(?:requested|resulted in|has) (\d+)", re.I), 2, 1),
    (re.compile(r"maximum context length is (\d+)", re.I), None, 1),
    (re.compile(r"total length (\d+)\) is too long to fit into the model \(context length (\d+)\)", re.I), 1, 2),
    (re.compile(r"prompt \((\d+) tokens\) is too long and exceeds limit of (\d+)", re.I), 1, 2),
    (re.compile(r"keep the first (\d+) tokens.*?context length of only (\d+) tokens", re.I | re.S), 1, 2),
    (re.compile(r"must be <= (\d+)\. Given: (\d+)", re.I), 2, 1),
)
_STRUCTURED = re.compile(r"response_format|json_schema|json schema|grammar|structured output|guided_json", re.I)


@dataclass(frozen=True)
class Overflow:
    """A context-window refusal: the token counts the server gave (``None`` when it gave none)."""

    prompt_tokens: int | None = None
    window: int | None = None


def context_overflow(text: str, exc_name: str = "") -> Overflow | None:
    """The refusal in ``text`` (an error message) when it says the request exceeds the context
    window, with the server's counts; ``None`` for any other error."""
    if "ContextWindow" not in exc_name and not _OVERFLOW.search(text or ""):
        return None
    for pattern, prompt, window in _NUMBERS:
        m = pattern.search(text)
        if m:
            return Overflow(int(m.group(prompt)) if prompt else None, int(m.group(window)) if window else None)
    return Overflow()


def refuses_structured_output(text: str) -> bool:
    """Whether a refusal names the structured-output request (``response_format``, a JSON Schema, a
    grammar): only then is asking again for a Markdown answer worth a second request."""
    return bool(_STRUCTURED.search(text or ""))


def _overflow_message(over: Overflow, settings: LLMSettings, detail: str) -> str:
    counts = []
    if over.prompt_tokens:
        counts.append(f"the server counted {over.prompt_tokens} tokens")
    if over.window:
        counts.append(f"its window is {over.window} tokens")
    said = f" ({'; '.join(counts)})" if counts else f" ({detail})"
    if over.window and settings.context_window != over.window:
        fix = (f"set LLM_CONTEXT_WINDOW={over.window} so that kgc sizes the prompt parts and max_tokens to fit, "
               f"or start the server with a larger context ({SERVER_CONTEXT_SETTINGS})")
    elif settings.context_window:
        fix = (f"LLM_CONTEXT_WINDOW={settings.context_window} is more than the server holds, or kgc's token "
               f"estimate was low: set LLM_CONTEXT_WINDOW to the server's window or lower, or start the server "
               f"with a larger context ({SERVER_CONTEXT_SETTINGS})")
    else:
        fix = (f"set LLM_CONTEXT_WINDOW to the server's context window so that kgc splits the prompt and sizes "
               f"max_tokens to fit, or start the server with a larger context ({SERVER_CONTEXT_SETTINGS})")
    return f"the request does not fit the model's context window{said}: {fix}"


def not_openai_message(sent: dict, settings: LLMSettings) -> str:
    """What to say when the server at ``LLM_API_BASE`` answered, but not as an OpenAI-compatible API.

    Args:
        sent: what came back: ``status`` (HTTP status), ``content_type``, ``body_start`` (the first
            characters of the body).
        settings: the client's settings (``api_base``, ``model``).
    """
    where = settings.api_base or f"the provider of {settings.model}"
    body = f"beginning {sent['body_start']!r}" if sent.get("body_start") else "an empty body"
    return (f"the server at {where} did not answer as an OpenAI-compatible API: it sent {sent.get('content_type')} "
            f"(HTTP {sent.get('status')}), {body}, not a chat completion; check LLM_API_BASE (the base URL of an "
            "OpenAI-compatible server, usually ending in /v1)")


def describe_error(exc: BaseException, settings: LLMSettings) -> tuple[str, str]:
    """``(kind, message)`` for a failed request, in words that say what to do.

    Kinds: ``timeout``, ``connection``, ``auth``, ``not_found``, ``rate_limit``, ``context_window``,
    ``not_openai`` (a reply that is no chat completion), ``unsupported_param`` (litellm refuses a
    parameter the model does not take, before sending: :func:`_unsupported_message`), ``bad_request``,
    ``other``. A context-window refusal is tested first (servers send it as a
    plain 400); a timeout is tested before a connection error because ``openai.APITimeoutError``
    is a kind of ``APIConnectionError``.
    """
    name = type(exc).__name__
    text = str(exc)
    where = settings.api_base or f"the provider of {settings.model}"
    detail = text.split("\n")[0][:300]
    over = context_overflow(text, name)
    if over is not None:
        return "context_window", _overflow_message(over, settings, detail)
    if "Timeout" in name or "ReadTimeout" in text:
        return "timeout", (f"{where} sent nothing for LLM_TIMEOUT={settings.timeout:g} s (no answer had started; "
                           "not sent again): the server is busy or stuck, or reads a long prompt slowly; "
                           "raise LLM_TIMEOUT")
    if "Authentication" in name or "PermissionDenied" in name:
        return "auth", f"{where} refused the request ({name}): set LLM_API_KEY or the provider's key variable"
    if "NotFound" in name:
        return "not_found", f"{where} does not know model {settings.model!r} ({detail}); check LLM_MODEL"
    received = re.search(r"Empty or invalid response from LLM endpoint\. Received: '(.*?)'\.", text, re.S)
    if received:  # litellm's words for a 200 reply that is no chat completion (an HTML page, other JSON)
        return "not_openai", not_openai_message({"content_type": "a reply", "status": 200,
                                                 "body_start": " ".join(received.group(1).split())[:200]}, settings)
    if "APIConnection" in name or "ServiceUnavailable" in name or "InternalServer" in name:
        return "connection", f"cannot reach the LLM server at {where} ({name}); is it running? check LLM_API_BASE"
    if "RateLimit" in name:
        return "rate_limit", f"{where} kept refusing with rate limits after {settings.max_retries} retries ({detail})"
    if "LLM Provider NOT provided" in text:  # litellm's BadRequest before any request is sent
        return "not_found", (f"litellm cannot tell the provider of model {settings.model!r}: prefix it with one "
                             "(openai/<model> for an OpenAI-compatible server at LLM_API_BASE, ollama/<model>, "
                             "anthropic/<model> ...; https://docs.litellm.ai/docs/providers); check LLM_MODEL")
    if "UnsupportedParams" in name and not refuses_structured_output(text):
        return "unsupported_param", _unsupported_message(text, settings)
    if "BadRequest" in name or "UnsupportedParams" in name:  # response_format refused: the Markdown fallback
        return "bad_request", f"{where} rejected the request ({name.removesuffix('Error')}: {detail})"
    return "other", f"{name}: {detail}"


def _unsupported_message(text: str, settings: LLMSettings) -> str:
    """What to say when litellm refuses, before sending anything, a parameter kgc sets that the model
    does not take (``UnsupportedParamsError``): the value the model accepts and the setting to change
    when litellm's text gives them (``Only temperature=1 is supported``), else the parameters kgc sets
    with their settings. litellm's own advice (``litellm.drop_params``) is a Python setting a kgc user
    cannot reach, so it is left out of the quote."""
    said = " ".join(text.split())
    said = re.sub(r"^(litellm\.\w+: )+", "", said)
    said = re.split(r"\s*(?:To drop|For gpt-5\.1)", said)[0].rstrip(" .")[:200]
    only = _ONLY_VALUE.search(text)
    if only:
        param, value = only.group(1).lower(), only.group(2)
        return (f"{settings.model} accepts only {param}={value} (litellm: {said}): set "
                f"{PARAMETER_SETTINGS[param]}={value}")
    named = ", ".join(f"{p} ({v})" for p, v in PARAMETER_SETTINGS.items() if p in text) or \
        ", ".join(f"{p} ({v})" for p, v in list(PARAMETER_SETTINGS.items())[:2])
    return (f"{settings.model} does not take a request parameter kgc sends (litellm: {said}); kgc sets {named}: "
            "change that setting, or choose another LLM_MODEL")


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps (``__cause__``, ``__context__``, litellm's ``original_exception``),
    outermost first, each once."""
    out: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        x = todo.pop(0)
        if x is None or any(x is seen for seen in out):
            continue
        out.append(x)
        todo += [x.__cause__, x.__context__, getattr(x, "original_exception", None)]
    return out


def stream_break_message(exc: BaseException, settings: LLMSettings, tokens: int) -> str:
    """What to say when a streamed answer broke off after ``tokens`` tokens with ``exc`` (not a
    timeout: :func:`describe_error` says that one). litellm wraps the cause in several exceptions
    whose names and texts repeat each other (``MidStreamFallbackError: ... APIConnectionError: ...
    OpenAIException - ...``); the line names the innermost cause: an event of the server-sent event
    stream that is not JSON (the openai client's ``json.JSONDecodeError``, whose ``doc`` is the
    event's data), else the last exception litellm did not make (the connection closed: httpx's
    ``RemoteProtocolError``), else litellm's innermost message."""
    where = settings.api_base or f"the provider of {settings.model}"
    chain = _causes(exc)
    after = f"after {tokens} answer token{'s' if tokens != 1 else ''}"
    bad = next((x for x in chain if isinstance(x, json.JSONDecodeError)), None)
    if bad is not None:
        data = " ".join(str(bad.doc).split())
        shown = data if len(data) <= 80 else data[:80] + "..."
        return (f"the server's stream at {where} sent an event that is not JSON {after}: {shown!r} ({bad.msg}); "
                "the server or a proxy between it and kgc does not speak OpenAI's streaming protocol")
    own = [x for x in chain if not type(x).__module__.startswith("litellm")]
    cause = own[0] if own else chain[-1]
    detail = " ".join(str(cause).split())
    detail = re.sub(r"^(litellm\.\w+: )?(\w+Error: )*(OpenAIException - )?", "", detail)[:200]
    return f"the server's stream at {where} broke off {after} ({type(cause).__name__}: {detail})"
