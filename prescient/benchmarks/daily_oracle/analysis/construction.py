"""How the evaluated questions were made: the construction funnel and the leakage audit.

Read from the candidates table the ``construct`` stage writes (one row per article given
to question generation and one per candidate question, each with its status, the step
that decided it and the reason): articles, candidate questions, the candidates each step
rejected and why (Daily Oracle, ICML 2025, section 3.1: generation, then the QA filter
with its seven principles and threshold), the questions that passed, those the leakage
audit dropped, and how many of the published questions were evaluated. The leakage audit
(an addition to the paper's method, :mod:`prescient.benchmarks.daily_oracle.leakage`)
is counted per flag over the questions it audited.
"""

from __future__ import annotations

import pandas as pd

from prescient import dates, vocab
from prescient.vocab import ACCEPTED, LEAKAGE_DROPPED, MC, TF

FUNNEL_COLUMNS = ["stage", "what", "status", "step", "reason", "example", "n", "n_tf", "n_mc"]
"""Columns of ``construction_funnel``: ``stage`` (corpus, articles, article_outcome,
candidates, rejected, passed, leakage_dropped, published, evaluated), what the row
counts in words, the candidates' ``status``, ``step`` and ``reason`` (its kind, the text
before the colon) for the rejected rows with the most frequent full reason of the row as
its ``example``, and the counts (questions by type where the
row counts questions)."""

LEAKAGE_COLUMNS = ["flag", "what", "n", "n_tf", "n_mc", "audited", "share"]
"""Columns of ``leakage_audit``: per flag the questions it flags (by type), the
questions it could flag (``audited``: MC questions alone for the answer checks) and the
share; the last row (``any``) counts questions with at least one flag."""

FLAG_COLUMNS: dict[str, tuple[str, str]] = {
    vocab.FLAG_ANSWER_IN_ARTICLE_SIBLING: (
        "leak_answer_in_article_sibling",
        "MC answer spelled out in another question from the same article",
    ),
    vocab.FLAG_ANSWER_IN_DAY_SIBLING: (
        "leak_answer_in_day_sibling",
        "MC answer spelled out in another question of the same day",
    ),
    vocab.FLAG_NEAR_DUPLICATE: (
        "leak_near_duplicate",
        "near-duplicate of an earlier day's question (TF-IDF cosine at the threshold)",
    ),
    vocab.FLAG_EXACT_DUPLICATE: (
        "leak_exact_duplicate",
        "word for word an earlier question",
    ),
    vocab.FLAG_CONTRADICTORY: (
        "leak_contradictory_duplicate",
        "a repeat answered otherwise than the same question on its day or before",
    ),
    vocab.FLAG_PHRASE: (
        "leak_phrase",
        "refers to a source the forecaster never sees (construct.leakage.phrases)",
    ),
}
"""Flag -> (candidates column, what it means)."""
ANSWER_FLAGS = (vocab.FLAG_ANSWER_IN_ARTICLE_SIBLING, vocab.FLAG_ANSWER_IN_DAY_SIBLING)


def _text(value: object) -> str:
    return "" if dates.is_missing(value) else str(value)


def _reason_kind(reason: object) -> str:
    return _text(reason).split(":", 1)[0].strip()


def _most_frequent(reasons: pd.Series) -> str:
    """The most frequent full reason (ties: the first in sorted order)."""
    texts = sorted(_text(r) for r in reasons if _text(r))
    if not texts:
        return ""
    return max(dict.fromkeys(texts), key=texts.count)


def _by_type(questions: pd.DataFrame) -> tuple[int, int]:
    qtype = questions["qtype"].astype(str).str.lower()
    return int((qtype == TF).sum()), int((qtype == MC).sum())


def _row(
    stage: str,
    what: str,
    n: int | None,
    questions: pd.DataFrame | None = None,
    status: str = "",
    step: str = "",
    reason: str = "",
    example: str = "",
) -> dict[str, object]:
    n_tf, n_mc = _by_type(questions) if questions is not None else (None, None)
    return {
        "stage": stage,
        "what": what,
        "status": status,
        "step": step,
        "reason": reason,
        "example": example,
        "n": n,
        "n_tf": n_tf,
        "n_mc": n_mc,
    }


