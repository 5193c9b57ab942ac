"""Reading a stated probability: the one place that turns a reply into a forecast.

Asked for a probability, models answer in many forms: "70%", "0.7", "P(Yes) = 0.7",
"Probability of No: 30 percent", "(b) 60%", one line per option, or a JSON object.
:func:`parse_probability` returns the forecast over the question's options in prompt
order (true/false: Yes, No), and says how it read it:

- A number tied to no option is P(Yes) on a true/false question, as asked; but beside
  a word of confidence ("Answer: No. Confidence: 80%") it is the chosen answer's
  probability (the answer read as :func:`~prescient.evaluation.parsing.parse_answer`
  reads labels).
- A bare number above 1 and at most 100 ("Probability: 70") is read as a percentage.
- A value outside [0, 1] after that (120%, -0.1) is clamped into it: ``clamped``.
- A true/false reply that states both P(Yes) and P(No) takes P(Yes) over their sum.
- Multiple-choice options left out share what the stated ones leave of 1 equally
  (``filled``); stated values that do not sum to 1 are divided by their sum
  (``normalized``). Both are counted, never silent.
- A reply with no probability at all is a refusal when it holds refusal language (or is
  empty) and a parse failure otherwise, as for label answers
  (:mod:`prescient.evaluation.parsing`).

A scratchpad reply (the model reasons first) is read by one rule, :func:`final_forecast`:
only the text after its last ``Final forecast:`` marker is a forecast, read as above; a
reply without the marker is a parse failure (``no final forecast``), never a number
picked out of the reasoning.

The label answer stays derivable: the most probable option, so accuracy is reported
for a probabilistic elicitation too. On a tie it is the option the reply names on a line
of its own, ``Answer: No`` or ``Answer: (c)`` (:func:`stated_choice`), when that option
is among the most probable, and the first of them otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prescient.evaluation.parsing import is_refusal, parse_answer
from prescient.vocab import CHOICE_LETTERS, QTYPES, TF

_NUMBER = r"([-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*(%|percent\b|per cent\b)?"
_ANY_NUMBER = re.compile(_NUMBER, re.I)
_HEDGE = r"(?:about\s+|around\s+|roughly\s+|approximately\s+|~\s*)?"
# "P(Yes) = 0.7", "Yes: 70%", "probability of no is 0.3"
_TF_SIDE = re.compile(
    r"(?:p\s*\(\s*|probability\s+(?:of|that\s+(?:the\s+answer\s+is\s+)?|for)\s*|\b)"
    r"[\"']?(yes|no)[\"']?\s*\)?\s*(?:[:=,(]|is|of|at|->|-)?\s*" + _HEDGE + _NUMBER,
    re.I,
)
# "70% chance of Yes", "30 percent likely: No"
_TF_SIDE_AFTER = re.compile(
    _NUMBER + r"\s*(?:chance|probability|likelihood|likely)\s*(?:of|for|that|:)?\s*"
    r"(?:the\s+answer\s+is\s+)?[\"']?(yes|no)\b",
    re.I,
)
# An option named unmistakably ("(b)", "[b]", "b)", "option b", "B:", a line "b. ...")
# and then its number: a bare "a" is an English word, never an option.
_MC_OPTION = re.compile(
    r"(?:\(([a-z])\)|\[([a-z])\]|(?<![\w(])([a-z])\)|\b(?:option|choice)\s+([a-z])\b"
    r"|(?<![\w(])([A-Z])\s*[:=]|^\s*([a-z])[.:=])"
    r"[^\d\n%]{0,40}?" + _HEDGE + _NUMBER,
    re.I | re.M,
)
_CONFIDENCE = re.compile(r"\b(?:confidence|confident|certainty|certain|sure)\b", re.I)
_JSON = re.compile(r"\{[^{}]*\}", re.S)
_PROB_KEYS = ("probability", "prob", "p", "p_yes", "p(yes)", "yes_probability", "forecast")


_ANSWER_LINE = re.compile(r"^[ \t]*answer[ \t]*:[ \t]*(yes|no|\(([a-z])\))[ \t.]*$", re.I | re.M)


def stated_choice(text: str | None, qtype: str, n: int) -> int | None:
    """The option a probability reply names as its answer on a line of its own (the last
    such line): ``Answer: Yes`` or ``Answer: No`` for true/false, ``Answer: (c)`` for
    multiple choice among ``n`` options; None when it names none."""
    for m in reversed(_ANSWER_LINE.findall(text or "")):
        word, letter = m[0].lower(), m[1].lower()
        if qtype == TF and word in ("yes", "no"):
            return 0 if word == "yes" else 1
        if qtype != TF and letter and CHOICE_LETTERS.index(letter) < n:
            return CHOICE_LETTERS.index(letter)
    return None


@dataclass(frozen=True)
class ParsedProbability:
    """What a probability reply says.

    Attributes:
        probs: the forecast over the options in prompt order, summing to 1; None when
            there is none.
        refused: no probability, and refusal language or no text.
        parse_failed: no probability, and no refusal either.
        rule: how it was read (``json``, ``sides``, ``options``, ``confidence``,
            ``single``, ``refusal``, ``empty``, ``unparsed``).
        clamped: a value outside [0, 1] was clamped into it.
        normalized: stated values did not sum to 1 and were divided by their sum.
        filled: options left out shared the remainder.
    """

    probs: tuple[float, ...] | None
    refused: bool
    parse_failed: bool
    rule: str
    clamped: bool = False
    normalized: bool = False
    filled: bool = False

    @property
    def index(self) -> int | None:
        """The most probable option (the first on a tie); a reply's label also weighs
        its :func:`stated_choice` (:func:`prescient.evaluation.forecasts.read_forecast`)."""
        probs = self.probs
        if probs is None:
            return None
        return max(range(len(probs)), key=lambda i: (probs[i], -i))


def _value(number: str, unit: str | None) -> float:
    v = float(number)
    return v / 100.0 if unit or 1.0 < v <= 100.0 else v


def _clamp(values: Mapping[int, float]) -> tuple[dict[int, float], bool]:
    out = {k: min(1.0, max(0.0, v)) for k, v in values.items()}
    return out, out != dict(values)


def _from_json(text: str, n: int, tf: bool) -> dict[int, float] | None:
    for block in reversed(_JSON.findall(text)):
        try:
            obj: Any = json.loads(block)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        found: dict[int, float] = {}
        for key, raw in obj.items():
            if isinstance(raw, str):
                m = _ANY_NUMBER.fullmatch(raw.strip())
                raw = _value(m.group(1), m.group(2)) if m else None
            if not isinstance(raw, (int, float)) or isinstance(raw, bool):
                continue
            k = str(key).strip().lower().strip("()")
            v = _value(str(raw), None)
            if tf and k in ("yes", "no"):
                found[0 if k == "yes" else 1] = v
            elif tf and k in _PROB_KEYS:
                found[0] = v
            elif not tf and len(k) == 1 and k in CHOICE_LETTERS[:n]:
                found[CHOICE_LETTERS.index(k)] = v
        if found:
            return found
    return None


def _single(text: str) -> float | None:
    """The one probability a reply states: the one percentage, else the one decimal in
    [0, 1], else the one number at all; None when it states several."""
    numbers: list[tuple[str, str]] = _ANY_NUMBER.findall(text)
    picks: tuple[Callable[[str, str], bool], ...] = (
        lambda num, unit: bool(unit),
        lambda num, unit: "." in num and 0.0 <= float(num) <= 1.0,
        lambda num, unit: True,
    )
    for pick in picks:
        chosen = {_value(num, unit) for num, unit in numbers if pick(num, unit)}
        if len(chosen) == 1:
            return chosen.pop()
        if chosen:
            return None
    return None


def _tf(text: str) -> tuple[dict[int, float] | None, str]:
    sides: dict[int, float] = {}
    for m in _TF_SIDE.finditer(text):
        sides.setdefault(0 if m.group(1).lower() == "yes" else 1, _value(m.group(2), m.group(3)))
    for m in _TF_SIDE_AFTER.finditer(text):
        sides.setdefault(0 if m.group(3).lower() == "yes" else 1, _value(m.group(1), m.group(2)))
    if sides:
        return sides, "sides"
    single = _single(text)
    return ({0: single}, "single") if single is not None else (None, "unparsed")


def _mc(text: str, n: int) -> tuple[dict[int, float] | None, str]:
    found: dict[int, float] = {}
    for m in _MC_OPTION.finditer(text):
        letter = next(g for g in m.groups()[:6] if g).lower()
        if letter in CHOICE_LETTERS[:n]:
            found.setdefault(CHOICE_LETTERS.index(letter), _value(m.group(7), m.group(8)))
    return (found, "options") if found else (None, "unparsed")


def _confidence(
    text: str, qtype: str, choices: Sequence[str]
) -> tuple[dict[int, float], str] | None:
    """ "Answer: (c). Confidence: 75%": the one number is the chosen answer's."""
    label = parse_answer(text, qtype, choices)
    single = _single(text)
    if label.index is None or single is None:
        return None
    return {label.index: single}, "confidence"


