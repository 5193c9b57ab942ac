"""Which transport serves a model, and the transports of one batch.

Three transports, one module each, all built on :mod:`prescient.llm.transport_base`
(the :class:`~prescient.llm.transport_base.Call` they take, the interface they offer
and the errors they raise):

- ``in_process`` (:class:`prescient.llm.providers.InProcessTransport`): models answered
  in this process (the embedded SmolLM2, the baselines, test scripts); they never travel.
- ``direct`` (:class:`prescient.llm.direct.DirectTransport`): a lean aiohttp client for
  the providers that speak the plain OpenAI wire format (``openai``, ``hosted_vllm``),
  chosen for them when ``llm.transport`` is ``auto``.
- ``litellm`` (:class:`prescient.llm.litellm_transport.LiteLLMTransport`): any provider
  litellm knows (Anthropic, Together, ...).

:data:`TRANSPORT_MODULES` names each transport's class by its module, which is imported
when a batch first needs that transport; a batch of in-process models never loads the
network clients. Which transport answered is invisible to the ledger and to result
handling: keys hash the model string, messages and generation parameters.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from prescient.llm.direct import direct_supported
from prescient.llm.endpoints import EndpointPools, SpreadTransport
from prescient.llm.registry import ModelSpec
from prescient.llm.transport_base import Transport

TRANSPORT_MODULES: Mapping[str, str] = {
    "in_process": "prescient.llm.providers:InProcessTransport",
    "direct": "prescient.llm.direct:DirectTransport",
    "litellm": "prescient.llm.litellm_transport:LiteLLMTransport",
}
"""Transport kind -> ``module:class`` of the transport, imported on first use."""


def transport_kind(spec: ModelSpec, mode: str) -> str:
    """``in_process``, ``direct`` or ``litellm``: which transport serves ``spec``.

    Args:
        spec: the model.
        mode: ``llm.transport`` (``auto`` or ``litellm``).
    """
    if spec.in_process:
        return "in_process"
    if mode == "auto" and direct_supported(spec):
        return "direct"
    return "litellm"


def make_transport(kind: str) -> Transport:
    """A new transport of ``kind`` (a key of :data:`TRANSPORT_MODULES`)."""
    if kind not in TRANSPORT_MODULES:
        raise ValueError(f"unknown transport {kind!r}; known: {', '.join(TRANSPORT_MODULES)}")
    module, _, name = TRANSPORT_MODULES[kind].partition(":")
    cls = getattr(importlib.import_module(module), name)
    transport: Transport = cls()
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
        self._kinds: dict[str, str] = {}
        self._spread: dict[str, Transport] = {}

    def for_model(self, spec: ModelSpec) -> Transport:
        """The transport that serves ``spec`` (spread over its endpoints when it has
        several)."""
        kind = self._kinds.get(spec.name)
        if kind is None:
            kind = self._kinds[spec.name] = transport_kind(spec, self.mode)
        if kind not in self._made:
            self._made[kind] = make_transport(kind)
        if kind == "in_process" or len(spec.endpoints) < 2 or self.pools is None:
            return self._made[kind]
        if spec.name not in self._spread:
            self._spread[spec.name] = SpreadTransport(self._made[kind], self.pools.pool(spec))
        return self._spread[spec.name]

    async def aclose(self) -> None:
        for transport in self._made.values():
            await transport.aclose()
        self._made.clear()
