"""A reply cut into atomic predictions, each carrying what the judge made of it
(OpenForecast, COLING 2025, section 5, steps 1 and 2).

STF and LTF replies are split (:mod:`.split`) with near-duplicates marked and not
judged; an AQA reply is its one answer. The :class:`Atom` is what the judge's stages
(:mod:`.run`) fill in and what the tables (:mod:`.tables`) read, so it lives apart from
both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from prescient.benchmarks.openforecast.lrae.split import split_predictions
from prescient.benchmarks.openforecast.metrics import DUPLICATE, TRUNCATED
from prescient.benchmarks.openforecast.settings import LraeSettings
from prescient.benchmarks.openforecast.tasks import AQA
from prescient.benchmarks.openforecast.text import near_duplicates

_ANSWER = re.compile(r"answer\s*[:：]\s*(.+)", re.I)


def aqa_answer(text: str | None) -> str:
    """The answer of an AQA reply: after the last "Answer:", else the whole reply."""
    if not text:
        return ""
    found = _ANSWER.findall(text)
    answer = found[-1] if found else text
    return " ".join(answer.split())[:300]


@dataclass
class Atom:
    """One atomic prediction and what the judge made of it."""

    sample: Mapping[str, Any]
    model: str
    item: int
    text: str
    duplicate_of: int | None = None
    verdict: str | None = None
    label: int | None = None
    note: str | None = None
    judge_key: str | None = None
    judge_response: str | None = None
    evidence_ids: list[str] = field(default_factory=list)
    evidence_dates: list[str] = field(default_factory=list)
    evidence_key: str | None = None
    evidence_response: str | None = None

    @property
    def task(self) -> str:
        return str(self.sample["task"])

    @property
    def labels(self) -> list[str]:
        return [str(t) for t in self.sample["targets"]]


def atomize(
    sample: Mapping[str, Any], model: str, response: str, cut: bool, s: LraeSettings
) -> list[Atom]:
    """Atomic predictions of a reply; ``cut``: the reply hit its token limit, so its last
    item is incomplete and not judged."""
    if sample["task"] == AQA:
        answer = aqa_answer(response)
        return [Atom(sample, model, 0, answer)] if answer else []
    items = split_predictions(response)
    dup = near_duplicates(items, s.dedupe_similarity)
    atoms = [Atom(sample, model, i, t, d) for i, (t, d) in enumerate(zip(items, dup, strict=True))]
    for a in atoms:
        if a.duplicate_of is not None:
            a.verdict, a.note = DUPLICATE, f"near-duplicate of item {a.duplicate_of}"
    if cut and atoms:
        atoms[-1].verdict, atoms[-1].note = TRUNCATED, "the reply was cut at its token limit"
    return atoms
