"""pipeline.llm.errors: a parameter a model does not take is said with the kgc setting that sets it."""
import litellm

from pipeline.llm.errors import FATAL_KINDS, describe_error
from pipeline.llm.settings import LLMSettings


def _settings(model: str) -> LLMSettings:
    return LLMSettings(model=model)


def test_a_temperature_the_model_refuses_names_llm_temperature_and_the_value_it_takes():
    exc = litellm.UnsupportedParamsError(
        message="O-series models don't support temperature=0.3. Only temperature=1 is supported. To drop "
                "unsupported openai params from the call, set `litellm.drop_params = True`", status_code=400)
    kind, message = describe_error(exc, _settings("openai/o3-mini"))
    assert kind == "unsupported_param" and kind in FATAL_KINDS
    assert message == ("openai/o3-mini accepts only temperature=1 (litellm: O-series models don't support "
                       "temperature=0.3. Only temperature=1 is supported): set LLM_TEMPERATURE=1")


def test_another_refused_parameter_names_the_parameters_kgc_sets():
    exc = litellm.UnsupportedParamsError(
        message="bedrock does not support parameters: ['max_tokens'], for model=m. To drop these, set "
                "`litellm.drop_params=True` or for proxy:\n\n`litellm_settings:\n drop_params: true`\n",
        status_code=400)
    kind, message = describe_error(exc, _settings("bedrock/m"))
    assert kind == "unsupported_param"
    assert message == ("bedrock/m does not take a request parameter kgc sends (litellm: bedrock does not support "
                       "parameters: ['max_tokens'], for model=m); kgc sets max_tokens (LLM_MAX_TOKENS): change "
                       "that setting, or choose another LLM_MODEL")


def test_a_refused_structured_output_stays_a_bad_request_so_the_markdown_fallback_runs():
    exc = litellm.UnsupportedParamsError(message="ollama does not support parameters: ['response_format'], for "
                                                 "model=m. To drop these, set `litellm.drop_params=True`",
                                         status_code=400)
    kind, message = describe_error(exc, _settings("ollama/m"))
    assert kind == "bad_request" and message.startswith("the provider of ollama/m rejected the request (")