def _complete_tf(stated: dict[int, float]) -> tuple[tuple[float, ...], bool]:
    if 0 in stated and 1 in stated:
        total = stated[0] + stated[1]
        if total <= 0:
            return (), False
        p = stated[0] / total
        return (p, 1.0 - p), abs(total - 1.0) > 1e-9
    p = stated[0] if 0 in stated else 1.0 - stated[1]
    return (p, 1.0 - p), False


def _complete_mc(stated: dict[int, float], n: int) -> tuple[tuple[float, ...], bool, bool]:
    missing = [i for i in range(n) if i not in stated]
    rest = 1.0 - sum(stated.values())
    filled = bool(missing) and rest > 1e-9
    values = [stated.get(i, rest / len(missing) if filled else 0.0) for i in range(n)]
    total = sum(values)
    if total <= 0:
        return (), False, filled
    normalized = abs(total - 1.0) > 1e-9
    return tuple(v / total for v in values), normalized, filled


def parse_probability(text: str | None, qtype: str, choices: Sequence[str]) -> ParsedProbability:
    """Read the forecast of a reply to a TF or MC question (module doc).

    Args:
        text: the raw reply (None or empty: no answer).
        qtype: ``tf`` or ``mc``.
        choices: the options in prompt order (``["Yes", "No"]`` for TF).
    """
    if qtype not in QTYPES:
        raise ValueError(f"qtype must be one of {QTYPES}, not {qtype!r}")
    if text is None or not text.strip():
        return ParsedProbability(None, True, False, "empty")
    tf, n = qtype == TF, len(choices)
    body = text.replace("**", "").replace("`", "")
    stated = _from_json(body, n, tf)
    rule = "json"
    if stated is None:
        stated, rule = _tf(body) if tf else _mc(body, n)
    if (not stated or rule == "single") and _CONFIDENCE.search(body):
        stated, rule = _confidence(text, qtype, choices) or (stated, rule)
    if not stated:
        if is_refusal(body):
            return ParsedProbability(None, True, False, "refusal")
        return ParsedProbability(None, False, True, "unparsed")
    stated, clamped = _clamp(stated)
    filled = False
    if tf:
        probs, normalized = _complete_tf(stated)
    else:
        probs, normalized, filled = _complete_mc(stated, n)
    if not probs:
        return ParsedProbability(None, False, True, "unparsed", clamped)
    return ParsedProbability(probs, False, False, rule, clamped, normalized, filled)


