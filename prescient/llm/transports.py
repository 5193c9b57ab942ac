"""Which transport serves a request, and the transports of one batch.

A request has a kind (:mod:`prescient.llm.logprobs`): a chat completion, the
log-probabilities of a text, or the log-probabilities of a chat reply's allowed answers
(:mod:`prescient.llm.answer_logprobs`). Four transports, one module each, all built on
:mod:`prescient.llm.transport_base` (the :class:`~prescient.llm.transport_base.Call`
they take, the interface they offer and the errors they raise), each answering the
kinds it supports:

- ``in_process`` (:class:`prescient.llm.providers.InProcessTransport`): models answered
  in this process (the embedded SmolLM2, the baselines, test scripts); they never
  travel. Chat and answer log-probabilities for all; log-probabilities for ``local/``
  models (:mod:`prescient.llm.llama_eval`) and test scripts.
- ``direct`` (:class:`prescient.llm.direct.DirectTransport`): a lean aiohttp client for
  the providers that speak the plain OpenAI wire format (``openai``, ``hosted_vllm``),
  chosen for their chat requests when ``llm.transport`` is ``auto``, and for their
  answer log-probability requests (the top tokens of a chat completion) whatever
  ``llm.transport`` says.
- ``litellm`` (:class:`prescient.llm.litellm_transport.LiteLLMTransport`): chat with any
  provider litellm knows (Anthropic, Together, ...).
- ``completions`` (:class:`prescient.llm.completions.CompletionsTransport`):
  log-probabilities from a self-hosted OpenAI-compatible completions server (echoed
  prompt log-probabilities), whatever ``llm.transport`` says.

A log-probability request for any other model (a chat-only API, a baseline), and an
answer log-probability request for a model only litellm serves, are refused before
anything is sent (:func:`refusal` says why).

:data:`TRANSPORT_MODULES` names each transport's class by its module, which is imported
when a batch first needs that transport; a batch of in-process models never loads the
network clients. Which transport answered is invisible to the ledger and to result
handling: keys hash the model string, messages and generation parameters.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS
from prescient.llm.completions import COMPLETIONS_PROVIDERS, completions_supported
from prescient.llm.direct import direct_supported
from prescient.llm.endpoints import EndpointPools, SpreadTransport
from prescient.llm.heap import freeze_imports
from prescient.llm.logprobs import CHAT, KINDS, LOGPROBS
from prescient.llm.registry import ModelSpec
from prescient.llm.transport_base import Transport

TRANSPORT_MODULES: Mapping[str, str] = {
    "in_process": "prescient.llm.providers:InProcessTransport",
    "direct": "prescient.llm.direct:DirectTransport",
    "litellm": "prescient.llm.litellm_transport:LiteLLMTransport",
    "completions": "prescient.llm.completions:CompletionsTransport",
}
"""Transport kind -> ``module:class`` of the transport, imported on first use."""


def refusal(spec: ModelSpec, kind: str) -> str | None:
    """Why no transport can answer a request of ``kind`` for ``spec`` (None: one can)."""
    if kind not in KINDS:
        return f"unknown request kind {kind!r}; known: {', '.join(KINDS)}"
    provider = spec.provider
    if kind == ANSWER_LOGPROBS:
        if spec.in_process or direct_supported(spec):
            return None
        if provider == "hosted_vllm":
            return "hosted_vllm/ without an api_base: no server to ask"
        return (
            f"provider {provider!r} is served through litellm, which does not report token "
            "log-probabilities for every provider; the answers' log-probabilities are read "
            "from an OpenAI-format chat server (openai/ or hosted_vllm/)"
        )
    if kind == CHAT or provider in ("local", "scripted") or completions_supported(spec):
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
        f"provider {provider!r} serves chat completions only (through litellm): no "
        "log-probabilities of the prompt, which bits per character need"
    )


def transport_kind(spec: ModelSpec, mode: str, kind: str = CHAT) -> str:
    """``in_process``, ``direct``, ``litellm`` or ``completions``: which transport serves
    a request of ``kind`` for ``spec`` (one :func:`refusal` lets through).

    Args:
        spec: the model.
        mode: ``llm.transport`` (``auto`` or ``litellm``).
        kind: ``chat``, ``logprobs`` or ``answer_logprobs``.
    """
    if spec.in_process:
        return "in_process"
    if kind == LOGPROBS:
        return "completions"
    if kind == ANSWER_LOGPROBS:
        return "direct"
    if mode == "auto" and direct_supported(spec):
        return "direct"
    return "litellm"


def make_transport(kind: str) -> Transport:
    """A new transport of ``kind`` (a key of :data:`TRANSPORT_MODULES`); what its import
    loaded is then frozen out of the garbage collector's scans
    (:func:`prescient.llm.heap.freeze_imports`)."""
    if kind not in TRANSPORT_MODULES:
        raise ValueError(f"unknown transport {kind!r}; known: {', '.join(TRANSPORT_MODULES)}")
    module, _, name = TRANSPORT_MODULES[kind].partition(":")
    cls = getattr(importlib.import_module(module), name)
    transport: Transport = cls()
    freeze_imports()  # the client it just imported stays out of the collector's way
    return transport


class TransportSet:
    """The transports of one batch, created on first use and closed together.

    Args:
        mode: ``llm.transport``.
        pools: the endpoint pools of models served at several endpoints (kept by the
            gateway, so an endpoint's health outlives a batch); None: every model is
            sent to its first endpoint.
    """

    def __init__(self, mode: str, pools: EndpointPools | None = None) -> None:
        self.mode = mode
        self.pools = pools
        self._made: dict[str, Transport] = {}
        self._kinds: dict[tuple[str, str], str] = {}
        self._spread: dict[tuple[str, str], Transport] = {}

    def for_model(self, spec: ModelSpec, request_kind: str = CHAT) -> Transport:
        """The transport that serves ``spec``'s requests of ``request_kind`` (spread over
        its endpoints when it has several)."""
        at = (spec.name, request_kind)
        kind = self._kinds.get(at)
        if kind is None:
            kind = self._kinds[at] = transport_kind(spec, self.mode, request_kind)
        if kind not in self._made:
            self._made[kind] = make_transport(kind)
        if kind == "in_process" or len(spec.endpoints) < 2 or self.pools is None:
            return self._made[kind]
        if at not in self._spread:
            self._spread[at] = SpreadTransport(self._made[kind], self.pools.pool(spec))
        return self._spread[at]

    async def aclose(self) -> None:
        for transport in self._made.values():
            await transport.aclose()
        self._made.clear()
