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

Each transport declares what it serves in :mod:`prescient.llm.routes` (the request
kinds, a predicate on the model's entry per kind, the batch APIs its models may use):
a request goes to the first transport in :data:`~prescient.llm.routes.ROUTES` that
serves it, unless ``llm.transport`` names another transport that serves it too. A
request no transport serves (the log-probabilities of a chat-only API or of a baseline,
the answer log-probabilities of a model only litellm serves) is refused before anything
is sent (:func:`refusal` says why, in the words of the kind's server).

:data:`TRANSPORT_MODULES` names each transport's class by its module, which is imported
when a batch first needs that transport; a batch of in-process models never loads the
network clients. Which transport answered is invisible to the ledger and to result
handling: keys hash the model string, messages and generation parameters.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from prescient.llm.endpoints import EndpointPools, SpreadTransport
from prescient.llm.heap import freeze_imports
from prescient.llm.logprobs import CHAT, KINDS
from prescient.llm.registry import ModelSpec
from prescient.llm.routes import ROUTES, Route
from prescient.llm.transport_base import Transport

ROUTES_BY_NAME: Mapping[str, Route] = {r.name: r for r in ROUTES}
"""Every transport's declaration by the transport's name."""

TRANSPORT_MODULES: Mapping[str, str] = {
    "in_process": "prescient.llm.providers:InProcessTransport",
    "direct": "prescient.llm.direct:DirectTransport",
    "litellm": "prescient.llm.litellm_transport:LiteLLMTransport",
    "completions": "prescient.llm.completions:CompletionsTransport",
}
"""Transport kind (a :class:`~prescient.llm.routes.Route`'s name) -> ``module:class`` of
the transport, imported on first use."""


def refusal(spec: ModelSpec, kind: str) -> str | None:
    """Why no transport can answer a request of ``kind`` for ``spec`` (None: one can)."""
    if kind not in KINDS:
        return f"unknown request kind {kind!r}; known: {', '.join(KINDS)}"
    if any(route.accepts(spec, kind) for route in ROUTES):
        return None
    for route in ROUTES:
        explain = route.refuses.get(kind)
        reason = None if explain is None else explain(spec)
        if reason is not None:
            return reason
    return f"no transport serves {kind} requests of {spec.litellm_model}"


def transport_kind(spec: ModelSpec, mode: str, kind: str = CHAT) -> str:
    """``in_process``, ``direct``, ``litellm`` or ``completions``: which transport serves
    a request of ``kind`` for ``spec`` (one :func:`refusal` lets through).

    Args:
        spec: the model.
        mode: ``llm.transport`` (``auto``, or the name of the transport to prefer where
            it serves the request: ``litellm``).
        kind: ``chat``, ``logprobs`` or ``answer_logprobs``.

    Raises:
        ValueError: no transport serves the request (:func:`refusal` says why).
    """
    preferred = ROUTES_BY_NAME.get(mode)
    if preferred is not None and preferred.accepts(spec, kind):
        return preferred.name
    for route in ROUTES:
        if route.accepts(spec, kind):
            return route.name
    raise ValueError(f"{spec.name}: {refusal(spec, kind)}")


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