FINAL_MARKER = "Final forecast:"
"""The line a scratchpad reply's forecast follows (conf/prompts/eval/scratchpad/)."""
_FINAL = re.compile(r"^[ \t>#*_]*final[ \t]+forecast[ \t*_]*:[ \t*_]*", re.I | re.M)
NO_FINAL = "no final forecast"
"""The rule of a scratchpad reply without the marker (a parse failure)."""


def final_forecast(text: str | None) -> str | None:
    """The forecast part of a scratchpad reply: what follows the last line that starts
    with ``Final forecast:`` (any case; Markdown emphasis, a heading or a quote mark
    before it allowed), to the end of the reply; None when no line does, or nothing
    follows it. The reasoning before it is never read, so a number the model weighed on
    the way is not taken for its forecast."""
    if text is None:
        return None
    found = list(_FINAL.finditer(text))
    if not found:
        return None
    rest = text[found[-1].end() :].strip()
    return rest or None


def parse_final_probability(
    text: str | None, qtype: str, choices: Sequence[str]
) -> ParsedProbability:
    """:func:`parse_probability` of a scratchpad reply's :func:`final_forecast`; a reply
    without one is a parse failure with rule :data:`NO_FINAL` (a refusal when the whole
    reply is one, or empty)."""
    final = final_forecast(text)
    if final is None:
        if text is None or not text.strip() or is_refusal(text):
            return ParsedProbability(None, True, False, "refusal" if text else "empty")
        return ParsedProbability(None, False, True, NO_FINAL)
    return parse_probability(final, qtype, choices)
