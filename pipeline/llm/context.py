"""The model's context window and the size of a prompt in the model's own tokens.

**Window** (:func:`context_window`): prompt and answer together, in tokens, from the first source
that knows it: ``LLM_CONTEXT_WINDOW``; the server itself (llama.cpp ``GET /props`` ->
``n_ctx``, vLLM ``GET /v1/models`` -> ``max_model_len``, LM Studio ``GET /api/v0/models`` ->
``loaded_context_length``); litellm's model map (``max_input_tokens``, which for the models it
lists is the whole context); else unknown.

**Tokens** (:func:`token_counter`): the server's tokenizer when it offers one (llama.cpp
``POST /apply-template`` then ``POST /tokenize``; vLLM ``POST /tokenize`` with the messages),
exact; else litellm's tokenizer when it is the model's own (OpenAI models at their provider:
tiktoken); else an estimate: tiktoken's ``cl100k_base`` count plus :data:`ESTIMATE_MARGIN`. The
margin covers tokenizers with smaller vocabularies: Gemma 3's count of the BLINKG prompts ran
10% above cl100k's (2,025 vs 1,835; 9,897 vs 8,816 tokens), SentencePiece vocabularies of 32k
pieces (Llama 2, Mistral) up to about 25% on JSON and Turtle.

Server probes are plain HTTP requests with a short timeout (:data:`PROBE_TIMEOUT`), made once per
server and model; a server that does not answer them is simply not asked again.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from pipeline.llm.settings import LLMError, LLMSettings

__all__ = ["ESTIMATE_MARGIN", "PROBE_TIMEOUT", "Window", "TokenCounter", "context_window", "max_output_tokens",
           "token_counter", "litellm_module", "server_root"]

log = logging.getLogger(__name__)

#: Added to tiktoken's count when the model's tokenizer is not at hand (see the module docstring).
ESTIMATE_MARGIN = 0.25
#: Seconds a probe of the server (window, tokenizer) may take.
PROBE_TIMEOUT = 5.0
#: Tokens a chat template adds per message when the server cannot apply it for us.
TEMPLATE_TOKENS_PER_MESSAGE = 8

_probes: dict[tuple[str, str, str], Any] = {}


def litellm_module():
    """litellm, imported on first use (about 4 s) without reaching the network: the local cost map,
    no telemetry, no Hugging Face tokenizer downloads, no feedback banners on stdout.

    Raises:
        LLMError: litellm is not installed.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:
        raise LLMError(f"litellm is not installed: {exc}") from exc
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.disable_hf_tokenizer_download = True  # its tokenizers come from the Hugging Face hub: no network
    return litellm


def server_root(api_base: str | None) -> str | None:
    """The server's root URL (``api_base`` without a trailing ``/v1``), where llama.cpp and vLLM
    serve ``/props``, ``/tokenize``; ``None`` without an ``api_base``."""
    if not api_base:
        return None
    root = api_base.rstrip("/")
    return root[:-3] if root.endswith("/v1") else root


def _http(url: str, body: dict | None = None, api_key: str | None = None) -> Any:
    """JSON from ``url`` (GET, or POST of ``body``); ``None`` on any failure."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    data = None if body is None else json.dumps(body).encode("utf-8")
    try:
        req = urllib.request.Request(url, data=data, headers=headers, method="GET" if body is None else "POST")
        with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT) as resp:  # noqa: S310 - the user's own server
            return json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        log.debug("probe %s: %s", url, exc)
        return None


def _probe(settings: LLMSettings, what: str, fn: Callable[[str], Any]) -> Any:
    root = server_root(settings.api_base)
    if root is None:
        return None
    key = (root, settings.model, what)
    if key not in _probes:
        _probes[key] = fn(root)
    return _probes[key]


def _server_window(root: str) -> tuple[int, str] | None:
    key = os.environ.get("LLM_API_KEY")
    props = _http(f"{root}/props", api_key=key)
    if isinstance(props, dict):
        n = props.get("n_ctx") or (props.get("default_generation_settings") or {}).get("n_ctx")
        if isinstance(n, int) and n > 0:
            return n, "the server (llama.cpp /props n_ctx)"
    models = _http(f"{root}/v1/models", api_key=key)
    for m in (models or {}).get("data") or [] if isinstance(models, dict) else []:
        n = m.get("max_model_len") if isinstance(m, dict) else None
        if isinstance(n, int) and n > 0:
            return n, "the server (vLLM /v1/models max_model_len)"
    lms = _http(f"{root}/api/v0/models", api_key=key)
    for m in (lms or {}).get("data") or [] if isinstance(lms, dict) else []:
        n = m.get("loaded_context_length") if isinstance(m, dict) else None
        if isinstance(n, int) and n > 0:
            return n, "the server (LM Studio loaded_context_length)"
    return None


def _model_info(settings: LLMSettings) -> dict[str, Any]:
    try:
        return dict(litellm_module().get_model_info(settings.model) or {})
    except Exception:  # litellm raises a bare Exception for models it does not list
        return {}


@dataclass(frozen=True)
class Window:
    """A context window: ``tokens`` (prompt plus answer; ``None`` when unknown) and where it comes from."""

    tokens: int | None
    source: str


def context_window(settings: LLMSettings) -> Window:
    """The model's context window (see the module docstring for the order of the sources)."""
    if settings.context_window:
        return Window(settings.context_window, "LLM_CONTEXT_WINDOW")
    found = _probe(settings, "window", _server_window)
    if found:
        return Window(found[0], found[1])
    info = _model_info(settings)
    value = info.get("max_input_tokens") or info.get("max_tokens")
    if value:
        return Window(int(value), "litellm's model map")
    return Window(None, "unknown")


