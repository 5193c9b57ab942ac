"""The ``llm`` params section: how requests travel, and how many may fail.

Every value lives in ``conf/config.yaml``; this module states types and bounds only.
Most keys change how a request travels (attempts, waits, timeouts, transport, progress
bar), never what a model is asked, so stages do not declare them in dvc.yaml and
changing them re-runs nothing. ``max_failed_share`` decides whether a stage with failed
calls counts as done, and ``ledger_compression`` decides the bytes of a stage's
ledger, so the stages that call models declare both. ``max_cost_usd`` is not
declared: a stage it stops writes no outputs (:mod:`prescient.llm.ceiling`), so raising
it reruns that stage anyway and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from prescient.llm.ledger_file import Compression
from prescient.settings import ParamsError, Settings, load_settings, section


class GatewaySettings(Settings):
    """Params section ``llm``.

    Attributes:
        max_tries: attempts per request, the first included, on rate limits, server
            errors, timeouts and connection errors (in-process models get one).
        backoff_base_s: wait before the second attempt; doubles per attempt, jittered.
        backoff_max_s: cap on one wait, also on a server's Retry-After.
        timeout_s: per-attempt timeout for models whose entry leaves ``timeout_s`` null.
        progress: show a tqdm bar per batch.
        transport: ``auto`` sends OpenAI-compatible providers (``openai``,
            ``hosted_vllm``) through the lean direct client and the other remote
            providers through litellm; ``litellm`` sends every remote provider through
            litellm. In-process models never travel. Ledger keys do not depend on it.
        max_failed_share: the share of a stage's model calls that may fail with the
            stage still counting as done (0: any failure makes it exit non-zero).
        endpoint_cooldown_s: how long an endpoint of a model served at several is
            passed over after a failed attempt.
        max_cost_usd: the most one stage run's gateway may spend in USD, worst cases of
            the requests in flight included (:mod:`prescient.llm.ceiling`); None: no
            ceiling.
        batch_poll_s: seconds between status reads of a submitted Batch API job
            (models with ``batch: true``, :mod:`prescient.llm.batch_route`).
        batch_max_requests: the most requests in one batch job (None: the provider's
            limit, which also bounds a lower value).
        batch_max_in_flight: the most batch jobs of one model submitted and not yet
            collected at once.
        ledger_compression: how a stage's ledger snapshot holds its lines: ``none``
            (JSON Lines) or ``zstd`` (zstd frames of the same lines,
            :mod:`prescient.llm.ledger_file`). It changes the snapshot's bytes, so the
            stages that write one declare it.
    """

    max_tries: int = Field(ge=1)
    backoff_base_s: float = Field(ge=0)
    backoff_max_s: float = Field(ge=0)
    timeout_s: float = Field(gt=0)
    progress: bool
    transport: Literal["auto", "litellm"]
    max_failed_share: float = Field(ge=0, le=1)
    endpoint_cooldown_s: float = Field(ge=0)
    max_cost_usd: float | None = Field(ge=0)
    batch_poll_s: float = Field(gt=0)
    batch_max_requests: int | None = Field(ge=1)
    batch_max_in_flight: int = Field(ge=1)
    ledger_compression: Compression

    @model_validator(mode="after")
    def _cap_covers_base(self) -> GatewaySettings:
        if self.backoff_max_s < self.backoff_base_s:
            raise ValueError("backoff_max_s must be at least backoff_base_s")
        return self

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> GatewaySettings:
        """The ``llm`` section of the composed params.

        Raises:
            ParamsError: one line per missing, unknown or invalid key.
        """
        return load_settings(cls, params, "llm")


def max_failed_share(params: Mapping[str, Any]) -> float:
    """``llm.max_failed_share`` alone, for stages that record it without calling models.

    Raises:
        ParamsError: missing, or not a share between 0 and 1.
    """
    value = section(params, "llm.max_failed_share")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ParamsError(
            f"llm.max_failed_share must be a share between 0 and 1 (got {value!r}); "
            "fix it in conf/config.yaml or with -S 'llm.max_failed_share=...'"
        )
    return float(value)
