"""Repeated questions: word for word (same type and normalised words) or near-duplicates
of an earlier day (TF-IDF cosine), and the contradictory ones (a repeat answered both
ways).

Every flag is a function of the question set alone, never of the order its rows arrive
in: a question is the repeat of an earlier one by resolution date, then question id.
Question construction audits its own output with these functions and the analysis counts
repeats across the whole evaluated set with them, so the two agree on what a repeat is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.replies import normalize

MAX_SIMILARITY_CELLS = 4_000_000
"""Similarities computed per chunk of questions (rows times the questions they are compared
with): bounds memory whatever the size of the question set."""


def question_key(qtype: str, question: str) -> str:
    """What makes two questions the same question: type and normalised words."""
    return f"{str(qtype).lower()}|{normalize(str(question))}"


def _order(frame: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Rows by resolution date, then question id: an order that depends on the questions
    alone, not on the row order of the table they arrive in."""
    days = pd.to_datetime(pd.Series(frame["resolution_date"].tolist()), errors="coerce")
    keys = pd.DataFrame({"day": days.to_numpy(), "id": frame["question_id"].astype(str).to_numpy()})
    return keys.sort_values(["day", "id"], kind="stable").index.to_numpy(dtype=np.int64)


def near_duplicates(
    frame: pd.DataFrame, threshold: float, window_days: int | None
) -> tuple[list[str | None], list[float | None]]:
    """For each question, the most similar question of an earlier day when their TF-IDF
    cosine similarity reaches ``threshold`` (and, with ``window_days``, the earlier day is
    at most that many days before).

    One TF-IDF model (sublinear tf, smooth idf, l2 norm; every word and number a token,
    single characters included) is fitted on the whole set, so a
    flag is a function of the question set alone (not of its row order). The
    similarities are computed as sparse products of row chunks with the questions before
    them (:data:`MAX_SIMILARITY_CELLS`), so tens of thousands of questions need neither
    quadratic memory nor one model per day. Questions of the same day are never compared
    (siblings are the answer checks' concern; identical text is :func:`duplicates`').
    Ties go to the earliest question in (day, question id) order.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    n = len(frame)
    match: list[str | None] = [None] * n
    score: list[float | None] = [None] * n
    if n < 2:
        return match, score
    order = _order(frame)
    texts = frame["question"].astype(str).to_numpy()[order]
    ids = frame["question_id"].astype(str).to_numpy()[order]
    days = (
        pd.to_datetime(pd.Series(frame["resolution_date"].tolist()))
        .to_numpy(dtype="datetime64[D]")[order]
        .astype(np.int64)
    )
    try:
        # every word and number counts, single characters too ("game 6" is not "game 7")
        vectorizer = TfidfVectorizer(sublinear_tf=True, token_pattern=r"(?u)\b\w+\b")
        x = vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # no words at all
        return match, score
    # rows of a day are compared with every row of earlier days: those before the day's first
    first_of_day = np.searchsorted(days, days, side="left")
    start = int(np.searchsorted(days, days[0], side="right"))  # the first day has no past
    while start < n:
        stop = min(n, start + max(1, MAX_SIMILARITY_CELLS // n))
        limit = int(first_of_day[stop - 1])
        if limit == 0:
            start = stop
            continue
        sims = (x[start:stop] @ x[:limit].T).tocoo()
        row = sims.row + start
        col = sims.col
        val = sims.data
        keep = (val >= threshold - 1e-12) & (col < first_of_day[row])
        if window_days is not None:
            keep &= days[row] - days[col] <= window_days
        row, col, val = row[keep], col[keep], val[keep]
        # per row: highest similarity, then the earliest question
        best = np.lexsort((col, -val, row))
        row, col, val = row[best], col[best], val[best]
        first = np.ones(len(row), dtype=bool)
        first[1:] = row[1:] != row[:-1]
        for r, c, v in zip(row[first], col[first], val[first], strict=True):
            if v >= threshold:
                target = int(order[r])
                match[target] = str(ids[c])
                score[target] = round(float(v), 4)
        start = stop
    return match, score


def duplicates(
    frame: pd.DataFrame, threshold: float, window_days: int | None = None
) -> pd.DataFrame:
    """Exact and near-duplicate questions across a whole question set.

    Args:
        frame: questions with question_id, qtype, question, answer and resolution_date
            (a date or anything ``pandas.to_datetime`` reads).
        threshold: TF-IDF cosine similarity from which a question near-duplicates one
            of an earlier day (:func:`near_duplicates`).
        window_days: how far back near-duplicates are looked for (None: the whole set).

    Returns:
        A frame with ``frame``'s index and four columns:
        ``dup_exact_of``, the first question (by resolution date, then id) with the same
        type and normalised words, on any day (None for that first one and for unique
        questions); ``dup_near_of`` and ``dup_similarity`` (:func:`near_duplicates`);
        ``dup_contradicts``, true when a question with the same type and words has
        another gold answer (compared as normalised text): the same question answered
        both ways.
    """
    out = pd.DataFrame(index=frame.index)
    if frame.empty:
        out["dup_exact_of"] = pd.Series(dtype=object)
        out["dup_near_of"] = pd.Series(dtype=object)
        out["dup_similarity"] = pd.Series(dtype="Float64")
        out["dup_contradicts"] = pd.Series(dtype=bool)
        return out
    rows = frame.reset_index(drop=True)
    order = _order(rows)
    keys = [question_key(t, q) for t, q in zip(rows["qtype"], rows["question"], strict=True)]
    answers = [normalize(str(a)) for a in rows["answer"]]
    ids = rows["question_id"].astype(str).tolist()
    exact: list[str | None] = [None] * len(rows)
    first: dict[str, int] = {}
    answers_of: dict[str, set[str]] = {}
    for i in order:
        k = keys[i]
        if k in first:
            exact[i] = ids[first[k]]
        else:
            first[k] = int(i)
        answers_of.setdefault(k, set()).add(answers[i])
    near, sim = near_duplicates(rows, threshold, window_days)
    out["dup_exact_of"] = pd.Series(exact, index=frame.index, dtype=object)
    out["dup_near_of"] = pd.Series(near, index=frame.index, dtype=object)
    out["dup_similarity"] = pd.Series(sim, index=frame.index, dtype="Float64")
    out["dup_contradicts"] = [len(answers_of[k]) > 1 for k in keys]
    return out


def duplicate_summary(dups: pd.DataFrame, keys: Sequence[str]) -> dict[str, int]:
    """Counts of :func:`duplicates`' flags, for metrics and the report.

    Args:
        dups: :func:`duplicates`' frame.
        keys: each row's :func:`question_key` (contradictions are counted per question
            and per distinct question).

    Returns:
        ``exact_duplicates`` (questions repeating an earlier one word for word),
        ``near_duplicates`` (questions near-duplicating one of an earlier day),
        ``contradictory_duplicates`` (questions whose repeats carry another gold answer)
        and ``contradictory_questions`` (distinct such questions).
    """
    contradicts = dups["dup_contradicts"].astype(bool).to_numpy()
    return {
        "exact_duplicates": int(dups["dup_exact_of"].notna().sum()),
        "near_duplicates": int(dups["dup_near_of"].notna().sum()),
        "contradictory_duplicates": int(contradicts.sum()),
        "contradictory_questions": len({k for k, c in zip(keys, contradicts, strict=True) if c}),
    }
