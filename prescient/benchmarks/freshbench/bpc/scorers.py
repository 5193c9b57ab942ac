"""Which models can be scored, and the parameters of their log-probability requests.

Scores come from the gateway (:mod:`prescient.llm.gateway`): each document is one
log-probability request (:mod:`prescient.llm.logprobs`), answered by the transport that
serves the model (:mod:`prescient.llm.transports`):

- ``local/<name>``: llama.cpp in-process (:mod:`prescient.llm.llama_eval`);
- ``hosted_vllm/<model>``, and ``openai/`` or ``text-completion-openai/`` models with an
  ``api_base`` (a self-hosted OpenAI-compatible server): the completions endpoint with
  echoed log-probabilities (:mod:`prescient.llm.completions`);
- ``scripted/<name>``: a registered script (tests);
- anything else is skipped with the reason the gateway gives for refusing it:
  chat-completion APIs (OpenAI's hosted models, Anthropic, Together's chat endpoint,
  ...) return log-probabilities of the tokens they generate, never of the prompt, and
  baselines are not language models.
"""

from __future__ import annotations

from typing import Any

from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.llm import completions, llama_eval
from prescient.llm.logprobs import LEAD, LOGPROBS
from prescient.llm.registry import ModelSpec
from prescient.llm.transports import refusal


def skip_reason(spec: ModelSpec) -> str | None:
    """Why a model cannot be scored, or None when a transport can score it."""
    return refusal(spec, LOGPROBS)


def method_params(spec: ModelSpec, settings: BpcSettings) -> dict[str, Any]:
    """What a document's score depends on besides the model and the text: the params of
    its log-probability request (so part of the ledger key), so changing any of them
    asks again and nothing else does.

    Known without loading the model, so a rerun answered by the ledger loads nothing.
    ``bpc.segment_start`` is among them when it is not the default ``lead`` (a request
    without it reads ``lead``, so the default keeps the keys it always had).
    ``bpc.max_text_chars`` is not among them: it decides the text itself, which the key
    holds. ``bpc.local.n_ubatch`` is not either: it changes the speed, not the logits
    (it travels as the request's options).
    """
    params: dict[str, Any] = {
        "purpose": "logprobs",
        "context_tokens": settings.context_tokens,
        "segmenting": settings.segmenting,
    }
    if settings.segmenting == "stride":
        params["stride_tokens"] = settings.stride_tokens
    if settings.segment_start != LEAD:
        params["segment_start"] = settings.segment_start
    if spec.provider == "local":
        return {
            **params,
            "scorer": llama_eval.SCORER,
            "condition_token": settings.local.condition_token,
        }
    if spec.provider == "scripted":
        return {**params, "scorer": "scripted"}
    return {
        **params,
        "scorer": completions.SCORER,
        "echo": True,
        "logprobs": 1,
        "max_tokens": 1,
    }
