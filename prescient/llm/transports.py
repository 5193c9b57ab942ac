"""How a request reaches a model: one interface, three transports.

- :class:`LiteLLMTransport`: any provider litellm knows (Anthropic, Together, ...).
- :class:`prescient.llm.direct.DirectTransport`: a lean aiohttp client for the providers
  that speak the plain OpenAI wire format (``openai``, ``hosted_vllm``), chosen for them
  when ``llm.transport`` is ``auto``.
- :class:`prescient.llm.providers.InProcessTransport`: models answered in this process
  (the embedded SmolLM2, the baselines, test scripts); they never travel.

A transport turns a :class:`Call` into a :class:`prescient.llm.types.Reply` or raises;
the gateway's retry policy reads the error (``status_code``, headers), the ledger and
result handling never see which transport answered. Ledger keys do not depend on it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from prescient.llm.registry import ModelSpec
from prescient.llm.types import Reply

if TYPE_CHECKING:
    from prescient.llm.endpoints import EndpointPools

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Call:
    """One attempt's inputs.

    Attributes:
        spec: the model's registry entry.
        messages: chat messages.
        gen: generation parameters (the keyed ones).
        api_key: the key read from ``spec.api_key_env`` (None: none needed). Handed to
            the transport alone, never stored.
        timeout_s: seconds this attempt may take.
        api_base: the endpoint this attempt goes to (one of ``spec.endpoints``; None:
            the provider's default).
    """

    spec: ModelSpec
    messages: Sequence[Mapping[str, Any]]
    gen: Mapping[str, Any]
    api_key: str | None
    timeout_s: float
    api_base: str | None


class Transport(Protocol):
    """Sends calls to models.

    Attributes:
        retries: whether failed attempts are worth repeating (in-process models fail
            deterministically: asking again cannot help).
    """

    retries: bool

    async def complete(self, call: Call) -> Reply:
        """The model's reply; raises on any failure (the error is recorded, not raised on)."""
        ...

    async def aclose(self) -> None:
        """Free what the transport opened for this batch (connections)."""
        ...


def transport_kind(spec: ModelSpec, mode: str) -> str:
    """``in_process``, ``direct`` or ``litellm``: which transport serves ``spec``.

    Args:
        spec: the model.
        mode: ``llm.transport`` (``auto`` or ``litellm``).
    """
    from prescient.llm.direct import direct_supported

    if spec.in_process:
        return "in_process"
    if mode == "auto" and direct_supported(spec):
        return "direct"
    return "litellm"


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
            self._made[kind] = _make(kind)
        if kind == "in_process" or len(spec.endpoints) < 2 or self.pools is None:
            return self._made[kind]
        if spec.name not in self._spread:
            from prescient.llm.endpoints import SpreadTransport

            self._spread[spec.name] = SpreadTransport(self._made[kind], self.pools.pool(spec))
        return self._spread[spec.name]

    async def aclose(self) -> None:
        for transport in self._made.values():
            await transport.aclose()
        self._made.clear()


def _make(kind: str) -> Transport:
    if kind == "in_process":
        from prescient.llm.providers import InProcessTransport

        return InProcessTransport()
    if kind == "direct":
        from prescient.llm.direct import DirectTransport

        return DirectTransport()
    return LiteLLMTransport()


class LiteLLMTransport:
    """``litellm.acompletion`` with litellm's own retries off (the gateway retries, with
    the ledger's accounting). litellm is imported only when a batch needs it."""

    retries = True

    def __init__(self) -> None:
        import litellm

        litellm.suppress_debug_info = True  # no banners on stdout; errors reach the ledger
        quiet_litellm_loggers()
        self._litellm = litellm

    async def complete(self, call: Call) -> Reply:
        resp = await self._litellm.acompletion(
            model=call.spec.litellm_model,
            messages=[dict(m) for m in call.messages],
            api_base=call.api_base,
            api_key=call.api_key,
            timeout=call.timeout_s,
            num_retries=0,
            max_retries=0,
            drop_params=True,  # e.g. seed for providers that do not take one
            **call.gen,
        )
        choice = resp.choices[0]
        usage = getattr(resp, "usage", None)
        return Reply(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            usage={k: int(getattr(usage, k, 0) or 0) for k in USAGE_FIELDS},
            cost=litellm_cost(resp),
        )

    async def aclose(self) -> None:
        return None  # litellm keeps its own client pool


USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


def litellm_cost(resp: Any) -> float | None:
    """USD cost when litellm knows the price; it already computed it for its own logging.

    litellm sets ``response_cost`` on every response (None for a model it cannot price);
    pricing again would repeat its slow lookup for unknown models.
    """
    hidden = getattr(resp, "_hidden_params", None) or {}
    if isinstance(hidden, dict) and "response_cost" in hidden:
        value = hidden["response_cost"]
    else:
        import litellm

        try:
            value = litellm.completion_cost(completion_response=resp)
        except Exception:  # unknown price: not an error
            return None
    return float(value) if value else None


def quiet_litellm_loggers() -> None:
    """One line per call from litellm and httpx at INFO would drown a stage's own log.

    litellm also attaches its own stderr handler, which printed every record twice
    beside the application's handler: records now go through the application's logging
    configuration only. Loggers someone already set a level on (``LITELLM_LOG=DEBUG``)
    keep it.
    """
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx"):
        log = logging.getLogger(name)
        if log.level == logging.NOTSET:
            log.setLevel(logging.WARNING)
        if name.startswith("LiteLLM"):
            for handler in list(log.handlers):
                log.removeHandler(handler)
            log.propagate = True
