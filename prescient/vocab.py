"""The papers' vocabulary: the names every part of the project shares.

Question types, the seven filter principles and their scale, the accept rule, the
eleven categories, the MC question types, the True/False choices and choice letters,
and the statuses a construction candidate can end in. Construction, annotation,
evaluation, analysis and the report import them from here; nothing restates them.
Sources: Daily Oracle (ICML 2025), section 3 and appendix D (principles, categories,
question types), Table 4 (human evaluation).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping

# --- question types and choices ---------------------------------------------------

TF = "tf"
MC = "mc"
QTYPES: tuple[str, ...] = (TF, MC)
"""True/False and four-option multiple-choice questions."""

TF_CHOICES: tuple[str, str] = ("Yes", "No")
"""The choices of every True/False question, in this order (index 0 is Yes)."""

CHOICE_LETTERS = string.ascii_lowercase
"""Choice ``i`` is labelled ``(CHOICE_LETTERS[i])``: (a), (b), (c), (d), ..."""

N_MC_CHOICES = 4
"""A Daily Oracle MC question has the answer and three distractors."""


def choice_label(index: int) -> str:
    """``(a)`` for choice 0, ``(b)`` for 1, ..."""
    return f"({CHOICE_LETTERS[index]})"


# --- the QA filter (paper section 3.3, Table 4) --------------------------------------

PRINCIPLES: tuple[str, ...] = (
    "correctness",
    "only_answerable_on_date",
    "no_new_information",
    "objectivity",
    "clear_time_element",
    "public_interest",
    "not_obvious",
)
"""The seven filter principles, in the paper's order; also the score column names."""

PRINCIPLE_LABELS: dict[str, str] = {
    "correctness": "Correctness of the answer",
    "only_answerable_on_date": "Not answerable before the publication date",
    "no_new_information": "No leaked information",
    "objectivity": "Objectivity",
    "clear_time_element": "Clear time element",
    "public_interest": "Public interest",
    "not_obvious": "Answer not obvious",
}
"""Row labels of the Table 4 layout (our wording of the principle names)."""

SCORE_VALUES: tuple[int, ...] = (0, 1, 2)
"""The score scale of every principle."""

MAX_TOTAL = max(SCORE_VALUES) * len(PRINCIPLES)
"""The highest filter total (14)."""

PAPER_ACCEPT_THRESHOLD = 13
"""The paper's filter threshold: a total of at least 13 of 14 points."""


def accepted(total: int | None, threshold: int) -> bool:
    """The filter's accept rule, for the LLM's total and the human consensus alike."""
    return total is not None and total >= threshold


# --- categories and MC types (paper Fig. 1) --------------------------------------------

CATEGORIES: tuple[str, ...] = (
    "Science & Tech",
    "Healthcare & Biology",
    "Economics & Business",
    "Environment & Energy",
    "Politics & Governance",
    "Education & Research",
    "Arts & Recreation",
    "Security & Defense",
    "Social Sciences",
    "Sports",
    "Other",
)
"""The eleven question categories, spelled as the prompt lists them."""

MC_TYPES: tuple[str, ...] = ("What", "Who", "Which", "Where", "How much", "How many", "Other")
"""MC question types by leading phrase (What will, Who will, Which ... will, How many,
How much, Where); ``Other`` for anything else (When, How, a statement)."""

_MC_LEAD = re.compile(r"(?i)\b(how\s+many|how\s+much|what|which|who|whom|whose|where)\b")
_OTHER_MC_TYPE = MC_TYPES[-1]
_MC_TYPE_OF: Mapping[str, str] = {
    **{t.lower(): t for t in MC_TYPES if t != _OTHER_MC_TYPE},
    "whom": "Who",
    "whose": "Who",
}


def mc_type(question: str) -> str:
    """The MC question type from its leading question word (paper Fig. 1a).

    The first question word counts, so a leading time clause ("By May 2024, which ...")
    does not hide it; a question without one is ``Other``.
    """
    m = _MC_LEAD.search(question)
    if not m:
        return _OTHER_MC_TYPE
    return _MC_TYPE_OF[" ".join(m.group(1).lower().split())]


# --- construction candidates -------------------------------------------------------------

# Article statuses.
GENERATED = "generated"
NO_NEW_EVENT = "no_new_event"
# Question statuses.
ACCEPTED = "accepted"
FILTERED_OUT = "filtered_out"
INVALID = "invalid"
LEAKAGE_DROPPED = "leakage_dropped"
# Either kind.
PARSE_ERROR = "parse_error"
LLM_ERROR = "llm_error"
MISSING_ARTICLE = "missing_article"

# --- the leakage audit of generated questions (an addition to the paper's method) ---

FLAG_ANSWER_IN_ARTICLE_SIBLING = "answer_in_article_sibling"
FLAG_ANSWER_IN_DAY_SIBLING = "answer_in_day_sibling"
FLAG_NEAR_DUPLICATE = "near_duplicate"
FLAG_EXACT_DUPLICATE = "exact_duplicate"
FLAG_CONTRADICTORY = "contradictory_duplicate"
FLAG_PHRASE = "source_phrase"
FLAGS: tuple[str, ...] = (
    FLAG_ANSWER_IN_ARTICLE_SIBLING,
    FLAG_ANSWER_IN_DAY_SIBLING,
    FLAG_NEAR_DUPLICATE,
    FLAG_EXACT_DUPLICATE,
    FLAG_CONTRADICTORY,
    FLAG_PHRASE,
)
"""Leakage flag names, as they appear in a candidate's ``leakage_flags`` and the metrics
(:mod:`prescient.benchmarks.daily_oracle.leakage` sets them)."""
