"""Leakage audit of generated questions (an addition to the Daily Oracle method).

Questions generated from the same day's news give each other away: an open question's
answer may be spelled out in a sibling question (a related project found a quarter of
its answers verbatim in another question of the same day), the same event comes back as
a near-duplicate question on a later day, the same question comes back word for word
(sometimes with the other answer: a contradictory duplicate), and phrases such as
"according to the article" point at a source the forecaster never sees. This module
measures those per question; whether flagged questions are dropped is the caller's
switch.

The answer and phrase flags of a question depend only on its own day. Duplicates are
looked for among the questions of its day and earlier days
(:func:`prescient.duplicates.duplicates`): every flag is a function of the question set
alone, never of the order its rows arrive in; a question is flagged as the repeat of an
earlier one (by resolution date, then question id), so the first of a group stays
unflagged; and every flag is what was known on the question's day (the TF-IDF weights
too), so adding later days never changes an earlier question's flags.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any

import pandas as pd
from pydantic import Field

from prescient.duplicates import duplicates
from prescient.kept import KeptStore
from prescient.replies import normalize
from prescient.retrieval.tokenize import english_stopwords
from prescient.settings import Settings
from prescient.vocab import (
    FLAG_ANSWER_IN_ARTICLE_SIBLING,
    FLAG_ANSWER_IN_DAY_SIBLING,
    FLAG_CONTRADICTORY,
    FLAG_EXACT_DUPLICATE,
    FLAG_NEAR_DUPLICATE,
    FLAG_PHRASE,
    FLAGS,
    MC,
)

AUDIT_COLUMNS: tuple[str, ...] = (
    "leak_answer_in_article_sibling",
    "leak_answer_in_day_sibling",
    "leak_near_duplicate",
    "leak_near_duplicate_of",
    "leak_near_duplicate_similarity",
    "leak_exact_duplicate",
    "leak_exact_duplicate_of",
    "leak_contradictory_duplicate",
    "leak_phrase",
    "leakage_flags",
    "leakage_flagged",
)


class LeakageSettings(Settings):
    """Parameters of the audit (params ``construct.leakage``; see conf/construct/default.yaml).

    Attributes:
        drop_flagged: drop flagged questions from questions.parquet (false: keep and flag).
        answer_overlap: share of an answer's distinctive words that must occur in a
            sibling question for the answer to count as leaked (the whole answer as a
            phrase always counts).
        near_duplicate_threshold: TF-IDF cosine similarity from which a question
            duplicates an earlier day's question.
        near_duplicate_window_days: how many earlier days to compare with (None: the
            whole set). Exact duplicates are found across the whole set either way.
        phrases: phrases (case-insensitive, whole words) that refer to a source.
    """

    drop_flagged: bool
    answer_overlap: Annotated[float, Field(gt=0, le=1)]
    near_duplicate_threshold: Annotated[float, Field(gt=0, le=1)]
    near_duplicate_window_days: Annotated[int, Field(ge=1)] | None
    phrases: tuple[Annotated[str, Field(min_length=1)], ...]


def distinctive_words(answer: str, own_question: str) -> list[str]:
    """The words of an answer that could give it away: not stop words, not in its question.

    Words the question already contains are no clue (a sibling repeating them reveals
    nothing); single letters are too common to count.
    """
    stop = english_stopwords()
    own = set(normalize(own_question).split())
    words = []
    for w in normalize(answer).split():
        if w in stop or w in own or (len(w) < 2 and not w.isdigit()) or w in words:
            continue
        words.append(w)
    return words


def answer_leaks(answer: str, own_question: str, other_question: str, overlap: float) -> bool:
    """Whether ``other_question`` gives away ``answer`` (of ``own_question``).

    True when the whole answer occurs in it as a phrase, or when at least ``overlap`` of
    the answer's distinctive words occur in it (so "Joe Biden" leaks through "Will Biden
    sign ...?", and "$1.27 per mile" through "... a rate of 1.27 dollars a mile ...").
    """
    return _AnswerClue(answer, own_question).leaks_in(normalize(other_question), overlap)


class _AnswerClue:
    """What of an answer could leak (:func:`answer_leaks`), worked out once for every
    sibling question it is compared with."""

    def __init__(self, answer: str, own_question: str) -> None:
        self.target = normalize(answer)
        self.words = distinctive_words(answer, own_question)
        self.phrase = re.compile(rf"(?<![a-z0-9]){re.escape(self.target)}(?![a-z0-9])")

    def leaks_in(self, other: str, overlap: float) -> bool:
        """Whether the normalised question ``other`` gives the answer away."""
        if not self.target or not other or not self.words:
            return False
        if self.phrase.search(other):
            return True
        present = set(other.split())
        return sum(w in present for w in self.words) / len(self.words) >= overlap


def phrase_hits(question: str, phrases: Sequence[str]) -> list[str]:
    """The source-referring phrases a question contains."""
    low = " ".join(question.lower().split())
    return [p for p in phrases if re.search(rf"\b{re.escape(p.lower())}\b", low)]


def audit(pool: pd.DataFrame, s: LeakageSettings, kept: KeptStore | None = None) -> pd.DataFrame:
    """Leakage flags for every question of ``pool``.

    Args:
        pool: the questions that would be published together, with columns
            question_id, article_id, resolution_date (datetime.date), qtype, question,
            answer (the correct answer's text).
        s: audit settings.
        kept: where each day's near-duplicate flags are kept
            (:func:`prescient.duplicates.near_duplicates`).

    Returns:
        A frame with ``pool``'s index and the ``AUDIT_COLUMNS``: one boolean per check,
        the near-duplicate's question id and similarity, the exact duplicate's question
        id (:func:`duplicates`), ``leakage_flags`` (flag names,
        comma-separated, empty when clean) and ``leakage_flagged``. Only open (MC)
        questions are checked for leaked answers: a Yes/No answer cannot leak as text.
    """
    out = pd.DataFrame(index=pool.index)
    if pool.empty:
        for c in AUDIT_COLUMNS:
            out[c] = pd.Series(dtype=object)
        return out
    rows = pool.reset_index(drop=True)
    n = len(rows)
    qtypes = rows["qtype"].astype(str).tolist()
    questions = rows["question"].astype(str).tolist()
    answers = rows["answer"].astype(str).tolist()
    article_ids = rows["article_id"].astype(str).tolist()
    in_article = [False] * n
    in_day = [False] * n
    normalized = [normalize(q) for q in questions]
    for idx in rows.groupby("resolution_date", sort=True).indices.values():
        for i in idx:
            if qtypes[i] != MC:
                continue
            clue = _AnswerClue(answers[i], questions[i])
            for j in idx:
                if j == i or not clue.leaks_in(normalized[j], s.answer_overlap):
                    continue
                if article_ids[j] == article_ids[i]:
                    in_article[i] = True
                else:
                    in_day[i] = True
    dups = duplicates(rows, s.near_duplicate_threshold, s.near_duplicate_window_days, kept)
    dup_of = dups["dup_near_of"].tolist()
    exact_of = dups["dup_exact_of"].tolist()
    contradicts = dups["dup_contradicts"].astype(bool).tolist()
    phrase = [bool(phrase_hits(str(q), s.phrases)) for q in rows["question"]]
    flags = []
    for i in range(n):
        names = [
            name
            for name, hit in (
                (FLAG_ANSWER_IN_ARTICLE_SIBLING, in_article[i]),
                (FLAG_ANSWER_IN_DAY_SIBLING, in_day[i]),
                (FLAG_NEAR_DUPLICATE, dup_of[i] is not None),
                (FLAG_EXACT_DUPLICATE, exact_of[i] is not None),
                (FLAG_CONTRADICTORY, contradicts[i]),
                (FLAG_PHRASE, phrase[i]),
            )
            if hit
        ]
        flags.append(",".join(names))
    out["leak_answer_in_article_sibling"] = in_article
    out["leak_answer_in_day_sibling"] = in_day
    out["leak_near_duplicate"] = [d is not None for d in dup_of]
    out["leak_near_duplicate_of"] = pd.Series(dup_of, index=pool.index, dtype=object)
    out["leak_near_duplicate_similarity"] = pd.Series(
        dups["dup_similarity"].tolist(), index=pool.index, dtype="Float64"
    )
    out["leak_exact_duplicate"] = [d is not None for d in exact_of]
    out["leak_exact_duplicate_of"] = pd.Series(exact_of, index=pool.index, dtype=object)
    out["leak_contradictory_duplicate"] = contradicts
    out["leak_phrase"] = phrase
    out["leakage_flags"] = flags
    out["leakage_flagged"] = [bool(f) for f in flags]
    return out


def summarize(flags: pd.DataFrame, qtype: pd.Series) -> dict[str, Any]:
    """Counts of each flag (and of MC answers leaked) for the metrics."""
    total = len(flags)
    mc = int((qtype == MC).sum())
    if total == 0:
        return {"audited": 0, "flagged": 0, "by_flag": {f: 0 for f in FLAGS}}
    by_flag = {
        FLAG_ANSWER_IN_ARTICLE_SIBLING: int(flags["leak_answer_in_article_sibling"].sum()),
        FLAG_ANSWER_IN_DAY_SIBLING: int(flags["leak_answer_in_day_sibling"].sum()),
        FLAG_NEAR_DUPLICATE: int(flags["leak_near_duplicate"].sum()),
        FLAG_EXACT_DUPLICATE: int(flags["leak_exact_duplicate"].sum()),
        FLAG_CONTRADICTORY: int(flags["leak_contradictory_duplicate"].sum()),
        FLAG_PHRASE: int(flags["leak_phrase"].sum()),
    }
    leaked_mc = int(
        (flags["leak_answer_in_article_sibling"] | flags["leak_answer_in_day_sibling"]).sum()
    )
    return {
        "audited": total,
        "flagged": int(flags["leakage_flagged"].sum()),
        "by_flag": by_flag,
        "mc_audited": mc,
        "mc_answers_leaked": leaked_mc,
        "mc_answer_leak_rate": round(leaked_mc / mc, 4) if mc else None,
    }
