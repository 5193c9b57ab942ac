"""The six OpenForecast tasks, drawn from chains without a model (COLING 2025, sections 3
and 4.3).

A split date T_k divides a chain into the background X (events that ended before T_k)
and the targets Y (events from T_k on). T_k is always a day on which the chain has a
day-precise event; an event dated more coarsely whose period contains T_k ("May 2023"
for T_k = 2023-05-10) belongs to neither side, so every background event ends before
T_k and every target starts on or after it.

- STF: the events dated T_k; T_k needs ``stf_min_background`` earlier events (paper: 2);
  up to ``per_chain.stf`` split dates per chain (paper: 2).
- LTF: every event from T_k on, for chains of at least ``ltf_min_events`` events, with
  T_k late in the chain (the background share of events in ``ltf_background_share``);
  the split falls between two days, so one day's events never land on both sides.
- AQA, MCAC: one event dated T_k and an argument type (who, what, when, where, which);
  a model writes the question (stage ``of_samples``, :mod:`generation`).
- MCNC, VQA: one event dated T_k; a model writes three wrong alternatives.

Every draw is seeded with ``derive_seed(base.seed, "of", chain_id, task, ...)``, so a
chain's samples never depend on other chains; ``max_samples`` then keeps a seeded subset
(a sample is in or out by its own id's rank).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from prescient.benchmarks.openforecast.chains import DAY, EventDate, stable_id
from prescient.benchmarks.openforecast.settings import SamplesSettings, SplitSettings
from prescient.dates import as_date
from prescient.seeds import derive_seed

STF, LTF, AQA, MCNC, MCAC, VQA = "stf", "ltf", "aqa", "mcnc", "mcac", "vqa"
OPEN_TASKS: tuple[str, ...] = (STF, LTF, AQA)
"""Open-ended tasks: free-text predictions, evaluated by LRAE."""
CLOSED_TASKS: tuple[str, ...] = (MCNC, MCAC, VQA)
"""Closed-ended tasks: evaluated as questions by retrieve / evaluate / score."""
TASKS: tuple[str, ...] = (*OPEN_TASKS, *CLOSED_TASKS)

TRAIN, DEV, TEST, LATER = "train", "dev", "test", "later"
SPLITS: tuple[str, ...] = (TRAIN, DEV, TEST, LATER)
"""Splits by T_k; ``later`` holds split dates after the test window."""


@dataclass(frozen=True)
class Event:
    """An atomic event of a chain."""

    event_id: str
    seq: int
    date: EventDate
    text: str
    source_article_ids: tuple[str, ...]


@dataclass(frozen=True)
class Chain:
    """A chain, events in ``seq`` order."""

    chain_id: str
    title: str
    category: str | None
    events: tuple[Event, ...]

    def background(self, t_k: dt.date) -> tuple[Event, ...]:
        """Events that ended before T_k."""
        return tuple(e for e in self.events if e.date.end < t_k)

    def targets(self, t_k: dt.date) -> tuple[Event, ...]:
        """Events that start on or after T_k."""
        return tuple(e for e in self.events if e.date.start >= t_k)

    def on(self, t_k: dt.date) -> tuple[Event, ...]:
        """Day-precise events dated T_k."""
        return tuple(e for e in self.events if e.date.precision == DAY and e.date.start == t_k)

    @property
    def end(self) -> dt.date:
        """The last day the chain covers."""
        return max(e.date.end for e in self.events)


def chains_from_frame(chains: pd.DataFrame) -> list[Chain]:
    """Chains of the chains table, in chain id order."""
    out = []
    for cid, group in chains.sort_values(["chain_id", "seq"]).groupby("chain_id", sort=True):
        records: list[dict[Any, Any]] = group.to_dict("records")
        category = records[0]["category"]
        events = tuple(
            Event(
                event_id=str(r["event_id"]),
                seq=int(r["seq"]),
                date=EventDate(as_date(r["date"]), str(r["date_precision"])),
                text=str(r["text"]),
                source_article_ids=tuple(str(a) for a in r["source_article_ids"]),
            )
            for r in records
        )
        out.append(
            Chain(
                chain_id=str(cid),
                title=str(records[0]["chain_title"]),
                category=None if pd.isna(category) else str(category),
                events=events,
            )
        )
    return out


def split_of(t_k: dt.date, s: SplitSettings) -> str:
    """The split of a sample by its split date (paper appendix A.2: train before
    2023-07-01, dev July-August 2023, test 2023-09-01 .. 2024-03-31)."""
    if t_k <= s.train_end:
        return TRAIN
    if s.dev_start <= t_k <= s.dev_end:
        return DEV
    if s.test_start <= t_k <= s.test_end:
        return TEST
    if t_k > s.test_end:
        return LATER
    return DEV if t_k < s.test_start else TEST  # gaps between windows go to the next one


def day_splits(chain: Chain, min_background: int) -> list[dt.date]:
    """Split dates with a day-precise event and at least ``min_background`` earlier events."""
    days = sorted({e.date.start for e in chain.events if e.date.precision == DAY})
    return [d for d in days if len(chain.background(d)) >= min_background]


def ltf_splits(chain: Chain, s: SamplesSettings) -> list[dt.date]:
    """LTF split dates, late in the chain.

    Candidates have at least ``ltf_min_background`` background events and
    ``ltf_min_targets`` targets; those whose background share of all events lies in
    ``ltf_background_share`` are returned, else the candidates closest to that range.
    """
    n = len(chain.events)
    if n < s.ltf_min_events:
        return []
    low, high = s.ltf_background_share
    scored = []
    for d in day_splits(chain, s.ltf_min_background):
        if len(chain.targets(d)) < s.ltf_min_targets:
            continue
        share = len(chain.background(d)) / n
        scored.append((max(low - share, share - high, 0.0), d))
    if not scored:
        return []
    best = min(dist for dist, _ in scored)
    return [d for dist, d in scored if dist == best]


@dataclass
class Sample:
    """One sample of one task, before and after the model-written parts.

    Attributes:
        sample_id: ``of-<task>-<hash of chain, split date and target>``.
        task: one of :data:`TASKS`.
        chain: the chain.
        split_date: T_k.
        split: :func:`split_of` T_k.
        background: X, oldest first (at most ``max_background``, the latest kept).
        targets: the gold events (STF: those dated T_k; LTF: all from T_k on; the others:
            the one target event).
        argument_type: AQA and MCAC.
        question, answer: AQA and MCAC (model-written), else None.
        distractors: MCNC, MCAC, VQA: the wrong alternatives.
        distractor_source: ``llm``, ``llm+chain`` or ``chain``.
        choices, answer_index: the closed forms' options and the right one.
        status: ``ok`` or why the sample was dropped; reason and raw reply for audit.
    """

    sample_id: str
    task: str
    chain: Chain
    split_date: dt.date
    split: str
    background: tuple[Event, ...]
    targets: tuple[Event, ...]
    argument_type: str | None = None
    question: str | None = None
    answer: str | None = None
    distractors: list[str] = field(default_factory=list)
    distractor_source: str | None = None
    choices: list[str] | None = None
    answer_index: int | None = None
    status: str = "ok"
    reason: str | None = None
    raw: str | None = None
    llm_keys: list[str] = field(default_factory=list)

    @property
    def target(self) -> Event:
        """The target event of AQA, MCNC, MCAC and VQA (the first target otherwise)."""
        return self.targets[0]

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _pick(rng: np.random.Generator, items: Sequence[Any], k: int) -> list[Any]:
    """``k`` items (or all), drawn without replacement, in their original order."""
    if k <= 0 or not items:
        return []
    idx = sorted(rng.choice(len(items), size=min(k, len(items)), replace=False).tolist())
    return [items[i] for i in idx]


def _sample(
    task: str,
    chain: Chain,
    t_k: dt.date,
    targets: Sequence[Event],
    s: SamplesSettings,
    split: SplitSettings,
    argument_type: str | None = None,
) -> Sample:
    background = chain.background(t_k)
    if s.max_background is not None:
        background = background[-s.max_background :] if s.max_background else ()
    key = stable_id("of", task, chain.chain_id, t_k, *(e.event_id for e in targets))
    return Sample(
        sample_id=f"of-{task}-{key}",
        task=task,
        chain=chain,
        split_date=t_k,
        split=split_of(t_k, split),
        background=background,
        targets=tuple(targets),
        argument_type=argument_type,
    )


def chain_samples(
    chain: Chain, s: SamplesSettings, split: SplitSettings, base_seed: int
) -> list[Sample]:
    """Every task's samples of one chain (before model-written parts and caps).

    Split dates outside ``s.splits`` are never drawn, so a test-only run spends nothing
    on training samples.
    """

    def allowed(days: Iterable[dt.date]) -> list[dt.date]:
        return [d for d in days if split_of(d, split) in s.splits]

    def rng(*parts: object) -> np.random.Generator:
        return np.random.default_rng(derive_seed(base_seed, "of", chain.chain_id, *parts))

    out: list[Sample] = []
    days = allowed(day_splits(chain, s.stf_min_background))
    for t_k in _pick(rng(STF), days, s.per_chain.stf):
        out.append(_sample(STF, chain, t_k, chain.on(t_k), s, split))
    for t_k in _pick(rng(LTF), allowed(ltf_splits(chain, s)), s.per_chain.ltf):
        targets = chain.targets(t_k)
        if s.ltf_max_targets is not None:
            targets = targets[: s.ltf_max_targets]
        out.append(_sample(LTF, chain, t_k, targets, s, split))
    for task in (AQA, MCNC, MCAC, VQA):
        r = rng(task)
        for t_k in _pick(r, days, getattr(s.per_chain, task)):
            (target,) = _pick(r, chain.on(t_k), 1)
            arg = None
            if task in (AQA, MCAC):
                arg = str(s.argument_types[int(r.integers(len(s.argument_types)))])
            out.append(_sample(task, chain, t_k, [target], s, split, arg))
    return out


def cap_samples(
    samples: Sequence[Sample], caps: dict[str, int | None], base_seed: int
) -> list[Sample]:
    """At most ``caps[task]`` samples per task: the lowest ranks of
    ``derive_seed(base, "of", "cap", sample_id)``, so adding chains can only push a sample
    out by outranking it, never change it."""
    out: list[Sample] = []
    for task in TASKS:
        mine = [x for x in samples if x.task == task]
        cap = caps.get(task)
        if cap is not None and len(mine) > cap:
            ranked = sorted(mine, key=lambda x: derive_seed(base_seed, "of", "cap", x.sample_id))
            keep = {x.sample_id for x in ranked[:cap]}
            mine = [x for x in mine if x.sample_id in keep]
        out.extend(mine)
    return out


def draw_samples(
    chains: Sequence[Chain], s: SamplesSettings, split: SplitSettings, base_seed: int
) -> list[Sample]:
    """Samples of every chain and task, capped, in (task, chain, split date) order."""
    every = [x for c in chains for x in chain_samples(c, s, split, base_seed)]
    capped = cap_samples(every, s.max_samples.model_dump(), base_seed)
    order = {t: i for i, t in enumerate(TASKS)}
    return sorted(
        capped, key=lambda x: (order[x.task], x.chain.chain_id, x.split_date, x.sample_id)
    )
