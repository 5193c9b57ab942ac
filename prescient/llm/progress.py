"""What a gateway counts and shows while it works: running totals and the progress bar.

The totals (:class:`GatewayStats`) outlive a batch: a stage's log line, its metrics and
the store's run log read them when the gateway closes; the bar (:class:`Progress`) lives
for one ``complete_many`` call and shows the hits and failures of that call alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from prescient.llm.ceiling import NOT_SENT
from prescient.llm.ledger_format import is_success
from prescient.llm.types import LLMResult

FIRST_ERRORS = 5
"""Distinct errors a gateway keeps for its failure summary."""


@dataclass
class GatewayStats:
    """Running counts over the gateway's life, for a stage's log line and metrics.

    Attributes:
        requests: results returned.
        ledger_hits: results answered without a call (by the stage's ledger or the
            response store).
        sent: distinct requests sent to a model (identical requests of a batch are one;
            a request whose attempts all failed counts too).
        sent_failed: sent requests that failed after their last attempt.
        collected: requests an earlier run's batch answered (sent and paid for then,
            read now); failed ones in ``collected_failed``.
        collected_failed: collected requests that the batch did not answer.
        calls: attempts that reached a transport (retries included).
        retries: attempts after the first.
        failures: results returned with ``ok=False``.
        not_sent: failed results whose request was never sent (the cost ceiling,
            :mod:`prescient.llm.ceiling`); nothing of them is in the ledger.
        prompt_tokens: prompt tokens of the sent requests, as the provider counted them.
        completion_tokens: completion tokens of the sent requests.
        cost_usd: USD of the sent requests where the price is known.
        unpriced: sent requests that succeeded without a known price.
        requests_by_model: results returned, per model.
        failures_by_model: failed results, per model.
        first_errors: the first distinct ``model: error`` texts.
        served_models: answered results per ``model: served model`` (the id the server
            named in its reply, or an in-process model's weights file), so the run log
            says which models answered behind each registry entry.
    """

    requests: int = 0
    ledger_hits: int = 0
    sent: int = 0
    sent_failed: int = 0
    collected: int = 0
    collected_failed: int = 0
    calls: int = 0
    retries: int = 0
    failures: int = 0
    not_sent: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    requests_by_model: Counter[str] = field(default_factory=Counter)
    failures_by_model: Counter[str] = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)
    served_models: Counter[str] = field(default_factory=Counter)

    def record(self, result: LLMResult) -> None:
        self.requests += 1
        if result.ok and result.served_model:
            self.served_models[f"{result.request.model}: {result.served_model}"] += 1
        self.ledger_hits += result.from_ledger
        self.requests_by_model[result.request.model] += 1
        if not result.ok:
            self.failures += 1
            self.failures_by_model[result.request.model] += 1
            self.not_sent += str(result.error).startswith(NOT_SENT)
            text = f"{result.request.model}: {result.error}"
            if len(self.first_errors) < FIRST_ERRORS and text not in self.first_errors:
                self.first_errors.append(text)

    def paid(self, entry: Mapping[str, Any], earlier: bool = False) -> None:
        """Count one request sent to a model (its new ledger entry); ``earlier``: sent by
        an earlier run's batch and only collected now, so not counted as sent again."""
        if earlier:
            self.collected += 1
            self.collected_failed += not is_success(entry)
        else:
            self.sent += 1
            self.sent_failed += not is_success(entry)
        if not is_success(entry):
            return
        usage = entry.get("usage") or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        cost = entry.get("cost")
        if cost is None:
            self.unpriced += 1
        else:
            self.cost_usd += float(cost)

    def run_record(self) -> dict[str, Any]:
        """What this gateway's run sent and was served, for the store's run log."""
        return {
            "results": self.requests,
            "served": self.ledger_hits,
            "sent": self.sent,
            "sent_failed": self.sent_failed,
            "retries": self.retries,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "unpriced": self.unpriced,
            "not_sent": self.not_sent,
            "served_models": dict(sorted(self.served_models.items())),
        }

    def describe(self) -> str:
        """One line: results, served, sent (failed, retries), tokens and cost."""
        answered = self.sent - self.sent_failed + self.collected - self.collected_failed
        if answered == 0:
            cost = "nothing paid"
        elif self.unpriced == answered:
            cost = "price unknown"
        else:
            cost = f"${self.cost_usd:.4f}"
            cost += f" (+{self.unpriced} unpriced)" if self.unpriced else ""
        return (
            f"{self.requests} results: {self.ledger_hits} served without a call, "
            f"{self.sent} sent to models ({self.sent_failed} failed, {self.retries} retries), "
            + (
                f"{self.collected} collected from earlier batches "
                f"({self.collected_failed} failed), "
                if self.collected
                else ""
            )
            + f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, "
            f"{cost}" + (f", {self.not_sent} not sent (cost ceiling)" if self.not_sent else "")
        )


class Progress:
    """The progress bar of one batch, counting its results into the gateway's stats.

    Args:
        stats: the gateway's running totals (each result is recorded there).
        total: requests in the batch.
        desc: the bar's label.
        enabled: ``llm.progress``.
    """

    def __init__(self, stats: GatewayStats, total: int, desc: str, enabled: bool) -> None:
        self.stats = stats
        self._hits_before, self._failures_before = stats.ledger_hits, stats.failures
        self._not_sent_before = stats.not_sent
        self._bar = tqdm(
            total=total,
            desc=desc,
            unit="req",
            disable=not enabled,
            mininterval=0.5,
            dynamic_ncols=True,
            postfix={"hits": 0, "failed": 0},
        )

    @property
    def not_sent(self) -> int:
        """Results of this batch whose request the gateway held back (never sent)."""
        return self.stats.not_sent - self._not_sent_before

    @property
    def failed(self) -> int:
        """Results of this batch whose request was sent and failed (a request held back
        is :attr:`not_sent`, not failed)."""
        return self.stats.failures - self._failures_before - self.not_sent

    def done(self, result: LLMResult) -> None:
        """Count one result (the bar's counts are redrawn only when they change)."""
        self.stats.record(result)
        self._bar.update(1)
        if result.from_ledger or not result.ok:
            counts = {"hits": self.stats.ledger_hits - self._hits_before, "failed": self.failed}
            if self.not_sent:
                counts["not_sent"] = self.not_sent
            self._bar.set_postfix(counts, refresh=False)

    def close(self) -> None:
        self._bar.close()
