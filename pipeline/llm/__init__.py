"""The one LLM client of the pipeline (the LLM mapper and the LLM text extractor share it).

* :mod:`.settings` - :class:`LLMSettings` from the ``LLM_*`` variables, :class:`LLMError`;
* :mod:`.client` - :func:`complete`: one streamed request with cache, retries before the answer
  starts, a timeout on silence, and the partial answer kept (:class:`CallRecord`);
* :mod:`.context` - the model's context window and the prompt's size in the model's tokens;
* :mod:`.errors` - what a failure means and which setting to change (context-overflow wording
  of llama.cpp, vLLM, Ollama, LM Studio);
* :mod:`.progress` - what a running request shows on the console.

litellm is imported on first use (about 4 s) with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that
importing it does not reach the network.
"""
from __future__ import annotations

from pipeline.llm.client import CallRecord, LLMInterrupted, complete, request_key
from pipeline.llm.context import (ESTIMATE_MARGIN, TokenCounter, Window, context_window, max_output_tokens,
                                  token_counter)
from pipeline.llm.errors import FATAL_KINDS, context_overflow, describe_error, refuses_structured_output
from pipeline.llm.progress import ConsoleReporter, Reporter, use_reporter
from pipeline.llm.settings import LLMError, LLMSettings

__all__ = ["LLMError", "LLMSettings", "CallRecord", "LLMInterrupted", "request_key", "complete", "describe_error",
           "context_overflow", "refuses_structured_output", "context_window", "max_output_tokens", "token_counter",
           "TokenCounter", "Window", "ESTIMATE_MARGIN", "FATAL_KINDS", "Reporter", "ConsoleReporter", "use_reporter"]
