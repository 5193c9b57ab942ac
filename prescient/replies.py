"""Reading models' replies: cleaned lines, quotes, Yes/No, an article's summary and key point.

Real models do not follow output templates faithfully: they wrap labels in markdown,
quote their answers, repeat labels or put them on one line. These readers look for the
content wherever it appears and report what is missing instead of raising. They are
shared by Daily Oracle's question construction (its step 1, ICML 2025, section 3.1;
:mod:`prescient.benchmarks.daily_oracle.parse` reads the other steps) and OpenForecast's
key points (:mod:`prescient.benchmarks.openforecast.keypoints`), which ask for an
article's key point with the same reply format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prescient.vocab import TF_CHOICES

_MD_EMPHASIS = re.compile(r"(\*\*|__|`+)")
_LEADING_MARKUP = re.compile(r"^\s*(?:#+\s*|>\s*|[-*•]\s+)+")
_QUOTES = "\"'“”‘’«»`"
_WORDS = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def clean_line(line: str) -> str:
    """A line without markdown emphasis, heading marks, quote marks or list bullets."""
    line = _MD_EMPHASIS.sub("", line)
    line = _LEADING_MARKUP.sub("", line)
    return line.strip()


def strip_quotes(text: str) -> str:
    """Text without surrounding quote marks (paired, or an unmatched opening one)."""
    t = text.strip()
    for _ in range(3):
        if len(t) > 2 and t.endswith(".") and t[-2] in _QUOTES:
            t = t[:-1]
        if len(t) >= 2 and t[0] in _QUOTES and t[-1] in _QUOTES:
            t = t[1:-1].strip()
        elif t and t[0] in _QUOTES and t.count(t[0]) == 1:
            t = t[1:].strip()
        else:
            break
    return t


def normalize(text: str) -> str:
    """Lowercase words and numbers only: the form answers and options are compared in."""
    return " ".join(_WORDS.findall(text.lower()))


def yes_no(answer: str | None) -> str | None:
    """``Yes`` or ``No`` when a TF answer says so (first word, any case or markup)."""
    if not answer:
        return None
    words = normalize(answer).split()
    if not words:
        return None
    if words[0] in {"yes", "true", "correct"}:
        return TF_CHOICES[0]
    if words[0] in {"no", "false", "incorrect"}:
        return TF_CHOICES[1]
    return None


# --- the summary and key point of an article ----------------------------------------

_LABEL_WORDS = r"summary|key[\s_-]*points?|main[\s_-]*point|new[\s_-]*event"
_SUMMARY_LABEL = re.compile(
    rf"(?im)(?<![a-z])({_LABEL_WORDS})\s*\**\s*[:：]|^[ \t]*({_LABEL_WORDS})[ \t]*$"
)
_NO_NEW_EVENT = re.compile(r"(?i)\bno\s+(?:new\s+)?(?:event|news)s?\b(?:\s+(?:is\s+)?reported)?")


@dataclass(frozen=True)
class SummaryReply:
    """Step 1 parsed: the summary, the key point, and whether there is a new event."""

    summary: str | None
    keypoint: str | None
    no_new_event: bool
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_REPORTS_PREAMBLE = re.compile(
    r"(?i)^(?:this|the)\s+(?:article|report|story)\s+reports?\s+(?:on\s+)?"
    r"(?:a\s+)?(?:new\s+)?(?:event|development)?[\s,]*(?:[:,-]|which\s+is)?\s*"
)


def parse_summary(text: str | None, bare_is_keypoint: bool = False) -> SummaryReply:
    """Summary and key point from a step-1 reply.

    Labels may carry markdown, a different spelling (``Keypoint``, ``Key Points``) or sit
    on one line; the first of each is used (small models repeat them). The summary is
    the first paragraph after its label, the key point the first line after its label,
    so trailing chatter is dropped. A reply that only says there is no new event counts
    as such even without labels. With ``bare_is_keypoint`` (templates that ask for the
    key point alone), an unlabelled reply's first line is the key point.
    """
    if not text or not text.strip():
        return SummaryReply(None, None, False, "empty reply")
    clean = "\n".join(clean_line(line) for line in text.splitlines())
    marks = list(_SUMMARY_LABEL.finditer(clean))
    fields: dict[str, str] = {}
    for i, m in enumerate(marks):
        word = (m.group(1) or m.group(2)).lower()
        kind = "summary" if word.startswith("summ") else "keypoint"
        end = marks[i + 1].start() if i + 1 < len(marks) else len(clean)
        segment = clean[m.end() : end].strip()
        if kind == "summary":
            value = " ".join(re.split(r"\n\s*\n", segment, maxsplit=1)[0].split())
        else:
            value = segment.split("\n", 1)[0].strip()
        if kind not in fields and value:
            fields[kind] = strip_quotes(value)
    summary, keypoint = fields.get("summary"), fields.get("keypoint")
    if keypoint is not None and _NO_NEW_EVENT.match(keypoint):
        return SummaryReply(summary, keypoint, True)
    if keypoint is None:
        if not marks and _NO_NEW_EVENT.match(clean.strip()):
            return SummaryReply(None, clean.strip().split("\n", 1)[0], True)
        if bare_is_keypoint and not marks:
            # A template that asks for the key point alone (one sentence, no labels):
            # the reply's first line is the key point, without a "This article reports
            # a new event:" opening.
            first = clean.strip().split("\n", 1)[0]
            body = _REPORTS_PREAMBLE.sub("", first).strip()
            if body:
                body = body[0].upper() + body[1:]
                return SummaryReply(None, strip_quotes(body), bool(_NO_NEW_EVENT.match(body)))
        return SummaryReply(summary, None, False, "no key point found")
    return SummaryReply(summary, keypoint, False)
