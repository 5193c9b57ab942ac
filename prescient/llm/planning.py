"""What a batch will send, known before anything is sent: the requests planned with
their model entries, generation params and ledger keys, and the estimate of their tokens
and worst-case cost that a gateway logs before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from prescient.llm.ceiling import rates
from prescient.llm.fit import estimate_tokens
from prescient.llm.logprobs import LOGPROBS
from prescient.llm.registry import ModelSpec
from prescient.llm.routes import batch_kinds
from prescient.llm.types import LLMRequest

Planned = tuple[LLMRequest, ModelSpec, dict[str, Any], str]
"""A request, its model entry, its generation params and its ledger key."""


class Planner(Protocol):
    """What an estimate uses of its gateway: its plan of a request and what its ledger holds."""

    def plan(self, req: LLMRequest) -> Planned: ...

    @property
    def ledger(self) -> Keys: ...


class Keys(Protocol):
    """A ledger, as far as an estimate asks it: which keys it answers."""

    def __contains__(self, key: object) -> bool: ...


@dataclass(frozen=True)
class Estimate:
    """What a batch will send, known before anything is sent.

    Attributes:
        requests: requests in the batch.
        to_send: distinct requests neither the stage's ledger nor the store answers.
        prompt_tokens: their prompt tokens, estimated (:func:`prescient.llm.fit.estimate_tokens`).
        max_completion_tokens: their ``max_tokens`` summed (None when one has no limit).
        max_cost_usd: the most they can cost at the models' prices (the entry's
            ``price``, else litellm's; :func:`prescient.llm.ceiling.rates`), None when a
            model's price is unknown.
        paid: how many of them go to a provider (the others are answered in process,
            at no cost).
    """

    requests: int
    to_send: int
    prompt_tokens: int
    max_completion_tokens: int | None
    max_cost_usd: float | None
    paid: int = 0

    def describe(self) -> str:
        completion = (
            "no completion limit"
            if self.max_completion_tokens is None
            else f"up to {self.max_completion_tokens:,} completion tokens"
        )
        if not self.paid:
            cost = "answered in process, nothing to pay"
        elif self.max_cost_usd is None:
            cost = "price unknown"
        else:
            cost = f"at most ${self.max_cost_usd:.4f}"
        return (
            f"{self.to_send} of {self.requests} requests to send "
            f"(about {self.prompt_tokens:,} prompt tokens, {completion}, {cost})"
        )


def estimate(gateway: Planner, batch: Sequence[LLMRequest]) -> Estimate:
    """Calls, tokens and worst-case cost of ``batch`` beyond what is already answered.

    Prompt tokens use the estimate of :func:`prescient.llm.fit.estimate_tokens` for every
    model (a log line, not a bill); in-process models cost nothing.
    """
    return estimate_planned(gateway, [gateway.plan(r) for r in batch])


def estimate_planned(gateway: Planner, planned: Sequence[Planned]) -> Estimate:
    """:func:`estimate` of requests already planned (:meth:`Gateway.plan`)."""
    todo: dict[str, tuple[ModelSpec, LLMRequest, Mapping[str, Any]]] = {}
    for req, spec, gen, key in planned:
        if key not in todo and key not in gateway.ledger:
            todo[key] = (spec, req, gen)
    prompt = paid = 0
    completion: int | None = 0
    cost: float | None = 0.0
    for spec, req, params in todo.values():
        tokens = estimate_tokens(req.messages)
        prompt += tokens
        limit = 0 if req.kind == LOGPROBS else params.get("max_tokens")
        completion = None if completion is None or limit is None else completion + int(limit)
        if spec.in_process:
            continue
        paid += 1
        found = rates(spec, spec.batch and req.kind in batch_kinds(spec))
        if cost is None or found is None or limit is None:
            cost = None
        else:
            cost += found[0] * tokens + found[1] * int(limit)
    return Estimate(len(planned), len(todo), prompt, completion, cost if paid else None, paid)
