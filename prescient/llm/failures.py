"""Failed model calls make a stage fail, unless the user accepts a share of them.

A stage that exits 0 with answers missing looks finished: DVC records it and never runs
it again, and the analysis quietly counts fewer questions. So a stage whose calls
failed beyond ``llm.max_failed_share`` (0 by default) writes its ledger (every answer
received is kept) but none of its outputs, logs a summary naming the models, the count
and the first errors, and exits with :data:`FAILED_CALLS_EXIT`. The next ``dvc repro``
runs it again and pays only for the failures. Within the tolerance the stage succeeds
and records the share and the tolerance in its metrics.

Requests the gateway did not send because the stage's cost ceiling was reached
(``llm.max_cost_usd``, :mod:`prescient.llm.ceiling`) count among the failed ones and fail
the stage whatever the tolerance: the user chose to stop spending, not to accept fewer
answers, and a rerun with a higher ceiling sends exactly them.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FAILED_CALLS_EXIT = 3
"""Exit status of a stage whose model calls failed beyond ``llm.max_failed_share``
(2 is a configuration error, 1 an unexpected crash)."""


@dataclass(frozen=True)
class FailureReport:
    """A stage's failed calls against its tolerance.

    Attributes:
        requests: requests the stage made (ledger hits included).
        failed: requests that got no answer after the last attempt.
        max_failed_share: ``llm.max_failed_share``.
        failed_by_model: failed requests per model.
        first_errors: the first distinct ``model: error`` texts.
        not_sent: failed requests that were never sent (the cost ceiling), which fail
            the stage whatever ``max_failed_share`` allows.
        spending: what was spent against the ceiling and how to raise it (for the summary).
        overrun: a reply that cost more than its worst case under the ceiling
            (:attr:`prescient.llm.ceiling.CostCeiling.overrun`), which fails the stage.
    """

    requests: int
    failed: int
    max_failed_share: float
    failed_by_model: Mapping[str, int] = field(default_factory=dict)
    first_errors: tuple[str, ...] = ()
    not_sent: int = 0
    spending: str = ""
    overrun: str | None = None

    @property
    def failed_share(self) -> float:
        """Failed requests over requests (0 when there were none)."""
        return self.failed / self.requests if self.requests else 0.0

    @property
    def exceeded(self) -> bool:
        """True when the stage must not count as done."""
        return (
            self.not_sent > 0
            or self.overrun is not None
            or self.failed_share > self.max_failed_share
        )

    def metrics(self) -> dict[str, Any]:
        """The block a stage writes into its metrics (share rounded to 4 places), with
        ``not_sent`` when the ceiling held requests back (such a stage fails)."""
        block = {
            "requests": self.requests,
            "failed": self.failed,
            "failed_share": round(self.failed_share, 4),
            "max_failed_share": self.max_failed_share,
            "failed_by_model": dict(self.failed_by_model),
        }
        return {**block, "not_sent": self.not_sent} if self.not_sent else block

    def summary(self, stage: str) -> str:
        """One paragraph for the log: who failed, how many, the first errors, what next."""
        models = ", ".join(f"{m} ({n})" for m, n in self.failed_by_model.items()) or "none"
        errors = "; ".join(self.first_errors) or "none recorded"
        if self.overrun is not None and not self.not_sent:
            return (
                f"{stage}: the cost ceiling cannot be kept: {self.overrun}; {self.spending}; "
                "the stage fails (the answers received are kept in the ledger)"
            )
        if self.not_sent:
            return (
                f"{stage}: {self.not_sent} of {self.requests} requests were not sent "
                f"(cost ceiling), {self.failed - self.not_sent} failed, by model: {models}; "
                f"{self.spending}; the stage fails whatever llm.max_failed_share allows"
            )
        verdict = (
            "the stage fails: rerun it (dvc repro) once the cause is fixed; the ledger "
            "keeps every answer received, so only the failed requests are asked again"
            if self.exceeded
            else "within the tolerance: the failed rows are kept with their error"
        )
        return (
            f"{stage}: {self.failed} of {self.requests} model calls failed "
            f"({100 * self.failed_share:.1f}%, llm.max_failed_share "
            f"{self.max_failed_share:g}) by model: {models}; first errors: {errors}; {verdict}"
        )

    def log(self, logger: logging.Logger, stage: str) -> None:
        """Log the summary: an error when exceeded, a warning for tolerated failures."""
        if self.exceeded:
            logger.error("%s", self.summary(stage))
        elif self.failed:
            logger.warning("%s", self.summary(stage))


def failed_stage(
    report: FailureReport,
    logger: logging.Logger,
    stage: str,
    outputs: Sequence[str | os.PathLike[str]],
) -> bool:
    """Log ``report``; when it exceeds the tolerance, delete the stage's ``outputs``
    (files or whole directories, so no earlier result looks current) and return True:
    the stage then exits with :data:`FAILED_CALLS_EXIT` without writing them."""
    report.log(logger, stage)
    if not report.exceeded:
        return False
    for path in map(Path, outputs):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    return True
