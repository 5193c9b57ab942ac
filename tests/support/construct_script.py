"""A scripted construction model: answers every step of the compact construction
templates (conf/prompts/construct/*_compact.yaml, generate_slots.yaml, categorize.yaml)
from the messages
alone, so it works in process (``register_script``) and behind a loopback server alike.

Each step is told apart by its system message; the answers are deterministic functions
of the prompt, distinct per article, and pass the filter, so every article that reports
an event yields questions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from prescient.vocab import CATEGORIES

Messages = Sequence[Mapping[str, Any]]

FILTER_LINES = (
    "Correctness",
    "Only answerable on the date",
    "No new information",
    "Objectivity",
    "Clear time element",
    "Public interest",
    "Not obvious",
)


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _field(text: str, label: str) -> str:
    found = re.findall(rf"^{label}: (.*)$", text, re.M)
    return found[-1].strip() if found else ""


def answer(messages: Messages) -> str | None:
    """The reply to a construction prompt; None when the messages are not one."""
    system = str(messages[0]["content"]) if messages else ""
    text = str(messages[-1]["content"])
    if system.startswith("You are a news editor"):
        title = _field(text, "Title")
        return f"{title}, as reported on {_field(text, 'Published')}."
    if system.startswith("You write forecasting questions"):
        key = _field(text, "Key point")[:60]
        n = _h(key)
        instruction = text.rstrip().rsplit("\n", 1)[-1]
        if instruction.startswith("Write a question"):  # one slot per request
            return _slot(instruction, key, n)
        return "\n".join(
            [
                f"Question 1: Will it be true that {key} in this month?",
                "Answer 1: Yes",
                f"Question 2: Will the plan of story {n % 997} be cancelled this month?",
                "Answer 2: No",
                f"Question 3: Which town will host event {n % 991} this month?",
                f"Answer 3: Town {n % 97}",
                f"Question 4: How many people will attend event {n % 983} this month?",
                f"Answer 4: {n % 500} people",
            ]
        )
    if system.startswith("You write three wrong answer options"):
        n = _h(_field(text, "Question"))
        return f"(b) Town {n % 89 + 100}\n(c) Town {n % 83 + 200}\n(d) Town {n % 79 + 300}"
    if system.startswith("You check forecasting questions"):
        return "\n".join(f"{label}: 2" for label in FILTER_LINES)
    if system.startswith("You sort forecasting questions"):
        return CATEGORIES[_h(_field(text, "Question")) % len(CATEGORIES)]
    return None


def _slot(instruction: str, key: str, n: int) -> str:
    if "answer Yes" in instruction:
        return f"Question: Will it be true that {key} in this month?\nAnswer: Yes"
    if "answer No" in instruction:
        return f"Question: Will the plan of story {n % 997} be cancelled this month?\nAnswer: No"
    if instruction.startswith('Write a question that starts with "Which"'):
        return f"Question: Which town will host event {n % 991} this month?\nAnswer: Town {n % 97}"
    return f"Question: How many people will attend event {n % 983} this month?\nAnswer: {n % 500} people"


def script(messages: Messages, _params: Mapping[str, Any]) -> str:
    """``register_script`` form: fails loudly on a prompt it does not know."""
    reply = answer(messages)
    if reply is None:
        raise ValueError(f"not a construction prompt: {str(messages[0]['content'])[:60]!r}")
    return reply
