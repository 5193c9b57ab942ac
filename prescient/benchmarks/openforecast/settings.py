"""Typed settings of the OpenForecast stages (params sections ``chains`` and
``openforecast``); every value and default lives in conf/ (conf/chains/*.yaml and
conf/openforecast/default.yaml)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from prescient.llm.generation import Generation
from prescient.settings import Bootstrap, Day, Settings

SAMPLE_STEPS = ("argument", "distract_event", "distract_argument")
"""The model-written steps of stage ``of_samples``."""


def exact_keys(v: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``v`` when its keys are exactly ``keys``; otherwise a ValueError naming the difference."""
    missing, unknown = sorted(set(keys) - set(v)), sorted(set(v) - set(keys))
    if missing or unknown:
        raise ValueError(f"expected keys {list(keys)} (missing {missing}, unknown {unknown})")
    return v


# --- stage chains --------------------------------------------------------------------


class DemoChains(Settings):
    """``chains.demo``: the demo generator's timelines file."""

    path: str


class ImportColumns(Settings):
    """``chains.import.columns``: normalised field -> column of the file (null: absent).

    ``chain`` layout: one record per chain, ``events`` and ``dates`` are parallel lists
    (``source_urls`` optionally a parallel list of lists). ``event`` layout: one record
    per atomic event, ``text`` and ``date`` are scalars and ``chain_id`` or
    ``chain_title`` groups the rows into chains.
    """

    chain_id: str | None
    chain_title: str | None
    category: str | None
    events: str | None
    dates: str | None
    text: str | None
    date: str | None
    source_urls: str | None


class ImportChains(Settings):
    """``chains.import``: timelines from a JSON, JSON Lines or CSV file."""

    name: str = Field(min_length=1)
    path: str | None
    format: Literal["json", "jsonl", "csv"]
    layout: Literal["chain", "event"]
    columns: ImportColumns
    list_separator: str = Field(min_length=1)

    @model_validator(mode="after")
    def _layout_columns(self) -> ImportChains:
        c = self.columns
        need = ("events", "dates") if self.layout == "chain" else ("text", "date")
        missing = [k for k in need if getattr(c, k) is None]
        if c.chain_id is None and c.chain_title is None:
            missing.append("chain_id or chain_title")
        if missing:
            raise ValueError(f"layout {self.layout!r} needs columns {missing}")
        return self


class KeypointSettings(Settings):
    """``chains.cluster.keypoints``: the construction stage's summary step, reused.

    The values interpolate ``construct.*`` in conf, so a linked article's request is
    the very request construction makes for it (same ledger key).
    """

    model: str
    template: str
    generation: Generation
    article_max_chars: int | None
    dedupe_similarity: float = Field(gt=0, le=1)


class ClusterChains(Settings):
    """``chains.cluster``: stories linked from the ingested corpus (see linking.py)."""

    path: str
    window_days: int = Field(ge=1)
    threshold: float = Field(gt=0, le=1)
    name_threshold: float = Field(ge=0, le=1)
    min_coherence: float = Field(ge=0, le=1)
    min_dates: int = Field(ge=1)
    title_suffix_separators: list[str]
    title_suffix_min_count: int = Field(ge=2)
    max_features: int | None
    min_df: int = Field(ge=1)
    max_df: float = Field(gt=0, le=1)
    max_chains: int | None
    keypoints: KeypointSettings


class ChainsSettings(Settings):
    """Params section ``chains``."""

    source: Literal["demo", "cluster", "import"]
    path: str | None
    demo: DemoChains
    cluster: ClusterChains
    import_: ImportChains = Field(alias="import")

    @model_validator(mode="after")
    def _path_set(self) -> ChainsSettings:
        if not self.path:
            raise ValueError(
                f"chains.{self.source}.path is not set: name the file the "
                f"{self.source!r} source reads (-S chains.{self.source}.path=...)"
            )
        return self


# --- stage of_samples ------------------------------------------------------------------


class SplitSettings(Settings):
    """``openforecast.split``: train/dev/test by the split date T_k (paper appendix A.2),
    and whether each model is evaluated only on split dates after its knowledge cutoff."""

    relative_to_cutoff: bool
    train_end: Day
    dev_start: Day
    dev_end: Day
    test_start: Day
    test_end: Day

    @model_validator(mode="after")
    def _ordered(self) -> SplitSettings:
        if not (self.train_end < self.dev_start <= self.dev_end < self.test_start <= self.test_end):
            raise ValueError("expected train_end < dev_start <= dev_end < test_start <= test_end")
        return self


