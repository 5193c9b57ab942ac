"""The litellm transport: any provider litellm knows (Anthropic, Together, ...).

Chosen for every model that is neither answered in this process nor served by the
direct client (:mod:`prescient.llm.direct`), and for every API model when
``llm.transport`` is ``litellm``. litellm is imported only when a batch needs it.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from prescient.llm.routes import LITELLM, Route
from prescient.llm.transport_base import USAGE_FIELDS, Call, reasoning_tokens
from prescient.llm.types import SERVED_MODEL, Reply


class LiteLLMTransport:
    """``litellm.acompletion`` with litellm's own retries off (the gateway retries, with
    the ledger's accounting). litellm is imported only when a batch needs it."""

    route: ClassVar[Route] = LITELLM
    """What it serves (:mod:`prescient.llm.routes`)."""

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
        named = getattr(resp, "model", None)
        return Reply(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            usage={
                **{k: int(getattr(usage, k, 0) or 0) for k in USAGE_FIELDS},
                **reasoning_tokens(usage),
            },
            cost=litellm_cost(resp),
            provenance={SERVED_MODEL: named} if isinstance(named, str) and named else None,
        )

    async def aclose(self) -> None:
        return None  # litellm keeps its own client pool


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
