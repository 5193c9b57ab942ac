"""Parsers for the replies of the question-construction steps.

Real models do not follow output templates faithfully: they add prose before and after,
wrap labels in markdown, number things their own way, drop or add fields, and write
scores as words. Every parser here therefore looks for the *content* (labels, options,
points) wherever it appears, and returns an explicit ``error`` instead of raising when
nothing usable is there, so the stage can keep the raw reply with a reason.

One function owns each reading rule: the categories' aliases and the MC question type
live here, the seven-principle filter's scores and their 0/1/2 reading in
:mod:`.parse_scores`; cleaned lines, quotes, the Yes/No reading of a TF answer and the
step-1 summary and key point live in :mod:`prescient.replies` (OpenForecast reads key
points the same way); the names themselves (principles, categories, MC types, TF
choices) come from :mod:`prescient.vocab`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from prescient.replies import clean_line, normalize, strip_quotes, yes_no
from prescient.vocab import CATEGORIES

# --- step 2: four question-answer pairs ----------------------------------------------

_NUMBER_PREFIX = re.compile(r"^\(?(\d{1,2})[.)]\s+(.*)$")
_SEP = r"[:.)\-–]"


def _label_patterns(long: str, short: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(p, re.IGNORECASE)
        for p in (
            rf"^{long}\s*#?\s*(\d+)?\s*{_SEP}\s*(.*)$",  # Question 1: ... / Question: ...
            rf"^{long}\s*#?\s*(\d+)(?:\s+(.*))?$",  # Question 1 ... / Question 1
            rf"^(?:{short})(\d+)\s*{_SEP}?\s*(.*)$",  # Q1: ... / A1 ...
            rf"^(?:{short})()\s*{_SEP}\s*(.*)$",  # Q: ... / A: ...
        )
    )


_Q_PATTERNS = _label_patterns("question", "q")
_A_PATTERNS = _label_patterns("answer", "ans|a")


def _match_label(line: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[int | None, str] | None:
    for pattern in patterns:
        m = pattern.match(line)
        if m:
            return (int(m.group(1)) if m.group(1) else None), (m.group(2) or "").strip()
    return None


_INLINE_ANSWER = re.compile(
    r"^(?P<q>.*?\?)[\s\"'”’)]*(?:(?:[-–—:]\s*)?\(?\s*(?:answer|ans)\s*\d*\s*[:：]\s*|[-–—]\s+)(?P<a>.+)$",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(r"^(?:will|what|who|whom|whose|where|which|how)\b", re.IGNORECASE)


@dataclass(frozen=True)
class QAPair:
    """One generated question-answer pair.

    Attributes:
        slot: position in the article's question list (1-4 in the paper's design; the
            model's own number when it gave a usable one, else the next free number).
        question: the question text, quotes and labels removed.
        answer: the answer text, or None when the reply has no answer for it.
    """

    slot: int
    question: str
    answer: str | None


@dataclass(frozen=True)
class GenerationReply:
    """Step 2 parsed: the pairs in slot order, or an error when there are none."""

    pairs: tuple[QAPair, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _split_inline_answer(text: str) -> tuple[str, str | None]:
    m = _INLINE_ANSWER.match(text)
    if m:
        return m.group("q").strip(), m.group("a").strip()
    q, mark, rest = text.partition("?")
    if mark and yes_no(rest) is not None and len(rest.split()) <= 3:
        return q + "?", rest.strip()
    return text, None


@dataclass
class _Item:
    label: int | None
    question: str
    answer: str | None = None
    answer_from_label: bool = False
    awaiting_answer: bool = False


def _question_complete(q: str) -> bool:
    return strip_quotes(q).endswith("?")


def parse_generation(text: str | None) -> GenerationReply:
    """Question-answer pairs from a step-2 reply.

    Accepts ``Question 1:``/``Q1:``/``**Question 1**:``/``1.`` numbered lines, a label
    alone on its line with the text below, answers on the same line or the next, and an
    unlabelled answer line after a complete question (a later labelled answer overrides
    it). Prose around the pairs is ignored; more than four pairs are all returned (the
    stage records the extras), fewer are returned as they are.
    """
    if not text or not text.strip():
        return GenerationReply((), "empty reply")
    items: list[_Item] = []
    current: _Item | None = None
    for raw in text.splitlines():
        line = clean_line(raw)
        if not line:
            continue
        number: int | None = None
        nm = _NUMBER_PREFIX.match(line)
        if nm and (
            _match_label(nm.group(2), _Q_PATTERNS) or _match_label(nm.group(2), _A_PATTERNS)
        ):
            number, line = int(nm.group(1)), nm.group(2)
        qm, am = _match_label(line, _Q_PATTERNS), _match_label(line, _A_PATTERNS)
        if qm:
            label = qm[0] or number
            question, answer = _split_inline_answer(qm[1])
            current = _Item(label, question, answer, answer is not None)
            items.append(current)
        elif am:
            if current is None or current.answer_from_label:
                continue
            body = am[1]
            current.answer, current.answer_from_label = (body or None), bool(body)
            current.awaiting_answer = not body
        elif nm and ("?" in nm.group(2) or _QUESTION_START.match(nm.group(2))):
            question, answer = _split_inline_answer(nm.group(2).strip())
            current = _Item(int(nm.group(1)), question, answer, answer is not None)
            items.append(current)
        elif current is not None and current.awaiting_answer:
            current.answer, current.answer_from_label = line, True
            current.awaiting_answer = False
        elif current is not None and current.answer is None:
            if _question_complete(current.question):
                current.answer = line  # an unlabelled answer line
            else:  # a question wrapped over several lines, or a label on its own line
                current.question = f"{current.question} {line}".strip()
    pairs: list[QAPair] = []
    used: set[int] = set()
    for item in items:
        question = strip_quotes(item.question)
        if not question:
            continue
        slot = item.label if item.label and item.label not in used else max(used, default=0) + 1
        used.add(slot)
        answer = strip_quotes(item.answer) if item.answer else None
        pairs.append(QAPair(slot, question, answer or None))
    if not pairs:
        return GenerationReply((), "no questions found")
    return GenerationReply(tuple(sorted(pairs, key=lambda p: p.slot)))


# --- step 3: distractors --------------------------------------------------------------

_OPTION = re.compile(r"^\(?([a-hA-H]|[1-9])\s*[).:\]]\s*(.+)$")
_HEADING = re.compile(r"(?i)^(?:wrong|noising|misleading|incorrect|distract\w*|other)\b.*:$")
_NOT_AN_OPTION = re.compile(r"(?i)^(?:question|correct\s+answer|answer|note|here|sure)\b")


@dataclass(frozen=True)
class DistractorReply:
    """Step 3 parsed: ``n`` distinct wrong options, or an error with what was found."""

    options: tuple[str, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _clean_option(text: str) -> str:
    opt = strip_quotes(re.sub(r"\s+", " ", text))
    if opt.endswith("."):
        last = opt.split()[-1][:-1] if opt.split() else ""
        if "." not in last or re.fullmatch(r"[$€£]?\d[\d,]*\.\d+%?", last):
            opt = opt[:-1].rstrip()
    return strip_quotes(opt)


def parse_distractors(text: str | None, answer: str, n: int = 3) -> DistractorReply:
    """``n`` distinct wrong options from a step-3 reply.

    Options are labelled lines (``(b)``, ``b)``, ``B.``, ``2.``), else bullets, else short
    plain lines. Options labelled (b)-(h) are preferred when there are enough of them, so
    an echoed ``(a) <correct answer>`` is never taken for a wrong one; the correct
    answer itself, headings, echoes of the question and duplicates are always skipped.
    A reply with fewer than ``n`` usable options is an error.
    """
    if not text or not text.strip():
        return DistractorReply((), "empty reply")
    labelled: list[tuple[str, str]] = []
    bullets: list[str] = []
    plain: list[str] = []
    for raw in text.splitlines():
        bullet = bool(re.match(r"^\s*[-*•]\s+", raw))
        line = clean_line(raw)
        if not line or _HEADING.match(line):
            continue
        m = _OPTION.match(line)
        if m:
            labelled.append((m.group(1).lower(), m.group(2)))
        elif bullet:
            bullets.append(line)
        elif not _NOT_AN_OPTION.match(line) and not line.endswith(":") and len(line.split()) <= 15:
            plain.append(line)
    later = [t for label, t in labelled if label not in {"a", "1"}]
    pool = later if len(later) >= n else [t for _, t in labelled] or bullets or plain
    target = normalize(answer)
    options: list[str] = []
    seen = {target}
    for raw_opt in pool:
        opt = _clean_option(raw_opt)
        key = normalize(opt)
        if not key or key in seen:
            continue
        seen.add(key)
        options.append(opt)
    if len(options) < n:
        return DistractorReply(tuple(options), f"found {len(options)} usable wrong options of {n}")
    return DistractorReply(tuple(options[:n]))


# --- step 5: categories and MC types -------------------------------------------------

CATEGORY_ALIASES: Mapping[str, tuple[str, ...]] = dict(
    zip(
        CATEGORIES,
        (
            (r"scien", r"tech"),
            (r"health", r"biolog", r"medic"),
            (r"econom", r"business", r"financ"),
            (r"environment", r"energy", r"climate"),
            (r"politic", r"governance", r"government"),
            (r"educat", r"research"),
            (r"\barts?\b", r"recreation", r"entertainment"),
            (r"security", r"defen[cs]e", r"militar"),
            (r"social",),
            (r"sport",),
            (r"\bother\b",),
        ),
        strict=True,
    )
)
"""Words that identify a category in a free-form reply, in the order of
:data:`~prescient.vocab.CATEGORIES`."""


def _category_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\band\b", "&", text.lower())).strip(" .:\"'*")


_CATEGORY_KEYS = {_category_key(c): c for c in CATEGORIES}


def parse_category(text: str | None) -> tuple[str | None, str | None]:
    """``(category, error)`` from a step-5 reply.

    An exact category name (any case, "and" for "&") wins; otherwise the category whose
    name or alias occurs earliest in the reply. ``(None, reason)`` when none occurs.
    """
    if not text or not text.strip():
        return None, "empty reply"
    for line in text.splitlines():
        key = _category_key(clean_line(line).removeprefix("Category:").strip())
        if key in _CATEGORY_KEYS:
            return _CATEGORY_KEYS[key], None
    low = text.lower()
    best: tuple[int, int, str] | None = None
    for rank, cat in enumerate(CATEGORIES):
        positions = [
            m.start()
            for pattern in (re.escape(cat.lower()), *CATEGORY_ALIASES[cat])
            for m in [re.search(pattern, low)]
            if m
        ]
        if positions and (best is None or (min(positions), rank) < best[:2]):
            best = (min(positions), rank, cat)
    if best is None:
        return None, "no category named"
    return best[2], None
