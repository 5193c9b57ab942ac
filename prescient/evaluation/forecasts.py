"""From a reply to a forecast: the probability of every answer, for each elicitation.

Every scored row carries ``probs``, a forecast over the question's answers in prompt
order (true/false: P(Yes), P(No); multiple choice: one per option), whatever way it was
asked for (:data:`~prescient.evaluation.settings.ELICITATIONS`):

- ``label``: the answer read as the papers read it
  (:func:`~prescient.evaluation.parsing.parse_answer`), as a
  forecast that puts all its probability on that answer (``prob_source = "label"``).
- ``verbal_probability``: the stated probabilities
  (:func:`~prescient.evaluation.probability.parse_probability`,
  ``"stated"``; what was clamped, normalised or filled is in ``prob_adjusted``).
- ``scratchpad``: the stated probabilities after the reply's last ``Final forecast:``
  line, the reasoning before it unread
  (:func:`~prescient.evaluation.probability.parse_final_probability`, ``"stated"``).
- ``token_logprobs``: the probabilities the model gave the allowed answers, renormalised
  over them (:meth:`prescient.llm.answer_logprobs.AnswerLogprobs.distribution`,
  ``"tokens"``). How the transport read them differs (the whole answer sequence
  in-process, the top tokens of one position through a chat server: the methods of
  :mod:`prescient.llm.answer_logprobs`), so the row's ``parse_rule`` names the reply's
  method (:func:`token_rule`: ``tokens:sequence``, ``tokens:top_logprobs``, ...).
- ``crowd``: an imported question set's crowd or market probability (:func:`crowd_rows`).

A reply from which no forecast can be read (a refusal, a parse failure, a reply without
log-probabilities of the answers) is scored as the uninformed forecast, uniform over the
answers (``"uniform_fill"``): the probabilistic counterpart of counting it wrong, as the
papers count unparsed labels. It is never left out, so every elicitation is scored on
the same questions; how many were filled is reported beside the scores.

Scores per row (:func:`row_score_values`): every item score
:mod:`prescient.proper_metrics` declares, by the declaration's own rule: the Brier score,
binary ``(P(Yes) - y)^2`` for true/false questions and summed over the options for
multiple choice, and the log score ``-ln p(true answer)`` with the probability clipped at
:data:`prescient.proper_scores.LOG_CLIP`, so that one certain wrong answer costs a finite
13.8 nats. Each is rounded to 12 decimals: the same bytes on every machine.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prescient.evaluation.parsing import parse_answer
from prescient.evaluation.probability import (
    final_forecast,
    parse_final_probability,
    parse_probability,
    stated_choice,
)
from prescient.evaluation.settings import LABEL, SCRATCHPAD, TOKENS, VERBAL
from prescient.llm.answer_logprobs import AnswerLogprobs, AnswerLogprobsError
from prescient.proper_metrics import ItemScore, item_scores
from prescient.vocab import TF

LABEL_SOURCE = "label"
STATED = "stated"
TOKEN_SOURCE = "tokens"
UNIFORM_FILL = "uniform_fill"
CROWD = "crowd"
"""``prob_source`` values, and the model name of crowd rows."""
PROB_SOURCES = (LABEL_SOURCE, STATED, TOKEN_SOURCE, UNIFORM_FILL, CROWD)
NO_ANSWER_LOGPROBS = "no_answer_logprobs"
"""The ``parse_rule`` of a ``token_logprobs`` reply that holds no usable probability."""
DIGITS = 12
TOKEN_RULE_PREFIX = f"{TOKEN_SOURCE}:"
"""The ``parse_rule`` of a read ``token_logprobs`` reply: this, then the reply's method."""


def token_rule(method: str) -> str:
    """The ``parse_rule`` of a ``token_logprobs`` reply read by ``method``."""
    return f"{TOKEN_RULE_PREFIX}{method}"


def token_method(rule: object) -> str | None:
    """The method a ``parse_rule`` of :func:`token_rule` names (None: not such a rule)."""
    if isinstance(rule, str) and rule.startswith(TOKEN_RULE_PREFIX):
        return rule[len(TOKEN_RULE_PREFIX) :]
    return None


@dataclass(frozen=True)
class Forecast:
    """A reply read as a forecast.

    Attributes:
        probs: over the answers in prompt order, summing to 1.
        index: the label answer (the most probable; on a tie, the one the reply names,
            else the first: :func:`most_probable`), or None when nothing was read.
        refused, parse_failed, rule: as the label parser reports them.
        source: ``prob_source`` (module doc).
        adjusted: what was done to stated values (``clamped``, ``normalized``,
            ``filled``, comma-separated), or None.
    """

    probs: tuple[float, ...]
    index: int | None
    refused: bool
    parse_failed: bool
    rule: str
    source: str
    adjusted: str | None = None


