"""Repeated questions: word for word (same type and normalised words) or near-duplicates
of an earlier day (TF-IDF cosine), and the contradictory ones (a repeat answered both
ways).

Every flag is a function of the question set alone, never of the order its rows arrive
in: a question is the repeat of an earlier one by resolution date, then question id. And
every flag of a question is a function of the questions of its day and earlier days
alone, so a benchmark that grows by a day never changes an earlier day's flags.
Question construction audits its own output with these functions and the analysis counts
repeats across the whole evaluated set with them, so the two agree on what a repeat is.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse

from prescient.kept import KeptStore, code_of, digest, pack_strings, unpack_strings
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


_WORD = re.compile(r"(?u)\b\w+\b")
"""A word: every run of word characters, single characters and numbers too ("game 6" is
not "game 7")."""


def word_counts(texts: Iterable[Any]) -> sparse.csr_matrix | None:
    """Each text's count of each of its words (lower-cased, :data:`_WORD`) as a sparse
    matrix whose columns are the words in sorted order, its indices sorted: the matrix
    scikit-learn's ``CountVectorizer`` makes with :data:`_WORD`'s pattern, without
    loading the library. None when no text has a word."""
    docs = [Counter(_WORD.findall(str(t).lower())) for t in texts]
    words = sorted(set().union(*docs))
    if not words:
        return None
    column = {w: j for j, w in enumerate(words)}
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    indices: list[int] = []
    data: list[int] = []
    for i, doc in enumerate(docs):
        for j, n in sorted((column[w], n) for w, n in doc.items()):
            indices.append(j)
            data.append(n)
        indptr[i + 1] = len(indices)
    return sparse.csr_matrix(
        (np.array(data, dtype=np.int64), np.array(indices, dtype=np.int32), indptr),
        shape=(len(docs), len(words)),
    )


def _log_table(n: int) -> npt.NDArray[np.float64]:
    """``ln(k)`` for k = 0..n (0 at k = 0), from the C library's scalar ``log``: the same
    bits on every machine, where numpy's vectorised ``log`` may take another code path
    on another CPU."""
    table = np.zeros(n + 1, dtype=np.float64)
    for k in range(1, n + 1):
        table[k] = math.log(k)
    return table


def near_duplicates(
    frame: pd.DataFrame,
    threshold: float,
    window_days: int | None,
    kept: KeptStore | None = None,
) -> tuple[list[str | None], list[float | None]]:
    """For each question, the most similar question of an earlier day when their TF-IDF
    cosine similarity reaches ``threshold`` (and, with ``window_days``, the earlier day is
    at most that many days before).

    The weights are those known on the question's day: sublinear tf and smooth idf
    (``1 + ln((1 + n) / (1 + df))``) over the questions of that day and every earlier
    day, l2-normalised; every word and number is a token, single characters included. So
    a question's flag depends on its day and the days before it alone: questions added
    later (a daily update) never change an earlier question's flag, and the flag does
    not depend on the row order of the table. Each day's questions are compared with the
    earlier days' in sparse products of row chunks (:data:`MAX_SIMILARITY_CELLS`), so
    tens of thousands of questions need neither quadratic memory nor a model refitted
    per day. Questions of the same day are never compared (siblings are the answer
    checks' concern; identical text is :func:`duplicates`'). Ties go to the earliest
    question in (day, question id) order.

    Each day compares its questions with every earlier one, so a whole set costs its days
    times its size. With ``kept`` (:data:`STORE` under DVC's cache directory) each day's
    flags are kept under a digest of that day's questions and every earlier day's
    (:func:`_day_names`): a set that grew by a day computes that day alone, with the
    same bits as a computation from scratch (the weights, norms and products of a day do
    not depend on later rows or on the vocabulary's size).
    """
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
    day_starts = np.flatnonzero(np.r_[True, days[1:] != days[:-1]])
    day_ends = np.r_[day_starts[1:], n]
    spans = list(zip(day_starts.tolist(), day_ends.tolist(), strict=True))
    names = _day_names(ids, texts, days, spans, threshold, window_days) if kept else []
    todo = set(range(len(spans)))
    for k, name in enumerate(names):
        found = _read_day(kept, name, spans[k]) if kept is not None else None
        if found is not None:
            todo.discard(k)
            for r, (m, v) in enumerate(zip(*found, strict=True), start=spans[k][0]):
                match[int(order[r])], score[int(order[r])] = m, v
    if not todo:
        return match, score

    counts = word_counts(texts)
    if counts is None:  # no words at all
        return match, score
    logs = _log_table(max(n + 1, int(counts.data.max(initial=1))))
    tf = sparse.csr_matrix(
        (1.0 + logs[counts.data], counts.indices, counts.indptr), shape=counts.shape
    )
    df = np.zeros(counts.shape[1], dtype=np.int64)
    for k, (a, b) in enumerate(spans):
        df += np.bincount(counts.indices[counts.indptr[a] : counts.indptr[b]], minlength=len(df))
        if k not in todo:
            continue
        lo = 0
        if window_days is not None:
            lo = int(np.searchsorted(days, days[a] - window_days, side="left"))
        if lo < a:
            idf = 1.0 + logs[1 + b] - logs[1 + df]  # known on this day: rows [0, b)
            _compare_day(tf, idf, lo, a, b, threshold, ids, order, match, score)
        if kept is not None and names:
            _write_day(
                kept,
                names[k],
                [match[int(order[r])] for r in range(a, b)],
                [score[int(order[r])] for r in range(a, b)],
            )
    return match, score


def _compare_day(
    tf: sparse.csr_matrix,
    idf: npt.NDArray[np.float64],
    lo: int,
    a: int,
    b: int,
    threshold: float,
    ids: npt.NDArray[np.object_],
    order: npt.NDArray[np.int64],
    match: list[str | None],
    score: list[float | None],
) -> None:
    """The flags of one day's rows ``[a, b)`` against the earlier rows ``[lo, a)``."""
    weighted = _normalized(tf[lo:b], idf)
    earlier = weighted[: a - lo].T.tocsc()
    step = max(1, MAX_SIMILARITY_CELLS // (a - lo))
    for c0 in range(a, b, step):
        c1 = min(b, c0 + step)
        sims = (weighted[c0 - lo : c1 - lo] @ earlier).tocoo()
        keep = sims.data >= threshold - 1e-12
        row = sims.row[keep] + c0
        col = sims.col[keep] + lo
        val = sims.data[keep]
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


STORE = "duplicates"
"""The kept store of each day's near-duplicate flags, under DVC's cache directory."""


def _day_names(
    ids: npt.NDArray[np.object_],
    texts: npt.NDArray[np.object_],
    days: npt.NDArray[np.int64],
    spans: Sequence[tuple[int, int]],
    threshold: float,
    window_days: int | None,
) -> list[bytes]:
    """Each day's name in the kept store: a chain, each day's digest covering its own
    questions (ids and texts, in order) and the previous day's digest, so a day's name
    changes with any change on or before it, and with the settings, this module's code
    and the numerical libraries' versions."""
    import scipy

    versions = f"numpy {np.__version__} scipy {scipy.__version__}"
    chain = digest(
        b"near duplicates",
        code_of(sys.modules[__name__]),
        versions.encode(),
        repr((float(threshold), window_days)).encode(),
    )
    names = []
    for a, b in spans:
        parts = [str(int(days[a])).encode()]
        for i in range(a, b):
            parts += [str(ids[i]).encode(), str(texts[i]).encode()]
        chain = digest(chain, *parts)
        names.append(chain)
    return names


def _read_day(
    kept: KeptStore, name: bytes, span: tuple[int, int]
) -> tuple[list[str | None], list[float | None]] | None:
    """A day's kept flags, or None when absent or not of the day's size."""
    arrays = kept.read("near", name)
    if arrays is None or len(arrays) != 4 or len(arrays[3]) != span[1] - span[0]:
        return None
    blob, ends, has, values = arrays
    try:
        matched = unpack_strings(blob, ends)
    except ValueError:
        return None
    if len(matched) != len(values) or len(has) != len(values):
        return None
    return (
        [m if h else None for m, h in zip(matched, has.tolist(), strict=True)],
        [float(v) if h else None for v, h in zip(values.tolist(), has.tolist(), strict=True)],
    )


def _write_day(
    kept: KeptStore, name: bytes, matched: Sequence[str | None], scores: Sequence[float | None]
) -> None:
    has = np.array([m is not None for m in matched], dtype=np.uint8)
    values = np.array([0.0 if v is None else v for v in scores], dtype=np.float64)
    kept.write("near", name, [*pack_strings([m or "" for m in matched]), has, values])


def _normalized(tf: sparse.csr_matrix, idf: npt.NDArray[np.float64]) -> sparse.csr_matrix:
    """Rows of ``tf`` weighted by ``idf`` and scaled to unit length (empty rows stay 0)."""
    data = tf.data * idf[tf.indices]
    lengths = np.diff(tf.indptr)
    rows = np.repeat(np.arange(tf.shape[0]), lengths)
    norms = np.sqrt(np.bincount(rows, weights=data * data, minlength=tf.shape[0]))
    scale = np.repeat(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0), lengths)
    return sparse.csr_matrix((data * scale, tf.indices, tf.indptr), shape=tf.shape)


def duplicates(
    frame: pd.DataFrame,
    threshold: float,
    window_days: int | None = None,
    kept: KeptStore | None = None,
) -> pd.DataFrame:
    """Exact and near-duplicate questions across a whole question set.

    Args:
        frame: questions with question_id, qtype, question, answer and resolution_date
            (a date or anything ``pandas.to_datetime`` reads).
        threshold: TF-IDF cosine similarity from which a question near-duplicates one
            of an earlier day (:func:`near_duplicates`).
        window_days: how far back near-duplicates are looked for (None: the whole set).
        kept: where each day's near-duplicate flags are kept (:func:`near_duplicates`).

    Returns:
        A frame with ``frame``'s index and four columns:
        ``dup_exact_of``, the first question (by resolution date, then id) with the same
        type and normalised words, on any day (None for that first one and for unique
        questions); ``dup_near_of`` and ``dup_similarity`` (:func:`near_duplicates`);
        ``dup_contradicts``, true when a question with the same type and words, of the
        same or an earlier day, has another gold answer (compared as normalised text):
        the same question answered both ways. Every column is known on the question's
        day: questions of later days never change it.
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
    days = pd.to_datetime(pd.Series(rows["resolution_date"].tolist()), errors="coerce").tolist()
    exact: list[str | None] = [None] * len(rows)
    first: dict[str, int] = {}
    answers_of: dict[str, set[str]] = {}
    contradicts = [False] * len(rows)
    day_rows: list[int] = []
    for pos, i in enumerate(order.tolist()):
        k = keys[i]
        if k in first:
            exact[i] = ids[first[k]]
        else:
            first[k] = int(i)
        answers_of.setdefault(k, set()).add(answers[i])
        day_rows.append(i)
        last_of_day = pos + 1 == len(order) or days[order[pos + 1]] != days[i]
        if last_of_day:  # known on this day: its questions and every earlier day's
            for j in day_rows:
                contradicts[j] = len(answers_of[keys[j]]) > 1
            day_rows = []
    near, sim = near_duplicates(rows, threshold, window_days, kept)
    out["dup_exact_of"] = pd.Series(exact, index=frame.index, dtype=object)
    out["dup_near_of"] = pd.Series(near, index=frame.index, dtype=object)
    out["dup_similarity"] = pd.Series(sim, index=frame.index, dtype="Float64")
    out["dup_contradicts"] = contradicts
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
