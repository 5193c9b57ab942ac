"""Failed model calls make a stage fail, unless the user accepts a share of them.

A stage that exits 0 with answers missing looks finished: DVC records it and never runs
it again, and the analysis quietly counts fewer questions. So a stage whose calls
failed beyond ``llm.max_failed_share`` (0 by default) writes its ledger (every answer
received is kept) but none of its outputs, logs a summary naming the models, the count
and the first errors, and exits with :data:`FAILED_CALLS_EXIT`. The next ``dvc repro``
runs it again and pays only for the failures. Within the tolerance the stage succeeds
and records the share and the tolerance in its metrics.
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
    """

    requests: int
    failed: int
    max_failed_share: float
    failed_by_model: Mapping[str, int] = field(default_factory=dict)
    first_errors: tuple[str, ...] = ()

    @property
    def failed_share(self) -> float:
        """Failed requests over requests (0 when there were none)."""
        return self.failed / self.requests if self.requests else 0.0

    @property
    def exceeded(self) -> bool:
        """True when the stage must not count as done."""
        return self.failed_share > self.max_failed_share

    def metrics(self) -> dict[str, Any]:
        """The block a stage writes into its metrics (share rounded to 4 places)."""
        return {
            "requests": self.requests,
            "failed": self.failed,
            "failed_share": round(self.failed_share, 4),
            "max_failed_share": self.max_failed_share,
            "failed_by_model": dict(self.failed_by_model),
        }

    def summary(self, stage: str) -> str:
        """One paragraph for the log: who failed, how many, the first errors, what next."""
        models = ", ".join(f"{m} ({n})" for m, n in self.failed_by_model.items()) or "none"
        errors = "; ".join(self.first_errors) or "none recorded"
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
