"""The ``bpc`` params section, typed (every value lives in conf/bpc/default.yaml)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from prescient.llm.llama_ray import LlamaRay
from prescient.llm.logprobs import Segmenting, SegmentingRule, SegmentStart
from prescient.settings import Day, Settings, WindowEnd


class ReleaseSettings(Settings):
    """Change in BPC after a model's release (FreshBench, section 3.2.1).

    Attributes:
        base_months: the base BPC is the mean over documents dated in the months before
            the release date (FreshBench: six).
        after_months: points after the release, in months; each is the bucket that holds
            the day ``release_date + k months`` (FreshBench: 3, 6, 9 and 12).
    """

    base_months: Annotated[int, Field(ge=1)]
    after_months: list[Annotated[int, Field(ge=1)]]


class BootstrapSettings(Settings):
    """Percentile bootstrap over documents (resampled within each bucket).

    Attributes:
        reps: replicates; 0 turns intervals off.
        confidence: two-sided level of the intervals.
    """

    reps: Annotated[int, Field(ge=0)]
    confidence: Annotated[float, Field(gt=0.0, lt=1.0)]


class LocalSettings(Settings):
    """The in-process llama.cpp scorer.

    Attributes:
        condition_token: special token the first text token is predicted from (the
            document separator the model saw in pre-training), so every token of the text
            is scored; null excludes the first token and its characters instead.
        n_ubatch: tokens llama.cpp evaluates per micro-batch: speed only (the logits are
            identical for every value from 2 up), so it is not part of the ledger key.
            1 is refused: llama.cpp computes one-token batches with other kernels.
    """

    condition_token: str | None
    n_ubatch: Annotated[int, Field(ge=2)]


class BpcSettings(Settings):
    """Params section ``bpc`` (see conf/bpc/default.yaml for each value and the paper's)."""

    models: list[str]
    bucket_months: Annotated[int, Field(ge=1)]
    docs_per_bucket: Annotated[int, Field(ge=1)]
    context_tokens: Annotated[int, Field(ge=2)]
    segmenting: SegmentingRule
    stride_tokens: Annotated[int, Field(ge=1)] | None
    segment_start: SegmentStart
    max_text_chars: Annotated[int, Field(ge=1)] | None
    min_chars: Annotated[int, Field(ge=0)]
    source_domains: list[str] | None
    date_start: Day | None
    date_end: WindowEnd
    release: ReleaseSettings
    bootstrap: BootstrapSettings
    local: LocalSettings
    engine: Literal["local", "ray"]
    ray: LlamaRay

    @model_validator(mode="after")
    def _stride_fits(self) -> BpcSettings:
        self.windows()  # raises ValueError on a stride the context cannot hold
        return self

    def windows(self) -> Segmenting:
        """The segments of context every scorer reads a text in."""
        return Segmenting(
            self.context_tokens, self.segmenting, self.stride_tokens, self.segment_start
        )

    def scored_text(self, text: str) -> str:
        """What of a document is scored: all of it, or its first ``max_text_chars``."""
        return text if self.max_text_chars is None else text[: self.max_text_chars]

    @field_validator("bucket_months")
    @classmethod
    def _divides_year(cls, value: int) -> int:
        if 12 % value:
            raise ValueError("must divide 12 (1, 2, 3, 4, 6 or 12) so buckets start each January")
        return value

    @field_validator("models")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("lists a model twice")
        return value
