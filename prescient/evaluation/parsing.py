"""Reading a model's answer: the one place that turns a raw response into a choice.

Models rarely answer in exactly the requested form. :func:`parse_answer` accepts, in
order of confidence:

1. *strong* forms, which win even over refusal language: the answer at the very start
   ("Yes", "yes.", "**No**", "(b)", "b)", "B", "B: Paris", "Option C"), after an answer
   marker ("Answer: (c) Paris", "The answer is No"), or a response that is exactly the
   text of one choice;
2. *weak* forms, which lose to refusal language: a single distinct Yes/No word or a
   single distinct "(x)" label anywhere, or the text of exactly one choice inside the
   response (for overlapping choices, the longest one that contains the others).

A response with no answer at all (empty, or only refusal language such as "I cannot
predict the future" or "As an AI ...") is a *refusal*: it counts as incorrect and is
reported as a refusal rate (paper appendix B.2). Anything else that yields no answer
("Yes or No?", a restatement of the question) is a *parse failure*, also incorrect and
reported separately, because a high parse-failure rate means the prompt, not the model,
needs attention.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from prescient.vocab import CHOICE_LETTERS, QTYPES, TF

_MARKDOWN = re.compile(r"(\*\*|__|`+|^#+\s*)", re.M)
_LEAD_MARKER = re.compile(
    r"^(?:(?:the|my|your)\s+)?(?:final\s+|correct\s+|best\s+)?"
    r"(?:answer|prediction|forecast|response|choice|option)(?:\s+(?:is|would be|will be))?"
    r"\s*[:\-–]?\s*",
    re.I,
)
_ANYWHERE_MARKER = (
    r"\b(?:answer|prediction|forecast|choice)(?:\s+(?:is|would be|will be))?\s*[:\-–]?\s*"
)
# "Yes or No", "(a) / (b)": the options echoed back, not a choice.
_ECHO = re.compile(
    r"^\W*(?:yes|no|true|false|\(?[a-z]\))\s*(?:or|/)\s*\W*(?:yes|no|true|false|\(?[a-z]\))\W*",
    re.I,
)
_TF_LEAD = re.compile(r"^\W*(yes|no|true|false)\b", re.I)
_TF_MARKED = re.compile(_ANYWHERE_MARKER + r"\W*(yes|no)\b", re.I)
_TF_WORD = re.compile(r"\b(yes|no)\b", re.I)
_MC_LEAD = re.compile(
    r"^\W*?(?:option\s+|choice\s+|letter\s+)?"
    r"(?:\(([a-z])\)|\[([a-z])\]|([a-z])(?:\s*[.:)\]]|\s+[-–]\s|\s*$))",
    re.I,
)
_MC_MARKED = re.compile(
    _ANYWHERE_MARKER + r"(?:option\s+|choice\s+)?(?:\(([a-z])\)|([a-z])(?=\s*(?:[.,;:)!]|$)))",
    re.I,
)
_MC_OPTION = re.compile(r"\b(?:option|choice|letter)\s*\(?([a-z])\)?(?!\w)", re.I)
_MC_PAREN = re.compile(r"\(([a-z])\)", re.I)

REFUSAL_PATTERNS = tuple(
    re.compile(p, re.I)
    for p in (
        r"\b(?:i|we)\s*(?:cannot|can't|can not|could not|couldn't|am unable to|'m unable to|"
        r"am not able to|'m not able to|do not|don't|won't|will not)\s+(?:accurately\s+|reliably\s+)?"
        r"(?:predict|forecast|know|say|determine|answer|provide|speculate|foresee|tell|make)",
        r"\bas an ai\b",
        r"\bas a (?:large )?language model\b",
        r"\bi(?:'m| am) (?:just |only )?(?:an ai|a language model)\b",
        r"\b(?:impossible|not possible) to (?:predict|know|say|determine|forecast|tell)\b",
        r"\bcannot be (?:predicted|known|determined|forecast)\b",
        r"\bno way (?:to|of) (?:know|predict|tell)",
        r"\b(?:i )?(?:do not|don't) have (?:access|real-time|enough|the ability|information|"
        r"any information|knowledge)\b",
        r"\bthe future (?:is|remains) (?:uncertain|unknown|unpredictable)\b",
        r"\bi(?:'m| am) sorry\b",
        r"\bi apologi[sz]e\b",
        r"\bunable to (?:predict|answer|determine|provide|forecast)\b",
        r"\bmy (?:knowledge|training)(?: data)? (?:cutoff|cut-off|ends)\b",
        r"\b(?:refuse|decline) to (?:answer|predict|speculate)\b",
    )
)


@dataclass(frozen=True)
class ParsedAnswer:
    """What a response says.

    Attributes:
        index: the chosen option (0-based; for TF 0 = Yes, 1 = No), or None.
        refused: the model declined or gave no answer at all.
        parse_failed: a response that is neither an answer nor a refusal.
        rule: which rule decided (``lead``, ``marker``, ``exact``, ``word``, ``label``,
            ``choice_text``, ``refusal``, ``empty``, ``ambiguous``, ``unparsed``).
    """

    index: int | None
    refused: bool
    parse_failed: bool
    rule: str


def is_refusal(text: str | None) -> bool:
    """True when the response contains refusal language (or no text at all)."""
    if text is None or not text.strip():
        return True
    return any(p.search(text) for p in REFUSAL_PATTERNS)


def _normalize(text: str) -> str:
    text = _MARKDOWN.sub("", text)
    return " ".join(text.split()).strip().strip("\"'“”‘’").strip()


def _fold(text: str) -> str:
    """Case- and punctuation-insensitive form for matching choice texts."""
    return " ".join(re.sub(r"[^\w%$.]+", " ", text.casefold()).replace(". ", " ").split()).strip(
        " ."
    )


def _tf_index(word: str) -> int:
    return 0 if word.lower() in ("yes", "true") else 1


def _letter(match: re.Match[str] | None, n: int) -> int | None:
    if match is None:
        return None
    letter = next(g for g in match.groups() if g).lower()
    idx = CHOICE_LETTERS.index(letter)
    return idx if idx < n else None


def _word_char(c: str) -> bool:
    """What ``\\w`` matches in a str pattern: a Unicode letter or digit, or ``_``."""
    return c.isalnum() or c == "_"


def whole_in(part: str, text: str) -> bool:
    """True when ``part`` (not empty) occurs in ``text`` with no word character right
    before or after it: ``re.search(r"(?<!\\w)" + re.escape(part) + r"(?!\\w)", text)``
    without compiling a pattern per choice (a scoring run meets hundreds of thousands)."""
    at = text.find(part)
    while at != -1:
        end = at + len(part)
        if (at == 0 or not _word_char(text[at - 1])) and (
            end == len(text) or not _word_char(text[end])
        ):
            return True
        at = text.find(part, at + 1)
    return False


def _choice_in_text(body: str, choices: Sequence[str]) -> tuple[int | None, bool]:
    """(index, exact) of the one choice whose text the response contains."""
    folded = _fold(body)
    if not folded:
        return None, False
    texts = [_fold(c) for c in choices]
    for i, t in enumerate(texts):
        if t and folded == t:
            return i, True
    found = [i for i, t in enumerate(texts) if t and whole_in(t, folded)]
    if len(found) == 1:
        return found[0], False
    if found:
        longest = max(found, key=lambda i: len(texts[i]))
        if all(texts[i] in texts[longest] for i in found):
            return longest, False
    return None, False


def parse_answer(text: str | None, qtype: str, choices: Sequence[str]) -> ParsedAnswer:
    """Read the answer of a response to a TF or MC question.

    Args:
        text: the raw response (None or empty: no answer).
        qtype: ``tf`` or ``mc``.
        choices: the options in prompt order (``["Yes", "No"]`` for TF).

    Returns:
        The parsed answer; exactly one of: an index, ``refused``, ``parse_failed``.
    """
    if text is None or not text.strip():
        return ParsedAnswer(None, True, False, "empty")
    body = _normalize(text)
    stripped = _LEAD_MARKER.sub("", body, count=1)
    strong: tuple[int, str] | None = None
    weak: tuple[int, str] | None = None
    ambiguous = False
    if qtype not in QTYPES:
        raise ValueError(f"qtype must be one of {QTYPES}, not {qtype!r}")
    if _ECHO.match(stripped):
        return ParsedAnswer(None, False, True, "ambiguous")
    if qtype == TF:
        m = _TF_LEAD.match(stripped)
        if m:
            strong = (_tf_index(m.group(1)), "lead")
        elif (m := _TF_MARKED.search(body)) is not None:
            strong = (_tf_index(m.group(1)), "marker")
        else:
            words = {_tf_index(w) for w in _TF_WORD.findall(body)}
            if len(words) == 1:
                weak = (words.pop(), "word")
            ambiguous = len(words) > 1
    else:
        n = len(choices)
        idx, exact = _choice_in_text(stripped, choices)
        lead = _letter(_MC_LEAD.match(stripped), n)
        if lead is not None:
            strong = (lead, "lead")
        elif (marked := _letter(_MC_MARKED.search(body), n)) is not None:
            strong = (marked, "marker")
        elif (option := _letter(_MC_OPTION.search(body), n)) is not None:
            strong = (option, "marker")
        elif idx is not None and exact:
            strong = (idx, "exact")
        else:
            labels = {
                CHOICE_LETTERS.index(x.lower())
                for x in _MC_PAREN.findall(body)
                if CHOICE_LETTERS.index(x.lower()) < n
            }
            if len(labels) == 1:
                weak = (labels.pop(), "label")
            elif idx is not None:
                weak = (idx, "choice_text")
            ambiguous = len(labels) > 1
    if strong is not None:
        return ParsedAnswer(strong[0], False, False, strong[1])
    if is_refusal(body):
        return ParsedAnswer(None, True, False, "refusal")
    if weak is not None:
        return ParsedAnswer(weak[0], False, False, weak[1])
    return ParsedAnswer(None, False, True, "ambiguous" if ambiguous else "unparsed")
