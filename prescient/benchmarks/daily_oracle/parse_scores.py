"""The parser of the seven-principle filter's replies (construction step 4).

Models score the principles in every layout: a heading per principle with ``Point: 2``
under it, ``Name: 2`` on one line, ``2/2``, ``two points``, JSON-like ``key: 2`` pairs, or
one line of seven scores. The parser finds each principle's section by the ways its name
may begin and reads the first score in it; a missing principle or a score outside 0-2 is
an error with the scores found kept, never a guess, and the total is always the sum of
the seven scores (a total the model writes itself is ignored). The 0/1/2 reading of a
score lives here; cleaned lines come from :mod:`prescient.replies` and the principles'
names from :mod:`prescient.vocab`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from prescient.replies import clean_line
from prescient.vocab import PRINCIPLES

PRINCIPLE_HEADINGS: Mapping[str, str] = {
    "not_obvious": r"(?:answer\s+(?:is\s+)?)?(?:not\s+(?:too\s+)?|non[\s-]*)?obvious(?:ness)?\b",
    "only_answerable_on_date": (
        r"(?:only\s+)?(?:answerable|guessable)|non[\s-]*answerab|not\s+answerable"
        r"|publi\w*\s+date"
    ),
    "no_new_information": (
        r"(?:no|absence\s+of|without)\s+(?:new\s+)?(?:info|leak)|new\s+info"
        r"|(?:information\s+)?leak"
    ),
    "objectivity": r"objectiv",
    "clear_time_element": (
        r"(?:inclusion\s+of\s+(?:a\s+)?)?clear\s+(?:time|temporal)|(?:time|temporal)\s+element"
    ),
    "public_interest": r"public\s+interest",
    "correctness": r"(?:answer\s+)?correct(?:ness)?\b|accura",
}
"""How a principle's heading may begin (checked in this order, most specific first)."""
_HEADINGS = {key: re.compile(pattern) for key, pattern in PRINCIPLE_HEADINGS.items()}

_HEAD_PREFIX = re.compile(
    r"(?i)^(?:\(?\d+[.)]\s*|principle\s*\d*\s*[:.)\-–]?\s*|category\s*[:\-–]\s*)"
)
_HEAD_SPLIT = re.compile(r"\s*(?::|\(|\s[-–—]\s|[–—=])\s*")
_SCORE_WORDS = {"zero": 0, "one": 1, "two": 2, "0": 0, "1": 1, "2": 2}
_SCORE_TOKEN = r"(zero|one|two|[0-9]+(?:\.[0-9]+)?)"
_LABELLED_SCORE = re.compile(
    rf"(?i)\b(?:points?|scores?|rating|grade)(?:\s+(?:awarded|given))?"
    rf"[\s:=\-\[(]*(?:(?:of|is|was)\s+)?[\s:=\-\[(]*{_SCORE_TOKEN}\b(?!\s*/\s*[3-9])"
)
_FRACTION_SCORE = re.compile(rf"(?i)(?<![\d.]){_SCORE_TOKEN}\s*/\s*2\b")
_N_POINTS = re.compile(rf"(?i)(?<![\d.]){_SCORE_TOKEN}\s*points?\b")
_BARE_SCORE = re.compile(rf"(?i)^[\s:=\-–(\[]*{_SCORE_TOKEN}[\s)\].]*(?:points?)?[\s.]*$")
_KEYED_SCORE = re.compile(
    r"(?i)[\"']?\b(" + "|".join(PRINCIPLES) + r")\b[\"']?\s*[:=]\s*[\"']?(\d+(?:\.\d+)?)"
)