def uniform(n: int) -> tuple[float, ...]:
    """The uninformed forecast over ``n`` answers."""
    return tuple(1.0 / n for _ in range(n))


def one_hot(index: int, n: int) -> tuple[float, ...]:
    """All probability on answer ``index``."""
    return tuple(1.0 if i == index else 0.0 for i in range(n))


def most_probable(probs: Sequence[float], choice: int | None = None) -> int:
    """The label of a forecast: the most probable answer. On a tie, the reply's own
    ``choice`` when it is among the most probable (a stated ``Answer:`` line, a token
    reply's ``pick``), else the first of them."""
    top = max(probs)
    if choice is not None and 0 <= choice < len(probs) and probs[choice] == top:
        return choice
    return max(range(len(probs)), key=lambda i: (probs[i], -i))


def _rounded(probs: Sequence[float]) -> tuple[float, ...]:
    return tuple(round(float(p), DIGITS) for p in probs)


def read_forecast(
    elicitation: str, text: str | None, qtype: str, choices: Sequence[str]
) -> Forecast:
    """The forecast of one reply (module doc).

    Args:
        elicitation: how it was asked for.
        text: the raw reply (None: no text).
        qtype: ``tf`` or ``mc``.
        choices: the options in prompt order (``["Yes", "No"]`` for TF).

    Raises:
        ValueError: an unknown elicitation.
    """
    n = 2 if qtype == TF else len(choices)
    if elicitation == LABEL:
        a = parse_answer(text, qtype, list(choices))
        if a.index is None:
            return Forecast(uniform(n), None, a.refused, a.parse_failed, a.rule, UNIFORM_FILL)
        return Forecast(one_hot(a.index, n), a.index, False, False, a.rule, LABEL_SOURCE)
    if elicitation in (VERBAL, SCRATCHPAD):
        read = parse_probability if elicitation == VERBAL else parse_final_probability
        p = read(text, qtype, list(choices))
        if p.probs is None:
            return Forecast(uniform(n), None, p.refused, p.parse_failed, p.rule, UNIFORM_FILL)
        flags = [f for f in ("clamped", "normalized", "filled") if getattr(p, f)]
        probs = _rounded(p.probs)
        named = text if elicitation == VERBAL else final_forecast(text)
        label = most_probable(probs, stated_choice(named, qtype, n))
        return Forecast(probs, label, False, False, p.rule, STATED, ",".join(flags) or None)
    if elicitation == TOKENS:
        try:
            got = AnswerLogprobs.from_json(text or "")
            dist = got.distribution()
        except AnswerLogprobsError:
            dist = []
        if len(dist) != n:
            return Forecast(uniform(n), None, False, True, NO_ANSWER_LOGPROBS, UNIFORM_FILL)
        probs = _rounded(dist)
        pick = got.detail.get("pick")
        choice = got.answers.index(pick) if pick in got.answers else None
        label = most_probable(probs, choice)
        return Forecast(probs, label, False, False, token_rule(got.method), TOKEN_SOURCE)
    raise ValueError(f"unknown elicitation {elicitation!r}")


def row_score_values(probs: Sequence[float], answer_index: int, qtype: str) -> dict[str, float]:
    """Every declared item score of one forecast, by name (module doc)."""
    scores = item_scores()
    forecast = tuple(float(p) for p in probs)
    values = _row_values(forecast, int(answer_index), qtype != TF, scores)
    return dict(zip((s.name for s in scores), values, strict=True))


@functools.lru_cache(maxsize=1 << 16)
def _row_values(
    probs: tuple[float, ...], answer: int, mc: bool, scores: tuple[ItemScore, ...]
) -> tuple[float, ...]:
    """The scores of one forecast, remembered: a scores table repeats few forecasts (a
    label's one-hot, the uniform fill), and each is a function of these arguments."""
    m = np.asarray([probs], dtype=float)
    y = np.asarray([answer], dtype=np.int64)
    return tuple(round(float(s.rule(m, y, mc)[0]), DIGITS) for s in scores)


def row_scores(probs: Sequence[float], answer_index: int, qtype: str) -> tuple[float, ...]:
    """The declared item scores of one forecast in order: ``(brier, log_score)``."""
    return _row_values(
        tuple(float(p) for p in probs), int(answer_index), qtype != TF, item_scores()
    )


def crowd_probs(value: object, qtype: str, n: int) -> tuple[float, ...] | None:
    """An evaluated question's ``crowd_prob`` as a forecast over its answers, or None
    when it has none (the column holds the forecast over the answers already, checked
    when the question was read)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        values = [float(v) for v in value]  # type: ignore[attr-defined]
    except TypeError:
        return None
    if len(values) != (2 if qtype == TF else n):
        return None
    return _rounded(values)
