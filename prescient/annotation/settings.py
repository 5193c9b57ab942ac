"""Typed settings of the human evaluation (params section ``annotation``).

Each stage reads, and dvc.yaml lists, only its own keys of the section: the sample stage
``annotation.annotators``, ``annotation.accept_threshold`` and ``annotation.sample``; the
agreement stage ``annotation.accept_threshold`` and ``annotation.agreement``. Every value
lives in conf/annotation/default.yaml; the models state types and ranges only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, Field, field_validator

from prescient.annotation.ratings import check_annotator_name
from prescient.annotation.stats import AlphaLevel, Rounding
from prescient.settings import Bootstrap, ParamsError, Settings, section, validate
from prescient.vocab import MAX_TOTAL, MC, TF

AnnotatorName = Annotated[str, AfterValidator(check_annotator_name)]
Threshold = Annotated[int, Field(ge=0, le=MAX_TOTAL)]


class SampleSettings(Settings):
    """``annotation.sample``: how many questions to draw and how.

    Attributes:
        n_tf, n_mc: requested sample size per question type (paper: 30 and 30).
        accepted_share: share of each type's sample drawn from questions the filter
            accepted (the rest from rejected ones); None draws uniformly from all scored
            candidates, in the filter's own proportions.
        shuffle_per_annotator: give each annotator the items in their own seeded order.
    """

    n_tf: Annotated[int, Field(ge=0)]
    n_mc: Annotated[int, Field(ge=0)]
    accepted_share: Annotated[float, Field(ge=0, le=1)] | None
    shuffle_per_annotator: bool

    @property
    def n_per_qtype(self) -> dict[str, int]:
        return {TF: self.n_tf, MC: self.n_mc}


class AgreementBootstrap(Bootstrap):
    """The intervals of kappa and of the LLM filter's accuracy: always drawn."""

    reps: Annotated[int, Field(ge=1)]


class AgreementSettings(Settings):
    """``annotation.agreement``: consensus rule, alpha's level and the bootstrap."""

    consensus_rounding: Rounding
    consensus_min_raters: Annotated[int, Field(ge=1)]
    krippendorff_level: AlphaLevel
    bootstrap: AgreementBootstrap


class PacketSettings(Settings):
    """What stage ``annotation_sample`` reads of ``annotation``.

    Attributes:
        annotators: one packet per name (names become file names).
        accept_threshold: the filter's accept threshold (``vocab.accepted``), which splits
            the sample into filter-accepted and filter-rejected candidates.
        sample: the sample's size and strata.
    """

    annotators: Annotated[tuple[AnnotatorName, ...], Field(min_length=1)]
    accept_threshold: Threshold
    sample: SampleSettings

    @field_validator("annotators")
    @classmethod
    def _distinct(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        folded = [n.casefold() for n in names]
        if len(set(folded)) != len(folded):
            raise ValueError(f"duplicate annotator names (case-insensitive) in {list(names)}")
        return names


class TableSettings(Settings):
    """What stage ``agreement`` reads of ``annotation``: the accept rule compared in
    Table 4 and the agreement statistics' parameters."""

    accept_threshold: Threshold
    agreement: AgreementSettings


S = TypeVar("S", bound=Settings)


def load_annotation_settings(cls: type[S], params: Mapping[str, Any]) -> S:
    """The keys of params section ``annotation`` that ``cls`` declares, validated.

    Raises:
        ParamsError: a key is missing or invalid (named ``annotation.<key>...``).
    """
    annotation = section(params, "annotation")
    if not isinstance(annotation, Mapping):
        raise ParamsError("params: annotation must be a mapping; see conf/annotation/default.yaml")
    picked = {k: annotation[k] for k in cls.model_fields if k in annotation}
    return validate(cls, picked, "annotation")