@dataclass(frozen=True)
class FilterReply:
    """Step 4 parsed: a 0/1/2 score per principle found; ``missing`` lists the others."""

    scores: Mapping[str, int]
    missing: tuple[str, ...] = ()
    invalid: Mapping[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def score_value(token: str) -> int | None:
    """0, 1 or 2 from a score token (digits or words); None for anything else."""
    return _SCORE_WORDS.get(token.strip().lower())


def _heading(line: str) -> tuple[str, str] | None:
    """``(principle, rest of line)`` when ``line`` starts with a principle's name."""
    text = _HEAD_PREFIX.sub("", line)
    parts = _HEAD_SPLIT.split(text, maxsplit=1)
    head = parts[0].strip().lower()
    if not head or len(head.split()) > 8 or "," in head:
        return None
    for key, pattern in _HEADINGS.items():
        if pattern.match(head):
            rest = text[len(parts[0]) :].lstrip(" :-–—=(")
            return key, rest
    return None


def _find_score(segment: str) -> str | None:
    for pattern in (_LABELLED_SCORE, _FRACTION_SCORE, _N_POINTS):
        m = pattern.search(segment)
        if m:
            return m.group(1)
    for line in segment.splitlines():
        m = _BARE_SCORE.match(line)
        if m:
            return m.group(1)
    return None


def _sections(text: str, principles: Sequence[str]) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = clean_line(raw)
        if not line:
            continue
        found = _heading(line)
        if found is not None and found[0] in principles:
            key, rest = found
            if key == current:  # the name repeated inside its own section
                sections[key].append(rest)
                continue
            if key in sections:  # a second block (another question): stop reading
                current = None
                continue
            current = key
            sections[key] = [rest] if rest else []
            continue
        if current is not None:
            sections[current].append(line)
    return sections


_DIGIT = re.compile(r"[0-2]")
_SCORE_LINE = re.compile(r"(?i)^\s*(?:scores?\s*[:=]\s*)?((?:[0-2][\s,;/|]+)*[0-2])\s*\.?\s*$")


def _score_line(text: str, n: int) -> list[int] | None:
    """The scores of a one-line reply (``Scores: 2 2 1 2 2 2 1``): the first line of
    exactly ``n`` scores 0-2, in the principles' order; None when there is none."""
    for raw in text.splitlines():
        m = _SCORE_LINE.match(clean_line(raw))
        if m:
            digits = _DIGIT.findall(m.group(1))
            if len(digits) == n:
                return [int(d) for d in digits]
    return None


def parse_filter(text: str | None, principles: Sequence[str] = PRINCIPLES) -> FilterReply:
    """A 0/1/2 score for each principle from a step-4 reply.

    A line of exactly seven scores (``Scores: 2 2 1 2 2 2 1``, the one-line format of the
    compact template) gives them in the principles' order.

    Each principle's section starts at a line that begins with its name (markdown,
    numbered, or ``Name: 2`` on one line) and runs to the next principle's heading; its
    score is the first ``Point: 2`` / ``Score: two`` / ``2/2`` / ``2 points`` / bare
    ``2`` in it. ``key: 2`` pairs with the project's principle keys (JSON-like replies)
    are read too. A score outside 0-2 or a missing principle makes the reply an error,
    with the scores that were found kept for the audit. Totals the model writes itself
    are ignored: the total is always the sum of the seven scores.
    """
    if not text or not text.strip():
        return FilterReply({}, tuple(principles), {}, "empty reply")
    line = _score_line(text, len(principles))
    if line is not None:
        return FilterReply(dict(zip(principles, line, strict=True)))
    tokens: dict[str, str] = {}
    for m in _KEYED_SCORE.finditer(text):
        tokens.setdefault(m.group(1).lower(), m.group(2))
    for key, lines in _sections(text, principles).items():
        token = _find_score("\n".join(lines))
        if token is not None:
            tokens.setdefault(key, token)
    scores: dict[str, int] = {}
    invalid: dict[str, str] = {}
    for key, token in tokens.items():
        value = score_value(token)
        if value is None:
            invalid[key] = token
        else:
            scores[key] = value
    missing = tuple(k for k in principles if k not in scores and k not in invalid)
    if missing or invalid:
        parts = []
        if missing:
            parts.append(f"no score for {', '.join(missing)}")
        if invalid:
            parts.append("out of range: " + ", ".join(f"{k}={v}" for k, v in invalid.items()))
        return FilterReply(scores, missing, invalid, "; ".join(parts))
    return FilterReply(scores)


def total_score(scores: Mapping[str, int]) -> int:
    """The filter total: the sum of the seven principle scores (0-14)."""
    return int(sum(scores[k] for k in PRINCIPLES))