class TaskCounts(Settings):
    """Samples per chain, per task."""

    stf: int = Field(ge=0)
    ltf: int = Field(ge=0)
    aqa: int = Field(ge=0)
    mcnc: int = Field(ge=0)
    mcac: int = Field(ge=0)
    vqa: int = Field(ge=0)


class TaskCaps(Settings):
    """At most this many samples per task in all (null: no cap)."""

    stf: int | None
    ltf: int | None
    aqa: int | None
    mcnc: int | None
    mcac: int | None
    vqa: int | None


class SamplesSettings(Settings):
    """``openforecast.samples``: the six tasks' construction (stage ``of_samples``)."""

    splits: list[Literal["train", "dev", "test", "later"]] = Field(min_length=1)
    per_chain: TaskCounts
    max_samples: TaskCaps
    stf_min_background: int = Field(ge=1)
    ltf_min_events: int = Field(ge=2)
    ltf_min_background: int = Field(ge=1)
    ltf_min_targets: int = Field(ge=1)
    ltf_background_share: tuple[float, float]
    ltf_max_targets: int | None
    max_background: int | None
    argument_types: list[Literal["who", "what", "when", "where", "which"]] = Field(min_length=1)
    distractor_similarity: float = Field(gt=0, le=1)
    distractor_fallback: Literal["chain"] | None
    models: dict[str, str]
    templates: dict[str, str]
    generation: dict[str, Generation]

    @field_validator("models", "generation")
    @classmethod
    def _steps(cls, v: dict[str, Any]) -> dict[str, Any]:
        return exact_keys(v, SAMPLE_STEPS)

    @field_validator("templates")
    @classmethod
    def _roles(cls, v: dict[str, Any]) -> dict[str, Any]:
        return exact_keys(v, (*SAMPLE_STEPS, "question_mcnc", "question_mcac", "question_vqa"))

    @field_validator("ltf_background_share")
    @classmethod
    def _share(cls, v: tuple[float, float]) -> tuple[float, float]:
        if not 0 <= v[0] <= v[1] <= 1:
            raise ValueError("expected [low, high] with 0 <= low <= high <= 1")
        return v


# --- stage of_predict ------------------------------------------------------------------


class PredictSettings(Settings):
    """``openforecast.predict``: open-form predictions (STF, LTF, AQA)."""

    models: list[str] = Field(min_length=1)
    tasks: list[Literal["stf", "ltf", "aqa"]] = Field(min_length=1)
    templates: dict[str, str]
    generation: dict[str, Generation]

    @field_validator("templates", "generation")
    @classmethod
    def _tasks(cls, v: dict[str, Any]) -> dict[str, Any]:
        return exact_keys(v, ("stf", "ltf", "aqa"))


# --- stage lrae ------------------------------------------------------------------------


class EvidenceSettings(Settings):
    """``openforecast.lrae.evidence``: BM25 over paragraph chunks of later articles."""

    top_k: int = Field(ge=1)
    horizon_days: dict[str, int | Literal["chain_end"]]
    chunk_words: int = Field(ge=10)
    max_chunk_chars: int = Field(ge=50)
    k1: float = Field(gt=0)
    b: float = Field(ge=0, le=1)
    epsilon: float = Field(ge=0)

    @field_validator("horizon_days")
    @classmethod
    def _horizons(cls, v: dict[str, Any]) -> dict[str, Any]:
        exact_keys(v, ("stf", "ltf"))
        bad = [k for k, h in v.items() if isinstance(h, int) and h < 0]
        if bad:
            raise ValueError(f"horizons of {bad} are negative")
        return v


class LraeSettings(Settings):
    """``openforecast.lrae``: LRAE (paper section 5, appendix B.3)."""

    judge_model: str
    templates: dict[str, str]
    generation: Generation
    dedupe_similarity: float = Field(gt=0, le=1)
    repeat_match: Literal["ignore", "false_positive"]
    evidence: EvidenceSettings
    bootstrap: Bootstrap

    @field_validator("templates")
    @classmethod
    def _roles(cls, v: dict[str, Any]) -> dict[str, Any]:
        return exact_keys(v, ("match", "evidence", "aqa_judge"))
