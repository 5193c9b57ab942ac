"""The cost ceiling of a stage run (``llm.max_cost_usd``) and the prices it reads.

A gateway with a ceiling admits a request only when the request's worst case still fits:
what the gateway has spent so far, plus the worst cases of the requests it has sent
and not yet heard back from, plus this request's worst case, must not pass the ceiling.
A request's worst case is its prompt tokens (an upper bound, one token per UTF-8 byte
plus the template's markers: :func:`prescient.llm.fit.bound_tokens`) and its
``max_tokens`` at the model's price:
the entry's ``price`` when it has one, else litellm's price table
(:mod:`prescient.llm.prices`); the Batch API's rates for requests sent as a batch. The
check runs once the request holds its concurrency slot, just before it is sent, so the
spending of every request that finished before counts at its real cost.

Once a request does not fit, the gateway stops sending for good: the requests in flight
finish and are recorded as usual, and every request not yet sent is answered with
``ok=False`` and an error starting with :data:`NOT_SENT_CEILING`, never written to the
ledger, so a later run with a higher ceiling sends it. A stage with such requests fails
whatever ``llm.max_failed_share`` allows (:mod:`prescient.llm.failures`). Free requests
(in-process models, a ``price`` of 0) cannot pass a ceiling and are always sent; answers
served from the ledger or the store cost nothing.

What a request cost is the ledger entry's ``cost`` (the reply's token counts at the same
price); an answer without token counts is charged its worst case. A reply that cost more
than its worst case (a provider that counts more prompt tokens than the bound, or bills
completion tokens past ``max_tokens``) means the ceiling cannot be kept: the gateway
stops sending as above, and the stage fails with an error naming the model, what the
request cost and what bounded it (:attr:`CostCeiling.overrun`). A request that failed
after its attempts is charged nothing (providers do not bill error replies; an attempt
that timed out here but that the provider finished anyway is not counted).

A remote model with no known price cannot be bounded: under a ceiling the gateway's
check refuses it before anything is sent (:meth:`CostCeiling.check_priced`), naming the
model and the ``price`` to give it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prescient.llm.fit import bound_tokens
from prescient.llm.logprobs import LOGPROBS
from prescient.llm.prices import batch_price, price
from prescient.llm.registry import ModelConfigError, ModelSpec
from prescient.llm.types import LLMRequest

NOT_SENT = "not sent"
"""How the error of every request the gateway held back starts."""
NOT_SENT_CEILING = f"{NOT_SENT}: cost ceiling"
"""The error prefix of a request held back by ``llm.max_cost_usd``."""

Rates = tuple[float, float]
"""USD per (prompt, completion) token."""


class NotSent(Exception):
    """The gateway held a request back before sending it (the message starts with
    :data:`NOT_SENT`); nothing is written to the ledger."""


def rates(spec: ModelSpec, batch: bool = False) -> Rates | None:
    """USD per (prompt, completion) token of ``spec``'s requests; None when unknown.

    In-process models are free. An entry's ``price`` comes first (less its
    ``batch_discount`` for batched requests); else litellm's table, whose Batch API rates
    price batched requests where it has them (the standard rates where it has not).
    """
    if spec.in_process:
        return (0.0, 0.0)
    if spec.price is not None:
        share = 1.0 - spec.price.batch_discount if batch else 1.0
        return (
            spec.price.prompt_usd_per_mtok * share / 1e6,
            spec.price.completion_usd_per_mtok * share / 1e6,
        )
    if batch:
        found = batch_price(spec.litellm_model)
        if found is not None:
            return found
    return price(spec.litellm_model)


def usage_cost(spec: ModelSpec, usage: Mapping[str, Any], batch: bool = False) -> float | None:
    """USD of a reply's token counts at ``spec``'s price (None: no price, or no counts)."""
    found = rates(spec, batch)
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if found is None or prompt is None or completion is None:
        return None
    return found[0] * int(prompt) + found[1] * int(completion)


def reply_cost(
    spec: ModelSpec, usage: Mapping[str, Any], reported: float | None, batch: bool = False
) -> float | None:
    """What the ledger records as a reply's cost: its token counts at the entry's
    ``price`` when the entry has one (and for every batched request, which the
    transports' prices do not cover), else what the transport reported."""
    if spec.price is None and not batch:
        return reported
    return usage_cost(spec, usage, batch)


def worst_case(
    spec: ModelSpec, req: LLMRequest, gen: Mapping[str, Any], batch: bool = False
) -> float | None:
    """The most ``req`` can cost: estimated prompt tokens plus ``max_tokens`` (a
    log-probability request generates nothing) at ``spec``'s price.

    Returns:
        USD, or None when the price is unknown.

    Raises:
        NotSent: a chat request with no ``max_tokens`` to a priced model, whose reply
            the ceiling cannot bound.
    """
    found = rates(spec, batch)
    if found is None:
        return None
    if found == (0.0, 0.0):
        return 0.0
    limit = 0 if req.kind == LOGPROBS else gen.get("max_tokens")
    if limit is None:
        raise NotSent(
            f"{NOT_SENT_CEILING}: model {spec.name!r} has no max_tokens, so llm.max_cost_usd "
            "cannot bound its reply; set params.max_tokens in its conf/model entry"
        )
    return found[0] * bound_tokens(req.messages) + found[1] * int(limit)


class CostCeiling:
    """One gateway's spending against ``llm.max_cost_usd`` (module doc).

    Args:
        limit_usd: the ceiling; None: none (every request is admitted).

    Attributes:
        spent_usd: what the requests this gateway sent cost (worst cases for answers
            without token counts).
        stopped: the error every paid request not yet sent gets, once one did not fit.
        overrun: the first reply that cost more than its worst case (model, cost, bound);
            a stage with one fails.
    """

    def __init__(self, limit_usd: float | None) -> None:
        self.limit_usd = limit_usd
        self.spent_usd = 0.0
        self.stopped: str | None = None
        self.overrun: str | None = None
        self._inflight: dict[str, float] = {}
        self._bounds: dict[str, tuple[str, int, int]] = {}

    @property
    def inflight_usd(self) -> float:
        """The worst cases of the requests sent and not yet recorded."""
        return sum(self._inflight.values())

    def check_priced(self, spec: ModelSpec) -> None:
        """Under a ceiling, a model must have a known price (in-process models are free).

        Raises:
            ModelConfigError: naming the model and how to give it a price.
        """
        if self.limit_usd is None or rates(spec) is not None:
            return
        raise ModelConfigError(
            f"model {spec.name!r} ({spec.litellm_model}) has no known price, so "
            f"llm.max_cost_usd={self.limit_usd:g} cannot bound what it spends: give "
            f"conf/model/{spec.name}.yaml a price (price: {{prompt_usd_per_mtok: ..., "
            "completion_usd_per_mtok: ...}; 0 and 0 for a self-hosted server) or set "
            "llm.max_cost_usd to null"
        )

    def admit(
        self,
        key: str,
        spec: ModelSpec,
        req: LLMRequest,
        gen: Mapping[str, Any],
        *,
        batch: bool = False,
        sent: bool = False,
    ) -> None:
        """Reserve ``req``'s worst case before it is sent.

        Args:
            key: the request's ledger key (what :meth:`settle` is called with).
            spec: the request's model.
            req: the request.
            gen: its generation params.
            batch: the request goes through the Batch API (its rates).
            sent: the request was sent before this run (a batch a killed run
                submitted): reserved where it can be bounded, never refused.

        Raises:
            NotSent: the request does not fit (from then on no paid request does), or
                its cost cannot be bounded.
        """
        if self.limit_usd is None:
            return
        try:
            worst = worst_case(spec, req, gen, batch)
        except NotSent:
            if sent:
                return
            raise
        if worst is None:
            if sent:
                return
            raise NotSent(f"{NOT_SENT_CEILING}: model {spec.name!r} has no known price")
        if not sent and worst > 0:
            if self.stopped is None and self.spent_usd + self.inflight_usd + worst > self.limit_usd:
                self.stopped = (
                    f"{NOT_SENT_CEILING} llm.max_cost_usd={self.limit_usd:g} reached: "
                    f"${self.spent_usd:.4f} spent, up to ${self.inflight_usd:.4f} in flight, "
                    f"the next request up to ${worst:.4f}"
                )
            if self.stopped is not None:
                raise NotSent(self.stopped)
        self._inflight[key] = self._inflight.get(key, 0.0) + worst
        if worst > 0:
            limit = 0 if req.kind == LOGPROBS else int(gen.get("max_tokens") or 0)
            self._bounds[key] = (spec.name, bound_tokens(req.messages), limit)

    def settle(self, key: str, entry: Mapping[str, Any]) -> None:
        """Replace ``key``'s reservation by what its ledger entry cost; a cost above the
        reservation stops the gateway and is kept in :attr:`overrun`."""
        worst = self._inflight.pop(key, 0.0)
        bound = self._bounds.pop(key, None)
        if entry.get("error") is not None:
            return
        cost = entry.get("cost")
        self.spent_usd += worst if cost is None else float(cost)
        if cost is not None and bound is not None and float(cost) > worst * (1 + 1e-9):
            model, prompt_bound, max_tokens = bound
            usage = entry.get("usage") or {}
            found = (
                f"model {model!r} billed ${float(cost):.6f} for a request bounded at "
                f"${worst:.6f} ({usage.get('prompt_tokens')} prompt tokens counted against "
                f"a bound of {prompt_bound}, {usage.get('completion_tokens')} completion "
                f"tokens against max_tokens {max_tokens}): its provider counts beyond the "
                f"bound, so llm.max_cost_usd={self.limit_usd:g} cannot be kept; check the "
                "model's price and max_tokens, or run without a ceiling (llm.max_cost_usd: "
                "null)"
            )
            self.overrun = self.overrun or found
            self.stopped = self.stopped or f"{NOT_SENT_CEILING}: {found}"

    def describe(self, not_sent: int) -> str:
        """What was spent against the ceiling, and the ``not_sent`` requests held back."""
        if self.limit_usd is None:
            return "no cost ceiling"
        text = f"${self.spent_usd:.4f} spent of llm.max_cost_usd={self.limit_usd:g}"
        if self.overrun:
            text += f"; {self.overrun}"
        if not_sent:
            text += (
                f"; {not_sent} requests not sent: raise the ceiling (-S "
                "'llm.max_cost_usd=...' or conf/config.yaml) and rerun; the answers "
                "received are kept and served, so only the rest is sent"
            )
        return text