def max_output_tokens(settings: LLMSettings) -> int | None:
    """The model's completion limit from litellm's model map (``None``: unknown)."""
    value = _model_info(settings).get("max_output_tokens")
    return int(value) if value else None


def _server_tokenize(root: str) -> Callable[[list[dict[str, str]]], int | None] | None:
    """A counter using the server's tokenizer, or ``None`` when the server has none to offer."""
    key = os.environ.get("LLM_API_KEY")
    probe = [{"role": "user", "content": "probe"}]
    templated = _http(f"{root}/apply-template", {"messages": probe}, api_key=key)
    tokens = _http(f"{root}/tokenize", {"content": "probe"}, api_key=key)
    if isinstance(tokens, dict) and isinstance(tokens.get("tokens"), list):  # llama.cpp
        use_template = isinstance(templated, dict) and isinstance(templated.get("prompt"), str)

        def llama(messages: list[dict[str, str]]) -> int | None:
            if use_template:
                got = _http(f"{root}/apply-template", {"messages": messages}, api_key=key)
                prompt = got.get("prompt") if isinstance(got, dict) else None
                if isinstance(prompt, str):
                    out = _http(f"{root}/tokenize", {"content": prompt, "add_special": True}, api_key=key)
                    if isinstance(out, dict) and isinstance(out.get("tokens"), list):
                        return len(out["tokens"])
            total = 0
            for m in messages:
                out = _http(f"{root}/tokenize", {"content": m.get("content", "")}, api_key=key)
                if not (isinstance(out, dict) and isinstance(out.get("tokens"), list)):
                    return None
                total += len(out["tokens"]) + TEMPLATE_TOKENS_PER_MESSAGE
            return total
        llama.method = "the server's tokenizer (llama.cpp /tokenize)"  # type: ignore[attr-defined]
        return llama
    return None


def _vllm_tokenize(root: str, model: str) -> Callable[[list[dict[str, str]]], int | None] | None:
    key = os.environ.get("LLM_API_KEY")
    name = model.split("/", 1)[1] if "/" in model else model
    got = _http(f"{root}/tokenize", {"model": name, "messages": [{"role": "user", "content": "probe"}]}, api_key=key)
    if not (isinstance(got, dict) and isinstance(got.get("count"), int)):
        return None

    def vllm(messages: list[dict[str, str]]) -> int | None:
        out = _http(f"{root}/tokenize", {"model": name, "messages": messages}, api_key=key)
        return out.get("count") if isinstance(out, dict) and isinstance(out.get("count"), int) else None
    vllm.method = "the server's tokenizer (vLLM /tokenize)"  # type: ignore[attr-defined]
    return vllm


@dataclass
class TokenCounter:
    """Prompt tokens of a message list, in the model's tokens or an estimate with a stated margin.

    Attributes:
        method: how tokens are counted (for provenance and messages).
        margin: the fraction added to the raw count (0 when the count is the model's own).
        exact: the count is the model's own tokenizer's.
    """

    method: str
    margin: float
    exact: bool
    _server: Callable[[list[dict[str, str]]], int | None] | None = None
    _model: str = ""
    _memo: dict[str, int] = field(default_factory=dict)

    def __call__(self, messages: list[dict[str, str]]) -> int:
        """Tokens of ``messages`` (the margin included)."""
        key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()
        if key not in self._memo:
            count = self._server(messages) if self._server is not None else None
            if count is None:
                count = self._tiktoken(messages)
                if self._server is not None:  # the server stopped answering: estimate from now on
                    self._server, self.exact = None, False
                    self.margin, self.method = ESTIMATE_MARGIN, f"estimate: tiktoken cl100k_base + {ESTIMATE_MARGIN:.0%}"
                count = math.ceil(count * (1 + self.margin))
            self._memo[key] = int(count)
        return self._memo[key]

    def _tiktoken(self, messages: list[dict[str, str]]) -> int:
        try:
            return int(litellm_module().token_counter(model=self._model, messages=messages))
        except Exception:  # tokenizer unusable: characters / 4, the usual rule of thumb for English text
            return sum(len(m.get("content", "")) for m in messages) // 4 + 4 * len(messages)


def _litellm_knows_tokenizer(settings: LLMSettings) -> bool:
    """litellm's tokenizer is the model's own: an OpenAI model at its own provider (tiktoken)."""
    if settings.api_base:
        return False
    name = settings.model.removeprefix("openai/")
    info = _model_info(settings)
    return info.get("litellm_provider") == "openai" and name.startswith(("gpt-", "o1", "o3", "o4", "chatgpt"))


def token_counter(settings: LLMSettings) -> TokenCounter:
    """The best token counter for ``settings`` (see the module docstring)."""
    server = _probe(settings, "tokenize", _server_tokenize) or \
        _probe(settings, "tokenize-vllm", lambda root: _vllm_tokenize(root, settings.model))
    if server is not None:
        return TokenCounter(server.method, 0.0, True, server, settings.model)
    if _litellm_knows_tokenizer(settings):
        return TokenCounter(f"litellm's tokenizer for {settings.model} (tiktoken)", 0.0, True, None, settings.model)
    return TokenCounter(f"estimate: tiktoken cl100k_base + {ESTIMATE_MARGIN:.0%}", ESTIMATE_MARGIN, False, None,
                        settings.model)