def construction_funnel(
    candidates: pd.DataFrame, n_corpus: int | None, evaluated_ids: set[str]
) -> pd.DataFrame:
    """The funnel from the corpus to the evaluated questions.

    Args:
        candidates: the construct stage's candidates table (``kind`` article or
            question, ``status``, ``step``, ``reason``, ``qtype``, ``question_id``).
        n_corpus: articles in the corpus (None when the analysis read none).
        evaluated_ids: the ids of the evaluated questions (every source: only the
            published ones are counted).
    """
    if candidates.empty or "kind" not in candidates.columns:
        return pd.DataFrame(columns=FUNNEL_COLUMNS)
    arts = candidates.loc[candidates["kind"] == "article"]
    qs = candidates.loc[candidates["kind"] == "question"]
    rows = [
        _row("corpus", "articles in the corpus", n_corpus),
        _row(
            "articles",
            "articles given to question generation (selected, within the construction "
            "window and budget)",
            len(arts),
        ),
    ]
    with_questions = set(qs["article_id"].astype(str))
    idle = arts.loc[~arts["article_id"].astype(str).isin(with_questions)]
    for (status, step), part in idle.groupby(
        [idle["status"].map(_text), idle["step"].map(_text)], sort=True
    ):
        kinds = ", ".join(sorted({_reason_kind(r) for r in part["reason"]} - {""}))
        rows.append(
            _row(
                "article_outcome",
                "articles without questions",
                len(part),
                None,
                str(status),
                str(step),
                kinds,
            )
        )
    rows.append(_row("candidates", "candidate questions generated", len(qs), qs))
    passed = qs["status"].isin([ACCEPTED, LEAKAGE_DROPPED])
    rejected = qs.loc[~passed]
    keys = [
        rejected["status"].map(_text),
        rejected["step"].map(_text),
        rejected["reason"].map(_reason_kind),
    ]
    for (status, step, reason), part in rejected.groupby(keys, sort=True):
        rows.append(
            _row(
                "rejected",
                "candidates rejected",
                len(part),
                part,
                str(status),
                str(step),
                str(reason),
                _most_frequent(part["reason"]),
            )
        )
    rows.append(_row("passed", "candidates passing every step", int(passed.sum()), qs.loc[passed]))
    dropped = qs.loc[qs["status"] == LEAKAGE_DROPPED]
    rows.append(
        _row(
            "leakage_dropped",
            "dropped by the leakage audit",
            len(dropped),
            dropped,
            LEAKAGE_DROPPED,
        )
    )
    published = qs.loc[qs["status"] == ACCEPTED]
    rows.append(_row("published", "published questions", len(published), published, ACCEPTED))
    evaluated = published.loc[published["question_id"].astype(str).isin(evaluated_ids)]
    rows.append(_row("evaluated", "of them evaluated", len(evaluated), evaluated))
    return pd.DataFrame(rows, columns=FUNNEL_COLUMNS)


def leakage_audit(candidates: pd.DataFrame) -> pd.DataFrame:
    """Each leakage flag over the questions the audit saw (those passing the filter)."""
    if candidates.empty or "leakage_flagged" not in candidates.columns:
        return pd.DataFrame(columns=LEAKAGE_COLUMNS)
    audited = candidates.loc[
        (candidates["kind"] == "question") & candidates["leakage_flagged"].notna()
    ]
    if audited.empty:
        return pd.DataFrame(columns=LEAKAGE_COLUMNS)
    qtype = audited["qtype"].astype(str).str.lower()
    rows = []
    for flag in vocab.FLAGS:
        column, what = FLAG_COLUMNS[flag]
        if column not in audited.columns:
            continue
        hit = audited.loc[audited[column].fillna(False).astype(bool)]
        pool = int((qtype == MC).sum()) if flag in ANSWER_FLAGS else len(audited)
        n_tf, n_mc = _by_type(hit)
        rows.append(
            {
                "flag": flag,
                "what": what,
                "n": len(hit),
                "n_tf": n_tf,
                "n_mc": n_mc,
                "audited": pool,
                "share": len(hit) / pool if pool else None,
            }
        )
    flagged = audited.loc[audited["leakage_flagged"].astype(bool)]
    n_tf, n_mc = _by_type(flagged)
    rows.append(
        {
            "flag": "any",
            "what": "questions with at least one flag",
            "n": len(flagged),
            "n_tf": n_tf,
            "n_mc": n_mc,
            "audited": len(audited),
            "share": len(flagged) / len(audited),
        }
    )
    return pd.DataFrame(rows, columns=LEAKAGE_COLUMNS)
