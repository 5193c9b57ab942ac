"""The model-written parts of the samples (OpenForecast, COLING 2025, section 4.3).

- ``argument`` (AQA, MCAC): a question about one argument of the target event (who,
  what, when, where, which) and its answer, taken from the event.
- ``distract_argument`` (MCAC): three wrong answers to that question.
- ``distract_event`` (MCNC, VQA): three events that could plausibly follow the
  background but did not; an alternative that restates a real event of the chain from
  T_k on is dropped (the paper drops about 7% this way).

Each step is one gateway batch. With ``distractor_fallback: chain`` (the demo: the
embedded model seldom writes three usable alternatives) missing alternatives come from
the same chain: earlier events for MCNC (they already happened, so they are not what
happens next), names and dates of the background for MCAC; each sample records
``distractor_source``. Without it a sample lacking alternatives is dropped and counted.
Nothing from other chains is used, so a chain's samples depend on that chain alone.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from prescient.benchmarks.openforecast.prompts import format_background, format_event, numbered
from prescient.benchmarks.openforecast.settings import SamplesSettings
from prescient.benchmarks.openforecast.tasks import AQA, MCAC, MCNC, VQA, Sample
from prescient.benchmarks.openforecast.text import jaccard, words
from prescient.llm.steps import StepBatches
from prescient.llm.types import Complete, LLMResult
from prescient.prompts import PromptTemplate
from prescient.seeds import derive_seed
from prescient.vocab import TF_CHOICES

logger = logging.getLogger(__name__)

N_DISTRACTORS = 3
"""A closed-form question has the answer and three wrong alternatives (paper 4.3)."""

STEPS: tuple[str, ...] = ("argument", "distract_event", "distract_argument")

ARGUMENT_HINTS: Mapping[str, str] = {
    "who": "Ask who will do it (a person, group or organisation). Begin with 'Who will'.",
    "what": "Ask what will happen or be done. Begin with 'What will'.",
    "when": "Ask when it will happen. Begin with 'When will'.",
    "where": "Ask where it will happen. Begin with 'Where will'.",
    "which": "Ask which one of several things it will concern. Begin with 'Which'.",
}

_LABEL = r"[*_#\s]*{}[*_\s]*:[*_\s]*"
_MARKER = re.compile(
    r"^\s*(?:[-*•]|\(?[A-Da-d1-9][.):]|(?:wrong|noisy|incorrect)?\s*(?:answer|option|event)"
    r"\s*[A-Da-d1-9]?\s*[.):]|[A-Da-d]\s*-)\s*",
    re.I,
)
_PROPER = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|the|de|van|von|and)?\s*[A-Z][\w'’-]*)*")
_STOP_STARTS = frozenset({"The", "A", "An", "In", "On", "At", "After", "Before", "It", "This"})


def parse_argument(text: str) -> tuple[str | None, str | None, str | None]:
    """``(question, answer, error)`` from a reply with ``Question:`` and ``Answer:``."""
    q = re.search(_LABEL.format("question") + r"(.+)", text, re.I)
    a = re.search(_LABEL.format("answer") + r"(.+)", text, re.I)
    if q is None or a is None:
        return None, None, "no 'Question:' and 'Answer:' lines"
    question = " ".join(q.group(1).strip(" *").split())
    answer = " ".join(a.group(1).strip(" *").split()).rstrip(".")
    if any("<" in s and ">" in s for s in (question, answer)):
        return None, None, "the reply repeats the template's <placeholder>"
    if "?" not in question:
        return None, None, "the question has no question mark"
    question = question[: question.index("?") + 1]
    if not answer or len(answer.split()) > 15:
        return None, None, "the answer is empty or longer than 15 words"
    return question, answer, None


def parse_options(text: str) -> list[str]:
    """Alternatives, one per line, list markers and labels removed, repeats dropped."""
    out: list[str] = []
    for line in text.splitlines():
        option = " ".join(_MARKER.sub("", line, count=1).strip(" *\"'").split())
        if option and option.lower() not in {o.lower() for o in out}:
            out.append(option)
    return out


def argument_pool(sample: Sample) -> list[str]:
    """Arguments of the background that can stand in as wrong MCAC answers: dates of
    earlier events for "when" questions, else capitalised names (a lone capitalised word
    opening a sentence is not taken for a name)."""
    if sample.argument_type == "when":
        found = [e.date.start.strftime("%d %B %Y").lstrip("0") for e in sample.background]
    else:
        found = [
            m.group(0)
            for e in sample.background
            for m in _PROPER.finditer(e.text)
            if m.group(0) not in _STOP_STARTS and (m.start() > 0 or " " in m.group(0))
        ]
    out: list[str] = []
    for f in found:
        if f not in out:
            out.append(f)
    return out


class SampleSteps(StepBatches):
    """Runs the model-written steps over the samples that need them."""

    def __init__(
        self,
        templates: Mapping[str, PromptTemplate],
        s: SamplesSettings,
        base_seed: int,
        complete: Complete,
    ) -> None:
        super().__init__(templates, s.models, s.generation, complete, "of_samples", STEPS)
        self.s = s
        self.seed = base_seed

    def _values(self, x: Sample) -> dict[str, str]:
        return {
            "background": format_background(x.background),
            "event": x.target.text,
            "date": x.split_date.isoformat(),
        }

    def _run(
        self, step: str, samples: list[Sample], values: list[dict[str, str]]
    ) -> list[LLMResult]:
        tags = [{"sample_id": x.sample_id, "chain_id": x.chain.chain_id} for x in samples]
        results = self.run(
            step, [self.request(step, v, t) for v, t in zip(values, tags, strict=True)]
        )
        for x, r in zip(samples, results, strict=True):
            x.llm_keys.append(r.key)
        return results

    def argument(self, samples: Sequence[Sample]) -> None:
        """Question and answer of every AQA and MCAC sample."""
        todo = [x for x in samples if x.ok and x.task in (AQA, MCAC)]
        values = [
            {
                **self._values(x),
                "argument": str(x.argument_type),
                "argument_hint": ARGUMENT_HINTS[str(x.argument_type)],
            }
            for x in todo
        ]
        for x, res in zip(todo, self._run("argument", todo, values), strict=True):
            if not res.ok:
                _drop(x, "llm_error", f"argument: {res.error}")
                continue
            question, answer, error = parse_argument(res.text or "")
            if error:
                _drop(x, "parse_error", f"argument: {error}", res.text)
            else:
                x.question, x.answer = question, answer

    def distract_argument(self, samples: Sequence[Sample]) -> None:
        """Three wrong answers of every MCAC sample."""
        todo = [x for x in samples if x.ok and x.task == MCAC]
        values = [
            {
                **self._values(x),
                "question": str(x.question),
                "answer": str(x.answer),
                "argument": str(x.argument_type),
            }
            for x in todo
        ]
        for x, res in zip(todo, self._run("distract_argument", todo, values), strict=True):
            if not res.ok:
                _drop(x, "llm_error", f"distract_argument: {res.error}")
                continue
            answer = str(x.answer)
            kept = [
                o
                for o in _options(res)
                if jaccard(o, answer) < self.s.distractor_similarity
                and o.lower() not in answer.lower()
                and answer.lower() not in o.lower()
            ]
            self._complete_distractors(x, kept, argument_pool(x), res.text)

    def distract_event(self, samples: Sequence[Sample]) -> None:
        """Three events that did not happen, for every MCNC and VQA sample."""
        todo = [x for x in samples if x.ok and x.task in (MCNC, VQA)]
        values = [
            {
                **self._values(x),
                "later_events": numbered(
                    [format_event(e) for e in x.chain.targets(x.split_date) if e != x.target][:5],
                    empty="(none)",
                ),
            }
            for x in todo
        ]
        for x, res in zip(todo, self._run("distract_event", todo, values), strict=True):
            if not res.ok:
                _drop(x, "llm_error", f"distract_event: {res.error}")
                continue
            real = [e.text for e in x.chain.targets(x.split_date)]
            kept = [o for o in _options(res) if not self._restates(o, real)]
            pool = [e.text for e in reversed(x.background) if not self._restates(e.text, real)]
            self._complete_distractors(x, kept, pool, res.text)

    def _restates(self, option: str, events: Sequence[str]) -> bool:
        return any(jaccard(option, e) >= self.s.distractor_similarity for e in events)

    def _complete_distractors(
        self, x: Sample, kept: list[str], pool: list[str], raw: str | None
    ) -> None:
        distinct: list[str] = []
        for o in kept:
            if all(jaccard(o, d) < self.s.distractor_similarity for d in distinct):
                distinct.append(o)
        x.distractors = distinct[:N_DISTRACTORS]
        x.distractor_source = "llm"
        missing = N_DISTRACTORS - len(x.distractors)  # VQA draws its candidate from three too
        if missing and self.s.distractor_fallback == "chain":
            rng = np.random.default_rng(
                derive_seed(self.seed, "of", x.chain.chain_id, "fallback", x.sample_id)
            )
            taken = [x.answer or x.target.text, *x.distractors]
            free = [
                p
                for p in pool
                if all(jaccard(p, d) < self.s.distractor_similarity for d in taken)
                and not any(words(p) <= words(d) for d in taken)
            ]
            order = rng.permutation(len(free)).tolist() if free else []
            x.distractors += [free[i] for i in order[:missing]]
            x.distractor_source = "chain" if not distinct else "llm+chain"
        needed = 1 if x.task == VQA else N_DISTRACTORS  # a VQA candidate needs one
        if len(x.distractors) < needed:
            _drop(
                x,
                "too_few_distractors",
                f"{len(x.distractors)} usable wrong alternatives of {needed}",
                raw,
            )

    def finish(self, samples: Sequence[Sample]) -> None:
        """Shuffle the closed forms' options (seeded by chain and sample)."""
        for x in samples:
            if not x.ok or x.task not in (MCNC, MCAC, VQA):
                continue
            seed = derive_seed(self.seed, "of", x.chain.chain_id, "choices", x.sample_id)
            truth = x.answer if x.task == MCAC else x.target.text
            if x.task == VQA:
                # The candidate event (in ``question``): the true event for half the
                # samples (a seeded coin per sample), else one wrong alternative.
                if seed % 2 == 0:
                    x.question, x.answer = truth, TF_CHOICES[0]
                else:
                    x.question = x.distractors[(seed >> 1) % len(x.distractors)]
                    x.answer = TF_CHOICES[1]
                x.choices = list(TF_CHOICES)
                x.answer_index = x.choices.index(x.answer)
                continue
            items = [str(truth), *x.distractors[:N_DISTRACTORS]]
            order = sorted(
                range(len(items)),
                key=lambda i: derive_seed(
                    self.seed, "of", x.chain.chain_id, "choice", x.sample_id, i
                ),
            )
            x.choices = [items[i] for i in order]
            x.answer_index = order.index(0)
            if x.task == MCNC:
                x.answer = str(truth)


def _options(res: LLMResult) -> list[str]:
    """The options of a reply; the last one of a reply cut at its token limit is a
    fragment and goes."""
    options = parse_options(res.text or "")
    return options[:-1] if res.finish_reason == "length" else options


def _drop(x: Sample, status: str, reason: str, raw: str | None = None) -> None:
    x.status, x.reason, x.raw = status, reason, raw


def run_steps(
    samples: Sequence[Sample],
    templates: Mapping[str, PromptTemplate],
    s: SamplesSettings,
    base_seed: int,
    complete: Complete,
) -> dict[str, Any]:
    """All model-written parts, in order; returns per-step call counts."""
    steps = SampleSteps(templates, s, base_seed, complete)
    steps.argument(samples)
    steps.distract_argument(samples)
    steps.distract_event(samples)
    steps.finish(samples)
    return {step: dict(c) for step, c in steps.calls.items()}
