"""Which scorer a model gets, from its registry entry (``conf/model/<name>.yaml``).

- ``local/<name>``: llama.cpp in-process (:mod:`prescient.benchmarks.freshbench.bpc.local`);
- ``hosted_vllm/<model>``, and ``openai/`` or ``text-completion-openai/`` models with an
  ``api_base`` (a self-hosted OpenAI-compatible server): the completions endpoint with
  echoed log-probabilities (:mod:`prescient.benchmarks.freshbench.bpc.server`);
- ``scripted/<name>``: a registered script (tests);
- anything else is skipped with the reason: chat-completion APIs (OpenAI's hosted
  models, Anthropic, Together's chat endpoint, ...) return log-probabilities of the
  tokens they generate, never of the prompt, and baselines are not language models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prescient.benchmarks.freshbench.bpc.scoring import Scorer, ScriptedScorer
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.llm.registry import ModelSpec

COMPLETIONS_PROVIDERS = frozenset({"hosted_vllm", "openai", "text-completion-openai"})


@dataclass(frozen=True)
class Retry:
    """Retry and timeout settings for remote scorers (params section ``llm``)."""

    max_tries: int
    backoff_base_s: float
    backoff_max_s: float
    timeout_s: float


def skip_reason(spec: ModelSpec) -> str | None:
    """Why a model cannot be scored, or None when a scorer exists for it."""
    provider = spec.provider
    if provider in ("local", "scripted"):
        return None
    if provider in COMPLETIONS_PROVIDERS and spec.api_base:
        return None
    if provider == "baseline":
        return "a baseline is not a language model: it assigns no probability to text"
    if provider in COMPLETIONS_PROVIDERS:
        return (
            f"{provider}/ without an api_base is a hosted chat-completions API: it returns "
            "no log-probabilities of the prompt (set api_base to a self-hosted "
            "OpenAI-compatible server to score it)"
        )
    return (
        f"provider {provider!r} serves chat completions only: no log-probabilities of the "
        "prompt, which bits per character need"
    )


def method_params(spec: ModelSpec, settings: BpcSettings) -> dict[str, Any]:
    """What a document's score depends on besides the model and the text: the ledger
    key's params, so changing any of them asks again and nothing else does.

    Known without loading the model, so a rerun answered by the ledger loads nothing.
    ``bpc.max_text_chars`` is not among them: it decides the text itself, which the key
    holds.
    """
    params: dict[str, Any] = {
        "purpose": "logprobs",
        "context_tokens": settings.context_tokens,
        "segmenting": settings.segmenting,
    }
    if settings.segmenting == "stride":
        params["stride_tokens"] = settings.stride_tokens
    if spec.provider == "local":
        return {
            **params,
            "scorer": "llama_cpp_eval",
            "condition_token": settings.local.condition_token,
        }
    if spec.provider == "scripted":
        return {**params, "scorer": "scripted"}
    return {**params, "scorer": "completions_echo", "echo": True, "logprobs": 1, "max_tokens": 1}


def scorer_for(spec: ModelSpec, settings: BpcSettings, retry: Retry) -> Scorer:
    """The scorer of a model that :func:`skip_reason` accepts.

    Raises:
        ScorerConfigError: the entry cannot be used as it is (unknown local model,
            missing key, no script registered).
        ValueError: the model is one to skip.
    """
    reason = skip_reason(spec)
    if reason is not None:
        raise ValueError(f"model {spec.name!r} cannot be scored: {reason}")
    name = spec.litellm_model.split("/", 1)[1]
    if spec.provider == "local":
        from prescient.benchmarks.freshbench.bpc.local import LlamaScorer

        return LlamaScorer(
            name, settings.windows(), settings.local.condition_token, settings.local.n_ubatch
        )
    if spec.provider == "scripted":
        return ScriptedScorer(name, settings.windows())
    from prescient.benchmarks.freshbench.bpc.server import CompletionsScorer

    return CompletionsScorer(
        spec,
        settings.windows(),
        retry.max_tries,
        retry.backoff_base_s,
        retry.backoff_max_s,
        retry.timeout_s,
    )
