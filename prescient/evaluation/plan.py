"""What the evaluate stage would send, worked out before anything is sent.

:class:`PlanningGateway` stands in for a model's gateway in
:func:`prescient.evaluation.run.run_model`: it builds every request exactly as the run
does (the same prompts, generation params and ledger keys, through the real gateway's
:meth:`~prescient.llm.gateway.Gateway.plan`), asks the stage's ledger and the response
store which keys they already answer, and sends nothing. What it counts is what the run
then does: a request already answered is served, an identical request within the run is
paid once, and every other request is sent. The worst-case cost is the one the gateway
logs before a batch (:func:`prescient.llm.planning.estimate_planned`): estimated prompt
tokens and the full ``max_tokens`` of every reply, at the entry's price. A model in batch
mode has its requests to send cut into jobs exactly as the run cuts them
(:func:`prescient.llm.batch.split_jobs`), so the plan says how many jobs it waits on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from prescient.llm.batch import BatchAPI, JobLimits, line_bytes, split_jobs
from prescient.llm.batch_route import job_limits, make_batch_api
from prescient.llm.gateway import Gateway
from prescient.llm.planning import Planned, estimate_planned
from prescient.llm.routes import batch_kinds
from prescient.llm.types import LLMRequest, LLMResult

PLANNED = "planned, not sent"
"""The error of every stand-in result (nothing of a plan reaches predictions)."""


@dataclass(frozen=True)
class ModelPlan:
    """What one model's evaluate stage would send.

    Attributes:
        model: the registry entry.
        requests: requests the run makes (questions x settings x elicitations that
            have a prompt).
        answered: those the stage's ledger or the response store already answers.
        repeated: those identical to an earlier request of the run (paid once).
        to_send: distinct requests to send.
        prompt_tokens: their prompt tokens, estimated.
        max_completion_tokens: their ``max_tokens`` summed (None: one has no limit).
        max_cost_usd: the most they can cost (None: unpriced, or answered in process).
        paid: how many of them go to a provider (the rest are answered in process).
        sends: each request to send, by its ledger key, with the most it can cost (None:
            unpriced, or answered in process): what tells plans of several runs sharing
            the response store which requests they have in common.
        batched: of the requests to send, those that go in batch jobs (a model whose
            entry sets ``batch: true``; :mod:`prescient.llm.batch_route`).
        batch_jobs: the jobs they are cut into, as the run cuts them (the provider's
            limits and ``llm.batch_max_requests``; 0: none).
        batch_in_flight: how many of them are out at once (``llm.batch_max_in_flight``).
    """

    model: str
    requests: int = 0
    answered: int = 0
    repeated: int = 0
    to_send: int = 0
    prompt_tokens: int = 0
    max_completion_tokens: int | None = 0
    max_cost_usd: float | None = None
    paid: int = 0
    sends: dict[str, float | None] = field(default_factory=dict)
    batched: int = 0
    batch_jobs: int = 0
    batch_in_flight: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def merge_plans(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One model's plan (:meth:`ModelPlan.to_json`) from its partitions' plans: counts
    summed, a request two partitions would send counted once (as sent once, the
    response store answering the second), the ceilings None when one is."""
    if len(parts) == 1:
        return dict(parts[0])
    sends: dict[str, float | None] = {}
    repeated = 0
    for part in parts:
        for key, cost in part["sends"].items():
            if key in sends:
                repeated += 1
            else:
                sends[key] = cost
    costs = [part["max_cost_usd"] for part in parts]
    completion = [part["max_completion_tokens"] for part in parts]
    merged = ModelPlan(
        model=str(parts[0]["model"]),
        requests=sum(int(part["requests"]) for part in parts),
        answered=sum(int(part["answered"]) for part in parts),
        repeated=sum(int(part["repeated"]) for part in parts) + repeated,
        to_send=len(sends),
        prompt_tokens=sum(int(part["prompt_tokens"]) for part in parts),
        max_completion_tokens=None if None in completion else sum(completion),
        max_cost_usd=None if None in costs else sum(costs),
        paid=sum(int(part["paid"]) for part in parts),
        sends=sends,
        batched=sum(int(part["batched"]) for part in parts),
        batch_jobs=sum(int(part["batch_jobs"]) for part in parts),
        batch_in_flight=max(int(part["batch_in_flight"]) for part in parts),
    )
    return merged.to_json()


class PlanningGateway:
    """A gateway that plans every request of a run and sends none (module docstring)."""

    def __init__(self, gateway: Gateway, model: str) -> None:
        self.gateway = gateway
        self.model = model
        self.seen: set[str] = set()
        self.requests = self.answered = self.repeated = 0
        self.to_send = self.prompt_tokens = self.paid = 0
        self.completion: int | None = 0
        self.cost: float | None = 0.0
        self.sends: dict[str, float | None] = {}
        self.batch_sizes: dict[str, int] = {}  # line bytes of each batched request
        self.limits: JobLimits | None = None
        self.api: BatchAPI | None = None

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]:
        planned = [self.gateway.plan(r) for r in requests]
        new = []
        for p in planned:
            key = p[3]
            if key in self.seen:
                self.repeated += 1
            elif key in self.gateway.ledger:
                self.answered += 1
            else:
                new.append(p)
            self.seen.add(key)
        self.requests += len(planned)
        for p in new:  # each distinct (self.seen), so estimated once
            self._batch(p)
            est = estimate_planned(self.gateway, [p])
            self.sends[p[3]] = est.max_cost_usd
            self.to_send += est.to_send
            self.prompt_tokens += est.prompt_tokens
            self.paid += est.paid
            if self.completion is not None:
                more = est.max_completion_tokens
                self.completion = None if more is None else self.completion + more
            if est.paid:
                cost = est.max_cost_usd
                self.cost = None if self.cost is None or cost is None else self.cost + cost
        return [
            LLMResult(req, key, ok=False, text=None, error=PLANNED) for req, _, _, key in planned
        ]

    def _batch(self, planned: Planned) -> None:
        """Count a request that goes in a batch job, with its line's bytes."""
        req, spec, gen, key = planned
        if not spec.batch or req.kind not in batch_kinds(spec):
            return
        gw = self.gateway
        if self.api is None:
            self.limits = job_limits(spec, gw.settings)
            self.api = make_batch_api(spec, None, gw.settings.timeout_s, gw.retry, gw.clock)
        body = self.api.request_body(spec, req.messages, gen, req.kind)
        self.batch_sizes[key] = line_bytes(key, body)

    def result(self) -> ModelPlan:
        jobs = 0
        if self.limits is not None:
            jobs = len(split_jobs(sorted(self.batch_sizes), self.batch_sizes, self.limits))
        return ModelPlan(
            self.model,
            self.requests,
            self.answered,
            self.repeated,
            self.to_send,
            self.prompt_tokens,
            self.completion,
            self.cost if self.paid else None,
            self.paid,
            dict(self.sends),
            len(self.batch_sizes),
            jobs,
            0 if self.limits is None else self.limits.in_flight,
        )


@contextlib.contextmanager
def quiet(name: str) -> Iterator[None]:
    """Errors only from logger ``name`` meanwhile: a plan's stand-in results are all
    "failures", which the run would otherwise report cell by cell."""
    log = logging.getLogger(name)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)
